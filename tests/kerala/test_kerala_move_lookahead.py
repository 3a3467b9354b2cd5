"""Kerala's observation-only option ``move_lookahead`` (rules file §13.5): what each cell a move decision may
name would do to the platform, checked against the engine playing each move on a clone."""

from __future__ import annotations

import numpy as np
import pytest
from test_kerala_move_tile import FIXTURE_A, FIXTURE_C, OPEN

from meeplezoo.agents.base import act_on_state
from meeplezoo.agents.heuristics.kerala import KeralaHeuristic
from meeplezoo.agents.seat_layout import SeatLayout
from meeplezoo.envs.kerala import components as C
from meeplezoo.envs.kerala.observation import AFTER_CLIP, MOVE_PLANES
from meeplezoo.envs.kerala.state import KeralaGame, KeralaState

MOVE_PHASES = (C.PHASE_MOVE_ELEPHANT, C.PHASE_MOVE_TILE_SRC, C.PHASE_MOVE_TILE_DST)


def block(state: KeralaState, player: int) -> np.ndarray:
    """The ``move_lookahead`` block of ``player``'s observation, ``MOVE_PLANES x cells``."""
    g = state.game
    return state.observe(player)[g.observation_layout["move_lookahead"]].reshape(MOVE_PLANES, g.num_cells)


def _free(game: KeralaGame, plat: dict, els: list[int]) -> int:
    return len({c + d for c in els for d in game.delta if c + d not in plat})


def _open(game: KeralaGame, plat: dict) -> int:
    return sum(1 for cell, st in plat.items()
               if game.code_edge_target[st[-1]] >= 0 and cell + game.delta[st[-1] & 3] not in plat)


def _finish_move(state: KeralaState, player: int) -> tuple[int, int]:
    """The best (total, open edges) over the turns the engine offers after a move (the turn by total plus
    open edges), or the platform as it is when the move needs no turn."""
    if state.phase != C.PHASE_MOVE_TILE_ROT or state.current_player != player:
        return state.platform_score(player).total, _open(state.game, state.platforms[player])
    outcomes = []
    for a in state.legal_actions():
        t = state.clone()
        t.apply(a)
        outcomes.append((t.platform_score(player).total, _open(t.game, t.platforms[player])))
    return max(outcomes, key=lambda v: v[0] + v[1])


def reference_move_lookahead(state: KeralaState, player: int) -> np.ndarray:
    """The block written from the rules' side: each legal move applied to a clone by the engine, the
    platform scored after it (and after each turn the engine then offers)."""
    g = state.game
    out = np.zeros((MOVE_PLANES, g.num_cells), dtype=np.float32)
    p, codec = state.current_player, g.codec
    if p != player or state.phase not in MOVE_PHASES:
        return out
    plat, els = state.platforms[p], state.elephants[p]
    if state.phase == C.PHASE_MOVE_ELEPHANT:
        before = _free(g, plat, els)
        for a in state.legal_actions():
            if a == codec.skip:
                continue
            e, cell = divmod(a - codec.move_elephant_base, g.num_cells)
            t = state.clone()
            t.apply(a)
            out[e, cell] = (_free(g, t.platforms[p], t.elephants[p]) - before) / 8
    else:
        total, opened = state.platform_score(p).total, _open(g, plat)
        best: dict[int, tuple[int, int]] = {}
        if state.phase == C.PHASE_MOVE_TILE_SRC:
            for a in state.legal_actions():
                if a == codec.skip:
                    continue
                t = state.clone()
                t.apply(a)
                for b in t.legal_actions():
                    u = t.clone()
                    u.apply(b)
                    v = _finish_move(u, p)
                    if a - codec.src_base not in best or sum(v) > sum(best[a - codec.src_base]):
                        best[a - codec.src_base] = v
        else:
            for b in state.legal_actions():
                u = state.clone()
                u.apply(b)
                best[b - codec.dst_base] = _finish_move(u, p)
        for cell, (t_, o_) in best.items():
            out[2, cell] = (t_ - total) / 10
            out[3, cell] = (o_ - opened) / 2
    return np.clip(out, -AFTER_CLIP, AFTER_CLIP)


def test_default_observation_has_no_move_block():
    plain = KeralaGame(2, derived_features=True)
    assert "move_lookahead" not in plain.observation_layout
    game = KeralaGame(2, derived_features=True, move_lookahead=True)
    assert game.observation_shape[0] == plain.observation_shape[0] + MOVE_PLANES * game.num_cells
    assert game.same_rules(plain)  # observation-only
    assert "move_lookahead" in game.observation_spec.spatial_names()


def test_move_elephant_values_by_hand(kit):
    """Tiles at (0,0) (0,1) (0,2) and (1,0); elephant 0 on (0,0), elephant 1 on (0,1): 2 + 2 = 4 free cells
    next to them.  Elephant 0 to (0,2): 3 + 2 = 5 (+1 / 8); to (1,0): 3 + 2 with (1,1) shared = 4 (0).
    Elephant 1 to (0,2): 2 + 3 = 5; to (1,0): 2 + 3 = 5 (+1 / 8 both): the two planes differ."""
    game = KeralaGame(2, move_lookahead=True)
    take = kit.picker(game)
    plat = {(0, 0): [C.START_TILE_BASE + game.player_colours[0]], (0, 1): [take("blue", "sym1")],
            (0, 2): [take("red", "sym1")], (1, 0): [take("green", "sym1")]}
    s = KeralaState.from_position(game, platforms=[plat, None], elephants=[[(0, 0), (0, 1)], None],
                                  phase=C.PHASE_MOVE_ELEPHANT)
    m = block(s, 0)
    east, south = (game.pad_to_cell[game.cell_of(*rc)] for rc in ((0, 2), (1, 0)))
    assert (m[0, east], m[0, south], m[1, east], m[1, south]) == pytest.approx((1 / 8, 0, 1 / 8, 1 / 8))
    assert np.count_nonzero(m[0]) == 1 and np.count_nonzero(m[1]) == 2
    assert not m[2:].any()
    np.testing.assert_allclose(m, reference_move_lookahead(s, 0), atol=1e-6)
    assert not block(s, 1).any()  # another observer sees no lookahead


@pytest.mark.parametrize("rows", [FIXTURE_A, FIXTURE_C])
def test_move_tile_sources_and_destinations_match_the_engine(kit, rows):
    s = kit.move_tile_state(rows, move_lookahead=True, derived_features=True, **OPEN)
    m = block(s, 0)
    np.testing.assert_allclose(m, reference_move_lookahead(s, 0), atol=1e-6)
    sources = {s.game.pad_to_cell[x] for x in s.move_tile_pairs()}
    assert set(np.flatnonzero(m.any(axis=0))) <= sources
    assert not m[:2].any()
    src = next(iter(s.move_tile_pairs()))
    s.apply(s.game.codec.move_tile_src(s.game.pad_to_cell[src]))
    assert s.phase == C.PHASE_MOVE_TILE_DST
    np.testing.assert_allclose(block(s, 0), reference_move_lookahead(s, 0), atol=1e-6)


def test_the_heuristic_moves_the_source_the_block_rates_best(kit):
    """The heuristic moves a stack only for a gain of more than half a point, and then the one whose best
    move scores most by total plus open edges: the source with the block's largest 10 * total + 2 * open."""
    checked = 0
    rng = np.random.default_rng(3)
    game = KeralaGame(2, move_lookahead=True)
    for k in range(40):
        s = kit.play_random(game.new_state(k), rng, steps=int(rng.integers(10, 60)))
        while not s.is_terminal() and s.phase != C.PHASE_MOVE_TILE_SRC:
            legal = s.legal_actions()
            s.apply(legal[rng.integers(len(legal))])
        if s.is_terminal():
            continue
        m = block(s, s.current_player)
        gain = 10 * m[2] + 2 * m[3]
        a = act_on_state(KeralaHeuristic(seed=0), s)
        if a == game.codec.skip:
            assert gain.max(initial=0.0) <= 0.5 + 1e-6 or not m.any()
        else:
            assert gain[a - game.codec.src_base] == pytest.approx(gain.max(), abs=1e-5)
            checked += 1
    assert checked >= 3


@pytest.mark.parametrize("n", [2, 4])
def test_every_observation_of_random_games_matches_the_reference(n):
    game = KeralaGame(n, move_lookahead=True, elephant_view=True, pick_afterstate=True)
    rng = np.random.default_rng(n)
    seen = dict.fromkeys(MOVE_PHASES, 0)
    for k in range(6):
        s = game.new_state(100 + k)
        while not s.is_terminal():
            for p in range(n):
                np.testing.assert_allclose(block(s, p), reference_move_lookahead(s, p), atol=1e-6)
            if s.phase in seen:
                seen[s.phase] += 1
            legal = s.legal_actions()
            s.apply(legal[rng.integers(len(legal))])
    assert all(v > 0 for v in seen.values()), seen


def test_a_seat_network_reads_the_block_beside_the_platform_planes():
    plain = SeatLayout(KeralaGame(3, elephant_view=True))
    game = KeralaGame(3, elephant_view=True, move_lookahead=True)
    lay = SeatLayout(game)
    assert lay.planes == plain.planes + MOVE_PLANES
    assert [r.name for r in lay.cell_runs] == [r.name for r in plain.cell_runs]
    start = game.observation_layout["move_lookahead"].start
    # every seat row sees the block's planes, the same cells (it belongs to no seat)
    for row in range(lay.rows):
        np.testing.assert_array_equal(lay.board_index[row, -MOVE_PLANES:].reshape(-1),
                                      start + np.arange(MOVE_PLANES * game.num_cells))
