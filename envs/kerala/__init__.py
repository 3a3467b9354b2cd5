"""Kerala: the elephant festival tile-laying game (2-5 players)."""

from .state import KeralaGame, KeralaState

__all__ = ["KeralaGame", "KeralaState"]
