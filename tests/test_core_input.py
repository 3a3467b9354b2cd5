"""Actions and seeds are checked the same way for every game, in envs/core.

An action is a Python int or a numpy integer (not a bool, float, string or None); a seed is
None or a non-negative integer below 2**64 (not a bool).  Anything else gets one clear error
that names the value, and the state is left as it was.
"""

from __future__ import annotations

import numpy as np
import pytest

import meeplezoo
from meeplezoo.envs.core import IllegalActionError
from meeplezoo.envs.core import rng as core_rng
from meeplezoo.envs.core.gym import SingleAgentEnv
from meeplezoo.envs.core.rng import Rng, as_rng
from meeplezoo.registry import env_module, make_game

GAMES = meeplezoo.list_envs()
BAD_ACTIONS = [float("inf"), float("-inf"), float("nan"), 0.0, 1.0, np.float32(0.0), np.float64(1.0), True, False,
               np.bool_(True), "0", None, [0], 2**70, -(2**70)]
BAD_SEEDS = [-1, -(2**63), 2**64, 2**70, np.int64(-5), True, False, 1.5, 3.0, np.float64(2.0), "7", [1]]


def _first_legal(state) -> int:
    return state.legal_actions()[0]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("action", BAD_ACTIONS, ids=repr)
def test_state_apply_refuses_non_int_actions(game, action):
    s = make_game(game).new_state(1)
    before = s.to_json()
    with pytest.raises(IllegalActionError, match=r"action") as e:
        s.apply(action)
    assert "\n" not in str(e.value)
    assert s.to_json() == before


@pytest.mark.parametrize("game", GAMES)
def test_state_apply_accepts_python_and_numpy_ints(game):
    for kind in (int, np.int64, np.int32, np.uint16, np.intp):
        s = make_game(game).new_state(1)
        s.apply(kind(_first_legal(s)))


def test_bad_action_error_names_value_and_type():
    s = make_game("kerala").new_state(0)
    with pytest.raises(IllegalActionError, match=r"action must be an int.*1\.0.*float"):
        s.apply(1.0)
    with pytest.raises(IllegalActionError, match=r"inf.*float"):
        s.apply(float("inf"))
    with pytest.raises(IllegalActionError, match=r"True.*bool"):
        s.apply(True)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("action", [float("inf"), float("-inf"), 1.0, True, None, "3"], ids=repr)
def test_env_step_bad_action_raise_and_penalize(game, action):
    env = env_module(game).env()
    env.reset(seed=2)
    before = env.unwrapped.game_state.to_json()
    with pytest.raises(IllegalActionError):
        env.step(action)
    assert env.unwrapped.game_state.to_json() == before
    env = env_module(game).env(illegal_action="penalize")
    env.reset(seed=2)
    agent = env.agent_selection
    env.step(action)
    assert env.terminations[agent] and env.rewards[agent] == -1.0
    assert env.infos[agent].get("illegal_action") is True


@pytest.mark.parametrize("action", [float("inf"), 1.0, True, "0"], ids=repr)
def test_gym_wrapper_bad_action(action):
    env = SingleAgentEnv("kerala", seed=0, learner_seat=0)
    env.reset(seed=0)
    _, reward, done, _, info = env.step(action)
    assert done and reward == -1.0 and info["illegal_action"] is True
    env = SingleAgentEnv("kerala", seed=0, learner_seat=0, illegal_action="raise")
    env.reset(seed=0)
    before = env.state.to_json()
    with pytest.raises(IllegalActionError):
        env.step(action)
    assert env.state.to_json() == before


# -- seeds -----------------------------------------------------------------------------------


def test_check_seed():
    assert core_rng.check_seed(None) is None
    assert core_rng.check_seed(0) == 0 and core_rng.check_seed(2**64 - 1) == 2**64 - 1
    assert core_rng.check_seed(np.uint64(7)) == 7 and type(core_rng.check_seed(np.int32(7))) is int
    for bad in BAD_SEEDS:
        with pytest.raises(ValueError, match=r"my_seed must be None or an integer in \[0, 2\*\*64\)"):
            core_rng.check_seed(bad, "my_seed")
    with pytest.raises(ValueError, match=r"-1 \(int\)"):
        core_rng.check_seed(-1)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seed", BAD_SEEDS, ids=repr)
def test_every_seed_entry_refuses_the_same_seeds(game, seed):
    g = make_game(game)
    with pytest.raises(ValueError, match="seed"):
        g.new_state(seed)
    env = env_module(game).env()
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=seed)
    s = g.new_state(0)
    with pytest.raises(ValueError, match="seed"):
        s.determinize(s.current_player, seed)
    with pytest.raises(ValueError, match="seed"):
        SingleAgentEnv(game, seed=seed)
    genv = SingleAgentEnv(game, seed=0)
    with pytest.raises(ValueError, match="seed"):
        genv.reset(seed=seed)


@pytest.mark.parametrize("game", GAMES)
def test_every_seed_entry_accepts_the_same_seeds(game):
    g = make_game(game)
    for seed in (None, 0, 2**64 - 1, np.uint64(2**64 - 1), np.int64(5)):
        g.new_state(seed)
        env_module(game).env().reset(seed=seed)
        s = g.new_state(1)
        s.determinize(s.current_player, seed)
        SingleAgentEnv(game, seed=seed).reset(seed=seed)


def test_rng_and_as_rng_use_the_same_rule():
    assert Rng(2**64 - 1).s == 2**64 - 1
    for bad in BAD_SEEDS:
        with pytest.raises(ValueError, match="seed"):
            Rng(bad)
        with pytest.raises(ValueError, match="seed"):
            as_rng(bad)


@pytest.mark.parametrize("game", GAMES)
def test_observe_refuses_what_is_no_seat(game):
    g = make_game(game)
    s = g.new_state(1)
    assert s.observe(np.int64(0)).shape == g.observation_shape
    for bad in (-1, g.num_players, True, 0.0, "0", None):
        with pytest.raises(ValueError, match=rf"observe: player must be a seat 0\.\.{g.num_players - 1}, got"):
            s.observe(bad)
    while not s.is_terminal():  # at the end current_player is -1: no seat to observe for
        s.apply(s.legal_actions()[0])
    with pytest.raises(ValueError, match="got -1"):
        s.observe(s.current_player)
