"""Agent settings declared once: every spec kind round-trips spec -> options -> spec through its table,
bad values are refused naming the setting, and the search's defaults come from one table."""

from __future__ import annotations

import numpy as np
import pytest

from meeplezoo.agents import agent_knobs, format_spec, make, spec_options
from meeplezoo.agents.mcts import MCTSAgent
from meeplezoo.agents.network import NET_KNOBS, NetworkAgent, load_network, network_search
from meeplezoo.agents.pretrained import PRETRAINED_KNOBS, checkpoint_path
from meeplezoo.agents.registry import _known_options, known_agents
from meeplezoo.agents.search import NETWORK_SEARCH_KNOBS, SEARCH_KNOBS
from meeplezoo.knobs import Knobs

#: one spec per agent kind (a path where the kind takes one), with non-default options
SPECS = [
    ("random", "random"),
    ("heuristic", "heuristic"),
    ("heuristic", "heuristic:pass_margin=2.5"),
    ("mcts", "mcts:200:c=0.7:rollout=heuristic:reuse_tree=true"),
    ("mcts", "mcts:sims=50:prior=heuristic:widen=2.0:widen_alpha=0.4:preset=plain:reward_mode=rank"),
    ("mcts", "mcts:time=0.25:rollout_depth=0:max_depth=30:eval_scale=5.0:temperature=1.0:batch=4"),
    ("net", "net:PATH:sample=true:temperature=0.5"),
    ("netmcts", "netmcts:PATH:sims=30:leaf=rollout:rollout=heuristic:fpu=0.1"),
    ("pretrained", "pretrained:sims=50"),
    ("pretrained", "pretrained:search=true:temperature=0.5:c=1.25"),
    ("ppo", "ppo:PATH:deterministic=false"),
    ("sb3", "sb3:PATH:algo=MaskablePPO:deterministic=false"),
    ("human", "human"),
    ("external", "external:PATH:timeout=2.5"),
]


@pytest.mark.parametrize("kind, spec", SPECS)
def test_every_spec_kind_round_trips_through_its_table(kind, spec):
    name, args, options = spec_options(spec, "kerala")
    assert name == kind
    again = format_spec(name, args, options, "kerala")
    assert spec_options(again, "kerala") == (name, args, options)
    table = agent_knobs(name, "kerala")
    assert isinstance(table, Knobs)
    for key, value in options.items():  # each value has its knob's type (not left as text)
        assert table[key].validate(value, table.who) == value


def test_every_registered_kind_has_a_table_and_a_spec_here():
    assert {k for k, _ in SPECS} == set(known_agents())
    for name in known_agents():
        assert agent_knobs(name, "kerala") is not None


@pytest.mark.parametrize("spec, words", [
    ("mcts:sims=0", "mcts: sims must be an int >= 1"),
    ("mcts:sims=2.5", "sims must be an int"),
    ("mcts:c=-1", "mcts: c must be a number >= 0, got -1"),
    ("mcts:time=0", "time must be a number > 0"),
    ("mcts:rollout_epsilon=1.5", r"rollout_epsilon must be a number in \[0, 1\]"),
    ("mcts:fpu=3", r"fpu must be a number in \[0, 2\]"),
    ("mcts:reuse_tree=yes", "reuse_tree must be true or false, got 'yes'"),
    ("mcts:reward_mode=best", "reward_mode must be one of win, rank, score"),
    ("mcts:prior=network", "prior must be uniform, heuristic"),
    ("mcts:rollout=mcts", "would nest searches"),
    ("mcts:batch=0", "batch must be an int >= 1"),
    ("mcts:preset=fast", "preset must be one of tuned, plain"),
    ("mcts:sims=10:bogus=1:other=2", r"unknown options 'bogus', 'other' for agent 'mcts'.*known options: sims, time"),
    ("heuristic:noise=1", r"unknown option 'noise' for agent 'heuristic'.*known options: pass_margin"),
    ("heuristic:pass_margin=x", "pass_margin must be a number"),
    ("random:x=1", "known options: none"),
    ("pretrained:sample=maybe", "sample must be true or false"),
    ("pretrained:leaf=value", "leaf must be one of network, rollout"),
])
def test_bad_values_are_refused_naming_the_setting(spec, words):
    with pytest.raises(ValueError, match=words):
        make(spec, "kerala")


def test_python_options_go_through_the_same_table():
    with pytest.raises(ValueError, match="mcts: widen must be a number >= 0"):
        MCTSAgent(widen=-1)
    with pytest.raises(ValueError, match="mcts: sims must be an int >= 1"):
        MCTSAgent(sims=True)
    with pytest.raises(ValueError, match="mcts: unknown option 'simz'"):
        MCTSAgent(simz=3)
    net = load_network(checkpoint_path("kerala", 2))
    with pytest.raises(ValueError, match="net: temperature must be a number > 0"):
        NetworkAgent(net, temperature=0)
    with pytest.raises(ValueError, match="prior is the network"):
        network_search(net, prior="uniform")


def test_one_default_per_knob_and_the_search_reads_them():
    plain = MCTSAgent()
    for knob in SEARCH_KNOBS:
        want = knob.default
        got = plain.time_limit if knob.name == "time" else getattr(plain, knob.name)
        assert got == want, knob.name
    net = load_network(checkpoint_path("kerala", 2))
    guided = network_search(net)
    assert guided.sims == NETWORK_SEARCH_KNOBS["sims"].default and guided.c == NETWORK_SEARCH_KNOBS["c"].default
    assert network_search(net, time=0.1).sims is None  # a time alone is the whole budget
    assert make("mcts:time=0.1:preset=plain", "kerala").sims is None
    assert make("mcts:preset=plain", "kerala").sims == SEARCH_KNOBS["sims"].default
    assert PRETRAINED_KNOBS["sample"] is NET_KNOBS["sample"]
    # the tables are where the docs come from
    assert "| `sims` | `400` |" in SEARCH_KNOBS.markdown()


def test_known_options_come_from_the_tables():
    assert _known_options("mcts", "kerala") == [*SEARCH_KNOBS.names, "preset"]
    assert _known_options("heuristic", "kerala") == ["pass_margin"]
    assert _known_options("ppo", "kerala") is None  # rule options pass through to the checkpoint check


def test_a_positional_budget_is_sims():
    agent = make("mcts:12", "kerala", seed=0)
    assert agent.sims == 12 and agent.time_limit is None
    with pytest.raises(ValueError, match="sims given twice"):
        MCTSAgent(12, sims=3)
    with pytest.raises(ValueError, match="positional option is the number of simulations"):
        make("mcts:many", "kerala")
    assert np.isfinite(agent.c)


def test_an_evaluator_with_values_only_guides_the_search_with_uniform_priors():
    from meeplezoo.agents.search import Evaluator
    from meeplezoo.registry import make_game

    class Zero(Evaluator):
        provides_values = True

        def __init__(self):
            self.calls = 0

        def evaluate(self, states):
            self.calls += 1
            return None, [[0.0] * s.game.num_players for s in states]

    ev = Zero()
    agent = MCTSAgent(prior=ev, sims=30, batch=3, seed=0)
    state = make_game("kerala", 2).new_state(0)
    result = agent.search(state)
    assert result.simulations == 30 and ev.calls > 0 and state.legal_mask()[result.action]
