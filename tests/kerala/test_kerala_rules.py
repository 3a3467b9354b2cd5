"""One test (or a few) per rules section §1-§8 of the Kerala rules file, from hand-made positions."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

# -- §1 components -------------------------------------------------------------------------------------------


def test_components_default_composition(kit):
    g = kit.Game(5)
    C = kit.C
    assert len(g.tile_colour) == C.NUM_GAME_TILES + C.NUM_COLOURS
    per_colour = Counter(g.tile_colour[: C.NUM_GAME_TILES])
    assert all(per_colour[c] == 20 for c in range(5))
    for c in range(5):
        tiles = [t for t in range(100) if g.tile_colour[t] == c]
        kinds = Counter(g.tile_kind[t] for t in tiles)
        assert kinds == {C.KIND_SYM1: 8, C.KIND_SYM2: 4, C.KIND_SYM3: 2, C.KIND_EDGE: 4,
                         C.KIND_MOVE_ELEPHANT: 1, C.KIND_MOVE_TILE: 1}
        assert sum(g.tile_symbols[t] for t in tiles) == 22
        seconds = sorted(g.tile_second[t] for t in tiles if g.tile_kind[t] == C.KIND_EDGE)
        assert seconds == [x for x in range(5) if x != c]  # one edge tile per other colour
    assert all(g.tile_symbols[t] == 0 for t in range(100) if g.tile_kind[t] >= C.KIND_EDGE)


def test_components_with_blanks_option(kit):
    """A-01 alternative: blank elephant tiles (2 x sym0 per colour)."""
    g = kit.Game(2, tile_composition="with_blanks")
    kinds = Counter(g.tile_kind[t] for t in range(100) if g.tile_colour[t] == 3)
    assert kinds[kit.C.KIND_SYM0] == 2 and kinds[kit.C.KIND_SYM1] == 6
    assert sum(g.tile_symbols[t] for t in range(100) if g.tile_colour[t] == 3) == 20


def test_start_tile_symbol_option(kit):
    """§1.3: the start tile shows one scoring symbol; start_tile_symbols=0 is the check variant."""
    assert kit.Game(2).new_state(0).platform_score(0).symbols == 1
    assert kit.Game(2, start_tile_symbols=0).new_state(0).platform_score(0).symbols == 0


# -- §2 setup --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n,removed,bag,rounds", [(2, 20, 80, 40), (3, 10, 90, 30), (4, 4, 96, 24), (5, 0, 100, 20)])
def test_setup(kit, n, removed, bag, rounds):
    g = kit.Game(n)
    s = g.new_state(3)
    assert len(s.setup_removed) == removed and g.total_rounds == rounds
    assert len(s.bag) + len(s.offer) == bag and len(s.offer) == n
    assert all(g.tile_colour[t] not in g.player_colours for t in s.setup_removed)
    for p in range(n):
        assert list(s.platforms[p].values()) == [((100 + g.player_colours[p]) * 4,)]
        assert s.elephants[p] == [g.start_cell, g.start_cell]
        assert s.passes[p] == 0
    assert s.current_player == 0 and s.start_seat == 0


def test_setup_removals_are_random(kit):
    g = kit.Game(2)
    assert len({tuple(g.new_state(seed).setup_removed) for seed in range(10)}) == 10


def test_first_start_player_option(kit):
    g = kit.Game(4, first_start_player="random")
    starts = {g.new_state(seed).current_player for seed in range(40)}
    assert starts == {0, 1, 2, 3}
    assert {kit.Game(4).new_state(seed).current_player for seed in range(10)} == {0}


# -- §3 geometry ---------------------------------------------------------------------------------------------


def test_window_masks_placements_outside(kit):
    """A-20: placements that would leave the (2r+1)^2 window are illegal."""
    g = kit.Game(2, board_radius=3)
    take = kit.picker(g)
    plat = {(0, 0): [100], (-1, 0): [take("red", "sym1")], (-2, 0): [take("red", "sym1")],
            (-3, 0): [take("red", "sym1")]}
    s = kit.State.from_position(g, platforms=[plat, None], elephants=[[(-3, 0), (0, 0)], None],
                                offer=[take("green", "sym1"), take("green", "sym2")])
    targets = {(e, d) for e, d, _q in s.placement_targets(0)}
    assert (0, 0) not in targets  # north of row -3 is outside the window
    assert {(0, 1), (0, 3), (1, 1), (1, 2), (1, 3)} <= targets
    assert g.num_actions == 166 + 4 * 49 + 0  # 166 + 4G with G = 7*7


# -- §4 rounds -----------------------------------------------------------------------------------------------


def test_round_structure_and_rotation(kit):
    """Turn order from the start player clockwise; the start player rotates left each round."""
    g = kit.Game(3)
    s = g.new_state(1)
    order = []
    rng = np.random.default_rng(0)
    while s.rounds_played < 4:
        if s.phase == kit.C.PHASE_PICK:
            order.append((s.rounds_played, s.start_seat, s.current_player))
        legal = s.legal_actions()
        picks = [a for a in legal if a < 160]
        s.apply(picks[rng.integers(len(picks))] if picks else legal[0])
    seen = [(r, st, p) for r, st, p in order]
    for r in range(4):
        players = [p for rr, st, p in seen if rr == r]
        assert players == [(r + k) % 3 for k in range(3)]
        assert {st for rr, st, _p in seen if rr == r} == {r % 3}


def test_full_game_counts(kit):
    """§11.1: top-level decisions = bag size; every seat starts the same number of rounds."""
    rng = np.random.default_rng(2)
    for n in (2, 3, 4, 5):
        g = kit.Game(n)
        s = g.new_state(n)
        picks_or_passes = 0
        starts = Counter()
        last_round = -1
        while not s.is_terminal():
            if s.phase == kit.C.PHASE_PICK:
                picks_or_passes += 1
                if s.rounds_played != last_round:
                    starts[s.start_seat] += 1
                    last_round = s.rounds_played
            legal = s.legal_actions()
            s.apply(legal[rng.integers(len(legal))])
        assert picks_or_passes == 100 - g.setup_removals
        assert set(starts.values()) == {g.total_rounds // n}
        assert s.rounds_played == g.total_rounds


# -- §5 placement ------------------------------------------------------------------------------------------------


def _two_elephant_position(kit, offer_spec=(("red", "sym1"), ("green", "sym2"))):
    g = kit.Game(max(2, len(offer_spec)))
    take = kit.picker(g)
    plat = {(0, 0): [100], (0, 1): [take("purple", "sym1")], (1, 1): [take("purple", "sym2")]}
    offer = [take(*spec) for spec in offer_spec]
    s = kit.State.from_position(g, platforms=[plat] + [None] * (g.num_players - 1),
                                elephants=[[(0, 0), (1, 1)]] + [None] * (g.num_players - 1), offer=offer)
    return g, s


def test_placement_targets(kit):
    """Next to an elephant, empty or on top of any tile (start tile included), never on the other elephant."""
    g, s = _two_elephant_position(kit)
    targets = {g.pos_of(q) for _e, _d, q in s.placement_targets(0)}
    assert targets == {(-1, 0), (0, -1), (1, 0), (0, 1), (1, 2), (2, 1)}  # (1,1)/(0,0) hold elephants
    codec = g.codec
    legal = set(s.legal_actions())
    # elephant 0 is on (0,0): south (1,0) is empty -> legal; elephant 1 on (1,1): west is (1,0) too
    assert codec.pick(0, 0, 2) in legal and codec.pick(0, 1, 3) in legal
    # overbuilding: elephant 1 steps north onto the occupied (0,1)
    assert codec.pick(0, 1, 0) in legal


def test_placement_effect_and_overbuilding(kit):
    g, s = _two_elephant_position(kit)
    tile = s.offer[0]
    s.apply(g.codec.pick(0, 1, 0))  # elephant on (1,1) builds over (0,1)
    cell = g.cell_of(0, 1)
    assert len(s.platforms[0][cell]) == 2 and s.platforms[0][cell][-1] >> 2 == tile
    assert sorted(s.elephants[0]) == sorted([g.cell_of(0, 0), cell])  # the elephant walked onto the tile
    assert s.current_player == 1 and tile not in s.offer


def test_build_over_start_tile(kit):
    g = kit.Game(2)
    take = kit.picker(g)
    plat = {(0, 0): [100], (0, 1): [take("purple", "sym1")]}
    s = kit.State.from_position(g, platforms=[plat, None], elephants=[[(0, 0), (0, 1)], None],
                                offer=[take("red", "sym3"), take("red", "sym1")])
    assert g.codec.pick(0, 0, 1) not in s.legal_actions()  # onto the other elephant: illegal
    # with no elephant on the start tile, an elephant may step onto it
    s3 = kit.State.from_position(g, platforms=[{**plat, (1, 1): [take("green", "sym1")],
                                                (1, 0): [take("green", "sym2")]}, None],
                                 elephants=[[(0, 1), (1, 0)], None], offer=[take("blue", "sym2")])
    a = g.codec.pick(0, 0, 3)  # elephant on (0,1) steps west onto the start tile
    assert a in s3.legal_actions()
    s3.apply(a)
    assert len(s3.platforms[0][g.cell_of(0, 0)]) == 2
    assert s3.platform_score(0).symbols == 2 + 1 + 1 + 2  # the buried start tile no longer scores


def test_first_placement_canonical(kit):
    """At the start both elephants share the start tile: only elephant 0 ids are legal (4 directions)."""
    g = kit.Game(2)
    s = g.new_state(0)
    picks = [a for a in s.legal_actions() if a < 160]
    assert all((a >> 4) & 1 == 0 for a in picks)
    assert {(a >> 2) & 3 for a in picks} == {0, 1, 2, 3}


def test_orientation_only_for_edge_tiles_and_duplicates_masked(kit):
    g, s = _two_elephant_position(kit, (("red", "edge", "green"), ("green", "sym2"), ("green", "sym2")))
    slots = {a >> 5 for a in s.legal_actions() if a < 160}
    types = [g.tile_type[t] for t in s.offer]
    assert types == sorted(types)  # canonical order: by tile type
    dup = next(i for i in range(2) if types[i] == types[i + 1])
    assert dup in slots and dup + 1 not in slots and len(slots) == 2  # identical tiles: only the first slot
    edge_slot = next(i for i, t in enumerate(s.offer) if g.tile_kind[t] == kit.C.KIND_EDGE)
    orients = {a & 3 for a in s.legal_actions() if a < 160 and a >> 5 == edge_slot}
    plain = {a & 3 for a in s.legal_actions() if a < 160 and a >> 5 != edge_slot}
    assert orients == {0, 1, 2, 3} and plain == {0}


# -- §6.1 move-elephant ------------------------------------------------------------------------------------------


def test_move_elephant_action(kit):
    g = kit.Game(2)
    take = kit.picker(g)
    me = take("blue", "move-elephant")
    far = [take("green", "sym1") for _ in range(3)]
    plat = {(0, 0): [100], (0, 1): [far[0]], (0, 2): [far[1]], (0, 3): [far[2]]}
    s = kit.State.from_position(g, platforms=[plat, None], elephants=[[(0, 0), (0, 1)], None],
                                offer=[me, take("red", "sym1")])
    s.apply(g.codec.pick(0, 0, 0))  # elephant on (0,0) steps north onto the move-elephant tile
    assert s.phase == kit.C.PHASE_MOVE_ELEPHANT and s.current_player == 0
    codec = g.codec
    legal = set(s.legal_actions())
    targets = {(a - codec.move_elephant_base) % g.num_cells for a in legal if a != codec.skip}
    expect = {g.pad_to_cell[g.cell_of(0, 0)], g.pad_to_cell[g.cell_of(0, 2)], g.pad_to_cell[g.cell_of(0, 3)]}
    assert targets == expect  # any tile but the elephants' own (non-adjacent (0,3) included)
    assert codec.skip in legal
    # either elephant may go: elephant 0 is on (-1,0), elephant 1 on (0,1)
    a = codec.move_elephant(1, g.pad_to_cell[g.cell_of(0, 3)])
    s.apply(a)
    assert s.elephants[0] == sorted([g.cell_of(-1, 0), g.cell_of(0, 3)])
    assert s.current_player == 1


def test_move_elephant_skip_and_no_trigger_on_old_tiles(kit):
    g = kit.Game(2)
    take = kit.picker(g)
    old_mt, old_me = take("blue", "move-tile"), take("blue", "move-elephant")
    plat = {(0, 0): [100], (0, 1): [old_mt], (0, 2): [old_me]}
    me = take("black", "move-elephant")
    s = kit.State.from_position(g, platforms=[plat, None], elephants=[[(0, 0), (0, 1)], None],
                                offer=[me, take("red", "sym1")])
    s.apply(g.codec.pick(0, 0, 0))
    s.apply(g.codec.move_elephant(0, g.pad_to_cell[g.cell_of(0, 2)]))  # onto the old move-elephant tile
    assert s.current_player == 1 and s.phase == kit.C.PHASE_PICK  # no new action


def test_move_elephant_lapses_without_free_tile(kit):
    g = kit.Game(2)
    take = kit.picker(g)
    me = take("blue", "move-elephant")
    s = kit.State.from_position(g, offer=[me, take("red", "sym1")])
    s.apply(g.codec.pick(0, 0, 0))  # platform: start + the new tile, both hold an elephant
    assert s.current_player == 1 and s.phase == kit.C.PHASE_PICK


# -- §7 passing ---------------------------------------------------------------------------------------------------


def test_passing_take_nothing(kit):
    g = kit.Game(3)
    s = g.new_state(4)
    offer = list(s.offer)
    codec = g.codec
    s.apply(codec.pass_())
    assert s.passes[0] == 1 and s.standing(0) == 1
    assert s.offer == offer  # the passer takes nothing
    s.apply(next(a for a in s.legal_actions() if a < 160))
    s.apply(next(a for a in s.legal_actions() if a < 160))
    assert len(s.discards) == 1 and s.discards[0] in offer  # the leftover leaves at round end
    assert s.rounds_played == 1


def test_third_pass_illegal_and_lying_elephants_work(kit):
    g = kit.Game(2)
    take = kit.picker(g)
    s = kit.State.from_position(g, passes=[2, 0], offer=[take("red", "sym1"), take("red", "sym2")])
    legal = s.legal_actions()
    assert g.codec.pass_() not in legal
    assert any(a < 160 for a in legal)  # both elephants lie, yet they still place tiles
    s1 = kit.State.from_position(g, passes=[1, 0], offer=[take("green", "sym1"), take("green", "sym2")])
    assert g.codec.pass_() in s1.legal_actions()


def test_pass_mode_discard_chosen(kit):
    """Seed reading: the passer names an offer tile, which leaves the game at once."""
    g = kit.Game(2, pass_mode="discard_chosen")
    s = g.new_state(2)
    codec = g.codec
    assert codec.pass_ids == 5 and g.num_actions == 170 + 4 * 441
    chosen = s.offer[1]
    s.apply(codec.pass_(1))
    assert s.discards == [chosen] and chosen not in s.offer and len(s.offer) == 1
    assert s.passes[0] == 1


# -- §8 end of game ------------------------------------------------------------------------------------------------


def test_last_round_is_played_out(kit):
    g = kit.Game(2)
    take = kit.picker(g)
    last = [take("red", "sym1"), take("red", "sym2")]
    green = [t for t in range(100) if g.tile_colour[t] == 2 and t not in last]
    rest = [t for t in range(100) if t not in last and t not in green]
    # an empty bag, the final offer on the table, 20 green tiles removed at setup, the rest discarded
    s = kit.State.from_position(g, offer=last, bag=[], setup_removed=green, discards=rest, rounds_played=39,
                                start_seat=1, current_player=1)
    assert not s.is_terminal()
    s.apply(next(a for a in s.legal_actions() if a < 160))
    assert not s.is_terminal() and s.current_player == 0
    s.apply(next(a for a in s.legal_actions() if a < 160))
    assert s.is_terminal() and s.current_player == -1
    assert s.legal_mask().sum() == 0


def test_short_bag_skips_players(kit):
    """A-15: with fewer tiles than players the offer is short and players facing it empty skip."""
    g = kit.Game(3)
    take = kit.picker(g)
    one, blue = take("red", "sym1"), take("blue", "sym1")
    others = [t for t in range(100) if t not in (one, blue)]
    removed = [t for t in others if g.tile_colour[t] in (3, 4)][:10]
    discards = [t for t in others if t not in removed]
    s = kit.State.from_position(g, offer=[blue], bag=[one], setup_removed=removed, discards=discards, current_player=2,
                                start_seat=0)
    s.apply(next(a for a in s.legal_actions() if a < 160))  # the round ends; the new offer holds one tile
    assert s.offer == [one] and s.current_player == 1 and s.start_seat == 1
    s.apply(next(a for a in s.legal_actions() if a < 160))
    assert s.is_terminal()  # players 2 and 0 face an empty offer; the bag is empty
