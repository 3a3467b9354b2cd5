"""The Kerala rules engine (rules file ``docs/rules/kerala.md``).

Each player builds a festival platform of tiles on a square grid.  A round:
the start player draws one tile per player into the offer; in turn order each
player takes one tile and places it next to one of their two elephants (on an
empty cell or on top of a stack), the elephant walking onto it, or passes (at
most twice).  Move-elephant and move-tile tiles grant an optional action.
When the bag is empty and the round is over, each platform keeps one area per
colour (two of the own colour), the rest is removed at -2 per tile, and the
highest total wins (ties share the win).

Representation (cheap to clone, no deepcopy):

* a platform is a dict ``cell -> tuple of tile codes`` (bottom first), where a
  cell is an index into a padded ``(S+2) x (S+2)`` grid (a ring of blocked
  cells surrounds the ``S x S`` window of rules file §13.3, so neighbour steps
  never need bounds checks) and a tile code is ``tile_id * 4 + orientation``;
* elephants are a sorted pair of cells per player (elephant 0 is on the
  smaller cell); both share the start cell until the first placement;
* the bag is a list of tile ids; each round's offer is drawn from it with the
  state's own :class:`Rng`, so a clone replays the same future and
  :meth:`determinize` only needs to resample what nobody has seen.

Choices made where the rules file leaves room (each documented again where it is coded):

* seat ``i`` plays colour ``i`` (blue, black, green, purple, red): colours are symmetric;
* the offer is kept sorted by tile type, slots index the remaining tiles, and of
  identical tiles only the first slot is offered (rules file §13.4);
* an action tile whose action has no legal use (no free tile for move-elephant, no
  legal stack move for move-tile) lapses without a decision;
* turning a moved stack turns all its edge tiles together, as turning the physical
  stack would; the decision is offered only when the top tile is an edge tile (§13.2);
* scoring does not take tiles off the platforms: :meth:`KeralaState.platform_score`
  reports the kept areas and the removals, so the final position stays on display;
* A-15 (a short final offer; players facing an empty offer skip) is the only
  behaviour and needs no option: it cannot arise with the official tile counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations, product
from typing import Any

import numpy as np

from ..core.fields import Cache, Custom, Field, FieldError, Int, IntList, Nested, RngField, StateSchema, is_int
from ..core.game import CorruptStateError, Game, Option, State
from ..core.observation import Changes
from ..core.rng import Rng, as_rng
from . import components as C
from .actions import PICK_IDS, ActionCodec

#: more cells changed than this since a platform's areas were built: build them anew instead of updating
AREA_UPDATE_MAX_CELLS = 8

# ---------------------------------------------------------------------------------------------
# Game: the static facts of one configuration
# ---------------------------------------------------------------------------------------------


class KeralaGame(Game):
    """Kerala for 2-5 players; every assumption of the rules file is an option."""

    name = "kerala"
    env_name = "kerala_v0"
    pretty_name = "Kerala"
    min_players = 2
    max_players = 5
    default_players = 2
    score_scale = 30.0
    hidden_information = False
    observation_version = 2  # 2: derived features opt-in, legal plane at 20 (observation.py)
    bench_variants = ({"derived_features": True},)  # an extra row of ``meeplezoo bench``
    observer_ref = ".observation:KeralaObserver"
    renderer_ref = ".render"
    options_spec = (
        Option("tile_composition", "default",
               "A-01: per-colour tile counts (default: 8x1, 4x2, 2x3 symbols, 4 edge tiles, 1 of each action; "
               "with_blanks: 2x0, 6x1, 4x2, 2x3)", choices=tuple(C.TILE_COMPOSITIONS)),
        Option("move_tile_dest_rule", "elephant_adjacent",
               "A-09: the moved stack goes where a regular tile could, next to a tile with one of the player's "
               "elephants (platform_adjacent: anywhere next to the rest of the platform)",
               choices=("elephant_adjacent", "platform_adjacent")),
        Option("move_tile_may_rotate", True, "A-12: the moved stack may be turned (matters for an edge tile on top)"),
        Option("edge_bonus_layers", "top_only",
               "A-18: which layers take part in the colored-edge bonus", choices=("top_only", "any")),
        Option("board_radius", 10, "A-20: the platform window is (2r+1)^2 cells around the start tile; moves "
               "leaving it are illegal", type=int, bounds=(3, 40)),
        Option("hole_definition", "enclosed_region",
               "A-21: a hole is any enclosed empty region, or only an empty cell with four occupied neighbours",
               choices=("enclosed_region", "four_sided_cell")),
        Option("hole_scope", "no_new", "A-21: a move-tile action may create no new hole (none_after: leave none)",
               choices=("no_new", "none_after")),
        Option("colour_presence_layers", "top_only",
               "A-22: which layers make a colour present for the missing-colour penalty", choices=("top_only", "any")),
        Option("pass_mode", "take_nothing",
               "passing takes no tile, leftovers leave at round end [R] (discard_chosen: the seed's reading, the "
               "passer discards an offer tile at once)", choices=("take_nothing", "discard_chosen")),
        Option("own_colour_areas", 2, "areas of the own colour kept at scoring [R] (1: the seed's reading)",
               choices=(1, 2)),
        Option("first_start_player", "seat0", "who starts the first round (age is not modelled)",
               choices=("seat0", "random")),
        Option("keep_choice", "optimal", "choice of kept areas at scoring: optimal enumeration, or greedy by value "
               "(a speed approximation)", choices=("optimal", "greedy")),
        Option("start_tile_symbols", 1, "elephant symbols on the start tile ([R*] 1)", choices=(0, 1)),
        Option("tiebreak", "shared", "tied totals share the win [R] (removed_then_standing: an experimental chain: "
               "fewer removed tiles, then more standing elephants)", choices=("shared", "removed_then_standing")),
        Option("derived_features", False,
               "observation only: add the derived features of rules §13.5 (areas kept by the §9 choice, area "
               "sizes, provisional score parts); exact, but each observation of a changed platform then scores it",
               observation_only=True),
        Option("elephant_view", False,
               "observation only: add the observer's own platform seen from each of its two elephants (every "
               "plane of the 5x5 cells around it, block `elephant_view`): where a pick action places its tile",
               observation_only=True),
        Option("pick_afterstate", False,
               "observation only: add, per pick action of the player to act, what the placement does to its "
               "platform (rules §9 applied after it: provisional total and its parts, open edges, free cells; block "
               "`pick_afterstate`, rules §13.5): a network's action head scores each pick from it",
               observation_only=True),
        Option("move_lookahead", False,
               "observation only: add, at each cell the move-elephant or move-tile decision of the player to act "
               "may name, what that move does to its platform (free cells next to the elephants; provisional "
               "total and open edges, rules §9 applied after it; block `move_lookahead`, rules §13.5): the cell "
               "actions read it beside the platform planes", observation_only=True),
    )

    def _setup(self) -> None:
        o = self.options
        n = self.num_players
        self.player_colours: tuple[int, ...] = tuple(range(n))  # seat i plays colour i
        self.setup_removals = C.SETUP_REMOVALS[n]
        self.total_rounds = (C.NUM_GAME_TILES - self.setup_removals) // n
        self.radius = o["board_radius"]
        self.side = s = 2 * self.radius + 1
        self.width = w = s + 2  # padded grid width
        self.codec = ActionCodec(self.radius, o["pass_mode"] == "discard_chosen")
        self.num_actions = self.codec.num_actions
        self.num_cells = s * s
        self.start_cell = (self.radius + 1) * w + self.radius + 1
        # padded index <-> window cell; blocked marks the ring outside the window
        self.pad_to_cell = [-1] * (w * w)
        self.cell_to_pad = [0] * (s * s)
        self.blocked = bytearray([1]) * (w * w)
        for r in range(s):
            for c in range(s):
                i = (r + 1) * w + c + 1
                self.pad_to_cell[i] = r * s + c
                self.cell_to_pad[r * s + c] = i
                self.blocked[i] = 0
        self.delta = tuple(dr * w + dc for dr, dc in C.DIRECTIONS)
        self._build_tiles()

    def _build_tiles(self) -> None:
        """Per tile id (100 game tiles, then 5 start tiles): colour, kind, symbols, second colour, type."""
        counts = C.TILE_COMPOSITIONS[self.options["tile_composition"]]
        colour, kind, symbols, second, ttype = [], [], [], [], []
        for c in range(C.NUM_COLOURS):
            others = C.other_colours(c)
            for k, count in enumerate(counts):
                for _ in range(count):
                    colour.append(c)
                    kd = C.TYPE_KIND[k]
                    kind.append(kd)
                    symbols.append(C.KIND_SYMBOLS[kd])
                    second.append(others[k - 4] if kd == C.KIND_EDGE else -1)
                    ttype.append(c * C.TYPES_PER_COLOUR + k)
        assert len(colour) == C.NUM_GAME_TILES, "a composition must have 20 tiles per colour"
        for c in range(C.NUM_COLOURS):
            colour.append(c)
            kind.append(C.KIND_START)
            symbols.append(self.options["start_tile_symbols"])
            second.append(-1)
            ttype.append(-1)
        self.tile_colour, self.tile_kind, self.tile_symbols = colour, kind, symbols
        self.tile_second, self.tile_type = second, ttype
        self.type_count = [0] * C.NUM_TILE_TYPES
        for t in range(C.NUM_GAME_TILES):
            self.type_count[ttype[t]] += 1
        # offer order: by tile type, then id (identical tiles sit next to each other)
        self.offer_key = [ttype[t] * 256 + t for t in range(C.NUM_GAME_TILES)]
        # by tile code (id*4 + orientation), for the hot path
        self.code_colour = [colour[t] for t in range(len(colour)) for _ in range(4)]
        self.code_symbols = [symbols[t] for t in range(len(colour)) for _ in range(4)]
        self.code_edge_target = [  # second colour if the code is an edge tile, else -1
            second[t] for t in range(len(colour)) for _ in range(4)
        ]

    # -- helpers for tests and tools -----------------------------------------------------------
    def tiles_matching(self, colour: str | int, kind: str | int, second: str | int | None = None) -> list[int]:
        """Ids of the game tiles of a colour and kind (and second colour), e.g. ("red", "sym3")."""
        c = C.COLOURS.index(colour) if isinstance(colour, str) else colour
        k = C.KIND_NAMES.index(kind) if isinstance(kind, str) else kind
        s2 = C.COLOURS.index(second) if isinstance(second, str) else second
        if k == C.KIND_START:
            return [C.START_TILE_BASE + c]
        return [t for t in range(C.NUM_GAME_TILES) if self.tile_colour[t] == c and self.tile_kind[t] == k
                and (s2 is None or self.tile_second[t] == s2)]

    def tile_name(self, tile: int) -> str:
        kind = self.tile_kind[tile]
        name = f"{C.COLOURS[self.tile_colour[tile]]} {C.KIND_NAMES[kind]}"
        if kind == C.KIND_EDGE:
            name += f" ({C.COLOURS[self.tile_second[tile]]})"
        return name

    def cell_of(self, row: int, col: int) -> int:
        """Padded cell of the position (row, col) relative to the start tile."""
        if not (-self.radius <= row <= self.radius and -self.radius <= col <= self.radius):
            raise ValueError(f"kerala: position ({row},{col}) is outside the window of radius {self.radius}")
        return self.start_cell + row * self.width + col

    def pos_of(self, cell: int) -> tuple[int, int]:
        """(row, col) relative to the start tile of a padded cell."""
        r, c = divmod(cell, self.width)
        return r - self.radius - 1, c - self.radius - 1

    def new_state(self, seed: int | None = None) -> KeralaState:
        return KeralaState.initial(self, seed)


# ---------------------------------------------------------------------------------------------
# Final scoring (rules file §9)
# ---------------------------------------------------------------------------------------------


class PlatformScore:
    """A platform scored as at the end of the game (kept areas chosen, removal applied).

    Areas are named by their smallest cell (their *key*); ``info`` maps key -> (colour, cells,
    symbols, tiles, colour mask) in increasing key order, the canonical order in which ties of the
    keep choice break."""

    __slots__ = ("info", "area_of", "kept", "symbols", "edges", "removed_tiles", "missing", "standing",
                 "area_count")

    def __init__(self) -> None:
        self.info: dict[int, tuple[int, list[int], int, int, int]] = {}
        self.area_of: dict[int, int] = {}  # cell -> key
        self.kept: set[int] = set()
        self.symbols = self.edges = self.removed_tiles = self.missing = self.standing = 0
        self.area_count = [0] * C.NUM_COLOURS

    @property
    def areas(self) -> dict[int, tuple[int, list[int]]]:
        """key -> (colour, cells)."""
        return {k: (v[0], v[1]) for k, v in self.info.items()}

    @property
    def area_tiles(self) -> dict[int, int]:
        """key -> tiles in all layers."""
        return {k: v[3] for k, v in self.info.items()}

    @property
    def total(self) -> int:
        return (self.symbols + C.POINTS_PER_EDGE_BONUS * self.edges + C.POINTS_PER_STANDING_ELEPHANT * self.standing
                + C.POINTS_PER_REMOVED_TILE * self.removed_tiles + C.POINTS_PER_MISSING_COLOUR * self.missing)

    def kept_cells(self) -> set[int]:
        return {cell for a in self.kept for cell in self.info[a][1]}

    def as_dict(self) -> dict[str, int]:
        return {"symbols": self.symbols, "edges": self.edges, "standing": self.standing,
                "removed_tiles": self.removed_tiles, "missing_colours": self.missing, "total": self.total}


class Areas:
    """The areas of one platform with their §9 statistics, keyed by each area's smallest cell.

    Built once from scratch (:func:`build_areas`), then carried along by :func:`update_areas` when a
    few cells change, so scoring the platform after a placement refills only the areas around the
    changed cells.  Never modified once built: states and their clones share it."""

    __slots__ = ("area_of", "info", "edge_cells")

    def __init__(self) -> None:
        self.area_of: dict[int, int] = {}  # cell -> key
        # key -> (primary colour, cells, visible symbols, tiles in all layers, mask of the colours of all layers)
        self.info: dict[int, tuple[int, list[int], int, int, int]] = {}
        self.edge_cells: frozenset[int] = frozenset()  # cells whose top tile is a colored-edge tile


def _fill_areas(game: KeralaGame, stacks: dict[int, tuple[int, ...]], region: Any, res: Areas) -> None:
    """Flood-fill the cells of ``region`` (a union of whole areas) into ``res``, smallest cell first."""
    code_colour, code_symbols = game.code_colour, game.code_symbols
    dn, de, ds, dw = game.delta
    area_of = res.area_of
    info = res.info
    colour_at = {cell: code_colour[stacks[cell][-1]] for cell in region}
    get = colour_at.get
    for cell in sorted(colour_at):
        if cell in area_of:
            continue
        colour = colour_at[cell]
        area_of[cell] = cell
        cells = [cell]
        for x in cells:  # grows while it is walked: a breadth-first fill
            for y in (x + dn, x + de, x + ds, x + dw):
                if get(y) == colour and y not in area_of:
                    area_of[y] = cell
                    cells.append(y)
        s = t = 0
        mask = 1 << colour
        for x in cells:
            st = stacks[x]
            s += code_symbols[st[-1]]
            h = len(st)
            t += h
            if h > 1:
                for c in st:
                    mask |= 1 << code_colour[c]
        info[cell] = (colour, cells, s, t, mask)


def build_areas(game: KeralaGame, stacks: dict[int, tuple[int, ...]]) -> Areas:
    """Areas: maximal orthogonally connected groups of cells whose top tiles share a primary colour."""
    res = Areas()
    _fill_areas(game, stacks, stacks, res)
    edge = game.code_edge_target
    res.edge_cells = frozenset(cell for cell, st in stacks.items() if edge[st[-1]] >= 0)
    return res


def update_areas(game: KeralaGame, old: Areas, stacks: dict[int, tuple[int, ...]], changed: Any) -> Areas:
    """The areas after the cells ``changed`` were placed on, emptied or filled (``stacks`` is the new
    platform): only the old areas containing a changed cell, or touching one in its new colour, are
    refilled.  Their cells and the changed cells form a union of whole new areas (a new area reaching
    outside would join an untouched old area through a cell whose colour did not change, which
    maximality excludes)."""
    dn, de, ds, dw = game.delta
    old_of = old.area_of
    old_info = old.info
    code_colour = game.code_colour
    touched = set()
    for x in changed:
        k = old_of.get(x)
        if k is not None:
            touched.add(k)
        st = stacks.get(x)
        if st is not None:  # neighbouring areas of the new colour may merge through x
            colour = code_colour[st[-1]]
            for y in (x + dn, x + de, x + ds, x + dw):
                k = old_of.get(y)
                if k is not None and old_info[k][0] == colour:
                    touched.add(k)
    res = Areas()
    area_of = res.area_of = dict(old_of)
    info = res.info = dict(old_info)
    region = [x for x in changed if x in stacks]
    for k in touched:
        for x in info.pop(k)[1]:
            del area_of[x]
            if x not in changed:
                region.append(x)
    for x in changed:
        area_of.pop(x, None)
    _fill_areas(game, stacks, region, res)
    edge = game.code_edge_target
    old_edges = old.edge_cells
    now_edges = {x for x in changed if x in stacks and edge[stacks[x][-1]] >= 0}
    if now_edges or not old_edges.isdisjoint(changed):
        res.edge_cells = (old_edges - set(changed)) | now_edges
    else:
        res.edge_cells = old_edges
    return res


def find_areas(game: KeralaGame, stacks: dict[int, tuple[int, ...]]) -> tuple[list[tuple[int, list[int]]], dict]:
    """Areas as a list of (colour, cells) in canonical order, and the index of each cell's area."""
    ar = build_areas(game, stacks)
    keys = sorted(ar.info)
    index = {k: i for i, k in enumerate(keys)}
    return [ar.info[k][:2] for k in keys], {cell: index[k] for cell, k in ar.area_of.items()}


def score_platform(game: KeralaGame, stacks: dict[int, tuple[int, ...]], own_colour: int,
                   standing: int, exhaustive: bool = False, areas: Areas | None = None) -> PlatformScore:
    """Final score of one platform, keeping the areas that maximise the player's total (§9).

    The one implementation for every option.  Of each colour, up to its limit of areas is kept
    (two of the own colour by default, one of the others); only colours with more areas than that
    are a choice (:func:`_choose_kept`).  ``exhaustive=True`` tries every combination of kept areas
    (the brute-force reference of §11.1 item 10); otherwise the choice takes the shortest exact route
    (or the greedy approximation of ``keep_choice=greedy``).  ``areas`` may pass the platform's areas
    when the caller already holds them (they must describe ``stacks``).
    """
    opts = game.options
    if areas is None:
        areas = build_areas(game, stacks)
    info = areas.info
    by_colour: list[list[int]] = [[] for _ in range(C.NUM_COLOURS)]
    for k in sorted(info):  # canonical order: ties of the choice go to the smaller key
        by_colour[info[k][0]].append(k)
    pairs = _edge_pairs(game, stacks, areas)
    presence_any = opts["colour_presence_layers"] == "any"
    own_limit = opts["own_colour_areas"]
    kept: set[int] = set()
    ambiguous: list[tuple[list[int], int]] = []
    for c, b in enumerate(by_colour):
        limit = own_limit if c == own_colour else C.AREAS_KEPT_OTHER_COLOUR
        if len(b) <= limit:
            kept.update(b)
        else:
            ambiguous.append((b, limit))
    if ambiguous:
        kept = _choose_kept(info, kept, ambiguous, pairs, presence_any, exhaustive,
                            greedy=opts["keep_choice"] == "greedy")
    symbols = removed = mask = 0
    for a, v in info.items():
        if a in kept:
            symbols += v[2]
            mask |= v[4] if presence_any else 1 << v[0]
        else:
            removed += v[3]
    res = PlatformScore.__new__(PlatformScore)
    res.info, res.area_of, res.kept, res.standing = info, areas.area_of, kept, standing
    res.area_count = [len(b) for b in by_colour]
    res.symbols, res.removed_tiles = symbols, removed
    res.edges = sum(1 for x, y in pairs if x in kept and y in kept) if pairs else 0
    res.missing = bin(ALL_COLOURS & ~mask).count("1")
    return res


#: what keeping an area is worth besides its symbols, per tile (the removal it avoids)
KEEP_GAIN_PER_TILE = -C.POINTS_PER_REMOVED_TILE
#: the mask of the five colours
ALL_COLOURS = (1 << C.NUM_COLOURS) - 1


def _edge_pairs(game: KeralaGame, stacks: dict[int, tuple[int, ...]], areas: Areas) -> list[tuple[int, int]]:
    """Colored-edge bonus candidates (A-18): (area of the edge tile, area of the cell its edge faces),
    one per edge touching its second colour; a bonus counts when both areas are kept."""
    code_colour, code_edge, delta = game.code_colour, game.code_edge_target, game.delta
    area_of = areas.area_of
    pairs: list[tuple[int, int]] = []
    if game.options["edge_bonus_layers"] == "top_only":
        for cell in areas.edge_cells:
            code = stacks[cell][-1]
            y = cell + delta[code & 3]
            nb = stacks.get(y)
            if nb is not None and code_colour[nb[-1]] == code_edge[code]:
                pairs.append((area_of[cell], area_of[y]))
    else:
        for cell, st in stacks.items():
            for code in st:
                second = code_edge[code]
                if second >= 0:
                    y = cell + delta[code & 3]
                    nb = stacks.get(y)
                    if nb is not None and any(code_colour[c2] == second for c2 in nb):
                        pairs.append((area_of[cell], area_of[y]))
    return pairs


def _choose_kept(info: dict[int, tuple[int, list[int], int, int, int]], fixed: set[int],
                 ambiguous: list[tuple[list[int], int]], pairs: list[tuple[int, int]], presence_any: bool,
                 exhaustive: bool, greedy: bool) -> set[int]:
    """The kept areas: ``fixed`` (colours within their limit) and, of each colour of ``ambiguous``
    (its areas in canonical order, its limit), the combination that maximises the total.

    The part of the total a choice changes is the kept areas' symbols + 2 x tiles (the removals they
    avoid), plus the edge bonuses between kept areas, less the missing colours under
    ``colour_presence_layers=any`` (with top layers only, every colour with areas stays present)."""

    def gain(a: int) -> int:
        v = info[a]
        return v[2] + KEEP_GAIN_PER_TILE * v[3]

    if greedy and not exhaustive:  # keep_choice=greedy: the best combination alone, edges ignored
        kept = set(fixed)
        for b, limit in ambiguous:
            kept.update(max(combinations(b, limit), key=lambda combo: sum(gain(a) for a in combo)))
        return kept
    fixed_list = sorted(fixed)
    if exhaustive or presence_any:  # the general search: the value of every combination
        def value(kept_list: list[int]) -> int:
            v = 0
            mask = 0
            for a in kept_list:
                v += gain(a)
                mask |= info[a][4]
            ks = set(kept_list)
            for x, y in pairs:
                if x in ks and y in ks:
                    v += C.POINTS_PER_EDGE_BONUS
            if presence_any:
                v += C.POINTS_PER_MISSING_COLOUR * bin(ALL_COLOURS & ~mask).count("1")
            return v

        return _best_keep(fixed_list, [list(combinations(b, limit)) for b, limit in ambiguous], value)
    # Exact and fast: an edge pair with one side always kept is a bonus of the other side alone;
    # among areas linked to no other undecided area only the best of a colour can be worth keeping.
    adj: dict[int, int] | None = None
    live: list[tuple[int, int]] = []
    if pairs:
        adj = {a: gain(a) for b, _ in ambiguous for a in b}
        adj.update((a, 0) for a in fixed)  # fixed areas count the same in every choice
        for x, y in pairs:
            if x in fixed:
                if y not in fixed:
                    adj[y] += C.POINTS_PER_EDGE_BONUS
            elif y in fixed:
                adj[x] += C.POINTS_PER_EDGE_BONUS
            else:
                live.append((x, y))
    key = gain if adj is None else adj.__getitem__
    if not live:  # no link between undecided areas (the common case): the best of each colour
        kept = set(fixed)
        for b, limit in ambiguous:
            if limit == 1:
                kept.add(max(b, key=key))  # the first of the best
            else:
                kept.update(sorted(b, key=lambda a: -key(a))[:limit])
        return kept
    assert adj is not None
    linked = {a for pair in live for a in pair}
    pruned = []
    for b, limit in ambiguous:
        free = sorted((a for a in b if a not in linked), key=lambda a: -adj[a])[:limit]
        cand = [a for a in b if a in linked] + free
        pruned.append(list(combinations(cand, limit)))

    def pruned_value(kept_list: list[int]) -> int:
        ks = set(kept_list)
        return sum(adj[a] for a in ks) + C.POINTS_PER_EDGE_BONUS * sum(1 for x, y in live if x in ks and y in ks)

    return _best_keep(fixed_list, pruned, pruned_value)


# ---------------------------------------------------------------------------------------------
# State
# ---------------------------------------------------------------------------------------------


def _best_keep(fixed: list[int], choices: list[list[tuple[int, ...]]], value: Any) -> set[int]:
    """The best union of ``fixed`` and one combination per colour, by ``value`` (a list -> int).

    Above ``KEEP_ENUMERATION_LIMIT`` combinations: best standalone choice, then two rounds of
    coordinate ascent (rules file §9 safeguard)."""
    n_comb = 1
    for ch in choices:
        n_comb *= len(ch)
    if n_comb <= C.KEEP_ENUMERATION_LIMIT:
        best_v, best = None, fixed
        for pick in product(*choices):
            cand = list(fixed)
            for combo in pick:
                cand.extend(combo)
            v = value(cand)
            if best_v is None or v > best_v:
                best_v, best = v, cand
        return set(best)
    pick = [max(ch, key=lambda combo: value(list(combo))) for ch in choices]
    for _ in range(2):
        for i, ch in enumerate(choices):
            def with_choice(combo: tuple[int, ...], i: int = i) -> int:
                return value(fixed + [a for j, cb in enumerate(pick) for a in (combo if j == i else cb)])
            pick[i] = max(ch, key=with_choice)
    return set(fixed) | {a for cb in pick for a in cb}


class KeralaState(State):
    """One Kerala position.  Public fields may be edited by tests; call :meth:`refresh` afterwards."""

    _game_class = KeralaGame

    def __init__(self, game: KeralaGame) -> None:
        n = game.num_players
        self.game = game
        self.rng = Rng(0)
        self.platforms: list[dict[int, tuple[int, ...]]] = [{} for _ in range(n)]
        self.elephants: list[list[int]] = [[game.start_cell, game.start_cell] for _ in range(n)]
        self.passes = [0] * n
        self.bag: list[int] = []
        self.offer: list[int] = []
        self.discards: list[int] = []
        self.setup_removed: list[int] = []
        self.unseen = list(game.type_count)  # per tile type: in the bag or removed at setup
        self.rounds_played = 0
        self.first_start_seat = 0
        self.start_seat = 0
        self.turn_in_round = 0  # position of the current player in this round's turn order
        self.current_player = 0
        self.phase = C.PHASE_PICK
        self.move_tile_cell = -1  # MOVE_TILE_DST: source cell; MOVE_TILE_ROT: the moved stack's new cell
        self._clear_caches()

    def _clear_caches(self) -> None:
        n = self.game.num_players
        self._mask: np.ndarray | None = None
        self._legal_cells: list[int] = []  # set with _mask
        self._legal: tuple[int, ...] = ()  # set with _mask
        self._pairs: dict[int, list[int]] | None = None
        self._sources: dict[int, list[int]] | None = None
        self._score: list[PlatformScore | None] = [None] * n
        # per-player areas of the last scored platform and the cells changed since (scoring refills
        # only the areas around them)
        self._areas: list[Areas | None] = [None] * n
        self._area_dirty: list[tuple[int, ...]] = [()] * n
        # what changed, for whoever derives data from the position (the observer): ("platform", p)
        # with the changed cells, ("seat", p) for elephants and passes, "unseen" at each draw
        self.changes = Changes()
        self._lookahead: Any = None  # the pick decision's queries.PickLookahead, built when first read

    # -- construction ----------------------------------------------------------------------------
    @classmethod
    def initial(cls, game: KeralaGame, seed: int | None = None) -> KeralaState:
        """Setup (§2): start tiles, random removals of non-player colours, first offer."""
        s = cls(game)
        s.rng = Rng(seed)
        for p, colour in enumerate(game.player_colours):
            s.platforms[p][game.start_cell] = ((C.START_TILE_BASE + colour) * 4,)
        players = set(game.player_colours)
        foreign = [t for t in range(C.NUM_GAME_TILES) if game.tile_colour[t] not in players]
        own = [t for t in range(C.NUM_GAME_TILES) if game.tile_colour[t] in players]
        s.rng.shuffle(foreign)
        k = game.setup_removals
        s.setup_removed = sorted(foreign[:k])
        s.bag = sorted(own + foreign[k:])
        if game.options["first_start_player"] == "random":
            s.first_start_seat = s.rng.randbelow(game.num_players)
        s.start_seat = s.current_player = s.first_start_seat
        s._draw_offer()
        return s

    @classmethod
    def from_position(cls, game: KeralaGame, seed: int = 0, *, platforms: list[dict] | None = None,
                      elephants: list[list[tuple[int, int]]] | None = None, passes: list[int] | None = None,
                      offer: list[int] | None = None, bag: list[int] | None = None,
                      discards: list[int] | None = None, setup_removed: list[int] | None = None,
                      current_player: int = 0, start_seat: int | None = None, rounds_played: int = 0,
                      first_start_seat: int = 0, phase: int = C.PHASE_PICK,
                      move_tile_cell: tuple[int, int] | None = None, **fields: Any) -> KeralaState:
        """A hand-made position for tests and analysis.

        ``platforms[p]`` maps ``(row, col)`` relative to the start tile to a list of tiles,
        bottom first, each a tile id or ``(tile id, orientation)``; the start tile of a
        player's colour has id ``100 + colour`` (default: only the start tile at (0, 0)).
        ``elephants[p]`` holds two positions (default: both on (0, 0)).  ``None`` in either list
        means the default for that player.  Tiles named
        nowhere go into the bag unless ``bag`` is given.  ``seed`` starts the chance stream; any
        other field of :data:`SCHEMA` may be given by name, as stored (unknown names are refused).
        The result is refreshed and validated.
        """
        n = game.num_players
        s = cls(game)
        s.rng = Rng(seed)
        for p in range(n):
            plat = platforms[p] if platforms is not None and platforms[p] is not None else {
                (0, 0): [C.START_TILE_BASE + game.player_colours[p]]}
            for (r, c), tiles in plat.items():
                codes = []
                for t in tiles:
                    tid, o = (t if isinstance(t, tuple) else (t, 0))
                    codes.append(tid * 4 + o)
                s.platforms[p][game.cell_of(r, c)] = tuple(codes)
            if elephants is not None and elephants[p] is not None:
                s.elephants[p] = sorted(game.cell_of(r, c) for r, c in elephants[p])
        s.passes = list(passes) if passes is not None else [0] * n
        s.offer = list(offer or [])
        s.discards = list(discards or [])
        s.setup_removed = list(setup_removed or [])
        used = {code >> 2 for st in s.platforms for stack in st.values() for code in stack}
        used.update(s.offer, s.discards, s.setup_removed)
        s.bag = list(bag) if bag is not None else [t for t in range(C.NUM_GAME_TILES) if t not in used]
        s.current_player = current_player
        s.first_start_seat = first_start_seat
        s.start_seat = current_player if start_seat is None else start_seat
        s.turn_in_round = (current_player - s.start_seat) % n
        s.rounds_played = rounds_played
        s.phase = phase
        s.move_tile_cell = game.cell_of(*move_tile_cell) if move_tile_cell is not None else -1
        if phase == C.PHASE_END:
            s.current_player = -1
        if fields:  # any other field by name, as stored (unknown names are refused)
            assert cls.schema is not None
            cls.schema.assign(s, fields)
        s.refresh()
        s.validate()
        return s

    def refresh(self) -> None:
        """Recompute derived data after fields were edited by hand (sort elephants/offer, unseen counts, caches)."""
        g = self.game
        for el in self.elephants:
            el.sort()
        self.offer.sort(key=g.offer_key.__getitem__)
        self.unseen = [0] * C.NUM_TILE_TYPES
        for t in self.bag:
            self.unseen[g.tile_type[t]] += 1
        for t in self.setup_removed:
            self.unseen[g.tile_type[t]] += 1
        self._clear_caches()

    # -- chance -------------------------------------------------------------------------------------
    def _draw_offer(self) -> None:
        """The start player draws one tile per player from the bag (fewer if the bag runs short, A-15)."""
        g = self.game
        bag, rng, unseen, ttype = self.bag, self.rng, self.unseen, g.tile_type
        for _ in range(min(g.num_players, len(bag))):
            i = rng.randbelow(len(bag))
            bag[i], bag[-1] = bag[-1], bag[i]
            t = bag.pop()
            self.offer.append(t)
            unseen[ttype[t]] -= 1
        self.offer.sort(key=g.offer_key.__getitem__)
        self.changes.mark("unseen")

    def determinize(self, player: int, rng: Any = None) -> KeralaState:
        """Resample the unseen tiles (§13.1): tiles of player colours are surely in the bag; the
        unseen tiles of other colours are split at random between the bag and the setup removals."""
        r = as_rng(rng)
        s = self.clone()
        players = set(self.game.player_colours)
        colour = self.game.tile_colour
        pool = sorted(self.bag + self.setup_removed)  # sorted: the sample must not depend on the hidden order or split
        own = [t for t in pool if colour[t] in players]
        other = [t for t in pool if colour[t] not in players]
        r.shuffle(other)
        k = len(self.bag) - len(own)
        s.bag = own + other[:k]
        s.setup_removed = other[k:]
        r.shuffle(s.bag)
        s.rng = Rng(r.next64())
        return s

    # -- small queries ------------------------------------------------------------------------------
    def is_terminal(self) -> bool:
        return self.phase == C.PHASE_END

    def standing(self, player: int) -> int:
        """Standing elephants (each pass lays one down)."""
        return C.ELEPHANTS_PER_PLAYER - self.passes[player]

    def top_code(self, player: int, cell: int) -> int | None:
        st = self.platforms[player].get(cell)
        return st[-1] if st else None

    def placement_targets(self, player: int) -> list[tuple[int, int, int]]:
        """Legal (elephant, direction, cell) for placing a tile (§5): next to an elephant, not onto
        the other elephant's cell, inside the window."""
        g = self.game
        a, b = self.elephants[player]
        blocked = g.blocked
        out = []
        for e, pos, other in ((0, a, b), (1, b, a)):
            if e == 1 and a == b:
                break  # both on the start tile: elephant 1 is the same choice as elephant 0
            for d, step in enumerate(g.delta):
                q = pos + step
                if not blocked[q] and q != other:
                    out.append((e, d, q))
        return out

    # -- legal actions ------------------------------------------------------------------------------------
    def legal_mask(self) -> np.ndarray:
        m = self._mask
        if m is None:
            m = self._mask = self._build_mask()
            m.flags.writeable = False  # cached and shared with clones
        return m

    def legal_actions(self) -> list[int]:
        if self._mask is None:
            self.legal_mask()
        return list(self._legal)

    def is_legal(self, action: int) -> bool:
        return 0 <= action < self.game.num_actions and bool(self.legal_mask()[action])

    def _build_mask(self) -> np.ndarray:
        g = self.game
        codec = g.codec
        mask = np.zeros(g.num_actions, dtype=bool)
        phase = self.phase
        self._legal_cells = []  # window cells the decision names (decision_cells)
        self._legal = ()
        if phase == C.PHASE_END:
            return mask
        p = self.current_player
        p2c = g.pad_to_cell
        idx: list[int] = []
        if phase == C.PHASE_PICK:
            targets = self.placement_targets(p)
            self._legal_cells = [p2c[q] for _e, _d, q in targets]
            eds = [(e * 4 + d) * 4 for e, d, _q in targets]
            offer = self.offer
            ttype = g.tile_type
            prev = -1
            distinct = []
            for slot, t in enumerate(offer):
                if ttype[t] != prev:  # identical tiles: only the first slot of the run
                    distinct.append(slot)
                    prev = ttype[t]
            for slot in distinct:
                base = slot * 32
                if g.tile_kind[offer[slot]] == C.KIND_EDGE:
                    for off in eds:
                        idx.extend((base + off, base + off + 1, base + off + 2, base + off + 3))
                else:
                    idx.extend([base + off for off in eds])
            if self.passes[p] < C.MAX_PASSES:
                if codec.pass_ids == 1:
                    idx.append(codec.pass_base)
                else:
                    idx.extend(codec.pass_base + slot for slot in distinct)
        elif phase == C.PHASE_MOVE_ELEPHANT:
            els = self.elephants[p]
            cells = self._legal_cells = [p2c[cell] for cell in self.platforms[p] if cell != els[0] and cell != els[1]]
            for c in cells:
                idx.append(codec.move_elephant_base + c)
                idx.append(codec.move_elephant_base + g.num_cells + c)
            idx.append(codec.skip)
        elif phase == C.PHASE_MOVE_TILE_SRC:
            cells = self._legal_cells = [p2c[s] for s in self.move_tile_sources()]
            idx.extend(codec.src_base + c for c in cells)
            idx.append(codec.skip)
        elif phase == C.PHASE_MOVE_TILE_DST:
            if self._pairs is not None:
                dests = self._pairs[self.move_tile_cell]
            else:
                dests = self._compute_move_tile_pairs(p, only=self.move_tile_cell)[self.move_tile_cell]
            cells = self._legal_cells = [p2c[q] for q in dests]
            idx.extend(codec.dst_base + c for c in cells)
        else:
            idx.extend(range(codec.rot_base, codec.rot_base + 4))
        mask[idx] = True
        self._legal = tuple(sorted(set(idx)))  # the same list as the mask, ascending (never mutated)
        return mask

    # -- move-tile legality (§6.2) ----------------------------------------------------------------------
    def move_tile_pairs(self) -> dict[int, list[int]]:
        """Legal move-tile sources of the current player, each with its legal destinations (cached)."""
        if self._pairs is None:
            self._pairs = self._compute_move_tile_pairs(self.current_player)
        return self._pairs

    def move_tile_sources(self) -> dict[int, list[int]]:
        """Legal move-tile sources of the current player, each with its first legal destination (cached):
        enough to know whether the action lapses and to list the sources."""
        if self._pairs is not None:
            return self._pairs
        if self._sources is None:
            self._sources = self._compute_move_tile_pairs(self.current_player, first_only=True)
        return self._sources

    def _compute_move_tile_pairs(self, player: int, reference: bool = False, first_only: bool = False,
                                 only: int | None = None) -> dict[int, list[int]]:
        """All legal (source, destination) pairs of a move-tile action (§6.2 S1-S4, D1-D4).

        The default hole rule (enclosed regions, no new hole) uses a local test: a destination in a
        hole of the platform without the source only fills that hole; one outside it encloses nothing
        when its empty neighbours stay linked through its 8-neighbourhood; only the remaining cases
        need a flood fill.  ``reference=True`` flood-fills every candidate (for tests).
        ``first_only``: stop at each source's first legal destination; ``only``: that source alone.
        """
        g = self.game
        opts = g.options
        occ = self.platforms[player]
        delta, blocked, w = g.delta, g.blocked, g.width
        els = set(self.elephants[player])
        enclosed = opts["hole_definition"] == "enclosed_region"
        none_after = opts["hole_scope"] == "none_after"
        fast = enclosed and not none_after and not reference
        near_elephant = None
        if opts["move_tile_dest_rule"] == "elephant_adjacent":
            near_elephant = {e + d for e in els for d in delta}
        holes0 = self.hole_cells(player)
        hole_region = _regions(holes0, delta) if fast else {}
        ring = (-w, -w + 1, 1, w + 1, w, w - 1, -1, -w - 1)
        out: dict[int, list[int]] = {}
        frontier = sorted({y for x in occ for d in delta if (y := x + d) not in occ and not blocked[y]})
        touching = {q: sum(1 for d in delta if q + d in occ) for q in frontier}
        ring_ok: dict[int, bool] = {}  # ring test of q while the source is not in q's ring
        for s in sorted(occ) if only is None else ([only] if only in occ else []):
            if s in els:  # S1: no elephant on the stack
                continue
            if all(s + d in occ for d in delta):  # S2: not surrounded on four sides
                continue
            rest = set(occ)
            rest.discard(s)
            # S3: the pick-up must not split the platform (neighbours linked around s never split)
            if not _neighbours_linked_around(s, occ, ring) and not _connected(rest, delta):
                continue
            opened: set[int] = set()
            if fast:
                # s must reach the outside once emptied, else it is a new hole whatever q is
                if all(s + d in occ or s + d in holes0 for d in delta):
                    continue
                opened = {hole_region[s + d] for d in delta if s + d in holes0}
            s_side = {s + d for d in delta}
            s_ring = {s + r for r in ring}
            dests = []
            for q in frontier:  # D1: empty, and not s (s is occupied in P)
                if first_only and dests:
                    break
                if touching[q] == 1 and q in s_side:  # D2: it touched the platform only at s
                    continue
                if near_elephant is not None and q not in near_elephant:  # A-09 / D3 (default)
                    continue
                if fast:
                    if q in holes0 and hole_region[q] not in opened:
                        dests.append(q)  # fills (part of) an old hole
                        continue
                    if q in s_ring:
                        ok = _ring_keeps_background(q, s, rest, ring)
                    else:
                        ok = ring_ok.get(q)
                        if ok is None:
                            ok = ring_ok[q] = _ring_keeps_background(q, s, rest, ring)
                    if ok:
                        dests.append(q)
                        continue
                rest.add(q)
                if enclosed:
                    ok = _no_new_enclosed_hole(rest, s, q, holes0, delta, w, none_after)
                else:
                    ok = _no_new_four_sided_hole(rest, s, q, holes0, delta, none_after)
                rest.discard(q)
                if ok:
                    dests.append(q)
            if dests:
                out[s] = dests
        return out

    def hole_cells(self, player: int) -> set[int]:
        """Empty cells enclosed by the platform (A-21, by the option hole_definition)."""
        occ = self.platforms[player]
        delta = self.game.delta
        if self.game.options["hole_definition"] == "four_sided_cell":
            return {y for x in occ for d in delta if (y := x + d) not in occ and all(y + d2 in occ for d2 in delta)}
        return _enclosed_cells(occ, delta, self.game.width)

    # -- applying actions ------------------------------------------------------------------------------------
    def _apply(self, a: int) -> None:
        g = self.game
        phase = self.phase
        codec = g.codec
        self._mask = None
        self._lookahead = None
        if phase == C.PHASE_PICK:
            if a < PICK_IDS:
                self._take_and_place(a >> 5, (a >> 4) & 1, (a >> 2) & 3, a & 3)
            else:
                self._pass(a - codec.pass_base)
        elif phase == C.PHASE_MOVE_ELEPHANT:
            if a != codec.skip:
                e, cell = divmod(a - codec.move_elephant_base, g.num_cells)
                self._move_elephant(e, g.cell_to_pad[cell])
            self._end_turn()
        elif phase == C.PHASE_MOVE_TILE_SRC:
            if a == codec.skip:
                self._end_turn()
            else:
                self.move_tile_cell = g.cell_to_pad[a - codec.src_base]
                self.phase = C.PHASE_MOVE_TILE_DST
        elif phase == C.PHASE_MOVE_TILE_DST:
            self._move_stack(self.move_tile_cell, g.cell_to_pad[a - codec.dst_base])
        else:
            self._turn_moved_stack(a - codec.rot_base)
            self._end_turn()

    def _platform_changed(self, p: int, cells: tuple[int, ...], areas_changed: bool = True) -> None:
        """Player ``p``'s platform changed at ``cells``; ``areas_changed=False``: only an orientation."""
        self._score[p] = None
        self._pairs = self._sources = None
        self.changes.log(("platform", p), cells)
        if areas_changed and self._areas[p] is not None:
            self._area_dirty[p] += cells

    def _take_and_place(self, slot: int, e: int, d: int, o: int) -> None:
        """§5: take an offer tile, put it next to elephant ``e``, and walk the elephant onto it."""
        g = self.game
        p = self.current_player
        tile = self.offer.pop(slot)
        els = self.elephants[p]
        q = els[e] + g.delta[d]
        st = self.platforms[p]
        st[q] = st.get(q, ()) + (tile * 4 + o,)
        other = els[1 - e]
        self.elephants[p] = [q, other] if q < other else [other, q]
        self._platform_changed(p, (q,))
        kind = g.tile_kind[tile]
        # §6.1, lapses when no tile is free: one is once the platform has more stacks than elephants
        if kind == C.KIND_MOVE_ELEPHANT and len(st) > C.ELEPHANTS_PER_PLAYER:
            self.phase = C.PHASE_MOVE_ELEPHANT
        elif kind == C.KIND_MOVE_TILE and self.move_tile_sources():  # §6.2 (lapses without a legal move)
            self.phase = C.PHASE_MOVE_TILE_SRC
        else:
            self._end_turn()

    def _pass(self, slot: int) -> None:
        """§7: lay an elephant down; under pass_mode=discard_chosen the chosen tile leaves at once."""
        self.passes[self.current_player] += 1
        if self.game.codec.pass_ids > 1:
            self.discards.append(self.offer.pop(slot))
        self._score[self.current_player] = None
        self.changes.mark(("seat", self.current_player))
        self._end_turn()

    def _move_elephant(self, e: int, cell: int) -> None:
        """§6.1: put either elephant on any tile of the platform but the other elephant's."""
        p = self.current_player
        els = self.elephants[p]
        other = els[1 - e]
        self.elephants[p] = [cell, other] if cell < other else [other, cell]
        self.changes.mark(("seat", p))

    def _move_stack(self, s: int, q: int) -> None:
        """§6.2: move the whole stack from ``s`` to the empty cell ``q``."""
        p = self.current_player
        st = self.platforms[p]
        stack = st.pop(s)
        st[q] = stack
        self._platform_changed(p, (s, q))
        if self.game.options["move_tile_may_rotate"] and self.game.code_edge_target[stack[-1]] >= 0:
            self.move_tile_cell = q
            self.phase = C.PHASE_MOVE_TILE_ROT
        else:
            self._end_turn()

    def _turn_moved_stack(self, orientation: int) -> None:
        """A-12: turn the moved stack as a whole so that its top edge faces ``orientation``."""
        p = self.current_player
        st = self.platforms[p]
        stack = st[self.move_tile_cell]
        turn = (orientation - stack[-1]) & 3
        edge = self.game.code_edge_target
        st[self.move_tile_cell] = tuple((c & ~3) | ((c + turn) & 3) if edge[c] >= 0 else c for c in stack)
        self._platform_changed(p, (self.move_tile_cell,), areas_changed=False)

    def _end_turn(self) -> None:
        """Next player in turn order; after the last one, end the round (§4)."""
        g = self.game
        n = g.num_players
        self.phase = C.PHASE_PICK
        self.move_tile_cell = -1
        self._pairs = self._sources = None
        self.turn_in_round += 1
        while True:
            if self.turn_in_round >= n:
                self._end_round()
                if self.phase == C.PHASE_END:
                    return
            if self.offer:
                self.current_player = (self.start_seat + self.turn_in_round) % n
                return
            self.turn_in_round += 1  # an empty offer (short bag) means no turn for this player

    def _end_round(self) -> None:
        """Leftovers leave the game, the bag passes left; the game ends once the bag is empty (§4, §8)."""
        self.discards.extend(self.offer)
        self.offer = []
        self.rounds_played += 1
        self.start_seat = (self.start_seat + 1) % self.game.num_players
        self.turn_in_round = 0
        if not self.bag:
            self.phase = C.PHASE_END
            self.current_player = -1
            return
        self._draw_offer()

    # -- scoring ---------------------------------------------------------------------------------------------
    def platform_score(self, player: int) -> PlatformScore:
        """§9 evaluated on the current platform (final once the game is over; cached)."""
        sc = self._score[player]
        if sc is None:
            sc = self._score[player] = score_platform(
                self.game, self.platforms[player], self.game.player_colours[player], self.standing(player),
                areas=self.platform_areas(player))
        return sc

    def platform_areas(self, player: int) -> Areas:
        """The areas of a platform (cached; after a few changed cells only their surroundings are refilled)."""
        ar = self._areas[player]
        dirty = self._area_dirty[player]
        if ar is None or len(dirty) > AREA_UPDATE_MAX_CELLS:
            ar = build_areas(self.game, self.platforms[player])
        elif dirty:
            ar = update_areas(self.game, ar, self.platforms[player], set(dirty))
        else:
            return ar
        self._areas[player] = ar
        self._area_dirty[player] = ()
        return ar

    def scores(self) -> list[float]:
        return [float(self.platform_score(p).total) for p in range(self.game.num_players)]

    def rank_keys(self) -> list[tuple]:
        if self.game.options["tiebreak"] == "shared":
            return [(s,) for s in self.scores()]
        return [(float(sc.total), -sc.removed_tiles, sc.standing)
                for sc in (self.platform_score(p) for p in range(self.game.num_players))]

    # -- information -------------------------------------------------------------------------------------------
    def decision_cells(self) -> list[int]:
        """Window cells the current decision can name (placement targets, move-elephant targets,
        move-tile sources or destinations), listed when the legal mask is built."""
        self.legal_mask()
        return self._legal_cells

    # -- persistence (fields, clone and JSON: SCHEMA at the bottom) --------------------------------------------
    @classmethod
    def _from_dict(cls, game: Game, data: dict[str, Any]) -> KeralaState:
        """The schema's loader; a save of format 1 wrote ``"pending": null`` when no move-tile cell was
        pending (the field is ``move_tile_cell`` now, ``[]`` for none)."""
        if isinstance(data, dict) and "pending" in data and data["pending"] is None:
            data = {**data, "pending": []}
        s = super()._from_dict(game, data)
        assert isinstance(s, KeralaState)
        return s

    def validate(self) -> None:
        """Check the invariants the schema cannot express (types, shapes and bounds of each field are
        checked on load); raise :class:`CorruptStateError` naming the first broken one."""
        g = self.game
        n = g.num_players

        def bad(msg: str) -> None:
            raise CorruptStateError(f"kerala: {msg}")

        # conservation (§11.1 item 7): every game tile exactly once, each start tile on its own platform
        seen: list[int] = []
        for p in range(n):
            start_here = 0
            for stack in self.platforms[p].values():
                for code in stack:
                    if not 0 <= code < C.NUM_TILE_CODES:
                        bad(f"tile code {code} out of range")
                    t = code >> 2
                    if t >= C.START_TILE_BASE:
                        if t - C.START_TILE_BASE != g.player_colours[p]:
                            bad(f"player {p} holds another colour's start tile")
                        start_here += 1
                    else:
                        seen.append(t)
                    if code & 3 and g.tile_kind[t] != C.KIND_EDGE:
                        bad("only colored-edge tiles have an orientation")
            if start_here != 1:
                bad(f"player {p} must hold its start tile exactly once")
        for pile in (self.bag, self.offer, self.discards, self.setup_removed):
            seen.extend(pile)
        if sorted(seen) != list(range(C.NUM_GAME_TILES)):
            bad("tiles are not conserved (each of the 100 tiles must be in exactly one place)")
        players = set(g.player_colours)
        if any(g.tile_colour[t] in players for t in self.setup_removed):
            bad("setup removals may only hold tiles of colours nobody plays")
        for p in range(n):
            occ = self.platforms[p]
            if not _connected(set(occ), g.delta):
                bad(f"platform of player {p} is not connected")
            a, b = self.elephants[p]
            if a not in occ or b not in occ:
                bad(f"an elephant of player {p} is not on a tile")
            if a == b and len(occ) > 1:
                bad(f"the elephants of player {p} share a tile after the first placement")
        drawn = C.NUM_GAME_TILES - len(self.bag) - len(self.setup_removed)
        if not 0 <= self.rounds_played <= drawn:  # every round drew at least one tile
            bad("round out of range")
        if self.phase == C.PHASE_END:
            if self.current_player != -1 or self.offer or self.bag:
                bad("a finished game has no current player, offer or bag")
            return
        if self.current_player != (self.start_seat + self.turn_in_round) % n or self.turn_in_round >= n:
            bad("current player does not follow the turn order")
        if self.phase == C.PHASE_PICK and not self.offer:
            bad("a pick decision needs a non-empty offer")
        if self.phase in (C.PHASE_MOVE_TILE_DST, C.PHASE_MOVE_TILE_ROT) and self.move_tile_cell not in self.platforms[
                self.current_player]:
            bad("the pending move-tile cell is not a stack")
        if self.phase == C.PHASE_MOVE_TILE_DST and self.move_tile_cell not in self.move_tile_pairs():
            bad("the pending move-tile source is not movable")
        if self.phase == C.PHASE_MOVE_TILE_ROT and g.code_edge_target[self.platforms[self.current_player][
                self.move_tile_cell][-1]] < 0:
            bad("only a stack with a colored-edge tile on top is turned")
        if self.phase in (C.PHASE_PICK, C.PHASE_MOVE_ELEPHANT, C.PHASE_MOVE_TILE_SRC) and self.move_tile_cell != -1:
            bad("a pending cell outside the move-tile phases")
        if not self.legal_mask().any():
            bad("no legal action in this position")

    # -- display ------------------------------------------------------------------------------------------------
    def action_name(self, action: int) -> str:
        g = self.game
        names = [g.tile_name(t) for t in self.offer] if self.phase == C.PHASE_PICK else None
        return g.codec.name(int(action), names)



# ---------------------------------------------------------------------------------------------
# The state's fields (clone, JSON save/load and their checks follow from this declaration)
# ---------------------------------------------------------------------------------------------

LAST_TILE = C.NUM_GAME_TILES - 1
#: a board position as saved: [row, col] relative to the start tile
POSITION_PARTS = 2


def _players(game: Game) -> int:
    return game.num_players


def _last_seat(game: Game) -> int:
    return game.num_players - 1


def _load_position(value: Any, game: KeralaGame, where: str = "") -> int:
    """The padded cell of a saved ``[row, col]`` (inside the window)."""
    if not isinstance(value, list) or len(value) != POSITION_PARTS or not all(is_int(x) for x in value):
        raise FieldError(f"{where}must be a position [row, col], got {value!r}")
    r, c = value
    if not (-game.radius <= r <= game.radius and -game.radius <= c <= game.radius):
        raise FieldError(f"{where}position ({r},{c}) is outside the window of radius {game.radius}")
    return game.cell_of(r, c)


def _copy_platforms(platforms: list[dict[int, tuple[int, ...]]]) -> list[dict[int, tuple[int, ...]]]:
    return [dict(st) for st in platforms]  # the stacks are tuples: shared


@dataclass(frozen=True)
class _Platforms(Custom):
    """In memory a dict ``padded cell -> tuple of tile codes`` per player; saved as a list of
    ``[row, col, [codes bottom first]]`` per player in increasing cell order."""

    def dump_for(self, value: Any, game: Game) -> Any:
        assert isinstance(game, KeralaGame)
        return [[[*game.pos_of(cell), list(stack)] for cell, stack in sorted(st.items())] for st in value]

    def check(self, value: Any, game: Game) -> Any:
        assert isinstance(game, KeralaGame)
        n = game.num_players
        if not isinstance(value, list) or len(value) != n:
            raise FieldError(f"must hold {n} platforms (one per player), got {value!r:.60}")
        out = []
        for p, plat in enumerate(value):
            if not isinstance(plat, list):
                raise FieldError(f"[{p}] must be a list of [row, col, tiles], got {type(plat).__name__}")
            st: dict[int, tuple[int, ...]] = {}
            for entry in plat:
                if not isinstance(entry, list) or len(entry) != POSITION_PARTS + 1:
                    raise FieldError(f"[{p}] must hold entries [row, col, tiles], got {entry!r:.60}")
                cell = _load_position(entry[:POSITION_PARTS], game, f"[{p}] ")
                codes = entry[POSITION_PARTS]
                if cell in st:
                    raise FieldError(f"[{p}] holds two stacks at {entry[:POSITION_PARTS]}")
                if not isinstance(codes, list) or not codes or not all(
                        is_int(x) and 0 <= x < C.NUM_TILE_CODES for x in codes):
                    raise FieldError(f"[{p}] stack at {entry[:POSITION_PARTS]} must be a non-empty list of tile "
                                     f"codes in [0, {C.NUM_TILE_CODES - 1}], got {codes!r:.60}")
                st[cell] = tuple(codes)
            out.append(st)
        return out


@dataclass(frozen=True)
class _ElephantCells(Nested):
    """In memory the sorted pair of padded cells per player; saved as two [row, col] per player."""

    def dump_for(self, value: Any, game: Game) -> Any:
        assert isinstance(game, KeralaGame)
        return [[list(game.pos_of(c)) for c in el] for el in value]

    def check(self, value: Any, game: Game) -> Any:
        assert isinstance(game, KeralaGame)
        n = game.num_players
        if not isinstance(value, list) or len(value) != n:
            raise FieldError(f"must have {n} entries (one pair per player), got {value!r:.60}")
        out = []
        for p, pair in enumerate(value):
            if not isinstance(pair, list) or len(pair) != C.ELEPHANTS_PER_PLAYER:
                raise FieldError(f"[{p}] must hold {C.ELEPHANTS_PER_PLAYER} positions, got {pair!r:.60}")
            out.append(sorted(_load_position(x, game, f"[{p}] ") for x in pair))
        return out


@dataclass(frozen=True)
class _OptionalCell(Field):
    """A padded cell or -1 in memory; saved as [row, col], or [] for none."""

    def dump_for(self, value: Any, game: Game) -> Any:
        assert isinstance(game, KeralaGame)
        return list(game.pos_of(value)) if value >= 0 else []

    def check(self, value: Any, game: Game) -> Any:
        assert isinstance(game, KeralaGame)
        if isinstance(value, list) and not value:
            return -1
        return _load_position(value, game)


@dataclass(frozen=True)
class _Offer(IntList):
    """The offer's tile ids, kept in canonical order (by tile type, then id): slots index it."""

    def check(self, value: Any, game: Game) -> Any:
        assert isinstance(game, KeralaGame)
        out = super().check(value, game)
        if out != sorted(out, key=game.offer_key.__getitem__):
            raise FieldError("is not in canonical order (by tile type, then id)")
        return out


@dataclass(frozen=True)
class _DecimalRng(RngField):
    """The chance stream, saved as a decimal string of its 64-bit state (exact in any JSON reader); a plain
    number is read but refused on load as not the saved form (``Field.in_saved_form``)."""

    def dump(self, value: Any) -> Any:
        return str(value.s)

    def check(self, value: Any, game: Game) -> Any:
        if isinstance(value, str) and value.isascii() and value.isdigit():
            value = int(value)
        return super().check(value, game)


SCHEMA = StateSchema("kerala", [
    _DecimalRng(doc="draws each round's offer (setup removals and the first start player too)"),
    _Platforms("platforms", copy=_copy_platforms, doc="each player's platform: stacks of tile codes (id*4 + "
               "orientation) by cell, bottom first"),
    _ElephantCells("elephants", (_players, C.ELEPHANTS_PER_PLAYER),
                   doc="each player's two elephants (elephant 0 on the smaller cell; both on the start tile "
                   "until the first placement)"),
    IntList("passes", _players, 0, C.MAX_PASSES, doc="passes made (each lays an elephant down)"),
    IntList("bag", None, 0, LAST_TILE, max_length=C.NUM_GAME_TILES, doc="tile ids still to be drawn"),
    _Offer("offer", None, 0, LAST_TILE, max_length=_players, doc="this round's offer, in canonical order"),
    IntList("discards", None, 0, LAST_TILE, max_length=C.NUM_GAME_TILES, doc="tiles that left the game unplayed"),
    IntList("setup_removed", None, 0, LAST_TILE, max_length=C.NUM_GAME_TILES,
            aliases=("removed",), doc="tiles removed at setup (colours nobody plays; hidden)"),
    # (in the order __init__ sets the attributes: clones then share the instance dict's key layout)
    Cache("unseen", copy=list.copy, doc="per tile type: tiles in the bag or removed at setup (refresh)"),
    Int("rounds_played", 0, C.NUM_GAME_TILES, aliases=("round",), doc="rounds completed"),
    Int("first_start_seat", 0, _last_seat, aliases=("first_start",), doc="the start player of the first round"),
    Int("start_seat", 0, _last_seat, doc="this round's start player"),
    Int("turn_in_round", 0, _players, aliases=("turn",), doc="the current player's place in this round's turn order"),
    Int("current_player", -1, _last_seat, doc="who decides; -1 at the end"),
    Int("phase", 0, C.PHASE_END, doc="the decision asked (PHASE_PICK..PHASE_END)"),
    _OptionalCell("move_tile_cell", aliases=("pending",),
                  doc="move-tile: the chosen source stack (destination phase) or the moved stack (turn phase)"),
    Cache("_mask", doc="the read-only legal mask"),
    Cache("_legal_cells", doc="window cells of the current decision (set with _mask)"),
    Cache("_legal", doc="the legal actions, ascending (a tuple set with _mask, never mutated)"),
    Cache("_pairs", doc="legal move-tile sources with their destinations"),
    Cache("_sources", doc="legal move-tile sources with their first destination"),
    Cache("_score", copy=list.copy, doc="per player: the PlatformScore of the current platform (immutable)"),
    Cache("_areas", copy=list.copy, doc="per player: the Areas last scored (immutable)"),
    Cache("_area_dirty", copy=list.copy, doc="per player: cells changed since _areas was built"),
    Cache("changes", copy=Changes.copy, doc="what changed, for the observer's carried caches"),
    Cache("_lookahead", doc="the pick decision's one-step lookahead (queries.pick_lookahead; never mutated "
          "but for its memo of this position's placements)"),
])
KeralaState.schema = SCHEMA
KeralaState.clone = SCHEMA.bind(KeralaState)  # type: ignore[method-assign]


KeralaGame.state_class = KeralaState


# ---------------------------------------------------------------------------------------------
# grid helpers
# ---------------------------------------------------------------------------------------------


def _connected(cells: set[int], delta: tuple[int, ...]) -> bool:
    """Whether ``cells`` form one orthogonally connected group."""
    if not cells:
        return True
    start = next(iter(cells))
    seen = {start}
    todo = [start]
    while todo:
        x = todo.pop()
        for d in delta:
            y = x + d
            if y in cells and y not in seen:
                seen.add(y)
                todo.append(y)
    return len(seen) == len(cells)


def _bbox(cells: Any, w: int) -> tuple[int, int, int, int]:
    rows = [c // w for c in cells]
    cols = [c % w for c in cells]
    return min(rows), max(rows), min(cols), max(cols)


def _enclosed_cells(occ: Any, delta: tuple[int, ...], w: int) -> set[int]:
    """Empty cells that cannot reach the outside of the platform's bounding box through empty cells."""
    if not occ:
        return set()
    r0, r1, c0, c1 = _bbox(occ, w)
    r0, r1, c0, c1 = r0 - 1, r1 + 1, c0 - 1, c1 + 1
    outside: set[int] = set()
    todo = []
    for r in range(r0, r1 + 1):
        for c in (c0, c1):
            outside.add(r * w + c)
    for c in range(c0, c1 + 1):
        for r in (r0, r1):
            outside.add(r * w + c)
    todo = list(outside)
    while todo:
        x = todo.pop()
        for d in delta:
            y = x + d
            if y in outside or y in occ:
                continue
            r, c = divmod(y, w)
            if r0 <= r <= r1 and c0 <= c <= c1:
                outside.add(y)
                todo.append(y)
    return {r * w + c for r in range(r0 + 1, r1) for c in range(c0 + 1, c1)
            if r * w + c not in occ and r * w + c not in outside}


def _no_new_enclosed_hole(occ: set[int], s: int, q: int, holes0: set[int], delta: tuple[int, ...], w: int,
                          none_after: bool) -> bool:
    """A-21 (enclosed regions): after moving the stack from ``s`` to ``q`` (``occ`` is the new platform),
    only regions through ``s`` or an empty neighbour of ``q`` can have become enclosed; each must reach
    the outside or already have been a hole.  With ``none_after`` no enclosed cell may remain at all."""
    if none_after:
        return not _enclosed_cells(occ, delta, w)
    r0, r1, c0, c1 = _bbox(occ, w)
    starts = [s] + [q + d for d in delta if q + d not in occ and q + d != s]
    done: set[int] = set()
    for start in starts:
        if start in done:
            continue
        region = {start}
        todo = [start]
        escaped = False
        while todo and not escaped:
            x = todo.pop()
            for d in delta:
                y = x + d
                if y in occ or y in region:
                    continue
                r, c = divmod(y, w)
                if not (r0 <= r <= r1 and c0 <= c <= c1):
                    escaped = True
                    break
                region.add(y)
                todo.append(y)
        if not escaped:
            r, c = divmod(start, w)
            if not (r0 <= r <= r1 and c0 <= c <= c1):
                continue
            if not region <= holes0:
                return False
        done |= region
    return True


def _regions(cells: set[int], delta: tuple[int, ...]) -> dict[int, int]:
    """Orthogonally connected components of ``cells``: cell -> component index."""
    comp: dict[int, int] = {}
    k = -1
    for start in cells:
        if start in comp:
            continue
        k += 1
        comp[start] = k
        todo = [start]
        while todo:
            x = todo.pop()
            for d in delta:
                y = x + d
                if y in cells and y not in comp:
                    comp[y] = k
                    todo.append(y)
    return comp


def _one_run_with_side(flags: list[bool]) -> bool:
    """Around a cell's 8-neighbourhood (``flags`` in ring order, orthogonal cells at even places, at
    least one False): whether at most one run of True cells contains an orthogonal neighbour."""
    k = flags.index(False)
    runs_with_side = 0
    in_run = has_side = False
    for i in range(k + 1, k + 9):
        j = i & 7
        if flags[j]:
            if not in_run:
                in_run, has_side = True, False
            if not j & 1:
                has_side = True
        elif in_run:
            runs_with_side += has_side
            in_run = False
    if in_run:
        runs_with_side += has_side
    return runs_with_side <= 1


def _ring_keeps_background(q: int, s: int, rest: set[int], ring: tuple[int, ...]) -> bool:
    """Whether the empty orthogonal neighbours of ``q`` stay linked through the 8 cells around ``q``
    once ``q`` is filled (``s`` emptied): then filling ``q`` cuts no empty region in two."""
    empty = [(q + r) == s or (q + r) not in rest for r in ring]
    if all(empty):
        return True
    return _one_run_with_side(empty)


def _neighbours_linked_around(s: int, occ: Any, ring: tuple[int, ...]) -> bool:
    """Whether the occupied orthogonal neighbours of ``s`` are joined through occupied cells of
    its 8-neighbourhood (then removing ``s`` cannot split the platform)."""
    full = [(s + r) in occ for r in ring]
    if all(full):
        return True
    return _one_run_with_side(full)


def _no_new_four_sided_hole(occ: set[int], s: int, q: int, holes0: set[int], delta: tuple[int, ...],
                            none_after: bool) -> bool:
    """A-21 (four-sided cells): no empty cell may newly end up with four occupied neighbours."""
    for x in [s] + [q + d for d in delta]:
        if x not in occ and all(x + d in occ for d in delta):
            return False
    if none_after:
        return all(h == q or any(h + d == s for d in delta) for h in holes0)
    return True
