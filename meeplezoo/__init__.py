"""meeplezoo: reinforcement-learning environments for modern board games.

The entry points: :func:`make` (a PettingZoo AEC environment), :func:`make_game` (the engine's Game, for
search and tools), :func:`make_single_agent` (the Gymnasium view of one seat), :func:`list_envs` and
:func:`game_info`; agents are built by ``meeplezoo.agents.make``.

Examples:
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
    """The single-agent Gymnasium view of one seat, the other seats played by agents.

    Args:
        game: a registry id or a Game.
        opponents: agents or agent specs (``"heuristic"``, ``"mcts:sims=50"``, a checkpoint path) for the other
            seats, cycled to fill them; None: random agents.
        **kwargs: the keyword arguments of :class:`~meeplezoo.envs.core.gym.SingleAgentEnv` (``num_players``,
            ``learner_seat``, ``reward_mode``, ``illegal_action``, ``seed``, ``render_mode``) and rule options.

    Returns:
        A :class:`~meeplezoo.envs.core.gym.SingleAgentEnv`, with ``action_masks()`` for sb3-contrib's
        ``MaskablePPO``.

    Example:
        ```python
        env = meeplezoo.make_single_agent("kerala", ["heuristic"], num_players=3)
        obs, info = env.reset(seed=0)
        ```
    """
    kwargs.setdefault("agent_factory", _make_agent)
    return SingleAgentEnv(game, opponents, **kwargs)


set_resolvers(game=make_game, agent=_make_agent)
register_pettingzoo()
register_gymnasium()
