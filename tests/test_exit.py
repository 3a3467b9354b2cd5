"""Networks as agents (agents/network.py) and expert iteration (training/exit.py).

The numpy network computes what the torch module computes; checkpoints load without pickle and refuse
other games; the network plays alone and inside the search, through the registry, legally; a few
iterations on the template game bring the network closer to its search teacher on unseen positions;
a resumed run continues exactly; self-play gives the same data inline and on the process pool.
"""

from __future__ import annotations

import dataclasses
import json
import zipfile

import numpy as np
import pytest

import meeplezoo
from meeplezoo.agents import make
from meeplezoo.agents.network import (
    NetworkEvaluator,
    PolicyValueNet,
    egocentric_to_seats,
    masked_softmax,
    seats_to_egocentric,
)

torch = pytest.importorskip("torch")

from meeplezoo.training.exit import ExItConfig, ExItTrainer, generate  # noqa: E402
from meeplezoo.training.networks import BlockNet, BlockNetConfig, config_dict  # noqa: E402

SMALL = {"channels": 4, "conv_layers": 1, "flat_hidden": 16, "trunk_hidden": 16}


def _net(name: str, players: int = 2, seed: int = 0) -> tuple[object, PolicyValueNet]:
    torch.manual_seed(seed)
    game = meeplezoo.make_game(name, players)
    cfg = BlockNetConfig(**SMALL)
    net = BlockNet(game.observation_spec, game.num_actions, players, cfg)
    return net, PolicyValueNet(game, net.arrays(), config_dict(cfg))


@pytest.mark.parametrize(("name", "players"), [("kerala", 2), ("haus_der_sonne", 2), ("hawaii", 3), ("asara", 4),
                                               ("template", 3)])
def test_numpy_forward_equals_torch(name, players):
    torch.set_num_threads(1)
    tnet, net = _net(name, players)
    game = net.game
    state = game.new_state(4)
    obs = np.stack([state.observe(p) for p in range(players)])
    with torch.no_grad():
        logits, values = tnet(torch.as_tensor(obs))
    nl, nv = net.forward(obs)
    np.testing.assert_allclose(nl, logits.numpy(), atol=1e-5)
    np.testing.assert_allclose(nv, values.numpy(), atol=1e-5)
    assert nl.shape == (players, game.num_actions) and nv.shape == (players, players)


def test_value_vectors_turn_between_egocentric_and_seats():
    v = np.array([0.1, 0.2, 0.3, 0.4])
    assert egocentric_to_seats(v, 1).tolist() == [0.4, 0.1, 0.2, 0.3]  # seat 1 gets entry 0
    assert seats_to_egocentric(egocentric_to_seats(v, 3), 3).tolist() == v.tolist()
    p = masked_softmax(np.array([[1.0, 5.0, 2.0]]), np.array([[True, False, True]]))
    assert p[0, 1] == 0 and p[0].sum() == pytest.approx(1) and p[0, 2] > p[0, 0]


def test_a_checkpoint_round_trips_and_refuses_what_it_is_not(tmp_path):
    _t, net = _net("haus_der_sonne")
    path = net.save(tmp_path / "n.zip", algorithm="test")
    back = PolicyValueNet.load(path, "haus_der_sonne")
    obs = net.game.new_state(2).observe(0)
    np.testing.assert_array_equal(back.forward(obs)[0], net.forward(obs)[0])
    assert back.metadata["algorithm"] == "test" and back.metadata["game"] == "haus_der_sonne"
    with zipfile.ZipFile(path) as z:
        assert sorted(z.namelist()) == ["meeplezoo.json", "meeplezoo_net.npz"]
    with pytest.raises(ValueError, match="is a network for 'haus_der_sonne', not 'kerala'"):
        PolicyValueNet.load(path, "kerala")
    with pytest.raises(ValueError, match="for 2 players, not 3"):
        PolicyValueNet.load(path, "haus_der_sonne", 3)
    with pytest.raises(ValueError, match="rule options"):
        PolicyValueNet.load(path, meeplezoo.make_game("haus_der_sonne", variant="tactical"))
    with pytest.raises(ValueError, match="is a network for 'haus_der_sonne', not 'kerala'"):
        make(f"net:{path}", "kerala")
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a readable network checkpoint"):
        PolicyValueNet.load(bad)
    meta = json.loads(zipfile.ZipFile(path).read("meeplezoo.json"))
    meta["config"]["flat_hidden"] = 17
    other = tmp_path / "other.zip"
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(other, "w") as dst:
        dst.writestr("meeplezoo.json", json.dumps(meta))
        dst.writestr("meeplezoo_net.npz", src.read("meeplezoo_net.npz"))
    with pytest.raises(ValueError, match="has shape"):
        PolicyValueNet.load(other)


@pytest.mark.parametrize("name", ["haus_der_sonne", "asara", "template"])
def test_the_network_plays_alone_and_in_the_search_legally(tmp_path, name):
    _t, net = _net(name)
    path = net.save(tmp_path / f"{name}.zip")
    game = net.game
    agents = [make(f"net:{path}", name, seed=1), make(f"netmcts:{path}:sims=8", name, seed=2)]
    state = game.new_state(3)
    steps = 0
    while not state.is_terminal() and steps < 60:
        p = state.current_player
        mask = state.legal_mask()
        a = agents[p % 2].act(state.observe(p), mask, state=state)
        assert mask[a]
        state.apply(a)
        steps += 1
    assert agents[1].network is not None
    assert isinstance(agents[1]._prior_source, NetworkEvaluator) and agents[1]._prior_source.states > 0
    sampled = make(f"net:{path}:sample=true:temperature=2", name, seed=5)
    assert sampled.sample and sampled.temperature == 2
    with pytest.raises(ValueError, match="prior is the network"):
        make(f"netmcts:{path}:prior=uniform", name)


def _cfg(**kw):
    base = {"game": "template", "num_players": 3, "iterations": 2, "games_per_iteration": 4, "sims": 12,
            "eval_games": 0, "epochs": 2, **SMALL}
    return ExItConfig(**{**base, **kw})


def _cross_entropy(net: PolicyValueNet, data: dict) -> tuple[float, float]:
    obs = data["obs"].astype(np.float32)
    logits, values = net.forward(obs)
    p = masked_softmax(logits, data["mask"])
    pi = data["pi"].astype(np.float32)
    ce = float(-(pi * np.log(np.where(data["mask"], p, 1.0))).sum(axis=1).mean())
    return ce, float(((values - data["z"]) ** 2).mean())


def test_a_few_iterations_bring_the_network_closer_to_its_teacher(tmp_path):
    cfg = _cfg(iterations=4, games_per_iteration=8, sims=24, epochs=4, lr=3e-3)
    trainer = ExItTrainer(cfg, tmp_path / "run", tensorboard=False, verbose=0)
    held_out = generate(cfg, "selfplay", [424242 + i for i in range(8)],
                        str(trainer.numpy_net().save(tmp_path / "untrained.zip")))
    ce0, mse0 = _cross_entropy(trainer.numpy_net(), held_out)
    trainer.run()
    ce1, mse1 = _cross_entropy(trainer.numpy_net(), held_out)
    assert trainer.progress["iteration"] == 4 and trainer.progress["samples"] > 100
    # the template is a game of much luck (its visit targets are close to uniform): the value head is what
    # a few iterations can improve on unseen positions
    assert mse1 < mse0, (mse0, mse1)
    assert np.isfinite(ce1)
    rows = (tmp_path / "run" / "log.csv").read_text().splitlines()
    assert len(rows) == 5 and rows[0].startswith("iteration,samples,cpu_seconds")
    assert not (tmp_path / "run" / "curve.png").exists()  # no evaluation in this run, so no curve


def test_evaluations_are_logged_and_drawn(tmp_path):
    trainer = ExItTrainer(_cfg(iterations=2, eval_every=1, eval_games=6), tmp_path / "ev", tensorboard=False,
                          verbose=0)
    result = trainer.run()
    assert [row["iteration"] for row in result.evaluations] == [1, 2]
    assert all(0 <= row["vs_random"] <= 1 and row["ci_low_random"] <= row["vs_random"] for row in result.evaluations)
    assert (tmp_path / "ev" / "best.zip").exists() and (tmp_path / "ev" / "curve.png").stat().st_size > 1000
    assert PolicyValueNet.load(tmp_path / "ev" / "best.zip", "template", 3).metadata["best_iteration"] in (1, 2)


def test_a_warm_start_teaches_the_network_the_heuristics_moves(tmp_path):
    cfg = ExItConfig(game="haus_der_sonne", warm_start_games=12, warm_start_epochs=6, iterations=1, sims=8,
                     eval_games=0, lr=3e-3, **{**SMALL, "flat_hidden": 32, "trunk_hidden": 32})
    trainer = ExItTrainer(cfg, tmp_path / "warm", tensorboard=False, verbose=0)
    held_out = generate(cfg, "imitation", [999, 998, 997])  # other games than the warm start's

    def agreement(net: PolicyValueNet) -> float:
        logits, _ = net.forward(held_out["obs"].astype(np.float32))
        chosen = masked_softmax(logits, held_out["mask"]).argmax(axis=1)
        return float((chosen == held_out["pi"].astype(np.float32).argmax(axis=1)).mean())

    before = agreement(trainer.numpy_net())
    trainer.run(iterations=0)  # the warm start only
    after = agreement(trainer.numpy_net())
    assert trainer.progress["warm_started"] and trainer.progress["samples"] > 500
    assert after > before + 0.1, (before, after)


def test_a_resumed_run_continues_exactly(tmp_path):
    cfg = _cfg()
    whole = ExItTrainer(cfg, tmp_path / "a", tensorboard=False, verbose=0)
    whole.run()
    first = ExItTrainer(cfg, tmp_path / "b", tensorboard=False, verbose=0)
    first.run(iterations=1)
    assert first.progress["iteration"] == 1
    again = ExItTrainer(cfg, tmp_path / "b", tensorboard=False, verbose=0)  # a new process would do this
    assert again.progress["iteration"] == 1
    again.run()
    a, b = whole.net.arrays(), again.net.arrays()
    assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    assert whole.progress["samples"] == again.progress["samples"]
    with pytest.raises(ValueError, match="another config"):
        ExItTrainer(_cfg(sims=13), tmp_path / "b", tensorboard=False, verbose=0)


def test_init_starts_a_new_run_from_another_runs_network_and_buffer(tmp_path):
    """``init`` (a new recipe continuing an old run): the source's network and buffer, its samples and CPU
    seconds counted, no warm start; the search may change, the network's knobs may not."""
    src = ExItTrainer(_cfg(iterations=1), tmp_path / "src", tensorboard=False, verbose=0)
    src.run()
    cfg = _cfg(iterations=1, init=str(tmp_path / "src"), search_options={"leaf_mix": 0.5, "rollout_depth": 0},
               warm_start_games=5, warm_start_teacher="mcts:sims=4", lr=3e-4)
    new = ExItTrainer(cfg, tmp_path / "new", tensorboard=False, verbose=0)
    a, b = src.net.arrays(), new.net.arrays()
    assert all(np.array_equal(a[k], b[k]) for k in a)  # the source's network
    assert np.array_equal(new.buffer["obs"], src.buffer["obs"])
    p = new.progress
    assert p["iteration"] == 0 and p["warm_started"] and p["samples"] == src.progress["samples"]
    assert p["init"]["iteration"] == 1 and p["cpu_seconds"] == pytest.approx(src.progress["cpu_seconds"])
    new.run()
    assert new.progress["iteration"] == 1 and new.progress["samples"] > src.progress["samples"]
    assert new.progress["cpu_seconds"] > src.progress["cpu_seconds"]
    assert not all(np.array_equal(a[k], new.net.arrays()[k]) for k in a)  # it trained on
    # resuming the new run reads its own directory, not the source's again: the source may have moved
    (tmp_path / "src").rename(tmp_path / "moved")
    again = ExItTrainer(dataclasses.replace(cfg, init=str(tmp_path / "moved")), tmp_path / "new", tensorboard=False,
                        verbose=0)
    assert again.progress["iteration"] == 1
    assert all(np.array_equal(v, again.net.arrays()[k]) for k, v in new.net.arrays().items())
    (tmp_path / "moved").rename(tmp_path / "src")
    with pytest.raises(ValueError, match=r"differs in \['trunk_hidden'\]"):
        ExItTrainer(_cfg(init=str(tmp_path / "src"), trunk_hidden=32), tmp_path / "c", tensorboard=False, verbose=0)
    with pytest.raises(ValueError, match="is not an expert-iteration run directory"):
        ExItTrainer(_cfg(init=str(tmp_path / "nothing")), tmp_path / "d", tensorboard=False, verbose=0)


def test_self_play_gives_the_same_data_inline_and_on_the_pool(tmp_path):
    cfg = _cfg()
    _t, net = _net("template", 3)
    path = str(net.save(tmp_path / "n.zip"))
    seeds = [11, 12, 13]
    inline = generate(cfg, "selfplay", seeds, path, workers=1)
    pooled = generate(cfg, "selfplay", seeds, path, workers=2)
    assert len(inline["obs"]) > 10
    for k in ("obs", "mask", "pi", "z"):
        np.testing.assert_array_equal(inline[k], pooled[k])
    assert np.allclose(inline["pi"].astype(np.float32).sum(axis=1), 1.0, atol=1e-2)
    assert np.all(inline["pi"][~inline["mask"]] == 0)


def test_imitation_targets_and_bad_configs():
    cfg = ExItConfig(game="haus_der_sonne", warm_start_games=1, **SMALL)
    data = generate(cfg, "imitation", [5])
    assert len(data["obs"]) > 20 and np.all(data["pi"][~data["mask"]] == 0)
    assert set(np.unique(data["z"])) <= {-1.0, 0.0, 1.0}
    searched = generate(ExItConfig(game="haus_der_sonne", warm_start_games=1, warm_start_teacher="mcts:sims=8",
                                   **SMALL), "imitation", [5])
    assert len(searched["obs"]) > 20 and np.all(searched["pi"][~searched["mask"]] == 0)
    visits = searched["pi"].astype(np.float32)
    assert np.allclose(visits.sum(axis=1), 1.0, atol=1e-2) and (visits.max(axis=1) < 1).any()  # visit shares
    with pytest.raises(ValueError, match="warm_start_teacher"):
        ExItConfig(game="haus_der_sonne", warm_start_teacher="random")
    with pytest.raises(ValueError, match="has no heuristic"):
        ExItConfig(game="template", warm_start_games=2)
    with pytest.raises(ValueError, match="reward_mode"):
        ExItConfig(game="template", reward_mode="score")
    with pytest.raises(ValueError, match="unknown opponent kind"):
        ExItConfig(game="template", opponents={"gods": 1.0})
    with pytest.raises(ValueError, match="sims must be an int >= 1"):
        ExItConfig(game="template", sims=0)


def test_self_play_on_ray_gives_the_same_data(tmp_path):
    ray = pytest.importorskip("ray", reason="ray is not installed (pip install 'meeplezoo[ray]'); CI installs it")
    import os

    from meeplezoo.training.exit import make_pool

    cfg = _cfg()
    _t, net = _net("template", 3)
    path = str(net.save(tmp_path / "n.zip"))
    inline = generate(cfg, "selfplay", [21, 22], path)
    here = os.path.dirname(os.path.dirname(os.path.abspath(meeplezoo.__file__)))
    ray.init(num_cpus=2, runtime_env={"env_vars": {"PYTHONPATH": here}}, include_dashboard=False,
             log_to_driver=False)
    try:
        pool = make_pool(2, "ray")
        on_ray = generate(cfg, "selfplay", [21, 22], path, workers=2, pool=pool)
        pool.shutdown()
    finally:
        ray.shutdown()
    for k in ("obs", "mask", "pi", "z"):
        np.testing.assert_array_equal(inline[k], on_ray[k])
    with pytest.raises(ValueError, match="unknown backend"):
        make_pool(2, "dask")


def test_networks_play_in_a_league(tmp_path):
    from meeplezoo.training.league import LeagueConfig, run_league

    _t, net = _net("template", 2)
    path = net.save(tmp_path / "n.zip")
    cfg = LeagueConfig(game="template", num_players=2, agents=["random", f"net=net:{path}",
                                                               f"search=netmcts:{path}:sims=8"], seed=3)
    with run_league(cfg, str(tmp_path / "l.sqlite"), 6, progress=False) as league:
        table = league.standings().to_dict()
    assert table["matches"] == 6
    assert {row["agent"] for row in table["agents"]} == {"random", "net", "search"}
    assert sum(row["games"] for row in table["agents"]) == 6 * 2


def test_the_rollout_leaf_keeps_the_network_as_prior_only(tmp_path):
    _t, net = _net("haus_der_sonne")
    path = net.save(tmp_path / "hds.zip")
    agent = make(f"netmcts:{path}:leaf=rollout:sims=16:rollout_depth=4", "haus_der_sonne", seed=3)
    src = agent._prior_source
    assert isinstance(src, NetworkEvaluator) and not src.provides_values
    state = net.game.new_state(4)
    priors, values = src.evaluate([state])
    assert values is None and np.isclose(priors[0].sum(), 1.0) and np.all(priors[0][~state.legal_mask()] == 0)
    result = agent.search(state)
    assert result.visits.sum() >= 16 and state.legal_mask()[result.action]
    assert src.states > 0  # the network was asked for priors while the leaves were rolled out
    with pytest.raises(ValueError, match="leaf must be one of"):
        make(f"netmcts:{path}:leaf=oracle", "haus_der_sonne")


def test_expert_search_options_are_checked_and_used():
    cfg = ExItConfig(game="haus_der_sonne", leaf="rollout", search_options={"rollout_depth": 3}, sims=8,
                     opponents={"self": 1.0}, **SMALL)
    _t, net = _net("haus_der_sonne")
    from meeplezoo.training.exit import _search

    agent = _search(net, cfg, 1)
    assert agent.rollout_depth == 3 and not agent._prior_source.provides_values
    with pytest.raises(ValueError, match="leaf must be one of"):
        ExItConfig(game="template", leaf="oracle")
    with pytest.raises(ValueError, match="unknown search option"):
        ExItConfig(game="template", search_options={"rollout_dpeth": 3})
    with pytest.raises(ValueError, match="cannot set"):
        ExItConfig(game="template", search_options={"sims": 3})


def test_a_configs_command_line_builds_the_same_config():
    import shlex

    from meeplezoo.cli import build_parser
    from meeplezoo.commands.train import config_from_args

    cfg = ExItConfig(game="haus_der_sonne", options={"variant": "tactical"}, iterations=7, games_per_iteration=3,
                     sims=40, leaf="rollout", search_options={"rollout_depth": 5, "rollout": "heuristic"},
                     opponents={"self": 0.7, "heuristic": 0.3}, warm_start_games=11, warm_start_epochs=3,
                     buffer_size=999, epochs=1, value_weight=0.25, eval_every=3, eval_games=4, flat_hidden=64,
                     trunk_hidden=64, explore_moves=2, lr=5e-4, channels=8, conv_layers=1, board_channels=2, seed=9)
    line = cfg.command(out="runs/x")
    assert "#" not in line and line.startswith("meeplezoo train haus_der_sonne --players 2 --variant tactical "
                                               "--algo exit")
    args = build_parser().parse_args(shlex.split(line)[1:])
    assert config_from_args(args) == cfg
    every = ExItConfig(game="template", c=2.0, fpu=0.1, batch=2, weight_decay=0.0, flat_hidden=8, trunk_hidden=16)
    assert config_from_args(build_parser().parse_args(shlex.split(every.command())[1:])) == every


def test_boards_kept_cell_by_cell_are_the_same_function_in_numpy_and_torch(tmp_path):
    """board_channels > 0 keeps Kerala's cells apart (a policy over placements needs to know where)."""
    torch.set_num_threads(1)
    torch.manual_seed(1)
    game = meeplezoo.make_game("kerala", 2)
    cfg = BlockNetConfig(**{**SMALL, "board_channels": 2})
    tnet = BlockNet(game.observation_spec, game.num_actions, 2, cfg)
    net = PolicyValueNet(game, tnet.arrays(), config_dict(cfg))
    assert net.num_parameters == sum(p.numel() for p in tnet.parameters())
    state = game.new_state(5)
    obs = np.stack([state.observe(p) for p in range(2)])
    with torch.no_grad():
        logits, values = tnet(torch.as_tensor(obs))
    nl, nv = net.forward(obs)
    np.testing.assert_allclose(nl, logits.numpy(), atol=1e-5)
    np.testing.assert_allclose(nv, values.numpy(), atol=1e-5)
    path = net.save(tmp_path / "k.zip")
    again = PolicyValueNet.load(path, "kerala", 2)
    assert again.config["board_channels"] == 2
    np.testing.assert_allclose(again.forward(obs)[0], nl, atol=1e-6)
    # moving a tile to another cell changes the features cell by cell (pooling would blur it)
    assert "cells.platforms.weight" in net.params and "cells.pending_cell.weight" in net.params


def test_a_deeper_trunk_is_the_same_function_in_numpy_and_torch(tmp_path):
    """trunk_layers > 1 stacks ReLU layers in the trunk; a checkpoint without the key has one."""
    torch.set_num_threads(1)
    torch.manual_seed(2)
    game = meeplezoo.make_game("asara", 2)
    cfg = BlockNetConfig(**{**SMALL, "trunk_layers": 3})
    tnet = BlockNet(game.observation_spec, game.num_actions, 2, cfg)
    net = PolicyValueNet(game, tnet.arrays(), config_dict(cfg))
    assert {"trunk.2.weight", "trunk.4.weight"} <= set(net.params) and "trunk.6.weight" not in net.params
    assert net.num_parameters == sum(p.numel() for p in tnet.parameters())
    state = game.new_state(5)
    obs = np.stack([state.observe(p) for p in range(2)])
    with torch.no_grad():
        logits, values = tnet(torch.as_tensor(obs))
    nl, nv = net.forward(obs)
    np.testing.assert_allclose(nl, logits.numpy(), atol=1e-5)
    np.testing.assert_allclose(nv, values.numpy(), atol=1e-5)
    again = PolicyValueNet.load(net.save(tmp_path / "deep.zip"), "asara", 2)
    assert again.config["trunk_layers"] == 3
    # an older checkpoint (no trunk_layers in its config) is a one-layer trunk
    flat = BlockNetConfig(**SMALL)
    one = BlockNet(game.observation_spec, game.num_actions, 2, flat)
    old = {k: v for k, v in config_dict(flat).items() if k != "trunk_layers"}
    assert PolicyValueNet(game, one.arrays(), old).config["trunk_layers"] == 1
    with pytest.raises(ValueError, match="trunk_layers must be >= 1, got 0"):
        PolicyValueNet(game, one.arrays(), {**old, "trunk_layers": 0})


def test_a_network_plays_games_that_differ_only_in_observation_options(tmp_path):
    """A network trained with ``derived_features`` plays the default game (same rules): given the state it
    reads it through its own observation, alone and as the search's prior; other rules stay refused."""
    torch.manual_seed(0)
    derived = meeplezoo.make_game("haus_der_sonne", 2, derived_features=True)
    base = meeplezoo.make_game("haus_der_sonne", 2)
    assert derived.rule_options == base.rule_options == {}
    assert base.rule_options_of({"derived_features": True, "variant": "tactical"}) == {"variant": "tactical"}
    assert base.same_rules(derived) and not base.same_rules(meeplezoo.make_game("haus_der_sonne", variant="tactical"))
    cfg = BlockNetConfig(**SMALL)
    t = BlockNet(derived.observation_spec, derived.num_actions, 2, cfg)
    path = PolicyValueNet(derived, t.arrays(), config_dict(cfg)).save(tmp_path / "derived.zip")
    net = PolicyValueNet.load(path, base)
    assert net.game.options["derived_features"] and net.needs_own_observation(base)
    assert not net.needs_own_observation(derived)
    state = base.new_state(4)
    view = net.observe(state, state.current_player)
    assert view.shape == derived.observation_shape
    np.testing.assert_array_equal(view, derived.observer.observe(state, state.current_player))
    np.testing.assert_array_equal(view[:base.observation_shape[0]], state.observe(state.current_player))
    alone, search = make(f"net:{path}", base, seed=1), make(f"netmcts:{path}:sims=8", base, seed=2)
    # the same decision as the network shown its own observation directly
    want = int(np.flatnonzero(state.legal_mask())[np.argmax(net.forward(view)[0][0][state.legal_mask()])])
    assert alone.act(state.observe(state.current_player), state.legal_mask(), state=state) == want
    with pytest.raises(ValueError, match="pass the state"):
        alone.act(state.observe(state.current_player), state.legal_mask())
    steps = 0
    while not state.is_terminal() and steps < 80:
        p = state.current_player
        mask = state.legal_mask()
        a = (alone, search)[p].act(state.observe(p), mask, state=state)
        assert mask[a]
        state.apply(a)
        steps += 1
    assert search._prior_source.states > 0
    with pytest.raises(ValueError, match="rule options"):
        PolicyValueNet.load(path, meeplezoo.make_game("haus_der_sonne", variant="tactical"))
    with pytest.raises(ValueError, match="plays"):
        net.observe(meeplezoo.make_game("haus_der_sonne", variant="tactical").new_state(0), 0)
    # a trainer fits its network on the game's own observations: another layout is refused up front
    from meeplezoo.training.run import load_start

    assert load_start(str(path), derived, "distill").game.options["derived_features"]
    with pytest.raises(ValueError, match="distill: .* reads the observation of"):
        load_start(str(path), base, "distill")


def test_an_action_head_scores_each_kerala_pick_and_is_the_same_function_in_numpy_and_torch(tmp_path):
    """action_hidden > 0: every pick's logit gets a term read from its own tile and target cells (the
    elephant view); numpy and torch agree, checkpoints keep it, games without action features refuse it."""
    torch.set_num_threads(1)
    torch.manual_seed(3)
    game = meeplezoo.make_game("kerala", 2, derived_features=True, elephant_view=True)
    cfg = BlockNetConfig(**{**SMALL, "board_channels": 1, "action_hidden": 8})
    tnet = BlockNet(game.observation_spec, game.num_actions, 2, cfg)
    for p in tnet.parameters():  # the head starts at zero per orientation/direction: make every term count
        torch.nn.init.normal_(p, std=0.2)
    net = PolicyValueNet(game, tnet.arrays(), config_dict(cfg))
    assert net.num_parameters == sum(p.numel() for p in tnet.parameters())
    assert {"action_inputs.tile.weight", "action_inputs.target.weight", "action_items.orientation"} <= set(net.params)
    state = game.new_state(5)
    obs = np.stack([state.observe(p) for p in range(2)])
    with torch.no_grad():
        logits, values = tnet(torch.as_tensor(obs))
        plain = tnet.policy(tnet.features(torch.as_tensor(obs)))
    nl, nv = net.forward(obs)
    np.testing.assert_allclose(nl, logits.numpy(), atol=1e-4)
    np.testing.assert_allclose(nv, values.numpy(), atol=1e-5)
    # the head adds to the 160 pick logits only
    diff = np.abs(logits.numpy() - plain.numpy()).max(axis=0)
    assert (diff[:160] > 0).all() and (diff[160:] == 0).all()
    again = PolicyValueNet.load(net.save(tmp_path / "ah.zip"), game)
    assert again.config["action_hidden"] == 8
    np.testing.assert_allclose(again.forward(obs)[0], nl, atol=1e-6)
    # the network with its head plays through the agent spec
    agent = make(f"net:{tmp_path / 'ah.zip'}", game, seed=0)
    a = agent.act(state.observe(state.current_player), state.legal_mask(), state=state)
    assert state.legal_mask()[a]
    base = meeplezoo.make_game("kerala", 2, derived_features=True)
    with pytest.raises(ValueError, match="declares no action features"):
        PolicyValueNet(base, tnet.arrays(), config_dict(cfg))
    with pytest.raises(ValueError, match="action_hidden needs a game whose observation declares action features"):
        BlockNet(base.observation_spec, base.num_actions, 2, cfg)
    with pytest.raises(ValueError, match="not for a trunk without heads"):
        BlockNet(game.observation_spec, game.num_actions, 2, cfg, heads=False)
    # an older checkpoint (no action_hidden in its config) has no head
    old = {k: v for k, v in config_dict(BlockNetConfig(**SMALL)).items() if k != "action_hidden"}
    assert PolicyValueNet(base, BlockNet(base.observation_spec, base.num_actions, 2,
                                         BlockNetConfig(**SMALL)).arrays(), old).config["action_hidden"] == 0
    cfg_exit = ExItConfig(game="kerala", options={"elephant_view": True}, action_hidden=16)
    assert "--action-hidden 16" in cfg_exit.command() and cfg_exit.net_config["action_hidden"] == 16
    with pytest.raises(ValueError, match="action_hidden must be an int >= 0"):
        ExItConfig(game="kerala", action_hidden=-1)
