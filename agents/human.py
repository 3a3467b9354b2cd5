"""A human seat for the terminal: lists the legal actions by name and reads a choice."""

from __future__ import annotations

import sys
from typing import Any, TextIO

import numpy as np

from .base import Agent


class HumanAgent(Agent):
    """Reads moves from a text stream (stdin by default).

    A move is given by its number in the printed list, by its action id
    (``#123``) or by its exact name.  ``q`` quits the game.
    """

    name = "human"
    uses_state = True

    def __init__(self, infile: TextIO | None = None, outfile: TextIO | None = None) -> None:
        self.infile = infile or sys.stdin
        self.outfile = outfile or sys.stdout

    def act(self, observation: np.ndarray, action_mask: np.ndarray, *, state: Any = None) -> int:
        legal = [int(a) for a in np.flatnonzero(action_mask)]
        names = [state.action_name(a) if state is not None else str(a) for a in legal]
        out = self.outfile
        if state is not None:
            viewer_render = state.render_text
            try:
                text = viewer_render(viewer=state.current_player)
            except TypeError:
                text = viewer_render()
            print(text, file=out)
        print(f"Your move (player {state.current_player if state is not None else '?'}):", file=out)
        for i, nm in enumerate(names):
            print(f"  {i:3d}: {nm}", file=out)
        while True:
            print("> ", end="", file=out, flush=True)
            line = self.infile.readline()
            if not line:
                raise EOFError("human agent: input ended before a move was chosen")
            choice = line.strip()
            if choice in ("q", "quit", "exit"):
                raise KeyboardInterrupt("human agent quit")
            if choice.isdigit() and int(choice) < len(legal):
                return legal[int(choice)]
            if choice.startswith("#") and choice[1:].isdigit() and int(choice[1:]) in legal:
                return int(choice[1:])
            if choice in names:
                return legal[names.index(choice)]
            print(f"not a legal move: {choice!r}; give a number from 0 to {len(legal) - 1}", file=out)
