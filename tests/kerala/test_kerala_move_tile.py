"""§6.2 move-tile: the fixtures of rules file §11.3, the hole options (A-21), A-09 and A-12."""

from __future__ import annotations

import numpy as np

# The fixtures check S1-S3 and D1-D4 under A-09's alternative reading, which lets every
# destination next to the platform through; the default adds the elephant condition (below).
OPEN = {"move_tile_dest_rule": "platform_adjacent"}

FIXTURE_A = [
    "M X X X X",
    "X . . . .",
    "X X X X E",
]
FIXTURE_B = [
    "M X X X",
    "X . X X",
    "X X X E",
]
FIXTURE_C = [
    "M X X",
    "X X X",
    "X X E",
]
FIXTURE_D = [
    "X . X",
    "X X X",
    "M X E",
]


def test_fixture_a_sources(kit):
    pairs = kit.pairs_at(kit.move_tile_state(FIXTURE_A, **OPEN))
    assert (0, 0) not in pairs and (2, 4) not in pairs  # S1: elephants
    for s in [(0, 1), (0, 2), (1, 0)]:
        assert s not in pairs  # S3: the pick-up splits the platform
    assert (0, 4) in pairs


def test_fixture_a_destinations(kit):
    dests = kit.pairs_at(kit.move_tile_state(FIXTURE_A, **OPEN))[(0, 4)]
    assert (3, 0) in dests
    assert (0, 0) not in dests  # D1: occupied
    assert (3, 5) not in dests  # D2: diagonal-only contact
    assert (1, 2) not in dests  # D4: one-cell hole
    assert (1, 3) not in dests  # D4: enclosed two-cell hole
    assert (1, 4) not in dests  # D4: three cells enclosed


def test_fixture_a_four_sided_hole_definition(kit):
    dests = kit.pairs_at(kit.move_tile_state(FIXTURE_A, hole_definition="four_sided_cell", **OPEN))[(0, 4)]
    assert (1, 3) in dests  # only a four-sided empty cell is a hole under this option
    assert (1, 2) not in dests  # r1c1 becomes four-sided
    assert (3, 0) in dests


def test_fixture_b_old_hole(kit):
    pairs = kit.pairs_at(kit.move_tile_state(FIXTURE_B, **OPEN))
    assert (1, 1) in pairs[(0, 3)]  # plugs the old hole
    assert (3, 0) in pairs[(0, 3)]  # the old hole may stay
    assert (3, 0) in pairs[(1, 3)]  # r1c3 opens to the outside
    assert (1, 2) not in pairs or (3, 0) not in pairs[(1, 2)]  # r1c2 would join the enclosed region


def test_fixture_b_none_after_scope(kit):
    pairs = kit.pairs_at(kit.move_tile_state(FIXTURE_B, hole_scope="none_after", **OPEN))
    assert (1, 1) in pairs[(0, 3)]
    assert (3, 0) not in pairs[(0, 3)]  # the old hole would remain


def test_fixture_c(kit):
    pairs = kit.pairs_at(kit.move_tile_state(FIXTURE_C, **OPEN))
    assert (1, 1) not in pairs  # S2: surrounded on four sides
    assert (3, 0) in pairs[(0, 2)]


def test_fixture_d(kit):
    pairs = kit.pairs_at(kit.move_tile_state(FIXTURE_D, **OPEN))
    assert (0, 1) not in pairs[(1, 1)]  # r1c1 would be left with four occupied neighbours
    assert (3, 1) in pairs[(1, 1)]
    assert (0, 1) in pairs[(0, 2)]


def test_destination_rule_elephant_adjacent_is_the_default(kit):
    """A-09: by default the moved stack goes where a regular tile could (next to one of the
    player's elephants, rules §5); the option platform_adjacent drops the elephant condition."""
    default = kit.pairs_at(kit.move_tile_state(FIXTURE_A))[(0, 4)]
    strict = kit.pairs_at(kit.move_tile_state(FIXTURE_A, move_tile_dest_rule="elephant_adjacent"))[(0, 4)]
    open_ = kit.pairs_at(kit.move_tile_state(FIXTURE_A, **OPEN))[(0, 4)]
    assert kit.Game(2).options["move_tile_dest_rule"] == "elephant_adjacent"
    assert default == strict == [(-1, 0), (0, -1), (2, 5), (3, 4)]  # next to M (r0c0) or E (r2c4)
    assert (3, 0) in open_ and (3, 0) not in default
    assert set(default) < set(open_)


def test_default_destination_fixture_d(kit):
    """Fixture D under the default: only the cells next to M (r2c0) or E (r2c2) that leave no hole."""
    pairs = kit.pairs_at(kit.move_tile_state(FIXTURE_D))
    assert pairs[(1, 1)] == [(2, -1), (2, 3), (3, 0), (3, 2)]
    assert (0, 1) not in pairs[(0, 2)]  # would plug the gap, but touches no elephant


def test_fast_rule_matches_flood_fill_reference(kit):
    """The local hole/split tests agree with flood-filling every candidate on random platforms."""
    rng = np.random.default_rng(5)
    checked = 0
    for options in ({}, OPEN):
        game = kit.Game(2, **options)
        for seed in range(12):
            s = game.new_state(seed)
            while not s.is_terminal():
                if s.phase == kit.C.PHASE_PICK:
                    p = s.current_player
                    assert s._compute_move_tile_pairs(p) == s._compute_move_tile_pairs(p, reference=True)
                    checked += 1
                legal = s.legal_actions()
                s.apply(legal[rng.integers(len(legal))])
    assert checked > 1000


def _stack_position(kit, **options):
    game = kit.Game(2, **options)
    take = kit.picker(game)
    edge = take("red", "edge", "green")
    low = [take("green", "sym1"), take("purple", "sym1")]
    plat = {
        (0, -1): low + [(edge, 0)],
        (0, 0): [kit.C.START_TILE_BASE + 0],
        (0, 1): [take("blue", "move-tile")],
        (1, 0): [take("blue", "sym1")],
    }
    return kit.State.from_position(game, platforms=[plat, None], elephants=[[(0, 1), (1, 0)], [(0, 0), (0, 0)]],
                                   phase=kit.C.PHASE_MOVE_TILE_SRC), edge, low


def test_whole_stack_moves_and_turns(kit):
    """S4 and A-12: the whole stack moves in order, nothing is uncovered, the edge may be turned."""
    state, edge, low = _stack_position(kit)
    g = state.game
    codec = g.codec
    src, dst = g.cell_of(0, -1), g.cell_of(-1, 1)  # next to the elephant on (0, 1)
    assert dst in state.move_tile_pairs()[src]
    elephants = list(state.elephants[0])
    state.apply(codec.move_tile_src(g.pad_to_cell[src]))
    assert state.phase == kit.C.PHASE_MOVE_TILE_DST
    state.apply(codec.move_tile_dst(g.pad_to_cell[dst]))
    assert state.phase == kit.C.PHASE_MOVE_TILE_ROT
    assert state.legal_actions() == [codec.move_tile_rot(o) for o in range(4)]
    state.apply(codec.move_tile_rot(2))
    stack = state.platforms[0][dst]
    assert [c >> 2 for c in stack] == low + [edge]
    assert stack[-1] & 3 == 2
    assert src not in state.platforms[0]
    assert state.elephants[0] == elephants
    assert state.current_player == 1 and state.phase == kit.C.PHASE_PICK


def test_no_rotation_option(kit):
    state, edge, _low = _stack_position(kit, move_tile_may_rotate=False)
    g = state.game
    src, dst = g.cell_of(0, -1), g.cell_of(-1, 1)  # next to the elephant on (0, 1)
    state.apply(g.codec.move_tile_src(g.pad_to_cell[src]))
    state.apply(g.codec.move_tile_dst(g.pad_to_cell[dst]))
    assert state.current_player == 1  # the turn ends without a rotation decision
    assert state.platforms[0][dst][-1] == edge * 4


def test_skip_and_lapse(kit):
    state, _edge, _low = _stack_position(kit)
    before = dict(state.platforms[0])
    state.apply(state.game.codec.skip)
    assert state.platforms[0] == before and state.current_player == 1
    # a move-tile tile placed where no stack can move: the action lapses, the turn passes on
    game = kit.Game(2)
    take = kit.picker(game)
    mt = take("blue", "move-tile")
    s = kit.State.from_position(game, offer=[mt, take("red", "sym1")])
    codec = game.codec
    s.apply(codec.pick(0 if s.offer[0] == mt else 1, 0, 1))
    assert s.current_player == 1 and s.phase == kit.C.PHASE_PICK


def test_move_tile_trigger_only_on_placement(kit):
    """§6: placing a move-tile tile starts the action; the source list excludes elephant cells."""
    game = kit.Game(2)
    take = kit.picker(game)
    mt = take("blue", "move-tile")
    plat = {(0, 0): [kit.C.START_TILE_BASE], (0, 1): [take("red", "sym1")], (0, 2): [take("red", "sym2")]}
    s = kit.State.from_position(game, platforms=[plat, None], elephants=[[(0, 0), (0, 1)], [(0, 0), (0, 0)]],
                                offer=[mt, take("green", "sym1")])
    s.apply(game.codec.pick(0, 0, 0))  # elephant 0 (on the start tile) steps north onto the move-tile tile
    assert s.phase == kit.C.PHASE_MOVE_TILE_SRC and s.current_player == 0
    sources = set(s.move_tile_pairs())
    assert set(s.elephants[0]).isdisjoint(sources)
    assert sources == {game.cell_of(0, 2)}  # the start tile would split the platform
