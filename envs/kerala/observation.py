"""Kerala observation encoder (rules file §13.5, adapted).

Rules: ``docs/rules/kerala.md``.  The observation of player ``p`` is a flat float32
vector of named blocks (``game.observation_layout``, declared in :meth:`KeralaObserver.declare`,
tabled in ``docs/observations.md``); everything in Kerala is public, so it holds the
whole position seen from ``p``: seats are ordered ``p, p+1, ...`` (egocentric).

Two layouts, chosen by the game option ``derived_features``:

* ``False`` (default): the position itself.  A network reads areas and the
  scoring off the colour planes, as it reads everything else.
* ``True``: adds the derived features of §13.5 (the areas kept by the §9
  choice, area sizes, areas per colour and the provisional score parts).  They
  are exact, so every observation of a changed platform scores it as at the end
  of the game; building an observation then costs about three times as much
  (see ``benchmarks/throughput.py``).

Blocks (``N`` players, ``G = S*S`` window cells, ``CP`` planes per platform:
21, or 23 with derived features):

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
20    a cell the current decision may name (placement targets, move-elephant
      targets, move-tile sources / destinations); only on the acting player's
      own platform, and only in that player's observation
21    (derived) the cell belongs to an area kept by the §9 choice on the
      current platform
22    (derived) tiles (all layers) in the cell's area / 10 (clipped)
====  =========================================================================

``pending_cell`` (G): the stack chosen as move-tile source (or just moved).
``elephant_view`` (only with the game option ``elephant_view=True``; ``2 x CP x 5 x 5``, after
``globals``): the observer's own platform seen from each of its elephants (elephant 0 on the
smaller cell, as the actions number them): every plane, the legal plane included, of the 5x5
cells centred on the elephant, row offsets -2..2 then column offsets -2..2 (north and west
first), zero outside the window.  A pick action names its cell as (elephant, direction); in this
block that cell and its neighbours lie at fixed places, so a dense layer reads what a placement
would touch without having to find the elephant on the 21x21 board first.
``pick_afterstate`` (only with that game option; ``160 x 8``, after the elephant view): per pick action of
the acting player, what the placement does to its platform (:func:`pick_afterstates`).
``move_lookahead`` (only with that game option; ``4 x S x S``, last): at each cell a move-elephant or
move-tile decision of the acting player may name, what the move does to its platform
(:func:`move_lookaheads`); a board without a seat, read beside every seat's platform planes.
``player_i`` (9 each, 19 with derived features): own colour one-hot (5),
passes used / 2, standing elephants / 2, positions / 41, tiles / 41; derived:
areas per colour / 5 (5), provisional score parts (symbols / 60, edges / 10,
removed tiles / 40, missing colours / 5, (total + 40) / 100 clipped).
``offer`` (5 slots x 18): present, colour (5), kind (7: sym0-3, edge,
move-elephant, move-tile), second colour (5); slots in canonical order.
``unseen`` (50): per tile type, tiles not yet seen (in the bag or removed at
setup) / 8.  ``colours_in_play`` (5): which colours belong to a player (their
unseen tiles are surely in the bag, §13.1).
``globals`` (26): bag size / 100, round / rounds, start seat relative to ``p``
(5), ``p``'s position in this round's turn order (5), acting seat relative to
``p`` (5), phase one-hot (5), player count one-hot (4).

Departures from the proposal of §13.5, for speed and size: the derived
features are opt-in; one block per seat actually playing (no zero-padding to
five seats; the shape depends on the player count), no hole plane (the
move-tile phases mark their legal cells in plane 20), unseen counts per type
instead of the U_own / U_other split.  Layout version 2 (``KeralaGame.observation_version``);
version 1 had the legal plane after the derived ones and derived features always on.

How it stays cheap (an observation is built at every decision of every
environment step): :class:`KeralaObserver` keeps, per platform, the planes of
the last observation it built, and the state records what changed since
(``state.changes``: the cells of each platform change, the seats whose elephants
or passes changed, each draw).  Nothing is recomputed for an unchanged platform,
and a changed one is not rebuilt: the next observation patches a copy of the
planes at the changed cells and the elephants (with derived features also the
area planes of the areas that are new or changed their kept status; the areas
themselves, ``state.Areas``, are refilled only around the changed cells).  The
unseen counts are cached until the next draw; the per-observer parts (legal
cells, pending cell, offer, globals) are set with a single fancy assignment.
``tests/kerala/test_kerala_observation_cache.py`` checks the result against a
cell-by-cell reference in both layouts, also for an observer shown a state,
its clones and determinizations in turn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.observation import ActionFactor, ActionFeatures, Changes, ObservationSpec, Observer, details_since
from . import components as C
from . import queries as Q
from .actions import MAX_OFFER, PICK_IDS

if TYPE_CHECKING:
    from .state import KeralaGame, KeralaState, PlatformScore

BOARD_PLANES = 20  # planes 0-19: what the platform shows
PLANE_OCCUPIED = 5  # every value of a platform lies on an occupied cell or a cell the decision may name
PLANE_LEGAL = 20
PLANE_KEPT = 21  # derived features only
PLANE_AREA = 22  # derived features only
PLANES_BASE = 21
PLANES_DERIVED = 23
PLAYER_FEATURES_BASE = 9
PLAYER_FEATURES_DERIVED = 19
OFFER_FEATURES = 18
GLOBAL_FEATURES = 26
STATIC_PLANES = 17  # planes 0-16 depend on the top tile alone
# features of the globals block
G_BAG, G_ROUND, G_START_SEAT, G_ORDER, G_ACTING, G_PHASE, G_PLAYERS = 0, 1, 2, 7, 12, 17, 22
#: tiles in an area where the area-size plane saturates (it holds tiles * 0.1, at most 1)
AREA_TILES_FULL = 10
#: positions or tiles on a platform where the player features saturate (they hold count / 41, at most 1)
PLATFORM_COUNT_FULL = 41
MAX_DIRTY = 8  # more changed cells than this since the cached planes: rebuild them instead of patching
VIEW_RADIUS = 2  # the elephant view: the (2r+1)^2 cells centred on an elephant
VIEW_SIDE = 2 * VIEW_RADIUS + 1
#: features per pick action in the ``pick_afterstate`` block (:func:`pick_afterstates`)
AFTERSTATE_FEATURES = 8
#: the range every value of that block is clipped to (the change of the total is in tens of points)
AFTER_CLIP = 4.0
#: planes of the ``move_lookahead`` block (:func:`move_lookaheads`)
MOVE_PLANES = 4
#: its planes: elephant 0's and elephant 1's move to the cell, the move-tile's total and open edges
MOVE_ELEPHANT_0, MOVE_ELEPHANT_1, MOVE_TOTAL, MOVE_OPEN = 0, 1, 2, 3
MOVE_PHASES = (C.PHASE_MOVE_ELEPHANT, C.PHASE_MOVE_TILE_SRC, C.PHASE_MOVE_TILE_DST)




def num_planes(game: KeralaGame) -> int:
    """Planes per platform block: 21, or 23 with ``derived_features``."""
    return PLANES_DERIVED if game.options["derived_features"] else PLANES_BASE


def num_player_features(game: KeralaGame) -> int:
    """Features per player block: 9, or 19 with ``derived_features``."""
    return PLAYER_FEATURES_DERIVED if game.options["derived_features"] else PLAYER_FEATURES_BASE


def pick_features(spec: ObservationSpec, planes: int) -> ActionFeatures:
    """What each pick action reads (for a network's action head; needs the elephant view or the pick
    afterstates).

    A pick ``((slot*2 + elephant)*4 + direction)*4 + orientation`` (actions.py) names the offered tile of
    ``slot`` (its 18 ``offer`` features), the orientation and the direction (categories); with the elephant
    view also the cell next to ``elephant`` in ``direction`` (every plane of the 3x3 cells around it, from
    that elephant's ``elephant_view``: always inside the 5x5 view); with ``pick_afterstate`` also its own
    row of that block (what the placement does to the provisional score)."""
    lay = spec.layout
    offer = lay["offer"].start
    per = VIEW_SIDE * VIEW_SIDE
    tiles = offer + np.arange(MAX_OFFER)[:, None] * OFFER_FEATURES + np.arange(OFFER_FEATURES)
    a = np.arange(PICK_IDS)
    orient, direction, elephant, slot = a % 4, (a // 4) % 4, (a // 16) % 2, a // 32
    factors = [ActionFactor("tile", MAX_OFFER, slot, tiles.astype(np.intp))]
    if "elephant_view" in lay:
        view = lay["elephant_view"].start
        targets = []
        for e in range(2):
            for dr, dc in C.DIRECTIONS:
                r0, c0 = VIEW_RADIUS + dr, VIEW_RADIUS + dc
                cells = [(r0 + i) * VIEW_SIDE + c0 + j for i in (-1, 0, 1) for j in (-1, 0, 1)]
                targets.append(view + ((e * planes + np.arange(planes)[:, None]) * per
                                       + np.asarray(cells)).reshape(-1))
        factors.append(ActionFactor("target", 8, elephant * 4 + direction, np.asarray(targets, dtype=np.intp)))
    if "pick_afterstate" in lay:
        start = lay["pick_afterstate"].start
        rows = start + a[:, None] * AFTERSTATE_FEATURES + np.arange(AFTERSTATE_FEATURES)
        factors.append(ActionFactor("afterstate", PICK_IDS, a, rows.astype(np.intp)))
    factors += [ActionFactor("orientation", 4, orient), ActionFactor("direction", 4, direction)]
    feats = ActionFeatures(a, tuple(factors))
    feats.validate(spec.size, PICK_IDS)
    return feats


def pick_afterstates(state: KeralaState, out: np.ndarray) -> None:
    """Write into ``out`` (``PICK_IDS x AFTERSTATE_FEATURES``, zeros) what each legal pick of the player to
    act would do to its own platform, read off the platform after the placement (rules §9 applied to it, as
    at the end of the game); the rows of the other actions stay zero.

    Per pick: the changes of the provisional total / 10, of its parts (elephant symbols / 10, coloured-edge
    bonuses / 5, removed tiles / 10, missing colours), of the colored edges facing an empty cell / 2, then
    the empty cells next to the two elephants after it / 8 and the occupied neighbours of the target cell /
    4.  Every value is clipped to [-4, 4], the block's declared range (a placement that sends a 40-tile area
    to removal reads -4).  The values come from the position's one-step lookahead
    (:func:`~meeplezoo.envs.kerala.queries.pick_lookahead`), which the heuristic reads too: a search that
    uses both pays for it once per position."""
    look = Q.pick_lookahead(state)
    b = look.before
    rows: dict[Q.PickEffect, list[float]] = {}
    for a in state.legal_actions():
        if a >= PICK_IDS:
            continue
        eff = look.effect(a)
        row = rows.get(eff)
        if row is None:
            row = rows[eff] = [
                (eff.total - b.total) * 0.1, (eff.symbols - b.symbols) * 0.1, (eff.edges - b.edges) * 0.2,
                (eff.removed_tiles - b.removed_tiles) * 0.1, float(eff.missing - b.missing),
                (eff.open_edges - b.open_edges) * 0.5, eff.free * 0.125, eff.occupied * 0.25]
        out[a] = row
    np.clip(out, -AFTER_CLIP, AFTER_CLIP, out=out)


def move_lookaheads(state: KeralaState, out: np.ndarray) -> None:
    """Write into ``out`` (``MOVE_PLANES x window cells``, zeros) what each cell the move decision of the
    player to act may name would do to its platform; the other cells, and every cell outside the move-elephant
    and move-tile phases, stay zero.

    * planes 0 and 1 (move-elephant): at each cell elephant 0 (1) may move to, the change of the empty
      cells next to the two elephants / 8 (what the heuristic maximises);
    * planes 2 and 3 (move-tile): at each source (source phase) the best of its moves, at each destination
      (destination phase) the move there, as the change of the provisional total / 10 and of the coloured
      edges on top facing an empty cell / 2 (rules §9 applied after the move, the stack turned the best way
      where it may turn; the best move is the heuristic's: total plus open edges).

    Every value is clipped to [-4, 4].  The turn after a move (four dense actions) gets no values."""
    phase = state.phase
    g = state.game
    p2c = g.pad_to_cell
    p = state.current_player
    stacks = Q.platform(state, p)
    if phase == C.PHASE_MOVE_ELEPHANT:
        els = Q.elephant_cells(state, p)
        now = len(Q.free_cells_around(g, stacks, tuple(els)))
        for e in (0, 1):
            other = els[1 - e]
            row = out[MOVE_ELEPHANT_0 + e]
            for x in stacks:
                if x != els[0] and x != els[1]:
                    row[p2c[x]] = (len(Q.free_cells_around(g, stacks, (x, other))) - now) * 0.125
    elif phase in (C.PHASE_MOVE_TILE_SRC, C.PHASE_MOVE_TILE_DST):
        total = state.platform_score(p).total
        opened = Q.open_edges(g, stacks)
        best: dict[int, tuple[int, int]] = {}
        at_source = phase == C.PHASE_MOVE_TILE_SRC
        for (src, dst), v in Q.move_tile_effects(state).items():
            cell = src if at_source else dst
            old = best.get(cell)
            if old is None or v[0] + v[1] > old[0] + old[1]:
                best[cell] = v
        for cell, (t, o) in best.items():
            c = p2c[cell]
            out[MOVE_TOTAL, c] = (t - total) * 0.1
            out[MOVE_OPEN, c] = (o - opened) * 0.5
    else:
        return
    np.clip(out, -AFTER_CLIP, AFTER_CLIP, out=out)


class KeralaObserver(Observer):
    """Builds Kerala observations; keeps the per-platform planes it patches and the tables it needs.

    Its caches are keyed by the tokens of ``state.changes``, so one observer may be shown any
    states of its game (clones, determinizations, loaded ones) in any order."""

    game: KeralaGame

    @classmethod
    def declare(cls, game: KeralaGame) -> ObservationSpec:
        spec = ObservationSpec()
        n, side = game.num_players, game.side
        planes = num_planes(game)
        derived = " (21: kept area, 22: area tiles / 10)" if planes == PLANES_DERIVED else ""
        for i in range(n):
            spec.add(f"platform_{i}", (planes, side, side), f"seat {i}'s platform (0: the observer), planes as in "
                     "`platforms`", spatial=True, support=(PLANE_OCCUPIED, PLANE_LEGAL))
        spec.add("pending_cell", (side, side), "the stack chosen as move-tile source (or just moved)", spatial=True)
        feats = num_player_features(game)
        extra = ("; areas per colour / 5 (5), score parts: symbols / 60, edges / 10, removed / 40, missing "
                 "colours / 5, (total + 40) / 100" if feats == PLAYER_FEATURES_DERIVED else "")
        for i in range(n):
            spec.add(f"player_{i}", feats, f"seat {i} (0: the observer): own colour (5), passes / 2, standing "
                     f"elephants / 2, positions / 41, tiles / 41{extra}")
        spec.add("offer", (5, OFFER_FEATURES), "per slot (canonical order): present, colour (5), kind (7: sym0-3, "
                 "edge, move-elephant, move-tile), second colour (5)")
        spec.add("unseen", C.NUM_TILE_TYPES, "per tile type, tiles not yet seen (bag or setup removals) / 8")
        spec.add("colours_in_play", C.NUM_COLOURS, "colours that belong to a player")
        spec.add("globals", GLOBAL_FEATURES, "bag / 100, round / rounds, start seat (5), my place in the turn "
                 "order (5), acting seat (5), phase (5), player count (4); seats relative to the observer")
        if game.options["elephant_view"]:
            spec.add("elephant_view", (2, planes, VIEW_SIDE, VIEW_SIDE),
                     "the observer's platform around each of its elephants (elephant 0 on the smaller cell): "
                     "every plane of the 5x5 cells centred on it, north-west first, zero outside the window")
        if game.options["pick_afterstate"]:
            spec.add("pick_afterstate", (PICK_IDS, AFTERSTATE_FEATURES),
                     "per pick action (acting player only, else 0): what the placement does to its own platform, "
                     "rules §9 applied after it: change of the provisional total / 10, of "
                     "symbols / 10, edge bonuses / 5, removed tiles / 10, missing colours, open coloured edges / 2; "
                     "empty cells next to the elephants after it / 8, occupied neighbours of the target / 4; every "
                     "value clipped to +-4", low=-AFTER_CLIP, high=AFTER_CLIP)
        if game.options["move_lookahead"]:
            spec.add("move_lookahead", (MOVE_PLANES, side, side),
                     "the move decisions' cells (acting player only, else 0): elephant 0's and elephant 1's move "
                     "there, change of the empty cells next to the elephants / 8; the move-tile from (source "
                     "phase: its best move) or to (destination phase) there, change of the provisional total / "
                     "10 and of the open coloured edges / 2; clipped to +-4", low=-AFTER_CLIP, high=AFTER_CLIP,
                     spatial=True)
        if game.options["elephant_view"] or game.options["pick_afterstate"]:
            spec.action_features = pick_features(spec, planes)
        spec.stack("platforms", [f"platform_{i}" for i in range(n)],
                   "per seat, observer first: planes 0-4 top colour, 5 occupied, 6 symbols / 3, 7-10 coloured edge "
                   "N/E/S/W, 11-15 second colour, 16 action tile, 17 height / 8, 18 elephant, 19 own colour, 20 "
                   f"cells the decision may name (observer's own platform, on its turn){derived}", seats=True)
        spec.stack("players", [f"player_{i}" for i in range(n)], "the player features, observer first",
                   seats=True, seat_presence=(0, C.NUM_COLOURS))  # every seat owns one colour
        codec = game.codec
        for e in range(2):
            spec.add_cell_actions(f"move_elephant_{e}", codec.move_elephant_base + e * game.num_cells, "platforms")
        spec.add_cell_actions("move_tile_src", codec.src_base, "platforms")
        spec.add_cell_actions("move_tile_dst", codec.dst_base, "platforms")
        return spec

    def __init__(self, game: KeralaGame) -> None:
        super().__init__(game)
        n = game.num_players
        lay = game.observation_layout
        self.n = n
        self.derived = bool(game.options["derived_features"])
        self.planes = num_planes(game)
        self.move_tile_plane = lay["pending_cell"].start
        self.globals = lay["globals"].start
        self.legal_base = PLANE_LEGAL * game.num_cells
        self.p2c = np.asarray(game.pad_to_cell, dtype=np.intp)
        code_features = self._code_features()
        self.features_t = np.ascontiguousarray(code_features.T)
        max_height = C.NUM_GAME_TILES + 2
        self.height_value = np.minimum(np.arange(max_height, dtype=np.float32) * 0.125, 1.0)
        offer_rows = np.zeros((C.NUM_GAME_TILES + 1, OFFER_FEATURES), dtype=np.float32)  # last row: empty slot
        for t in range(C.NUM_GAME_TILES):
            idx = [0, 1 + game.tile_colour[t], 6 + game.tile_kind[t]]
            if game.tile_second[t] >= 0:
                idx.append(13 + game.tile_second[t])
            offer_rows[t, idx] = 1.0
        self.cip_values = np.zeros(C.NUM_COLOURS, dtype=np.float32)
        self.cip_values[list(game.player_colours)] = 1.0
        self.zeros_pending = np.zeros(game.num_cells, dtype=np.float32)
        self.zeros_globals = np.zeros(GLOBAL_FEATURES, dtype=np.float32)
        self.zeros_offer = np.zeros(5 * OFFER_FEATURES, dtype=np.float32)
        self.view = self._view_tables(game) if game.options["elephant_view"] else None
        self.afterstate = lay["pick_afterstate"].start if "pick_afterstate" in lay else -1
        self.zeros_afterstate = np.zeros(PICK_IDS * AFTERSTATE_FEATURES, dtype=np.float32)
        self.move = lay["move_lookahead"].start if "move_lookahead" in lay else -1
        self.zeros_move = np.zeros(MOVE_PLANES * game.num_cells, dtype=np.float32)
        g_cells = game.num_cells
        # per window cell: flat indices inside a platform block of its planes 0-19, and of every
        # plane an emptied cell clears (0-19, and the derived 21-22)
        cleared = list(range(BOARD_PLANES)) + ([PLANE_KEPT, PLANE_AREA] if self.derived else [])
        self.cell_idx_top = [[p * g_cells + c for p in range(BOARD_PLANES)] for c in range(g_cells)]
        self.cell_idx = [[p * g_cells + c for p in cleared] for c in range(g_cells)]
        self.code_vals = [list(map(float, row)) for row in code_features]  # planes 0-16 per code
        self.height_list = [float(v) for v in self.height_value]
        self.zero_cell = [0.0] * len(cleared)
        # per offer slot and tile: the observation indices set to one
        offer = lay["offer"].start
        self.offer_ones = [[[offer + slot * OFFER_FEATURES + int(k) for k in np.flatnonzero(row)]
                            for row in offer_rows[:-1]] for slot in range(5)]
        self.__dict__.update(self.fresh_caches())

    def fresh_caches(self) -> dict[str, Any]:
        """The caches, each with the tokens of ``state.changes`` it was built from: ``_block`` per player
        (platform token, seat token, flat planes, features), ``_base`` per player (platform token, planes,
        score, elephants: what to patch), ``_common`` (unseen token, unseen + colours in play)."""
        n = self.n
        return {"_block": [None] * n, "_base": [None] * n, "_common": None}

    def _view_tables(self, game: KeralaGame) -> tuple[np.ndarray, list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
        """The zeros that open the elephant view, and per window cell as the centre: where its entries come
        from (flat indices of the observer's platform block, which opens the observation) and where they
        go in the observation for elephant 0 and for elephant 1; cells outside the window are left out
        (they stay zero)."""
        side, g_cells, planes = game.side, game.num_cells, self.planes
        per = VIEW_SIDE * VIEW_SIDE
        start = game.observation_layout["elephant_view"].start
        src: list[np.ndarray] = []
        dst0: list[np.ndarray] = []
        dst1: list[np.ndarray] = []
        for centre in range(g_cells):
            r0, c0 = divmod(centre, side)
            s_cells, d_cells = [], []
            for k in range(per):
                dr, dc = divmod(k, VIEW_SIDE)
                r, c = r0 + dr - VIEW_RADIUS, c0 + dc - VIEW_RADIUS
                if 0 <= r < side and 0 <= c < side:
                    s_cells.append(r * side + c)
                    d_cells.append(k)
            sc, dc_ = np.asarray(s_cells, dtype=np.intp), np.asarray(d_cells, dtype=np.intp)
            src.append((np.arange(planes, dtype=np.intp)[:, None] * g_cells + sc).reshape(-1))
            dst = (np.arange(planes, dtype=np.intp)[:, None] * per + dc_).reshape(-1) + start
            dst0.append(dst)
            dst1.append(dst + planes * per)
        return np.zeros(2 * planes * per, dtype=np.float32), src, dst0, dst1

    def _code_features(self) -> np.ndarray:
        """Planes 0-16 of a cell as a function of its top tile code."""
        game = self.game
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
        return table

    # -- per platform ---------------------------------------------------------------------------
    def platform_block(self, state: KeralaState, player: int) -> tuple[np.ndarray, np.ndarray]:
        """The planes (flat, the legal plane left at zero) and the features of one platform, cached
        until that platform or seat changes.

        A platform changes at almost every decision, but only at one or two cells: the planes are a
        patched copy of the previous ones (the changed cells, the elephants, and with derived features
        the area planes of the areas that changed or changed their kept status); from scratch the
        first time, and when the cached planes are of another line of play or too far behind."""
        self.use_caches_of(state)
        changes: Changes = state.changes
        ptok = changes.token(("platform", player))
        stok = changes.token(("seat", player))
        cached = self._block[player]
        if cached is not None and cached[0] is ptok and cached[1] is stok:
            return cached[2], cached[3]
        score = state.platform_score(player) if self.derived else None
        base = self._base[player]
        enc = None
        if base is not None:
            logged = details_since(ptok, base[0], MAX_DIRTY)
            if logged is not None:
                dirty = [c for cells in logged for c in cells]
                if len(dirty) <= MAX_DIRTY:
                    enc = self._patch_planes(state, player, score, base, dirty)
        if enc is None:
            enc = self._build_planes(state, player, score)
        els = Q.elephant_cells(state, player)
        self._base[player] = (ptok, enc, score, els)  # elephant lists are replaced, never edited, on a move
        feats = np.asarray(self.player_features(state, player, len(Q.platform(state, player)),
                                                Q.tiles_on_platform(state, player), score), dtype=np.float32)
        flat = enc.reshape(-1)
        self._block[player] = (ptok, stok, flat, feats)
        return flat, feats

    def _build_planes(self, state: KeralaState, player: int, score: PlatformScore | None) -> np.ndarray:
        """The planes of a platform from scratch (``score``: the §9 choice, with derived features)."""
        g = state.game
        stacks = Q.platform(state, player)
        enc = np.zeros((self.planes, g.num_cells), dtype=np.float32)
        keys = list(stacks)
        cells = self.p2c[keys]
        tops = [st[-1] for st in stacks.values()]
        enc[:STATIC_PLANES, cells] = self.features_t[:, tops]
        enc[17, cells] = self.height_value[[len(st) for st in stacks.values()]]
        p2c = g.pad_to_cell
        els = Q.elephant_cells(state, player)
        enc[18, p2c[els[0]]] = 1.0
        enc[18, p2c[els[1]]] = 1.0
        enc[19] = enc[Q.colour(state, player)]
        if score is not None:
            area_of = score.area_of
            kept = score.kept
            info = score.info
            ai = [area_of[x] for x in keys]
            enc[PLANE_KEPT, cells] = [1.0 if a in kept else 0.0 for a in ai]
            enc[PLANE_AREA, cells] = [info[a][3] * 0.1 if info[a][3] < AREA_TILES_FULL else 1.0 for a in ai]
        return enc

    def _patch_planes(self, state: KeralaState, player: int, score: PlatformScore | None, base: tuple,
                      dirty: list[int]) -> np.ndarray:
        """The planes as a copy of ``base`` (the planes of an earlier position of this platform)
        rewritten at the ``dirty`` cells, at the elephants, and (derived features) over the areas that
        are new or changed their kept status.  An area untouched since ``base`` keeps its very cell
        list (``Areas`` shares it), so identity tells it apart.  All writes go through one fancy
        assignment on the flat copy (a numpy call costs more than the Python that lists the few
        entries)."""
        g = state.game
        _tok, old_enc, old_sc, old_els = base
        enc = old_enc.copy()
        p2c = g.pad_to_cell
        stacks = Q.platform(state, player)
        own = Q.colour(state, player)
        code_colour = g.code_colour
        cell_idx, cell_idx_top, code_vals = self.cell_idx, self.cell_idx_top, self.code_vals
        height_list = self.height_list
        zero_cell = self.zero_cell
        gsize = g.num_cells
        idx: list[int] = []
        vals: list[float] = []
        for x in set(dirty):
            c = p2c[x]
            st = stacks.get(x)
            if st is None:  # emptied: every plane of the cell cleared
                idx += cell_idx[c]
                vals += zero_cell
            else:  # planes 0-19; the area planes follow below if its area changed
                code = st[-1]
                idx += cell_idx_top[c]
                vals += code_vals[code]
                vals += (height_list[len(st)], 0.0, 1.0 if code_colour[code] == own else 0.0)
        els = Q.elephant_cells(state, player)
        if els != old_els or dirty:  # rewritten cells lost their elephant mark
            base18 = 18 * gsize
            idx += (base18 + p2c[old_els[0]], base18 + p2c[old_els[1]], base18 + p2c[els[0]], base18 + p2c[els[1]])
            vals += (0.0, 0.0, 1.0, 1.0)
        if score is not None:
            old_info, old_kept = old_sc.info, old_sc.kept
            kept = score.kept
            base_kept = PLANE_KEPT * gsize
            base_area = PLANE_AREA * gsize
            for k, v in score.info.items():
                cells = v[1]
                is_kept = k in kept
                old = old_info.get(k)
                if old is not None and old[1] is cells and (k in old_kept) == is_kept:
                    continue
                t = v[3]
                kv = 1.0 if is_kept else 0.0
                sv = t * 0.1 if t < AREA_TILES_FULL else 1.0
                for x in cells:
                    c = p2c[x]
                    idx += (base_kept + c, base_area + c)
                    vals += (kv, sv)
        if idx:
            flat = enc.reshape(-1)
            flat[idx] = vals  # later entries win: the area planes after the cells' defaults
        return enc

    @staticmethod
    def player_features(state: KeralaState, player: int, positions: int, tiles: int,
                        sc: PlatformScore | None = None) -> list[float]:
        """The ``player_i`` block: 9 features, 19 when ``sc`` (the §9 choice) is given."""
        feats = [0.0] * (PLAYER_FEATURES_BASE if sc is None else PLAYER_FEATURES_DERIVED)
        feats[Q.colour(state, player)] = 1.0
        feats[5] = Q.passes_used(state, player) / 2.0
        feats[6] = state.standing(player) / 2.0
        feats[7] = positions / PLATFORM_COUNT_FULL if positions < PLATFORM_COUNT_FULL else 1.0
        feats[8] = tiles / PLATFORM_COUNT_FULL if tiles < PLATFORM_COUNT_FULL else 1.0
        if sc is not None:
            for c in range(C.NUM_COLOURS):
                feats[9 + c] = min(sc.area_count[c] / 5.0, 1.0)
            feats[14] = min(sc.symbols / 60.0, 1.0)
            feats[15] = min(sc.edges / 10.0, 1.0)
            feats[16] = min(sc.removed_tiles / 40.0, 1.0)
            feats[17] = sc.missing / 5.0
            feats[18] = min(max((sc.total + 40) / 100.0, 0.0), 1.0)
        return feats

    def common_block(self, state: KeralaState) -> np.ndarray:
        """Unseen counts and colours in play: the same for every observer, changed only by a draw."""
        self.use_caches_of(state)
        tok = state.changes.token("unseen")
        common = self._common
        if common is None or common[0] is not tok:
            unseen = np.asarray(state.unseen, dtype=np.float32)
            unseen *= 0.125
            common = self._common = (tok, np.concatenate((unseen, self.cip_values)))
        return common[1]

    # -- the observation ---------------------------------------------------------------------------
    def observe(self, state: KeralaState, player: int) -> np.ndarray:
        """Player ``player``'s observation (a fresh float32 array).

        One concatenation of cached pieces (platform blocks and player features in seat order from
        ``player``, the unseen-counts block, zeros for the pending plane, the offer and the globals),
        then one fancy assignment for the few ones that depend on the decision and the observer
        (legal cells, pending cell, offer, globals)."""
        g = state.game
        n = self.n
        blocks = [self.platform_block(state, (player + i) % n) for i in range(n)]
        parts = [b for b, _f in blocks]
        parts.append(self.zeros_pending)
        parts.extend(f for _b, f in blocks)
        parts.append(self.zeros_offer)
        parts.append(self.common_block(state))
        parts.append(self.zeros_globals)
        view = self.view
        if view is not None:
            parts.append(view[0])
        if self.afterstate >= 0:
            parts.append(self.zeros_afterstate)
        if self.move >= 0:
            parts.append(self.zeros_move)
        out = np.concatenate(parts)
        acting = state.current_player
        if acting == player:
            base = self.legal_base
            ones = [base + c for c in state.decision_cells()]
        else:
            ones = []
        chosen = Q.move_tile_cell(state)
        if chosen >= 0:
            ones.append(self.move_tile_plane + Q.window_cell(g, chosen))
        offer_ones = self.offer_ones
        for slot, t in enumerate(state.offer):
            ones += offer_ones[slot][t]
        gb = self.globals
        ones.append(gb + G_START_SEAT + (state.start_seat - player) % n)
        ones.append(gb + G_ORDER + (player - state.start_seat) % n)
        if acting >= 0:
            ones.append(gb + G_ACTING + (acting - player) % n)
            ones.append(gb + G_PHASE + state.phase)
        ones.append(gb + G_PLAYERS + n - 2)
        out[ones] = 1.0
        out[gb + G_BAG] = Q.bag_size(state) / 100.0
        r = state.rounds_played / g.total_rounds
        out[gb + G_ROUND] = r if r < 1.0 else 1.0
        after = self.afterstate
        if after >= 0 and acting == player and state.phase == C.PHASE_PICK:
            pick_afterstates(state, out[after:after + PICK_IDS * AFTERSTATE_FEATURES].reshape(
                PICK_IDS, AFTERSTATE_FEATURES))
        move = self.move
        if move >= 0 and acting == player and state.phase in MOVE_PHASES:
            move_lookaheads(state, out[move:move + MOVE_PLANES * g.num_cells].reshape(MOVE_PLANES, g.num_cells))
        if view is not None:  # the observer's platform opens ``out``, its legal plane already set
            _zeros, src, dst0, dst1 = view
            p2c = g.pad_to_cell
            e0, e1 = Q.elephant_cells(state, player)
            c0, c1 = p2c[e0], p2c[e1]
            out[dst0[c0]] = out[src[c0]]
            out[dst1[c1]] = out[src[c1]]
        return out
