"""``meeplezoo serve``: play and inspect agents in the browser.

A local web app (Starlette on uvicorn, ``pip install "meeplezoo[app]"``): choose a game, its configuration
and who sits where (a human or any agent spec), play by clicking, step through the history, and open the
inspector on any position: the network's prior, the search's visit share and value per action, the
heuristic's choice and the value estimate per seat. See ``docs/guides/serve.md``.

    meeplezoo serve                      # http://127.0.0.1:8000
    meeplezoo serve --port 8080 --checkpoints runs

The parts: :mod:`.limits` (what a request may ask), :mod:`.inspect` (the agents' numbers), :mod:`.session`
(one game: positions, seats, agents), :mod:`.view` (what each seat may see of it), :mod:`.app` (the routes),
``static/`` (the page).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .limits import Limits, RequestError

__all__ = ["Limits", "RequestError", "add_arguments", "create_app", "run", "serve"]

#: the folders a checkpoint may come from unless --checkpoints says otherwise (relative to the working folder)
DEFAULT_CHECKPOINT_DIRS = ("runs",)


def create_app(limits: Limits | None = None) -> Any:
    """The Starlette application (needs the ``app`` extra)."""
    from .app import create_app as _create

    return _create(limits)


def serve(host: str = "127.0.0.1", port: int = 8000, limits: Limits | None = None, *,
          log_level: str = "warning") -> None:
    """Run the app with uvicorn until interrupted (localhost unless ``host`` says otherwise)."""
    try:
        import uvicorn
    except ImportError:
        raise ValueError('meeplezoo serve needs the app extra: pip install "meeplezoo[app]"') from None
    app = create_app(limits)
    print(f"meeplezoo serve: http://{host}:{port}/  (Ctrl-C stops it)", flush=True)
    uvicorn.run(app, host=host, port=port, log_level=log_level)


def _integer(lo: int, hi: int | None = None) -> Any:
    """An argparse type: an int in ``lo..hi``, else an error naming the range."""
    def integer(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if v < lo or (hi is not None and v > hi):
            raise argparse.ArgumentTypeError(f"must be an integer in {lo}..{hi if hi is not None else ''}, got {v}")
        return v
    return integer


def _seconds(text: str) -> float:
    """An argparse type: a finite number of seconds > 0."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not math.isfinite(v) or v <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {text}")
    return v


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The flags of ``meeplezoo serve``."""
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=_integer(1, 65535), default=8000, help="port (default 8000)")
    p.add_argument("--checkpoints", metavar="DIR", action="append", default=None,
                   help="a folder checkpoints may be loaded from (repeatable; default: ./runs)")
    p.add_argument("--max-sims", type=_integer(1), default=Limits.max_sims,
                   help=f"the most simulations one search may ask for (default {Limits.max_sims})")
    p.add_argument("--max-time", type=_seconds, default=Limits.max_time,
                   help=f"the most seconds one search may ask for (default {Limits.max_time})")


def run(args: argparse.Namespace) -> int:
    """``meeplezoo serve`` from parsed arguments."""
    dirs: Sequence[str] = args.checkpoints if args.checkpoints is not None else DEFAULT_CHECKPOINT_DIRS
    limits = Limits([Path(d) for d in dirs], max_sims=args.max_sims, max_time=args.max_time)
    serve(args.host, args.port, limits)
    return 0
