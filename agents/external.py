"""Agents that run as another program, speaking JSON lines over stdin/stdout.

The spec ``external:PATH`` starts the program at ``PATH`` (an executable; a ``.py`` file runs with this
Python) once per agent and talks to it one line of JSON at a time, so an agent written in any language,
or one that asks a language model, plays through the same protocol (``docs/LADDER.md``, protocol 1):

* at the start of every game meeplezoo writes ``{"type": "start", "protocol": 1, "game": ..., "config":
  {...}, "num_players": N, "num_actions": A, "seed": S}``; no answer is expected;
* at every decision of its seat it writes ``{"type": "act", "player": p, "observation": [...],
  "action_mask": [0/1, ...], "legal_actions": [...], "legal_names": [...], "text": "..."}`` and reads one line
  ``{"action": a}`` (``text`` is the player's view of the position as text: nothing hidden from them);
* when the agent is closed its stdin is closed (the program should then exit).

A program that does not answer within ``timeout`` seconds, exits, writes something that is not such a line,
or names an action that is not legal raises :class:`ExternalAgentError` with the reason and the last lines
of its stderr; the program is then stopped and started again at the next game.
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import time
from collections import deque
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from meeplezoo.knobs import Knob, Knobs, is_int

from .base import Agent

PROTOCOL = 1
#: the longest answer line read (bytes): an agent that writes more is broken
MAX_LINE = 1 << 20
#: legal actions listed in the error for an illegal answer
SHOWN_LEGAL = 20

KNOBS = Knobs("external", [
    Knob("timeout", float, 10.0, "seconds the program may take to answer one decision", low=0, low_open=True),
])


class ExternalAgentError(RuntimeError):
    """The external program failed: no answer in time, exited, answered garbage or an illegal action."""


class ExternalAgent(Agent):
    """An agent played by another program (see the module docstring for the protocol)."""

    uses_state = True

    def __init__(self, path: str | Path, *, game: Any = None, num_players: int | None = None,
                 seed: int | None = None, timeout: float = KNOBS["timeout"].default) -> None:
        self.timeout = KNOBS.validate({"timeout": timeout})["timeout"]
        self.path = Path(path)
        if not self.path.is_file():
            raise ValueError(f"external: no program at {str(path)!r}")
        if self.path.suffix != ".py" and not os.access(self.path, os.X_OK):
            raise ValueError(f"external: {str(path)!r} is not executable (chmod +x, or a .py file)")
        self.game_name = game if isinstance(game, str) or game is None else game.name
        self.num_players = num_players
        self.seed = seed
        self.name = f"external:{path}"
        self._proc: subprocess.Popen[bytes] | None = None
        self._buffer = b""
        self._stderr: deque[str] = deque(maxlen=20)
        self._started = False

    # -- process ----------------------------------------------------------------------------------
    def _command(self) -> list[str]:
        return [sys.executable, str(self.path)] if self.path.suffix == ".py" else [str(self.path)]

    def _ensure(self) -> subprocess.Popen[bytes]:
        if self._proc is None or self._proc.poll() is not None:
            self._proc = subprocess.Popen(self._command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, bufsize=0)
            os.set_blocking(self._proc.stderr.fileno(), False)  # type: ignore[union-attr]
            self._buffer = b""
        return self._proc

    def close(self) -> None:
        """Stop the program (its stdin is closed; it is killed if it has not exited within a second)."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            proc.stdin.close()  # type: ignore[union-attr]
            proc.wait(timeout=1.0)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    def _send(self, message: dict[str, Any]) -> None:
        proc = self._ensure()
        try:
            proc.stdin.write((json.dumps(message, separators=(",", ":")) + "\n").encode())  # type: ignore[union-attr]
            proc.stdin.flush()  # type: ignore[union-attr]
        except (BrokenPipeError, OSError):
            self._fail("exited before reading its input")

    def _read_line(self) -> str:
        proc = self._ensure()
        deadline = time.monotonic() + self.timeout
        sel = selectors.DefaultSelector()
        sel.register(proc.stdout, selectors.EVENT_READ)  # type: ignore[arg-type]
        try:
            while b"\n" not in self._buffer:
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    self._fail(f"did not answer within {self.timeout:g} s")
                chunk = os.read(proc.stdout.fileno(), 65536)  # type: ignore[union-attr]
                if not chunk:
                    code = proc.wait()
                    self._fail(f"exited with code {code} instead of answering")
                self._buffer += chunk
                if len(self._buffer) > MAX_LINE:
                    self._fail(f"wrote a line longer than {MAX_LINE} bytes")
        finally:
            sel.close()
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode("utf-8", errors="replace")

    def _fail(self, reason: str) -> NoReturn:
        proc = self._proc
        if proc is not None and proc.stderr is not None:
            try:
                err = proc.stderr.read() or b""
            except (OSError, ValueError):
                err = b""
            self._stderr.extend(err.decode("utf-8", errors="replace").splitlines()[-5:])
        self.close()
        tail = f"; its stderr ends: {' | '.join(self._stderr)}" if self._stderr else ""
        raise ExternalAgentError(f"external agent {str(self.path)!r} {reason}{tail}")

    # -- Agent protocol ---------------------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.seed = seed
        self._started = False

    def _start(self, state: Any) -> None:
        game = state.game
        self._send({"type": "start", "protocol": PROTOCOL, "game": game.name, "config": game.config,
                    "num_players": game.num_players, "num_actions": game.num_actions, "seed": self.seed})
        self._started = True

    def act(self, observation: np.ndarray, action_mask: np.ndarray, *, state: Any = None) -> int:
        if state is None:
            raise ValueError("external: the agent needs the engine state (for the text view and action names)")
        if not self._started:
            self._start(state)
        p = state.current_player
        legal = np.flatnonzero(action_mask)
        self._send({"type": "act", "player": int(p),
                    "observation": np.asarray(observation if observation is not None else state.observe(p),
                                              dtype=float).round(6).tolist(),
                    "action_mask": np.asarray(action_mask, dtype=np.int8).tolist(),
                    "legal_actions": legal.tolist(), "legal_names": [state.action_name(int(a)) for a in legal],
                    "text": state.observation_string(p)})
        line = self._read_line()
        try:
            answer = json.loads(line)
            action = answer["action"]
        except (json.JSONDecodeError, KeyError, TypeError):
            self._fail(f"answered {line[:200]!r}, not a line {{\"action\": N}}")
        if not is_int(action):
            self._fail(f"answered action {action!r}, not an int")
        if not 0 <= action < len(action_mask) or not action_mask[action]:
            self._fail(f"answered action {action}, which is not legal here "
                       f"(legal: {legal[:SHOWN_LEGAL].tolist()}{' ...' if len(legal) > SHOWN_LEGAL else ''})")
        return int(action)
