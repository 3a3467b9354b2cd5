"""``meeplezoo bench``: random-play throughput of every game beside PettingZoo's connect_four_v3."""

from __future__ import annotations

from typing import Any

from meeplezoo import bench


def add_parser(sub: Any) -> None:
    p = sub.add_parser("bench", help="throughput of every game beside PettingZoo's connect_four_v3")
    bench.add_arguments(p)
    p.set_defaults(func=bench.run_and_print)
