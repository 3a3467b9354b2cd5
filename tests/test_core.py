"""The game-independent machinery, exercised on the toy game (tests/toygame.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from meeplezoo.agents import RandomAgent
from meeplezoo.envs.core import CorruptStateError, IllegalActionError, Option, Rng, compute_returns
from meeplezoo.envs.core.gym import SingleAgentEnv
from meeplezoo.training.arena import play_match, run_arena, wilson_interval
from toygame import ToyGame, ToyState, toy_env_module

toy_env, toy_raw_env = toy_env_module()


# -- options and player counts ----------------------------------------------------------------
def test_unknown_option_names_the_option_and_the_known_ones():
    with pytest.raises(ValueError, match=r"unknown option\(s\) colour.*known options: hand_size"):
        ToyGame(2, colour="red")


@pytest.mark.parametrize("value", ["2", 2.5, True, None])
def test_option_of_wrong_type_is_refused(value):
    with pytest.raises(ValueError, match="hand_size"):
        ToyGame(2, hand_size=value)


def test_option_out_of_bounds_is_refused():
    with pytest.raises(ValueError, match=r"hand_size=7 is outside \[1, 3\]"):
        ToyGame(2, hand_size=7)


@pytest.mark.parametrize("n", [0, 1, 5, "3", 2.0, True])
def test_bad_player_count_names_the_allowed_range(n):
    with pytest.raises(ValueError, match=r"num_players"):
        ToyGame(n)


def test_choice_option_lists_allowed_values():
    opt = Option("variant", "base", choices=("base", "tactical"))
    assert opt.validate("tactical", "g") == "tactical"
    with pytest.raises(ValueError, match=r"allowed values: 'base', 'tactical'"):
        opt.validate("fast", "g")
    flag = Option("flag", True, choices=(True, False))
    with pytest.raises(ValueError):
        flag.validate(1, "g")  # 1 == True, but it is not a bool


def test_config_round_trip_and_equality():
    g = ToyGame(3, hand_size=3)
    assert g.config == {"num_players": 3, "hand_size": 3}
    assert ToyGame(**g.config) == g
    assert g.non_default_options == {"hand_size": 3}


# -- returns ------------------------------------------------------------------------------------
def test_win_returns_split_between_tied_winners_and_sum_to_zero():
    r = compute_returns([0, 0, 2, 3], [10, 10, 5, 1], "win", 10)
    assert r.tolist() == [0.5, 0.5, -0.5, -0.5]
    assert compute_returns([0, 1], [3, 1], "win", 1).tolist() == [1.0, -1.0]
    assert compute_returns([0, 0, 0], [1, 1, 1], "win", 1).tolist() == [0.0, 0.0, 0.0]


def test_rank_returns_are_linear_and_share_ties():
    assert compute_returns([0, 1, 2], [3, 2, 1], "rank", 1).tolist() == [1.0, 0.0, -1.0]
    assert compute_returns([0, 1, 1], [3, 2, 2], "rank", 1).tolist() == [1.0, -0.5, -0.5]


def test_score_returns_are_margins_over_the_others_mean():
    r = compute_returns([0, 1, 2], [30, 20, 10], "score", 10)
    assert r.tolist() == pytest.approx([1.5, 0.0, -1.5])


def test_unknown_reward_mode():
    with pytest.raises(ValueError, match="reward_mode"):
        compute_returns([0, 1], [1, 0], "elo", 1)


def test_placements_share_ties():
    s = ToyGame(3).new_state(1)
    s.score = [5, 5, 1]
    assert s.placements() == [0, 0, 2]
    assert s.winners() == [0, 1]


# -- rng ----------------------------------------------------------------------------------------
def test_rng_is_reproducible_and_clone_replays_the_future():
    a, b = Rng(42), Rng(42)
    assert [a.randbelow(100) for _ in range(20)] == [b.randbelow(100) for _ in range(20)]
    c = a.clone()
    assert [a.next64() for _ in range(5)] == [c.next64() for _ in range(5)]
    counts = np.bincount([Rng(i).randbelow(6) for i in range(6000)], minlength=6)
    assert counts.min() > 850  # roughly uniform
    deck = list(range(10))
    Rng(1).shuffle(deck)
    assert sorted(deck) == list(range(10)) and deck != list(range(10))


def test_rng_refuses_bad_seed():
    with pytest.raises(ValueError, match="seed"):
        Rng("abc")  # type: ignore[arg-type]


# -- state protocol -----------------------------------------------------------------------------
def test_illegal_action_raises_names_legal_ones_and_changes_nothing():
    s = ToyGame(2).new_state(3)
    before = s.to_json()
    illegal = next(a for a in range(11) if not s.legal_mask()[a])
    with pytest.raises(IllegalActionError, match=r"illegal action .* legal: "):
        s.apply(illegal)
    for bad in (-1, 11, 2.5, "x", None):
        with pytest.raises(IllegalActionError):
            s.apply(bad)
    assert s.to_json() == before


def test_json_round_trip_and_identical_future():
    s = ToyGame(3).new_state(5)
    for _ in range(7):
        s.apply(s.legal_actions()[0])
    t = ToyState.from_json(s.to_json())
    assert t.to_json() == s.to_json()
    while not s.is_terminal():
        a = s.legal_actions()[-1]
        s.apply(a)
        t.apply(a)
        assert t.to_json() == s.to_json()


@pytest.mark.parametrize(
    "text, msg",
    [
        ("{not json", "not valid JSON"),
        ('{"format": 1}', "expected keys"),
        ('{"format": 9, "game": "toy", "config": {}, "state": {}}', "format"),
        ('{"format": 1, "game": "kerala", "config": {}, "state": {}}', "for game 'kerala'"),
        ('{"format": 1, "game": "toy", "config": {"num_players": 9}, "state": {}}', "bad config"),
        ('{"format": 1, "game": "toy", "config": {"num_players": 2}, "state": {"deck": []}}', "corrupt"),
    ],
)
def test_corrupt_saved_state_is_refused_clearly(text, msg):
    with pytest.raises(CorruptStateError, match=msg):
        ToyState.from_json(text)


def test_truncated_saved_state_is_refused():
    text = ToyGame(2).new_state(1).to_json()
    with pytest.raises(CorruptStateError):
        ToyState.from_json(text[: len(text) // 2])


def test_clone_is_independent():
    s = ToyGame(2).new_state(9)
    c = s.clone()
    c.apply(c.legal_actions()[0])
    assert s.to_json() != c.to_json()
    assert s.to_json() == ToyGame(2).new_state(9).to_json()


def test_default_determinize_keeps_own_view():
    s = ToyGame(3).new_state(2)
    d = s.determinize(0, Rng(7))
    assert np.array_equal(d.observe(0), s.observe(0))
    assert sorted(d.deck + d.hands[1] + d.hands[2]) == sorted(s.deck + s.hands[1] + s.hands[2])


# -- PettingZoo adapter -----------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4])
def test_pettingzoo_api_seed_and_render_tests(n):
    api_test(toy_env(num_players=n), num_cycles=300)
    seed_test(lambda **kw: toy_env(num_players=n, **kw), num_cycles=100)
    render_test(lambda render_mode=None: toy_env(num_players=n, render_mode=render_mode))


def test_order_enforcing_wrapper_refuses_reads_before_reset_and_forwards_after():
    """The wrapper's direct ``last``/``agents``/``agent_selection`` keep PettingZoo's checks."""
    from pettingzoo.utils.wrappers import OrderEnforcingWrapper

    env = toy_env_module()[0](num_players=3)
    assert isinstance(env, OrderEnforcingWrapper)
    for read in (lambda: env.last(), lambda: env.agents, lambda: env.agent_selection):
        with pytest.raises(AttributeError, match="before reset"):
            read()
    assert not hasattr(env, "agents")
    env.reset(seed=1)
    raw = env.unwrapped
    assert env.agents == raw.agents and env.agent_selection == raw.agent_selection == "player_0"
    obs, reward, term, trunc, info = env.last()
    assert np.array_equal(obs["action_mask"], raw.observe("player_0")["action_mask"])
    assert (reward, term, trunc, info) == (0.0, False, False, {})
    assert env.last(observe=False)[0] is None
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert env.agent_selection == raw.agent_selection == raw.possible_agents[raw.game_state.current_player]


def test_adapter_spaces_are_created_once():
    env = toy_raw_env(num_players=3)
    assert env.observation_space("player_1") is env.observation_space("player_1")
    assert env.action_space("player_0") is env.action_space("player_0")
    assert env.metadata["name"] == "toy_v0" and env.metadata["is_parallelizable"] is False


def test_adapter_illegal_action_raises_and_leaves_game_unchanged():
    env = toy_raw_env(num_players=2)
    env.reset(seed=1)
    before = env.game_state.to_json()
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalActionError, match="illegal action"):
        env.step(illegal)
    assert env.game_state.to_json() == before
    assert not any(env.terminations.values())


def test_adapter_penalize_mode_ends_game_for_offender():
    env = toy_raw_env(num_players=3, illegal_action="penalize")
    env.reset(seed=1)
    offender = env.agent_selection
    mask = env.observe(offender)["action_mask"]
    env.step(int(np.flatnonzero(mask == 0)[0]))
    assert all(env.terminations.values())
    assert env._cumulative_rewards[offender] == -1.0
    assert sum(env._cumulative_rewards.values()) == -1.0
    assert env.infos[offender]["illegal_action"] is True


def test_adapter_rewards_follow_reward_mode():
    for mode in ("win", "rank", "score"):
        env = toy_raw_env(num_players=3, reward_mode=mode)
        env.reset(seed=4)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            obs, r, term, trunc, _ = env.last()
            totals[agent] += r
            if term or trunc:
                env.step(None)
                continue
            env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        state = env.game_state
        expected = state.returns(mode)
        assert [totals[a] for a in env.possible_agents] == pytest.approx(expected.tolist())


def test_adapter_mask_only_for_agent_to_move_and_state_vector():
    env = toy_raw_env(num_players=3)
    env.reset(seed=2)
    mover = env.agent_selection
    for a in env.agents:
        mask = env.observe(a)["action_mask"]
        assert mask.dtype == np.int8
        assert (mask.sum() > 0) == (a == mover)
    assert env.state().shape == env.state_space.shape


@pytest.mark.parametrize("kw, msg", [({"render_mode": "svg"}, "render_mode"), ({"reward_mode": "elo"}, "reward_mode"),
                                     ({"illegal_action": "ignore"}, "illegal_action"), ({"colour": 1}, "colour")])
def test_adapter_bad_arguments(kw, msg):
    with pytest.raises(ValueError, match=msg):
        toy_raw_env(**kw)


# -- Gymnasium wrapper ---------------------------------------------------------------------------
def test_gym_wrapper_passes_both_env_checkers():
    from gymnasium.utils.env_checker import check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    for n in (2, 4):
        env = SingleAgentEnv(ToyGame(n), [RandomAgent(0)], seed=0)
        check_env(env, skip_render_check=True)
        sb3_check_env(env)


class _Spy(RandomAgent):
    """Records every state it is asked to act in."""

    uses_state = True

    def __init__(self, seed):
        super().__init__(seed)
        self.players = []

    def act(self, observation, action_mask, *, state=None):
        self.players.append(state.current_player)
        return super().act(observation, action_mask)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_gym_wrapper_bookkeeping(n):
    spies = [_Spy(i) for i in range(n - 1)]
    env = SingleAgentEnv(ToyGame(n), spies, seed=n)
    rng = np.random.default_rng(0)
    for _ in range(10):
        for spy in spies:
            spy.players.clear()
        obs, info = env.reset()
        seat = info["learner_seat"]
        total = 0.0
        done = False
        while not done:
            state = env.state
            assert state.current_player == seat
            assert np.array_equal(obs, state.observe(seat))
            assert np.array_equal(env.action_masks(), state.legal_mask())
            a = int(rng.choice(np.flatnonzero(env.action_masks())))
            obs, r, done, trunc, info = env.step(a)
            total += r
        assert total == pytest.approx(env.state.returns("win")[seat])
        assert info["returns"][seat] == pytest.approx(total)
        for spy in spies:
            assert spy.players and seat not in spy.players


def test_gym_wrapper_draws_learner_seat_per_episode_or_fixes_it():
    env = SingleAgentEnv(ToyGame(3), ["random"], seed=0)
    seats = {env.reset()[1]["learner_seat"] for _ in range(30)}
    assert seats == {0, 1, 2}
    env = SingleAgentEnv(ToyGame(3), ["random"], seed=0, learner_seat=2)
    assert {env.reset()[1]["learner_seat"] for _ in range(10)} == {2}
    with pytest.raises(ValueError, match="learner_seat"):
        SingleAgentEnv(ToyGame(3), ["random"], learner_seat=3)


def test_gym_wrapper_illegal_action_modes():
    env = SingleAgentEnv(ToyGame(2), [RandomAgent(0)], seed=0)
    env.reset()
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, r, done, _, info = env.step(illegal)
    assert done and r == -1.0 and info["illegal_action"]
    env = SingleAgentEnv(ToyGame(2), [RandomAgent(0)], seed=0, illegal_action="raise")
    env.reset()
    before = env.state.to_json()
    with pytest.raises(IllegalActionError):
        env.step(illegal)
    assert env.state.to_json() == before


def test_gym_wrapper_with_maskable_ppo_smoke():
    from sb3_contrib import MaskablePPO

    env = SingleAgentEnv(ToyGame(3), [RandomAgent(0)], seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=256, batch_size=64, n_epochs=2, seed=0)
    model.learn(1024)
    obs, _ = env.reset()
    a, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(a)]


# -- arena -------------------------------------------------------------------------------------------
def test_play_match_replays_exactly():
    game = ToyGame(3)
    res = play_match(game, [RandomAgent(1), RandomAgent(2), RandomAgent(3)], seed=11)
    s = game.new_state(11)
    for a in res.actions:
        s.apply(a)
    assert s.is_terminal() and s.scores() == res.scores
    doc = json.loads(json.dumps(res.replay()))
    assert doc["seed"] == 11 and doc["actions"] == res.actions


def test_arena_rotates_seats_and_counts_shared_wins():
    game = ToyGame(2)
    a, b = RandomAgent(0), RandomAgent(1)
    a.name, b.name = "a", "b"
    stats, results = run_arena(game, [a, b], 40, seed=3)
    assert stats["a"].games == stats["b"].games == 40
    assert stats["a"].wins + stats["b"].wins == pytest.approx(40)
    assert sum(r.agents[0] == "a" for r in results) == 20


def test_arena_tells_equal_names_apart():
    game = ToyGame(3)
    agents = [RandomAgent(i) for i in range(3)]
    for x in agents:
        x.name = "random"
    stats, _ = run_arena(game, agents, 6, seed=0)
    assert set(stats) == {"random#1", "random#2", "random#3"}


def test_wilson_interval():
    lo, hi = wilson_interval(90, 100)
    assert 0.82 < lo < 0.85 and 0.94 < hi < 0.96
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_rng_shuffle_many_is_shuffle_of_each_in_turn():
    """``Rng.shuffle_many`` (draws computed at once) gives the orders and the stream of successive shuffles,
    below, inside and above the sizes it vectorizes."""
    import random

    for trial in range(400):
        pick = random.Random(trial)
        seqs = [list(range(pick.randint(0, pick.choice([3, 10, 40, 200])))) for _ in range(pick.randint(0, 6))]
        one, many = Rng(trial * 7919), Rng(trial * 7919)
        expected = [x[:] for x in seqs]
        for x in expected:
            one.shuffle(x)
        got = [x[:] for x in seqs]
        many.shuffle_many(got)
        assert got == expected
        assert many.s == one.s
