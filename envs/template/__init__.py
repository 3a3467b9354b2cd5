"""Template: a small complete hidden-information card game, the model to copy for a new game.

It has everything a real game has (rule options, multi-decision turns, hidden
hands, chance, determinize, JSON, text and picture rendering) in a few hundred
lines; ``docs/ADDING_A_GAME.md`` walks through it.
"""

from .state import TemplateGame, TemplateState

__all__ = ["TemplateGame", "TemplateState"]
