"""Strength of the tuned search (``mcts``) against the heuristics, every game, 2 to 5 players.

Configurations (``CONFIGS``): 2 players in Kerala, Haus der Sonne (base and
tactical), Hawaii and Asara (base and professional), the search against the
heuristic; 3 and 4 players in Kerala, Hawaii and Asara and 5 in Kerala and
Hawaii, the search against n-1 heuristics.  Deals are duplicated: every deal is
played once with the search in each seat (n games per deal for n players), so
the luck of the deal cancels out.

Every finished game is appended as one JSON line to ``--matches`` and the
summary (``--json``, a list of rows: game, players, agent, opponent, games,
wins, win_rate, ci_low, ci_high, seconds_per_decision, ...) is rewritten from
all lines after each game: one row per configuration, agent and opponent in
the file, whichever ``--config`` and ``--agent`` the run plays.  Wall-clock seconds depend on what else
runs: each game records the machine's one-minute load per core when it ends (``load_1min``) and a row its
mean (``mean_load_per_core``; about 1.0 on a machine running as many such games as it has cores).  The
configurations are played round-robin,
``--per-pass`` games of each per pass, so partial results exist early for
every configuration; a run that is stopped and started again reads the lines
already there and continues with the games that are missing.  A win is a first
place; a first place shared by k players counts 1/k.

    nohup .venv/bin/python benchmarks/search_strength.py --games 100 >> search_strength.log 2>&1 &
    .venv/bin/python benchmarks/search_strength.py --config kerala-2 --games 10 --agent "mcts:time=0.2"
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import meeplezoo
from meeplezoo.agents import make as make_agent
from meeplezoo.training.arena import play_match, wilson_interval

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results")
#: this process's start (UTC): the summary counts the runs its games came from
RUN = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


@dataclass(frozen=True)
class Config:
    key: str
    game: str
    players: int
    rules: dict[str, Any] = field(default_factory=dict)

    def label(self) -> str:
        extra = "".join(f" {v}" for v in self.rules.values())
        return f"{self.game}{extra}"


CONFIGS = [
    Config("kerala-2", "kerala", 2),
    Config("haus_der_sonne-2", "haus_der_sonne", 2),
    Config("haus_der_sonne_tactical-2", "haus_der_sonne", 2, {"variant": "tactical"}),
    Config("hawaii-2", "hawaii", 2),
    Config("asara-2", "asara", 2),
    Config("asara_professional-2", "asara", 2, {"version": "professional"}),
    Config("kerala-4", "kerala", 4),
    Config("hawaii-4", "hawaii", 4),
    Config("asara-4", "asara", 4),
    Config("kerala-3", "kerala", 3),
    Config("hawaii-3", "hawaii", 3),
    Config("asara-3", "asara", 3),
    Config("kerala-5", "kerala", 5),
    Config("hawaii-5", "hawaii", 5),
]


def deal_seed(base: int, key: str, deal: int) -> int:
    """The seed of deal ``deal`` of a configuration (the same for every seat order of that deal)."""
    tag = sum((i + 1) * ord(ch) for i, ch in enumerate(key))
    return int(np.random.SeedSequence([base, tag, deal]).generate_state(1)[0])


def play_one(cfg: Config, agent_spec: str, opponent: str, deal: int, seat: int, base_seed: int) -> dict[str, Any]:
    """One game of ``cfg``: the agent in ``seat``, the opponent spec in every other seat."""
    seed = deal_seed(base_seed, cfg.key, deal)
    game = meeplezoo.make_game(cfg.game, cfg.players, **cfg.rules)
    agent = make_agent(agent_spec, cfg.game, num_players=cfg.players, seed=seed)
    seats = [agent if p == seat else make_agent(opponent, cfg.game, num_players=cfg.players, seed=seed + 1 + p)
             for p in range(cfg.players)]
    t0 = time.perf_counter()
    result = play_match(game, seats, seed)
    wall = time.perf_counter() - t0
    firsts = [p for p in range(cfg.players) if result.placements[p] == 0]
    win = 1.0 / len(firsts) if seat in firsts else 0.0
    return {"config": cfg.key, "game": cfg.game, "players": cfg.players, "rules": cfg.rules, "agent": agent_spec,
            "opponent": opponent, "deal": deal, "seed": seed, "seat": seat, "win": win,
            "scores": [float(x) for x in result.scores], "placements": [int(x) for x in result.placements],
            "decisions": int(getattr(agent, "total_decisions", 0)),
            "seconds": float(getattr(agent, "total_seconds", 0.0)),
            "simulations": int(getattr(agent, "total_simulations", 0)), "wall_s": wall,
            "load_1min": machine_load(),
            "finished_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "run": RUN}


def machine_load() -> float | None:
    """The machine's load average over the last minute when a game ends, per core (1.0: as many runnable
    processes as cores), so a row's wall-clock seconds per decision can be read against what else ran;
    None where the platform has no load average."""
    try:
        return round(os.getloadavg()[0] / (os.cpu_count() or 1), 2)
    except (AttributeError, OSError):
        return None


def read_matches(path: str) -> list[dict[str, Any]]:
    if not os.path.exists(path):
        return []
    out = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                try:
                    out.append(json.loads(line))
                except json.JSONDecodeError:  # a line cut off by a stopped run
                    continue
    return out


def summarise(cfg: Config, agent: str, opponent: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(rows)
    wins = sum(r["win"] for r in rows)
    lo, hi = wilson_interval(wins, n)
    dec = sum(r["decisions"] for r in rows)
    secs = sum(r["seconds"] for r in rows)
    per_seat = {}
    for s in range(cfg.players):
        rs = [r for r in rows if r["seat"] == s]
        per_seat[str(s)] = round(sum(r["win"] for r in rs) / len(rs), 3) if rs else None
    loads = [r["load_1min"] for r in rows if r.get("load_1min") is not None]
    margins = [r["scores"][r["seat"]] - max(x for i, x in enumerate(r["scores"]) if i != r["seat"]) for r in rows]
    return {"game": cfg.game, "rules": cfg.rules, "players": cfg.players, "agent": agent, "opponent": opponent,
            "games": n, "wins": wins, "win_rate": wins / n if n else None, "ci_low": lo, "ci_high": hi,
            "seconds_per_decision": secs / dec if dec else None,
            "simulations_per_decision": sum(r["simulations"] for r in rows) / dec if dec else None,
            "mean_margin_over_best_opponent": float(np.mean(margins)) if margins else None,
            "win_rate_by_seat": per_seat, "config": cfg.key, "runs": len({r.get("run") for r in rows}),
            "baseline": 1.0 / cfg.players,
            "mean_load_per_core": round(float(np.mean(loads)), 2) if loads else None}


def write_summary(path: str, matches: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rewrite ``path`` with one row per configuration, agent and opponent in ``matches`` (in the order of
    ``CONFIGS``, then of first appearance), and return the rows."""
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for m in matches:
        groups.setdefault((m["config"], m["agent"], m["opponent"]), []).append(m)
    rows = []
    for cfg in CONFIGS:
        for (key, agent, opponent), mine in groups.items():
            if key == cfg.key:
                rows.append(summarise(cfg, agent, opponent, mine))
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(rows, f, indent=1)
    os.replace(tmp, path)
    return rows


def schedule(cfg: Config, games: int) -> list[tuple[int, int]]:
    """(deal, seat) of the configuration's games in order: every seat of a deal before the next deal."""
    n = cfg.players
    return [(g // n, g % n) for g in range(games)]


def table(rows: list[dict[str, Any]]) -> str:
    out = [f"{'game':<28} {'players':>7} {'games':>5} {'wins':>6} {'win rate':>8} {'95% CI':>15} {'s/dec':>6}"]
    for r in rows:
        label = r["game"] + "".join(f" {v}" for v in r["rules"].values())
        ci = f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}]"
        out.append(f"{label:<28} {r['players']:>7} {r['games']:>5} {r['wins']:>6.1f} {r['win_rate']:>8.3f} "
                   f"{ci:>15} {r['seconds_per_decision'] or 0:>6.3f}")
    return "\n".join(out)


def markdown(rows: list[dict[str, Any]]) -> str:
    """The summary rows as the table of docs/guides/agents.md."""
    out = ["| game | players | games | wins | win rate [95% CI] | goal | s/decision | sims/decision | runs |",
           "|---|---:|---:|---:|---|---|---:|---:|---:|"]
    for r in rows:
        label = r["game"] + "".join(f" {v}" for v in r["rules"].values())
        n = r["players"]
        goal = ("win rate >= 0.65, CI low > 0.5" if n == 2 else "first > 1/4, CI low > 0.25" if n == 4
                else f"first > 1/{n}")  # 3 and 5 players: a yardstick for the learned agents, no goal of its own
        out.append(f"| {label} | {n} | {r['games']} | {r['wins']:.3g} | {r['win_rate']:.3f} "
                   f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}] | {goal} | {r['seconds_per_decision']:.3f} | "
                   f"{r['simulations_per_decision']:.0f} | {r['runs']} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", action="append", help="only this configuration key (repeatable); keys: "
                   + ", ".join(c.key for c in CONFIGS))
    p.add_argument("--games", type=int, default=100, help="games per configuration (a multiple of the players)")
    p.add_argument("--per-pass", type=int, default=10, help="games per configuration in each round-robin pass")
    p.add_argument("--agent", default="mcts", help="the agent under test (default: the tuned search)")
    p.add_argument("--opponent", default="heuristic", help="the spec of every other seat")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--matches", default=os.path.join(RESULTS, "search_strength_matches.jsonl"),
                   help="one JSON line per finished game (read back to resume)")
    p.add_argument("--json", default=os.path.join(RESULTS, "search_strength.json"), help="the summary rows")
    p.add_argument("--minutes", type=float, default=None, help="stop starting games after this long")
    p.add_argument("--markdown", action="store_true", help="print the summary in --json as a table and stop")
    args = p.parse_args(argv)
    if args.markdown:
        with open(args.json) as f:
            print(markdown(json.load(f)))
        return 0
    configs = [c for c in CONFIGS if not args.config or c.key in args.config]
    unknown = set(args.config or []) - {c.key for c in configs}
    if unknown:
        p.error(f"unknown configuration(s) {sorted(unknown)}; known: {', '.join(c.key for c in CONFIGS)}")
    deadline = None if args.minutes is None else time.time() + 60 * args.minutes
    matches = read_matches(args.matches)
    done = {(m["config"], m["agent"], m["opponent"], m["deal"], m["seat"]) for m in matches}
    todo = {c.key: [t for t in schedule(c, args.games) if (c.key, args.agent, args.opponent, *t) not in done]
            for c in configs}
    print(f"{args.agent} vs {args.opponent}: {sum(map(len, todo.values()))} games to play "
          f"({len(matches)} already in {args.matches}); python {platform.python_version()}", flush=True)
    while any(todo.values()):
        for cfg in configs:
            batch, todo[cfg.key] = todo[cfg.key][:args.per_pass], todo[cfg.key][args.per_pass:]
            for deal, seat in batch:
                if deadline is not None and time.time() > deadline:
                    print("time budget spent", flush=True)
                    print(table(write_summary(args.json, matches)))
                    return 0
                m = play_one(cfg, args.agent, args.opponent, deal, seat, args.seed)
                with open(args.matches, "a") as f:
                    f.write(json.dumps(m) + "\n")
                matches.append(m)
                write_summary(args.json, matches)
                print(f"{cfg.key:<26} deal {deal:>3} seat {seat}: win {m['win']:.2f} scores {m['scores']} "
                      f"({m['seconds'] / max(1, m['decisions']):.3f} s/decision, {m['wall_s']:.0f} s)", flush=True)
    print(table(write_summary(args.json, matches)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
