"""The search's settings, declared once: :data:`SEARCH_KNOBS` (name, type, default, range, doc).

``mcts`` specs (``mcts:sims=800:c=0.7``), :class:`~meeplezoo.agents.mcts.MCTSAgent`'s keyword options,
:func:`~meeplezoo.agents.network.network_search` and the docs all read this table; its defaults are the
plain search (``mcts:preset=plain``); each game's tuned setting (``GameInfo.search_defaults``) replaces
some of them.  :data:`NETWORK_SEARCH_KNOBS` is the network-guided search's table: the same knobs, with
its own declared defaults where a network call per simulation makes another budget and exploration the
better default, its ``leaf`` kind and ``heuristic_prior`` (the heuristic's prior blended into the network's);
``prior`` is the network and cannot be set.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from meeplezoo.envs.core.game import REWARD_MODES
from meeplezoo.knobs import Knob, Knobs

from ..base import Agent

#: the largest prior_weight and fpu accepted (both are in units of the reward's range)
MAX_WEIGHT = 2
#: how the network-guided search values its leaves: the value head, or the plain search's rollouts/cut-off
LEAF_KINDS = ("network", "rollout")
#: how the root chooses its action: PUCT as every node, or the Gumbel root (:mod:`.gumbel`)
ROOT_KINDS = ("puct", "gumbel")


def _check_rollout(value: Any) -> Any:
    if isinstance(value, Agent):
        return value
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"must be 'random', an agent spec or an Agent, got {value!r}")
    if value.strip().split(":")[0] == "mcts":
        raise ValueError("=mcts would nest searches; use 'random' or a fast agent such as 'heuristic'")
    return value.strip()


def _check_prior(value: Any) -> Any:
    if value in ("uniform", "heuristic") or hasattr(value, "evaluate"):
        return value
    raise ValueError(f"must be uniform, heuristic or an object with evaluate(states), got {value!r}")


def check_root(settings: Mapping[str, Any], who: str) -> None:
    """Refuse what the Gumbel root cannot do: a time budget (sequential halving divides a number of
    simulations), a visit temperature (its randomness is ``gumbel_scale``) and tree reuse (it starts from a
    fresh root)."""
    if settings["root"] != "gumbel":
        return
    if settings["time"] is not None or settings["sims"] is None:
        raise ValueError(f"{who}: root=gumbel needs a simulation budget (sims=N) that sequential halving divides "
                         f"among its candidates; time cannot be given (got time={settings['time']})")
    if settings["temperature"] > 0:
        raise ValueError(f"{who}: root=gumbel plays the halving's winner (its noise is gumbel_scale); "
                         f"temperature must be 0, got {settings['temperature']}")
    if settings["reuse_tree"]:
        raise ValueError(f"{who}: root=gumbel starts every decision from a fresh root; reuse_tree must be false")


def _no_prior(value: Any) -> Any:
    raise ValueError("cannot be given: the prior is the network")


SEARCH_KNOBS = Knobs("mcts", [
    Knob("sims", int, 400, "iterations per decision (none: as many as time allows; a positional spec "
         "argument is sims too: mcts:200)", low=1, optional=True),
    Knob("time", float, None, "seconds per decision (wall clock; the search stops at whichever budget runs "
         "out first; decisions are then not reproducible)", low=0, low_open=True),
    Knob("c", float, 1.0, "exploration constant (returns lie in [-1, 1])", low=0),
    Knob("rollout", object, "random", "leaf rollouts: 'random', any agent spec for the game ('heuristic') "
         "or an Agent", check=_check_rollout),
    Knob("rollout_epsilon", float, 0.0, "probability of a uniformly random rollout move instead of the "
         "rollout agent's", low=0, high=1),
    Knob("rollout_depth", int, None, "rollout decisions after the leaf before the position is valued from "
         "scores() (none: play to the end)", low=0),
    Knob("max_depth", int, None, "decisions below the root (tree plus rollout) after which the position is "
         "valued from scores() (none: no limit)", low=1),
    Knob("eval_scale", float, None, "score margin that counts as a clear lead at a cut-off: the value is "
         "tanh(margin / eval_scale) (none: the game's score_scale / 5)", low=0, low_open=True),
    Knob("temperature", float, 0.0, "0 plays the most visited action (ties: higher value, then lower id); "
         "above 0 samples with probability proportional to visits ** (1 / temperature)", low=0),
    Knob("reuse_tree", bool, False, "keep the subtree of the position reached since the last decision when "
         "the player's own observation identifies it"),
    Knob("reward_mode", str, "win", "which terminal returns the search maximises", choices=tuple(REWARD_MODES)),
    Knob("prior", object, None, "none (UCT), 'uniform', 'heuristic' (a softmax over the game heuristic's "
         "action scores) or an Evaluator (PUCT)", check=_check_prior),
    Knob("prior_temp", float, 1.0, "temperature of the heuristic prior's softmax", low=0, low_open=True),
    Knob("prior_weight", float, 0.5, "where the heuristic scores nothing, the prior's weight on the move it "
         "would play (the rest uniform)", low=0, high=MAX_WEIGHT),
    Knob("fpu", float, 0.2, "first-play urgency: an unvisited child's value is its parent's value for the "
         "mover less this", low=0, high=MAX_WEIGHT),
    Knob("widen", float, 0.0, "progressive widening: at a node visited N times only the "
         "ceil(widen * (N + 1) ** widen_alpha) actions of highest prior compete (0: all)", low=0),
    Knob("widen_alpha", float, 0.5, "the exponent of progressive widening", low=0, low_open=True),
    Knob("batch", int, 1, "descents per evaluator call (virtual losses keep them apart; with rollouts it "
         "only changes the order of the work)", low=1),
    Knob("root", str, "puct", "how the root chooses: puct (as every node), or gumbel (Gumbel-top-k of the "
         "prior's logits, sequential halving of sims over the candidates, the improved policy in the "
         "result's extra; needs a prior and sims)", choices=ROOT_KINDS),
    Knob("gumbel_k", int, 16, "root=gumbel: actions sampled at the root (Gumbel-top-k)", low=1),
    Knob("gumbel_scale", float, 1.0, "root=gumbel: the scale of the Gumbel noise (0: no noise, the best by "
         "prior and values)", low=0),
])

#: the network-guided search (``netmcts:PATH``, ``pretrained:sims=N``, expert iteration's expert)
NETWORK_SEARCH_KNOBS = SEARCH_KNOBS.extend("netmcts", [
    Knob("sims", int, 200, "iterations per decision (each one a network call: half the plain search's "
         "default)", low=1, optional=True),
    Knob("c", float, 1.5, "exploration constant of PUCT", low=0),
    Knob("prior", object, None, "the network (not a setting)", check=_no_prior),
    Knob("leaf", str, "network", "how leaves are valued: the network's value head, or the plain search's "
         "rollouts and cut-offs (the network is then the prior only)", choices=LEAF_KINDS),
    Knob("leaf_mix", float, 0.0, "with leaf=network, the share m of the plain search's leaf value (its "
         "rollout, or the cut-off at rollout_depth=0) in each leaf's: (1 - m) * network + m * rollout (AlphaGo's "
         "mixing; 0: the value head alone)", low=0, high=1),
    Knob("heuristic_prior", float, 0.0, "weight w of the game heuristic's prior (the tuned search's, at "
         "prior_temp) blended into the network's: (1 - w) * network + w * heuristic over the legal actions; "
         "the values stay the network's (0: the network alone)", low=0, high=1),
    Knob("opponent_prior", float, None, "weight of the game heuristic's prior at the other seats' decisions, "
         "in place of heuristic_prior there: an opponent model (1: the search expects them to play as the "
         "heuristic does; 0: as the network does); unset: heuristic_prior at every decision", low=0, high=1,
         optional=True),
    Knob("policy_temp", float, 1.0, "temperature of the network policy's softmax in the prior: its logits "
         "divided by it (Leela Chess Zero's policy softmax temperature; above 1 flattens a sharp prior; 1: as "
         "trained)", low=0, low_open=True),
])
