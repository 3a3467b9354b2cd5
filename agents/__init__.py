"""Agents: random, one heuristic per game, information-set MCTS, trained PPO policies.

Build them by name: ``meeplezoo.agents.make("heuristic", game="kerala", seed=0)``
or with options, ``make("mcts:sims=400:rollout=heuristic", game="hawaii")``.
"""

from .base import Agent, RandomAgent, act_on_state
from .registry import make, parse_spec, register

__all__ = ["Agent", "RandomAgent", "act_on_state", "make", "parse_spec", "register"]
