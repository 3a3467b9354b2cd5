"""Expert iteration with the seat network: one network for several player counts.

The learner builds a SeatNet and fits :func:`seat_loss` over the seats of each sample's game; samples of several
counts share one buffer (observations and value targets padded, the count kept); the checkpoint is the float16
seat network :func:`load_network` reads; the config refuses what cannot work; evaluation scores every count.
"""

from __future__ import annotations

import shlex

import numpy as np
import pytest

from meeplezoo.agents.network import load_network
from meeplezoo.agents.seatnet import SeatPolicyValueNet
from meeplezoo.registry import make_game
from meeplezoo.training import samples

torch = pytest.importorskip("torch")

from meeplezoo.training.exit import ExItConfig, ExItTrainer  # noqa: E402

TINY = {"seat_hidden": 8, "global_hidden": 8, "trunk_hidden": 8, "value_hidden": 4}


def _cfg(**kw):
    base = {"game": "asara", "num_players": 2, "architecture": "seatnet", "iterations": 1, "games_per_iteration": 2,
            "sims": 4, "eval_games": 0, "epochs": 1, "seat_widths": TINY}
    return ExItConfig(**{**base, **kw})


def _samples(game, seed: int, count: int) -> dict[str, np.ndarray]:
    """``count`` decisions of a random game: uniform policy targets, the returns as value targets."""
    state = game.new_state(seed)
    rng = np.random.default_rng(seed)
    obs, masks, pis, players = [], [], [], []
    while not state.is_terminal() and len(obs) < count:
        p = state.current_player
        mask = state.legal_mask()
        obs.append(state.observe(p).astype(np.float16))
        masks.append(np.array(mask))
        pis.append((mask / mask.sum()).astype(np.float16))
        players.append(p)
        legal = np.flatnonzero(mask)
        state.apply(int(legal[rng.integers(len(legal))]))
    z = rng.uniform(-1, 1, (len(obs), game.num_players)).astype(np.float32)
    return samples.pack(obs, masks, pis, z, game)


def test_samples_of_several_counts_share_one_buffer():
    two, three = _samples(make_game("asara", 2), 1, 5), _samples(make_game("asara", 3), 2, 4)
    both = samples.concat([two, three])
    assert both["z"].shape == (9, 3) and both["players"].tolist() == [2] * 5 + [3] * 4
    assert np.all(both["z"][:5, 2] == 0) and samples.seat_mask(both["players"], 3)[:5].tolist() == [[1, 1, 0]] * 5
    kerala = samples.concat([_samples(make_game("kerala", 2), 1, 2), _samples(make_game("kerala", 3), 1, 2)])
    assert kerala["obs"].shape[1] == make_game("kerala", 3).observation_shape[0]
    assert np.all(kerala["obs"][:2, make_game("kerala", 2).observation_shape[0]:] == 0)
    old = {k: v for k, v in two.items() if k != "players"}  # a buffer saved before the counts were kept
    assert samples.with_players(old)["players"].tolist() == [2] * 5


def test_the_seat_loss_reads_each_samples_own_seats_and_observation(tmp_path):
    trainer = ExItTrainer(_cfg(player_counts=(2, 3)), tmp_path / "r", tensorboard=False, verbose=0)
    data = samples.concat([_samples(make_game("asara", 2), 1, 6), _samples(make_game("asara", 3), 2, 6)],
                          *trainer.widths)
    batch = {k: trainer.learner.tensor(v) for k, v in data.items()}
    loss, parts = trainer.learner.seat_loss(batch, 1.0)
    padded = dict(batch, z=batch["z"].clone())
    padded["z"][:6, 2] = 5.0  # the third seat of a 2-player sample is padding: it does not count
    again, _ = trainer.learner.seat_loss(padded, 1.0)
    assert torch.isfinite(loss) and again.item() == pytest.approx(loss.item())
    net = trainer.learner.net
    with torch.no_grad():
        _logits, v = net(batch["obs"][6:, :make_game("asara", 3).observation_shape[0]])
    assert v.shape[1] == 4  # noqa: PLR2004 - the network's values: Asara's largest count
    before = trainer._train(data, 0, 0)
    after = trainer._train(data, 30, 1)
    assert np.isnan(before["policy_loss"]) and after["value_loss"] < parts["value_loss"]


def test_a_seat_network_run_writes_a_float16_checkpoint_that_load_network_reads(tmp_path):
    trainer = ExItTrainer(_cfg(num_players=3), tmp_path / "r", tensorboard=False, verbose=0)
    trainer.run()
    net = load_network(tmp_path / "r" / "final.zip")
    assert isinstance(net, SeatPolicyValueNet) and net.seat_counts == (3,) and net.game.num_players == 3
    assert net.metadata["algorithm"] == "exit" and net.metadata["exit_config"]["architecture"] == "seatnet"
    assert (tmp_path / "r" / "final.zip").stat().st_size <= 5 * 1024 * 1024
    with np.load(tmp_path / "r" / "buffer.npz") as buf:
        assert set(buf.files) == set(samples.SAMPLE_KEYS) and set(buf["players"].tolist()) == {3}


def test_every_count_is_evaluated(tmp_path):
    trainer = ExItTrainer(_cfg(player_counts=(2, 3), eval_against=("random",)), tmp_path / "e",
                          tensorboard=False, verbose=0)
    row = trainer.evaluate(games=3)
    assert set(row) == {"vs_random_2p", "vs_random_3p", "vs_random", "ci_low_random", "ci_high_random"}
    assert row["vs_random"] == pytest.approx((row["vs_random_2p"] + row["vs_random_3p"]) / 2)
    assert row["ci_low_random"] <= row["vs_random"] <= row["ci_high_random"]


def test_configs_of_several_counts():
    from meeplezoo.cli import build_parser
    from meeplezoo.commands.train import config_from_args

    cfg = _cfg(player_counts=(3, 2), seat_widths={"trunk_hidden": 16})
    assert cfg.counts == (2, 3) and cfg.net_config == {"architecture": "seatnet", "seat_counts": [2, 3],
                                                       "trunk_hidden": 16}
    line = cfg.command(out="runs/x")
    assert "--players 2,3 " in line and "--architecture seatnet" in line and "--seat-width trunk_hidden=16" in line
    assert config_from_args(build_parser().parse_args(shlex.split(line)[1:])) == cfg
    with pytest.raises(ValueError, match="need --architecture seatnet"):
        ExItConfig(game="asara", player_counts=(2, 3))
    with pytest.raises(ValueError, match=r"asara plays 2..4 players, not \[5\]"):
        _cfg(player_counts=(2, 5))
    with pytest.raises(ValueError, match="not one of player_counts"):
        _cfg(num_players=4, player_counts=(2, 3))
    with pytest.raises(ValueError, match="unknown seat network width"):
        _cfg(seat_widths={"depth": 3})
    with pytest.raises(ValueError, match="seat_widths are widths of --architecture seatnet"):
        ExItConfig(game="asara", seat_widths={"trunk_hidden": 8})
    with pytest.raises(ValueError, match="--algo distill trains at one player count"):
        config_from_args(build_parser().parse_args(["train", "asara", "--algo", "distill", "--players", "2,3"]))


def test_self_play_draws_each_games_count_and_gives_the_same_samples_for_any_worker_count(tmp_path):
    from meeplezoo.training.exit import game_players, generate

    cfg = _cfg(player_counts=(2, 3, 4), explore_moves=2)
    seeds = list(range(100, 106))
    drawn = [game_players(cfg, s) for s in seeds]
    assert set(drawn) == {2, 3, 4} and drawn == [game_players(cfg, s) for s in seeds]
    trainer = ExItTrainer(cfg, tmp_path / "g", tensorboard=False, verbose=0)
    path = str(trainer.numpy_net().save(tmp_path / "n.zip"))
    inline = generate(cfg, "selfplay", seeds, path, workers=1)
    pooled = generate(cfg, "selfplay", seeds, path, workers=2)
    for k in samples.SAMPLE_KEYS:
        np.testing.assert_array_equal(inline[k], pooled[k])
    assert sorted(set(inline["players"].tolist())) == sorted(set(drawn)) and inline["z"].shape[1] == 4
    assert generate(cfg, "imitation", seeds[:2])["players"].tolist() != []


def test_the_command_line_trains_a_seat_network_that_plays_three_players_and_resumes(tmp_path, capsys):
    from meeplezoo.agents import make
    from meeplezoo.cli import main
    from meeplezoo.training.arena import play_match

    out = tmp_path / "run"
    widths = {"channels": 2, "seat_hidden": 4, "global_hidden": 4, "trunk_hidden": 8, "cell_hidden": 2,
              "value_hidden": 2, "action_hidden": 0}
    argv = ["train", "kerala", "--algo", "exit", "--architecture", "seatnet", "--players", "2,3", "--iterations", "1",
            "--games-per-iteration", "2", "--sims", "2", "--explore-moves", "0", "--eval-games", "0", "--epochs", "1",
            "--exit-opponents", "self:1", "--no-tensorboard", "--quiet", "--out", str(out),
            *(a for k, v in widths.items() for a in ("--seat-width", f"{k}={v}"))]
    assert main(argv) == 0
    net = load_network(out / "final.zip", num_players=3)
    assert isinstance(net, SeatPolicyValueNet) and net.seat_counts == (2, 3) and net.game.num_players == 3
    with np.load(out / "buffer.npz") as buf:
        assert set(buf["players"].tolist()) == {2, 3}
    game = make_game("kerala", 3)
    agents = [make(f"net:{out / 'final.zip'}", game, seed=1), make("random", seed=2), make("random", seed=3)]
    assert sorted(play_match(game, agents, 5).placements)[0] == 0
    argv[argv.index("--iterations") + 1] = "2"
    assert main(argv) == 0  # the same command with more iterations continues the run
    assert '"iteration": 2' in (out / "progress.json").read_text()
    assert load_network(out / "final.zip").metadata["iterations"] == 2  # noqa: PLR2004


def test_a_resumed_seat_network_run_continues_exactly(tmp_path):
    cfg = _cfg(player_counts=(2, 3), iterations=2, games_per_iteration=3)
    whole = ExItTrainer(cfg, tmp_path / "a", tensorboard=False, verbose=0)
    whole.run()
    first = ExItTrainer(cfg, tmp_path / "b", tensorboard=False, verbose=0)
    first.run(iterations=1)
    again = ExItTrainer(cfg, tmp_path / "b", tensorboard=False, verbose=0)
    again.run()
    a, b = whole.net.arrays(), again.net.arrays()
    assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    assert whole.progress["samples"] == again.progress["samples"]


def test_seat_network_self_play_does_not_depend_on_games_at_once(tmp_path, monkeypatch):
    """Lockstep self-play pools the one-state requests through ``forward_rows``: the samples of a seat
    network's games are the same whether they are played one or three at a time."""
    from meeplezoo.training.exit import generate

    widths = {"channels": 2, "seat_hidden": 4, "global_hidden": 4, "trunk_hidden": 8, "cell_hidden": 2,
              "value_hidden": 2, "action_hidden": 4}
    pooled = []
    rows = SeatPolicyValueNet.forward_rows
    monkeypatch.setattr(SeatPolicyValueNet, "forward_rows", lambda net, obs: pooled.append(len(obs)) or rows(net, obs))
    runs = {}
    for g in (1, 3):
        cfg = _cfg(game="kerala", player_counts=(2, 3), seat_widths=widths, games_at_once=g, explore_moves=4)
        if g == 1:
            trainer = ExItTrainer(cfg, tmp_path / "k", tensorboard=False, verbose=0)
            path = str(trainer.numpy_net().save(tmp_path / "k.zip"))
        runs[g] = generate(cfg, "selfplay", [100, 101, 102, 103, 104], path, workers=1)
    assert len(runs[1]["obs"]) > 50 and len(set(runs[1]["players"].tolist())) == 2  # noqa: PLR2004
    assert max(pooled) == 3  # noqa: PLR2004 - the three 2-player games in one pass
    for k in samples.SAMPLE_KEYS:
        np.testing.assert_array_equal(runs[1][k], runs[3][k])


def test_a_seat_run_ships_as_the_games_one_file_for_every_count(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    ExItTrainer(_cfg(player_counts=(2, 3)), tmp_path / "r", tensorboard=False, verbose=0).run()
    script = Path(__file__).resolve().parent.parent / "scripts" / "ship_pretrained.py"
    out = subprocess.run([sys.executable, str(script), str(tmp_path / "r"), "--checkpoint", "final.zip",
                          "--folder", str(tmp_path / "pkg"), "--results", str(tmp_path / "res")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert sorted(p.name for p in (tmp_path / "pkg").iterdir()) == ["asara.zip"]
    shipped = load_network(tmp_path / "pkg" / "asara.zip", "asara", 3)
    assert isinstance(shipped, SeatPolicyValueNet) and shipped.seat_counts == (2, 3)
    assert "--architecture seatnet" in shipped.metadata["command"] and shipped.metadata["run_iterations"] == 1
    assert (tmp_path / "res" / "exit_asara" / "log.csv").exists()


def test_the_log_keeps_each_counts_evaluation_and_widens_an_older_log(tmp_path):
    import csv

    cfg = _cfg(player_counts=(2, 3), eval_against=("random",), eval_every=1, eval_games=2)
    run = tmp_path / "r"
    run.mkdir()
    (run / "log.csv").write_text("iteration,samples\n0,5\n")  # a log of an older version, fewer columns
    ExItTrainer(cfg, run, tensorboard=False, verbose=0).run()
    with (run / "log.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["iteration"] for r in rows] == ["0", "1"] and rows[0]["samples"] == "5"
    assert rows[0]["vs_random_2p"] == "" and 0 <= float(rows[1]["vs_random_2p"]) <= 1
    assert float(rows[1]["vs_random"]) == pytest.approx((float(rows[1]["vs_random_2p"])
                                                         + float(rows[1]["vs_random_3p"])) / 2)


def test_a_seat_run_at_one_count_ships_as_that_counts_file(tmp_path):
    """A seat network trained at one count is a per-count network: ``<game>-<n>p.zip``, which ``pretrained``
    resolves before the game's every-count file, and not ``<game>.zip``, which would take over counts it never
    played."""
    import subprocess
    import sys
    from pathlib import Path

    from meeplezoo.agents.pretrained import checkpoint_name

    ExItTrainer(_cfg(num_players=3), tmp_path / "r", tensorboard=False, verbose=0).run()
    script = Path(__file__).resolve().parent.parent / "scripts" / "ship_pretrained.py"
    out = subprocess.run([sys.executable, str(script), str(tmp_path / "r"), "--checkpoint", "final.zip",
                          "--folder", str(tmp_path / "pkg"), "--results", str(tmp_path / "res")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert sorted(p.name for p in (tmp_path / "pkg").iterdir()) == [checkpoint_name("asara", 3)] == ["asara-3p.zip"]
    assert (tmp_path / "res" / "exit_asara-3p" / "log.csv").exists()
    shipped = load_network(tmp_path / "pkg" / "asara-3p.zip", "asara", 3)
    assert isinstance(shipped, SeatPolicyValueNet) and shipped.seat_counts == (3,)
