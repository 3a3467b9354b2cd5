"""Knobs: the settings of agents and trainers, each declared once.

A *knob* is one setting: its name, type, default, allowed range and a one-line doc.  A table of knobs
(:class:`Knobs`) is the single place a setting is defined; from it come

* validation with an error that names the setting, the owner and what was wrong
  (``mcts: sims must be an int >= 1, got 0``),
* parsing of agent specs (``mcts:sims=200:c=0.7`` -> ``{"sims": 200, "c": 0.7}``),
* command-line flags and their help (:meth:`Knobs.add_arguments`, :meth:`Knobs.from_args`),
* the saved ``config.json`` (:meth:`Knobs.to_json`, :meth:`Knobs.from_json`),
* the command line that reproduces a run (:meth:`Knobs.to_argv`).

Trainer configs are frozen dataclasses whose fields are declared with :func:`knob` (CleanRL's ``Args``:
default, doc and flag in one place) and checked by :func:`check_config` in ``__post_init__``;
:func:`knobs_of` reads the table back from the class.  Agents declare a :class:`Knobs` table directly.

This module imports nothing of the package: every layer above may use it.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Knob", "Knobs", "knob", "knobs_of", "check_config", "config_argv", "parse_value", "is_int"]

_MISSING = object()


def is_int(value: Any) -> bool:
    """Whether ``value`` is an integer: a Python int or a numpy integer scalar, never a bool (which Python
    counts as an int, and JSON, SQLite and spec text would hand back as one)."""
    return (isinstance(value, int) and not isinstance(value, bool)) or _is_np_int(value)


def parse_value(text: str) -> Any:
    """``'true'`` -> True, ``'3'`` -> 3, ``'0.5'`` -> 0.5, ``'none'`` -> None, anything else stays a string."""
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("none", "null"):
        return None
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


def _type_name(t: type | tuple[type, ...]) -> str:
    if isinstance(t, tuple):
        return " or ".join(x.__name__ for x in t)
    return {"int": "an int", "float": "a number", "bool": "true or false", "str": "a string"}.get(
        t.__name__, f"a {t.__name__}")


@dataclass(frozen=True)
class Knob:
    """One setting.

    ``type`` is ``int``, ``float`` (ints accepted), ``bool``, ``str``, ``dict``, ``tuple`` or ``object``
    (anything; ``check`` then does the work).  ``low``/``high`` bound numbers (inclusive, or exclusive with
    ``low_open``/``high_open``); ``choices`` restricts to a fixed set; ``optional`` admits None (then the
    default may be None: "not set").  ``check`` is an extra validator ``value -> value`` that raises
    ``ValueError`` with the reason (the knob adds its own name).  ``cli`` False keeps the knob off the
    command line (Python-only values such as an evaluator object); ``flag`` renames its flag.  ``repeat``
    makes a ``dict`` or ``tuple`` knob a repeatable flag (``--search-option rollout=heuristic``, one entry
    each); ``show`` writes a value as command-line text where the default form (JSON for mappings) would
    not read well; ``what`` says in words what a valid value is, where the type and range would not
    (``"a non-negative integer below 2**64"``).
    """

    name: str
    type: Any
    default: Any
    doc: str
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple[Any, ...] | None = None
    optional: bool = False
    check: Callable[[Any], Any] | None = None
    cli: bool = True
    flag: str | None = None
    metavar: str | None = None
    repeat: bool = False
    show: Callable[[Any], str] | None = None
    what: str | None = None

    # -- validation -------------------------------------------------------------------------------
    def describe(self) -> str:
        """What a valid value is, in words (used in errors and help)."""
        if self.what is not None:
            return self.what
        if self.choices is not None:
            return "one of " + ", ".join(str(c) for c in self.choices)
        what = _type_name(self.type) if self.type is not object else "a value"
        bounds = []
        if self.low is not None:
            bounds.append(f"{'>' if self.low_open else '>='} {_num(self.low)}")
        if self.high is not None:
            bounds.append(f"{'<' if self.high_open else '<='} {_num(self.high)}")
        if len(bounds) == 2 and not self.low_open and not self.high_open:
            return f"{what} in [{_num(self.low)}, {_num(self.high)}]"
        return " ".join([what, " and ".join(bounds)]).strip()

    def validate(self, value: Any, who: str) -> Any:
        """``value`` checked and normalised (ints to float for float knobs), or ValueError naming it."""
        if value is None:
            if self.optional or self.default is None:
                return None
            raise ValueError(self._bad(who, value))
        if self.choices is not None:
            if not any(value == c and type(value) is type(c) for c in self.choices):
                raise ValueError(self._bad(who, value))
        elif self.type is not object and not self._type_ok(value):
            raise ValueError(self._bad(who, value))
        if self.type is float or self.type == (int, float):
            value = float(value) if self.type is float else value
            if not math.isfinite(value):
                raise ValueError(self._bad(who, value))
        elif self.type is int:
            value = int(value)
        if self.low is not None and (value <= self.low if self.low_open else value < self.low):
            raise ValueError(self._bad(who, value))
        if self.high is not None and (value >= self.high if self.high_open else value > self.high):
            raise ValueError(self._bad(who, value))
        if self.check is not None:
            try:
                value = self.check(value)
            except ValueError as e:
                raise ValueError(f"{who}: {self.name} {e}") from None
        return value

    def _type_ok(self, value: Any) -> bool:
        t = self.type
        if t is bool:
            return isinstance(value, bool)
        if t is int:
            return is_int(value)
        if t is float or t == (int, float):
            return (isinstance(value, (int, float)) and not isinstance(value, bool)) or _is_np_int(value)
        if t is tuple:
            return isinstance(value, (tuple, list))
        return isinstance(value, t)

    def _bad(self, who: str, value: Any) -> str:
        extra = " (or none)" if self.optional and self.default is not None else ""
        return f"{who}: {self.name} must be {self.describe()}{extra}, got {value!r}"

    # -- text forms (specs, argv) -------------------------------------------------------------------
    def from_text(self, text: str, who: str) -> Any:
        """The value a spec or command line gives as text, parsed for this knob and validated."""
        if self.type is str and self.choices is None:
            value: Any = None if text.strip().lower() == "none" and self.optional else text
        elif self.type in (dict, tuple):
            try:
                value = json.loads(text)
            except json.JSONDecodeError:
                if self.type is tuple:
                    value = [t.strip() for t in text.split(",") if t.strip()]
                else:
                    raise ValueError(f"{who}: {self.name} must be a JSON object, got {text!r}") from None
        else:
            value = parse_value(text)
            if self.type is str and self.choices is not None:
                value = text
        return self.validate(value, who)

    def to_text(self, value: Any) -> str:
        """``value`` as the text :meth:`from_text` reads back."""
        if self.show is not None and value is not None:
            return self.show(value)
        if isinstance(value, bool):
            return "true" if value else "false"
        if value is None:
            return "none"
        if isinstance(value, (list, tuple)) and all(isinstance(v, str) and v and "," not in v for v in value):
            return ",".join(value)
        if isinstance(value, (dict, list, tuple)):
            return json.dumps(list(value) if isinstance(value, tuple) else value, separators=(",", ":"))
        return str(value)

    def arg_type(self, who: str) -> Callable[[str], Any]:
        """The argparse ``type=`` of this knob's flag (of one occurrence, for a repeatable one): text ->
        validated value, a bad value an argparse error naming the flag."""
        return _Item(self, who) if self.repeat else _Parser(self, who)

    @property
    def flag_name(self) -> str:
        return self.flag or "--" + self.name.replace("_", "-")


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def _is_np_int(value: Any) -> bool:
    kind = getattr(getattr(value, "dtype", None), "kind", None)
    return kind in ("i", "u") and getattr(value, "ndim", 1) == 0


class Knobs:
    """A table of knobs for one owner (``who``: the name errors start with, e.g. ``"mcts"``)."""

    def __init__(self, who: str, knobs: Iterable[Knob]) -> None:
        self.who = who
        self._knobs: dict[str, Knob] = {}
        for k in knobs:
            if k.name in self._knobs:
                raise ValueError(f"{who}: knob {k.name!r} declared twice")
            self._knobs[k.name] = k

    def __iter__(self) -> Iterator[Knob]:
        return iter(self._knobs.values())

    def __contains__(self, name: object) -> bool:
        return name in self._knobs

    def __getitem__(self, name: str) -> Knob:
        return self._knobs[name]

    def __len__(self) -> int:
        return len(self._knobs)

    @property
    def names(self) -> list[str]:
        return list(self._knobs)

    def defaults(self) -> dict[str, Any]:
        return {k.name: k.default for k in self}

    def extend(self, who: str, knobs: Iterable[Knob], drop: Iterable[str] = ()) -> Knobs:
        """A new table: these knobs (less ``drop``; a knob of ``knobs`` with the same name replaces one in
        its place) followed by the rest of ``knobs``."""
        new = {k.name: k for k in knobs}
        dropped = set(drop)
        kept = [new.pop(k.name, k) for k in self if k.name not in dropped]
        return Knobs(who, [*kept, *new.values()])

    # -- validation -----------------------------------------------------------------------------------
    def unknown(self, names: Iterable[str]) -> None:
        bad = [n for n in names if n not in self._knobs]
        if bad:
            raise ValueError(f"{self.who}: unknown option{'s' if len(bad) > 1 else ''} "
                             f"{', '.join(map(repr, bad))}; known options: {', '.join(self._knobs) or 'none'}")

    def validate(self, values: Mapping[str, Any], *, fill: bool = True) -> dict[str, Any]:
        """``values`` checked knob by knob (unknown names refused), with defaults filled in if ``fill``."""
        self.unknown(values)
        out = self.defaults() if fill else {}
        for name, v in values.items():
            out[name] = self._knobs[name].validate(v, self.who)
        return out

    def parse_options(self, options: Mapping[str, str]) -> dict[str, Any]:
        """Spec options given as text (``{"sims": "200"}``) -> validated values (not filled)."""
        self.unknown(options)
        return {n: self._knobs[n].from_text(str(t), self.who) for n, t in options.items()}

    # -- command line ------------------------------------------------------------------------------------
    def add_arguments(self, parser: argparse.ArgumentParser | Any, *, skip: Iterable[str] = (),
                      defaults: Mapping[str, Any] | None = None) -> None:
        """One flag per knob (``--rollout-depth``), its help the knob's doc, range and default.  Flags
        default to a sentinel so that :meth:`from_args` knows which were given; a bool flag alone means
        true (``--self-play``)."""
        skipped = set(skip)
        over = dict(defaults or {})
        for k in self:
            if not k.cli or k.name in skipped:
                continue
            shown = over.get(k.name, k.default)
            help_text = f"{k.doc} ({k.describe()}; default: {k.to_text(shown)})".replace("%", "%%")
            if k.repeat:
                parser.add_argument(k.flag_name, dest=k.name, default=None, action="append",
                                    metavar=k.metavar or ("KEY=VALUE" if k.type is dict else k.name.upper()),
                                    type=_Item(k, self.who), help=help_text + "; repeatable")
                continue
            extra: dict[str, Any] = {"nargs": "?", "const": True} if k.type is bool else {}
            parser.add_argument(k.flag_name, dest=k.name, default=_MISSING, metavar=k.metavar or k.name.upper(),
                                type=_Parser(k, self.who), help=help_text, **extra)

    def from_args(self, ns: argparse.Namespace, *, given_only: bool = False) -> dict[str, Any]:
        """The knobs' values from parsed flags: those given, plus the defaults unless ``given_only``."""
        out = {} if given_only else self.defaults()
        for k in self:
            v = getattr(ns, k.name, _MISSING)
            if k.repeat and v is not None and v is not _MISSING:
                out[k.name] = k.validate(dict(v) if k.type is dict else tuple(v), self.who)
            elif v is not _MISSING and not k.repeat:
                out[k.name] = v
        return out

    def to_argv(self, values: Mapping[str, Any], *, skip: Iterable[str] = ()) -> list[str]:
        """The flags that give ``values`` (only those that differ from the defaults), in table order."""
        skipped = set(skip)
        argv: list[str] = []
        for k in self:
            if k.name in skipped or not k.cli or k.name not in values:
                continue
            v = values[k.name]
            if _same(v, k.default):
                continue
            if k.repeat and k.type is dict:
                argv += [a for key, item in v.items() for a in (k.flag_name, f"{key}={_plain_text(item)}")]
            elif k.repeat:
                argv += [a for item in v for a in (k.flag_name, str(item))]
            else:
                argv += [k.flag_name, k.to_text(v)]
        return argv

    # -- saved form -------------------------------------------------------------------------------------
    def to_json(self, values: Mapping[str, Any]) -> dict[str, Any]:
        return {k.name: (list(values[k.name]) if isinstance(values[k.name], tuple) else values[k.name])
                for k in self if k.name in values}

    def from_json(self, data: Mapping[str, Any]) -> dict[str, Any]:
        if not isinstance(data, Mapping):
            raise ValueError(f"{self.who}: a saved config must be a JSON object, got {type(data).__name__}")
        return self.validate(data)

    def spec_text(self, values: Mapping[str, Any]) -> str:
        """``:k=v`` parts for the non-default values (an agent spec's tail)."""
        return "".join(f":{k.name}={k.to_text(values[k.name])}" for k in self
                       if k.name in values and not _same(values[k.name], k.default))

    def markdown(self) -> str:
        """The table as Markdown (name, default, range, doc) for the docs."""
        rows = ["| option | default | values | meaning |", "|---|---|---|---|"]
        rows += [f"| `{k.name}` | `{k.to_text(k.default)}` | {k.describe()} | {k.doc} |" for k in self]
        return "\n".join(rows)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, tuple) or isinstance(b, tuple):
        return list(a) == list(b) if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)) else False
    return type(a) is type(b) and a == b or (isinstance(a, (int, float)) and isinstance(b, (int, float))
                                              and not isinstance(a, bool) and not isinstance(b, bool) and a == b)


def _plain_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "none" if value is None else str(value)


class _Parser:
    """argparse ``type=``: text -> validated value, errors as argparse errors naming the flag."""

    def __init__(self, knob: Knob, who: str) -> None:
        self.knob, self.who = knob, who
        self.__name__ = {int: "integer", float: "number"}.get(knob.type, knob.name)

    def __call__(self, text: str) -> Any:
        try:
            return self.knob.from_text(text, self.who)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None


class _Item:
    """argparse ``type=`` of one occurrence of a repeatable flag: ``KEY=VALUE`` (a dict knob) or an item."""

    def __init__(self, knob: Knob, who: str) -> None:
        self.knob, self.who = knob, who
        self.__name__ = knob.name

    def __call__(self, text: str) -> Any:
        if self.knob.type is not dict:
            return text
        key, sep, value = text.partition("=")
        if not sep or not key.strip():
            raise argparse.ArgumentTypeError(f"{self.who}: {self.knob.name} expects KEY=VALUE, got {text!r}")
        return key.strip(), parse_value(value.strip())


# -- dataclass configs ------------------------------------------------------------------------------------
def knob(default: Any, doc: str, type: Any = None, **kw: Any) -> Any:
    """A dataclass field declared as a knob: ``sims: int = knob(64, "simulations per decision", low=1)``.
    ``type`` defaults to the default's type (float for a float default; give it for None defaults)."""
    t = type if type is not None else (object if default is None else builtins_type(default))
    spec = {"type": t, "default": default, "doc": doc, **kw}
    if isinstance(default, (dict, list)):
        factory_value = default
        return dataclasses.field(default_factory=lambda: _copy(factory_value), metadata={"knob": spec})
    return dataclasses.field(default=default, metadata={"knob": spec})


def builtins_type(value: Any) -> Any:
    return value.__class__ if not isinstance(value, list) else tuple


def _copy(v: Any) -> Any:
    return json.loads(json.dumps(v))


def knobs_of(cls: type, who: str | None = None) -> Knobs:
    """The knob table of a dataclass declared with :func:`knob` (fields without it are not knobs)."""
    out = []
    for f in dataclasses.fields(cls):
        spec = f.metadata.get("knob")
        if spec is not None:
            out.append(Knob(name=f.name, **spec))
    return Knobs(who or getattr(cls, "who", cls.__name__), out)


def check_config(obj: Any, who: str | None = None) -> None:
    """Validate a frozen dataclass config knob by knob (call from ``__post_init__``): bad values raise
    ValueError naming the field; float knobs given ints are stored as floats, tuple knobs as tuples."""
    table = knobs_of(type(obj), who)
    for k in table:
        v = k.validate(getattr(obj, k.name), table.who)
        if k.type is tuple and v is not None:
            v = tuple(v)
        object.__setattr__(obj, k.name, v)


def config_argv(obj: Any, *, skip: Sequence[str] = ()) -> list[str]:
    """The flags that rebuild ``obj`` (a knob dataclass) from its class defaults."""
    table = knobs_of(type(obj))
    return table.to_argv({k.name: getattr(obj, k.name) for k in table}, skip=skip)
