"""Hawaii (Hans im Glück 2011): rules engine, action codec, observation and rendering."""

from .state import HawaiiGame, HawaiiState

__all__ = ["HawaiiGame", "HawaiiState"]
