"""meeplezoo through the clients of the ecosystem: PettingZoo's own tests and utilities, RLlib's
wrapper, PettingZoo's and Gymnasium's registries; illegal moves, truncation and text views."""

from __future__ import annotations

import random
import warnings

import gymnasium
import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test
from pettingzoo.test.state_test import test_state as pz_state_test
from pettingzoo.test.state_test import test_state_space as pz_state_space_test
from pettingzoo.utils import average_total_reward

import meeplezoo
from meeplezoo.envs.core import IllegalActionError
from meeplezoo.registry import ENVS, game_class, registry_ids
from test_envs import CONFIGS, GAMES


def _illegal_action(env) -> int:
    mask = env.observe(env.agent_selection)["action_mask"]
    return int(np.flatnonzero(mask == 0)[0])


# -- 1. illegal moves end the game, as in PettingZoo classic ----------------------------------------------------------
@pytest.mark.parametrize("name", GAMES)
def test_default_env_terminates_an_illegal_move_like_pettingzoo_classic(name, caplog):
    n = game_class(name).max_players
    env = meeplezoo.make(name, num_players=n)
    env.reset(seed=2)
    offender = env.agent_selection
    env.step(_illegal_action(env))
    assert "Illegal move made" in caplog.text  # PettingZoo's own warning
    assert all(env.terminations.values()) and not any(env.truncations.values())
    _, reward, term, _, info = env.last()
    assert env.agent_selection == offender and term and reward == -1.0 and info["illegal_action"] is True
    for a in env.agents:
        assert env.infos[a]["placements"][env.agent_name_mapping[a]] == (n - 1 if a == offender else 0)
        assert env.infos[a]["illegal_action"] is (a == offender)
    assert sum(env._cumulative_rewards.values()) == -1.0
    for _agent in env.agent_iter():  # every agent sees the end, then the episode is over
        env.step(None)
    assert env.agents == []


@pytest.mark.parametrize("name", GAMES)
def test_raise_mode_and_raw_env_keep_raising(name):
    for env in (meeplezoo.make(name, illegal_action="raise"), meeplezoo.make(name, raw=True)):
        env.reset(seed=1)
        before = env.unwrapped.game_state.to_json()
        with pytest.raises(IllegalActionError):
            env.step(_illegal_action(env))
        assert env.unwrapped.game_state.to_json() == before and not any(env.terminations.values())


@pytest.mark.parametrize("bad", [-1, 10**6, "pass", float("inf"), 1.0, True])
def test_default_env_raises_outside_the_action_space_and_penalize_mode_ends_the_game(bad):
    env = meeplezoo.make("kerala")  # illegal_action="terminate", PettingZoo classic's behaviour
    assert env.unwrapped.illegal_action == "terminate"
    env.reset(seed=0)
    before = env.unwrapped.game_state.to_json()
    with pytest.raises(IllegalActionError):
        env.step(bad)
    assert not any(env.terminations.values()) and env.unwrapped.game_state.to_json() == before
    env = meeplezoo.make("kerala", illegal_action="penalize")  # every non-move is penalised
    env.reset(seed=0)
    agent = env.agent_selection
    env.step(bad)
    assert env.terminations[agent] and env.rewards[agent] == -1.0


@pytest.mark.parametrize("name, n", CONFIGS)
def test_pettingzoo_state_test_and_average_total_reward_with_default_env(name, n):
    env = meeplezoo.make(name, num_players=n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unmasked random actions: illegal-move warnings
        pz_state_space_test(env)
        pz_state_test(env, num_cycles=60)
        avg = average_total_reward(meeplezoo.make(name, num_players=n), max_episodes=3, max_steps=3000)
    assert np.isfinite(avg)


def test_rllib_pettingzoo_env_check():
    try:
        from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
        from ray.rllib.utils.pre_checks.env import check_multiagent_environments
    except ImportError as e:
        pytest.skip(f"ray[rllib] is not importable: {e}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_multiagent_environments(PettingZooEnv(meeplezoo.make("kerala", num_players=2)))
        with pytest.raises(ValueError):  # RLlib's check plays unmasked actions: a raising env fails it
            check_multiagent_environments(PettingZooEnv(meeplezoo.make("kerala", illegal_action="raise")))
    env = PettingZooEnv(meeplezoo.make("hawaii", num_players=3))
    obs, _ = env.reset(seed=0)
    done = False
    while not done:
        ((agent, o),) = obs.items()
        obs, rewards, term, trunc, _ = env.step({agent: int(np.flatnonzero(o["action_mask"])[0])})
        done = term["__all__"] or trunc["__all__"]
    assert sum(rewards.values()) == pytest.approx(0.0) and len(rewards) == 3


def test_supersuit_sticky_actions_and_delayed_observations():
    ss = pytest.importorskip("supersuit")
    for wrap in (lambda e: ss.sticky_actions_v0(e, repeat_action_probability=0.5),
                 lambda e: ss.delay_observations_v0(e, 2)):
        env = wrap(meeplezoo.make("haus_der_sonne"))
        for seed in range(3):
            env.reset(seed=seed)
            for _agent in env.agent_iter(2000):
                obs, _, term, trunc, _ = env.last()
                legal = np.flatnonzero(obs["action_mask"])  # a delayed mask may be another position's
                env.step(None if term or trunc else int(legal[0]) if legal.size else 0)
            assert all(env.unwrapped.terminations.values()) or all(env.unwrapped.truncations.values())


# -- 2. truncation ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", GAMES)
def test_max_cycles_truncates_every_agent_with_zero_reward(name):
    env = pettingzoo.make("aec", ENVS[name][1], max_cycles=7)
    env.reset(seed=0)
    decisions = 0
    for _agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            assert trunc and not term and reward == 0.0 and info["truncated"] and info["placements"] is None
            env.step(None)
            continue
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        decisions += 1
    assert decisions == 7


def test_max_cycles_is_validated_and_documented():
    for bad in (0, -3, 2.5, True, "10"):
        with pytest.raises(ValueError, match="max_cycles"):
            meeplezoo.make("kerala", max_cycles=bad)
    assert "max_cycles" in (meeplezoo.make("kerala", raw=True).__doc__ or type(meeplezoo.make("kerala", raw=True))
                            .__mro__[1].__doc__)


def test_pettingzoo_api_test_with_max_cycles():
    api_test(meeplezoo.make("hawaii", num_players=3, max_cycles=30), num_cycles=100)


def test_turn_limit_of_haus_der_sonne_is_a_truncation():
    game = game_class("haus_der_sonne")(turn_limit=4)
    s = game.new_state(0)
    while not s.is_terminal():
        s.apply(s.legal_actions()[0])
    assert s.is_truncated() and list(s.returns("win")) == [0.0, 0.0]
    full = game_class("haus_der_sonne")().new_state(0)
    rng = random.Random(0)
    while not full.is_terminal():
        full.apply(rng.choice(full.legal_actions()))
    assert not full.is_truncated() and sorted(full.returns("win")) == [-1.0, 1.0]

    env = meeplezoo.make("haus_der_sonne", turn_limit=4)
    env.reset(seed=0)
    for _agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            assert trunc and not term and reward == 0.0 and info["truncated"]
            env.step(None)
        else:
            env.step(int(np.flatnonzero(obs["action_mask"])[0]))

    from meeplezoo.envs.core.gym import SingleAgentEnv

    genv = SingleAgentEnv("haus_der_sonne", ["random"], seed=0, turn_limit=4)
    obs, info = genv.reset()
    while True:
        obs, r, term, trunc, info = genv.step(int(np.flatnonzero(info["action_mask"])[0]))
        if term or trunc:
            break
    assert trunc and not term and r == 0.0


# -- 3. registries ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", GAMES)
def test_pettingzoo_registry_accepts_module_names(name):
    display, module_id = registry_ids(name)
    for env_id in (display, module_id, module_id.replace("-v", "_v")):
        env = pettingzoo.make("aec", env_id)
        env.reset(seed=0)
        assert env.unwrapped.game.name == name
    assert pettingzoo.make("aec", f"meeplezoo/{name}_v0").unwrapped.game.name == name


@pytest.mark.parametrize("name", GAMES)
def test_gymnasium_registry_single_agent_view(name, capsys):
    env = gymnasium.make(ENVS[name][1], opponents=["random"], render_mode="human")
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert capsys.readouterr().out.strip()  # human mode prints the board
    obs, _, _, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert capsys.readouterr().out.strip()
    assert env.unwrapped.game.name == name
    env.close()


# -- 4. text views ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", GAMES)
def test_text_infos_carry_observation_text_and_legal_names(name):
    env = meeplezoo.make(name, text_infos=True)
    env.reset(seed=0)
    for step, _agent in enumerate(env.agent_iter(60)):
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        state = env.unwrapped.game_state
        p = state.current_player
        assert info["observation_text"] == state.observation_string(p)
        names = info["legal_action_names"]
        assert names == [state.action_name(a) for a in np.flatnonzero(obs["action_mask"])]
        for other in env.agents:
            if other != env.agent_selection:
                assert env.infos[other]["legal_action_names"] == []
        env.step(int(np.flatnonzero(obs["action_mask"])[step % int(obs["action_mask"].sum())]))
    plain = meeplezoo.make(name)
    plain.reset(seed=0)
    assert "observation_text" not in plain.last()[4]


@pytest.mark.parametrize("name, n", CONFIGS)
def test_observation_string_hides_what_the_player_cannot_know(name, n):
    """Everything the viewer cannot know is resampled (others' hands, face-down cards, pile and
    stack orders, future chance): the viewer's text is unchanged."""
    game = game_class(name)(n)
    rng = random.Random(n)
    changed = 0
    for seed in range(2):
        s = game.new_state(seed)
        while not s.is_terminal():
            if rng.random() < 0.08:
                for p in range(n):
                    text = s.observation_string(p)
                    assert isinstance(text, str) and text
                    d = s.determinize(p, rng.randrange(2**32))
                    changed += d.to_json() != s.to_json()
                    assert d.observation_string(p) == text
            s.apply(rng.choice(s.legal_actions()))
    assert changed > 0


def test_asara_text_hides_other_hands_under_hand_perturbation():
    from asara.test_asara_hidden import perturb_hidden

    game = game_class("asara")(3, version="professional")
    rng = random.Random(0)
    s = game.new_state(0)
    differs = 0
    while not s.is_terminal():
        if rng.random() < 0.2:
            for p in range(3):
                t = perturb_hidden(s, p, rng)
                assert t.observation_string(p) == s.observation_string(p)
                differs += any(t.observation_string(q) != s.observation_string(q) for q in range(3) if q != p)
        s.apply(rng.choice(s.legal_actions()))
    assert differs > 0  # the perturbation does change what the others see: their own hands


def test_hawaii_text_hides_other_resources_when_not_public():
    game = game_class("hawaii")(3, resources_public=False)
    s = game.new_state(4)
    t = s.clone()
    t.res[1] = [x + 7 for x in t.res[1]]
    t.refresh()
    assert s.observation_string(0) == t.observation_string(0)
    assert s.observation_string(1) != t.observation_string(1)
    public = game_class("hawaii")(3).new_state(4)
    u = public.clone()
    u.res[1][0] += 7
    u.refresh()
    assert public.observation_string(0) != u.observation_string(0)


def test_hawaii_picture_of_a_view_hides_other_resources_when_not_public():
    from meeplezoo.envs.hawaii.render import observation_rgb

    s = game_class("hawaii")(3, resources_public=False).new_state(4)
    t = s.clone()
    t.res[1] = [x + 7 for x in t.res[1]]
    t.refresh()
    assert not np.array_equal(s.render_rgb(), t.render_rgb())
    assert np.array_equal(observation_rgb(s, 0), observation_rgb(t, 0))
    assert not np.array_equal(observation_rgb(s, 1), observation_rgb(t, 1))
    public = game_class("hawaii")(3).new_state(4)
    assert np.array_equal(observation_rgb(public, 0), public.render_rgb())


def test_asara_views_hide_other_money_and_reserves_with_human_realistic_obs():
    from meeplezoo.envs.asara.render import observation_rgb

    s = game_class("asara")(3, human_realistic_obs=True).new_state(4)
    rng = random.Random(4)
    kinds = len(s.reserve) // 3
    while not any(s.reserve[kinds:]):  # until another player holds tiles
        s.apply(rng.choice(s.legal_actions()))
    t = s.clone()
    t.money[1] += 17
    t.money[2] += 5
    t.reserve[kinds:] = [0] * (2 * kinds)
    t.refresh()
    assert s.observation_string(0) == t.observation_string(0)
    assert np.array_equal(observation_rgb(s, 0), observation_rgb(t, 0))
    assert s.observation_string(1) != t.observation_string(1) and s.render_text() != t.render_text()
    assert not np.array_equal(s.render_rgb(), t.render_rgb())
    plain = game_class("asara")(3).new_state(4)
    assert "money ?" not in plain.observation_string(0)
    assert np.array_equal(observation_rgb(plain, 0), plain.render_rgb())
