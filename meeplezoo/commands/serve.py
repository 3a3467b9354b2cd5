"""``meeplezoo serve``: play and inspect agents in the browser (the whole app lives in :mod:`meeplezoo.serve`)."""

from __future__ import annotations

from typing import Any

from meeplezoo import serve


def add_parser(sub: Any) -> None:
    p = sub.add_parser("serve", help="play and inspect agents in the browser (a local web app)")
    serve.add_arguments(p)
    p.set_defaults(func=serve.run)
