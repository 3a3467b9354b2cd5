"""``meeplezoo replay FILE``: a replay move by move, or exported as HTML, GIF or PNG frames."""

from __future__ import annotations

import argparse
import json
from typing import Any

from meeplezoo.envs.core import replay as replay_tools
from meeplezoo.envs.core.replay import states_from_replay

from .common import int_arg, output_dir, output_file


def add_parser(sub: Any) -> None:
    p = sub.add_parser("replay", help="show a replay move by move, or export it (--html, --gif, --frames)")
    p.add_argument("file")
    p.add_argument("--step", action="store_true", help="wait for enter after each decision")
    p.add_argument("--brief", action="store_true", help="print the decisions, only the final position")
    p.add_argument("--html", metavar="FILE", type=output_file, help="write a self-contained HTML replay viewer")
    p.add_argument("--gif", metavar="FILE", type=output_file, help="write an animated GIF")
    p.add_argument("--frames", metavar="DIR", type=output_dir, help="write one PNG per position")
    p.add_argument("--colors", type=int_arg(2, 256), default=None,
                   help="HTML: palette frames (e.g. 256) for smaller files")
    p.set_defaults(func=run)


def load_replay(path: str) -> tuple[Any, list, dict]:
    """Read a replay file and re-create the positions: (game, [state_0 ... state_T], doc)."""
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


def run(args: argparse.Namespace) -> int:
    game, states, doc = load_replay(args.file)
    actions = doc["actions"]
    if args.html or args.gif or args.frames:
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
