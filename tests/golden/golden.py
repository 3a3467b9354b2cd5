"""Golden trajectories: seeded random games of every game, recorded so that a refactoring can prove it
changed nothing.

For each configuration in :data:`CONFIGS` and each seed, a game is played to the end by a random
player whose choices come from ``numpy.random.default_rng(seed)``.  At every decision (and once at
the end) every player's observation and the legal mask are hashed; the record keeps the actions, the
final scores, a short digest per decision (to find where two runs part) and one sha256 over
everything.

    python tests/golden/golden.py            # rewrite tests/golden/trajectories.json
    python tests/golden/golden.py --check    # compare, exit 1 on a difference

``tests/test_golden.py`` replays and compares in the test suite.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from meeplezoo.registry import make_game

PATH = Path(__file__).with_name("trajectories.json")

# (game, config): player counts, variants and observation options; two seeds each
CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("haus_der_sonne", {}),
    ("haus_der_sonne", {"variant": "tactical"}),
    ("kerala", {"num_players": 2}),
    ("kerala", {"num_players": 3}),
    ("kerala", {"num_players": 5}),
    ("kerala", {"num_players": 2, "derived_features": True}),
    ("kerala", {"num_players": 4, "derived_features": True}),
    ("hawaii", {"num_players": 2}),
    ("hawaii", {"num_players": 3, "resources_public": False}),
    ("hawaii", {"num_players": 5}),
    ("asara", {"num_players": 2}),
    ("asara", {"num_players": 3, "version": "professional"}),
    ("asara", {"num_players": 4, "human_realistic_obs": True}),
    ("asara", {"num_players": 4, "version": "professional", "human_realistic_obs": True}),
    ("template", {"num_players": 2}),
    ("template", {"num_players": 3, "hand_size": 3}),
    ("template", {"num_players": 4, "hand_size": 1}),
]
SEEDS = (1, 2)


def play(game_name: str, config: dict[str, Any], seed: int) -> dict[str, Any]:
    """One seeded random game: actions, scores, per-decision digests and the total digest."""
    cfg = dict(config)
    game = make_game(game_name, cfg.pop("num_players", None), **cfg)
    state = game.new_state(seed)
    rng = np.random.default_rng(seed)
    n = game.num_players
    total = hashlib.sha256()
    steps: list[str] = []
    actions: list[int] = []
    while True:
        h = hashlib.sha256()
        for p in range(n):
            h.update(np.ascontiguousarray(state.observe(p), dtype=np.float32).tobytes())
        terminal = state.is_terminal()
        if not terminal:
            h.update(np.asarray(state.legal_mask(), dtype=np.bool_).tobytes())
        d = h.digest()
        total.update(d)
        steps.append(d.hex()[:8])
        if terminal:
            break
        legal = state.legal_actions()
        a = int(legal[int(rng.integers(len(legal)))])
        actions.append(a)
        state.apply(a)
    return {
        "game": game_name,
        "config": config,
        "seed": seed,
        "actions": actions,
        "scores": [float(s) for s in state.scores()],
        "steps": " ".join(steps),
        "digest": total.hexdigest(),
    }


def record_all() -> list[dict[str, Any]]:
    return [play(g, c, s) for g, c in CONFIGS for s in SEEDS]


def compare(expected: dict[str, Any], got: dict[str, Any]) -> str | None:
    """None if equal, else where they part."""
    what = f"{expected['game']} {expected['config']} seed {expected['seed']}"
    if got["actions"] != expected["actions"]:
        i = next((i for i, (a, b) in enumerate(zip(got["actions"], expected["actions"])) if a != b),
                 min(len(got["actions"]), len(expected["actions"])))
        return f"{what}: actions differ from decision {i}"
    if got["steps"] != expected["steps"]:
        a, b = got["steps"].split(), expected["steps"].split()
        i = next(i for i, (x, y) in enumerate(zip(a, b)) if x != y)
        return f"{what}: observation or mask differs at decision {i}"
    if got["scores"] != expected["scores"]:
        return f"{what}: scores {got['scores']} != {expected['scores']}"
    if got["digest"] != expected["digest"]:
        return f"{what}: digest differs"
    return None


def main(argv: list[str]) -> int:
    if "--check" in argv:
        expected = json.loads(PATH.read_text())
        bad = [m for e in expected if (m := compare(e, play(e["game"], e["config"], e["seed"])))]
        print("\n".join(bad) or f"{len(expected)} golden games identical")
        return 1 if bad else 0
    records = record_all()
    PATH.write_text(json.dumps(records, separators=(",", ":")) + "\n")
    print(f"wrote {len(records)} games to {PATH} ({PATH.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
