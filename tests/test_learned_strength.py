"""The strength benchmark's bookkeeping: games are kept apart by the checkpoint they played.

``benchmarks/learned_strength.py`` records the sha256 of the checkpoint behind every game; a spec whose file
is later replaced (a new shipped network) gets new rows, and the old network's games stay as rows marked
``superseded`` (in the history file) instead of being counted with the new one's.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import learned_strength as L  # noqa: E402


def _match(path: str, sha: str, deal: int, seat: int, win: float, hours: float | None) -> dict:
    return {"config": "asara-2", "game": "asara", "players": 2, "rules": {}, "agent": f"net:{path}",
            "opponent": "heuristic", "deal": deal, "seed": deal, "seat": seat, "win": win, "scores": [10.0, 5.0],
            "placements": [0, 1], "decisions": 10, "seconds": 1.0, "simulations": 0, "wall_s": 1.0,
            "run": "t", "checkpoint_sha256": sha, "training_cpu_hours": hours}


def test_rows_are_split_by_checkpoint_and_the_replaced_one_is_superseded(tmp_path):
    ckpt = tmp_path / "best.zip"
    old, new = b"old network", b"new network"
    sha_old, sha_new = hashlib.sha256(old).hexdigest(), hashlib.sha256(new).hexdigest()
    ckpt.write_bytes(new)
    matches = [_match(str(ckpt), sha_old, d, s, 1.0, 0.5) for d in range(3) for s in (0, 1)]
    matches.append(_match(str(ckpt), sha_old, 0, 0, 1.0, 0.5))  # the same game played twice counts once
    matches += [_match(str(ckpt), sha_new, d, s, float(s == 0), 1.25) for d in range(2) for s in (0, 1)]
    configs = {c.key: c for c in L.TWO_PLAYER}
    rows = {r["checkpoint_sha256"]: r for r in L.summary_rows(matches, configs)}
    assert set(rows) == {sha_old, sha_new}
    assert (rows[sha_old]["games"], rows[sha_old]["wins"], rows[sha_old]["superseded"]) == (6, 6.0, True)
    assert (rows[sha_new]["games"], rows[sha_new]["wins"], rows[sha_new]["superseded"]) == (4, 2.0, False)
    # each row keeps the training hours its own games recorded
    assert (rows[sha_old]["training_cpu_hours"], rows[sha_new]["training_cpu_hours"]) == (0.5, 1.25)
    text = L.table(list(rows.values()))
    assert sha_old[:8] + " *" in text and sha_new[:8] + " *" not in text and "superseded" in text


def test_shards_share_the_games_and_record_the_checkpoint(tmp_path):
    from meeplezoo.agents.pretrained import checkpoint_path
    from meeplezoo.training.league_storage import file_sha256

    matches, out = tmp_path / "m.jsonl", tmp_path / "s.json"
    common = ["--config", "asara-2", "--checkpoint", "pretrained", "--games", "4", "--matches", str(matches),
              "--json", str(out)]
    for k in (0, 1):
        assert L.main([*common, "--shard", f"{k}/2"]) == 0
    played = [json.loads(line) for line in matches.read_text().splitlines()]
    assert sorted((m["deal"], m["seat"]) for m in played) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    sha = file_sha256(str(checkpoint_path("asara", 2)))
    assert {m["checkpoint_sha256"] for m in played} == {sha}
    (row,) = json.loads(out.read_text())
    assert (row["games"], row["checkpoint_sha256"], row["superseded"]) == (4, sha, False)
    assert L.main([*common, "--shard", "0/2"]) == 0  # nothing left to play: no game twice
    assert len(matches.read_text().splitlines()) == 4  # noqa: PLR2004


def test_rows_at_several_player_counts_rotate_the_seat_and_split_tied_firsts(tmp_path):
    """``--players 3``: the network alone against two heuristics, its seat over the three seats of each deal,
    a seat network playing from one file."""
    import numpy as np

    from meeplezoo.agents.seat_layout import SeatLayout, seatnet_shapes
    from meeplezoo.agents.seatnet import SeatPolicyValueNet
    from meeplezoo.registry import make_game
    from meeplezoo.training.league_storage import file_sha256

    tiny = {"channels": 0, "seat_hidden": 4, "global_hidden": 4, "trunk_hidden": 8, "cell_hidden": 2,
            "value_hidden": 2, "action_hidden": 0}
    game = make_game("asara", 3)
    rng = np.random.default_rng(0)
    arrays = {k: rng.normal(0, 0.3, s).astype(np.float32) for k, s in seatnet_shapes(SeatLayout(game), tiny).items()}
    path = SeatPolicyValueNet(game, arrays, tiny, seat_counts=(2, 3, 4)).save(tmp_path / "seat.zip")
    matches, out = tmp_path / "m.jsonl", tmp_path / "s.json"
    assert [c.key for c in L.configs_at([3]) if c.game == "asara"] == ["asara-3", "asara_professional-3"]
    assert L.main(["--players", "3", "--config", "asara-3", "--checkpoint", str(path), "--games", "3",
                   "--matches", str(matches), "--json", str(out)]) == 0
    played = [json.loads(line) for line in matches.read_text().splitlines()]
    assert sorted(m["seat"] for m in played) == [0, 1, 2] and {m["players"] for m in played} == {3}
    for m in played:
        firsts = [p for p, place in enumerate(m["placements"]) if place == 0]
        assert m["win"] == (1 / len(firsts) if m["seat"] in firsts else 0.0)
    (row,) = json.loads(out.read_text())
    assert row["players"] == 3 and row["games"] == 3 and row["baseline"] == 1 / 3
    assert row["checkpoint"] == file_sha256(str(path))[:L.SHA_PREFIX]
    assert 0 <= row["ci_low"] <= row["win_rate"] <= row["ci_high"] <= 1 and row["seconds_per_decision"] > 0


def test_a_replaced_networks_rows_go_to_the_history_file(tmp_path):
    """The results file describes the networks the specs name today; rows of a file since replaced move to
    the history file (the matches file keeps every game)."""
    import shutil

    from meeplezoo.agents.pretrained import checkpoint_path
    from meeplezoo.training.league_storage import file_sha256

    net = tmp_path / "net.zip"
    shutil.copy(checkpoint_path("asara", 2), net)
    old = hashlib.sha256(b"the network this file held before").hexdigest()
    matches, out = tmp_path / "m.jsonl", tmp_path / "s.json"
    matches.write_text("".join(json.dumps(_match(str(net), old, d, s, 1.0, 0.5)) + "\n"
                               for d in range(2) for s in range(2)))
    assert L.main(["--config", "asara-2", "--checkpoint", str(net), "--games", "2", "--matches", str(matches),
                   "--json", str(out)]) == 0
    (now,) = json.loads(out.read_text())
    (before,) = json.loads((tmp_path / "s_history.json").read_text())
    assert (now["checkpoint_sha256"], now["games"], now["superseded"]) == (file_sha256(str(net)), 2, False)
    assert (before["checkpoint_sha256"], before["games"], before["wins"], before["superseded"]) == (old, 4, 4.0, True)
    assert len(matches.read_text().splitlines()) == 6  # noqa: PLR2004
    assert L.history_path("results/x.json") == "results/x_history.json"


def test_a_results_file_of_its_own_keeps_its_games_beside_it(tmp_path):
    """``--json`` without ``--matches`` keeps the games in ``--json``'s name with ``_matches.jsonl``, never in
    the shipped networks' matches file, and writes no history file while no network has been replaced."""
    out = tmp_path / "learned_strength_run.json"
    assert L.main(["--config", "asara-2", "--checkpoint", "pretrained", "--games", "2", "--json", str(out)]) == 0
    played = [json.loads(line) for line in (tmp_path / "learned_strength_run_matches.jsonl").read_text().splitlines()]
    assert sorted((m["deal"], m["seat"]) for m in played) == [(0, 0), (0, 1)]
    (row,) = json.loads(out.read_text())
    assert row["games"] == 2  # noqa: PLR2004
    assert not (tmp_path / "learned_strength_run_history.json").exists()
    assert L.matches_path("benchmarks/results/learned_strength.json") == \
        "benchmarks/results/learned_strength_matches.jsonl"
