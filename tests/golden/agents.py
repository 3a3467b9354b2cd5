"""Golden agent trajectories: the moves of every kind of agent on fixed seeds, recorded so that a
refactoring of the learning side (search, knobs, checkpoints, executor) can prove it changed no decision.

For each game configuration and agent spec in :data:`CASES`, one seeded game is played with the agent in
seat 0 and uniformly random players (``numpy.random.default_rng(seed)``) in the other seats, for the
first :data:`DECISIONS` decisions of the agent; the record keeps the agent's actions.  For expert
iteration, the first self-play game of the shipped network (``play_game`` with a small search) is
recorded as a digest of its samples (observations, masks, visit targets, outcomes).

    python tests/golden/agents.py            # rewrite tests/golden/agent_trajectories.json
    python tests/golden/agents.py --check    # compare, exit 1 on a difference

``tests/test_golden_agents.py`` replays and compares in the test suite.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from meeplezoo.agents import make as make_agent
from meeplezoo.registry import make_game

PATH = Path(__file__).with_name("agent_trajectories.json")
#: decisions of the agent under test recorded per game
DECISIONS = 24
SEED = 7

_SEARCHES = ("mcts:sims=24", "mcts:sims=24:preset=plain", "mcts:sims=16:rollout=heuristic:preset=plain",
             "mcts:sims=24:prior=heuristic:widen=2:preset=plain", "mcts:sims=16:batch=4:prior=uniform:preset=plain",
             "mcts:sims=16:rollout_depth=4:reuse_tree=true:preset=plain")
GAMES = ("haus_der_sonne", "kerala", "hawaii", "asara")

#: (game, players, spec)
CASES: list[tuple[str, int, str]] = [
    *[(g, 2, s) for g in GAMES for s in ("random", "heuristic", *_SEARCHES, "pretrained", "pretrained:sims=50")],
    ("kerala", 3, "heuristic"), ("kerala", 3, "mcts:sims=16"),
    ("hawaii", 4, "heuristic"), ("hawaii", 4, "mcts:sims=16"),
    ("asara", 3, "heuristic"), ("asara", 3, "mcts:sims=16"),
]


def play(game_name: str, players: int, spec: str, seed: int = SEED) -> dict[str, Any]:
    """The first :data:`DECISIONS` actions of ``spec`` in seat 0 of a seeded game against random seats."""
    game = make_game(game_name, players)
    agent = make_agent(spec, game_name, num_players=players, seed=seed)
    agent.reset(seed)
    state = game.new_state(seed)
    rng = np.random.default_rng(seed)
    actions: list[int] = []
    while not state.is_terminal() and len(actions) < DECISIONS:
        p = state.current_player
        mask = state.legal_mask()
        if p == 0:
            obs = state.observe(0)
            a = int(agent.act(obs, np.array(mask), state=state if agent.uses_state else None))
            actions.append(a)
        else:
            legal = np.flatnonzero(mask)
            a = int(legal[int(rng.integers(len(legal)))])
        state.apply(a)
    return {"game": game_name, "players": players, "spec": spec, "seed": seed, "actions": actions}


def exit_samples(game_name: str, seed: int = SEED) -> dict[str, Any]:
    """Digest of the samples of one expert-iteration self-play game of the shipped network (sims=16)."""
    from meeplezoo.agents.network import load_network
    from meeplezoo.agents.pretrained import checkpoint_path
    from meeplezoo.training.exit import ExItConfig, play_game

    cfg = ExItConfig(game=game_name, num_players=2, sims=16, seed=seed)
    game = cfg.make_game()
    net = load_network(str(checkpoint_path(game_name, 2)), game)  # a block or a seat network
    samples = play_game(cfg, net, [net], seed, game)
    h = hashlib.sha256()
    for k in ("obs", "mask", "pi", "z"):
        h.update(np.ascontiguousarray(samples[k]).tobytes())
    return {"game": game_name, "exit_seed": seed, "samples": int(len(samples["obs"])), "digest": h.hexdigest()}


def record_all() -> list[dict[str, Any]]:
    return [play(g, n, s) for g, n, s in CASES] + [exit_samples(g) for g in GAMES]


def replay(record: dict[str, Any]) -> dict[str, Any]:
    if "exit_seed" in record:
        return exit_samples(record["game"], record["exit_seed"])
    return play(record["game"], record["players"], record["spec"], record["seed"])


def compare(expected: dict[str, Any], got: dict[str, Any]) -> str | None:
    """None if equal, else where they part."""
    what = f"{expected['game']} {expected.get('players', 2)}p {expected.get('spec', 'exit self-play')}"
    if "exit_seed" in expected:
        return None if got == expected else f"{what}: samples differ ({got['samples']} vs {expected['samples']})"
    a, b = got["actions"], expected["actions"]
    if a != b:
        i = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        return f"{what}: the agent's decision {i} differs"
    return None


def main(argv: list[str]) -> int:
    if "--check" in argv:
        expected = json.loads(PATH.read_text())
        bad = [m for e in expected if (m := compare(e, replay(e)))]
        print("\n".join(bad) or f"{len(expected)} golden agent records identical")
        return 1 if bad else 0
    records = record_all()
    PATH.write_text(json.dumps(records, separators=(",", ":")) + "\n")
    print(f"wrote {len(records)} records to {PATH} ({PATH.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
