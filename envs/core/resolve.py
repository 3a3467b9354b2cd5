"""By-name resolution, injected from above.

``envs.core`` knows no game and no agent by name.  The wrappers here that
accept names (``SingleAgentEnv("kerala", opponents=["heuristic"])``, a replay
document's ``"game"``) ask the resolvers installed with :func:`set_resolvers`;
``import meeplezoo`` installs the registry's (games) and ``meeplezoo.agents``'
(agent specs).  Without them only Game objects and agent objects are accepted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .game import Game

GameResolver = Callable[..., Game]  # (name, num_players, **rule_options) -> Game
AgentFactory = Callable[..., Any]  # (spec, game_name, *, num_players, seed) -> Agent

_game_resolver: GameResolver | None = None
_agent_factory: AgentFactory | None = None


def set_resolvers(game: GameResolver | None = None, agent: AgentFactory | None = None) -> None:
    """Install the functions that turn game names into Games and agent specs into agents."""
    global _game_resolver, _agent_factory
    if game is not None:
        _game_resolver = game
    if agent is not None:
        _agent_factory = agent


def resolve_game(name: str, num_players: int | None = None, **rule_options: Any) -> Game:
    if _game_resolver is None:
        raise LookupError(f"no game resolver installed to build {name!r} by name: pass a Game, or import meeplezoo")
    return _game_resolver(name, num_players, **rule_options)


def resolve_agent(spec: str, game: str, *, num_players: int | None = None, seed: int | None = None) -> Any:
    if _agent_factory is None:
        raise LookupError(f"no agent factory installed to build {spec!r}: pass agents, or import meeplezoo")
    return _agent_factory(spec, game, num_players=num_players, seed=seed)
