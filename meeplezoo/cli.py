"""The ``meeplezoo`` command line.

    meeplezoo list [GAME]
    meeplezoo --version
    meeplezoo play kerala --players 3 --agents heuristic,random,human --seed 7 --replay out.json
    meeplezoo replay out.json [--html out.html] [--gif out.gif]
    meeplezoo arena kerala --players 4 --agents heuristic,random,random,random --games 200 --seed 1
    meeplezoo bench [--seconds 3] [--json out.json]

Training (``train``, ``evaluate``) and leagues (``league``) are added by
their modules in ``meeplezoo.training`` (loaded only when used).
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from meeplezoo.agents.registry import parse_value

# subcommand -> module with add_parser(subparsers) and run(args); imported lazily
EXTRA_COMMANDS: dict[str, str] = {
    "train": "meeplezoo.training.ppo_cli",
    "evaluate": "meeplezoo.training.ppo_cli",
    "league": "meeplezoo.training.league_cli",
    "rate": "meeplezoo.training.ladder_cli",
    "ladder": "meeplezoo.training.ladder_cli",
}


# -- argument types: a bad number or output path is an argparse error naming the flag, before anything runs --
#: seeds are non-negative integers below this
SEED_LIMIT = 2**64


def int_arg(lo: int | None = None, hi: int | None = None) -> Callable[[str], int]:
    """An argparse type: an integer in ``[lo, hi]`` (either bound optional)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            want = (f"between {lo} and {hi}" if lo is not None and hi is not None
                    else f">= {lo}" if lo is not None else f"<= {hi}")
            raise argparse.ArgumentTypeError(f"must be an integer {want}, got {text}")
        return value

    parse.__name__ = "integer"
    return parse


def float_arg(lo: float | None = None, hi: float | None = None, *, lo_open: bool = False) -> Callable[[str], float]:
    """An argparse type: a finite number ``>= lo`` (``> lo`` with ``lo_open``) and ``<= hi``."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        low_bad = lo is not None and (value <= lo if lo_open else value < lo)
        if not math.isfinite(value) or low_bad or (hi is not None and value > hi):
            parts = ([f"{'>' if lo_open else '>='} {lo:g}"] if lo is not None else []) + \
                ([f"<= {hi:g}"] if hi is not None else [])
            raise argparse.ArgumentTypeError(f"must be a finite number {' and '.join(parts)}, got {text}".rstrip())
        return value

    parse.__name__ = "number"
    return parse


def seed_arg(text: str) -> int:
    """An argparse type: a seed, a non-negative integer below 2**64."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a seed must be an integer, got {text!r}") from None
    if not 0 <= value < SEED_LIMIT:
        raise argparse.ArgumentTypeError(f"a seed must be a non-negative integer below 2**64, got {text}")
    return value


def _writable_dir(directory: str) -> str | None:
    """Why files cannot be written in ``directory`` (None: they can)."""
    if not os.path.exists(directory):
        return f"directory {directory!r} does not exist"
    if not os.path.isdir(directory):
        return f"{directory!r} is not a directory"
    if not os.access(directory, os.W_OK | os.X_OK):
        return f"directory {directory!r} is not writable"
    return None


def output_file(text: str) -> str:
    """An argparse type: a file this command can write (its directory exists and is writable)."""
    if not text:
        raise argparse.ArgumentTypeError("expected a file name")
    if os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"{text!r} is a directory, not a file")
    if os.path.exists(text) and not os.access(text, os.W_OK):
        raise argparse.ArgumentTypeError(f"{text!r} is not writable")
    problem = _writable_dir(os.path.dirname(text) or ".")
    if problem:
        raise argparse.ArgumentTypeError(f"cannot write {text!r}: {problem}")
    return text


def output_dir(text: str) -> str:
    """An argparse type: a folder this command can fill (existing, or creatable in an existing writable folder)."""
    if not text:
        raise argparse.ArgumentTypeError("expected a folder name")
    path = os.path.abspath(text)
    if os.path.exists(path):
        problem = _writable_dir(path)
    else:
        parent = os.path.dirname(path)
        while not os.path.exists(parent) and os.path.dirname(parent) != parent:
            parent = os.path.dirname(parent)  # missing folders above are created too
        problem = _writable_dir(parent)
        if problem:
            problem = f"cannot create {text!r}: {problem}"
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return text


def parse_options(items: Sequence[str] | None) -> dict[str, Any]:
    """``["variant=tactical", "x=3"]`` -> ``{"variant": "tactical", "x": 3}``."""
    out: dict[str, Any] = {}
    for item in items or []:
        if "=" not in item:
            raise SystemExit(f"error: rule option {item!r} must look like NAME=VALUE")
        k, v = item.split("=", 1)
        out[k.strip()] = parse_value(v.strip())
    return out


def add_game_args(p: argparse.ArgumentParser, game_positional: bool = True) -> None:
    if game_positional:
        p.add_argument("game", help="game id (see `meeplezoo list`)")
    p.add_argument("--players", type=int_arg(1), default=None, help="number of players")
    p.add_argument("--variant", default=None, help="variant (haus_der_sonne: base|tactical)")
    p.add_argument("--version", dest="game_version", default=None, help="version (asara: base|professional)")
    p.add_argument("--option", "-o", action="append", metavar="NAME=VALUE", help="a rule option (repeatable)")


def game_from_args(args: argparse.Namespace):
    from meeplezoo.registry import make_game

    opts = parse_options(args.option)
    if getattr(args, "variant", None) is not None:
        opts["variant"] = args.variant
    if getattr(args, "game_version", None) is not None:
        opts["version"] = args.game_version
    return make_game(args.game, args.players, **opts)


def split_agents(text: str) -> list[str]:
    return [s.strip() for s in text.split(",") if s.strip()]


def build_agents(specs: list[str], game, seed: int | None) -> list:
    from meeplezoo.agents import make as make_agent

    n = game.num_players
    if len(specs) == 1:
        specs = specs * n
    if len(specs) != n:
        raise SystemExit(f"error: {len(specs)} agents given for {n} players ({', '.join(specs)})")
    return [make_agent(s, game, num_players=n, seed=None if seed is None else seed * 1000 + i)
            for i, s in enumerate(specs)]


# -- commands ------------------------------------------------------------------------
def cmd_list(args: argparse.Namespace) -> int:
    from meeplezoo.registry import game_class, list_envs

    names = list_envs()
    if args.game is not None:  # example games (the template) are listed when asked for by name
        if args.game not in list_envs(include_examples=True):
            raise ValueError(f"unknown game {args.game!r}; available: {', '.join(names)}")
        names = [args.game]
    for name in names:
        try:
            g = game_class(name)
        except ImportError as e:  # pragma: no cover - a broken install
            print(f"{name:<16} (unavailable: {e})")
            continue
        print(f"{name:<16} {g.pretty_name:<16} players {g.min_players}-{g.max_players}")
        for o in g.options_spec:
            print(f"    {o.name} = {o.default!r}" + (f"  ({o.doc})" if o.doc else ""))
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    from meeplezoo.training.arena import play_match

    game = game_from_args(args)
    agents = build_agents(split_agents(args.agents), game, args.seed)
    seed = args.seed if args.seed is not None else int.from_bytes(__import__("os").urandom(4), "little")
    show = args.show or any(a.name == "human" for a in agents)
    step = {"n": 0}

    def on_step(state, action):
        step["n"] += 1
        if show and not args.quiet:
            print(f"-- decision {step['n']}: {state.action_name(action)}")

    humans = [seat for seat, a in enumerate(agents) if a.name == "human"]
    try:
        state0 = game.new_state(seed)
        # a human to move first sees the board at the prompt; otherwise show it once here (from a human's view)
        if show and not args.quiet and state0.current_player not in humans:
            print(state0.observation_string(humans[0]) if humans else state0.render_text())
        result = play_match(game, agents, seed, on_step=on_step if show else None)
    except KeyboardInterrupt:
        print("\ngame abandoned")
        return 130
    except EOFError:
        print("\nend of input: game abandoned")
        return 130
    final = game.new_state(seed)
    for a in result.actions:
        final.apply(a)
    if not args.quiet:
        print(final.render_text())
    print(f"\n{game.pretty_name}, {game.num_players} players, seed {seed}, {result.length} decisions")
    for seat, (name, score, place) in enumerate(zip(result.agents, result.scores, result.placements)):
        print(f"  seat {seat}: {name:<24} score {score:g}  place {place + 1}")
    if args.replay:
        with open(args.replay, "w") as f:
            json.dump(result.replay(), f)
        print(f"replay written to {args.replay}")
    return 0


def load_replay(path: str) -> tuple[Any, list, dict]:
    """Read a replay file and re-create the positions: (game, [state_0 ... state_T], doc)."""
    from meeplezoo.envs.core.replay import states_from_replay

    try:
        with open(path) as f:
            doc = json.load(f)
    except OSError as e:
        raise ValueError(f"cannot read replay {path}: {e.strerror or e}") from None
    except (ValueError, UnicodeDecodeError) as e:
        raise ValueError(f"replay {path} is not JSON: {e}") from None
    try:
        game, states = states_from_replay(doc)
    except ValueError as e:
        raise ValueError(f"replay {path}: {e}") from None
    return game, states, doc


def cmd_replay(args: argparse.Namespace) -> int:
    game, states, doc = load_replay(args.file)
    actions = doc["actions"]
    if args.html or args.gif or args.frames:
        from meeplezoo.envs.core import replay as replay_tools

        if args.html:
            replay_tools.write_html(game, states, actions, args.html, title=f"{game.pretty_name} replay",
                                    players=doc.get("agents"), seed=doc.get("seed"), colors=args.colors)
            print(f"HTML replay written to {args.html}")
        if args.gif:
            replay_tools.write_gif(states, args.gif)
            print(f"GIF written to {args.gif}")
        if args.frames:
            replay_tools.write_frames(states, args.frames)
            print(f"PNG frames written to {args.frames}/")
        return 0
    print(states[0].render_text())
    for i, a in enumerate(actions):
        who = states[i].current_player
        print(f"\n== decision {i + 1}/{len(actions)}: player {who}: {states[i].action_name(a)}")
        if args.step:
            input("[enter] ")
        if not args.brief or i == len(actions) - 1:
            print(states[i + 1].render_text())
    final = states[-1]
    print(f"\nscores: {[float(s) for s in final.scores()]}  places: {[p + 1 for p in final.placements()]}")
    return 0


def cmd_arena(args: argparse.Namespace) -> int:
    from meeplezoo.training.arena import format_table, run_arena

    game = game_from_args(args)
    agents = build_agents(split_agents(args.agents), game, args.seed)
    stats, results = run_arena(game, agents, args.games, seed=args.seed, progress=not args.quiet)
    print(f"{game.pretty_name}, {game.num_players} players, {args.games} games, seats rotated, seed {args.seed}")
    print(format_table(stats))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({name: {"games": s.games, "wins": s.wins, "win_rate": s.win_rate, "interval": s.interval,
                              "mean_score": s.mean_score, "mean_margin": s.mean_margin, "mean_rank": s.mean_rank}
                       for name, s in stats.items()}, f, indent=2)
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from meeplezoo.bench import main as bench_main

    argv = ["--seconds", str(args.seconds), "--clock", args.clock]
    if args.json:
        argv += ["--json", args.json]
    for g in args.games or []:
        argv += ["--game", g]
    return bench_main(argv)


def build_parser() -> argparse.ArgumentParser:
    from meeplezoo import __version__

    parser = argparse.ArgumentParser(prog="meeplezoo", description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", action="version", version=f"meeplezoo {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("list", help="list the games and their rule options")
    p.add_argument("game", nargs="?", default=None, help="only this game")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("play", help="play one game in the terminal")
    add_game_args(p)
    p.add_argument("--agents", default="heuristic,random", help="comma-separated agent specs, one per seat")
    p.add_argument("--seed", type=seed_arg, default=None)
    p.add_argument("--replay", metavar="FILE", type=output_file, help="write the (config, seed, actions) replay here")
    p.add_argument("--show", action="store_true", help="print every decision (default with a human seat)")
    p.add_argument("--quiet", action="store_true", help="print only the result")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("replay", help="show a replay move by move, or export it (--html, --gif, --frames)")
    p.add_argument("file")
    p.add_argument("--step", action="store_true", help="wait for enter after each decision")
    p.add_argument("--brief", action="store_true", help="print the decisions, only the final position")
    p.add_argument("--html", metavar="FILE", type=output_file, help="write a self-contained HTML replay viewer")
    p.add_argument("--gif", metavar="FILE", type=output_file, help="write an animated GIF")
    p.add_argument("--frames", metavar="DIR", type=output_dir, help="write one PNG per position")
    p.add_argument("--colors", type=int_arg(2, 256), default=None,
                   help="HTML: palette frames (e.g. 256) for smaller files")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("arena", help="play many games with rotated seats and print win rates")
    add_game_args(p)
    p.add_argument("--agents", required=True, help="comma-separated agent specs, one per seat")
    p.add_argument("--games", type=int_arg(1), default=100)
    p.add_argument("--seed", type=seed_arg, default=0)
    p.add_argument("--json", metavar="FILE", type=output_file, help="also write the table as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_arena)

    p = sub.add_parser("bench", help="throughput of every game beside PettingZoo's connect_four_v3")
    p.add_argument("--seconds", type=float_arg(0, lo_open=True), default=3.0, help="time per measurement")
    p.add_argument("--game", dest="games", action="append", help="only this game (repeatable)")
    p.add_argument("--json", metavar="FILE", type=output_file, help="also write the results as JSON")
    p.add_argument("--clock", choices=("wall", "cpu"), default="wall", help="wall time or process CPU time")
    p.set_defaults(func=cmd_bench)

    from meeplezoo import serve  # the whole command lives in meeplezoo/serve/

    p = sub.add_parser("serve", help="play and inspect agents in the browser (a local web app)")
    serve.add_arguments(p)
    p.set_defaults(func=serve.run)

    seen = set()
    for module in EXTRA_COMMANDS.values():
        if module in seen:
            continue
        seen.add(module)
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as e:
            if e.name == module:  # that part of the package is not there
                continue
            raise
        mod.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except ValueError as e:  # bad options, unknown agents, illegal configurations
        print(f"error: {e}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, EOFError) as e:  # Ctrl-C, or input ended at a prompt: one line, no traceback
        what = "end of input" if isinstance(e, EOFError) else "interrupted"
        print(f"\n{what}: meeplezoo {args.command} stopped", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
