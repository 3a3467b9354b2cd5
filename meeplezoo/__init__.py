"""meeplezoo: reinforcement-learning environments for modern board games.

>>> import meeplezoo
>>> env = meeplezoo.make("kerala", num_players=3)
>>> meeplezoo.list_envs()
['kerala', 'haus_der_sonne', 'hawaii', 'asara']

Importing the package also installs the by-name resolvers of ``envs.core``
(game ids through the registry, agent specs through ``meeplezoo.agents``), so
``SingleAgentEnv("kerala", opponents=["heuristic"])`` and replay documents
resolve names while ``envs.core`` imports nothing above itself.
"""

from typing import Any

from ._version import __version__
from .envs.core.gym import SingleAgentEnv
from .envs.core.info import GameInfo
from .envs.core.resolve import set_resolvers
from .registry import (
    env_module,
    game_class,
    game_info,
    list_envs,
    make,
    make_game,
    register_gymnasium,
    register_pettingzoo,
)

__all__ = ["GameInfo", "env_module", "game_class", "game_info", "list_envs", "make", "make_game",
           "make_single_agent", "register_gymnasium", "register_pettingzoo", "__version__"]


def _make_agent(spec: str, game: Any, *, num_players: int | None = None, seed: int | None = None) -> Any:
    from .agents import make as make_agent  # imported on first use: `import meeplezoo` stays light

    return make_agent(spec, game, num_players=num_players, seed=seed)


def make_single_agent(game: Any, opponents: Any = None, **kwargs: Any) -> Any:
    """The single-agent Gymnasium view (:class:`~meeplezoo.envs.core.gym.SingleAgentEnv`) of a game id or
    Game, opponents given as agents or agent specs: ``make_single_agent("kerala", ["heuristic"], num_players=3)``."""
    kwargs.setdefault("agent_factory", _make_agent)
    return SingleAgentEnv(game, opponents, **kwargs)


set_resolvers(game=make_game, agent=_make_agent)
register_pettingzoo()
register_gymnasium()
