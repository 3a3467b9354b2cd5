"""Fine-tuning a network against fixed opponents (training/finetune.py, ``meeplezoo train --algo finetune``).

A few updates against random lift a small network's win rate against random; a resumed run continues
exactly; the games are the same inline and on the process pool; the checkpoints carry the compute of the
network they started from; bad settings are refused by name.
"""

from __future__ import annotations

import numpy as np
import pytest

from meeplezoo.agents.network import NetworkAgent, PolicyValueNet
from meeplezoo.cli import main
from meeplezoo.registry import make_game

torch = pytest.importorskip("torch")

from meeplezoo.training.finetune import FinetuneConfig, FinetuneTrainer, learner_game, play  # noqa: E402
from meeplezoo.training.networks import BlockNet, BlockNetConfig, config_dict  # noqa: E402
from meeplezoo.training.ppo import evaluate  # noqa: E402

GAME = "haus_der_sonne"


@pytest.fixture(scope="module")
def start(tmp_path_factory) -> str:
    """A small untrained network for the game, saved with some training compute of its own."""
    import meeplezoo

    torch.manual_seed(0)
    game = meeplezoo.make_game(GAME, 2)
    cfg = BlockNetConfig(flat_hidden=32, trunk_hidden=32)
    net = BlockNet(game.observation_spec, game.num_actions, 2, cfg)
    path = tmp_path_factory.mktemp("ft") / "start.zip"
    return str(PolicyValueNet(game, net.arrays(), config_dict(cfg)).save(path, algorithm="test",
                                                                         training_cpu_seconds=100.0))


def _cfg(start: str, **kw) -> FinetuneConfig:
    base = {"game": GAME, "init": start, "opponents": {"random": 1.0}, "updates": 2, "games_per_update": 8,
            "eval_games": 0, "lr": 3e-3}
    return FinetuneConfig(**{**base, **kw})


def test_a_learner_game_records_its_own_decisions(start):
    cfg = _cfg(start)
    net = PolicyValueNet.load(start)
    data = learner_game(cfg, net, 5, 1, cfg.make_game())
    n = len(data["obs"])
    assert n > 10 and data["mask"][np.arange(n), data["action"]].all()  # every action was legal
    assert np.all(data["logp"] <= 0) and np.all(np.abs(data["value"]) <= 1)
    assert set(np.unique(data["ret"])) <= {-1.0, 0.0, 1.0} and len(np.unique(data["ret"])) == 1
    margin = learner_game(_cfg(start, reward="margin"), net, 5, 1, cfg.make_game())
    assert np.all(np.abs(margin["ret"]) <= 1)


def test_games_are_the_same_inline_and_on_the_pool(start, tmp_path):
    cfg = _cfg(start)
    inline = play(cfg, start, 3, workers=1)
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    with ProcessPoolExecutor(2, mp_context=get_context("spawn")) as pool:
        pooled = play(cfg, start, 3, workers=2, pool=pool)
    for k in inline:
        np.testing.assert_array_equal(inline[k], pooled[k])
    assert len(inline["wins"]) == 8


def test_a_few_updates_lift_the_win_rate_against_the_opponent(start, tmp_path):
    cfg = _cfg(start, updates=12, games_per_update=32, reward="margin", margin_scale=5.0, epochs=4)
    agent = NetworkAgent(PolicyValueNet.load(start))
    game = cfg.make_game()
    before = evaluate(agent, game, ["random"], 100, seed=3)["random"].win_rate
    trainer = FinetuneTrainer(cfg, tmp_path / "run", tensorboard=False, verbose=0)
    trainer.run()
    after = evaluate(NetworkAgent(trainer.numpy_net()), game, ["random"], 100, seed=3)["random"].win_rate
    assert after > before + 0.15, (before, after)
    rows = (tmp_path / "run" / "log.csv").read_text().splitlines()
    assert len(rows) == 13 and rows[0].startswith("iteration,games,samples,cpu_seconds")
    meta = PolicyValueNet.load(tmp_path / "run" / "final.zip").metadata
    assert meta["algorithm"] == "finetune" and meta["games"] == 12 * 32
    assert meta["training_cpu_seconds"] > 100.0 and meta["init_metadata"]["algorithm"] == "test"
    assert meta["command"].startswith(f"meeplezoo train {GAME} --players 2 --algo finetune --init {start}")


def test_a_resumed_run_continues_exactly(start, tmp_path):
    cfg = _cfg(start, updates=3)
    whole = FinetuneTrainer(cfg, tmp_path / "a", tensorboard=False, verbose=0)
    whole.run()
    first = FinetuneTrainer(cfg, tmp_path / "b", tensorboard=False, verbose=0)
    first.run(updates=1)
    again = FinetuneTrainer(cfg, tmp_path / "b", tensorboard=False, verbose=0)  # a new process would do this
    assert again.progress["update"] == 1
    again.run()
    a, b = whole.net.arrays(), again.net.arrays()
    assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    with pytest.raises(ValueError, match="another config"):
        FinetuneTrainer(_cfg(start, updates=3, lr=1e-2), tmp_path / "b", tensorboard=False, verbose=0)


def test_evaluations_keep_the_best_network(start, tmp_path):
    cfg = _cfg(start, updates=2, eval_every=1, eval_games=6)
    result = FinetuneTrainer(cfg, tmp_path / "ev", tensorboard=False, verbose=0).run()
    assert [r["iteration"] for r in result.evaluations] == [1, 2]
    assert all(0 <= r["vs_heuristic"] <= 1 for r in result.evaluations)
    assert PolicyValueNet.load(tmp_path / "ev" / "best.zip").metadata["best_iteration"] in (1, 2)
    assert (tmp_path / "ev" / "curve.png").stat().st_size > 1000


def test_bad_settings_are_refused_by_name(start):
    with pytest.raises(ValueError, match="reward must be one of win, margin"):
        _cfg(start, reward="rank")
    with pytest.raises(ValueError, match="init must be pretrained or a checkpoint"):
        _cfg(start, init="nowhere.zip")
    with pytest.raises(ValueError, match="temperature must be a number > 0"):
        _cfg(start, temperature=0.0)
    with pytest.raises(ValueError, match="opponents need non-negative weights"):
        _cfg(start, opponents={"random": 0.0})
    with pytest.raises(ValueError, match="unknown agent 'gods'"):
        FinetuneTrainer(_cfg(start, opponents={"gods": 1.0}), "/tmp/never", tensorboard=False)
    with pytest.raises(ValueError, match="unknown option 'depth'"):
        FinetuneTrainer(_cfg(start, eval_against=("heuristic:depth=3",)), "/tmp/never", tensorboard=False)
    with pytest.raises(ValueError, match="games_per_update must be an int >= 1"):
        _cfg(start, games_per_update=0)
    with pytest.raises(ValueError, match="is a network for 'haus_der_sonne', not 'kerala'"):
        FinetuneTrainer(FinetuneConfig(game="kerala", init=start), "/tmp/never", tensorboard=False)
    with pytest.raises(ValueError, match="unknown config key"):
        FinetuneConfig.from_json({"game": GAME, "gods": 1})


def test_the_cli_fine_tunes_and_continues(start, tmp_path, capsys):
    out = tmp_path / "cli"
    args = ["train", GAME, "--algo", "finetune", "--init", start, "--opponents", "random:1", "--updates", "1",
            "--games-per-update", "4", "--eval-games", "4", "--eval-every", "1", "--reward-mode", "score",
            "--no-tensorboard", "--quiet", "--out", str(out)]
    assert main(args) == 0
    assert "1 updates, 4 games" in capsys.readouterr().out
    assert main([*args[:9], "2", *args[10:]]) == 0
    assert "2 updates, 8 games" in capsys.readouterr().out
    meta = PolicyValueNet.load(out / "final.zip").metadata
    assert meta["finetune_config"]["reward"] == "margin" and meta["finetune_config"]["eval_against"] == [
        "random", "heuristic"]


def test_the_shipped_network_starts_a_run_with_the_observation_options_it_was_trained_with():
    from meeplezoo.training.run import load_start

    with pytest.raises(ValueError, match="train with the options it was trained with: -o derived_features=true"):
        load_start("pretrained", make_game("haus_der_sonne"), "finetune")
    net = load_start("pretrained", make_game("haus_der_sonne", derived_features=True), "finetune")
    assert net.metadata["options"] == {"derived_features": True}
    with pytest.raises(ValueError, match="ships for the base rules only, not {'variant': 'tactical'}"):
        load_start("pretrained", make_game("haus_der_sonne", variant="tactical", derived_features=True), "finetune")
