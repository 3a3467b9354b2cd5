"""Helpers for hand-made Asara positions: set fields, then play actions by name."""

from __future__ import annotations

from meeplezoo.envs.asara import components as C
from meeplezoo.envs.asara.state import PH_AREA, AsaraGame, AsaraState


def clear_position(s: AsaraState, *, player: int = 0, hands: dict[int, list[int]] | None = None,
                   money: list[int] | None = None) -> AsaraState:
    """Empty board, no reserves or towers, chosen hands and money; player ``player`` to choose an area."""
    n = s.game.num_players
    s._clear_board()
    s._clear_pending()
    s.hand = [0] * (5 * n)
    for p, h in (hands or {}).items():
        s.hand[p * 5: p * 5 + 5] = list(h)
    s.reserve = [0] * len(s.reserve)
    s.towers = [0] * len(s.towers)
    if money is not None:
        s.money = list(money)
    s.current_player = player
    s.phase = PH_AREA
    s.refresh()
    return s


def position(n: int = 2, seed: int = 0, *, player: int = 0, hands=None, money=None, **options) -> AsaraState:
    g = AsaraGame(n, **options)
    s = g.new_state(seed)
    return clear_position(s, player=player, hands=hands, money=money or [30] * n)


def names(s: AsaraState) -> set[str]:
    return {s.action_name(a) for a in s.legal_actions()}


def act(s: AsaraState, name: str) -> int:
    """Apply the legal action called ``name``; fail with the legal names otherwise."""
    for a in s.legal_actions():
        if s.action_name(a) == name:
            s.apply(a)
            return a
    raise AssertionError(f"{name!r} is not legal; legal: {sorted(names(s))}")


def give(s: AsaraState, p: int, type_: int, m: int, gold: int = 0, count: int = 1) -> None:
    """Put ``count`` tiles behind player p's screen (tests only; not taken from any pile)."""
    s.reserve[p * C.NUM_KINDS + type_ * 10 + 2 * m + gold] += count
    s.refresh()


def add_tower(s: AsaraState, p: int, m: int, *, base_gold: int = 0, turret_gold: int = 0, trunks: int = 0,
              gold_trunks: int = 0, windows: int = 0, gold_windows: int = 0, lit: int = 0) -> int:
    """Build a complete tower of material m for player p in its lowest free slot; returns the slot."""
    for slot in range(s.game.slots):
        i = s.tower_index(p, m, slot)
        if not s.towers[i]:
            s.towers[i: i + C.TOWER_FIELDS] = [1 + base_gold, 1 + turret_gold, trunks, gold_trunks, windows,
                                               gold_windows, lit, 0]
            s.refresh()
            return slot
    raise AssertionError("no free slot")
