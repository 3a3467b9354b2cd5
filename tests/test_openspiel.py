"""Every game as an OpenSpiel Python game: OpenSpiel's own random-simulation test on every game and
player count, its MCTS bot against its random bot, rl_environment, serialisation, parameters, and for
the hidden-information games the perfect-recall information state with OpenSpiel's IS-MCTS bot."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from meeplezoo.registry import game_class
from test_envs import CONFIGS, GAMES

pyspiel = pytest.importorskip("pyspiel")
mz_openspiel = pytest.importorskip("meeplezoo.openspiel")

VARIANTS = [pytest.param("haus_der_sonne", 2, {"variant": "tactical"}, id="haus_der_sonne-tactical"),
            *[pytest.param("asara", n, {"version": "professional"}, id=f"asara-{n}p-professional")
              for n in (2, 3, 4)]]


def load(name: str, **params):
    return pyspiel.load_game(f"python_meeplezoo_{name}", params)


@pytest.mark.parametrize("name, n", CONFIGS)
def test_openspiel_random_sim_test(name, n):
    # as OpenSpiel's tests of its own Python games (kuhn_poker_test, tic_tac_toe_test): serialize=False,
    # since serialize_game_and_state needs an RNG state from the game; serialisation is tested below
    pyspiel.random_sim_test(load(name, players=n), num_sims=2, serialize=False, verbose=False)


@pytest.mark.parametrize("name, n, options", VARIANTS)
def test_openspiel_random_sim_test_variants(name, n, options):
    pyspiel.random_sim_test(load(name, players=n, **options), num_sims=1, serialize=False, verbose=False)


@pytest.mark.parametrize("name", GAMES)
def test_game_type_and_info(name):
    cls = game_class(name)
    game = load(name, players=cls.max_players)
    t = game.get_type()
    assert t.short_name == f"python_meeplezoo_{name}"
    assert t.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
    assert t.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    info = pyspiel.GameType.Information
    assert t.information == (info.IMPERFECT_INFORMATION if cls.hidden_information else info.PERFECT_INFORMATION)
    assert t.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert t.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert (t.min_num_players, t.max_num_players) == (cls.min_players, cls.max_players)
    assert t.provides_observation_tensor and t.provides_observation_string
    assert not t.provides_information_state_tensor
    assert t.provides_information_state_string == cls.hidden_information
    assert game.num_players() == cls.max_players
    assert game.num_distinct_actions() == cls(cls.max_players).num_actions
    assert game.observation_tensor_shape() == list(cls(cls.max_players).observation_shape)
    assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (-1.0, 1.0, 0.0)
    assert game.max_game_length() == mz_openspiel.MAX_GAME_LENGTH[name]
    assert game.max_chance_outcomes() == 0
    score = load(name, reward_mode="score")
    assert score.max_utility() == pytest.approx(mz_openspiel.SCORE_MARGIN_BOUND / cls.score_scale)
    for option in cls.options_spec:
        if option.default is not None:
            assert option.name in t.parameter_specification


@pytest.mark.parametrize("name", GAMES)
def test_observations_and_strings_come_from_the_engine(name):
    game = load(name, players=game_class(name).max_players, rng_seed=3)
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    for _ in range(12):
        engine = state.engine_state
        for p in range(game.num_players()):
            assert np.array_equal(np.asarray(state.observation_tensor(p), np.float32), engine.observe(p))
            assert state.observation_string(p) == engine.observation_string(p)
        legal = state.legal_actions()
        assert legal == engine.legal_actions()
        assert state.action_to_string(state.current_player(), legal[0]) == engine.action_name(legal[0])
        state.apply_action(int(rng.choice(legal)))


@pytest.mark.parametrize("name", GAMES)
def test_serialize_deserialize_and_pickle_through_the_json_format(name):
    game = load(name, players=game_class(name).min_players)
    state = game.new_initial_state()
    for _ in range(9):
        state.apply_action(state.legal_actions()[-1])
    text = state.serialize()
    again = game.deserialize_state(text)
    assert again.engine_state.to_json() == state.engine_state.to_json()
    assert again.history() == state.history()
    copy = pickle.loads(pickle.dumps(state))
    assert copy.engine_state.to_json() == state.engine_state.to_json()
    assert pickle.loads(pickle.dumps(game)).get_parameters() == game.get_parameters()
    # the same future from either copy (the generator travels with the state)
    for s in (state, again, copy):
        while not s.is_terminal():
            s.apply_action(s.legal_actions()[0])
    assert state.returns() == again.returns() == copy.returns()
    clone = game.new_initial_state()
    clone.apply_action(clone.legal_actions()[0])
    c2 = clone.clone()
    assert c2.engine_state is not clone.engine_state
    assert c2.engine_state.to_json() == clone.engine_state.to_json() and c2.history() == clone.history()


def test_rule_options_are_game_parameters():
    kerala = load("kerala", players=3, own_colour_areas=1)
    assert kerala.new_initial_state().engine_state.game.options["own_colour_areas"] == 1
    hawaii = load("hawaii", round_targets="[8, 10, 12, 14, 16]")
    assert list(hawaii.new_initial_state().engine_state.game.options["round_targets"]) == [8, 10, 12, 14, 16]
    with pytest.raises(Exception, match="players"):
        load("haus_der_sonne", players=3)
    with pytest.raises(Exception, match="reward_mode"):
        load("kerala", reward_mode="points")


@pytest.mark.parametrize("mode", ["win", "rank", "score"])
def test_returns_are_zero_sum_in_every_reward_mode(mode):
    game = load("hawaii", players=3, reward_mode=mode)
    state = game.new_initial_state()
    rng = np.random.default_rng(1)
    while not state.is_terminal():
        state.apply_action(int(rng.choice(state.legal_actions())))
    r = state.returns()
    assert abs(sum(r)) < 1e-9 and all(game.min_utility() <= x <= game.max_utility() for x in r)


def test_max_game_length_cuts_the_game_off_with_zero_returns():
    game = load("asara", max_game_length=15)
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    assert len(state.history()) == 15 and state.returns() == [0.0, 0.0] and state.is_truncated()
    assert state.current_player() == pyspiel.PlayerId.TERMINAL
    hds = load("haus_der_sonne", turn_limit=4)
    s = hds.new_initial_state()
    while not s.is_terminal():
        s.apply_action(s.legal_actions()[0])
    assert s.is_truncated() and s.returns() == [0.0, 0.0]


def test_mcts_bot_against_random_bot_through_evaluate_bots():
    from open_spiel.python.algorithms import evaluate_bots, mcts

    game = load("kerala", players=2, rng_seed=5)
    rng = np.random.RandomState(0)
    bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=8, evaluator=mcts.RandomRolloutEvaluator(1, rng),
                       random_state=rng)
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), [bot, pyspiel.make_uniform_random_bot(1, 3)],
                                          rng)
    assert len(returns) == 2 and sum(returns) == 0 and sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])


def test_rl_environment_steps_with_legal_action_masks():
    from open_spiel.python import rl_environment

    game = load("hawaii", players=3, rng_seed=2)
    env = rl_environment.Environment(game)
    assert env.observation_spec()["info_state"] == tuple(game.observation_tensor_shape())
    num_actions = env.action_spec()["num_actions"]
    ts = env.reset()
    steps = 0
    rng = np.random.default_rng(0)
    while not ts.last():
        p = ts.observations["current_player"]
        mask = np.zeros(num_actions, dtype=bool)
        mask[ts.observations["legal_actions"][p]] = True
        assert np.array_equal(mask, env.get_state.engine_state.legal_mask())
        for q in range(3):
            if q != p:
                assert ts.observations["legal_actions"][q] == []
        ts = env.step([int(rng.choice(np.flatnonzero(mask)))])
        steps += 1
    assert steps > 10 and abs(sum(ts.rewards)) < 1e-9


# -- information state and IS-MCTS (hidden-information games) ----------------------------------------------
HIDDEN = [pytest.param(name, n, id=f"{name}-{n}p") for name in ("hawaii", "asara")
          for n in range(game_class(name).min_players, game_class(name).max_players + 1)]


class _FlatEvaluator:
    """No rollout: every leaf is worth 0 (the test is about the information-state plumbing, not strength)."""

    def evaluate(self, state):
        return [0.0] * state.get_game().num_players()

    def prior(self, state):
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]


@pytest.mark.parametrize("name, n", HIDDEN)
def test_ismcts_bot_plays_full_games_of_the_hidden_information_games(name, n):
    from open_spiel.python.algorithms import ismcts

    game = load(name, players=n, rng_seed=n)
    assert game.get_type().provides_information_state_string
    rng = np.random.RandomState(n)
    bot = ismcts.ISMCTSBot(game, _FlatEvaluator(), uct_c=2.0, max_simulations=3, random_state=rng)
    state = game.new_initial_state()
    decisions = searched = 0
    while not state.is_terminal():
        if len(state.legal_actions()) > 1:
            searched += 1
        action = bot.step(state)  # asserts that every sample keeps the searcher's information state
        assert action in state.legal_actions()
        state.apply_action(action)
        decisions += 1
    assert not state.is_truncated() and searched > 10
    assert abs(sum(state.returns())) < 1e-9 and max(state.returns()) > 0


@pytest.mark.parametrize("name, n", [("hawaii", 3), ("asara", 3)])
def test_information_state_is_what_the_player_saw_and_did(name, n):
    game = load(name, players=n, rng_seed=4, **({"version": "professional"} if name == "asara" else {}))
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    seen = [set() for _ in range(n)]
    for _ in range(30):
        for p in range(n):
            text = state.information_state_string(p)
            assert text.startswith(f"player {p}, {len(state.history())} decisions: ")
            assert text not in seen[p]  # perfect recall: never the same twice along one game
            seen[p].add(text)
        state.apply_action(int(rng.choice(state.legal_actions())))
    # the same decisions give the same information state; a copy keeps it
    # a fresh game of the same seed: its first initial state is the same deal
    again = load(name, players=n, rng_seed=4, **({"version": "professional"} if name == "asara" else {})
                 ).new_initial_state()
    for a in state.history():
        again.apply_action(a)
    twin = again.clone()
    for p in range(n):
        assert again.information_state_string(p) == state.information_state_string(p)
        assert twin.information_state_string(p) == state.information_state_string(p)
    with pytest.raises(Exception, match="perfect information"):
        load("kerala").new_initial_state().information_state_string(0)


@pytest.mark.parametrize("name, n", [("hawaii", 4), ("asara", 3)])
def test_resample_keeps_the_information_state_and_redraws_the_hidden_part(name, n):
    options = {"version": "professional"} if name == "asara" else {}
    game = load(name, players=n, rng_seed=6, **options)
    state = game.new_initial_state()
    rng = np.random.default_rng(1)
    for _ in range(25):
        state.apply_action(int(rng.choice(state.legal_actions())))
    p = state.current_player()
    key = state.information_state_string(p)
    truth = state.engine_state.to_json()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    samples = [state.resample_from_infostate(p, sampler) for _ in range(6)]
    for s in samples:
        assert s.current_player() == p and s.information_state_string(p) == key
        assert np.array_equal(np.asarray(s.observation_tensor(p)), np.asarray(state.observation_tensor(p)))
        assert s.legal_actions() == state.legal_actions()
        # play goes on in the sample, and its information state follows
        s.apply_action(s.legal_actions()[0])
        assert s.information_state_string(p) != key
    assert any(s.engine_state.to_json() != truth for s in samples)  # the hidden part is redrawn
    assert state.engine_state.to_json() == truth  # and the true state is untouched
