"""Every meeplezoo game as an OpenSpiel Python game (``pip install "meeplezoo[openspiel]"``).

Importing this module registers ``python_meeplezoo_<id>`` for every game, the way
OpenSpiel's own Python games register (``pyspiel.register_game(GAME_TYPE, GameClass)``)::

    import pyspiel
    import meeplezoo.openspiel  # noqa: F401 - registers the games

    game = pyspiel.load_game("python_meeplezoo_kerala", {"players": 3, "reward_mode": "rank"})
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[0])
    state.observation_tensor(0); state.observation_string(0)

How the games map onto OpenSpiel:

* **chance** is ``SAMPLED_STOCHASTIC``: as in the engines, chance is drawn inside
  ``apply_action`` from the state's own seeded generator, so there are no chance
  nodes.  Each new initial state draws its seed from the game's generator
  (parameter ``rng_seed``; -1 for fresh entropy); ``clone()`` copies the generator.
* **information** is ``IMPERFECT_INFORMATION`` for games with private holdings
  (Hawaii, Asara), ``PERFECT_INFORMATION`` for the others (Kerala, Haus der Sonne:
  nothing is hidden but the order of what is not yet drawn).
* **utility** is ``ZERO_SUM`` with terminal rewards in the ``reward_mode``
  parameter (``win``, ``rank``, ``score``: every one of them sums to zero over
  the players; ``utility_sum`` 0); min/max utility are -1/+1 for ``win`` and
  ``rank``, and a bound of 500 points of margin for ``score``.
* **max game length** is the parameter ``max_game_length`` (a default per game,
  several times the longest random game); a game reaching it, or cut off by an
  engine safety limit (Haus der Sonne's ``turn_limit``), ends with zero returns.
* **observations**: the observer's tensor is the game's ``observe(player)``
  vector, its string ``observation_string(player)``.
* **information state** (hidden-information games, Hawaii and Asara): a
  perfect-recall ``information_state_string(player)`` built from what the player
  saw and did, the sequence of his observations after every decision and his own
  actions (see :class:`_Recall`), and ``resample_from_infostate(player, sampler)``,
  a state drawn consistent with it from the engine's ``determinize`` (see
  :meth:`OpenSpielState.resample_from_infostate` for where the two differ).  This is
  what OpenSpiel's IS-MCTS (``open_spiel.python.algorithms.ismcts.ISMCTSBot``) needs.
  There is no information-state tensor: a perfect-recall record grows with the game;
  the observation tensor is the compact summary a network should read.
* **parameters**: ``players``, ``reward_mode``, ``rng_seed``, ``max_game_length``
  and every rule option (options whose value is a list or a table are given as
  JSON text, e.g. ``{"round_targets": "[9, 11, 13, 15, 17]"}``).
* **serialisation** (``state.serialize()``, ``pyspiel.serialize_game_and_state``,
  pickle) carries the engine state in its JSON save format.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import numpy as np
import pyspiel

from meeplezoo.envs.core.game import REWARD_MODES, Game, State
from meeplezoo.registry import game_class, list_envs

#: decisions after which a game is cut off (zero returns): several times the longest random game seen
MAX_GAME_LENGTH: dict[str, int] = {"kerala": 1000, "haus_der_sonne": 6000, "hawaii": 2000, "asara": 2000}
#: the score margin bound of reward_mode "score", in points
SCORE_MARGIN_BOUND = 500.0
_RESERVED = ("players", "reward_mode", "rng_seed", "max_game_length")


def short_name(name: str) -> str:
    return f"python_meeplezoo_{name}"


def _scalar(value: Any) -> bool:
    return isinstance(value, (bool, int, float, str))


def _parameter_spec(cls: type[Game]) -> dict[str, Any]:
    spec: dict[str, Any] = {"players": cls.default_players, "reward_mode": "win", "rng_seed": 0,
                            "max_game_length": MAX_GAME_LENGTH.get(cls.name, 5000)}
    for o in cls.options_spec:
        if o.name in _RESERVED:  # pragma: no cover - no game uses these names
            raise ValueError(f"{cls.name}: rule option {o.name} clashes with an OpenSpiel parameter")
        if _scalar(o.default):
            spec[o.name] = o.default
        elif isinstance(o.default, (list, tuple, dict)):
            spec[o.name] = json.dumps(o.default)
        # options whose only value is None (a fixed table) are not parameters
    return spec


def _rule_options(cls: type[Game], params: dict[str, Any]) -> dict[str, Any]:
    """The engine's rule options from OpenSpiel parameters (JSON text for lists and tables)."""
    out: dict[str, Any] = {}
    for o in cls.options_spec:
        if o.name not in params:
            continue
        value = params[o.name]
        if not _scalar(o.default) and isinstance(value, str):
            try:
                value = json.loads(value)
            except json.JSONDecodeError as e:
                raise ValueError(f"{cls.name}: parameter {o.name} must be JSON text ({e})") from None
        if value != o.default:
            out[o.name] = value
    return out


class _Engine:
    """The engine state inside an OpenSpiel state, built on first use.

    OpenSpiel clones and deserialises a Python state by making a new initial state and
    replacing its attributes (deepcopy, or unpickling): this holder makes that a
    ``State.clone()`` (or the JSON save format), and a new initial state that is
    immediately overwritten never runs the game's setup."""

    __slots__ = ("_game", "_seed", "_state")

    def __init__(self, game: OpenSpielGame, state: State | None = None) -> None:
        self._game = game
        self._seed: int | None = None
        self._state = state

    @property
    def state(self) -> State:
        if self._state is None:
            self._state = self._game.engine_game.new_state(self._game.next_seed())
        return self._state

    def __deepcopy__(self, memo: dict) -> _Engine:
        return _Engine(self._game, self.state.clone())

    def __getstate__(self) -> dict[str, Any]:
        return {"game": self._game.engine_game.name, "config": self._game.engine_game.config,
                "state": self.state.to_json()}

    def __setstate__(self, data: dict[str, Any]) -> None:
        cls = game_class(data["game"])
        engine = cls.state_class.from_json(data["state"])
        self._game = _GAMES_BY_CONFIG.get((data["game"], json.dumps(data["config"], sort_keys=True)))
        self._seed = None
        self._state = engine


class _Recall:
    """What each player saw and did since the start of the game: the perfect-recall information state.

    A player's information state is a digest chained over his observation of every position of the
    game, each decision marked with who took it (his own with the action).  Observing every player
    after every decision would cost more than the decision itself, also in search rollouts that never
    ask, so the record keeps the first position and the decisions only; a player's digest is computed
    when asked by replaying the decisions from where it last stood (the engine is deterministic: a
    clone replays the same chance), and cached with that position per player.

    Like :class:`_Engine` it copies itself cheaply when OpenSpiel deep-copies a state: positions in
    the record are never mutated (a replay advances a clone), so copies share them."""

    __slots__ = ("_actions", "_base", "_before", "_digests")

    def __init__(self, base: State, digests: list[tuple[bytes, int, State | None]], before: int = 0) -> None:
        self._base = base.clone()
        self._before = before  # decisions taken before the base position (a resampled record)
        #: (actor, action) of every decision since the base position
        self._actions: list[tuple[int, int]] = []
        #: per player: (digest, decisions digested (-1: not even the base position), position after them)
        self._digests = digests

    @classmethod
    def start(cls, state: State, num_players: int) -> _Recall:
        return cls(state, [(b"", -1, None)] * num_players)

    def __deepcopy__(self, memo: dict) -> _Recall:
        r = _Recall.__new__(_Recall)
        r._base = self._base
        r._before = self._before
        r._actions = self._actions[:]
        r._digests = self._digests[:]
        return r

    def record(self, actor: int, action: int) -> None:
        self._actions.append((actor, action))

    def information_state(self, player: int) -> str:
        digest, done, position = self._digests[player]
        actions = self._actions
        if done < len(actions):
            if done < 0:
                position = self._base.clone()
                digest = _chain(digest, b"start", position.observe(player))
                done = 0
            else:
                position = position.clone()  # the cached one may be shared with copies of this record
            for actor, action in actions[done:]:
                position.apply(action)
                mark = f"own {action}" if actor == player else f"player {actor}"
                digest = _chain(digest, mark.encode(), position.observe(player))
            self._digests[player] = (digest, len(actions), position)
        return f"player {player}, {self._before + len(actions)} decisions: {digest.hex()}"

    def resampled_for(self, player: int, state: State) -> _Recall:
        """The record of ``state``, resampled from ``player``'s information state: his record carries
        over; the other players' records start at the sampled position (their past is not redrawn)."""
        self.information_state(player)  # bring his digest up to date
        r = _Recall(state, [(_SAMPLED_FOR(player), -1, None)] * len(self._digests),
                    self._before + len(self._actions))
        r._digests[player] = (self._digests[player][0], 0, r._base)
        return r


def _chain(digest: bytes, mark: bytes, observation: np.ndarray) -> bytes:
    h = hashlib.blake2b(digest, digest_size=16)
    h.update(mark)
    h.update(np.ascontiguousarray(observation, dtype=np.float32).tobytes())
    return h.digest()


def _SAMPLED_FOR(player: int) -> bytes:  # noqa: N802 - a constant per player
    return hashlib.blake2b(f"sampled for player {player}".encode(), digest_size=16).digest()


#: (game id, config) -> the most recent OpenSpiel game of that configuration (for unpickled states)
_GAMES_BY_CONFIG: dict[tuple[str, str], Any] = {}


class OpenSpielGame(pyspiel.Game):
    """One meeplezoo game configuration as an OpenSpiel game."""

    engine_cls: type[Game]
    game_type: pyspiel.GameType

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        cls = self.engine_cls
        params = {**_parameter_spec(cls), **(params or {})}
        reward_mode = params["reward_mode"]
        if reward_mode not in REWARD_MODES:
            raise ValueError(f"unknown reward_mode {reward_mode!r}; allowed: {', '.join(REWARD_MODES)}")
        max_len = int(params["max_game_length"])
        if max_len < 1:
            raise ValueError(f"max_game_length must be >= 1, got {max_len}")
        self.engine_game: Game = cls(int(params["players"]), **_rule_options(cls, params))
        self.reward_mode = reward_mode
        self.max_length = max_len
        seed = int(params["rng_seed"])
        self._seeds = np.random.default_rng(None if seed < 0 else seed)
        bound = 1.0 if reward_mode != "score" else SCORE_MARGIN_BOUND / cls.score_scale
        info = pyspiel.GameInfo(
            num_distinct_actions=self.engine_game.num_actions,
            max_chance_outcomes=0,
            num_players=self.engine_game.num_players,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=0.0,
            max_game_length=max_len,
        )
        super().__init__(self.game_type, info, params)
        _GAMES_BY_CONFIG[(cls.name, json.dumps(self.engine_game.config, sort_keys=True))] = self

    def __reduce__(self) -> tuple:  # pickle by name and parameters (JSON-text parameters defeat game strings)
        return (_load_game, (self.get_type().short_name, dict(self.get_parameters())))

    def next_seed(self) -> int:
        return int(self._seeds.integers(0, 2**63))

    def new_initial_state(self, *args: Any) -> OpenSpielState:
        return OpenSpielState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer | InformationStateObserver:
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        if iig_obs_type is not None and iig_obs_type.perfect_recall:
            if not self.engine_cls.hidden_information:
                raise ValueError(f"{self.engine_game.name}: no perfect-recall information state (a game of "
                                 "perfect information); the observation (perfect_recall=False) is the position")
            return InformationStateObserver()
        return Observer(self.engine_game)


class OpenSpielState(pyspiel.State):
    """A meeplezoo engine state behind OpenSpiel's State API."""

    def __init__(self, game: OpenSpielGame) -> None:
        super().__init__(game)
        self._engine = _Engine(game)
        self._moves = 0
        self._max_length = game.max_length
        self._reward_mode = game.reward_mode
        self._recall: _Recall | None = None  # hidden-information games: started with the first decision

    @property
    def engine_state(self) -> State:
        """The meeplezoo :class:`~meeplezoo.envs.core.game.State` (``observe``, ``determinize``, ...)."""
        return self._engine.state

    def current_player(self) -> int:
        if self.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        return int(self.engine_state.current_player)

    def _legal_actions(self, player: int) -> list[int]:
        return self.engine_state.legal_actions()

    def _apply_action(self, action: int) -> None:
        state = self.engine_state
        actor = state.current_player
        recall = self._recall_record()
        state.apply(int(action))
        self._moves += 1
        if recall is not None:
            recall.record(actor, int(action))

    def _recall_record(self) -> _Recall | None:
        """The perfect-recall record (hidden-information games), begun at the initial position."""
        if self._recall is None and self.get_game().engine_cls.hidden_information:
            self._recall = _Recall.start(self.engine_state, self.get_game().num_players())
        return self._recall

    def information_state(self, player: int) -> str:
        """``player``'s perfect-recall information state as text (see :class:`_Recall`)."""
        recall = self._recall_record()
        if recall is None:
            raise ValueError(f"{self.engine_state.game.name} is a game of perfect information: no information "
                             "state beyond the observation")
        return recall.information_state(int(player))

    def resample_from_infostate(self, player_id: int, probability_sampler: Any = None) -> OpenSpielState:
        """A state consistent with what ``player_id`` saw and did, for information-set search.

        The engine's ``determinize(player_id, rng)`` draws the hidden part (rules files: Hawaii's token
        bag, island stack and god stacks below their tops; Asara's other hands, face-down suits, deck,
        piles and, in the professional version, unseen lighted windows and the order of his own block
        under the stack), seeded from ``probability_sampler`` (OpenSpiel's sampler; the game's seed
        generator when None).  Where the two differ: ``determinize`` conditions on the player's current
        knowledge as the engine keeps it (his observation is perfect-recall by design), not on the
        whole action history, so a sample is consistent with everything he knows but is not drawn with
        the posterior probability that the other players' past choices imply (their play is not
        modelled).  The returned state keeps ``player_id``'s information state and the decision count
        (``max_game_length``); the other players' information states start at the sampled position,
        and its OpenSpiel ``history()`` is empty (the sampled world has no recorded past)."""
        game = self.get_game()
        if probability_sampler is not None:
            seed = int(probability_sampler() * 2**63)
        else:
            seed = game.next_seed()
        recall = self._recall_record()
        engine = self.engine_state.determinize(int(player_id), seed)
        out = OpenSpielState(game)
        out._engine = _Engine(game, engine)
        out._moves = self._moves
        if recall is not None:
            out._recall = recall.resampled_for(int(player_id), engine)
        return out

    def _action_to_string(self, player: int, action: int) -> str:
        return self.engine_state.action_name(int(action))

    def is_terminal(self) -> bool:
        return self.engine_state.is_terminal() or self._moves >= self._max_length

    def is_truncated(self) -> bool:
        """Cut off (by ``max_game_length`` or an engine safety limit) rather than finished: zero returns."""
        s = self.engine_state
        return (s.is_terminal() and s.is_truncated()) or (not s.is_terminal() and self._moves >= self._max_length)

    def returns(self) -> list[float]:
        s = self.engine_state
        if not s.is_terminal():  # before the end, or cut off by max_game_length
            return [0.0] * s.game.num_players
        return [float(r) for r in s.returns(self._reward_mode)]

    def __str__(self) -> str:
        return self.engine_state.render_text()

    def __reduce__(self) -> tuple:
        # pyspiel pickles a state with serialize_game_and_state, which asks a sampled-stochastic game for
        # an RNG state that Python games cannot give; the state's own serialisation (history plus the
        # engine state as JSON, seed generator included) carries everything
        game = self.get_game()
        return (_load_state, (game.get_type().short_name, dict(game.get_parameters()), self.serialize()))


class Observer:
    """OpenSpiel's PyObserver interface over the game's own observation."""

    def __init__(self, game: Game) -> None:
        self.tensor = np.zeros(game.observation_shape, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: OpenSpielState, player: int) -> None:
        self.tensor[:] = state.engine_state.observe(player)

    def string_from(self, state: OpenSpielState, player: int) -> str:
        return state.engine_state.observation_string(player)


class InformationStateObserver:
    """OpenSpiel's PyObserver for the perfect-recall information state: a string only (no tensor)."""

    def __init__(self) -> None:
        self.tensor = np.zeros(0, np.float32)
        self.dict: dict[str, np.ndarray] = {}

    def set_from(self, state: OpenSpielState, player: int) -> None:  # no information-state tensor
        return None

    def string_from(self, state: OpenSpielState, player: int) -> str:
        return state.information_state(player)


def _load_game(short: str, params: dict[str, Any]) -> pyspiel.Game:
    return pyspiel.load_game(short, params)


def _load_state(short: str, params: dict[str, Any], data: str) -> pyspiel.State:
    return _load_game(short, params).deserialize_state(data)


def game_type(cls: type[Game]) -> pyspiel.GameType:
    """The OpenSpiel GameType of a meeplezoo game (see the module docstring)."""
    info = pyspiel.GameType.Information
    return pyspiel.GameType(
        short_name=short_name(cls.name),
        long_name=f"Python meeplezoo {cls.pretty_name}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
        information=info.IMPERFECT_INFORMATION if cls.hidden_information else info.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=cls.max_players,
        min_num_players=cls.min_players,
        provides_information_state_string=bool(cls.hidden_information),
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        provides_factored_observation_string=False,
        parameter_specification=_parameter_spec(cls),
    )


GAME_CLASSES: dict[str, type[OpenSpielGame]] = {}


def register_all() -> list[str]:
    """Register every meeplezoo game with OpenSpiel (idempotent); returns the short names."""
    registered = set(pyspiel.registered_names())
    for name in list_envs():
        cls = game_class(name)
        if name not in GAME_CLASSES:
            GAME_CLASSES[name] = type(f"{cls.__name__}OpenSpiel", (OpenSpielGame,),
                                      {"engine_cls": cls, "game_type": game_type(cls),
                                       "__module__": __name__})
        if short_name(name) not in registered:
            pyspiel.register_game(GAME_CLASSES[name].game_type, GAME_CLASSES[name])
    return [short_name(n) for n in list_envs()]


register_all()
