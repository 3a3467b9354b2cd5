"""§9 final scoring and §10 winners: the rulebook's example (T-R37), the worked example and the options."""

from __future__ import annotations

import numpy as np
import pytest

from meeplezoo.envs.kerala.state import KeralaGame, score_platform


def _finished(kit, game, platforms, elephants, passes):
    """A finished game: empty bag and offer, every tile not on a platform among the discards."""
    used = {t if isinstance(t, int) else t[0] for plat in platforms if plat for st in plat.values() for t in st}
    rest = [t for t in range(100) if t not in used]
    return kit.State.from_position(game, platforms=platforms, elephants=elephants, passes=passes, bag=[],
                                   discards=rest, phase=kit.C.PHASE_END)


def _r37_platform(kit, game, r3c1_height=1):
    """Rules file §11.2: the synthetic board reproducing the rulebook's 37-point example (own colour blue)."""
    take = kit.picker(game)
    N, W = 0, 3
    grid = {
        (0, 1): [take("purple", "sym3")], (0, 2): [take("purple", "sym3")], (0, 3): [take("purple", "sym2")],
        (0, 4): [take("purple", "sym2")], (0, 5): [take("purple", "sym1")],
        (1, 0): [take("red", "sym1")], (1, 1): [(take("green", "edge", "purple"), N)], (1, 2): [take("green", "sym3")],
        (1, 3): [take("green", "sym3")], (1, 4): [take("green", "sym2")], (1, 5): [(take("black", "edge", "green"), W)],
        (2, 0): [take("red", "sym1")], (2, 1): [take("blue", "sym2")], (2, 2): [kit.C.START_TILE_BASE + 0],
        (2, 3): [take("red", "sym3")], (2, 4): [take("red", "sym1")], (2, 5): [take("black", "sym3")],
        (3, 1): [take("red", "sym1") for _ in range(r3c1_height)], (3, 5): [take("blue", "sym3")],
    }
    return {(r - 2, c - 2): tiles for (r, c), tiles in grid.items()}


def test_rulebook_example_37(kit):
    game = kit.Game(2)
    s = _finished(kit, game, [_r37_platform(kit, game), None], [[(0, 0), (0, -1)], None], [1, 0])
    sc = s.platform_score(0)
    assert sc.as_dict() == {"symbols": 32, "edges": 2, "standing": 1, "removed_tiles": 3, "missing_colours": 0,
                            "total": 37}
    assert sc.area_count[4] == 3  # three red areas (r2c0 and r3c1 touch only at a corner)
    assert s.scores()[0] == 37


def test_rulebook_example_variants(kit):
    game = kit.Game(2)
    s = _finished(kit, game, [_r37_platform(kit, game, r3c1_height=2), None], [[(0, 0), (0, -1)], None], [1, 0])
    assert s.scores()[0] == 35  # whole-stack removal: -2 per tile
    game0 = kit.Game(2, start_tile_symbols=0)
    s0 = _finished(kit, game0, [_r37_platform(kit, game0), None], [[(0, 0), (0, -1)], None], [1, 0])
    assert s0.scores()[0] == 36


def _worked_example(kit, height, **options):
    """Rules file §9 worked example: own colour red (seat 4 of five), one pass used."""
    game = kit.Game(5, **options)
    take = kit.picker(game)
    stack = [take("green", "sym1") for _ in range(height - 1)] + [take("blue", "sym2")]
    plat = {
        (0, 0): [kit.C.START_TILE_BASE + 4], (0, 1): [take("red", "sym2")], (0, 2): [(take("blue", "edge", "red"), 1)],
        (0, 3): [take("red", "sym3")], (1, 0): stack, (1, 1): [take("black", "sym1")], (1, 2): [take("blue", "sym1")],
        (1, 3): [take("purple", "sym2")],
    }
    return _finished(kit, game, [None] * 4 + [plat], [None] * 4 + [[(0, 0), (0, 1)]], [0, 0, 0, 0, 1])


@pytest.mark.parametrize("height,total", [(3, 5), (1, 9), (5, 3)])
def test_worked_example(kit, height, total):
    assert _worked_example(kit, height).scores()[4] == total


def test_worked_example_details(kit):
    sc = _worked_example(kit, 3).platform_score(4)
    assert sc.as_dict() == {"symbols": 10, "edges": 1, "standing": 1, "removed_tiles": 3, "missing_colours": 1,
                            "total": 5}
    sc5 = _worked_example(kit, 5).platform_score(4)
    assert sc5.edges == 0 and sc5.removed_tiles == 2  # keeping the tall stack drops the edge tile's area


def test_keep_choice_greedy_differs(kit):
    """keep_choice=greedy ignores the edge link between areas: here it keeps the wrong blue area."""
    assert _worked_example(kit, 3, keep_choice="greedy").scores()[4] == 3
    assert _worked_example(kit, 3).scores()[4] == 5


def test_colour_presence_any_layer_option(kit):
    """A-22: with colour_presence_layers=any, buried green tiles make green present."""
    assert _worked_example(kit, 5).platform_score(4).missing == 1
    sc = _worked_example(kit, 5, colour_presence_layers="any").platform_score(4)
    assert sc.missing == 0 and sc.total == 8


def _buried_edge(kit, **options):
    game = kit.Game(2, **options)
    take = kit.picker(game)
    W = 3
    plat = {(0, 0): [kit.C.START_TILE_BASE], (0, 1): [(take("red", "edge", "blue"), W), take("red", "sym1")]}
    return _finished(kit, game, [plat, None], [[(0, 0), (0, 1)], None], [0, 0])


def test_edge_bonus_layers_option(kit):
    """A-18: by default a buried edge tile does not score; with edge_bonus_layers=any it does."""
    assert _buried_edge(kit).platform_score(0).edges == 0
    assert _buried_edge(kit, edge_bonus_layers="any").platform_score(0).edges == 1


def test_edge_bonus_needs_neighbour_kept(kit):
    """The +5 is checked after removal: a removed neighbour of the right colour gives nothing."""
    game = kit.Game(2)
    take = kit.picker(game)
    E = 1
    plat = {(0, 0): [kit.C.START_TILE_BASE], (0, 1): [(take("green", "edge", "red"), E)], (0, 2): [take("red", "sym1")],
            (1, 0): [take("red", "sym3")], (2, 0): [take("red", "sym3")]}
    s = _finished(kit, game, [plat, None], [[(0, 0), (0, 1)], None], [0, 0])
    sc = s.platform_score(0)
    assert sc.as_dict() == {"symbols": 7, "edges": 0, "standing": 2, "removed_tiles": 1, "missing_colours": 2,
                            "total": -3}


def test_edge_counts_by_primary_colour_only(kit):
    """An edge tile is an area of its primary colour; its second colour makes no colour present."""
    game = kit.Game(2)
    take = kit.picker(game)
    plat = {(0, 0): [kit.C.START_TILE_BASE], (0, 1): [(take("green", "edge", "red"), 0)]}
    s = _finished(kit, game, [plat, None], [[(0, 0), (0, 1)], None], [0, 0])
    sc = s.platform_score(0)
    assert sc.area_count == [1, 0, 1, 0, 0] and sc.missing == 3 and sc.edges == 0


def test_own_colour_areas_option(kit):
    """Own colour: two areas kept [R]; the seed's reading (own_colour_areas=1) keeps one."""
    def build(**options):
        game = kit.Game(2, **options)
        take = kit.picker(game)
        plat = {(0, 0): [kit.C.START_TILE_BASE], (0, 1): [take("red", "sym1")], (0, 2): [take("blue", "sym3")]}
        return _finished(kit, game, [plat, None], [[(0, 0), (0, 1)], None], [0, 0]).platform_score(0)

    assert build().removed_tiles == 0 and build().symbols == 5
    one = build(own_colour_areas=1)
    assert one.removed_tiles == 1 and one.symbols == 4  # keeps the 3-symbol blue tile, drops the start tile


def test_brute_force_matches_optimised_choice(kit):
    """§11.1 item 10: exhaustive enumeration of kept areas agrees with the pruned search."""
    rng = np.random.default_rng(11)
    n = 0
    for options in ({}, {"own_colour_areas": 1}, {"edge_bonus_layers": "any"}):
        game = kit.Game(3, **options)
        for seed in range(6):
            s = game.new_state(seed)
            while not s.is_terminal():
                legal = s.legal_actions()
                s.apply(legal[rng.integers(len(legal))])
                if rng.random() < 0.15:
                    p = int(rng.integers(3))
                    a = score_platform(game, s.platforms[p], game.player_colours[p], s.standing(p))
                    b = score_platform(game, s.platforms[p], game.player_colours[p], s.standing(p), exhaustive=True)
                    assert a.total == b.total
                    n += 1
    assert n > 100


@pytest.mark.parametrize("options", [{}, {"own_colour_areas": 1}, {"edge_bonus_layers": "any"},
                                     {"colour_presence_layers": "any"}])
def test_fast_path_equals_general_search_on_random_positions(options):
    """The fast routes of the keep choice (best areas per colour, edges folded into fixed areas, the
    pruned search) give the totals of the general search over every combination; without any edge
    bonus they keep the very same areas (first in canonical order on ties)."""
    game = KeralaGame(3, **options)
    rng = np.random.default_rng(len(options) + 7)
    compared = 0
    for _ in range(12):
        s = game.new_state(int(rng.integers(2**31)))
        while not s.is_terminal():
            p = int(rng.integers(3))
            areas = s.platform_areas(p)
            a = score_platform(game, s.platforms[p], p, s.standing(p), areas=areas)
            b = score_platform(game, s.platforms[p], p, s.standing(p), exhaustive=True)
            assert (a.total, a.area_count) == (b.total, b.area_count)
            if not areas.edge_cells:
                assert (a.kept, a.symbols, a.removed_tiles, a.missing) == (b.kept, b.symbols, b.removed_tiles,
                                                                           b.missing)
            compared += 1
            legal = s.legal_actions()
            s.apply(legal[rng.integers(len(legal))])
    assert compared > 800

# -- §10 winners ---------------------------------------------------------------------------------------------------


def test_shared_win(kit):
    game = kit.Game(3)
    s = _finished(kit, game, [None, None, None], None, [0, 0, 1])  # player 2 passed once: one point less
    assert s.scores()[0] == s.scores()[1] > s.scores()[2]
    assert s.winners() == [0, 1]
    assert list(s.returns("win")) == [0.5, 0.5, -1.0]


def test_tiebreak_option(kit):
    """tiebreak=removed_then_standing (experiments only): fewer removed tiles, then more standing elephants."""
    game = kit.Game(2, tiebreak="removed_then_standing")
    take = kit.picker(game)
    # equal totals (-5): player 0 removes nothing, player 1 removes one of two red areas
    p0 = {(0, 0): [kit.C.START_TILE_BASE], (0, 1): [take("red", "sym1")], (0, 2): [take("purple", "sym1")]}
    p1 = {(0, 0): [kit.C.START_TILE_BASE + 1], (0, 1): [take("red", "sym1")], (0, 2): [take("purple", "sym3")],
          (0, 3): [take("red", "sym1")]}
    s = _finished(kit, game, [p0, p1], [[(0, 0), (0, 1)], [(0, 0), (0, 1)]], [0, 0])
    a, b = s.platform_score(0), s.platform_score(1)
    assert a.total == b.total and a.removed_tiles < b.removed_tiles
    assert s.winners() == [0]
    shared = _finished(kit, kit.Game(2), [p0, p1], [[(0, 0), (0, 1)], [(0, 0), (0, 1)]], [0, 0])
    assert shared.winners() == [0, 1]
