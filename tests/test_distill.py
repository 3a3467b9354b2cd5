"""Distillation of a search into a network (training/distill.py, ``meeplezoo train --algo distill``).

The teacher's games are written chunk by chunk and a second call continues where the first stopped, with
the same samples inline and on the process pool; fitting brings the network's greedy move closer to the
teacher's on held-out games; the checkpoint plays through the registry; bad settings are refused by name.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from meeplezoo.agents import make
from meeplezoo.agents.network import PolicyValueNet
from meeplezoo.cli import main
from meeplezoo.training.distill import DistillConfig, generate, load_chunks, samples_equal, teacher_game

torch = pytest.importorskip("torch")

from meeplezoo.training.distill import fit  # noqa: E402


def _cfg(**kw) -> DistillConfig:
    base = {"game": "haus_der_sonne", "teacher": "mcts:sims=8", "games": 4, "chunk": 2, "init": "scratch",
            "width": 32, "holdout": 2}
    return DistillConfig(**{**base, **kw})


def test_a_teacher_game_records_the_teachers_visit_shares():
    cfg = _cfg()
    game = cfg.make_game()
    data = teacher_game(cfg, 1, game)  # the teacher sits in seat 1
    assert len(data["obs"]) > 10 and data["obs"].shape[1] == game.observation_shape[0]
    assert np.all(data["pi"][~data["mask"]] == 0)
    pi = data["pi"].astype(np.float32)
    assert np.allclose(pi.sum(axis=1), 1.0, atol=1e-2)
    assert (data["mask"].sum(axis=1) > 1).all()  # forced moves are not samples
    assert set(np.unique(data["returns"])) <= {-1.0, 0.0, 1.0}
    again = teacher_game(cfg, 1, game)
    assert all(np.array_equal(data[k], again[k]) for k in ("obs", "mask", "pi"))


def test_generation_resumes_and_is_the_same_on_the_pool(tmp_path):
    cfg = _cfg(games=4)
    assert generate(_cfg(games=2), tmp_path / "a", verbose=0) == 1  # one chunk, then "interrupted"
    first = (tmp_path / "a" / "chunk_00000.npz").stat().st_mtime_ns
    assert generate(cfg, tmp_path / "a", verbose=0) == 2  # continues: chunk 1 only
    assert (tmp_path / "a" / "chunk_00000.npz").stat().st_mtime_ns == first
    assert generate(cfg, tmp_path / "b", workers=2, verbose=0) == 2
    a, cpu = load_chunks(tmp_path / "a")
    b, _ = load_chunks(tmp_path / "b")
    assert cpu > 0 and samples_equal(a, b)
    with pytest.raises(ValueError, match=r"another setting \(differs in \['teacher'\]"):
        generate(_cfg(teacher="mcts:sims=9"), tmp_path / "a", verbose=0)


def test_fitting_brings_the_network_to_the_teachers_moves(tmp_path):
    cfg = _cfg(games=16, chunk=2, holdout=4, epochs=12, lr=3e-3)
    generate(cfg, tmp_path / "run", workers=2, verbose=0)
    result = fit(cfg, tmp_path / "run", verbose=0)
    # on games it did not see, the network's moves are closer to the teacher's than before
    assert result.held_out_loss < result.held_out_loss_before - 0.1, result
    assert result.agreement > result.agreement_before + 0.04, result
    rows = (tmp_path / "run" / "fit.csv").read_text().splitlines()
    assert rows[0] == "epoch,policy_loss,held_out_loss,agreement" and len(rows) == 1 + 1 + 12
    net = PolicyValueNet.load(result.checkpoint, "haus_der_sonne", 2)
    meta = net.metadata
    assert meta["algorithm"] == "distill" and meta["distill_config"]["teacher"] == "mcts:sims=8"
    assert meta["training_cpu_seconds"] > 0 and meta["samples"] > 50
    assert meta["command"].startswith("meeplezoo train haus_der_sonne --players 2 --algo distill")
    # the result plays through the registry, legally
    agent = make(f"net:{result.checkpoint}", "haus_der_sonne", num_players=2, seed=0)
    game = net.game
    state = game.new_state(3)
    for _ in range(40):
        if state.is_terminal():
            break
        mask = state.legal_mask()
        a = agent.act(state.observe(state.current_player), mask, state=state)
        assert mask[a]
        state.apply(a)


def test_fitting_from_a_checkpoint_keeps_its_shape_and_adds_its_compute(tmp_path):
    cfg = _cfg(games=4, epochs=1)
    generate(cfg, tmp_path / "run", verbose=0)
    first = fit(cfg, tmp_path / "run", verbose=0)
    start = PolicyValueNet.load(first.checkpoint)
    again = _cfg(games=4, epochs=1, init=str(first.checkpoint))
    (tmp_path / "run2").mkdir()
    for p in (tmp_path / "run").glob("chunk_*.npz"):
        (tmp_path / "run2" / p.name).write_bytes(p.read_bytes())
    (tmp_path / "run2" / "generate.json").write_text((tmp_path / "run" / "generate.json").read_text())
    second = fit(again, tmp_path / "run2", verbose=0)
    net = PolicyValueNet.load(second.checkpoint)
    assert net.config == start.config
    assert net.metadata["training_cpu_seconds"] > start.metadata["training_cpu_seconds"]
    assert net.metadata["init_metadata"]["algorithm"] == "distill"


def test_bad_settings_are_refused_by_name(tmp_path):
    with pytest.raises(ValueError, match="teacher must be a search"):
        _cfg(teacher="heuristic")
    with pytest.raises(ValueError, match="init must be pretrained or scratch or a checkpoint"):
        _cfg(init="nowhere.zip")
    with pytest.raises(ValueError, match="games must be an int >= 1"):
        _cfg(games=0)
    with pytest.raises(ValueError, match="holdout must be an int >= 2"):
        _cfg(holdout=1)
    with pytest.raises(ValueError, match="unknown config key"):
        DistillConfig.from_json({"game": "kerala", "gods": 1})
    with pytest.raises(ValueError, match="no chunk"):
        fit(_cfg(), tmp_path / "empty", verbose=0)
    with pytest.raises(ValueError, match="does not search"):
        teacher_game(_cfg(teacher="pretrained"), 0)


def test_the_cli_generates_continues_and_fits(tmp_path, capsys):
    out = tmp_path / "cli"
    args = ["train", "haus_der_sonne", "--algo", "distill", "--teacher", "mcts:sims=4", "--games", "2",
            "--chunk", "1", "--init", "scratch", "--width", "16", "--epochs", "1", "--holdout", "2",
            "--out", str(out), "--quiet"]
    assert main(args) == 0
    assert "teacher decisions" in capsys.readouterr().out
    meta = PolicyValueNet.load(out / "final.zip").metadata
    assert meta["distill_config"]["width"] == 16 and meta["distill_config"]["epochs"] == 1
    assert json.loads((out / "generate.json").read_text())["teacher"] == "mcts:sims=4"
    assert main([*args[:7], "3", *args[8:], "--generate-only"]) == 0
    assert "3 chunks" in capsys.readouterr().out


def test_a_network_from_scratch_takes_every_width_the_cli_gives(tmp_path):
    """``--init scratch`` builds the architecture the flags name (convolutions, board channels, trunk
    layers, Kerala's action head), records it in the checkpoint and the config's command; a checkpoint
    start keeps its own shape; bad widths are refused by name."""
    out = tmp_path / "kerala"
    args = ["train", "kerala", "-o", "elephant_view=true", "--algo", "distill", "--teacher", "mcts:sims=2",
            "--games", "1", "--chunk", "1", "--init", "scratch", "--width", "16", "--channels", "4",
            "--conv-layers", "1", "--board-channels", "1", "--trunk-layers", "2", "--action-hidden", "8",
            "--epochs", "1", "--holdout", "2", "--out", str(out), "--quiet"]
    assert main(args) == 0
    net = PolicyValueNet.load(out / "final.zip")
    assert {k: net.config[k] for k in ("flat_hidden", "trunk_hidden", "channels", "conv_layers",
                                       "board_channels", "trunk_layers", "action_hidden")} == {
        "flat_hidden": 16, "trunk_hidden": 16, "channels": 4, "conv_layers": 1, "board_channels": 1,
        "trunk_layers": 2, "action_hidden": 8}
    command = net.metadata["command"]
    assert "--channels 4 --conv-layers 1 --board-channels 1 --trunk-layers 2 --action-hidden 8" in command
    game = net.game
    agent = make(f"net:{out / 'final.zip'}", game, seed=0)
    state = game.new_state(3)
    mask = state.legal_mask()
    assert mask[agent.act(state.observe(state.current_player), mask, state=state)]
    # a run that starts from that checkpoint keeps its shape whatever the width flags say
    cfg = DistillConfig(game="kerala", options={"elephant_view": True}, teacher="mcts:sims=2", games=1, chunk=1,
                        init=str(out / "final.zip"), epochs=1, holdout=2, channels=32, action_hidden=0)
    again = PolicyValueNet.load(fit(cfg, out, verbose=0).checkpoint)
    assert again.config["action_hidden"] == 8 and again.config["channels"] == 4
    assert "--action-hidden" not in DistillConfig(game="kerala").command("runs/x")
    for name, bad, lowest in (("channels", 0, 1), ("conv_layers", 0, 1), ("trunk_layers", 0, 1),
                              ("board_channels", -1, 0), ("action_hidden", -1, 0), ("action_hidden", True, 0)):
        with pytest.raises(ValueError, match=f"{name} must be an int >= {lowest}"):
            _cfg(**{name: bad})


def test_dagger_the_behaviour_moves_and_the_teacher_labels(tmp_path, monkeypatch):
    """With ``behaviour`` the teacher's seat is played by that agent; every sample is still the teacher's
    visit distribution, now at the positions the behaviour reaches; the fit reads extra run directories."""
    from meeplezoo.agents.mcts import MCTSAgent

    searched: list[int] = []
    original = MCTSAgent.search

    def counting(self, state, *a, **kw):
        searched.append(state.current_player)
        return original(self, state, *a, **kw)

    monkeypatch.setattr(MCTSAgent, "search", counting)
    plain = _cfg()
    dagger = _cfg(behaviour="random")
    game = plain.make_game()
    teacher = teacher_game(plain, 1, game)
    student = teacher_game(dagger, 1, game)
    # the teacher searched at every sample of both games, in its seat only
    assert len(searched) == len(teacher["obs"]) + len(student["obs"]) and set(searched) == {1}
    assert not (len(teacher["obs"]) == len(student["obs"]) and np.array_equal(teacher["obs"], student["obs"]))
    pi = student["pi"].astype(np.float32)
    assert np.all(pi[~student["mask"]] == 0) and np.allclose(pi.sum(axis=1), 1.0, atol=1e-2)
    again = teacher_game(dagger, 1, game)  # seeded: the same game again
    assert all(np.array_equal(student[k], again[k]) for k in ("obs", "mask", "pi"))
    monkeypatch.setattr(MCTSAgent, "search", original)
    # the behaviour is a generation setting: a directory of teacher games refuses it
    generate(plain, tmp_path / "t", verbose=0)
    with pytest.raises(ValueError, match=r"differs in \['behaviour'\]"):
        generate(dagger, tmp_path / "t", verbose=0)
    generate(dagger, tmp_path / "d", verbose=0)
    own, _ = load_chunks(tmp_path / "d")
    extra, _ = load_chunks(tmp_path / "t")
    res = fit(DistillConfig(**{**dagger.to_json(), "extra_data": [str(tmp_path / "t")], "epochs": 1}),
              tmp_path / "d", verbose=0)
    held = sum(len(c["obs"]) for i, c in enumerate(own) if i % 2 == 1)
    assert res.samples == sum(len(c["obs"]) for c in own + extra) - held
    assert "--behaviour random" in res_command(res) and "--extra-data" in res_command(res)
    # a network fit again on data it was fit on already does not count that data's generation twice
    first = PolicyValueNet.load(res.checkpoint).metadata
    again = fit(DistillConfig(**{**dagger.to_json(), "extra_data": [str(tmp_path / "t")], "epochs": 1,
                                 "init": str(res.checkpoint)}), tmp_path / "d", verbose=0)
    second = PolicyValueNet.load(again.checkpoint).metadata
    assert first["distill_generation_cpu_seconds"] > 0 and second["distill_generation_cpu_seconds"] == 0
    assert second["training_cpu_seconds"] == pytest.approx(
        first["training_cpu_seconds"] + second["distill_cpu_seconds"], abs=0.15)
    assert len(second["distill_data_dirs"]) == 2
    with pytest.raises(ValueError, match="extra_data must be a list"):
        _cfg(extra_data="runs/x")


def res_command(res) -> str:
    return PolicyValueNet.load(res.checkpoint).metadata["command"]


def test_a_distilled_network_ships_with_the_search_defaults_it_is_given(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    from meeplezoo.agents.pretrained import search_defaults

    cfg = _cfg(games=2, chunk=2, holdout=2, epochs=1)
    generate(cfg, tmp_path / "run", verbose=0)
    fit(cfg, tmp_path / "run", verbose=0)
    script = Path(__file__).resolve().parent.parent / "scripts" / "ship_pretrained.py"
    out = subprocess.run([sys.executable, str(script), str(tmp_path / "run"), "--folder", str(tmp_path / "pkg"),
                          "--results", str(tmp_path / "res"), "--search", "leaf=rollout", "--search", "c=1.5"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    shipped = PolicyValueNet.load(tmp_path / "pkg" / "haus_der_sonne-2p.zip")
    assert shipped.metadata["algorithm"] == "distill" and shipped.metadata["shipped_from"] == "final.zip"
    assert search_defaults(shipped.metadata) == {"leaf": "rollout", "c": 1.5}
    assert "--algo distill" in shipped.metadata["command"]
    assert (tmp_path / "res" / "distill_haus_der_sonne-2p" / "fit.csv").exists()
