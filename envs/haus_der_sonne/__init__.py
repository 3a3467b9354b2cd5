"""Haus der Sonne (House of the Sun / Haleakala): a two-player island game, with its tactical variant."""

from .state import HausDerSonneGame, HausDerSonneState

__all__ = ["HausDerSonneGame", "HausDerSonneState"]
