"""PPO training, self-play pool and checkpoint agents (issue 7).

Games are parametrised over ``meeplezoo.list_envs()``; a game whose engine
does not import yet is skipped with the reason.
"""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest

import meeplezoo
from meeplezoo.agents.base import Agent
from meeplezoo.envs.core.gym import SingleAgentEnv
from meeplezoo.training.arena import play_match
from meeplezoo.training.selfplay import OpponentPool, parse_weighted_specs
from toygame import ToyGame

pytest.importorskip("sb3_contrib")

from meeplezoo.agents.ppo import PPOAgent, read_metadata, save_checkpoint  # noqa: E402
from meeplezoo.training import ppo  # noqa: E402


def landed_game(name: str, num_players: int = 2):
    try:
        cls = meeplezoo.game_class(name)
    except ImportError as e:
        pytest.skip(f"{name}: engine not importable yet ({e})")
    if not cls.min_players <= num_players <= cls.max_players:
        pytest.skip(f"{name} is not played by {num_players} players")
    return cls(num_players)


# -- the single-agent wrapper's bookkeeping ----------------------------------------------------
class SpyOpponent(Agent):
    """A random opponent that checks it is only ever asked on its own turn."""

    uses_state = True

    def __init__(self, env_ref: list, seed: int) -> None:
        self.env_ref, self.rng, self.calls = env_ref, np.random.default_rng(seed), 0

    def act(self, observation, action_mask, *, state=None):
        env = self.env_ref[0]
        assert state.current_player != env.learner_seat, "an opponent acted on the learner's turn"
        assert env.seat_agents[state.current_player] is self, "an opponent acted for another seat"
        np.testing.assert_array_equal(observation, state.observe(state.current_player))
        self.calls += 1
        return int(self.rng.choice(np.flatnonzero(action_mask)))


def check_bookkeeping(env: SingleAgentEnv, episodes: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    seats = set()
    for ep in range(episodes):
        obs, info = env.reset(seed=seed + ep)
        seats.add(env.learner_seat)
        total, done, steps = 0.0, False, 0
        while not done:
            state = env.state
            assert state.current_player == env.learner_seat
            np.testing.assert_array_equal(obs, state.observe(env.learner_seat))
            np.testing.assert_array_equal(env.action_masks(), state.legal_mask())
            np.testing.assert_array_equal(info["action_mask"], state.legal_mask())
            action = int(rng.choice(np.flatnonzero(env.action_masks())))
            obs, reward, done, truncated, info = env.step(action)
            assert not truncated
            assert done or reward == 0.0
            total += reward
            steps += 1
        assert env.state.is_terminal() and steps > 0
        assert total == pytest.approx(env.state.returns(env.reward_mode)[env.learner_seat])
        assert info["returns"][env.learner_seat] == pytest.approx(total)
    assert len(seats) > 1 or episodes < 3, "the learner's seat should vary between episodes"


@pytest.mark.parametrize("num_players", [3, 4])
@pytest.mark.parametrize("reward_mode", ["win", "score"])
def test_wrapper_bookkeeping_toy(num_players, reward_mode):
    ref: list = []
    spies = [SpyOpponent(ref, i) for i in range(num_players - 1)]
    env = SingleAgentEnv(ToyGame(num_players), spies, reward_mode=reward_mode, seed=1)
    ref.append(env)
    check_bookkeeping(env, episodes=12, seed=3)
    assert all(s.calls > 0 for s in spies)


@pytest.mark.parametrize("name", [n for n in meeplezoo.list_envs()])
def test_wrapper_bookkeeping_five_players(name):
    game = landed_game(name, 5)
    ref: list = []
    spies = [SpyOpponent(ref, i) for i in range(4)]
    env = SingleAgentEnv(game, spies, seed=2)
    ref.append(env)
    check_bookkeeping(env, episodes=2, seed=5)
    assert all(s.calls > 0 for s in spies)


def test_learner_env_bookkeeping_with_pool():
    game = ToyGame(3)
    pool = OpponentPool(game, "random:1")
    env = ppo.LearnerEnv(game, pool.state_dict(), seed=4, reward_mode="win")
    check_bookkeeping(env, episodes=8, seed=9)


# -- opponent specs and the self-play pool ------------------------------------------------------
def test_parse_weighted_specs():
    assert parse_weighted_specs("random:1,heuristic:2") == {"random": 1.0, "heuristic": 2.0}
    assert parse_weighted_specs("mcts:sims=50,random") == {"mcts:sims=50": 1.0, "random": 1.0}
    assert parse_weighted_specs("mcts:sims=50:rollout=heuristic:0.5") == {"mcts:sims=50:rollout=heuristic": 0.5}
    assert parse_weighted_specs("ppo:runs/k/best.zip:3, runs/k/final.zip") == {
        "ppo:runs/k/best.zip": 3.0, "runs/k/final.zip": 1.0}
    assert parse_weighted_specs({"random": 2}) == {"random": 2.0}
    for bad in ("random:-1", "random:nan", "random:0", ":2"):
        with pytest.raises(ValueError):
            parse_weighted_specs(bad)


@pytest.fixture(scope="module")
def toy_snapshot_files(tmp_path_factory):
    """Three light checkpoints of an untrained toy policy."""
    from sb3_contrib import MaskablePPO

    game = ToyGame(2)
    model = MaskablePPO("MlpPolicy", SingleAgentEnv(game, ["random"], seed=0), n_steps=64, device="cpu",
                        policy_kwargs=ppo.policy_kwargs([16, 16], "tanh"))
    meta = ppo.checkpoint_metadata(game, 0, [16, 16], "tanh")
    d = tmp_path_factory.mktemp("snaps")
    return [str(save_checkpoint(model, d / f"s{i}.zip", {**meta, "training_steps": i}, light=True))
            for i in range(4)]


def test_pool_keeps_last_k_plus_best(toy_snapshot_files):
    game = ToyGame(2)
    pool = OpponentPool(game, {"random": 1.0}, self_play_weight=1.0, keep_last=2)
    scores = [0.2, 0.9, 0.3, 0.1]
    dropped = []
    for i, (path, score) in enumerate(zip(toy_snapshot_files, scores)):
        dropped += pool.add_snapshot(path, step=100 * i, score=score)
    assert [s.step for s in pool.snapshots] == [100, 200, 300]  # best (0.9 at step 100) plus the last two
    assert pool.best.step == 100
    assert [d.step for d in dropped] == [0]
    probs = {e.spec if not e.snapshot else e.step: p for e, p in pool.members()}
    assert probs["random"] == pytest.approx(0.5)
    assert probs[100] == probs[200] == probs[300] == pytest.approx(0.5 / 3)
    with pytest.raises(ValueError, match="already"):
        pool.add_snapshot(toy_snapshot_files[3], step=400)

    rng = np.random.default_rng(0)
    drawn = [a for _ in range(600) for a in pool.sample(1, rng)]
    share = np.mean([isinstance(a, PPOAgent) for a in drawn])
    assert 0.43 < share < 0.57
    snaps = [a for a in drawn if isinstance(a, PPOAgent)]
    assert {a.training_steps for a in snaps} == {1, 2, 3} and not snaps[0].deterministic
    two = pool.sample(2, np.random.default_rng(1))
    assert len(two) == 2 and two[0] is not two[1]

    copy = OpponentPool(game, self_play_weight=1.0)
    copy.load_state_dict(pool.state_dict())
    assert [(e.spec, p) for e, p in copy.members()] == [(e.spec, p) for e, p in pool.members()]


def test_pool_without_snapshots_uses_fixed_and_rejects_nothing_to_draw(toy_snapshot_files):
    game = ToyGame(2)
    pool = OpponentPool(game, "random:1", self_play_weight=5.0)
    assert [e.spec for e, _ in pool.members()] == ["random"]
    only_self = OpponentPool(game, None, self_play_weight=1.0)
    with pytest.raises(ValueError, match="nothing to draw"):
        only_self.sample(1, np.random.default_rng(0))
    only_self.add_snapshot(toy_snapshot_files[0], step=0)
    assert isinstance(only_self.sample(1, np.random.default_rng(0))[0], PPOAgent)
    with pytest.raises(ValueError):
        OpponentPool(game, None)
    with pytest.raises(ValueError):
        OpponentPool(game, "random", keep_last=0)
    with pytest.raises(ValueError, match="not available|no heuristic|unknown agent"):
        OpponentPool(game, "heuristic:1").check()


def test_pool_state_reaches_subprocess_workers(toy_snapshot_files):
    game = ToyGame(2)
    pool = OpponentPool(game, "random:1", self_play_weight=1.0)
    venv = ppo.make_vec_env(game, pool, 2, "subproc", seed=0, reward_mode="win")
    try:
        pool.add_snapshot(toy_snapshot_files[0], step=7)
        venv.env_method("set_pool_state", pool.state_dict())
        worker_pools = venv.get_attr("pool")
        assert [[s.step for s in p.snapshots] for p in worker_pools] == [[7], [7]]
        venv.reset()
        for _ in range(30):
            masks = np.stack(venv.env_method("action_masks"))
            venv.step(np.array([np.flatnonzero(m)[0] for m in masks]))
    finally:
        venv.close()


# -- training runs and checkpoints ------------------------------------------------------------
FAST = {"rollout_steps": 256, "batch_size": 128, "n_epochs": 1}


def short_run(game, out, timesteps: int = 512, **kw):
    settings = {"opponents": "random:1", "eval_against": ["random"], "timesteps": timesteps, "out_dir": out,
                "eval_games": 4,
                "final_eval_games": 4, "vec": "dummy", "tensorboard": False, "verbose": 0, "seed": 3, **FAST}
    settings.update(kw)
    return ppo.train(game, None, **settings)


def check_checkpoint(path, game, steps):
    meta = read_metadata(path)
    assert meta["game"] == game.name and meta["num_players"] == game.num_players
    assert meta["options"] == game.options
    assert meta["observation_version"] == type(game).observation_version
    assert meta["observation_size"] == game.observation_shape[0] and meta["num_actions"] == game.num_actions
    assert meta["training_steps"] == steps
    for deterministic in (True, False):
        agent = PPOAgent.load(path, game=game, seed=1, deterministic=deterministic)
        assert agent.metadata == meta

        class Checked(Agent):
            name = "checked"

            def act(self, observation, action_mask, *, state=None, agent=agent):
                a = agent.act(observation, action_mask)
                assert action_mask[a], "PPO agent chose an illegal action"
                return a

        result = play_match(game, [Checked()] + [meeplezoo.agents.make("random", game.name, seed=i)
                                                  for i in range(game.num_players - 1)], seed=11)
        assert result.length > 0


@pytest.mark.parametrize("name", meeplezoo.list_envs())
def test_short_training_run_on_each_game(name, tmp_path):
    game = landed_game(name, 2)
    result = short_run(game, tmp_path)
    assert result.timesteps >= 512 and result.final_path.exists() and result.best_path.exists()
    check_checkpoint(result.final_path, game, result.timesteps)
    assert read_metadata(result.best_path)["training_steps"] <= result.timesteps
    assert ppo.default_eval_against(game) == (["random", "heuristic"] if ppo.heuristic_available(game) else ["random"])
    rows = (tmp_path / "eval.csv").read_text().splitlines()
    assert rows[0].startswith("timesteps,wall_s,win_rate[random]") and len(rows) >= 3
    # The agent registry builds it too, by spec or by bare path.
    assert isinstance(meeplezoo.agents.make(f"ppo:{result.final_path}", name, num_players=2), PPOAgent)
    assert isinstance(meeplezoo.agents.make(str(result.final_path), name), PPOAgent)
    # ... and refuses it for another game or player count.
    other = next(n for n in meeplezoo.list_envs() if n != name)
    with pytest.raises(ValueError, match=f"trained for game '{name}', not '{other}'"):
        PPOAgent.load(result.final_path, game=other)
    if type(game).max_players > 2:
        with pytest.raises(ValueError, match="2-player"):
            PPOAgent.load(result.final_path, num_players=3)


@pytest.fixture(scope="module")
def toy_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("toy_run")
    return short_run(ToyGame(2), out, timesteps=768, self_play=True, keep_last=2, eval_freq=256)


def test_toy_run_files_and_self_play_snapshots(toy_run):
    out = toy_run.out_dir
    assert (out / "config.json").exists() and (out / "result.json").exists()
    snaps = sorted((out / "snapshots").glob("*.zip"))
    assert len(snaps) == 4  # at 0, 256, 512, 768 steps
    assert [read_metadata(s)["training_steps"] for s in snaps] == [0, 256, 512, 768]
    assert toy_run.final_evaluation["random"].games == 4
    assert [row["timesteps"] for row in toy_run.evaluations] == [0, 256, 512, 768]
    check_checkpoint(toy_run.final_path, ToyGame(2), 768)


def test_checkpoint_refuses_other_config_and_layout(toy_run, monkeypatch):
    path = toy_run.final_path
    with pytest.raises(ValueError, match="2-player toy, not 3 players"):
        PPOAgent.load(path, game=ToyGame(3))
    with pytest.raises(ValueError, match="hand_size=2 in the checkpoint, 3 here"):
        PPOAgent.load(path, game=ToyGame(2, hand_size=3))
    monkeypatch.setattr(ToyGame, "observation_version", 2)
    with pytest.raises(ValueError, match="layout version 1.*version 2"):
        PPOAgent.load(path, game=ToyGame(2))


def test_checkpoint_is_sb3_loadable_and_numpy_policy_matches_torch(toy_run):
    import torch
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(toy_run.final_path, device="cpu")  # resumable with SB3's own loader
    assert model.num_timesteps == toy_run.timesteps
    agent = PPOAgent.load(toy_run.final_path, game=ToyGame(2))
    state = ToyGame(2).new_state(5)
    rng = np.random.default_rng(0)
    while not state.is_terminal():
        obs, mask = state.observe(state.current_player), state.legal_mask()
        with torch.no_grad():
            dist = model.policy.get_distribution(torch.as_tensor(obs[None]), action_masks=mask[None])
        np.testing.assert_allclose(agent.action_probabilities(obs, mask), dist.distribution.probs.numpy()[0],
                                   atol=1e-5)
        state.apply(int(rng.choice(np.flatnonzero(mask))))


def test_not_a_checkpoint(tmp_path, toy_run):
    with pytest.raises(ValueError, match="does not exist"):
        PPOAgent.load(tmp_path / "missing.zip")
    (tmp_path / "junk.zip").write_text("not a zip")
    with pytest.raises(ValueError, match="not a zip"):
        PPOAgent.load(tmp_path / "junk.zip")
    plain = tmp_path / "plain.zip"
    with zipfile.ZipFile(toy_run.final_path) as src, zipfile.ZipFile(plain, "w") as dst:
        for item in src.namelist():
            if not item.startswith("meeplezoo"):
                dst.writestr(item, src.read(item))
    with pytest.raises(ValueError, match="not a meeplezoo PPO checkpoint"):
        read_metadata(plain)


def test_sampled_agent_is_seeded_and_legal(toy_run):
    a = PPOAgent.load(toy_run.final_path, game=ToyGame(2), seed=4, deterministic=False)
    b = PPOAgent.load(toy_run.final_path, game=ToyGame(2), seed=4, deterministic=False)
    obs = np.zeros(ToyGame(2).observation_shape, dtype=np.float32)
    rng = np.random.default_rng(2)
    for _ in range(50):
        mask = rng.random(11) < 0.4
        mask[rng.integers(11)] = True
        x, y = a.act(obs, mask), b.act(obs, mask)
        assert x == y and mask[x]
    with pytest.raises(ValueError, match="mask"):
        a.act(obs, np.zeros(11, dtype=bool))
    with pytest.raises(ValueError, match="observation of size"):
        a.act(np.zeros(5, dtype=np.float32), np.ones(11, dtype=bool))


def test_train_rejects_bad_settings(tmp_path):
    with pytest.raises(ValueError, match="unknown agent"):
        short_run(ToyGame(2), tmp_path, opponents="nosuchagent:1")
    with pytest.raises(ValueError, match="unknown PPO setting"):
        short_run(ToyGame(2), tmp_path, learning_rat=1e-3)
    with pytest.raises(ValueError, match="timesteps"):
        short_run(ToyGame(2), tmp_path, timesteps=0)
    with pytest.raises(ValueError, match="vec"):
        short_run(ToyGame(2), tmp_path, vec="ray")
    with pytest.raises(ValueError, match="net_arch"):
        short_run(ToyGame(2), tmp_path, net_arch=[0])


def test_default_net_arch_scales_with_observation():
    assert ppo.default_net_arch(23, 11) == [64, 64]
    assert ppo.default_net_arch(200, 83) == [128, 128]
    assert ppo.default_net_arch(1648, 108) == [256, 256]
    big = ppo.default_net_arch(20936, 1930)
    assert big[0] * 20936 <= 4_000_000 and big[0] >= 64


# -- the command line ---------------------------------------------------------------------------
def test_cli_train_and_evaluate(tmp_path, capsys):
    from meeplezoo.cli import main

    name = next((n for n in ("haus_der_sonne", "hawaii", "asara", "kerala") if _imports(n)), None)
    if name is None:
        pytest.skip("no game engine importable yet")
    out = tmp_path / "run"
    rc = main(["train", name, "--players", "2", "--opponents", "random:1", "--timesteps", "256", "--out", str(out),
               "--rollout-steps", "128", "--batch-size", "64", "--n-epochs", "1", "--eval-games", "2",
               "--eval-against", "random", "--final-eval-games", "2", "--vec", "dummy", "--no-tensorboard"])
    text = capsys.readouterr().out
    assert rc == 0 and "win rate" in text and (out / "best.zip").exists()
    rc = main(["evaluate", str(out / "final.zip"), "--against", "random", "--games", "4", "--json",
               str(tmp_path / "e.json")])
    text = capsys.readouterr().out
    assert rc == 0 and "random" in text
    assert json.loads((tmp_path / "e.json").read_text())["random"]["games"] == 4
    assert main(["evaluate", str(tmp_path / "missing.zip")]) == 2
    with pytest.raises(SystemExit) as bad:  # a bad weight is an argparse error naming the flag, before any run
        main(["train", name, "--opponents", "random:-2", "--out", str(out)])
    assert bad.value.code == 2 and "argument --opponents: " in capsys.readouterr().err


def _imports(name: str) -> bool:
    try:
        meeplezoo.game_class(name)
    except ImportError:
        return False
    return True


def test_cli_module_imports_nothing_heavy():
    import subprocess
    import sys

    code = ("import sys, meeplezoo.cli; meeplezoo.cli.build_parser(); "
            "print(any(m in sys.modules for m in ('torch', 'stable_baselines3', 'sb3_contrib')))")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "False"


@pytest.mark.parametrize("name", ["haus_der_sonne", "kerala"])
def test_ppo_on_the_block_network_trains_saves_and_acts_like_torch(name, tmp_path):
    """``net="blocks"``: the BlockNet trunk (convolutions for board blocks) is PPO's features extractor;
    the numpy policy of the checkpoint computes what SB3's does."""
    import torch
    from sb3_contrib import MaskablePPO

    widths = {"channels": 4, "conv_layers": 1, "flat_hidden": 16, "trunk_hidden": 16}
    r = ppo.train(name, 2, timesteps=64, out_dir=tmp_path / name, net="blocks", blocks=widths, eval_games=0,
                  final_eval_games=0, n_envs=1, vec="dummy", tensorboard=False, verbose=0)
    meta = read_metadata(r.final_path)
    every = {**widths, "board_channels": 0, "trunk_layers": 1, "action_hidden": 0}  # every width is recorded
    assert meta["network"] == {"kind": "blocks", "config": every}
    agent = PPOAgent.load(r.final_path, name)
    model = MaskablePPO.load(r.final_path, device="cpu")
    assert any(".convs." in k for k in model.policy.state_dict()) == (name == "kerala")  # only Kerala has boards
    state = meeplezoo.make_game(name).new_state(3)
    obs = np.stack([state.observe(0), state.observe(1)])
    with torch.no_grad():
        want = model.policy.get_distribution(torch.as_tensor(obs)).distribution.logits.numpy()
    got = agent.logits(obs)
    np.testing.assert_allclose(got - got.max(axis=1, keepdims=True), want - want.max(axis=1, keepdims=True),
                               atol=1e-4)
    a = agent.act(obs[state.current_player], state.legal_mask())
    assert state.legal_mask()[a]
    with pytest.raises(ValueError, match="net_arch applies to net='mlp'"):
        ppo.train(name, 2, timesteps=64, out_dir=tmp_path / "x", net="blocks", net_arch=[8])
    with pytest.raises(ValueError, match="net must be one of"):
        ppo.train(name, 2, timesteps=64, out_dir=tmp_path / "x", net="transformer")
