"""Kerala observation encoder (rules file §13.5, adapted).

The observation of player ``p`` is a flat float32 vector of named blocks
(``game.observation_layout``); everything in Kerala is public, so it holds the
whole position seen from ``p``: seats are ordered ``p, p+1, ...`` (egocentric).

Blocks (``N`` players, ``G = S*S`` window cells, ``CP = 23`` planes per platform):

``platform_i`` (i = 0..N-1, relative seat), ``CP x G``, plane-major:

====  =========================================================================
0-4   top tile colour one-hot (blue, black, green, purple, red)
5     occupied
6     stack height / 8 (clipped): a removed stack costs -2 per tile
7     elephant symbols on the top tile / 3
8-11  colored edge of the top tile facing N / E / S / W (edge tiles only)
12-16 second colour of the top edge tile, one-hot
17    top tile is an action tile (already used; informational)
18    an elephant stands or lies here
19    top colour is this platform owner's colour
20    the cell belongs to an area kept by the §9 choice on the current platform
21    tiles (all layers) in the cell's area / 10 (clipped)
22    a cell the current decision may name (placement targets, move-elephant
      targets, move-tile sources / destinations); only on the acting player's
      own platform, and only in that player's observation
====  =========================================================================

``pending_cell`` (G): the stack chosen as move-tile source (or just moved).
``player_i`` (19 each): own colour one-hot (5), passes used / 2, standing
elephants / 2, areas per colour / 5 (5), provisional score parts (symbols / 60,
edges / 10, removed tiles / 40, missing colours / 5, (total + 40) / 100 clipped),
positions / 41, tiles / 41.
``offer`` (5 slots x 18): present, colour (5), kind (7: sym0-3, edge,
move-elephant, move-tile), second colour (5); slots in canonical order.
``unseen`` (50): per tile type, tiles not yet seen (in the bag or removed at
setup) / 8.  ``colours_in_play`` (5): which colours belong to a player (their
unseen tiles are surely in the bag, §13.1).
``globals`` (26): bag size / 100, round / rounds, start seat relative to ``p``
(5), ``p``'s position in this round's turn order (5), acting seat relative to
``p`` (5), phase one-hot (5), player count one-hot (4).

Departures from the proposal of §13.5, for speed and size: one block per
seat actually playing (no zero-padding to five seats; the shape depends on
the player count), no hole plane (the move-tile phases mark their legal cells
in plane 22), unseen counts per type instead of the U_own / U_other split.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..core.game import Layout
from . import components as C

if TYPE_CHECKING:
    from .state import KeralaGame, KeralaState

PLANES = 23
PLAYER_FEATURES = 19
OFFER_FEATURES = 18
GLOBAL_FEATURES = 26
PLANE_LEGAL = 22


def build_layout(game: KeralaGame) -> dict[str, slice]:
    lay = Layout()
    g = game.side * game.side
    for i in range(game.num_players):
        lay.add(f"platform_{i}", PLANES * g)
    lay.add("pending_cell", g)
    for i in range(game.num_players):
        lay.add(f"player_{i}", PLAYER_FEATURES)
    lay.add("offer", 5 * OFFER_FEATURES)
    lay.add("unseen", C.NUM_TILE_TYPES)
    lay.add("colours_in_play", C.NUM_COLOURS)
    lay.add("globals", GLOBAL_FEATURES)
    return lay.slices


def platform_planes(state: KeralaState, player: int) -> np.ndarray:
    """The cached planes 0-21 of one platform (rebuilt only after that platform changed)."""
    enc = state._enc[player]
    if enc is not None:
        return enc
    g = state.game
    ncell = g.num_cells
    enc = np.zeros((PLANES, ncell), dtype=np.float32)
    flat = enc.reshape(-1)
    p2c = g.pad_to_cell
    code_colour, code_symbols, code_edge = g.code_colour, g.code_symbols, g.code_edge_target
    kind = g.tile_kind
    own = g.player_colours[player]
    score = state.platform_score(player)
    kept = score.kept
    area_of = score.area_of
    area_tiles = [0] * len(score.areas)
    stacks = state.stacks[player]
    for a, (_colour, cells) in enumerate(score.areas):
        area_tiles[a] = sum(len(stacks[x]) for x in cells)
    ones: list[int] = []
    vidx: list[int] = []
    vals: list[float] = []
    for x, st in stacks.items():
        c = p2c[x]
        code = st[-1]
        col = code_colour[code]
        ones.append(col * ncell + c)
        ones.append(5 * ncell + c)
        vidx.append(6 * ncell + c)
        vals.append(min(len(st) / 8.0, 1.0))
        if code_symbols[code]:
            vidx.append(7 * ncell + c)
            vals.append(code_symbols[code] / 3.0)
        second = code_edge[code]
        if second >= 0:
            ones.append((8 + (code & 3)) * ncell + c)
            ones.append((12 + second) * ncell + c)
        elif kind[code >> 2] in (C.KIND_MOVE_ELEPHANT, C.KIND_MOVE_TILE):
            ones.append(17 * ncell + c)
        if col == own:
            ones.append(19 * ncell + c)
        a = area_of[x]
        if a in kept:
            ones.append(20 * ncell + c)
        vidx.append(21 * ncell + c)
        vals.append(min(area_tiles[a] / 10.0, 1.0))
    for x in set(state.elephants[player]):
        ones.append(18 * ncell + p2c[x])
    flat[ones] = 1.0
    flat[vidx] = vals
    state._enc[player] = enc
    return enc


def legal_cells(state: KeralaState) -> list[int]:
    """Window cells the current decision can name (plane 22 of the acting player)."""
    g = state.game
    p2c = g.pad_to_cell
    p = state.current_player
    phase = state.phase
    if phase == C.PHASE_PICK:
        return [p2c[q] for _e, _d, q in state.placement_targets(p)]
    if phase == C.PHASE_MOVE_ELEPHANT:
        els = state.elephants[p]
        return [p2c[x] for x in state.stacks[p] if x not in els]
    if phase == C.PHASE_MOVE_TILE_SRC:
        return [p2c[x] for x in state.move_tile_pairs()]
    if phase == C.PHASE_MOVE_TILE_DST:
        return [p2c[x] for x in state.move_tile_pairs()[state.pending]]
    return []


def player_features(state: KeralaState, player: int) -> list[float]:
    g = state.game
    sc = state.platform_score(player)
    feats = [0.0] * PLAYER_FEATURES
    feats[g.player_colours[player]] = 1.0
    feats[5] = state.passes[player] / 2.0
    feats[6] = state.standing(player) / 2.0
    for c in range(C.NUM_COLOURS):
        feats[7 + c] = min(sc.area_count[c] / 5.0, 1.0)
    feats[12] = min(sc.symbols / 60.0, 1.0)
    feats[13] = min(sc.edges / 10.0, 1.0)
    feats[14] = min(sc.removed_tiles / 40.0, 1.0)
    feats[15] = sc.missing / 5.0
    feats[16] = min(max((sc.total + 40) / 100.0, 0.0), 1.0)
    stacks = state.stacks[player]
    feats[17] = min(len(stacks) / 41.0, 1.0)
    feats[18] = min(sum(len(st) for st in stacks.values()) / 41.0, 1.0)
    return feats


def encode(state: KeralaState, player: int) -> np.ndarray:
    """Player ``player``'s observation (a fresh float32 array)."""
    g = state.game
    lay = g.observation_layout
    n = g.num_players
    out = np.zeros(g.observation_shape, dtype=np.float32)
    ncell = g.num_cells
    acting = state.current_player
    for i in range(n):
        p = (player + i) % n
        sl = lay[f"platform_{i}"]
        out[sl] = platform_planes(state, p).reshape(-1)
        if p == acting and p == player:
            cells = legal_cells(state)
            if cells:
                out[sl.start + PLANE_LEGAL * ncell + np.asarray(cells)] = 1.0
    if state.pending >= 0:
        out[lay["pending_cell"].start + g.pad_to_cell[state.pending]] = 1.0
    for i in range(n):
        out[lay[f"player_{i}"]] = player_features(state, (player + i) % n)
    offer = [0.0] * (5 * OFFER_FEATURES)
    for slot, t in enumerate(state.offer):
        base = slot * OFFER_FEATURES
        offer[base] = 1.0
        offer[base + 1 + g.tile_colour[t]] = 1.0
        offer[base + 6 + g.tile_kind[t]] = 1.0
        if g.tile_second[t] >= 0:
            offer[base + 13 + g.tile_second[t]] = 1.0
    out[lay["offer"]] = offer
    out[lay["unseen"]] = [u / 8.0 for u in state.unseen]
    cip = lay["colours_in_play"].start
    for c in g.player_colours:
        out[cip + c] = 1.0
    glob = [0.0] * GLOBAL_FEATURES
    glob[0] = len(state.bag) / 100.0
    glob[1] = min(state.round / g.total_rounds, 1.0)
    glob[2 + (state.start_seat - player) % n] = 1.0
    glob[7 + (player - state.start_seat) % n] = 1.0
    if acting >= 0:
        glob[12 + (acting - player) % n] = 1.0
        glob[17 + state.phase] = 1.0
    glob[22 + n - 2] = 1.0
    out[lay["globals"]] = glob
    return out
