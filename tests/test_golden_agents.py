"""Every kind of agent makes the recorded moves on fixed seeds, and expert iteration's first self-play game
yields the recorded samples (``tests/golden/agents.py`` records them; rerun it only for a deliberate change of
an agent's decisions, and say why in the commit)."""

from __future__ import annotations

import json

import pytest
from golden.agents import PATH, compare, replay

RECORDS = json.loads(PATH.read_text())


def _id(r: dict) -> str:
    return f"{r['game']}-{r.get('players', 2)}p-{r.get('spec', 'exit')}"


def test_golden_agent_set_covers_every_kind():
    specs = {r.get("spec", "").split(":")[0] for r in RECORDS}
    assert {"random", "heuristic", "mcts", "pretrained", ""} <= specs
    assert {r["game"] for r in RECORDS if "exit_seed" in r} == {"haus_der_sonne", "kerala", "hawaii", "asara"}


@pytest.mark.parametrize("record", RECORDS, ids=_id)
def test_golden_agent_moves(record):
    assert compare(record, replay(record)) is None
