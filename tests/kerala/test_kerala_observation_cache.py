"""The observation is assembled from caches carried across moves (areas refilled around changed
cells, platform planes patched per changed cell, unseen counts kept until the next draw).  These
tests check that what the caches produce equals an observation written from scratch, straight
from the layout documented in observation.py, over many random positions, and after from_json,
clone and determinize, in both layouts (with and without the derived features)."""

from __future__ import annotations

import numpy as np
import pytest

from meeplezoo.envs.kerala import components as C
from meeplezoo.envs.kerala.actions import PICK_IDS
from meeplezoo.envs.kerala.observation import OFFER_FEATURES
from meeplezoo.envs.kerala.state import KeralaGame, KeralaState, build_areas, score_platform


def _legal_cells(state: KeralaState) -> set[int]:
    """Window cells named by the legal actions, decoded from the action codes."""
    g = state.game
    codec = g.codec
    p = state.current_player
    cells = set()
    for a in state.legal_actions():
        if state.phase == C.PHASE_PICK and a < PICK_IDS:
            e, d = (a >> 4) & 1, (a >> 2) & 3
            cells.add(g.pad_to_cell[state.elephants[p][e] + g.delta[d]])
        elif state.phase == C.PHASE_MOVE_ELEPHANT and a != codec.skip:
            cells.add((a - codec.move_elephant_base) % g.num_cells)
        elif state.phase == C.PHASE_MOVE_TILE_SRC and a != codec.skip:
            cells.add(a - codec.src_base)
        elif state.phase == C.PHASE_MOVE_TILE_DST:
            cells.add(a - codec.dst_base)
    return cells


def reference_observation(state: KeralaState, player: int) -> np.ndarray:
    """Player ``player``'s observation computed cell by cell from the engine's public fields."""
    g = state.game
    derived = g.options["derived_features"]
    planes_per_platform = 23 if derived else 21
    lay = g.observation_layout
    n = g.num_players
    ncell = g.num_cells
    out = np.zeros(g.observation_shape, dtype=np.float32)
    for i in range(n):
        p = (player + i) % n
        planes = out[lay[f"platform_{i}"]].reshape(planes_per_platform, ncell)
        sc = score_platform(g, state.platforms[p], g.player_colours[p], state.standing(p))  # from scratch
        kept = sc.kept_cells()
        for cell, st in state.platforms[p].items():
            c = g.pad_to_cell[cell]
            code = st[-1]
            t = code >> 2
            planes[g.tile_colour[t], c] = 1.0
            planes[5, c] = 1.0
            planes[6, c] = g.tile_symbols[t] / 3.0
            if g.tile_second[t] >= 0:
                planes[7 + (code & 3), c] = 1.0
                planes[11 + g.tile_second[t], c] = 1.0
            elif g.tile_kind[t] in (C.KIND_MOVE_ELEPHANT, C.KIND_MOVE_TILE):
                planes[16, c] = 1.0
            planes[17, c] = min(len(st) / 8.0, 1.0)
            planes[19, c] = float(g.tile_colour[t] == g.player_colours[p])
            if derived:
                planes[21, c] = float(cell in kept)
                area_tiles = sum(len(state.platforms[p][x]) for x in sc.info[sc.area_of[cell]][1])
                planes[22, c] = min(area_tiles / 10.0, 1.0)
        for e in state.elephants[p]:
            planes[18, g.pad_to_cell[e]] = 1.0
        if i == 0 and state.current_player == player:
            for c in _legal_cells(state):
                planes[20, c] = 1.0
        f = out[lay[f"player_{i}"]]
        assert f.size == (19 if derived else 9)
        f[g.player_colours[p]] = 1.0
        f[5] = state.passes[p] / 2.0
        f[6] = state.standing(p) / 2.0
        f[7] = min(len(state.platforms[p]) / 41.0, 1.0)
        f[8] = min(sum(len(st) for st in state.platforms[p].values()) / 41.0, 1.0)
        if derived:
            for col in range(C.NUM_COLOURS):
                f[9 + col] = min(sc.area_count[col] / 5.0, 1.0)
            f[14] = min(sc.symbols / 60.0, 1.0)
            f[15] = min(sc.edges / 10.0, 1.0)
            f[16] = min(sc.removed_tiles / 40.0, 1.0)
            f[17] = sc.missing / 5.0
            f[18] = min(max((sc.total + 40) / 100.0, 0.0), 1.0)
    if state.move_tile_cell >= 0:
        out[lay["pending_cell"].start + g.pad_to_cell[state.move_tile_cell]] = 1.0
    offer = out[lay["offer"]].reshape(5, OFFER_FEATURES)
    for slot, t in enumerate(state.offer):
        offer[slot, 0] = 1.0
        offer[slot, 1 + g.tile_colour[t]] = 1.0
        offer[slot, 6 + g.tile_kind[t]] = 1.0
        if g.tile_second[t] >= 0:
            offer[slot, 13 + g.tile_second[t]] = 1.0
    unseen = np.zeros(C.NUM_TILE_TYPES)
    for t in state.bag + state.setup_removed:
        unseen[g.tile_type[t]] += 1
    out[lay["unseen"]] = unseen / 8.0
    out[lay["colours_in_play"]][list(g.player_colours)] = 1.0
    gl = out[lay["globals"]]
    gl[0] = len(state.bag) / 100.0
    gl[1] = min(state.rounds_played / g.total_rounds, 1.0)
    gl[2 + (state.start_seat - player) % n] = 1.0
    gl[7 + (player - state.start_seat) % n] = 1.0
    if state.current_player >= 0:
        gl[12 + (state.current_player - player) % n] = 1.0
        gl[17 + state.phase] = 1.0
    gl[22 + n - 2] = 1.0
    if g.options["elephant_view"]:
        own = out[lay["platform_0"]].reshape(planes_per_platform, g.side, g.side)
        view = out[lay["elephant_view"]].reshape(2, planes_per_platform, 5, 5)
        for e, cell in enumerate(state.elephants[player]):
            r0, c0 = divmod(g.pad_to_cell[cell], g.side)
            for dr in range(-2, 3):
                for dc in range(-2, 3):
                    if 0 <= r0 + dr < g.side and 0 <= c0 + dc < g.side:
                        view[e, :, dr + 2, dc + 2] = own[:, r0 + dr, c0 + dc]
    return out


CONFIGS = [(2, {}), (3, {"own_colour_areas": 1}), (4, {"edge_bonus_layers": "any", "pass_mode": "discard_chosen"}),
           (5, {"move_tile_dest_rule": "platform_adjacent"}), (2, {"colour_presence_layers": "any"}),
           (3, {"keep_choice": "greedy", "hole_definition": "four_sided_cell"})]
# the derived features under every scoring variant (the default layout has none to vary)
CONFIGS += [(n, {**options, "derived_features": True}) for n, options in CONFIGS]
# the elephant view in both layouts
CONFIGS += [(2, {"elephant_view": True}), (3, {"derived_features": True, "elephant_view": True})]


@pytest.mark.parametrize("n,options", CONFIGS)
def test_cached_observation_equals_reference(n, options):
    """Every few moves, every seat's observation equals the reference, while the state carries its
    caches along; midway the game continues on a clone, a from_json copy or a determinization."""
    game = KeralaGame(n, **options)
    rng = np.random.default_rng(n * 7 + len(options))
    positions = 0
    for g_i in range(4):
        s = game.new_state(int(rng.integers(2**31)))
        step = 0
        while not s.is_terminal():
            if rng.random() < 0.3:
                for p in range(n):
                    np.testing.assert_array_equal(s.observe(p), reference_observation(s, p))
                positions += 1
            if step % 37 == 36:  # switch to another copy of the position, caches and all
                kind = (g_i + step) % 3
                if kind == 0:
                    s = s.clone()
                elif kind == 1:
                    s = KeralaState.from_json(s.to_json())
                else:
                    s = s.determinize(s.current_player, int(rng.integers(2**31)))
            legal = s.legal_actions()
            s.apply(legal[rng.integers(len(legal))])
            step += 1
        for p in range(n):
            np.testing.assert_array_equal(s.observe(p), reference_observation(s, p))
    assert positions > 50


@pytest.mark.parametrize("games", [pytest.param(60, id="60games"),
                                   pytest.param(300, id="300games", marks=pytest.mark.slow)])
def test_cached_observation_equals_fresh_state(games):
    """Observations read from the carried caches equal those of a fresh copy rebuilt from JSON
    (no caches at all), and the carried areas equal areas built from scratch."""
    rng = np.random.default_rng(11 + games)
    configs = {n: KeralaGame(n, derived_features=n in (3, 5)) for n in (2, 3, 4, 5)}  # both layouts
    checked = 0
    for g_i in range(games):
        game = configs[2 + g_i % 4]
        n = game.num_players
        s = game.new_state(int(rng.integers(2**31)))
        while not s.is_terminal():
            if rng.random() < 0.08:
                p = int(rng.integers(n))
                fresh = KeralaState.from_json(s.to_json())
                assert np.array_equal(s.observe(p), fresh.observe(p))
                for q in range(n):
                    carried = s.platform_areas(q)
                    rebuilt = build_areas(game, s.platforms[q])
                    assert carried.area_of == rebuilt.area_of and carried.info == rebuilt.info
                    assert carried.edge_cells == rebuilt.edge_cells
                    assert s.platform_score(q).kept == fresh.platform_score(q).kept
                checked += 1
            if rng.random() < 0.02:
                s = s.clone()
            legal = s.legal_actions()
            s.apply(legal[rng.integers(len(legal))])
    assert checked > games * 3


@pytest.mark.parametrize("derived", [False, True])
def test_clone_keeps_its_own_caches(derived):
    """A clone shares the caches read-only: moves on the clone leave the original's observation alone."""
    game = KeralaGame(3, derived_features=derived)
    rng = np.random.default_rng(5)
    s = game.new_state(4)
    for _ in range(40):
        legal = s.legal_actions()
        s.apply(legal[rng.integers(len(legal))])
    before = [s.observe(p) for p in range(3)]
    c = s.clone()
    for _ in range(25):
        legal = c.legal_actions()
        c.apply(legal[rng.integers(len(legal))])
        c.observe(c.current_player if c.current_player >= 0 else 0)
    for p in range(3):
        assert np.array_equal(s.observe(p), before[p])
        assert np.array_equal(s.observe(p), reference_observation(s, p))
        assert np.array_equal(c.observe(p), reference_observation(c, p))


@pytest.mark.parametrize("derived", [False, True])
def test_hand_edit_then_refresh_rebuilds_observation(kit, derived):
    """After a test edits a platform by hand, refresh() drops every carried cache."""
    game = kit.Game(2, derived_features=derived)
    s = game.new_state(1)
    s.observe(0)
    tile = s.bag.pop()
    s.platforms[0][game.cell_of(0, 1)] = (tile * 4,)
    s.elephants[0] = [game.cell_of(0, 1), game.start_cell]
    s.refresh()
    for p in range(2):
        assert np.array_equal(s.observe(p), reference_observation(s, p))


def test_move_tile_sources_agree_with_full_pairs():
    """The lapse check and the source list stop at each source's first destination; they must name
    exactly the sources of the full pair list, and the destination list of the chosen source must
    be the full one."""
    rng = np.random.default_rng(3)
    seen = 0
    for n in (2, 3):
        game = KeralaGame(n)
        for _ in range(30):
            s = game.new_state(int(rng.integers(2**31)))
            while not s.is_terminal():
                if s.phase == C.PHASE_MOVE_TILE_SRC:
                    full = s._compute_move_tile_pairs(s.current_player)
                    first = s.move_tile_sources()
                    assert list(first) == list(full)
                    assert all(first[x] == full[x][:1] for x in full)
                    seen += 1
                if s.phase == C.PHASE_MOVE_TILE_DST:
                    full = s._compute_move_tile_pairs(s.current_player)
                    assert _legal_cells(s) == {game.pad_to_cell[q] for q in full[s.move_tile_cell]}
                legal = s.legal_actions()
                s.apply(legal[rng.integers(len(legal))])
    assert seen > 10


def test_observation_json_round_trip_mid_turn():
    """A saved move-tile decision reloads with the same observation (pending cell, legal cells)."""
    rng = np.random.default_rng(8)
    game = KeralaGame(2)
    found = 0
    for _ in range(40):
        s = game.new_state(int(rng.integers(2**31)))
        while not s.is_terminal():
            if s.phase in (C.PHASE_MOVE_TILE_DST, C.PHASE_MOVE_TILE_ROT, C.PHASE_MOVE_ELEPHANT):
                t = KeralaState.from_json(s.to_json())
                for p in range(2):
                    assert np.array_equal(s.observe(p), t.observe(p))
                    assert np.array_equal(t.observe(p), reference_observation(t, p))
                found += 1
            legal = s.legal_actions()
            s.apply(legal[rng.integers(len(legal))])
    assert found > 5


def test_elephant_view_hand_made_position(kit):
    """A hand-made position on a radius-3 window: tiles at (0,0) (start) to (0,3) and (1,3),
    elephant 0 on (0,1) (the smaller cell), elephant 1 on (0,3) at the window's east edge.  The view
    centres each elephant, shows its neighbours at fixed offsets (row, then column, -2..2), is zero
    beyond the window, and leaves the rest of the observation as it is without the option."""
    game = kit.Game(2, elephant_view=True, board_radius=3)
    plain = kit.Game(2, board_radius=3)
    take = kit.picker(game)
    plat = {(0, 0): [100], (0, 1): [take("purple", "sym1")], (0, 2): [take("green", "sym1")],
            (0, 3): [take("purple", "sym2")], (1, 3): [take("red", "sym1")]}
    offer = [take("blue", "sym1"), take("black", "sym1")]
    states = [kit.State.from_position(g, platforms=[plat, None], elephants=[[(0, 3), (0, 1)], None], offer=offer)
              for g in (game, plain)]
    o = states[0].observe(0)
    lay = game.observation_layout
    np.testing.assert_array_equal(o[:lay["elephant_view"].start], states[1].observe(0))
    np.testing.assert_array_equal(o, reference_observation(states[0], 0))
    view = o[lay["elephant_view"]].reshape(2, 21, 5, 5)
    empty = [0, 0, 0, 0, 0]
    np.testing.assert_array_equal(view[0, 5], [empty, empty, [0, 1, 1, 1, 1], [0, 0, 0, 0, 1], empty])
    np.testing.assert_array_equal(view[1, 5], [empty, empty, [1, 1, 1, 0, 0], [0, 0, 1, 0, 0], empty])
    assert view[0, 18, 2, 2] == view[0, 18, 2, 4] == view[1, 18, 2, 0] == view[1, 18, 2, 2] == 1.0
    # the tile colours at fixed places: green east of elephant 0, purple under it, and west of it
    # the start tile of player 0's own colour (blue)
    assert view[0, 2, 2, 3] == view[0, 3, 2, 2] == view[0, 0, 2, 1] == view[0, 19, 2, 1] == 1.0
    assert view[0, 19, 2, 2] == 0.0
    # placement targets (legal plane): north and south of elephant 0
    assert view[0, 20, 1, 2] == view[0, 20, 3, 2] == 1.0
    assert view[1, :, :, 3:].sum() == 0.0  # east of the window's edge: nothing


def test_pick_action_features_read_the_tile_and_the_cells_the_pick_names(kit):
    """With the elephant view the game declares what each pick reads (a network's action head): the
    offered tile of its slot and the 3x3 cells around its target, from its elephant's view; checked on
    the hand-made position above and on every legal pick of random positions (its target is a legal cell)."""
    from meeplezoo.envs.core.observation import ActionFactor, ActionFeatures
    from meeplezoo.envs.kerala.actions import ActionCodec

    game = kit.Game(2, elephant_view=True, board_radius=3)
    assert kit.Game(2, board_radius=3).observation_spec.action_features is None
    take = kit.picker(game)
    plat = {(0, 0): [100], (0, 1): [take("purple", "sym1")], (0, 2): [take("green", "sym1")],
            (0, 3): [take("purple", "sym2")], (1, 3): [take("red", "sym1")]}
    offer = [take("blue", "sym1"), take("black", "sym1")]
    st = kit.State.from_position(game, platforms=[plat, None], elephants=[[(0, 3), (0, 1)], None], offer=offer)
    af = game.observation_spec.action_features
    assert [f.name for f in af.factors] == ["tile", "target", "orientation", "direction"]
    np.testing.assert_array_equal(af.actions, np.arange(PICK_IDS))
    fac = {f.name: f for f in af.factors}
    o = st.observe(0)
    lay = game.observation_layout
    view = o[lay["elephant_view"]].reshape(2, 21, 5, 5)
    codec = ActionCodec(3, False)
    a = codec.pick(1, 0, 2)  # the black tile, south of elephant 0
    assert st.legal_mask()[a]
    tile = o[fac["tile"].gather[fac["tile"].index[a]]]
    np.testing.assert_array_equal(tile, o[lay["offer"]].reshape(5, OFFER_FEATURES)[1])
    assert tile[1 + C.COLOURS.index("black")] == 1.0
    target = o[fac["target"].gather[fac["target"].index[a]]].reshape(21, 3, 3)
    np.testing.assert_array_equal(target, view[0, :, 2:5, 1:4])  # centred on the cell south of the elephant
    assert target[20, 1, 1] == 1.0 and target[18, 0, 1] == 1.0  # a placement target; the elephant to its north
    assert fac["orientation"].index[a] == 0 and fac["direction"].index[a] == 2
    assert fac["orientation"].index[codec.pick(1, 0, 2, 3)] == 3
    # every legal pick of random positions names a legal cell as its target's centre
    for seed in range(3):
        s = game.new_state(seed)
        rng = np.random.default_rng(seed)
        while not s.is_terminal():
            mask = s.legal_mask()
            o = s.observe(s.current_player)
            for a in np.flatnonzero(mask[:PICK_IDS]):
                cells = o[fac["target"].gather[fac["target"].index[a]]].reshape(21, 9)
                assert cells[20, 4] == 1.0
                assert o[fac["tile"].gather[fac["tile"].index[a]]][0] == 1.0  # the slot holds a tile
            s.apply(int(rng.choice(np.flatnonzero(mask))))
    with pytest.raises(ValueError, match="index must give an item"):
        ActionFeatures(np.arange(3), (ActionFactor("x", 2, np.array([0, 1, 2])),)).validate(10, 5)
    with pytest.raises(ValueError, match="gather must be"):
        ActionFeatures(np.arange(2), (ActionFactor("x", 2, np.array([0, 1]), np.array([[0], [10]])),)).validate(10, 5)
    with pytest.raises(ValueError, match="distinct ids"):
        ActionFeatures(np.array([0, 0]), (ActionFactor("x", 1, np.array([0, 0])),)).validate(10, 5)
