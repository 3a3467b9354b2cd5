"""Agents: random, one heuristic per game, information-set MCTS, trained PPO policies, policy-value
networks (alone or guiding the search) and the networks shipped with the package.

Build them by name: ``meeplezoo.agents.make("heuristic", game="kerala", seed=0)``
or with options, ``make("mcts:sims=400:rollout=heuristic", game="hawaii")``;
``make("pretrained", game="kerala")`` is the shipped network of the game (``pretrained:time=0.5``
searches with it; :func:`meeplezoo.agents.pretrained.available` lists them).  Each kind's options are a
declared table (:func:`meeplezoo.agents.registry.agent_knobs`; :mod:`meeplezoo.agents.catalog`).
"""

from . import catalog  # noqa: F401 - registers the built-in agent kinds
from .base import Agent, RandomAgent, act_on_state
from .registry import agent_knobs, format_spec, make, parse_spec, register, spec_options

__all__ = ["Agent", "RandomAgent", "act_on_state", "make", "parse_spec", "register", "spec_options", "format_spec",
           "agent_knobs"]
