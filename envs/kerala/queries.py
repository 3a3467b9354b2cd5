"""Named reads of a Kerala position, for agents and encoders (instead of raw indexes into the state).

Small typed functions over :class:`~meeplezoo.envs.kerala.state.KeralaState` and its game: a
platform is a dict ``padded cell -> stack`` (tuple of tile codes, bottom first, a code being
``tile_id * 4 + orientation``); window cells (``0 .. side*side-1``) are what actions and
observations name.  They read, never change, the state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from .components import PHASE_MOVE_TILE_DST
from .state import score_platform, update_areas

if TYPE_CHECKING:  # pragma: no cover
    from .state import KeralaGame, KeralaState

Platform = dict[int, tuple[int, ...]]


# -- players --------------------------------------------------------------------------------------
def platform(state: KeralaState, player: int) -> Platform:
    """``player``'s platform (the state's own dict: copy it before changing it)."""
    return state.platforms[player]


def elephant_cells(state: KeralaState, player: int) -> list[int]:
    """The padded cells of ``player``'s two elephants, the smaller first."""
    return state.elephants[player]


def colour(state: KeralaState, player: int) -> int:
    """The colour ``player`` plays (seat i plays colour i)."""
    return state.game.player_colours[player]


def passes_used(state: KeralaState, player: int) -> int:
    """How often ``player`` passed (each pass lays an elephant down)."""
    return state.passes[player]


def tiles_on_platform(state: KeralaState, player: int) -> int:
    """Tiles of ``player``'s platform in all layers."""
    return sum(map(len, state.platforms[player].values()))


# -- the table --------------------------------------------------------------------------------------
def offer_tile(state: KeralaState, slot: int) -> int:
    """The tile id in offer slot ``slot`` (slots in canonical order)."""
    return state.offer[slot]


def bag_size(state: KeralaState) -> int:
    """Tiles still to be drawn."""
    return len(state.bag)


def move_tile_cell(state: KeralaState) -> int:
    """The padded cell of the move-tile stack being decided on (source or moved stack), or -1."""
    return state.move_tile_cell


# -- tiles and cells (facts of the game) -----------------------------------------------------------
def tile_type(game: KeralaGame, tile: int) -> int:
    """The type of a game tile (identical tiles share it)."""
    return game.tile_type[tile]


def is_edge(game: KeralaGame, code: int) -> bool:
    """Whether the tile code is a colored-edge tile."""
    return game.code_edge_target[code] >= 0


def edge_facing(game: KeralaGame, cell: int, code: int) -> int:
    """The padded cell the colored edge of tile ``code`` at ``cell`` faces."""
    return cell + game.delta[code & 3]


def neighbours(game: KeralaGame, cell: int) -> tuple[int, ...]:
    """The four orthogonal neighbours of a padded cell (N, E, S, W)."""
    return tuple(cell + d for d in game.delta)


def step(game: KeralaGame, cell: int, direction: int) -> int:
    """The padded cell next to ``cell`` in ``direction`` (0-3: N, E, S, W)."""
    return cell + game.delta[direction]


def window_cell(game: KeralaGame, cell: int) -> int:
    """The window cell (as actions and observations name it) of a padded cell."""
    return game.pad_to_cell[cell]


def padded_cell(game: KeralaGame, window: int) -> int:
    """The padded cell of a window cell."""
    return game.cell_to_pad[window]


# -- platforms ----------------------------------------------------------------------------------------
def occupied_neighbours(game: KeralaGame, plat: Platform, cell: int) -> int:
    """How many of the four neighbours of ``cell`` hold a stack on ``plat``."""
    return sum(1 for d in game.delta if cell + d in plat)


def free_cells_around(game: KeralaGame, plat: Platform, cells: tuple[int, ...]) -> set[int]:
    """The empty cells of ``plat`` next to any of ``cells``."""
    delta = game.delta
    return {c + d for c in cells for d in delta if c + d not in plat}


def open_edges(game: KeralaGame, plat: Platform) -> int:
    """Colored-edge tiles on top whose edge faces an empty cell (their bonus may still come)."""
    edge, delta = game.code_edge_target, game.delta
    n = 0
    for cell, st in plat.items():
        code = st[-1]
        if edge[code] >= 0 and cell + delta[code & 3] not in plat:
            n += 1
    return n


# -- the pick decision's one-step lookahead -----------------------------------------------------------
class PickEffect(NamedTuple):
    """The platform of the player to act after one pick-and-place (or as it stands, for ``before``), with
    rules §9 applied to it as at the end of the game."""

    total: int  #: the provisional total (§9)
    symbols: int  #: its parts: elephant symbols of the kept areas,
    edges: int  #: coloured-edge bonuses,
    removed_tiles: int  #: tiles that would be removed,
    missing: int  #: missing colours
    open_edges: int  #: coloured edges on top facing an empty cell (:func:`open_edges`)
    free: int  #: empty cells next to the two elephants (after the placement: the target and the other one)
    occupied: int  #: occupied neighbours of the target cell before the placement (0 for ``before``)


class PlatformLookahead:
    """The placements' effects on one player's platform (:class:`PickEffect`), for every position that shows
    the same platform, elephants and passes: a snapshot of them, and a memo of the placements evaluated.

    Shared through :func:`pick_lookahead` by the positions that hold the same tokens of ``state.changes``
    for that player's platform and seat (a search's sibling positions, where another player moved)."""

    __slots__ = ("game", "before", "_stacks", "_standing", "_own", "_els", "_areas", "_memo")

    def __init__(self, state: KeralaState, player: int) -> None:
        g = state.game
        self.game = g
        self._stacks = stacks = dict(platform(state, player))  # a snapshot: the state's dict changes in place
        self._standing = state.standing(player)
        self._own = colour(state, player)
        self._els = els = tuple(elephant_cells(state, player))
        self._areas = state.platform_areas(player)  # immutable
        sc = state.platform_score(player)
        self.before = PickEffect(sc.total, sc.symbols, sc.edges, sc.removed_tiles, sc.missing,
                                 open_edges(g, stacks), len(free_cells_around(g, stacks, els)), 0)
        self._memo: dict[tuple[int, int, int, int], PickEffect] = {}

    def place(self, tile: int, e: int, d: int, o: int) -> PickEffect:
        """The platform after ``tile`` is put in orientation ``o`` next to elephant ``e`` in direction ``d``
        (the elephant walks onto it)."""
        g = self.game
        els = self._els
        q = els[e] + g.delta[d]
        code = tile * 4 + o
        key = (g.tile_type[tile], q, o, els[1 - e])
        eff = self._memo.get(key)
        if eff is None:
            stacks = self._stacks
            trial = dict(stacks)
            trial[q] = trial.get(q, ()) + (code,)
            sc = score_platform(g, trial, self._own, self._standing,
                                areas=update_areas(g, self._areas, trial, (q,)))
            eff = self._memo[key] = PickEffect(
                sc.total, sc.symbols, sc.edges, sc.removed_tiles, sc.missing, open_edges(g, trial),
                len(free_cells_around(g, trial, (q, els[1 - e]))), occupied_neighbours(g, stacks, q))
        return eff


class PickLookahead:
    """What each pick-and-place of the player to act would do to its platform: :meth:`effect` per action,
    ``before`` for the platform as it stands.

    Got from :func:`pick_lookahead`, which keeps it on the state until the next action, so the readers of
    one position (the heuristic, its prior in the search, the ``pick_afterstate`` observation) pay for it
    once; positions with the same platform, elephants and passes for the player to act share the
    evaluations (:class:`PlatformLookahead`).  Picks of identical tiles to the same cell and orientation
    share one evaluation, and each refills only the areas around its target cell."""

    __slots__ = ("offer", "platform", "before")

    def __init__(self, state: KeralaState, shared: PlatformLookahead) -> None:
        self.offer = tuple(state.offer)
        self.platform = shared
        self.before = shared.before

    def effect(self, action: int) -> PickEffect:
        """The platform after pick action ``action`` (slot, elephant, direction, orientation packed as
        in the action codec; it must be a placement of this position)."""
        return self.platform.place(self.offer[action >> 5], (action >> 4) & 1, (action >> 2) & 3, action & 3)


#: platform lookaheads by (player, platform token, seat token) of ``state.changes``: the tokens are fresh
#: objects per change, so a key names one platform of one game's line of play (cleared when full)
_SHARED: dict[tuple[int, object, object], PlatformLookahead] = {}
SHARED_LOOKAHEADS = 4096


def pick_lookahead(state: KeralaState) -> PickLookahead:
    """The one-step lookahead of the pick decision in ``state`` (:class:`PickLookahead`), kept on the state
    until its next action (a clone shares it)."""
    look = state._lookahead
    if look is None:
        p = state.current_player
        ch = state.changes
        key = (p, ch.token(("platform", p)), ch.token(("seat", p)))
        shared = _SHARED.get(key)
        if shared is None:
            if len(_SHARED) >= SHARED_LOOKAHEADS:
                _SHARED.clear()
            shared = _SHARED[key] = PlatformLookahead(state, p)
        look = state._lookahead = PickLookahead(state, shared)
    return look


# -- the move decisions' one-step lookahead ---------------------------------------------------------------
def turned(game: KeralaGame, stacks: Platform, cell: int, orientation: int) -> dict[int, tuple[int, ...]]:
    """A copy of ``stacks`` with the stack at ``cell`` turned so that its top edge faces ``orientation``
    (an edge tile's orientation is its code's two low bits; the other tiles of the stack turn with it)."""
    trial = dict(stacks)
    stack = trial[cell]
    turn = (orientation - stack[-1]) & 3
    edge = game.code_edge_target
    trial[cell] = tuple((c & ~3) | ((c + turn) & 3) if edge[c] >= 0 else c for c in stack)
    return trial


def move_tile_effects(state: KeralaState) -> dict[tuple[int, int], tuple[int, int]]:
    """Per legal move-tile of the player to act, ``(source, destination)`` (padded cells; in the destination
    phase only the chosen source's), the platform after it: ``(provisional total, open coloured edges)``
    (rules §9 applied as at the end of the game; an edge tile on top turned the best way for total plus open
    edges, the heuristic's judgement, when ``move_tile_may_rotate`` lets it turn)."""
    g = state.game
    p = state.current_player
    stacks = platform(state, p)
    own, standing, areas = colour(state, p), state.standing(p), state.platform_areas(p)
    pairs = state.move_tile_pairs()
    rotate = g.options["move_tile_may_rotate"]
    sources = [move_tile_cell(state)] if state.phase == PHASE_MOVE_TILE_DST else list(pairs)
    out: dict[tuple[int, int], tuple[int, int]] = {}
    for s in sources:
        for q in pairs[s]:
            trial = dict(stacks)
            stack = trial.pop(s)
            trial[q] = stack
            new_areas = update_areas(g, areas, trial, (s, q))
            best = None
            for t in ([turned(g, trial, q, o) for o in range(4)] if rotate and is_edge(g, stack[-1]) else [trial]):
                v = (score_platform(g, t, own, standing, areas=new_areas).total, open_edges(g, t))
                if best is None or v[0] + v[1] > best[0] + best[1]:
                    best = v
            out[(s, q)] = best
    return out
