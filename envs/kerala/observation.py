"""Kerala observation encoder (rules file §13.5, adapted).

The observation of player ``p`` is a flat float32 vector of named blocks
(``game.observation_layout``); everything in Kerala is public, so it holds the
whole position seen from ``p``: seats are ordered ``p, p+1, ...`` (egocentric).

Blocks (``N`` players, ``G = S*S`` window cells, ``CP = 23`` planes per platform):

``platform_i`` (i = 0..N-1, relative seat), ``CP x G``, plane-major:

====  =========================================================================
0-4   top tile colour one-hot (blue, black, green, purple, red)
5     occupied
6     elephant symbols on the top tile / 3
7-10  colored edge of the top tile facing N / E / S / W (edge tiles only)
11-15 second colour of the top edge tile, one-hot
16    top tile is an action tile (already used; informational)
17    stack height / 8 (clipped): a removed stack costs -2 per tile
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
STATIC_PLANES = 17  # planes 0-16 depend on the top tile alone
DYNAMIC_PLANES = np.array([[17], [20], [21]])  # height, kept area, area size (column: broadcasts over cells)


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


def code_features(game: KeralaGame) -> np.ndarray:
    """Planes 0-16 of a cell as a function of its top tile code (a lookup table per game)."""
    table = getattr(game, "_kerala_code_features", None)
    if table is None:
        ncodes = len(game.code_colour)
        table = np.zeros((ncodes, STATIC_PLANES), dtype=np.float32)
        for code in range(ncodes):
            t = code >> 2
            table[code, game.tile_colour[t]] = 1.0
            table[code, 5] = 1.0
            table[code, 6] = game.tile_symbols[t] / 3.0
            if game.tile_second[t] >= 0:
                table[code, 7 + (code & 3)] = 1.0
                table[code, 11 + game.tile_second[t]] = 1.0
            elif game.tile_kind[t] in (C.KIND_MOVE_ELEPHANT, C.KIND_MOVE_TILE):
                table[code, 16] = 1.0
        game._kerala_code_features = table
    return table


def platform_block(state: KeralaState, player: int) -> tuple[np.ndarray, np.ndarray]:
    """Planes 0-21 and the features of one platform, cached until that platform changes."""
    cached = state._enc[player]
    if cached is not None:
        return cached
    g = state.game
    enc = np.zeros((PLANES, g.num_cells), dtype=np.float32)
    p2c = g.pad_to_cell
    stacks = state.stacks[player]
    cells = [p2c[x] for x in stacks]
    enc[:STATIC_PLANES, cells] = code_features(g)[[st[-1] for st in stacks.values()]].T
    score = state.platform_score(player)
    kept, area_of, area_tiles = score.kept, score.area_of, score.area_tiles
    heights = []
    dyn = []  # per cell: height / 8, kept, area tiles / 10
    for x, st in stacks.items():
        h = len(st)
        heights.append(h)
        a = area_of[x]
        dyn.append((h * 0.125 if h < 8 else 1.0, 1.0 if a in kept else 0.0,
                    area_tiles[a] * 0.1 if area_tiles[a] < 10 else 1.0))
    enc[DYNAMIC_PLANES, cells] = np.asarray(dyn, dtype=np.float32).T
    els = state.elephants[player]
    enc[18, p2c[els[0]]] = 1.0
    enc[18, p2c[els[1]]] = 1.0
    enc[19] = enc[g.player_colours[player]]
    feats = np.asarray(player_features(state, player, len(stacks), sum(heights)), dtype=np.float32)
    cached = state._enc[player] = (enc.reshape(-1), feats)
    return cached


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


def player_features(state: KeralaState, player: int, positions: int, tiles: int) -> list[float]:
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
    feats[17] = min(positions / 41.0, 1.0)
    feats[18] = min(tiles / 41.0, 1.0)
    return feats


def _tables(game: KeralaGame) -> dict:
    """Per-configuration constants of the encoder (computed once per Game)."""
    tab = getattr(game, "_kerala_obs_tables", None)
    if tab is None:
        lay = game.observation_layout
        n = game.num_players
        offer_idx = []  # per tile: positions set to 1 inside an offer slot
        for t in range(C.NUM_GAME_TILES):
            idx = [0, 1 + game.tile_colour[t], 6 + game.tile_kind[t]]
            if game.tile_second[t] >= 0:
                idx.append(13 + game.tile_second[t])
            offer_idx.append(idx)
        cip = np.zeros(C.NUM_COLOURS, dtype=np.float32)
        cip[list(game.player_colours)] = 1.0
        tab = {
            "size": game.observation_shape[0],
            "block": PLANES * game.num_cells,
            "pending": lay["pending_cell"].start,
            "players": lay["player_0"].start,
            "offer": lay["offer"].start,
            "unseen": lay["unseen"],
            "cip": lay["colours_in_play"],
            "cip_values": cip,
            "globals": lay["globals"].start,
            "offer_idx": offer_idx,
            "n": n,
        }
        game._kerala_obs_tables = tab
    return tab


def encode(state: KeralaState, player: int) -> np.ndarray:
    """Player ``player``'s observation (a fresh float32 array)."""
    g = state.game
    tab = _tables(g)
    n = tab["n"]
    out = np.zeros(tab["size"], dtype=np.float32)
    block = tab["block"]
    acting = state.current_player
    ones: list[int] = []
    pbase = tab["players"]
    for i in range(n):
        p = (player + i) % n
        planes, pf = platform_block(state, p)
        out[i * block:(i + 1) * block] = planes
        out[pbase + i * PLAYER_FEATURES:pbase + (i + 1) * PLAYER_FEATURES] = pf
    if acting == player:
        ones.extend(PLANE_LEGAL * g.num_cells + c for c in legal_cells(state))
    if state.pending >= 0:
        ones.append(tab["pending"] + g.pad_to_cell[state.pending])
    base = tab["offer"]
    offer_idx = tab["offer_idx"]
    for slot, t in enumerate(state.offer):
        b = base + slot * OFFER_FEATURES
        ones.extend(b + k for k in offer_idx[t])
    out[tab["unseen"]] = state.unseen
    out[tab["unseen"]] *= 0.125
    out[tab["cip"]] = tab["cip_values"]
    gb = tab["globals"]
    ones.append(gb + 2 + (state.start_seat - player) % n)
    ones.append(gb + 7 + (player - state.start_seat) % n)
    if acting >= 0:
        ones.append(gb + 12 + (acting - player) % n)
        ones.append(gb + 17 + state.phase)
    ones.append(gb + 22 + n - 2)
    out[ones] = 1.0
    out[gb] = len(state.bag) / 100.0
    out[gb + 1] = min(state.round / g.total_rounds, 1.0)
    return out
