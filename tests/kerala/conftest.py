"""Helpers for the Kerala tests: hand-made positions from compact descriptions."""

from __future__ import annotations

import numpy as np
import pytest

from meeplezoo.envs.kerala import components as C
from meeplezoo.envs.kerala.state import KeralaGame, KeralaState


class Kit:
    """Builds positions: tiles by description, platforms from little grids, random play."""

    C = C
    Game = KeralaGame
    State = KeralaState

    @staticmethod
    def tiles(game: KeralaGame, colour: str, kind: str, second: str | None = None) -> list[int]:
        return game.tiles_matching(colour, kind, second)

    @staticmethod
    def picker(game: KeralaGame):
        """``take(colour, kind, second=None)`` returns a fresh tile id each call (never the same twice)."""
        used: set[int] = set()

        def take(colour: str, kind: str, second: str | None = None) -> int:
            for t in game.tiles_matching(colour, kind, second):
                if t not in used:
                    used.add(t)
                    return t
            raise AssertionError(f"no unused {colour} {kind} tile left")

        return take

    @staticmethod
    def grid_platform(game: KeralaGame, player: int, rows: list[str]) -> tuple[dict, list[tuple[int, int]]]:
        """Platform from a grid: ``M`` move-tile tile with the acting elephant, ``E`` a tile with the
        other elephant, ``X`` a tile, ``.`` empty; row 0 / column 0 of the grid is position (0, 0).
        The player's start tile is the first ``X``; the others are distinct 1-symbol tiles."""
        take = Kit.picker(game)
        colour = C.COLOURS[game.player_colours[player]]
        plat: dict = {}
        els: list[tuple[int, int]] = []
        start_done = False
        for r, row in enumerate(rows):
            for c, ch in enumerate(row.split()):
                if ch == ".":
                    continue
                if ch == "M":
                    plat[(r, c)] = [take(colour, "move-tile")]
                    els.insert(0, (r, c))
                elif ch == "E":
                    plat[(r, c)] = [take(colour, "sym1")]
                    els.append((r, c))
                elif not start_done:
                    plat[(r, c)] = [C.START_TILE_BASE + game.player_colours[player]]
                    start_done = True
                else:
                    plat[(r, c)] = [take(C.COLOURS[(len(plat)) % C.NUM_COLOURS], "sym1")]
        return plat, els

    @staticmethod
    def move_tile_state(rows: list[str], **options) -> KeralaState:
        """Player 0 of a 2-player game has just placed the move-tile tile ``M`` (phase MOVE_TILE_SRC)."""
        game = KeralaGame(2, **options)
        plat, els = Kit.grid_platform(game, 0, rows)
        return KeralaState.from_position(game, platforms=[plat, None], elephants=[els, [(0, 0), (0, 0)]],
                                         phase=C.PHASE_MOVE_TILE_SRC)

    @staticmethod
    def pairs_at(state: KeralaState) -> dict[tuple[int, int], list[tuple[int, int]]]:
        g = state.game
        return {g.pos_of(s): [g.pos_of(q) for q in qs] for s, qs in state.move_tile_pairs().items()}

    @staticmethod
    def play_random(state: KeralaState, rng: np.random.Generator, steps: int | None = None) -> KeralaState:
        k = 0
        while not state.is_terminal() and (steps is None or k < steps):
            legal = state.legal_actions()
            state.apply(legal[rng.integers(len(legal))])
            k += 1
        return state


@pytest.fixture
def kit() -> type[Kit]:
    return Kit
