"""Asara (Ravensburger 2010): build the tallest, most splendid towers in four years; 2-4 players."""

from .state import AsaraGame, AsaraState

__all__ = ["AsaraGame", "AsaraState"]
