"""The inspector: what an agent thinks of one position, read through the agents' public API only.

This is the one place ``meeplezoo serve`` touches agents beyond ``act``; everything it relies on is:

* ``meeplezoo.agents.registry.make(spec, game, num_players=, seed=)`` builds the agent;
* a search agent has ``search(state, observation=, action_mask=) -> SearchResult`` (``visits``, ``values``,
  ``action``, ``simulations``, ``seconds``, ``root_value``);
* a network agent has ``net`` (``NetworkAgent``) or ``network`` (the network-guided search), a
  ``PolicyValueNet`` with ``observe(state, player)`` and ``forward(obs) -> (logits, values)``; values are
  egocentric (``egocentric_to_seats``) and the prior is ``masked_softmax(logits, mask)``;
* a heuristic has ``action_scores(state, legal)`` (None where it scores nothing);
* any agent can ``act`` (``act_on_state``).

Nothing here plays the move: the search runs on the state (it determinizes for the player to move, so it
sees only that player's information) and the state is left as it was.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from meeplezoo.agents.base import act_on_state
from meeplezoo.agents.network import egocentric_to_seats, masked_softmax
from meeplezoo.agents.registry import make


def build_agent(spec: str, game: Any, seed: int = 0) -> Any:
    """The agent of ``spec`` for ``game`` (a Game object: checkpoints are checked against its options)."""
    return make(spec, game, num_players=game.num_players, seed=seed)


def network_of(agent: Any) -> Any:
    """The policy-value network an agent plays with (``net:``/``pretrained``) or searches with
    (``netmcts:``/``pretrained:sims=``), or None."""
    return getattr(agent, "net", None) or getattr(agent, "network", None)


def _finite(x: float) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


def network_view(net: Any, state: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(prior over all actions, value per seat)`` of the network at ``state`` for the player to move."""
    player = state.current_player
    obs = net.observe(state, player)
    logits, values = net.forward(obs)
    prior = masked_softmax(logits, np.asarray(state.legal_mask(), dtype=bool)[None])[0]
    return prior, egocentric_to_seats(values[0], player)


def inspect_position(agent: Any, state: Any, heuristic: Any | None = None) -> dict[str, Any]:
    """What ``agent`` makes of ``state`` (not terminal), as plain JSON-ready data.

    ``actions``: one entry per legal action with ``prior`` (network agents), ``visits``, ``share`` (of the
    root visits) and ``value`` (mean return for the player to move; search agents), ``score`` (heuristics);
    ``choice``: the action the agent would play; ``seat_values``: the network's value estimate per seat
    (search agents without a network: the root value for the player to move only); ``heuristic_choice``:
    the move of ``heuristic`` (the game's heuristic agent), when given.
    """
    if state.is_terminal():
        raise ValueError("the game is over: there is no decision to inspect")
    player = int(state.current_player)
    legal = [int(a) for a in state.legal_actions()]
    mask = np.asarray(state.legal_mask(), dtype=bool)
    rows: dict[int, dict[str, Any]] = {a: {"action": a, "name": state.action_name(a)} for a in legal}
    out: dict[str, Any] = {"agent": getattr(agent, "name", repr(agent)), "player": player, "kind": [],
                           "choice": None, "seat_values": None, "root_value": None, "simulations": None,
                           "seconds": None}
    net = network_of(agent)
    if net is not None:
        prior, seat_values = network_view(net, state)
        for a in legal:
            rows[a]["prior"] = float(prior[a])
        out["seat_values"] = [float(v) for v in seat_values]
        out["kind"].append("prior")
    if hasattr(agent, "search"):
        obs = state.observe(player) if getattr(agent, "uses_observation", True) else None
        result = agent.search(state, observation=obs, action_mask=mask)
        total = int(result.visits.sum())
        for a in legal:
            n = int(result.visits[a])
            rows[a]["visits"] = n
            rows[a]["share"] = n / total if total else 0.0
            rows[a]["value"] = _finite(float(result.values[a]))
        out.update(choice=int(result.action), root_value=float(result.root_value),
                   simulations=int(result.simulations), seconds=float(result.seconds))
        if out["seat_values"] is None:
            out["seat_values"] = [None] * state.game.num_players
            out["seat_values"][player] = float(result.root_value)
        out["kind"].append("search")
    if hasattr(agent, "action_scores"):
        scores = agent.action_scores(state, legal)
        if scores is not None:
            for a, s in zip(legal, scores):
                rows[a]["score"] = _finite(float(s))
            out["kind"].append("scores")
    if out["choice"] is None:  # what it plays (a network alone: its most probable action)
        out["choice"] = int(act_on_state(agent, state.clone()))
    if heuristic is not None:
        out["heuristic_choice"] = int(act_on_state(heuristic, state.clone()))
    out["actions"] = [rows[a] for a in legal]
    return out
