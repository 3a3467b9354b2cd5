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


def inspection_html(result: dict[str, Any], rows: int = 12) -> str:
    """The inspector's table as static HTML (bars drawn with CSS): the page's panel, for a notebook cell.

    ``result`` is what :func:`inspect_position` returns; the ``rows`` actions with the most visits (else the
    highest prior, else the first) are shown, the agent's choice marked with a star, the heuristic's with a
    diamond.
    """
    from html import escape

    actions = sorted(result["actions"], key=lambda a: -(a.get("share", a.get("prior", 0.0)) or 0.0))[:rows]
    cols = [k for k in ("prior", "share", "value", "score") if any(k in a for a in actions)]
    label = {"prior": "network prior", "share": "search visits", "value": "search value", "score": "heuristic score"}

    def cell(a: dict[str, Any], k: str) -> str:
        x = a.get(k)
        if x is None:
            return "<td></td>"
        if k == "score":
            return f"<td>{x:.2f}</td>"
        if k == "value":
            w, left, colour = 50 * min(1.0, abs(x)), 50 if x >= 0 else 50 - 50 * min(1.0, abs(x)), \
                "#3a9a5b" if x >= 0 else "#c0504d"
            text = f"{x:+.2f}"
        else:
            w, left, colour, text = 100 * max(0.0, min(1.0, x)), 0, "#2f6f9f", f"{100 * x:.1f}%"
        return (f'<td><div style="position:relative;width:90px;height:13px;background:#eee">'
                f'<span style="position:absolute;left:{left}%;width:{w}%;top:0;bottom:0;background:{colour}"></span>'
                f'<em style="position:absolute;left:3px;top:-2px;font-size:10px;font-style:normal">{text}</em>'
                f"</div></td>")

    head = "".join(f"<th>{label[k]}</th>" for k in cols)
    body = []
    for a in actions:
        marks = (" &#9733;" if a["action"] == result["choice"] else "") + \
            (" &#9670;" if a["action"] == result.get("heuristic_choice") else "")
        body.append(f'<tr><td style="text-align:left">{escape(a["name"])}{marks}</td>'
                    + "".join(cell(a, k) for k in cols) + "</tr>")
    seats = ""
    if result.get("seat_values"):
        seats = "value per seat: " + ", ".join(
            f"seat {i} {'n/a' if v is None else f'{v:+.3f}'}" for i, v in enumerate(result["seat_values"]))
    return (f'<div style="font:12px sans-serif"><b>{escape(str(result["agent"]))}</b>, seat {result["player"]} '
            f"to move. {seats}<table><tr><th>action</th>{head}</tr>{''.join(body)}</table>"
            "&#9733; the agent's choice, &#9670; the heuristic's</div>")
