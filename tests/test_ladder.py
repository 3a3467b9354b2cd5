"""Reference ladders and ``rate``: schedule, build, versions, rating any kind of agent, forfeits."""

from __future__ import annotations

import json
import os
import stat
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from meeplezoo.agents.base import RandomAgent
from meeplezoo.cli import main
from meeplezoo.training import ladder as ladder_mod
from meeplezoo.training.ladder import Ladder, LadderSpec, build_ladder, find_spec, ladder_specs, load_ladder
from meeplezoo.training.rate import rate, schedule

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "external_agent" / "random_agent.py"


@dataclass(frozen=True)
class SmallSpec(LadderSpec):
    """A cheap ladder for tests: random, heuristic and a tiny search on 2-player Hawaii."""

    def members(self) -> list[tuple[str, str]]:
        return [("random", "random"), ("heuristic", "heuristic"), ("search-4", "mcts:sims=4")]


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> Ladder:
    db = tmp_path_factory.mktemp("ladder") / "hawaii.sqlite"
    return build_ladder(SmallSpec("hawaii", 2), db, matches=96, progress=False, write=False)


class Counter(RandomAgent):
    """An importable agent class for ``module:Class`` specs."""


def test_every_configuration_has_a_ladder_with_the_whole_range():
    keys = {s.key for s in ladder_specs()}
    assert {"kerala-5p", "hawaii-5p", "asara-4p-professional", "haus_der_sonne-2p-tactical", "asara-2p"} <= keys
    for s in ladder_specs():
        labels = [m[0] for m in s.members()]
        assert labels[:5] == ["random", "heuristic", "search-8", "search-24", "search-64"]
        # a network ships there: every game at 2 players, Asara's seat network at 3-4, Hawaii's and Kerala's at 3-5
        shipped = s.num_players == 2 or (s.game == "asara" and s.num_players in (3, 4)) or s.game in ("hawaii",
                                                                                                      "kerala")
        assert ("network" in labels) == (shipped and not s.options), s.key
    assert find_spec("asara", 3, {"version": "professional"}).key == "asara-3p-professional"
    with pytest.raises(ValueError, match="only the variant options"):
        find_spec("kerala", 2, {"derived_features": True})


def test_version_names_members_and_environment():
    a = find_spec("kerala", 3)
    assert a.version() == find_spec("kerala", 3).version()
    assert a.version() != find_spec("kerala", 4).version() != SmallSpec("kerala", 4).version()
    assert a.version(100) != a.version(200)


def test_schedule_is_seeded_rotates_the_seat_and_draws_distinct_members():
    s = schedule(5, 4, 40, seed=3)
    assert s == schedule(5, 4, 40, seed=3) and s != schedule(5, 4, 40, seed=4)
    assert [g.seat for g in s[:8]] == [0, 1, 2, 3, 0, 1, 2, 3]
    for g in s:
        assert g.members[g.seat] == -1 and sorted(g.members).count(-1) == 1
        others = [m for m in g.members if m >= 0]
        assert len(set(others)) == 3


def test_built_ladder_orders_its_members_and_round_trips(small, tmp_path):
    mu = {m.label: m.mu for m in small.members}
    assert mu["random"] < mu["heuristic"] and mu["random"] < mu["search-4"]
    assert small.matches == 96 and small.match_seconds > 0
    again = Ladder.from_json(json.loads(json.dumps(small.to_json())))
    assert again.to_json() == small.to_json()
    assert "hawaii-2p@" in small.format() and "search-4" in small.format()
    with pytest.raises(ValueError, match="not a ladder file"):
        Ladder.from_json({"format": 1, "game": "hawaii"})


def test_rating_a_member_as_new_recovers_its_rating(small):
    report = rate("heuristic", "hawaii", 2, games=80, seed=1, workers=1, ladder=small)
    member = small.member("heuristic")
    e, lo, hi = member.elo(small.rating)
    assert report.elo_low < e < report.elo_high, (report.format(), e)
    assert lo < report.elo < hi
    assert report.ladder == small.name and report.games == 80
    assert sum(m.games for m in report.members) == 80
    weak = rate("random", "hawaii", 2, games=40, seed=1, workers=1, ladder=small)
    assert weak.elo < report.elo


def test_same_seed_same_result_at_any_worker_count(small):
    one = rate("mcts:sims=4", "hawaii", 2, games=12, seed=5, workers=1, ladder=small)
    two = rate("mcts:sims=4", "hawaii", 2, games=12, seed=5, workers=2, ladder=small)
    assert (one.mu, one.sigma) == (two.mu, two.sigma)
    assert [(m.games, m.wins) for m in one.members] == [(m.games, m.wins) for m in two.members]


def test_an_external_program_and_an_importable_class_are_rated(small):
    ext = rate(f"external:{EXAMPLE}", "hawaii", 2, games=6, seed=0, workers=1, ladder=small)
    assert not ext.forfeits and ext.games == 6
    cls = rate("test_ladder:Counter", "hawaii", 2, games=6, seed=0, workers=1, ladder=small)
    assert not cls.forfeits
    with pytest.raises(ValueError, match="not a registered agent and not an importable module:Class"):
        rate("no_such_module_xyz:Agent", "hawaii", 2, games=2, ladder=small)


def _program(tmp_path: Path, body: str) -> Path:
    p = tmp_path / "agent.py"
    p.write_text("import json, sys, time\n" + textwrap.dedent(body))
    p.chmod(p.stat().st_mode | stat.S_IEXEC)
    return p


@pytest.mark.parametrize("body,reason", [
    ("for line in sys.stdin:\n    m = json.loads(line)\n    if m['type'] == 'act':\n        time.sleep(5)\n",
     "did not answer within 0.5 s"),
    ("sys.stdin.readline()\nsys.stdin.readline()\nsys.stderr.write('boom\\n')\nsys.exit(3)\n",
     "exited with code 3"),
    ("for line in sys.stdin:\n    m = json.loads(line)\n    if m['type'] == 'act':\n"
     "        print(json.dumps({'action': -7}), flush=True)\n", "answered action -7, which is not legal"),
    ("for line in sys.stdin:\n    m = json.loads(line)\n    if m['type'] == 'act':\n"
     "        print('hello', flush=True)\n", "not a line"),
])
def test_a_failing_external_program_forfeits_and_the_run_goes_on(small, tmp_path, body, reason):
    prog = _program(tmp_path, body)
    report = rate(f"external:{prog}:timeout=0.5", "hawaii", 2, games=2, seed=0, workers=1, ladder=small)
    assert len(report.forfeits) == 2 and report.games == 2
    assert reason in report.forfeits[0][1]
    assert "forfeit in game 0" in report.format()
    assert all(m.wins == 0 for m in report.members)


def test_shipped_ladders_are_current():
    """Every shipped ladder file matches the code's members and environment versions (else: rebuild)."""
    for path in sorted(ladder_mod.DATA.glob("*.json")):
        d = json.loads(path.read_text())
        lad = load_ladder(d["game"], d["num_players"], d["options"])
        assert path.stem == lad.spec.key and lad.matches > 0


def test_readme_and_ladder_page_show_every_shipped_ladder():
    """The summary table has a row per shipped ladder, each member's Elo where it is a member and a dash where
    it is not; README.md and docs/LADDER.md hold the tables ``scripts/ladder_tables.py`` writes."""
    ladders = ladder_mod.shipped_ladders()
    table = ladder_mod.summary_markdown(ladders).splitlines()
    assert len(table) == 2 + len(ladders)
    header = [c.strip() for c in table[0].strip("|").split("|")]
    for lad, row in zip(ladders, table[2:], strict=True):
        cells = dict(zip(header, (c.strip() for c in row.strip("|").split("|")), strict=True))
        assert cells["ladder"] == f"`{lad.name}`"
        for label in header[1:-2]:
            rated = [m for m in lad.members if m.label == label]
            if rated:
                e, lo, hi = rated[0].elo(lad.rating)
                assert cells[label] == f"{e:.0f} ±{(hi - lo) / 2:.0f}"
            else:
                assert cells[label] == "-"
    root = Path(__file__).resolve().parent.parent
    readme, page = (root / "README.md").read_text(), (root / "docs" / "LADDER.md").read_text()
    rows = ladder_mod.markdown(ladders).splitlines()[2:] + table[2:]
    # every row in the README; the members' rows (not the summary's) on the ladder page too
    missing = [row for row in rows if row not in readme or (row in table[2:]) == (row in page)]
    assert not missing, f"run scripts/ladder_tables.py: {missing[:3]}"


def test_missing_or_stale_ladder_names_the_command(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(ladder_mod, "DATA", tmp_path)
    with pytest.raises(ValueError, match="meeplezoo ladder build kerala --players 5"):
        load_ladder("kerala", 5)
    spec = find_spec("kerala", 5)
    (tmp_path / "kerala-5p.json").write_text(json.dumps(Ladder(spec, "00000000", [], 10, 1.0, "x").to_json()))
    with pytest.raises(ValueError, match="changed"):
        load_ladder("kerala", 5)
    assert main(["rate", "kerala", "--players", "5", "--agent", "random", "--games", "2", "--quiet"]) == 2
    assert "rebuild with" in capsys.readouterr().err
    assert main(["ladder", "list"]) == 0
    out = capsys.readouterr().out
    assert "kerala-5p" in out and "stale: rebuild" in out and "not built" in out


def test_cli_rate_prints_and_writes_json(small, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("meeplezoo.training.rate.load_ladder", lambda *a, **k: small)
    out = tmp_path / "r.json"
    assert main(["rate", "hawaii", "--players", "2", "--agent", "heuristic", "--games", "4", "--workers", "1",
                 "--quiet", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "heuristic on ladder hawaii-2p@" in text and "rating: elo" in text
    d = json.loads(out.read_text())
    assert d["games"] == 4 and len(d["members"]) == 3 and d["elo_interval"][0] < d["elo"] < d["elo_interval"][1]


sys.path.insert(0, os.path.dirname(__file__))
