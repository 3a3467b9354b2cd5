"""Expert iteration's playout cap randomization (``full_search_fraction``, ``fast_sims``): a share of the
searching seats' decisions is searched in full and kept as samples, the others get a cheaper search and are
played only (KataGo: Wu, 2019)."""

from __future__ import annotations

import shlex

import numpy as np
import pytest

pytest.importorskip("torch")

from meeplezoo.training import exit_games  # noqa: E402
from meeplezoo.training.exit import ExItConfig, ExItTrainer  # noqa: E402

SMALL = {"channels": 4, "conv_layers": 1, "flat_hidden": 16, "trunk_hidden": 16}


def _cfg(**kw):
    base = {"game": "template", "num_players": 3, "iterations": 1, "games_per_iteration": 2, "sims": 12,
            "eval_games": 0, "epochs": 1, "opponents": {"self": 1.0}, **SMALL}
    return ExItConfig(**{**base, **kw})


def _net(tmp_path, cfg):
    return ExItTrainer(cfg, tmp_path / "run", tensorboard=False, verbose=0).numpy_net()


def _play_counting(cfg, net, seed, monkeypatch):
    """One self-play game, and every search it made: (samples, [(sims, agent), ...])."""
    made = []
    real = exit_games.network_search

    def spy(*args, **kw):
        agent = real(*args, **kw)
        made.append((kw["sims"], agent))
        return agent

    monkeypatch.setattr(exit_games, "network_search", spy)
    data = exit_games.play_game(cfg, net, [], seed)
    monkeypatch.setattr(exit_games, "network_search", real)
    return data, made


def test_without_the_cap_every_searched_decision_is_a_sample(tmp_path, monkeypatch):
    cfg = _cfg()
    net = _net(tmp_path, cfg)
    data, made = _play_counting(cfg, net, 7, monkeypatch)
    assert [s for s, _ in made] == [12, 12, 12]  # one full search per seat (every seat is the network's)
    assert len(data["obs"]) == sum(a.total_decisions for _, a in made) > 0
    # a fraction of 1 is the run of before, whatever fast_sims says: the same samples, no extra draw
    same = exit_games.play_game(_cfg(full_search_fraction=1.0, fast_sims=50), net, [], 7)
    assert all(np.array_equal(data[k], same[k]) for k in data)


def test_under_the_cap_only_the_full_searches_are_kept(tmp_path, monkeypatch):
    cfg = _cfg(full_search_fraction=0.3, fast_sims=3)
    net = _net(tmp_path, cfg)
    data, made = _play_counting(cfg, net, 7, monkeypatch)
    full = [a for s, a in made if s == 12]
    fast = [a for s, a in made if s == 3]
    assert len(full) == len(fast) == 3  # each searching seat has both
    kept = sum(a.total_decisions for a in full)
    played = sum(a.total_decisions for a in fast)
    assert len(data["obs"]) == len(data["pi"]) == len(data["z"]) == kept
    assert 0 < kept < played  # about 30% of the decisions searched in full
    assert 0.1 < kept / (kept + played) < 0.5
    assert sum(a.total_simulations for a in full) == 12 * kept
    assert sum(a.total_simulations for a in fast) == 3 * played
    # the kept samples are the full searches' visit counts: each target sums to one over legal actions
    pi = data["pi"].astype(np.float64)
    assert np.allclose(pi.sum(axis=1), 1.0, atol=1e-2) and not (pi[~data["mask"]] > 0).any()
    # the same seed gives the same games and samples
    again = exit_games.play_game(cfg, net, [], 7)
    assert all(np.array_equal(data[k], again[k]) for k in data)


def test_a_snapshots_seat_searches_at_the_fast_count_under_the_cap(tmp_path, monkeypatch):
    cfg = _cfg(full_search_fraction=0.5, fast_sims=4, opponents={"snapshot": 1.0})
    net = _net(tmp_path, cfg)
    made = []
    real = exit_games.network_search
    monkeypatch.setattr(exit_games, "network_search",
                        lambda *a, **kw: made.append(kw["sims"]) or real(*a, **kw))
    exit_games.play_game(cfg, net, [net], 3)
    assert sorted(made) == [4, 4, 4, 12]  # the expert's two searches, two snapshot seats at fast_sims


def test_the_caps_settings_are_checked_by_name_and_built_from_the_command_line():
    from meeplezoo.cli import build_parser
    from meeplezoo.commands.train import config_from_args

    for bad in (0, 1.5, -0.2):
        with pytest.raises(ValueError, match="full_search_fraction"):
            _cfg(full_search_fraction=bad)
    with pytest.raises(ValueError, match=r"fast_sims \(12\) must be fewer than sims \(12\)"):
        _cfg(full_search_fraction=0.25, fast_sims=12)
    with pytest.raises(ValueError, match="fast_sims"):
        _cfg(full_search_fraction=0.25, fast_sims=0)
    assert _cfg(fast_sims=40).fast_sims == 40  # without the cap fast_sims is not used, so not checked
    cfg = _cfg(full_search_fraction=0.25, fast_sims=4)
    line = cfg.command(out="runs/x")
    assert "--full-search-fraction 0.25" in line and "--fast-sims 4" in line
    assert config_from_args(build_parser().parse_args(shlex.split(line)[1:])) == cfg


def test_a_capped_run_trains_on_fewer_samples_per_game(tmp_path):
    full = ExItTrainer(_cfg(games_per_iteration=4), tmp_path / "full", tensorboard=False, verbose=0)
    full.run()
    capped = ExItTrainer(_cfg(games_per_iteration=4, full_search_fraction=0.25, fast_sims=3), tmp_path / "cap",
                         tensorboard=False, verbose=0)
    capped.run()
    assert full.progress["iteration"] == capped.progress["iteration"] == 1
    assert 0 < capped.progress["samples"] < 0.6 * full.progress["samples"]
