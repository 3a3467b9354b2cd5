"""What values the search's leaves and gives its priors: everything behind one :class:`Evaluator` interface.

* :class:`RolloutEvaluator`: play on to the end (uniformly random moves, or an agent's such as the game
  heuristic's, with an ``epsilon`` of random moves), or to a depth cut-off;
* :class:`ScoreEvaluator`: the value of a position from its provisional ``scores()`` (the cut-offs);
* :class:`HeuristicPrior`: the game heuristic's action scores as a prior;
* a policy-value network (:class:`~meeplezoo.agents.network.NetworkEvaluator`): priors and values.

Every evaluator answers ``evaluate(states) -> (priors, values)``; the search asks for its leaves' values
through :meth:`Evaluator.evaluate_leaves`, which also hears how deep below the root each leaf lies (what
a depth-limited rollout needs; other evaluators ignore it).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from meeplezoo.envs.core.game import compute_returns

from ..base import Agent

#: a rollout that runs this long means the engine never ends the game: a bug, reported as such
MAX_ROLLOUT_STEPS = 100_000


class Evaluator(ABC):
    """What the search asks of a prior/value source (a policy-value network, a heuristic, rollouts, ...).

    ``evaluate(states)`` takes a list of engine states (determinizations: all
    they hold is what the searching player may know, or a sample of it) and
    returns ``(priors, values)``: ``priors[i]`` weights over all action ids
    (only the legal ones are read, then renormalised) or None; ``values`` is
    None or ``values[i]`` a reward vector (one entry per player, the scale of
    ``returns``) for states[i].  Set ``provides_values`` when values come back:
    the search then sends its leaves here in batches of ``batch`` (instead of
    rolling out) and stores the priors that come with them.
    """

    provides_values: bool = False
    #: with values: the share m of the search's own rollout value in each leaf's, (1 - m) * mine + m * rollout
    leaf_mix: float = 0.0

    @abstractmethod
    def evaluate(self, states: list[Any]) -> tuple[Any, Any]:
        """``(priors, values)`` for ``states`` (see the class docstring)."""

    def evaluate_leaves(self, states: list[Any], depths: list[int]) -> tuple[Any, Any]:
        """``(priors, values)`` for leaves ``states`` lying ``depths`` decisions below the root (by default
        :meth:`evaluate`; a depth-limited evaluator counts the remaining decisions from them)."""
        return self.evaluate(states)

    def pool_key(self) -> Any:
        """What the lockstep driver (:func:`~.batched.lockstep`) pools this evaluator's requests by: those of
        evaluators with equal keys are answered together by :meth:`evaluate_pool` (None, the default: each
        request alone)."""
        return None

    @classmethod
    def evaluate_pool(cls, requests: list[Any]) -> list[tuple[Any, Any]]:
        """The answers to ``requests`` (:class:`~.batched.Request`, of evaluators with one pool key), each
        what the request alone would get; by default they are answered one by one."""
        return [r.answer() for r in requests]


class ScoreEvaluator(Evaluator):
    """The value of a non-terminal position from its provisional scores: zero-sum ``tanh(margin / scale)``
    per player (``scale``: None is the game's ``score_scale / 5``), or the ``"score"`` returns."""

    provides_values = True

    def __init__(self, reward_mode: str = "win", scale: float | None = None) -> None:
        self.reward_mode = reward_mode
        self.scale = scale

    def value(self, s: Any) -> list[float]:
        """The reward vector of ``s`` (in [-1, 1] except for ``reward_mode="score"``)."""
        game = s.game
        scores = s.scores()
        n = len(scores)
        if self.reward_mode == "score":
            return compute_returns(s.placements(), scores, "score", game.score_scale).tolist()
        scale = self.scale if self.scale is not None else game.score_scale / 5.0
        total = float(sum(scores))
        return [math.tanh((x - (total - x) / (n - 1)) / scale) for x in scores]

    def evaluate(self, states: list[Any]) -> tuple[None, list[list[float]]]:
        return None, [self.value(s) if not s.is_terminal() else s.returns(self.reward_mode).tolist()
                      for s in states]


class RolloutEvaluator(Evaluator):
    """Values from playing on: uniformly random moves (``agent`` None) or ``agent``'s (with probability
    ``epsilon`` a uniformly random one instead), to the end, or until ``rollout_depth`` decisions after the
    leaf or ``max_depth`` below the root, where ``cutoff`` values the position.  Draws from ``rng`` (the
    search's, set by it)."""

    provides_values = True

    def __init__(self, rng: Any, cutoff: ScoreEvaluator, *, agent: Agent | None = None, epsilon: float = 0.0,
                 rollout_depth: int | None = None, max_depth: int | None = None) -> None:
        self.rng = rng
        self.cutoff = cutoff
        self.agent = agent
        self.epsilon = epsilon
        self.rollout_depth = rollout_depth
        self.max_depth = max_depth

    def evaluate(self, states: list[Any]) -> tuple[None, list[list[float]]]:
        return self.evaluate_leaves(states, [0] * len(states))

    def evaluate_leaves(self, states: list[Any], depths: list[int]) -> tuple[None, list[list[float]]]:
        return None, [self.rollout(s, d) for s, d in zip(states, depths)]

    def rollout(self, s: Any, depth: int) -> list[float]:
        """Play on from ``s`` (consumed; ``depth`` decisions below the root so far): its reward vector."""
        limit = MAX_ROLLOUT_STEPS if self.rollout_depth is None else self.rollout_depth
        if self.max_depth is not None:
            limit = min(limit, self.max_depth - depth)
        if self.agent is None:
            steps = self._random(s, limit)
        else:
            steps = self._with_agent(s, limit)
        if steps < 0:
            return s.returns(self.cutoff.reward_mode).tolist()
        if steps >= MAX_ROLLOUT_STEPS:
            raise RuntimeError(f"{s.game.name}: a rollout ran {steps} decisions without ending the game (engine bug)")
        return self.cutoff.value(s)

    def _random(self, s: Any, limit: int) -> int:
        """Random moves to the end (-1) or to ``limit`` decisions (the number played)."""
        is_terminal, apply, legal_actions = s.is_terminal, s._apply, s.legal_actions
        randbelow = self.rng.randbelow
        steps = 0
        while not is_terminal():
            if steps >= limit:
                return steps
            acts = legal_actions()
            apply(acts[randbelow(len(acts))])
            steps += 1
        return -1

    def _with_agent(self, s: Any, limit: int) -> int:
        """The agent's moves to the end (-1) or to ``limit`` decisions (the number played)."""
        agent = self.agent
        is_terminal, apply = s.is_terminal, s._apply
        eps, rand, randbelow = self.epsilon, self.rng.random, self.rng.randbelow
        with_state = agent.uses_state
        # agents that decide from the state alone may say so and save the observation encoding
        with_obs = getattr(agent, "uses_observation", True)
        agent.reset()  # a rollout is a fresh game for the agent's memory (plans of earlier rollouts)
        steps = 0
        while not is_terminal():
            if steps >= limit:
                return steps
            p = s.current_player
            mask = s.legal_mask()
            if eps and rand() < eps:
                acts = np.flatnonzero(mask)
                a = int(acts[randbelow(len(acts))])
            else:
                a = int(agent.act(s.observe(p) if with_obs else None, mask, state=s if with_state else None))
                if not (0 <= a < len(mask) and mask[a]):
                    raise RuntimeError(f"mcts: rollout agent {agent!r} chose illegal action {a} "
                                       f"({s.game.name}, player {p})")
            apply(a)
            steps += 1
        return -1


class HeuristicPrior(Evaluator):
    """The game heuristic as a prior: a softmax over its ``action_scores`` (at temperature ``temp``),
    or, in decisions where it scores nothing, ``weight`` on the move it would play and the rest uniform."""

    def __init__(self, agent: Agent, temp: float = 1.0, weight: float = 0.5) -> None:
        self.agent = agent
        self.temp = float(temp)
        self.weight = float(weight)
        self.scores = getattr(agent, "action_scores", None)

    def evaluate(self, states: list[Any]) -> tuple[list[np.ndarray], None]:
        out = []
        for s in states:
            mask = s.legal_mask()
            legal = np.flatnonzero(mask).tolist()
            pr = np.zeros(len(mask))
            sc = self.scores(s, legal) if self.scores is not None else None
            if sc is not None:
                x = np.asarray(sc, dtype=np.float64) / self.temp
                e = np.exp(x - x.max())
                pr[legal] = e / e.sum()
            else:
                a = int(self.agent.act(None, mask, state=s))
                pr[legal] = (1.0 - self.weight) / len(legal)
                pr[a] += self.weight
            out.append(pr)
        return out, None
