"""The commands of ``meeplezoo`` (:mod:`meeplezoo.cli`), one module each, in the order ``--help`` lists them.

Each module has ``add_parser(subparsers)``, which registers its command and the function that runs it.
"""

from __future__ import annotations

from . import arena, bench, evaluate, ladder, league, list_games, play, replay, serve, train

#: the command modules
COMMANDS = (list_games, play, replay, arena, bench, train, evaluate, league, ladder, serve)

__all__ = ["COMMANDS"]
