"""A state declared once: its fields, from which ``clone``, JSON save/load and validation follow.

A game lists the fields of its state in one :class:`StateSchema`, each with its kind,
shape and bounds::

    SCHEMA = StateSchema("haus_der_sonne", [
        Int("round", 1, 2, doc="1 or 2"),
        IntList("disc", lambda g: 2 * C.NUM_DISCS, -1, 5, doc="segment of each disc, -1 = supply"),
        Nested("hand", (2, C.NUM_FACES), 0, 100, doc="cards in hand per player and face"),
        RngField(),
        Cache("_mask"),
    ])

and sets ``schema = SCHEMA`` on its State class.  From that one declaration:

* ``State.clone`` is generated code (one attribute copy per field, a slice per list, a
  slice per row of a nested list): as cheap as a hand-written clone, and a new field
  cannot be forgotten;
* ``State._to_dict`` / ``State._from_dict`` save and load every saved field, and loading
  checks each value's type, shape and bounds with an error that names the field (a
  :class:`~meeplezoo.envs.core.game.CorruptStateError`), and that the value is in the form
  the state saves it (:meth:`Field.in_saved_form`: a document that loads saves back to
  itself), then calls the game's ``validate()`` for what a schema cannot say (components
  conserved, phase consistency);
* ``State.from_position`` refuses unknown fields by name.

Bounds and lengths are numbers or functions of the :class:`Game` (for sizes that depend on
the player count or the options).  Fields that are not plain ints, bools or (nested) int
lists use :class:`Custom` with their own copy, dump and load functions; a field whose saved
form depends on the configuration (Kerala saves grid cells as board positions) overrides
:meth:`Field.dump_for`, which receives the game, and ``check``, which does too.  :class:`Cache`
fields are derived data (recomputed by ``refresh()``): they are never saved, and a clone
either shares them (immutable caches) or starts without them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .rng import Rng

if TYPE_CHECKING:  # pragma: no cover
    from .game import Game

Size = int | Callable[["Game"], int] | None
Bound = int | float | Callable[["Game"], int] | None

#: how :meth:`StateSchema.clone` copies a field
#: the depth of a list of lists of int lists (``Nested`` with a shape of three)
DEPTH3 = 3
COPY_VALUE, COPY_LIST, COPY_NESTED, COPY_NESTED3, COPY_CALL, COPY_SHARE, COPY_RESET = range(7)


class FieldError(ValueError):
    """A value that does not fit its field's declaration (converted to ``CorruptStateError`` on load)."""


def is_int(x: Any) -> bool:
    """Whether ``x`` is an int and not a bool (the one test of every int field)."""
    return type(x) is int or (isinstance(x, int) and not isinstance(x, bool))


def _resolve(v: Any, game: Game) -> Any:
    return v(game) if callable(v) else v


@dataclass(frozen=True)
class Field:
    """One field of a state.  Subclasses say how a value is checked, copied and saved."""

    name: str
    doc: str = field(default="", kw_only=True)
    #: saved by ``to_json`` (caches are not)
    saved: bool = field(default=True, kw_only=True)
    #: earlier names of the field, still accepted when loading older saves
    aliases: tuple[str, ...] = field(default=(), kw_only=True)
    copy_mode: int = field(default=COPY_VALUE, init=False, repr=False)

    def check(self, value: Any, game: Game) -> Any:
        """``value`` loaded from JSON, checked (raise :class:`FieldError` with the reason)."""
        return value

    def dump(self, value: Any) -> Any:
        return value

    def dump_for(self, value: Any, game: Game) -> Any:
        """``value`` as JSON in ``game``'s configuration (default :meth:`dump`); override it for data
        whose saved form depends on the configuration, e.g. grid cells saved as board positions."""
        return self.dump(value)

    def describe(self, game: Game | None = None) -> str:
        return type(self).__name__.lower()

    def in_saved_form(self, data: Any, value: Any, game: Game) -> bool:
        """Whether ``data`` (JSON) is what ``value``, loaded from it, saves as: a document loads only in
        the form the state writes, so save(load(doc)) == doc for every document that loads.  Override it
        to accept an older form that still loads (and say which)."""
        return self.dump_for(value, game) == data


def _bounds_text(lo: Any, hi: Any) -> str:
    return f"[{'-inf' if lo is None else lo}, {'inf' if hi is None else hi}]"


@dataclass(frozen=True)
class Int(Field):
    """An int in ``[lo, hi]`` (either end may be None)."""

    lo: Bound = None
    hi: Bound = None

    def check(self, value: Any, game: Game) -> Any:
        if not is_int(value):
            raise FieldError(f"must be an int, got {value!r}")
        lo, hi = _resolve(self.lo, game), _resolve(self.hi, game)
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise FieldError(f"={value} is outside {_bounds_text(lo, hi)}")
        return int(value)

    def describe(self, game: Game | None = None) -> str:
        if game is None:
            return "int"
        return f"int in {_bounds_text(_resolve(self.lo, game), _resolve(self.hi, game))}"


@dataclass(frozen=True)
class Bool(Field):
    """True or False."""

    def check(self, value: Any, game: Game) -> Any:
        if not isinstance(value, bool):
            raise FieldError(f"must be a bool, got {value!r}")
        return value


def _check_ints(v: Any, lo: Any, hi: Any, where: str) -> list[int]:
    if not isinstance(v, list):
        raise FieldError(f"{where}must be a list, got {type(v).__name__}")
    for x in v:
        if not is_int(x):
            raise FieldError(f"{where}must hold ints, got {x!r}")
        if (lo is not None and x < lo) or (hi is not None and x > hi):
            raise FieldError(f"{where}value {x} is outside {_bounds_text(lo, hi)}")
    return list(v)


@dataclass(frozen=True)
class IntList(Field):
    """A list of ints, each in ``[lo, hi]``; ``length`` fixed (int or function of the game) or None."""

    length: Size = None
    lo: Bound = None
    hi: Bound = None
    max_length: Size = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "copy_mode", COPY_LIST)

    def check(self, value: Any, game: Game) -> Any:
        out = _check_ints(value, _resolve(self.lo, game), _resolve(self.hi, game), "")
        n, mx = _resolve(self.length, game), _resolve(self.max_length, game)
        if n is not None and len(out) != n:
            raise FieldError(f"must have {n} entries, got {len(out)}")
        if mx is not None and len(out) > mx:
            raise FieldError(f"must have at most {mx} entries, got {len(out)}")
        return out

    def dump(self, value: Any) -> Any:
        return list(value)

    def describe(self, game: Game | None = None) -> str:
        if game is None:
            return "int list"
        n = _resolve(self.length, game)
        return f"{'' if n is None else n} ints in {_bounds_text(_resolve(self.lo, game), _resolve(self.hi, game))}"


@dataclass(frozen=True)
class BoolList(Field):
    """A list of bools of fixed ``length`` (int or function of the game)."""

    length: Size = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "copy_mode", COPY_LIST)

    def check(self, value: Any, game: Game) -> Any:
        if not isinstance(value, list) or not all(isinstance(x, bool) for x in value):
            raise FieldError(f"must be a list of bools, got {value!r}")
        n = _resolve(self.length, game)
        if n is not None and len(value) != n:
            raise FieldError(f"must have {n} entries, got {len(value)}")
        return list(value)

    def dump(self, value: Any) -> Any:
        return list(value)


@dataclass(frozen=True)
class Nested(Field):
    """A list of int lists (rows), shape ``(rows, cols)``; each size an int, a function of the game,
    or None (free).  ``depth=3`` declares a list of lists of int lists (shape of three)."""

    shape: tuple[Size, ...] = (None, None)
    lo: Bound = None
    hi: Bound = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "copy_mode", COPY_NESTED3 if len(self.shape) == DEPTH3 else COPY_NESTED)

    def check(self, value: Any, game: Game) -> Any:
        lo, hi = _resolve(self.lo, game), _resolve(self.hi, game)
        sizes = [_resolve(s, game) for s in self.shape]

        def walk(v: Any, depth: int, where: str) -> list:
            n = sizes[depth]
            if not isinstance(v, list):
                raise FieldError(f"{where}must be a list, got {type(v).__name__}")
            if n is not None and len(v) != n:
                raise FieldError(f"{where}must have {n} entries, got {len(v)}")
            if depth == len(sizes) - 1:
                return _check_ints(v, lo, hi, where)
            return [walk(x, depth + 1, f"{where}[{i}] ") for i, x in enumerate(v)]

        return walk(value, 0, "")

    def dump(self, value: Any) -> Any:
        if len(self.shape) == DEPTH3:
            return [[list(r) for r in m] for m in value]
        return [list(r) for r in value]


@dataclass(frozen=True)
class RngField(Field):
    """The state's :class:`~meeplezoo.envs.core.rng.Rng` (saved as its 64-bit state)."""

    name: str = "rng"

    def __post_init__(self) -> None:
        object.__setattr__(self, "copy_mode", COPY_CALL)

    def check(self, value: Any, game: Game) -> Any:
        if not is_int(value) or not 0 <= value < 2**64:
            raise FieldError(f"must be a 64-bit unsigned int, got {value!r}")
        return Rng(int(value))

    def dump(self, value: Any) -> Any:
        return value.s


@dataclass(frozen=True)
class Custom(Field):
    """A field with its own ``copy(value)``, ``dump(value) -> JSON`` and ``load(data, game) -> value``
    (``load`` raises ``FieldError``/``ValueError``/``TypeError`` on bad data).  ``copy=None`` shares
    the value (immutable data such as tuples)."""

    copy: Callable[[Any], Any] | None = None
    save: Callable[[Any], Any] | None = None
    load: Callable[[Any, Game], Any] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "copy_mode", COPY_VALUE if self.copy is None else COPY_CALL)

    def check(self, value: Any, game: Game) -> Any:
        return self.load(value, game) if self.load is not None else value

    def dump(self, value: Any) -> Any:
        return self.save(value) if self.save is not None else value


@dataclass(frozen=True)
class Cache(Field):
    """Derived data, never saved; ``share=True``: a clone shares it (it is never mutated in place),
    else a clone starts with ``reset`` (e.g. None) and the game recomputes it when needed.
    ``copy``: a function copying it instead (for mutable caches worth keeping)."""

    share: bool = True
    reset: Any = None
    copy: Callable[[Any], Any] | None = None
    saved: bool = field(default=False, kw_only=True)

    def __post_init__(self) -> None:
        mode = COPY_CALL if self.copy is not None else (COPY_SHARE if self.share else COPY_RESET)
        object.__setattr__(self, "copy_mode", mode)


def _short(data: Any, limit: int = 120) -> str:
    text = repr(data)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class StateSchema:
    """The declared fields of one game's state (see the module docstring)."""

    def __init__(self, game_name: str, fields: Sequence[Field]) -> None:
        names = [f.name for f in fields]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"{game_name}: state fields declared twice: {', '.join(dup)}")
        if "game" in names:
            raise ValueError(f"{game_name}: 'game' is not a state field (every state has it)")
        self.game_name = game_name
        self.fields: tuple[Field, ...] = tuple(fields)
        self.by_name: dict[str, Field] = {f.name: f for f in fields}
        self.saved: tuple[Field, ...] = tuple(f for f in fields if f.saved)
        self.saved_names: frozenset[str] = frozenset(f.name for f in self.saved)
        self.aliases: dict[str, str] = {a: f.name for f in self.saved for a in f.aliases}
        self._clone_src = self._clone_source()
        self._clone_fn: Callable[[Any], Any] | None = None

    # -- clone ---------------------------------------------------------------------
    def _clone_source(self) -> str:
        lines = ["def clone(self):", "    s = new(cls)", "    s.game = self.game"]
        for i, f in enumerate(self.fields):
            n, m = f.name, f.copy_mode
            if m == COPY_VALUE or m == COPY_SHARE:
                lines.append(f"    s.{n} = self.{n}")
            elif m == COPY_LIST:
                lines.append(f"    s.{n} = self.{n}[:]")
            elif m == COPY_NESTED:
                lines.append(f"    s.{n} = [r[:] for r in self.{n}]")
            elif m == COPY_NESTED3:
                lines.append(f"    s.{n} = [[r[:] for r in m] for m in self.{n}]")
            elif m == COPY_CALL and getattr(f, "copy", None) is list.copy:
                lines.append(f"    s.{n} = self.{n}[:]")
            elif m == COPY_RESET:
                lines.append(f"    s.{n} = reset_{i}")
            elif isinstance(f, RngField):
                lines.append(f"    s.{n} = self.{n}.clone()")
            else:
                lines.append(f"    s.{n} = copy_{i}(self.{n})")
        lines.append("    return s")
        return "\n".join(lines)

    def bind(self, cls: type) -> Callable[[Any], Any]:
        """The generated ``clone`` function for State class ``cls``."""
        ns: dict[str, Any] = {"new": object.__new__, "cls": cls}
        for i, f in enumerate(self.fields):
            if f.copy_mode == COPY_RESET:
                ns[f"reset_{i}"] = f.reset  # type: ignore[attr-defined]
            elif f.copy_mode == COPY_CALL and not isinstance(f, RngField) and f.copy is not list.copy:  # type: ignore[attr-defined]
                ns[f"copy_{i}"] = f.copy  # type: ignore[attr-defined]
        exec(self._clone_src, ns)  # noqa: S102 - generated from the declared field names only
        return ns["clone"]

    # -- JSON ------------------------------------------------------------------------
    def dump(self, state: Any) -> dict[str, Any]:
        """Every saved field as JSON-compatible data."""
        game = state.game
        return {f.name: f.dump_for(getattr(state, f.name), game) for f in self.saved}

    def load_into(self, state: Any, data: Any, error: Callable[[str], Exception]) -> None:
        """Set every saved field of ``state`` from ``data`` (checked), caches to their reset value."""
        if not isinstance(data, dict):
            raise error("state must be an object")
        if self.aliases and not self.aliases.keys().isdisjoint(data):
            data = {self.aliases.get(k, k): v for k, v in data.items()}
        keys = set(data)
        if keys != self.saved_names:
            raise error(f"state keys differ: missing {sorted(self.saved_names - keys)}, "
                        f"unexpected {sorted(keys - self.saved_names)}")
        game = state.game
        for f in self.fields:
            if not f.saved:
                setattr(state, f.name, getattr(f, "reset", None))
                continue
            try:
                setattr(state, f.name, f.check(data[f.name], game))
            except (FieldError, ValueError, TypeError, KeyError, IndexError) as e:
                msg = str(e)
                sep = "" if msg.startswith("=") else " "
                raise error(f"{f.name}{sep}{msg}") from None

    def check_saved_form(self, state: Any, data: dict[str, Any], error: Callable[[str], Exception]) -> None:
        """Raise ``error`` naming the first field of ``data`` (loaded into ``state``) that is not in the form
        the state saves it (:meth:`Field.in_saved_form`), e.g. elephants out of their order or a number
        where a decimal string is saved: a document that loads saves back to itself."""
        if self.aliases and not self.aliases.keys().isdisjoint(data):
            data = {self.aliases.get(k, k): v for k, v in data.items()}
        game = state.game
        for f in self.saved:
            value = getattr(state, f.name)
            if not f.in_saved_form(data[f.name], value, game):
                raise error(f"{f.name} is not in its saved form: {_short(data[f.name])} would be saved as "
                            f"{_short(f.dump_for(value, game))}")

    def assign(self, state: Any, fields: dict[str, Any]) -> None:
        """Overwrite fields of ``state`` by name (positions built by tests); lists are copied so the
        caller's stay untouched.  Unknown names and caches are refused."""
        for k, v in fields.items():
            f = self.by_name.get(k)
            if f is None or not f.saved:
                known = ", ".join(sorted(self.saved_names))
                raise ValueError(f"{self.game_name}: unknown state field {k!r}; fields: {known}")
            if isinstance(v, list):
                v = [[y[:] if isinstance(y, list) else y for y in x] if isinstance(x, list) else x for x in v]
            setattr(state, k, v)

    def table(self, game: Game | None = None) -> list[tuple[str, str, str]]:
        """``(name, kind, meaning)`` per saved field (documentation)."""
        return [(f.name, f.describe(game), f.doc) for f in self.saved]
