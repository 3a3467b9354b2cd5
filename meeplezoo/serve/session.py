"""One game being played in ``meeplezoo serve``: its positions, seats and agents, and the requests that move it.

A session holds every position of the game so far (``states[0..last]``), the actions between them and
a cursor (the position on screen). Playing at an earlier position cuts the history there and goes on
from it; ``undo`` goes back to the last position where a human was to move. What each seat may see of
it (the page data, the board picture, the names of others' moves) is :mod:`.view`.
"""

from __future__ import annotations

import json
import secrets
import threading
from collections import OrderedDict
from typing import Any

import meeplezoo
from meeplezoo.agents.base import act_on_state
from meeplezoo.agents.registry import HEURISTICS
from meeplezoo.envs.core.replay import states_from_replay
from meeplezoo.knobs import is_int
from meeplezoo.registry import GAMES, list_envs

from .inspect import build_agent, inspect_position
from .limits import Limits, RequestError
from .view import HUMAN, SeatView

#: the largest number of actions a replay may bring (a game is far shorter)
MAX_REPLAY_ACTIONS = 20_000


def game_catalogue() -> list[dict[str, Any]]:
    """Every game with its player counts and the rule options a form can offer (choices, bools, ints)."""
    out = []
    for name in list_envs():
        cls = meeplezoo.registry.game_class(name)
        options = []
        for o in cls.options_spec:
            if o.observation_only:
                continue
            if o.choices is not None:
                kind = "choice"
            elif isinstance(o.default, bool):
                kind = "bool"
            elif isinstance(o.default, int):
                kind = "int"
            else:
                continue  # lists and tables: from a saved state or the Python API
            options.append({"name": o.name, "default": o.default, "kind": kind, "doc": o.doc,
                            "choices": list(o.choices) if o.choices is not None else None})
        out.append({"id": name, "name": GAMES[name].display_name, "min_players": cls.min_players,
                    "max_players": cls.max_players, "default_players": cls.default_players,
                    "hidden_information": bool(cls.hidden_information), "options": options})
    return out


def make_game(name: Any, num_players: Any = None, options: Any = None) -> Any:
    """The Game of a request; RequestError naming the game, player count or option that is wrong."""
    if not isinstance(name, str) or name not in list_envs():
        raise RequestError(f"unknown game {name!r}; games: {', '.join(list_envs())}")
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise RequestError(f"options must be an object of rule options, got {options!r}")
    try:
        return meeplezoo.make_game(name, num_players, **options)
    except (ValueError, TypeError) as e:
        raise RequestError(str(e)) from None


class ReplayMismatch(RequestError):
    """A loaded game's action that is not legal where it stands."""


class Session(SeatView):
    """A game in progress: positions, seats (``"human"`` or an agent spec) and the agents playing."""

    def __init__(self, game: Any, seats: list[str], limits: Limits, *, seed: int | None = None,
                 start: Any = None, actions: list[int] | None = None) -> None:
        self.id = secrets.token_hex(8)
        self.game = game
        self.limits = limits
        if not isinstance(seats, list) or len(seats) != game.num_players:
            raise RequestError(f"seats must list {game.num_players} entries ('human' or an agent spec), "
                               f"got {seats!r}")
        self.seats = []
        for i, spec in enumerate(seats):
            try:
                self.seats.append(HUMAN if spec == HUMAN else limits.agent_spec(spec))
            except RequestError as e:
                raise RequestError(f"seat {i}: {e}") from None
        self.seed = seed
        self.agents: dict[int, Any] = {}
        for i, spec in enumerate(self.seats):  # build them now: a bad spec or checkpoint fails the request
            if spec != HUMAN:
                try:
                    self.agents[i] = build_agent(spec, game, seed=(seed or 0) + 1000 * i + 1)
                except (ValueError, TypeError, OSError) as e:
                    raise RequestError(f"seat {i}: {e}") from None
        if start is None:
            start = game.new_state(seed)
        self.states = [start.clone()]
        self.actions: list[int] = []
        for a in actions or []:
            self._append(a)
        self.cursor = len(self.states) - 1
        self.open_view = False
        self.lock = threading.Lock()
        self._start_views()

    # -- construction from requests --------------------------------------------------------------
    @classmethod
    def from_request(cls, body: Any, limits: Limits) -> Session:
        """A session from the JSON of ``POST /api/games``: a new game (``game``, ``num_players``,
        ``options``, ``seed``), a replay (``replay``: a replay document) or a saved position (``state``:
        ``State.to_json()`` text); ``seats`` in every case."""
        if not isinstance(body, dict):
            raise RequestError("the request must be a JSON object")
        seats = body.get("seats")
        if "replay" in body:
            doc = body["replay"]
            if isinstance(doc, str):
                try:
                    doc = json.loads(doc)
                except json.JSONDecodeError as e:
                    raise RequestError(f"replay is not JSON: {e}") from None
            if isinstance(doc, dict) and isinstance(doc.get("actions"), list) \
                    and len(doc["actions"]) > MAX_REPLAY_ACTIONS:
                raise RequestError(f"replay has more than {MAX_REPLAY_ACTIONS} actions")
            if isinstance(doc, dict) and doc.get("game") not in list_envs():
                raise RequestError(f"unknown game {doc.get('game')!r} in the replay; games: {', '.join(list_envs())}")
            try:
                game, states = states_from_replay(doc)
            except ValueError as e:
                raise RequestError(f"replay: {e}") from None
            s = cls(game, _seats(seats, game), limits, seed=int(doc["seed"]), start=states[0],
                    actions=list(doc["actions"]))
            return s
        if "state" in body:
            text = body["state"]
            if isinstance(text, dict):
                text = json.dumps(text)
            if not isinstance(text, str):
                raise RequestError("state must be the text of a saved state (State.to_json())")
            name = _state_game(text)
            cls_ = meeplezoo.registry.game_class(name)
            try:
                state = cls_.state_class.from_json(text)
            except (ValueError, TypeError, KeyError) as e:
                raise RequestError(f"saved state: {e}") from None
            return cls(state.game, _seats(seats, state.game), limits, seed=None, start=state)
        game = make_game(body.get("game"), body.get("num_players"), body.get("options"))
        seed = body.get("seed")
        if seed is None:
            seed = secrets.randbelow(1 << 31)
        if not is_int(seed) or seed < 0:
            raise RequestError(f"seed must be a non-negative integer, got {seed!r}")
        return cls(game, _seats(seats, game), limits, seed=seed)

    # -- the history --------------------------------------------------------------------------------
    @property
    def last(self) -> int:
        return len(self.states) - 1

    def _append(self, action: int) -> None:
        state = self.states[-1]
        if state.is_terminal():
            raise RequestError("the game is over")
        if not is_int(action):
            raise RequestError(f"an action is an action number, got {action!r}")
        action = int(action)
        if not 0 <= action < self.game.num_actions or not state.legal_mask()[action]:
            raise ReplayMismatch(f"action {action} is not legal at step {self.last}")
        nxt = state.clone()
        nxt.apply(action)
        self.states.append(nxt)
        self.actions.append(action)

    def _cut(self) -> None:
        """Play from the position on screen: forget the positions after it."""
        if self.cursor == self.last:
            return
        del self.states[self.cursor + 1:]
        del self.actions[self.cursor:]
        self._forget_views()

    def play(self, action: Any, step: Any = None) -> None:
        """A human's move at the position on screen (``step``, if given, must be that position)."""
        self._check_step(step)
        state = self.states[self.cursor]
        if state.is_terminal():
            raise RequestError("the game is over")
        if not self.seat_is_human(state.current_player):
            raise RequestError(f"seat {state.current_player} is played by {self.seats[state.current_player]!r}, "
                               "not by a human: ask it to move (advance)")
        self._check_legal(state, action)
        self._cut()
        self._append(int(action))
        self.cursor = self.last

    def advance(self, step: Any = None) -> int:
        """The agent to move at the position on screen plays; returns its action."""
        self._check_step(step)
        state = self.states[self.cursor]
        if state.is_terminal():
            raise RequestError("the game is over")
        p = state.current_player
        if self.seat_is_human(p):
            raise RequestError(f"seat {p} is a human seat: it is their move")
        action = int(act_on_state(self.agents[p], state.clone()))
        self._cut()
        self._append(action)
        self.cursor = self.last
        return action

    def undo(self) -> None:
        """Back to the last earlier position where a human was to move (the start if none)."""
        if self.cursor == 0:
            raise RequestError("nothing to undo: this is the first position")
        k = self.cursor - 1
        while k > 0 and not (not self.states[k].is_terminal() and self.seat_is_human(self.states[k].current_player)):
            k -= 1
        self.cursor = k
        self._cut()

    def goto(self, step: Any) -> None:
        if not is_int(step) or not 0 <= step <= self.last:
            raise RequestError(f"step must be an int in 0..{self.last}, got {step!r}")
        self.cursor = step

    def _check_step(self, step: Any) -> None:
        if step is not None and step != self.cursor:
            raise RequestError(f"the page shows step {step}, but the game is at step {self.cursor}: reload it")

    def _check_legal(self, state: Any, action: Any) -> None:
        if not is_int(action):
            raise RequestError(f"an action is an action number, got {action!r}")
        if not 0 <= action < self.game.num_actions:
            raise RequestError(f"action {action} does not exist in {self.game.name} "
                               f"(actions are 0..{self.game.num_actions - 1})")
        if not state.legal_mask()[action]:
            raise RequestError(f"action {action} ({state.action_name(action)}) is not legal here")

    # -- inspector and saving -----------------------------------------------------------------------
    def inspect(self, spec: Any, step: Any, viewer: int) -> dict[str, Any]:
        """The inspector at ``step`` (default: the position on screen) for the agent of ``spec``."""
        step = self.cursor if step is None else step
        if not is_int(step) or not 0 <= step <= self.last:
            raise RequestError(f"step must be an int in 0..{self.last}, got {step!r}")
        state = self.states[step]
        if state.is_terminal():
            raise RequestError("the game is over at this step: there is no decision to inspect")
        if not self.sees_all() and state.current_player != viewer:
            raise RequestError(f"seat {state.current_player} decides at step {step}, and its information is "
                               f"hidden from seat {viewer}: open the analysis view (all cards open) to inspect it")
        checked = self.limits.agent_spec(spec)
        try:
            agent = build_agent(checked, self.game, seed=step)
            heuristic = build_agent("heuristic", self.game, seed=step) if self.game.name in HEURISTICS \
                else None
            out = inspect_position(agent, state.clone(), heuristic)
        except RequestError:
            raise
        except (ValueError, TypeError, OSError) as e:
            raise RequestError(f"inspector: {e}") from None
        out["step"] = step
        out["spec"] = checked
        return out

    def replay_document(self) -> dict[str, Any]:
        """The game as a replay (``meeplezoo replay`` reads it) up to the last position."""
        if self.seed is None:
            raise RequestError("this game started from a saved position, not from a seed: save the position "
                               "instead")
        if not (self.states[-1].is_terminal() or self.sees_all()):
            raise RequestError("a replay holds everything hidden in this game (seed and moves): save it at the "
                               "end, or open the analysis view (all cards open) first")
        return {"game": self.game.name, "config": json.loads(json.dumps(self.game.config)), "seed": self.seed,
                "actions": list(self.actions), "agents": list(self.seats)}

    def state_document(self) -> str:
        if not self.sees_all():
            raise RequestError("a saved position holds everything hidden in this game: open the analysis view "
                               "(all cards open) first")
        return self.states[self.cursor].to_json()



def _seats(seats: Any, game: Any) -> list[str]:
    if seats is None:
        return [HUMAN] + ["heuristic"] * (game.num_players - 1)
    if not isinstance(seats, list):
        raise RequestError(f"seats must be a list of {game.num_players} entries ('human' or an agent spec)")
    return seats


def _state_game(text: str) -> str:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise RequestError(f"saved state is not JSON: {e}") from None
    name = doc.get("game") if isinstance(doc, dict) else None
    if not isinstance(name, str) or name not in list_envs():
        raise RequestError(f"saved state names unknown game {name!r}; games: {', '.join(list_envs())}")
    return name


class Sessions:
    """The sessions of one server, oldest dropped beyond ``limits.max_sessions``."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._by_id: OrderedDict[str, Session] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, session: Session) -> Session:
        with self._lock:
            self._by_id[session.id] = session
            while len(self._by_id) > self.limits.max_sessions:
                self._by_id.popitem(last=False)
        return session

    def get(self, sid: str) -> Session:
        with self._lock:
            s = self._by_id.get(sid)
        if s is None:
            raise LookupError(f"no game {sid!r} on this server (it ended with the server, or was dropped)")
        return s
