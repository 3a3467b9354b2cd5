"""Recorded seeded games replay identically: the same actions, scores, observations and legal masks
(``tests/golden/golden.py`` records them; rerun it only for a deliberate observation or rules change,
with a new ``observation_version`` where the observation changed)."""

from __future__ import annotations

import json

import pytest
from golden.golden import PATH, compare, play

from meeplezoo.registry import GAMES

RECORDS = json.loads(PATH.read_text())


def test_golden_set_covers_every_game():
    """Every game of this package (the template included) has recorded trajectories."""
    ours = {name for name, info in GAMES.items() if info.entry_module.startswith("meeplezoo.")}
    assert {r["game"] for r in RECORDS} == ours


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: f"{r['game']}-{r['config']}-{r['seed']}")
def test_golden_replay(record):
    assert compare(record, play(record["game"], record["config"], record["seed"])) is None
