"""Helpers to build Haus der Sonne positions by hand."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from meeplezoo.envs.haus_der_sonne import components as C
from meeplezoo.envs.haus_der_sonne.state import HausDerSonneGame, HausDerSonneState

E = -1  # empty bay / supply


def discs(p0: dict[int, int] | None = None, p1: dict[int, int] | None = None) -> list[int]:
    """The ``disc`` field from {value: segment} per player (others in supply)."""
    out = [E] * 10
    for p, d in ((0, p0 or {}), (1, p1 or {})):
        for v, seg in d.items():
            out[p * 5 + v - 1] = seg
    return out


def bays(**by_seg: tuple[int, int]) -> list[int]:
    """Bays with filler statue cards everywhere except the given segments, e.g. ``bays(s2=(SHELL, FISH))``."""
    out = [C.STATUE] * 12
    for key, (a, b) in by_seg.items():
        s = int(key[1:])
        out[2 * s], out[2 * s + 1] = a, b
    return out


def balanced(state: HausDerSonneState) -> HausDerSonneState:
    """Move cards between discard and piles so that the position conserves every card (for round trips)."""
    g = state.game
    for f in range(C.NUM_FACES):
        n = sum(p.count(f) for p in state.piles) + state.bays.count(f) + state.hand[0][f] + state.hand[1][f]
        for pile in state.piles:  # too many copies in play: take the extra ones out of the piles
            while n > g.face_totals[f] and f in pile:
                pile.remove(f)
                n -= 1
        state.discard[f] = g.face_totals[f] - n
    assert min(state.discard) >= 0, "position uses more cards than the deck has"
    state.refresh()
    return state


def position(variant: str = "base", options: dict | None = None, seed: int = 0, **fields) -> HausDerSonneState:
    """A hand-made position: player 0 starts and is to move in MAIN unless ``fields`` say otherwise."""
    game = HausDerSonneGame(variant=variant, **(options or {}))
    base = dict(start_player=0, active=0, current_player=0, shaman=[C.BEACH_NODE0 + 1, C.BEACH_NODE0 + 4])
    base.update(fields)
    return HausDerSonneState.from_position(game, seed=seed, **base)


def play_random(state: HausDerSonneState, seed: int, max_steps: int = 5000) -> list[int]:
    r = random.Random(seed)
    acts = []
    while not state.is_terminal() and len(acts) < max_steps:
        la = state.legal_actions()
        a = la[r.randrange(len(la))]
        state.apply(a)
        acts.append(a)
    return acts


@pytest.fixture
def hds() -> SimpleNamespace:
    """The helpers above, for test modules (``hds.position(...)``, ``hds.discs(...)``)."""
    return SimpleNamespace(position=position, discs=discs, bays=bays, balanced=balanced, play_random=play_random, E=E)
