"""Helpers for the Hawaii tests: hand-made positions and whole turns played decision by decision."""

from __future__ import annotations

import numpy as np

from meeplezoo.envs.hawaii import actions as A
from meeplezoo.envs.hawaii.components import NUM_TOKENS
from meeplezoo.envs.hawaii.state import HawaiiGame, HawaiiState


def position(n: int = 2, options: dict | None = None, seed: int = 0, **fields) -> HawaiiState:
    """A fresh game (seeded) with some public fields replaced; price tokens are kept conserved."""
    s = HawaiiState.from_position(HawaiiGame(n, **(options or {})), seed, **fields)
    fix_bag(s)
    return s


def fix_bag(s: HawaiiState) -> None:
    """Tokens a test put on the track, in the cove or in hands leave the circles; the rest go to the bag."""
    used = {t for t in s.seq if t >= 0} | set(s.cove)
    for p in range(s.game.num_players):
        used |= set(s.held[p]) | set(s.fished[p])
    for circ in s.circles:
        for i, t in enumerate(circ):
            if t in used:
                circ[i] = -1
    used |= {t for circ in s.circles for t in circ if t >= 0}
    s.bag = [t for t in range(NUM_TOKENS) if t not in used]
    s.refresh()


def slot_of(s: HawaiiState, place: int) -> int:
    """The slot P1..P10 (0-based) where the place with id ``place`` lies."""
    return s.slot_place.index(place)


def act(s: HawaiiState, phase: int, index: int) -> None:
    s.apply(s.game.codec.encode(phase, index))


def legal_in(s: HawaiiState, phase: int) -> list[int]:
    """Legal indices of ``phase`` (empty when another decision is pending)."""
    if s.phase != phase:
        return []
    off = s.game.codec.offsets[phase]
    return [a - off for a in s.legal_actions()]


def _pay(s: HawaiiState, choice: tuple[int, int]) -> None:
    if s.phase == A.PAY:
        act(s, A.PAY, choice[0])
    if s.phase == A.SPLIT:
        act(s, A.SPLIT, choice[1])


def buy(s: HawaiiState, slot: int, circle: int = 0, tile: int | None = None, side: int = 1, row: int = 0,
        move_pay: tuple[int, int] = (0, 0), price_pay: tuple[int, int] = (0, 0)) -> None:
    """Play a whole purchase turn; sub-decisions the engine resolves alone are skipped."""
    p = s.current_player
    act(s, A.MAIN, slot)
    while s.current_player == p and s.phase not in (A.MAIN, A.KANE, A.IRRIG) and not s.is_terminal():
        ph = s.phase
        if ph == A.TOKEN:
            act(s, ph, circle)
        elif ph == A.TILE:
            act(s, ph, tile)
        elif ph == A.SIDE:
            act(s, ph, side - 1)
        elif ph == A.ROW:
            act(s, ph, row)
        elif ph in (A.PAY, A.SPLIT):
            _pay(s, move_pay if len(s.payments) == 2 else price_pay)
        else:
            raise AssertionError(f"unexpected decision {A.PHASE_NAMES[ph]}")


def boat_trip(s: HawaiiState, boats: list[int] | None, pay: tuple[int, int]) -> None:
    p = s.current_player
    while s.current_player == p and s.phase in (A.BOATS, A.PAY, A.SPLIT) and not s.is_terminal():
        if s.phase == A.BOATS:
            if boats:
                act(s, A.BOATS, boats.pop(0))
            elif A.BOAT_DONE in legal_in(s, A.BOATS):
                act(s, A.BOATS, A.BOAT_DONE)
            else:
                act(s, A.BOATS, legal_in(s, A.BOATS)[0])
        else:
            _pay(s, pay)


def fish(s: HawaiiState, k: int, boats: list[int] | None = None, pay: tuple[int, int] = (0, 0)) -> None:
    act(s, A.MAIN, A.MAIN_FISH)
    if s.phase == A.FISH:
        act(s, A.FISH, k - 1)
    boat_trip(s, list(boats) if boats else None, pay)


def visit(s: HawaiiState, dock: int, tile: int | None = None, row: int = 0, boats: list[int] | None = None,
          pay: tuple[int, int] = (0, 0)) -> None:
    act(s, A.MAIN, A.MAIN_ISLAND + dock)
    if s.phase == A.TILE:
        act(s, A.TILE, tile)
    if s.phase == A.ROW:
        act(s, A.ROW, row)
    boat_trip(s, list(boats) if boats else None, pay)


def end_round(s: HawaiiState, space: int) -> None:
    act(s, A.MAIN, A.MAIN_PASS + space)


def play_random(s: HawaiiState, rng: np.random.Generator, limit: int = 100_000) -> int:
    k = 0
    while not s.is_terminal():
        la = s.legal_actions()
        s.apply(la[rng.integers(len(la))])
        k += 1
        assert k < limit
    return k
