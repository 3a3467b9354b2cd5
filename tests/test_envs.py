"""Every registered game through the public API: PettingZoo tests, registries, generic invariants.

Game-specific rules live in tests/<game>/; this file checks what every game owes
the protocol, for every player count.
"""

from __future__ import annotations

import importlib
import random

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import meeplezoo
from meeplezoo.envs.core import CorruptStateError, IllegalActionError
from meeplezoo.envs.core.gym import SingleAgentEnv
from meeplezoo.registry import ENVS, game_class


def _landed(name: str) -> bool:
    try:
        importlib.import_module(ENVS[name][0])
        return True
    except ImportError:
        return False


GAMES = [pytest.param(g, marks=pytest.mark.skipif(not _landed(g), reason=f"{g} is not in this checkout"))
         for g in meeplezoo.list_envs()]


def _configs():
    out = []
    for g in meeplezoo.list_envs():
        if not _landed(g):
            out.append(pytest.param(g, 0, marks=pytest.mark.skip(reason=f"{g} is not in this checkout")))
            continue
        cls = game_class(g)
        for n in range(cls.min_players, cls.max_players + 1):
            out.append(pytest.param(g, n, id=f"{g}-{n}p"))
    return out


CONFIGS = _configs()


@pytest.mark.parametrize("name, n", CONFIGS)
def test_pettingzoo_api_test(name, n):
    api_test(meeplezoo.make(name, num_players=n), num_cycles=400)


@pytest.mark.parametrize("name, n", CONFIGS)
def test_pettingzoo_seed_and_render_tests(name, n):
    seed_test(lambda **kw: meeplezoo.make(name, num_players=n, **kw), num_cycles=80)
    render_test(lambda render_mode=None: meeplezoo.make(name, num_players=n, render_mode=render_mode))


@pytest.mark.parametrize("name", GAMES)
def test_entry_module_and_registries(name):
    mod = importlib.import_module(f"meeplezoo.envs.{name}_v0")
    assert mod.raw_env.metadata["name"] == f"{name}_v0"
    assert set(mod.raw_env.metadata["render_modes"]) == {"ansi", "human", "rgb_array"}
    cls = mod.raw_env.game_cls
    env = pettingzoo.make("aec", ENVS[name][1], num_players=cls.max_players)
    env.reset(seed=0)
    assert len(env.agents) == cls.max_players
    assert env.unwrapped.game_state.game.num_players == cls.max_players
    raw = meeplezoo.make(name, raw=True)
    assert raw.game.num_players == cls.default_players


@pytest.mark.parametrize("name", GAMES)
def test_bad_configuration_is_refused_clearly(name):
    cls = game_class(name)
    with pytest.raises(ValueError, match="num_players"):
        meeplezoo.make(name, num_players=cls.max_players + 1)
    with pytest.raises(ValueError, match="no_such_rule"):
        meeplezoo.make(name, no_such_rule=True)
    for opt in cls.options_spec:
        with pytest.raises(ValueError, match=opt.name):
            cls(None, **{opt.name: object()})


@pytest.mark.parametrize("name", GAMES)
def test_every_option_default_is_documented_and_valid(name):
    cls = game_class(name)
    game = cls()
    for opt in cls.options_spec:
        assert opt.doc, f"{name}: option {opt.name} has no description"
        assert game.options[opt.name] == opt.default


def _random_game(game, seed):
    """Play a random game, yielding (state, action) before each action."""
    rng = random.Random(seed)
    state = game.new_state(seed)
    while not state.is_terminal():
        legal = state.legal_actions()
        a = legal[rng.randrange(len(legal))]
        yield state, a
        state.apply(a)
    yield state, None


@pytest.mark.parametrize("name, n", CONFIGS)
def test_random_games_keep_the_protocol(name, n):
    """Mask never empty, names unique, observations in range, terminal returns consistent."""
    game = game_class(name)(n)
    for seed in range(3):
        for state, a in _random_game(game, seed):
            if a is None:
                break
            mask = state.legal_mask()
            assert mask.dtype == bool and mask.shape == (game.num_actions,)
            assert mask.any()
            assert mask[a]
            obs = state.observe(state.current_player)
            assert obs.dtype == np.float32 and obs.shape == game.observation_shape
            assert np.isfinite(obs).all() and obs.min() >= -1e-6 and obs.max() <= 1 + 1e-6
        assert state.is_terminal() and state.current_player == -1
        assert not state.legal_mask().any()
        win = state.returns("win")
        assert win.sum() == pytest.approx(0.0) and len(win) == n
        assert state.returns("rank").sum() == pytest.approx(0.0)
    names = [state.action_name(a) for a in range(game.num_actions)]
    assert len(set(names)) == len(names), "action names must be unique"


@pytest.mark.parametrize("name, n", CONFIGS)
def test_json_round_trip_clone_and_identical_future(name, n):
    game = game_class(name)(n)
    st_cls = game.state_class
    for seed in range(2):
        states = [s.clone() for s, _ in _random_game(game, seed)]
        for state in states[:: max(1, len(states) // 12)]:
            copy = st_cls.from_json(state.to_json())
            clone = state.clone()
            assert copy.to_json() == state.to_json()
            rng = random.Random(seed)
            while not state.is_terminal():
                legal = state.legal_actions()
                assert copy.legal_actions() == legal == clone.legal_actions()
                a = legal[rng.randrange(len(legal))]
                state.apply(a)
                copy.apply(a)
                clone.apply(a)
            assert copy.scores() == state.scores() == clone.scores()
            assert copy.to_json() == state.to_json()


@pytest.mark.parametrize("name", GAMES)
def test_clone_is_independent(name):
    game = game_class(name)()
    state = game.new_state(5)
    for _ in range(5):
        state.apply(state.legal_actions()[0])
    before = state.to_json()
    clone = state.clone()
    while not clone.is_terminal():
        clone.apply(clone.legal_actions()[-1])
    assert state.to_json() == before


@pytest.mark.parametrize("name", GAMES)
def test_illegal_action_and_corrupt_state_leave_everything_unchanged(name):
    env = meeplezoo.make(name, raw=True)
    env.reset(seed=3)
    state = env.game_state
    before = state.to_json()
    mask = state.legal_mask()
    illegal = int(np.flatnonzero(~mask)[0]) if (~mask).any() else game_class(name)().num_actions
    with pytest.raises(IllegalActionError, match="illegal action"):
        env.step(illegal)
    with pytest.raises(IllegalActionError):
        state.apply(-1)
    assert state.to_json() == before
    text = state.to_json()
    for broken in (text[: len(text) // 3], text.replace('"state":{', '"state":{"x":', 1)[:-5], "[]"):
        with pytest.raises(CorruptStateError):
            state.from_json(broken)


@pytest.mark.parametrize("name", GAMES)
def test_determinize_keeps_the_observers_view(name):
    game = game_class(name)(game_class(name).max_players)
    for state, a in _random_game(game, 1):
        if a is None:
            break
        p = state.current_player
        d = state.determinize(p, 123)
        assert np.array_equal(d.observe(p), state.observe(p))
        assert np.array_equal(d.legal_mask(), state.legal_mask())


@pytest.mark.parametrize("name", GAMES)
def test_gym_wrapper_env_checkers(name):
    from gymnasium.utils.env_checker import check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    env = SingleAgentEnv(name, ["random"], seed=0)
    check_env(env, skip_render_check=True)
    sb3_check_env(env)


def test_gym_wrapper_maskable_ppo_smoke_on_kerala():
    if not _landed("kerala"):
        pytest.skip("kerala is not in this checkout")
    from sb3_contrib import MaskablePPO

    env = SingleAgentEnv("kerala", ["random"], num_players=2, seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=512, batch_size=128, n_epochs=1, seed=0)
    model.learn(2048)
    obs, _ = env.reset()
    for _ in range(20):
        a, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=False)
        assert env.action_masks()[int(a)]
        obs, _, done, _, _ = env.step(int(a))
        if done:
            obs, _ = env.reset()
