"""Invariants over many random games: conservation, masks, scores, persistence, clones, hidden information."""

import numpy as np
import pytest
from hawaii_helpers import play_random

from meeplezoo.envs.hawaii import actions as A
from meeplezoo.envs.hawaii.components import NUM_ISLANDS, NUM_TOKENS, SUPPLY
from meeplezoo.envs.hawaii.state import VP_FINAL, HawaiiGame, HawaiiState

GAMES = {2: 90, 3: 70, 4: 70, 5: 70}  # 300 games


def _check_position(s: HawaiiState) -> None:
    s.validate()  # every token, tile, island and god in exactly one place
    n = s.game.num_players
    for p in range(n):
        assert min(s.res[p]) >= 0
        assert s.vp[p] == sum(s.vp_parts[p])
    if not s.is_terminal():
        mask = s.legal_mask()
        assert mask.any()
        assert s.current_player >= 0
    tokens = len(s.bag) + len(s.cove) + sum(t >= 0 for t in s.seq) + sum(t >= 0 for c in s.circles for t in c)
    tokens += sum(len(s.held[p]) + len(s.fished[p]) for p in range(n))
    assert tokens == NUM_TOKENS
    assert len(s.isl_stack) + sum(d >= 0 for d in s.docks) == NUM_ISLANDS
    assert s.supply[19] + sum(s.kahunas) == SUPPLY[19]


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_random_games_keep_every_invariant(n):
    g = HawaiiGame(n)
    rng = np.random.default_rng(100 + n)
    for game_no in range(GAMES[n]):
        s = g.new_state(1000 * n + game_no)
        steps = 0
        while not s.is_terminal():
            if steps % 5 == 0:
                _check_position(s)
            la = s.legal_actions()
            assert la, "empty mask"
            a = la[rng.integers(len(la))]
            if steps % 17 == 3:
                before = s.to_json()
                c = s.clone()
                c.apply(a)
                assert s.to_json() == before, "applying to a clone changed the original"
            s.apply(a)
            steps += 1
            assert steps < 3000, "random game does not terminate"
        _check_position(s)
        for p in range(n):
            assert s.vp_parts[p][VP_FINAL] == s.final_village_vp(p)
        assert s.returns("win").sum() == pytest.approx(0.0)


def test_json_round_trip_gives_identical_state_and_future():
    rng = np.random.default_rng(7)
    for n in (2, 3, 4, 5):
        g = HawaiiGame(n)
        for game_no in range(8):
            s = g.new_state(game_no)
            for _ in range(int(rng.integers(0, 120))):
                if s.is_terminal():
                    break
                la = s.legal_actions()
                s.apply(la[rng.integers(len(la))])
            text = s.to_json()
            t = HawaiiState.from_json(text)
            assert t.to_json() == text
            assert np.array_equal(t.legal_mask(), s.legal_mask())
            for p in range(n):
                assert np.array_equal(t.observe(p), s.observe(p))
            # identical future (chance included) under the same actions
            r = np.random.default_rng(game_no)
            while not s.is_terminal():
                la = s.legal_actions()
                a = la[r.integers(len(la))]
                assert t.legal_actions() == la
                s.apply(a)
                t.apply(a)
            assert t.to_json() == s.to_json()
            assert t.scores() == s.scores()


def test_same_seed_and_actions_replay_the_game():
    g = HawaiiGame(4)
    rng = np.random.default_rng(3)
    s = g.new_state(99)
    actions = []
    while not s.is_terminal():
        la = s.legal_actions()
        a = la[rng.integers(len(la))]
        actions.append(a)
        s.apply(a)
    r = g.new_state(99)
    for a in actions:
        r.apply(a)
    assert r.to_json() == s.to_json()


def test_clone_is_independent_and_cached_observation_matches_fresh():
    rng = np.random.default_rng(5)
    g = HawaiiGame(3)
    s = g.new_state(5)
    for _ in range(150):
        if s.is_terminal():
            break
        c = s.clone()
        c.refresh()  # drop every cache: a fresh encoding and mask must equal the cached ones
        for p in range(3):
            assert np.array_equal(c.observe(p), s.observe(p))
        assert np.array_equal(c.legal_mask(), s.legal_mask())
        la = s.legal_actions()
        before = s.to_json()
        c.apply(la[0])
        c.res[0][0] += 5
        c.rows[1][0].append(2 * 12)
        c.circles[0][0] = -1
        c.god_stacks[0].append(13)
        c.held[1].append(0)
        c.boat_used[2][0] = not c.boat_used[2][0]
        assert s.to_json() == before
        s.apply(la[rng.integers(len(la))])


def test_observations_requested_now_and_then_match_fresh_ones():
    rng = np.random.default_rng(6)
    for n in (2, 4):
        g = HawaiiGame(n, place_set="B")
        for seed in range(6):
            s = g.new_state(seed)
            while not s.is_terminal():
                if rng.random() < 0.15:
                    p = int(rng.integers(n))
                    c = s.clone()
                    c.refresh()
                    assert np.array_equal(c.observe(p), s.observe(p))
                la = s.legal_actions()
                s.apply(la[rng.integers(len(la))])


def _hide_shuffle(s: HawaiiState, rng: np.random.Generator) -> HawaiiState:
    """Change only what nobody has seen: god tiles below the tops, face-down island order."""
    t = s.clone()
    for st in t.god_stacks:
        if len(st) > 2:
            below = st[:-1]
            rng.shuffle(below)
            st[:-1] = below
    down = [i for i, up in enumerate(t.isl_up) if not up]
    ids = [t.isl_stack[i] for i in down]
    rng.shuffle(ids)
    for i, isl in zip(down, ids):
        t.isl_stack[i] = isl
    t.refresh()
    return t


def test_hidden_parts_never_reach_an_observation():
    rng = np.random.default_rng(9)
    changed = 0
    for n in (2, 3, 4, 5):
        g = HawaiiGame(n)
        s = g.new_state(n)
        while not s.is_terminal():
            t = _hide_shuffle(s, rng)
            changed += (t.god_stacks != s.god_stacks) or (t.isl_stack != s.isl_stack)
            for p in range(n):
                assert np.array_equal(t.observe(p), s.observe(p))
            assert np.array_equal(t.legal_mask(), s.legal_mask())
            la = s.legal_actions()
            s.apply(la[rng.integers(len(la))])
    assert changed > 50


def test_hidden_resources_option_hides_other_players_stocks():
    g = HawaiiGame(3, resources_public=False)
    s = g.new_state(4)
    t = s.clone()
    other = [p for p in range(3) if p != 0]
    for p in other:
        t.res[p] = [x + 7 for x in t.res[p]]
    t.refresh()
    assert np.array_equal(s.observe(0), t.observe(0))
    assert not np.array_equal(s.observe(other[0]), t.observe(other[0]))
    # and by default they are public
    g2 = HawaiiGame(3)
    s2 = g2.new_state(4)
    t2 = s2.clone()
    t2.res[1][0] += 7
    t2.refresh()
    assert not np.array_equal(s2.observe(0), t2.observe(0))


def test_determinize_resamples_hidden_order_only():
    g = HawaiiGame(4)
    s = g.new_state(8)
    rng = np.random.default_rng(1)
    play = 0
    while play < 40:
        la = s.legal_actions()
        s.apply(la[rng.integers(len(la))])
        play += 1
    seen_diff = False
    for k in range(20):
        d = s.determinize(s.current_player, k)
        for p in range(4):
            assert np.array_equal(d.observe(p), s.observe(p))
        assert sorted(d.god_stacks[0] + d.god_stacks[1]) == sorted(s.god_stacks[0] + s.god_stacks[1])
        assert [st[-1] for st in d.god_stacks if st] == [st[-1] for st in s.god_stacks if st]
        seen_diff |= d.god_stacks != s.god_stacks or d.isl_stack != s.isl_stack or d.rng.s != s.rng.s
        d.validate()
    assert seen_diff
    for r in (3, np.random.default_rng(2)):
        assert s.determinize(0, r).legal_actions() == s.legal_actions()


def test_random_play_terminates_and_masks_all_phases():
    seen = set()
    rng = np.random.default_rng(0)
    for n in (2, 5):
        g = HawaiiGame(n)
        for seed in range(15):
            s = g.new_state(seed)
            while not s.is_terminal():
                seen.add(s.phase)
                la = s.legal_actions()
                s.apply(la[rng.integers(len(la))])
    assert {A.MAIN, A.TOKEN, A.TILE, A.SIDE, A.ROW, A.PAY, A.BOATS, A.FISH, A.IRRIG} <= seen
    assert play_random(HawaiiGame(2).new_state(1), rng) > 10
