"""Random-play throughput of every game, beside PettingZoo's ``connect_four_v3``.

Three figures per game configuration, all from uniformly random legal play:

* **AEC decisions/s**: through the PettingZoo API (``env.last()`` builds the
  observation and mask at every decision), the same loop as for connect four;
* **engine decisions/s**: ``legal_actions()`` + ``apply()`` on the engine state;
* **clone us**: microseconds per ``State.clone()`` on positions from random games.

Ratios are against connect_four_v3's AEC decisions/s measured in the same run
(absolute numbers move with the machine's load; ratios hold better).
Run ``meeplezoo bench`` or ``python benchmarks/throughput.py``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from meeplezoo.commands.common import float_arg, output_file
from meeplezoo.registry import game_class, game_info, list_envs, make, make_game

#: ``--clock cpu`` measures this process's CPU time, steadier than wall time on a shared machine
CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}


def aec_throughput(env_fn: Callable[[], Any], seconds: float, seed: int = 0,
                   clock: Callable[[], float] = time.perf_counter) -> float:
    """Decisions per second of random play through the AEC API (dead steps not counted)."""
    env = env_fn()
    rng = random.Random(seed)
    decisions = 0
    games = 0
    t0 = clock()
    while clock() - t0 < seconds or games == 0:
        env.reset(seed=rng.randrange(2**31))
        games += 1
        for _agent in env.agent_iter():
            obs, _r, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))
            decisions += 1
    return decisions / (clock() - t0)


def engine_throughput(game: Any, seconds: float, seed: int = 0,
                      clock: Callable[[], float] = time.perf_counter) -> tuple[float, float]:
    """(decisions/s with legal_actions + apply, mean decisions per game)."""
    rng = random.Random(seed)
    decisions = 0
    games = 0
    t0 = clock()
    while clock() - t0 < seconds or games == 0:
        state = game.new_state(rng.randrange(2**31))
        games += 1
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
            decisions += 1
    return decisions / (clock() - t0), decisions / games


def clone_micros(game: Any, samples: int = 2000, seed: int = 0,
                 clock: Callable[[], float] = time.perf_counter) -> float:
    """Mean microseconds per clone over positions spread through random games."""
    rng = random.Random(seed)
    states = []
    while len(states) < 50:
        state = game.new_state(rng.randrange(2**31))
        while not state.is_terminal():
            if rng.random() < 0.1:
                states.append(state.clone())
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
    reps = max(1, samples // len(states))
    t0 = clock()
    for s in states:
        for _ in range(reps):
            s.clone()
    return (clock() - t0) / (reps * len(states)) * 1e6


def configurations(games: Sequence[str] | None = None) -> list[tuple[str, dict[str, Any]]]:
    """Game configurations to measure: a game's ``GameInfo.bench_configs``, by default each game at its
    smallest and largest player count, plus its ``bench_variants`` at the smallest."""
    out = []
    for name in games or list_envs():
        try:
            cls = game_class(name)
        except ImportError:
            continue
        configs = game_info(name).bench_configs
        if configs is not None:
            out.extend((name, {"num_players": cls.default_players, **c}) for c in configs)
            continue
        counts = sorted({cls.min_players, cls.max_players})
        for n in counts:
            out.append((name, {"num_players": n}))
        # options that change the observation's cost, measured at the smallest player count
        for variant in getattr(cls, "bench_variants", ()):
            out.append((name, {"num_players": cls.min_players, **variant}))
    return out


def run(seconds: float = 3.0, games: Sequence[str] | None = None, clock: str = "wall") -> dict[str, Any]:
    if clock not in CLOCKS:
        raise ValueError(f"unknown clock {clock!r}; allowed: {', '.join(CLOCKS)}")
    tick = CLOCKS[clock]
    from pettingzoo.classic import connect_four_v3  # the reference, loaded when measured

    c4 = aec_throughput(connect_four_v3.env, seconds, clock=tick)
    rows = []
    for name, kw in configurations(games):
        game = make_game(name, **kw)
        aec = aec_throughput(lambda name=name, kw=kw: make(name, **kw), seconds, clock=tick)
        eng, length = engine_throughput(game, seconds, clock=tick)
        options = {k: v for k, v in kw.items() if k != "num_players"}
        rows.append({
            "game": name, "players": kw["num_players"], "options": options, "aec_per_s": aec, "aec_ratio": aec / c4,
            "engine_per_s": eng, "engine_ratio": eng / c4, "clone_us": clone_micros(game, clock=tick),
            "decisions_per_game": length,
        })
    return {"connect_four_v3_aec_per_s": c4, "seconds": seconds, "clock": clock, "rows": rows}


def format_results(res: dict[str, Any]) -> str:
    c4 = res["connect_four_v3_aec_per_s"]
    lines = [
        f"{'environment':<30} {'players':>7} {'AEC dec/s':>10} {'vs C4':>6} {'engine dec/s':>13} {'vs C4':>6} "
        f"{'clone us':>9} {'dec/game':>9}",
        f"{'connect_four_v3':<30} {2:>7} {c4:>10.0f} {1.0:>6.2f} {'':>13} {'':>6} {'':>9} {'':>9}",
    ]
    for r in res["rows"]:
        label = " ".join([r["game"], *(f"{k}={v}" for k, v in r.get("options", {}).items())])
        lines.append(
            f"{label:<30} {r['players']:>7} {r['aec_per_s']:>10.0f} {r['aec_ratio']:>6.2f} "
            f"{r['engine_per_s']:>13.0f} {r['engine_ratio']:>6.2f} {r['clone_us']:>9.1f} "
            f"{r['decisions_per_game']:>9.0f}"
        )
    return "\n".join(lines)


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The benchmark's flags (``meeplezoo bench`` and this module's :func:`main`)."""
    p.add_argument("--seconds", type=float_arg(0, lo_open=True), default=3.0, help="time per measurement")
    p.add_argument("--game", dest="games", action="append", help="only this game (repeatable)")
    p.add_argument("--json", metavar="FILE", type=output_file, help="also write the results as JSON")
    p.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                   help="wall time (default) or this process's CPU time (steadier on a busy machine)")


def run_and_print(args: argparse.Namespace) -> int:
    """Measure, print the table and write the JSON the parsed ``args`` ask for."""
    res = run(args.seconds, args.games, args.clock)
    print(format_results(res))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=2)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_arguments(p)
    return run_and_print(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
