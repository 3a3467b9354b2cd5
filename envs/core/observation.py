"""Observation layouts declared once, and the observer that builds a game's observations.

A game declares its observation as a table of named blocks (:class:`ObservationSpec`), each with
its natural shape (Kerala's platform planes are ``(planes, 21, 21)``), its value range and a
one-line meaning.  Everything else comes from that one declaration:

* the flat float32 vector: the blocks one after the other, in declaration order, each flattened in
  C order (``spec.size``, ``spec.layout`` maps each name to its slice, as ``game.observation_layout``);
* the per-element bounds of the flat vector (``spec.low``, ``spec.high``), and so the Box space;
* the structured view (``spec.views(flat)``): each block as an array of its natural shape, a view
  of the flat vector (no copy); blocks declared as a :meth:`ObservationSpec.stack` (one block per
  seat) appear as one array with a leading seat axis instead;
* the Markdown table of ``docs/observations.md`` (:meth:`ObservationSpec.markdown`);
* optionally, :class:`ActionFeatures`: for actions named relative to something in the observation
  (Kerala's picks: an offered tile placed next to an elephant), where each action's own inputs lie
  in the flat vector, so a network can score each such action from them (``action_hidden``);
* optionally, the seats: arrays of the structured view declared ``seats=True`` hold one row per seat,
  the observer first, then the others in seat order (a network encodes every row with one shared
  encoder, so one network reads every player count); ``seat_presence`` says where a row shows whether
  its seat plays (arrays padded to the largest player count); :class:`CellActions` name the actions
  that each name one cell of a board (a network may score them cell by cell).

An :class:`Observer` builds observations for one game configuration and owns every cache it keeps;
the rules engine only records what changed (:class:`Changes`), so that an observer can tell a state
it has seen from a clone that has moved on, and never serves a stale cache.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .game import Game, State


@dataclass(frozen=True)
class Block:
    """One named block of an observation: where it lies in the flat vector, its shape and range."""

    name: str
    shape: tuple[int, ...]
    start: int
    low: float
    high: float
    doc: str = ""
    #: a board: the last two dims are a grid of cells (networks convolve over them)
    spatial: bool = False
    #: the leading axis is one row per seat, the observer first (see :meth:`ObservationSpec.seat_names`)
    seats: bool = False
    #: a board's planes (leading index) whose non-zero cells cover every non-zero cell of the block (None:
    #: all of them): a network may look for the occupied cells on these planes alone
    support: tuple[int, ...] | None = None

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def stop(self) -> int:
        return self.start + self.size

    @property
    def slice(self) -> slice:
        return slice(self.start, self.stop)


@dataclass(frozen=True)
class ActionFactor:
    """One input of the actions an :class:`ActionFeatures` scores.

    ``items`` candidate values; action ``actions[j]`` reads item ``index[j]``.  With ``gather`` (an int
    array ``(items, size)`` of flat-observation indices) item ``i`` is the observation entries
    ``gather[i]`` (e.g. the cells around one target); without it the item is only a category (a
    network learns one vector per item, e.g. the orientation)."""

    name: str
    items: int
    index: np.ndarray
    gather: np.ndarray | None = None

    @property
    def size(self) -> int:
        """Observation entries per item (0 for a category)."""
        return 0 if self.gather is None else int(self.gather.shape[1])


@dataclass(frozen=True)
class ActionFeatures:
    """The actions of a game that a network may score one by one from their own inputs.

    ``actions``: the action ids (int array); ``factors``: what each of them reads (:class:`ActionFactor`).
    A network's action head (``action_hidden``) adds to the policy logit of ``actions[j]`` a small MLP of
    the trunk's features and, per factor, the item that action names."""

    actions: np.ndarray
    factors: tuple[ActionFactor, ...]

    def validate(self, size: int, num_actions: int) -> None:
        """Check the tables against an observation of ``size`` values and ``num_actions`` action ids."""
        acts = np.asarray(self.actions)
        if acts.ndim != 1 or len(acts) == 0 or acts.min() < 0 or acts.max() >= num_actions \
                or len(np.unique(acts)) != len(acts):
            raise ValueError(f"action features: actions must be distinct ids in [0, {num_actions})")
        names = [f.name for f in self.factors]
        if not names or len(set(names)) != len(names):
            raise ValueError(f"action features: factors need distinct names, got {names}")
        for f in self.factors:
            idx = np.asarray(f.index)
            if idx.shape != acts.shape or idx.min() < 0 or idx.max() >= f.items:
                raise ValueError(f"action factor {f.name!r}: index must give an item in [0, {f.items}) per action")
            if f.gather is not None and (f.gather.ndim != 2 or f.gather.shape[0] != f.items  # noqa: PLR2004
                                         or f.gather.min() < 0 or f.gather.max() >= size):
                raise ValueError(f"action factor {f.name!r}: gather must be ({f.items}, n) observation indices "
                                 f"in [0, {size})")


@dataclass(frozen=True)
class CellActions:
    """A run of action ids that each name one cell of a board: ``start + row * width + col`` names the
    cell ``(row, col)`` of the structured-view array ``board`` (a board stacked per seat: the observer's)."""

    name: str
    start: int
    board: str

    def validate(self, spec: ObservationSpec, num_actions: int) -> int:
        """The number of cells, after checking the board and the action ids (ValueError naming what is wrong)."""
        if self.board not in spec.spatial_names():
            raise ValueError(f"cell actions {self.name!r}: {self.board!r} is not a board of the observation")
        shape = spec.structure()[self.board][0]
        cells = int(shape[-2]) * int(shape[-1])
        if self.start < 0 or self.start + cells > num_actions:
            raise ValueError(f"cell actions {self.name!r}: ids {self.start}..{self.start + cells - 1} are not "
                             f"all in [0, {num_actions})")
        return cells


class ObservationSpec:
    """The declared layout of a flat observation: named blocks in order (see the module docstring).

    ``add(name, shape)`` appends a block; ``shape`` may be an int for a plain vector."""

    def __init__(self) -> None:
        self.blocks: dict[str, Block] = {}
        self.stacks: dict[str, tuple[tuple[str, ...], str]] = {}
        self.size = 0
        #: the actions a network may score from their own inputs (None: the game declares none)
        self.action_features: ActionFeatures | None = None
        #: the stacks declared ``seats=True`` (one member per seat, observer first)
        self.seat_stacks: set[str] = set()
        #: ``(array, start, stop)``: in every row of that seat array, the entries ``start:stop`` sum to 1 when
        #: the seat plays and to 0 when the row pads an absent seat (None: every row is a seat that plays)
        self.seat_presence: tuple[str, int, int] | None = None
        #: the runs of actions that each name one cell of a board (:class:`CellActions`)
        self.cell_actions: tuple[CellActions, ...] = ()

    def add(self, name: str, shape: int | tuple[int, ...], doc: str = "", low: float = 0.0,
            high: float = 1.0, *, spatial: bool = False, seats: bool = False,
            seat_presence: tuple[int, int] | None = None, support: tuple[int, ...] | None = None) -> slice:
        """Append block ``name``; ``spatial``: its last two dims are a board's grid of cells; ``seats``: its
        leading axis is one row per seat, observer first; ``seat_presence=(start, stop)``: where a row shows
        that its seat plays (see :attr:`seat_presence`); ``support``: the planes of a board of planes whose
        non-zero cells cover all of its non-zero cells (see :class:`Block`)."""
        if name in self.blocks or name in self.stacks:
            raise ValueError(f"duplicate observation block {name!r}")
        shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(x) for x in shape)
        if spatial and len(shape) < 2:  # noqa: PLR2004 - a grid has two dims
            raise ValueError(f"block {name!r}: a spatial block needs at least two dims, got shape {shape}")
        if support is not None:
            support = tuple(int(i) for i in support)
            if not spatial or len(shape) != 3 or not all(0 <= i < shape[0] for i in support):  # noqa: PLR2004
                raise ValueError(f"block {name!r}: support names planes of a spatial (planes, rows, cols) block, "
                                 f"got {support} for shape {shape}")
        block = Block(name, shape, self.size, float(low), float(high), doc, bool(spatial), bool(seats), support)
        self.blocks[name] = block
        self.size = block.stop
        if seat_presence is not None:
            self._presence(name, seats, int(np.prod(shape[1:], dtype=np.int64)), seat_presence)
        return block.slice

    def stack(self, name: str, members: list[str] | tuple[str, ...], doc: str = "", *, seats: bool = False,
              seat_presence: tuple[int, int] | None = None) -> None:
        """Show the blocks ``members`` (adjacent, in order, of one shape) as one array ``name`` with a
        leading axis in the structured view (e.g. one platform per seat, observer first); ``seats``: that
        axis is one member per seat, observer first (``seat_presence`` as in :meth:`add`)."""
        members = tuple(members)
        if name in self.blocks or name in self.stacks:
            raise ValueError(f"duplicate observation block {name!r}")
        bs = [self.blocks[m] for m in members]
        for a, b in zip(bs, bs[1:]):
            if a.stop != b.start or a.shape != b.shape:
                raise ValueError(f"stack {name!r}: blocks {a.name!r} and {b.name!r} are not adjacent of one shape")
        self.stacks[name] = (members, doc)
        if seats:
            self.seat_stacks.add(name)
        if seat_presence is not None:
            self._presence(name, seats, bs[0].size, seat_presence)

    def _presence(self, name: str, seats: bool, row: int, where: tuple[int, int]) -> None:
        start, stop = (int(x) for x in where)
        if not seats or not 0 <= start < stop <= row:
            raise ValueError(f"{name!r}: seat_presence needs seats=True and a range inside a row of {row} "
                             f"values, got {where!r}")
        self.seat_presence = (name, start, stop)

    def add_cell_actions(self, name: str, start: int, board: str) -> None:
        """Declare the actions ``start .. start + cells - 1`` as naming the cells of ``board`` (row-major)."""
        self.cell_actions = (*self.cell_actions, CellActions(name, int(start), board))

    # -- the flat vector --------------------------------------------------------------------
    @property
    def layout(self) -> dict[str, slice]:
        """Block name -> slice of the flat vector (``game.observation_layout``)."""
        return {name: b.slice for name, b in self.blocks.items()}

    slices = layout  # the name the earlier layout builder used

    @property
    def low(self) -> np.ndarray:
        out = np.empty(self.size, dtype=np.float32)
        for b in self.blocks.values():
            out[b.slice] = b.low
        return out

    @property
    def high(self) -> np.ndarray:
        out = np.empty(self.size, dtype=np.float32)
        for b in self.blocks.values():
            out[b.slice] = b.high
        return out

    # -- the structured view ------------------------------------------------------------------
    def structure(self) -> dict[str, tuple[tuple[int, ...], float, float, slice]]:
        """Name -> (shape, low, high, slice) of every array of the structured view, in flat order."""
        stacked = {m: name for name, (members, _doc) in self.stacks.items() for m in members}
        out: dict[str, tuple[tuple[int, ...], float, float, slice]] = {}
        for b in self.blocks.values():
            name = stacked.get(b.name)
            if name is None:
                out[b.name] = (b.shape, b.low, b.high, b.slice)
            elif name not in out:
                members = self.stacks[name][0]
                bs = [self.blocks[m] for m in members]
                out[name] = ((len(bs), *b.shape), min(x.low for x in bs), max(x.high for x in bs),
                             slice(bs[0].start, bs[-1].stop))
        return out

    def spatial_names(self) -> set[str]:
        """The arrays of the structured view that are boards (declared ``spatial``; a stack of boards is one)."""
        stacked = {m: name for name, (members, _doc) in self.stacks.items() for m in members}
        return {stacked.get(b.name, b.name) for b in self.blocks.values() if b.spatial}

    def seat_names(self) -> list[str]:
        """The arrays of the structured view with a leading seat axis (declared ``seats=True``), in flat order."""
        stacked = {m: name for name, (members, _doc) in self.stacks.items() for m in members}
        out: list[str] = []
        for b in self.blocks.values():
            name = stacked.get(b.name, b.name)
            if (b.seats or name in self.seat_stacks) and name not in out:
                out.append(name)
        return out

    def views(self, flat: np.ndarray) -> dict[str, np.ndarray]:
        """The structured view of ``flat``: arrays of their natural shapes that share its memory."""
        return {name: flat[sl].reshape(shape) for name, (shape, _lo, _hi, sl) in self._structure_cached().items()}

    def _structure_cached(self) -> dict[str, tuple[tuple[int, ...], float, float, slice]]:
        cached = self.__dict__.get("_structure")
        if cached is None or cached[0] != (self.size, len(self.stacks)):
            cached = self.__dict__["_structure"] = ((self.size, len(self.stacks)), self.structure())
        return cached[1]

    # -- documentation ------------------------------------------------------------------------------
    def markdown(self) -> str:
        """The layout as a Markdown table: block, shape, offsets in the flat vector, range, meaning."""
        rows = ["| block | shape | flat slice | range | meaning |", "|---|---|---|---|---|"]
        for b in self.blocks.values():
            shape = " x ".join(map(str, b.shape))
            rows.append(f"| `{b.name}` | {shape} | {b.start}:{b.stop} | [{_num(b.low)}, {_num(b.high)}] | {b.doc} |")
        for name, (members, doc) in self.stacks.items():
            shape = " x ".join(map(str, (len(members), *self.blocks[members[0]].shape)))
            rows.append(f"| `{name}` (dict view) | {shape} | `{members[0]}` .. `{members[-1]}` | | {doc} |")
        return "\n".join(rows + self._seat_notes())

    def _seat_notes(self) -> list[str]:
        """What the table does not show: the per-seat arrays, seat presence and cell actions."""
        out = []
        seats = self.seat_names()
        if seats:
            line = "Per seat (one row per seat, the observer first): " + ", ".join(f"`{n}`" for n in seats)
            if self.seat_presence is not None:
                name, start, stop = self.seat_presence
                line += f"; a row's seat plays when its values {start}:{stop} of `{name}` sum to 1"
            out += ["", line + "."]
        if self.cell_actions:
            out += ["", "Cell actions (each names one cell of a board, row-major): " + ", ".join(
                f"`{c.name}` from action {c.start} on `{c.board}`" for c in self.cell_actions) + "."]
        return out


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def spec_from_layout(layout: dict[str, slice]) -> ObservationSpec:
    """A spec of plain vectors in [0, 1] for a layout given only as slices (adjacent, in order)."""
    spec = ObservationSpec()
    for name, sl in sorted(layout.items(), key=lambda kv: kv[1].start):
        if sl.start != spec.size:
            raise ValueError(f"observation block {name!r} starts at {sl.start}, expected {spec.size}")
        spec.add(name, sl.stop - sl.start)
    return spec


#: how many games an observer keeps caches for (:meth:`Observer.use_caches_of`): lockstep self-play and
#: batched arenas show one observer the positions of G games in turn
CACHED_GAMES = 256


class Observer(ABC):
    """Builds the observations of one game configuration, and owns the caches that make it fast.

    One is created per environment (``game.make_observer()``); the game also keeps a default one
    for ``state.observe``.  An observer may be shown any state of its game in any order (clones,
    determinizations, loaded states): what it caches is keyed by the tokens of the state's
    :class:`Changes`, never by the state object.

    An observer with caches names them in :meth:`fresh_caches` and calls :meth:`use_caches_of` before it
    reads them: it keeps one set per game (the states sharing a :class:`Changes` origin: a deal, its
    clones and determinizations), the :data:`CACHED_GAMES` used last, so that positions of many games
    observed in turn (lockstep self-play) do not evict each other's caches."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.spec: ObservationSpec = game.observation_spec
        self._games: dict[Change, dict[str, Any]] = {}  # origin -> the caches of the games not in use
        self._in_use: Change | None = None  # the origin whose caches are the attributes now
        self._cache_names: tuple[str, ...] | None = None

    def fresh_caches(self) -> dict[str, Any]:
        """The caches of a game not seen yet: attribute name -> empty value (none by default)."""
        return {}

    def use_caches_of(self, state: State) -> None:
        """Make the cache attributes those of ``state``'s game (fresh ones for a game not seen, or not
        seen since :data:`CACHED_GAMES` others were)."""
        origin = state.changes.origin
        if origin is self._in_use:
            return
        d = self.__dict__
        if self._cache_names is None:
            self._cache_names = tuple(self.fresh_caches())
        games = self._games
        if self._in_use is not None:
            games[self._in_use] = {k: d[k] for k in self._cache_names}
        saved = games.pop(origin, None)
        if saved is None:
            saved = self.fresh_caches()
            while len(games) >= CACHED_GAMES:
                del games[next(iter(games))]  # the game used longest ago
        d.update(saved)
        self._in_use = origin

    @classmethod
    @abstractmethod
    def declare(cls, game: Game) -> ObservationSpec:
        """The observation layout of ``game``'s configuration."""

    @abstractmethod
    def observe(self, state: State, player: int) -> np.ndarray:
        """``player``'s information state: a fresh float32 vector of ``spec.size``."""

    def observe_dict(self, state: State, player: int) -> dict[str, np.ndarray]:
        """The same observation as named arrays of their natural shapes (views of one flat vector)."""
        return self.spec.views(self.observe(state, player))


class StateObserver(Observer):
    """The observer of a game without an observer class of its own: it asks ``state.observe``
    (which such a game's State implements) and keeps nothing."""

    @classmethod
    def declare(cls, game: Game) -> ObservationSpec:
        return spec_from_layout(game.observation_layout)

    def observe(self, state: State, player: int) -> np.ndarray:
        return state.observe(player)


class Change:
    """A token for one change of one part of a position; ``prev`` and ``detail`` (what changed, e.g.
    the cells of a board) are kept only for parts recorded with :meth:`Changes.log`."""

    __slots__ = ("prev", "detail")

    def __init__(self, prev: Change | None = None, detail: Any = None) -> None:
        self.prev = prev
        self.detail = detail


class Changes:
    """What changed in a position, part by part: a token per part, replaced at every change.

    The rules engine marks the parts it changes (named for the rules: ``"display"``,
    ``("reserve", 2)``); whoever keeps data derived from a part (an observer) stores the token
    it saw and compares it by identity.  Two states show the same token for a part only when one
    is a copy of the other and the part has not changed since; tokens are fresh objects, so this
    holds across clones, loaded states and processes.  ``latest`` is the token of the last change of
    any part.
    """

    __slots__ = ("tokens", "origin", "latest")

    def __init__(self) -> None:
        self.origin = self.latest = Change()
        self.tokens: dict[Any, Change] = {}

    def mark(self, *parts: Any) -> None:
        """``parts`` changed (one new token for all of them)."""
        t = self.latest = Change()
        tokens = self.tokens
        for part in parts:
            tokens[part] = t

    def log(self, part: Any, detail: Any) -> None:
        """``part`` changed, and ``detail`` says how (readable with :meth:`details_since`)."""
        tokens = self.tokens
        t = self.latest = Change(tokens.get(part, self.origin), detail)
        tokens[part] = t

    def token(self, part: Any) -> Change:
        return self.tokens.get(part, self.origin)

    def copy(self) -> Changes:
        c = Changes.__new__(Changes)
        c.origin = self.origin
        c.latest = self.latest
        c.tokens = dict(self.tokens)
        return c


def details_since(token: Change, seen: Change, limit: int) -> list[Any] | None:
    """The details logged from ``seen`` (an earlier token of the same part) to ``token``, newest
    first; None when ``seen`` is not among the last ``limit`` changes (another line of play)."""
    out = []
    t = token
    while t is not seen:
        if t is None or len(out) >= limit:
            return None
        out.append(t.detail)
        t = t.prev
    return out


def observation_docs(games: list[Game]) -> str:
    """The Markdown page of the observation layouts of ``games`` (``docs/observations.md``)."""
    out = [
        "# Observation layouts",
        "",
        "Generated from each game's declaration (`python scripts/observation_docs.py`; a test checks that this",
        "page is up to date).  The flat vector holds the blocks in this order, each flattened in C order;",
        "`obs_format=\"dict\"` gives each block in its shape (the stacked ones as one array with a leading seat",
        "axis).  Shapes that depend on the player count or an option are shown for the configuration named.",
        "",
    ]
    for game in games:
        spec = game.observation_spec
        opts = ", ".join(f"{k}={v!r}" for k, v in game.non_default_options.items())
        title = f"{type(game).pretty_name}: {game.num_players} players" + (f", {opts}" if opts else "")
        out += [f"## {title}", "",
                f"`{type(game).name}`, observation version {type(game).observation_version}, {spec.size} values.", "",
                spec.markdown(), ""]
    return "\n".join(out)
