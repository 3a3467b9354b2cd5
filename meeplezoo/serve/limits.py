"""What a request may ask of ``meeplezoo serve``: which agents, which checkpoint files, how much search.

A request names agents by spec string (``heuristic``, ``mcts:time=0.5``, ``pretrained:sims=100``,
``net:runs/kerala/best.zip``). Only the registry's own agents are built, never a ``module:Class``, and
never a format that unpickles (``sb3``) or reads the terminal (``human``: a human seat is the page
itself). Checkpoint paths must lie inside one of the allowed folders, and every search budget is capped,
so one click cannot occupy the machine for minutes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from meeplezoo.agents.registry import parse_spec

#: agents a request may name (the registry's ids); ``sb3`` unpickles, ``human`` reads the terminal
ALLOWED_AGENTS = ("random", "heuristic", "mcts", "pretrained", "net", "netmcts", "ppo")
#: the agents whose positional argument is a checkpoint path
CHECKPOINT_AGENTS = ("net", "netmcts", "ppo")
#: the agents that search (their budget is capped)
SEARCH_AGENTS = ("mcts", "netmcts", "pretrained")
#: the rollout policies a search may name (an agent spec of its own would nest the checks)
ALLOWED_ROLLOUTS = ("random", "heuristic")


class RequestError(ValueError):
    """A request the app refuses; its message says what was wrong (HTTP 400)."""


@dataclass
class Limits:
    """The bounds of one server: checkpoint folders and the largest search one request may run."""

    checkpoint_dirs: Sequence[Path] = field(default_factory=list)
    max_sims: int = 2000
    max_time: float = 5.0
    max_sessions: int = 32
    #: agent moves and inspections computed at once over all games (the others wait their turn)
    max_parallel: int = 2

    def __post_init__(self) -> None:
        self.checkpoint_dirs = [Path(d).expanduser().resolve() for d in self.checkpoint_dirs]

    def checkpoint(self, path: str) -> str:
        """``path`` resolved, if it is a ``.zip`` file inside an allowed folder; RequestError otherwise."""
        if not path.endswith(".zip"):
            raise RequestError(f"checkpoint {path!r} is not a .zip file")
        if not self.checkpoint_dirs:
            raise RequestError(f"checkpoint {path!r} refused: this server allows no checkpoint folder "
                               "(start it with --checkpoints DIR)")
        folders = ", ".join(str(d) for d in self.checkpoint_dirs)
        p = Path(path).expanduser()
        candidates = [p] if p.is_absolute() else [d / p for d in self.checkpoint_dirs] + [Path.cwd() / p]
        for c in candidates:
            real = c.resolve()
            if any(real.is_relative_to(d) for d in self.checkpoint_dirs):
                if not real.is_file():
                    raise RequestError(f"checkpoint {path!r} not found in the allowed folders ({folders})")
                return str(real)
        raise RequestError(f"checkpoint {path!r} is outside the allowed folders ({folders})")

    def agent_spec(self, spec: Any) -> str:
        """The spec to build, after the checks: allowed agent, allowed checkpoint, capped budget.

        A search given no budget gets its usual default, which is below the caps; a budget above a cap
        is refused with a message naming the cap (not silently lowered: the numbers shown must be what
        the spec says).
        """
        if not isinstance(spec, str) or not spec.strip():
            raise RequestError(f"an agent spec must be a non-empty string, got {spec!r}")
        try:
            name, args, kwargs = parse_spec(spec)
        except ValueError as e:
            raise RequestError(str(e)) from None
        if name not in ALLOWED_AGENTS:
            raise RequestError(f"agent {name!r} in spec {spec!r} is not allowed here; allowed: "
                               f"{', '.join(ALLOWED_AGENTS)}")
        if name in CHECKPOINT_AGENTS:
            if len(args) != 1:
                raise RequestError(f"agent {name!r} needs one checkpoint path: {name}:PATH.zip (spec {spec!r})")
            args = [self.checkpoint(args[0])]
        sims = kwargs.get("sims", args[0] if name == "mcts" and args else None)
        if sims is not None:
            try:
                n = int(sims)
            except (TypeError, ValueError):
                raise RequestError(f"sims must be a positive int, got {sims!r} in spec {spec!r}") from None
            if n > self.max_sims:
                raise RequestError(f"sims={n} in spec {spec!r} is above this server's cap of {self.max_sims}")
        t = kwargs.get("time")
        if t is not None:
            if isinstance(t, bool) or not isinstance(t, (int, float)):
                raise RequestError(f"time must be a number of seconds, got {t!r} in spec {spec!r}")
            if t > self.max_time:
                raise RequestError(f"time={t} in spec {spec!r} is above this server's cap of {self.max_time} s")
        rollout = kwargs.get("rollout")
        if rollout is not None and rollout not in ALLOWED_ROLLOUTS:
            raise RequestError(f"rollout={rollout!r} in spec {spec!r} is not allowed here; allowed: "
                               f"{', '.join(ALLOWED_ROLLOUTS)}")
        if name in CHECKPOINT_AGENTS:
            rest = [f"{k}={v}" for k, v in kwargs.items()]
            return ":".join([name, args[0], *rest])
        return spec.strip()
