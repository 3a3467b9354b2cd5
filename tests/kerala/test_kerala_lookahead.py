"""The pick decision's one-step lookahead (``queries.pick_lookahead``): what each placement does to the platform
of the player to act, read by the heuristic, its prior in the search and the ``pick_afterstate`` observation."""

from __future__ import annotations

import numpy as np

from meeplezoo.agents.heuristics.kerala import COMPACT_WEIGHT, FREEDOM_WEIGHT, OPEN_EDGE_BONUS, KeralaHeuristic
from meeplezoo.envs.kerala import components as C
from meeplezoo.envs.kerala import queries as Q
from meeplezoo.envs.kerala.actions import PICK_IDS
from meeplezoo.envs.kerala.state import KeralaGame, KeralaState, score_platform


def _positions(n: int, seed: int, count: int) -> list[KeralaState]:
    """Pick decisions of a heuristic game (each a clone, taken before its decision)."""
    h = KeralaHeuristic(seed=seed)
    s = KeralaGame(n).new_state(seed)
    out = []
    while not s.is_terminal() and len(out) < count:
        if s.phase == C.PHASE_PICK:
            out.append(s.clone())
        s.apply(h.act(None, s.legal_mask(), state=s))
    return out


def test_every_effect_is_the_platform_after_the_placement():
    """Each legal pick's effect equals the platform read after the engine applied it, scored from scratch
    (no area refill, no cache): total and parts, open edges, free cells by the elephants, and the occupied
    neighbours of the target cell before it."""
    checked = 0
    for n in (2, 4):
        for s in _positions(n, seed=n, count=12):
            p = s.current_player
            g = s.game
            look = Q.pick_lookahead(s)
            base = score_platform(g, s.platforms[p], g.player_colours[p], s.standing(p))
            assert look.before.total == base.total and look.before.open_edges == Q.open_edges(g, s.platforms[p])
            for a in s.legal_actions():
                if a >= PICK_IDS:
                    continue
                t = s.clone()
                t.apply(a)
                q = s.elephants[p][(a >> 4) & 1] + g.delta[(a >> 2) & 3]
                plat = t.platforms[p]
                sc = score_platform(g, plat, g.player_colours[p], t.standing(p))
                eff = look.effect(a)
                assert (eff.total, eff.symbols, eff.edges, eff.removed_tiles, eff.missing) == (
                    sc.total, sc.symbols, sc.edges, sc.removed_tiles, sc.missing), a
                assert eff.open_edges == Q.open_edges(g, plat)
                assert eff.free == len(Q.free_cells_around(g, plat, tuple(t.elephants[p])))
                assert eff.occupied == Q.occupied_neighbours(g, s.platforms[p], q)
                checked += 1
    assert checked > 300


def test_heuristic_values_are_its_formula_on_the_effects():
    """The heuristic's scores are its documented formula (provisional total, open-edge bonus, freedom,
    compactness) on the effects, and ``act`` plays the best of them."""
    for s in _positions(3, seed=5, count=10):
        h = KeralaHeuristic(seed=0)
        legal = list(s.legal_actions())
        scores = h.action_scores(s, legal)
        look = Q.pick_lookahead(s)
        for a, v in zip(legal, scores):
            if a < PICK_IDS:
                e = look.effect(a)
                assert v == (e.total + OPEN_EDGE_BONUS * e.open_edges + FREEDOM_WEIGHT * e.free
                             + COMPACT_WEIGHT * e.occupied)
        picks = [v for a, v in zip(legal, scores) if a < PICK_IDS]
        a = h.act(None, s.legal_mask(), state=s)
        if a < PICK_IDS:
            assert scores[legal.index(a)] == max(picks)


def test_one_lookahead_per_position_shared_by_its_readers():
    """The observation and the heuristic read the same lookahead, built once and dropped at the next action."""
    s = KeralaGame(2, pick_afterstate=True).new_state(3)
    s.observe(s.current_player)
    look = s._lookahead
    assert look is not None
    KeralaHeuristic(seed=0).action_scores(s, list(s.legal_actions()))
    assert Q.pick_lookahead(s) is look
    assert s.clone()._lookahead is look  # a clone shows the same position
    s.apply(s.legal_actions()[0])
    assert s._lookahead is None


def test_positions_with_the_same_platform_share_its_evaluations():
    """Two positions where only another player moved share the platform's lookahead (its tokens in
    ``state.changes`` are the same); once the player's own platform changes they do not."""
    s = KeralaGame(3).new_state(8)
    p = s.current_player
    a, b = s.clone(), s.clone()
    legal = [x for x in s.legal_actions() if x < PICK_IDS]
    a.apply(legal[0])
    b.apply(legal[-1])
    assert a.current_player == b.current_player != p
    la, lb = Q.pick_lookahead(a), Q.pick_lookahead(b)
    assert la is not lb and la.platform is lb.platform
    # a fresh game of the same seed has fresh tokens: nothing is shared across lines of play
    fresh = KeralaGame(3).new_state(8)
    fresh.apply(legal[0])
    assert Q.pick_lookahead(fresh).platform is not la.platform
    assert Q.pick_lookahead(fresh).before == la.before
    # the next player's own move makes new tokens for its platform
    q = a.current_player
    a.apply([x for x in a.legal_actions() if x < PICK_IDS][0])
    while a.current_player != q and not a.is_terminal():
        a.apply(a.legal_actions()[0])
    if not a.is_terminal() and a.phase == C.PHASE_PICK:
        assert Q.pick_lookahead(a).platform is not la.platform


def test_the_shared_memo_is_bounded(monkeypatch):
    monkeypatch.setattr(Q, "SHARED_LOOKAHEADS", 3)
    Q._SHARED.clear()
    for seed in range(7):
        Q.pick_lookahead(KeralaGame(2).new_state(seed))
        assert len(Q._SHARED) <= 3
    assert np.isfinite(Q.pick_lookahead(KeralaGame(2).new_state(0)).before.total)
