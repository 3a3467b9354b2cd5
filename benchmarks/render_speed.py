"""Milliseconds per picture: ``State.render_rgb()`` of every game, and the PNG encoding on top.

Positions are sampled from uniformly random games (every ``--every``-th
decision), so early, middle and late positions are all drawn.  For video
capture a frame must cost well under the frame interval (33 ms at 30 fps).
PettingZoo's ``connect_four_v3`` ``rgb_array`` render (pygame) is measured in
the same run as a reference when pygame is installed.

    python benchmarks/render_speed.py
    python benchmarks/render_speed.py --game kerala --positions 200 --json render.json
"""

from __future__ import annotations

import argparse
import io
import json
import random
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np


def sample_positions(game: Any, count: int, every: int, seed: int) -> list[Any]:
    """``count`` positions from random games, one every ``every`` decisions (terminal ones included)."""
    rng = random.Random(seed)
    out: list[Any] = []
    while len(out) < count:
        state = game.new_state(rng.randrange(2**31))
        k = 0
        while True:
            if k % every == 0 or state.is_terminal():
                out.append(state.clone())
            if state.is_terminal() or len(out) >= count:
                break
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
            k += 1
    return out[:count]


def time_renders(states: Sequence[Any], repeats: int = 1) -> tuple[np.ndarray, np.ndarray, tuple[int, int]]:
    """(ms per render_rgb, ms per PNG encoding, largest frame (H, W)) over ``states``."""
    from PIL import Image

    render_ms, png_ms = [], []
    h = w = 0
    for s in states:
        for _ in range(repeats):
            t0 = time.perf_counter()
            rgb = s.render_rgb()
            t1 = time.perf_counter()
            buf = io.BytesIO()
            Image.fromarray(rgb, "RGB").save(buf, format="PNG", compress_level=6)
            t2 = time.perf_counter()
            render_ms.append((t1 - t0) * 1e3)
            png_ms.append((t2 - t1) * 1e3)
        h, w = max(h, rgb.shape[0]), max(w, rgb.shape[1])
    return np.asarray(render_ms), np.asarray(png_ms), (h, w)


def connect_four_ms(frames: int = 100) -> float | None:
    """ms per ``rgb_array`` render of PettingZoo's connect_four_v3 (None without pygame)."""
    try:
        import pygame  # noqa: F401
        from pettingzoo.classic import connect_four_v3
    except ImportError:
        return None
    env = connect_four_v3.env(render_mode="rgb_array")
    env.reset(seed=0)
    env.render()  # first call opens the pygame surface
    t0 = time.perf_counter()
    for _ in range(frames):
        env.render()
    ms = (time.perf_counter() - t0) / frames * 1e3
    env.close()
    return ms


def configurations(games: Sequence[str] | None) -> list[tuple[str, int]]:
    from meeplezoo.registry import game_class, list_envs

    out = []
    for name in games or list_envs():
        try:
            cls = game_class(name)
        except ImportError as e:
            print(f"# {name}: not available ({e})", file=sys.stderr)
            continue
        for n in sorted({cls.min_players, cls.max_players}):
            out.append((name, n))
    return out


def run(games: Sequence[str] | None = None, positions: int = 100, every: int = 5, seed: int = 0,
        repeats: int = 1) -> dict[str, Any]:
    from meeplezoo.registry import make_game

    rows = []
    for name, n in configurations(games):
        try:
            game = make_game(name, n)
            states = sample_positions(game, positions, every, seed)
            states[0].render_rgb()  # warm caches (fonts, sprites)
            render, png, (h, w) = time_renders(states, repeats)
        except Exception as e:  # noqa: BLE001 - one broken game must not hide the others' figures
            rows.append({"game": name, "players": n, "error": f"{type(e).__name__}: {e}"})
            continue
        rows.append({
            "game": name, "players": n, "frames": int(render.size), "height": h, "width": w,
            "render_ms_mean": float(render.mean()), "render_ms_p50": float(np.median(render)),
            "render_ms_p95": float(np.percentile(render, 95)), "png_ms_mean": float(png.mean()),
            "fps": float(1e3 / render.mean()),
        })
    return {"connect_four_v3_render_ms": connect_four_ms(), "positions": positions, "every": every, "seed": seed,
            "rows": rows}


def format_results(res: dict[str, Any]) -> str:
    lines = [f"{'environment':<18} {'players':>7} {'frame HxW':>10} {'frames':>6} {'ms mean':>8} {'ms p50':>7} "
             f"{'ms p95':>7} {'fps':>7} {'+PNG ms':>8}"]
    c4 = res.get("connect_four_v3_render_ms")
    if c4 is not None:
        lines.append(f"{'connect_four_v3':<18} {2:>7} {'':>10} {'':>6} {c4:>8.2f} {'':>7} {'':>7} {1e3 / c4:>7.0f} "
                     f"{'':>8}")
    for r in res["rows"]:
        if "error" in r:
            lines.append(f"{r['game']:<18} {r['players']:>7}  failed: {r['error'][:80]}")
            continue
        lines.append(
            f"{r['game']:<18} {r['players']:>7} {str(r['height']) + 'x' + str(r['width']):>10} {r['frames']:>6} "
            f"{r['render_ms_mean']:>8.2f} {r['render_ms_p50']:>7.2f} {r['render_ms_p95']:>7.2f} {r['fps']:>7.0f} "
            f"{r['png_ms_mean']:>8.2f}"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", dest="games", action="append", help="only this game (repeatable)")
    p.add_argument("--positions", type=int, default=100, help="positions drawn per configuration")
    p.add_argument("--every", type=int, default=5, help="take a position every N decisions of a random game")
    p.add_argument("--repeats", type=int, default=1, help="renders per position")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = p.parse_args(argv)
    if args.positions < 1 or args.every < 1 or args.repeats < 1:
        p.error("--positions, --every and --repeats must be at least 1")
    res = run(args.games, args.positions, args.every, args.seed, args.repeats)
    print(format_results(res))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=2)
    return 1 if any("error" in r for r in res["rows"]) else 0


if __name__ == "__main__":
    sys.exit(main())
