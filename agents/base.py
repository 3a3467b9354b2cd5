"""The Agent protocol and the random agent.

Every agent answers ``act(observation, action_mask, *, state=None) -> int``.
``state`` (the engine State) is passed only to agents whose ``uses_state`` is
True.  Such agents must read no more than the acting player may know: search
agents only touch ``state.determinize(player, rng)``, heuristics read public
information and the acting player's own holdings.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np


class Agent(ABC):
    """Base class of all agents."""

    #: short name shown in tables (set per instance by the registry)
    name: str = "agent"
    #: whether ``act`` wants the engine state (heuristics, search)
    uses_state: bool = False
    #: whether ``act`` reads the observation; engine-level loops (arenas, rollouts, opponents in the
    #: training wrapper) skip encoding it for agents that decide from the state and the mask alone
    uses_observation: bool = True

    @abstractmethod
    def act(self, observation: np.ndarray, action_mask: np.ndarray, *, state: Any = None) -> int:
        """The action to play: an index where ``action_mask`` is true."""

    def reset(self, seed: int | None = None) -> None:  # noqa: B027 - an optional hook, not abstract
        """Called at the start of each game (agents with memory clear it here)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class RandomAgent(Agent):
    """Uniformly random legal action (seedable)."""

    name = "random"
    uses_observation = False

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, *, state: Any = None) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("random agent: the action mask allows no action")
        return int(legal[self.rng.integers(legal.size)])


def act_on_state(agent: Agent, state: Any) -> int:
    """Ask ``agent`` for the move of ``state.current_player`` (engine-level loops)."""
    p = state.current_player
    obs = state.observe(p) if agent.uses_observation else None
    mask = state.legal_mask()
    return int(agent.act(obs, mask, state=state if agent.uses_state else None))
