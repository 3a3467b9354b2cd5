"""The engine protocol every meeplezoo game implements.

In the spirit of OpenSpiel's Game/State split:

* a :class:`Game` holds the static facts of one configuration (player count,
  variant, rule options, size of the flat action space, observation layout);
* a :class:`State` holds one mutable position and knows the rules: legal
  actions, ``apply``, scoring, observations, serialisation.

Nothing in this module knows PettingZoo or any particular game.  Chance is
resolved inside ``apply`` from the state's own :class:`~meeplezoo.envs.core.rng.Rng`
(or from piles shuffled at setup), so ``(config, seed, actions)`` replays a game
exactly, and ``clone()`` replays the same future unless the copy is re-seeded.
"""

from __future__ import annotations

import importlib
import json
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from .fields import StateSchema
from .observation import ObservationSpec, Observer, StateObserver, spec_from_layout
from .render import text_to_rgb
from .rng import Rng, as_rng

#: the builder of observation layouts (declared blocks with shapes, ranges and meanings)
Layout = ObservationSpec

#: legal actions named in an illegal-action message
SHOWN_LEGAL = 12
REWARD_MODES = ("win", "rank", "score")
SAVE_FORMAT = 1


class IllegalActionError(ValueError):
    """An action that is not legal in the current position (the state is unchanged)."""


def check_action(action: Any, game: str = "") -> int:
    """``action`` as a Python int if it is a Python int or a numpy integer (not a bool).

    Anything else raises :class:`IllegalActionError` naming the value and its type: a float
    that happens to be whole is refused too, and so are infinities (no ``OverflowError``)."""
    if isinstance(action, (int, np.integer)) and not isinstance(action, bool):
        return int(action)
    prefix = f"{game}: " if game else ""
    raise IllegalActionError(f"{prefix}action must be an int, got {action!r} ({type(action).__name__})")


class CorruptStateError(ValueError):
    """A saved state that cannot be loaded (truncated, edited or for another game)."""


@dataclass(frozen=True)
class Option:
    """A rule option of a game, with its documented default.

    ``choices`` restricts the value to a fixed set; otherwise ``type`` is
    checked (bool options accept only bools, int options only ints, ...).
    ``bounds`` (inclusive) constrains numeric options.  ``extremes`` lists allowed values
    at the edges of a structured option's range (lists, dicts, whose limits the game checks
    in its ``_setup``), so tests can play every option at its extremes.  ``observation_only``
    marks an option that changes what players are shown and nothing of the rules (e.g.
    ``derived_features``): games that differ only in such options play the same game, and a
    network trained with one observation can play in the other (see :attr:`Game.rule_options`).
    """

    name: str
    default: Any
    doc: str = ""
    choices: tuple[Any, ...] | None = None
    type: type | tuple[type, ...] | None = None
    bounds: tuple[float | None, float | None] | None = None
    extremes: tuple[Any, ...] = ()
    observation_only: bool = False

    def validate(self, value: Any, game: str) -> Any:
        """``value`` checked against ``choices``, ``type`` and ``bounds`` (a ValueError names the option and what is
        allowed); an int given for a float option comes back as a float."""
        if self.choices is not None:
            if not any(value == c and type(value) is type(c) for c in self.choices):
                raise ValueError(
                    f"{game}: option {self.name}={value!r} is not allowed; "
                    f"allowed values: {', '.join(repr(c) for c in self.choices)}"
                )
            return value
        expected = self.type if self.type is not None else type(self.default)
        ok = isinstance(value, expected)
        if isinstance(value, bool) and expected in (int, float, (int, float)):
            ok = False
        if expected is float and isinstance(value, int) and not isinstance(value, bool):
            ok, value = True, float(value)
        if not ok:
            names = expected.__name__ if isinstance(expected, type) else "/".join(t.__name__ for t in expected)
            raise ValueError(
                f"{game}: option {self.name} must be of type {names}, got {value!r} ({type(value).__name__})"
            )
        if self.bounds is not None:
            lo, hi = self.bounds
            if (lo is not None and value < lo) or (hi is not None and value > hi):
                raise ValueError(f"{game}: option {self.name}={value!r} is outside [{lo}, {hi}]")
        return value


class Game(ABC):
    """Static facts of one game configuration.

    Subclasses set the class attributes and implement :meth:`new_state` and
    :meth:`_setup` (which computes ``num_actions`` from ``self.num_players`` and
    ``self.options``).  The observation is declared by the game's observer class
    (``observer_ref``, e.g. ``".observation:KeralaObserver"``, looked up in the game's package
    when first needed, so the rules module never imports it); a game without one sets
    ``observation_layout`` in ``_setup`` and implements ``State.observe`` itself.
    """

    #: registry id, e.g. ``"kerala"``
    name: ClassVar[str]
    #: PettingZoo-style versioned name, e.g. ``"kerala_v0"``
    env_name: ClassVar[str]
    #: display name, e.g. ``"Kerala"``
    pretty_name: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    default_players: ClassVar[int]
    #: rule options (every ASSUMPTION of the rules file), with defaults
    options_spec: ClassVar[tuple[Option, ...]] = ()
    #: divisor of the score margin in ``reward_mode="score"``
    score_scale: ClassVar[float] = 50.0
    #: whether players hold private information (beyond shared chance)
    hidden_information: ClassVar[bool] = False
    #: the State subclass of this game (for ``state_from_json``)
    state_class: ClassVar[type[State]]
    #: bumped whenever the observation layout changes (checkpoints record it)
    observation_version: ClassVar[int] = 1
    #: option sets measured as extra rows by ``meeplezoo bench`` (e.g. a costlier observation)
    bench_variants: ClassVar[tuple[dict[str, Any], ...]] = ()
    #: ``".module:Class"`` of the game's :class:`~meeplezoo.envs.core.observation.Observer`
    observer_ref: ClassVar[str | None] = None
    #: ``".module"`` with ``render_text(state, ...)`` and ``render_rgb(state)``
    renderer_ref: ClassVar[str | None] = None

    num_actions: int
    observation_layout: dict[str, slice]
    observation_spec: ObservationSpec

    def __init__(self, num_players: int | None = None, **options: Any) -> None:
        if num_players is None:
            num_players = self.default_players
        if isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer)):
            raise ValueError(f"{self.name}: num_players must be an int, got {num_players!r}")
        if not self.min_players <= num_players <= self.max_players:
            raise ValueError(
                f"{self.name}: num_players={num_players} is not supported; "
                f"allowed: {self.min_players}..{self.max_players}"
            )
        self.num_players = int(num_players)
        self.options = self.resolve_options(options)
        self._setup()
        spec = self.__dict__.get("observation_spec")
        if spec is None:
            oc = self.observer_class()
            spec = oc.declare(self) if oc is not None else spec_from_layout(self.observation_layout)
            self.observation_spec = spec
        self.observation_layout = spec.layout
        self._observation_shape = (spec.size,)
        self._observer: Observer | None = None

    # -- configuration -------------------------------------------------
    @classmethod
    def option_names(cls) -> list[str]:
        """The names of the rule options, in declaration order."""
        return [o.name for o in cls.options_spec]

    @classmethod
    def resolve_options(cls, options: dict[str, Any]) -> dict[str, Any]:
        """Defaults updated with ``options``; unknown names or bad values raise ``ValueError``."""
        spec = {o.name: o for o in cls.options_spec}
        unknown = sorted(set(options) - set(spec))
        if unknown:
            raise ValueError(
                f"{cls.name}: unknown option(s) {', '.join(unknown)}; "
                f"known options: {', '.join(spec) or '(none)'}"
            )
        return {
            name: (o.validate(options[name], cls.name) if name in options else o.default) for name, o in spec.items()
        }

    @property
    def config(self) -> dict[str, Any]:
        """Everything needed to rebuild this Game: ``type(game)(**game.config)``."""
        return {"num_players": self.num_players, **self.options}

    @property
    def non_default_options(self) -> dict[str, Any]:
        """The options set to something other than their default."""
        return {o.name: self.options[o.name] for o in self.options_spec if self.options[o.name] != o.default}

    @property
    def rule_options(self) -> dict[str, Any]:
        """The non-default options that change the rules (``observation_only`` options left out): two
        configurations with equal ``rule_options`` play the same game and may differ only in what their
        observations show."""
        return self.rule_options_of(self.non_default_options)

    @classmethod
    def rule_options_of(cls, options: Mapping[str, Any]) -> dict[str, Any]:
        """``options`` (e.g. a checkpoint's recorded non-default options) without the ``observation_only``
        ones."""
        obs_only = {o.name for o in cls.options_spec if o.observation_only}
        return {k: v for k, v in options.items() if k not in obs_only}

    def same_rules(self, other: Game) -> bool:
        """Whether ``other`` plays the same game as this one: the same game, player count and
        :attr:`rule_options` (their observations may differ)."""
        return (self is other or self == other) or (
            other.name == self.name and other.num_players == self.num_players
            and other.rule_options == self.rule_options)

    @abstractmethod
    def _setup(self) -> None:
        """Compute ``num_actions`` (and the game's static tables) for this configuration."""

    # -- observation and rendering -----------------------------------------
    @classmethod
    def observer_class(cls) -> type[Observer] | None:
        """The game's observer class (``observer_ref``), or None for a game that observes in ``State.observe``."""
        return _resolve(cls, "observer_ref") if cls.observer_ref else None

    @classmethod
    def renderer(cls) -> Any:
        """The game's rendering module (``renderer_ref``)."""
        if not cls.renderer_ref:
            raise NotImplementedError(f"{cls.__name__} has no renderer_ref")
        return _resolve(cls, "renderer_ref")

    def make_observer(self) -> Observer:
        """A new observer of this configuration, with caches of its own (one per environment)."""
        oc = self.observer_class()
        return oc(self) if oc is not None else StateObserver(self)

    @property
    def observer(self) -> Observer:
        """The default observer, used by ``State.observe``."""
        obs = self._observer
        if obs is None:
            obs = self._observer = self.make_observer()
        return obs

    def __getstate__(self) -> dict[str, Any]:
        d = dict(self.__dict__)
        d["_observer"] = None  # caches stay in the process that built them
        return d

    @property
    def observation_shape(self) -> tuple[int, ...]:
        """Shape of :meth:`State.observe` (computed once from the layout)."""
        return self._observation_shape

    @property
    def state_shape(self) -> tuple[int, ...]:
        """Shape of :meth:`State.state_vector` (the centralised-critic state)."""
        return (self.num_players * self.observation_shape[0],)

    # -- states ---------------------------------------------------------
    def new_state(self, seed: int | None = None) -> State:
        """A fresh game after setup, all setup chance drawn from ``seed`` (``state_class.initial``)."""
        return self.state_class.initial(self, seed)

    def state_from_json(self, text: str) -> State:
        """A state saved by :meth:`State.to_json`, refused (:class:`CorruptStateError`) if it is of another
        configuration."""
        state = self.state_class.from_json(text)
        if state.game.config != self.config:
            raise CorruptStateError(
                f"{self.name}: saved state has configuration {state.game.config}, expected {self.config}"
            )
        return state

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.non_default_options.items())
        return f"{type(self).__name__}(num_players={self.num_players}{', ' + opts if opts else ''})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.config == self.config  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, json.dumps(self.config, sort_keys=True)))


class State(ABC):
    """One position of a game.  Mutable: :meth:`apply` changes it in place.

    Subclasses implement the abstract methods; :meth:`apply` here validates
    the action and delegates to :meth:`_apply`, so an illegal action raises
    :class:`IllegalActionError` and leaves the state unchanged.

    The lifecycle, the same names in every game:

    * :meth:`initial` (classmethod): the position after setup, chance from ``seed``
      (``Game.new_state`` calls it);
    * :meth:`from_position` (classmethod): a setup position with named fields overwritten,
      the way tests build positions;
    * :meth:`refresh`: recompute derived data (caches) after fields were edited;
    * :meth:`validate`: raise :class:`CorruptStateError` if an invariant the schema cannot
      express is broken (components conserved, phase consistency); loading calls it.

    A game declares its fields once in ``schema`` (a :class:`~meeplezoo.envs.core.fields.StateSchema`);
    ``clone`` (generated code), ``to_json``/``from_json`` and the per-field type and bounds
    checks of loading follow from it.
    """

    game: Game
    #: index of the player to decide, or -1 once the game is over
    current_player: int
    #: the declared fields (None: the game writes clone/_to_dict/_from_dict itself)
    schema: ClassVar[StateSchema | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        schema = cls.__dict__.get("schema")
        if schema is not None and "clone" not in cls.__dict__:
            cls.clone = schema.bind(cls)  # type: ignore[method-assign]

    # -- lifecycle ---------------------------------------------------------
    @classmethod
    def initial(cls, game: Game, seed: int | None = None) -> State:
        """The position after setup, every setup draw from ``seed``."""
        raise NotImplementedError(f"{cls.__name__} does not implement initial()")

    @classmethod
    def from_position(cls, game: Game, seed: int = 0, **fields: Any) -> State:
        """A setup position (from ``seed``) with ``fields`` overwritten by name (unknown names are
        refused; lists are copied), then :meth:`refresh`: the way tests build positions."""
        s = cls.initial(game, seed)
        if cls.schema is None:
            raise NotImplementedError(f"{cls.__name__} declares no schema; from_position needs one")
        cls.schema.assign(s, fields)
        s.refresh()
        return s

    def refresh(self) -> None:
        """Recompute derived data (caches) after fields were edited (default: nothing to do)."""
        return None

    def validate(self) -> None:
        """Raise :class:`CorruptStateError` naming a broken invariant (default: none to check)."""
        return None

    # -- rules ------------------------------------------------------------
    @abstractmethod
    def legal_mask(self) -> np.ndarray:
        """The legal actions as a boolean array of length ``game.num_actions``; never all False
        before the end.

        The contract, the same in every game: a **read-only** array (``flags.writeable`` is
        False) that the state may share with its clones and keep as a cache; it is valid until
        the state changes.  Copy it (``mask.copy()``) to keep or modify it."""

    def legal_actions(self) -> list[int]:
        """The legal action ids, ascending (``legal_mask()``'s true entries)."""
        return np.flatnonzero(self.legal_mask()).tolist()

    def is_legal(self, action: int) -> bool:
        """Override with a cheaper check where the engine can."""
        return 0 <= action < self.game.num_actions and bool(self.legal_mask()[action])

    def apply(self, action: int) -> None:
        """Play ``action`` for ``current_player`` (chance resolved inside).

        ``action`` is a Python int or a numpy integer; anything else (bools, floats even when
        whole, strings, None) raises :class:`IllegalActionError`, like an illegal int."""
        a = action if type(action) is int else check_action(action, self.game.name)
        if self.is_terminal():
            raise IllegalActionError(f"{self.game.name}: the game is over; no action {action!r} can be applied")
        if not self.is_legal(a):
            raise IllegalActionError(self.illegal_message(a))
        self._apply(a)

    def illegal_message(self, action: Any) -> str:
        """The message of the error an illegal ``action`` raises: the action, the player, the legal actions by name."""
        legal = self.legal_actions()
        shown = ", ".join(f"{a} ({self.action_name(a)})" for a in legal[:SHOWN_LEGAL])
        more = f", ... ({len(legal)} in all)" if len(legal) > SHOWN_LEGAL else ""
        try:
            what = f"{action} ({self.action_name(int(action))})"
        except Exception:  # noqa: BLE001 - the action may be out of range or not an int
            what = repr(action)
        return f"{self.game.name}: illegal action {what} for player {self.current_player}; legal: {shown}{more}"

    @abstractmethod
    def _apply(self, action: int) -> None:
        """Apply a legal action (no validation: search may call this directly)."""

    @abstractmethod
    def is_terminal(self) -> bool:
        """Whether the game is over (finished by the rules, or cut off: see :meth:`is_truncated`)."""

    def is_truncated(self) -> bool:
        """Whether the game was cut off by a safety limit rather than finished by the rules
        (then also :meth:`is_terminal`, and :meth:`returns` are zeros: nobody won)."""
        return False

    @abstractmethod
    def scores(self) -> list[float]:
        """Each player's score (final once terminal, provisional before)."""

    def rank_keys(self) -> list[tuple]:
        """Per player a key; larger is better.  Override to add the game's tie-breaks."""
        return [(s,) for s in self.scores()]

    def placements(self) -> list[int]:
        """Finishing position per player, 0 = first; tied players share a position."""
        keys = self.rank_keys()
        return [sum(1 for other in keys if other > k) for k in keys]

    def winners(self) -> list[int]:
        """The players in first place (several on a shared win)."""
        return [p for p, r in enumerate(self.placements()) if r == 0]

    def returns(self, reward_mode: str = "win") -> np.ndarray:
        """Terminal reward per player by ``reward_mode`` (see DESIGN.md); zeros before the end."""
        if reward_mode not in REWARD_MODES:
            raise ValueError(f"unknown reward_mode {reward_mode!r}; allowed: {', '.join(REWARD_MODES)}")
        n = self.game.num_players
        if not self.is_terminal() or self.is_truncated():
            return np.zeros(n, dtype=np.float64)
        return compute_returns(self.placements(), self.scores(), reward_mode, self.game.score_scale)

    # -- information -----------------------------------------------------------
    def observe(self, player: int) -> np.ndarray:
        """Player's information state: float32 of ``game.observation_shape``, egocentric (built by
        the game's default observer, ``game.observer``).  ``player`` must be a seat: ``0 <= player <
        num_players`` (at the end of a game ``current_player`` is -1, which is no seat)."""
        n = self.game.num_players
        if isinstance(player, bool) or not isinstance(player, (int, np.integer)) or not 0 <= player < n:
            raise ValueError(f"observe: player must be a seat 0..{n - 1}, got {player!r}")
        return self.game.observer.observe(self, int(player))

    def state_vector(self) -> np.ndarray:
        """Global state for a centralised critic (default: every seat's observation)."""
        return np.concatenate([self.observe(p) for p in range(self.game.num_players)])

    def determinize(self, player: int, rng: Any = None) -> State:
        """A full state consistent with what ``player`` has seen, resampling what they can't know.

        The default (for games whose only hidden information is chance not yet
        drawn) is a clone whose future chance is re-seeded; games with piles or
        hands override it.
        """
        s = self.clone()
        s.reseed(as_rng(rng).next64())
        return s

    def reseed(self, seed: int) -> None:
        """Give the state a new chance stream (future draws change, the past does not)."""
        rng = getattr(self, "rng", None)
        if isinstance(rng, Rng):
            self.rng = Rng(seed)

    # -- copies and persistence ------------------------------------------------
    def clone(self) -> State:
        """An independent copy (cheap: no deepcopy; generated from ``schema``)."""
        raise NotImplementedError(f"{type(self).__name__} declares no schema and no clone()")

    def _to_dict(self) -> dict[str, Any]:
        """The position as JSON-compatible data (without the config): every saved schema field."""
        if self.schema is None:
            raise NotImplementedError(f"{type(self).__name__} declares no schema and no _to_dict()")
        return self.schema.dump(self)

    @classmethod
    def _from_dict(cls, game: Game, data: dict[str, Any]) -> State:
        """Rebuild from :meth:`_to_dict` output: every field checked against the schema (bounds and
        saved form), then :meth:`refresh` and :meth:`validate`, and a position that is not over must
        have a legal action; anything inconsistent raises ``CorruptStateError``."""
        schema = cls.schema
        if schema is None:
            raise NotImplementedError(f"{cls.__name__} declares no schema and no _from_dict()")
        s = cls.__new__(cls)
        s.game = game
        def error(msg: str) -> CorruptStateError:
            return CorruptStateError(f"{game.name}: corrupt saved state: {msg}")

        schema.load_into(s, data, error)
        s.refresh()
        s.validate()
        schema.check_saved_form(s, data, error)  # after validate: a broken invariant is the better message
        if not s.is_terminal():
            if not s.legal_mask().any():  # no decision ever has an empty mask
                raise error("the position is not over and has no legal action")
            problem = s._turn_cannot_be_played()
            if problem:
                raise error(problem)
        return s

    #: decisions explored at most when a loaded position's turn is played out (_turn_cannot_be_played)
    LOAD_TURN_SEARCH = 200

    def _turn_cannot_be_played(self) -> str | None:
        """Why the player to move cannot finish his turn from this position (a depth-first search over his
        decisions until another player is to move or the game ends), or None.  A turn of several
        decisions keeps what was chosen so far in its fields; a loaded combination the rules never build
        plays into a decision with no legal action (or an error) a few steps later.  Bounded by
        :attr:`LOAD_TURN_SEARCH` decisions: a turn not refuted within them is accepted."""
        player = self.current_player
        budget = [self.LOAD_TURN_SEARCH]
        failure: list[str] = []

        def completes(state: State) -> bool | None:  # None: budget spent
            for action in state.legal_actions():
                if budget[0] <= 0:
                    return None
                budget[0] -= 1
                nxt = state.clone()
                try:
                    nxt.apply(action)
                    if nxt.is_terminal() or nxt.current_player != player:
                        return True
                    if not nxt.legal_mask().any():
                        failure.append(f"after {state.action_name(action)!r} no legal action is left")
                        continue
                except Exception as e:  # noqa: BLE001 - an engine error here means the fields disagree
                    failure.append(f"{state.action_name(action)!r} fails ({type(e).__name__}: {e})")
                    continue
                done = completes(nxt)
                if done is not False:
                    return done
            return False

        if completes(self) is False:
            return f"the turn in progress cannot be finished: {failure[0] if failure else 'no way on'}"
        return None

    def to_json(self) -> str:
        """The state as JSON text (format, game, configuration and the declared fields): a save that
        :meth:`from_json` loads and checks."""
        return json.dumps(
            {"format": SAVE_FORMAT, "game": self.game.name, "config": self.game.config, "state": self._to_dict()},
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, text: str | bytes) -> State:
        """A state from :meth:`to_json` text, every field checked against the schema and the game's invariants;
        anything else raises :class:`CorruptStateError` naming the problem."""
        try:
            doc = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError, TypeError) as e:
            raise CorruptStateError(f"corrupt saved state: not valid JSON ({e})") from None
        if not isinstance(doc, dict) or not {"format", "game", "config", "state"} <= set(doc):
            raise CorruptStateError("corrupt saved state: expected keys format, game, config, state")
        if doc["format"] != SAVE_FORMAT:
            raise CorruptStateError(f"corrupt saved state: format {doc['format']!r}, expected {SAVE_FORMAT}")
        game_cls = cls.game_class()
        if doc["game"] != game_cls.name:
            raise CorruptStateError(f"saved state is for game {doc['game']!r}, not {game_cls.name!r}")
        if not isinstance(doc["config"], dict):
            raise CorruptStateError("corrupt saved state: config must be an object")
        try:
            game = game_cls(**doc["config"])
        except (TypeError, ValueError) as e:
            raise CorruptStateError(f"corrupt saved state: bad config ({e})") from None
        try:
            return cls._from_dict(game, doc["state"])
        except CorruptStateError:
            raise
        except (KeyError, IndexError, TypeError, ValueError, AttributeError, AssertionError) as e:
            raise CorruptStateError(f"corrupt saved state for {game_cls.name}: {type(e).__name__}: {e}") from None

    @classmethod
    def game_class(cls) -> type[Game]:
        """The Game subclass this State belongs to (set by ``Game.state_class``)."""
        gc = getattr(cls, "_game_class", None)
        if gc is None:
            raise TypeError(f"{cls.__name__} has no _game_class; set it to the Game subclass")
        return gc

    # -- display -------------------------------------------------------------
    @abstractmethod
    def action_name(self, action: int) -> str:
        """Short readable name, unique within the configuration."""

    def render_text(self) -> str:
        """The position as text (the game's renderer, ``game.renderer_ref``)."""
        return self.game.renderer().render_text(self)

    def observation_string(self, player: int) -> str:
        """What ``player`` may know, as text: :meth:`observe` in words, nothing hidden from them
        (the renderer's ``observation_string``)."""
        text = getattr(self.game.renderer(), "observation_string", None) if self.game.renderer_ref else None
        if text is None:
            raise NotImplementedError(f"{type(self).__name__} has no observation_string")
        return text(self, player)

    def render_rgb(self) -> np.ndarray:
        """A picture of the position, uint8 (H, W, 3): the game's renderer, or else the text drawn
        on a canvas."""
        if self.game.renderer_ref:
            return self.game.renderer().render_rgb(self)
        return text_to_rgb(self.render_text())

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.game!r} player={self.current_player} terminal={self.is_terminal()}>"


def compute_returns(placements: Sequence[int], scores: Sequence[float], reward_mode: str, scale: float) -> np.ndarray:
    """Terminal rewards from finishing positions (0 = first, ties shared) and scores."""
    n = len(placements)
    out = np.zeros(n, dtype=np.float64)
    if reward_mode == "win":
        winners = [p for p in range(n) if placements[p] == 0]
        if len(winners) == n:
            return out
        for p in range(n):
            out[p] = 1.0 / len(winners) if placements[p] == 0 else -1.0 / (n - len(winners))
    elif reward_mode == "rank":
        # Linear from +1 (first) to -1 (last); tied players share the mean of their slots.
        slots = np.linspace(1.0, -1.0, n) if n > 1 else np.zeros(1)
        for p in range(n):
            tied = sum(1 for q in range(n) if placements[q] == placements[p])
            out[p] = float(np.mean(slots[placements[p] : placements[p] + tied]))
    elif reward_mode == "score":
        s = np.asarray(scores, dtype=np.float64)
        for p in range(n):
            out[p] = (s[p] - (s.sum() - s[p]) / (n - 1)) / scale
    else:
        raise ValueError(f"unknown reward_mode {reward_mode!r}; allowed: {', '.join(REWARD_MODES)}")
    return out


def readonly(mask: np.ndarray) -> np.ndarray:
    """``mask`` marked read-only (the :meth:`State.legal_mask` contract) and returned."""
    mask.flags.writeable = False
    return mask


def scaled_count(x: float, cap: float) -> float:
    """An observation value for a count with no fixed maximum: ``x / cap`` below ``cap``, and from
    ``cap`` on ``1 - 1 / (x + 1)``, which stays below 1 and keeps larger counts distinct (a clip
    at 1 would show 30 and 60 alike)."""
    return x / cap if x < cap else 1.0 - 1.0 / (x + 1.0)


_RESOLVED: dict[tuple[type, str], Any] = {}


def _resolve(cls: type, slot: str) -> Any:
    """``cls.<slot>``, a ``".module:attr"`` (or ``".module"``), looked up in the package of the module
    of the class that set it (so a subclass defined elsewhere, e.g. in a test, inherits it as is)."""
    ref = getattr(cls, slot)
    key = (cls, ref)
    hit = _RESOLVED.get(key)
    if hit is None:
        owner = next(c for c in cls.__mro__ if slot in c.__dict__)
        module, _, attr = ref.partition(":")
        mod = importlib.import_module(module, owner.__module__.rpartition(".")[0])
        hit = _RESOLVED[key] = getattr(mod, attr) if attr else mod
    return hit
