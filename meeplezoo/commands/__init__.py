"""The commands of ``meeplezoo`` (:mod:`meeplezoo.cli`), one module each, in the order ``--help`` lists them.

Each module has ``add_parser(subparsers)``, which registers its command and the function that runs it.
"""

from __future__ import annotations

from . import arena, bench, evaluate, league, list_games, play, replay, train

#: the command modules
COMMANDS = (list_games, play, replay, arena, bench, train, evaluate, league)

__all__ = ["COMMANDS"]
