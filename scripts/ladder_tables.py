"""Rewrite the shipped-ladder tables of README.md and docs/LADDER.md from ``training/ladders/*.json``.

The README gets a summary row per ladder and, folded, every member's row; docs/LADDER.md every member's row.
Each table sits between ``<!-- ladders:summary -->`` / ``<!-- ladders:members -->`` and ``<!-- /ladders -->``
markers; run this after a ladder is built (``python scripts/build_ladders.py``) so the pages show every
configuration that has ratings, strongest member first.

    python scripts/ladder_tables.py
"""

from __future__ import annotations

import re
from pathlib import Path

from meeplezoo.training.ladder import markdown, shipped_ladders, summary_markdown

ROOT = Path(__file__).resolve().parent.parent
#: the README's order of the games
ORDER_OF_GAMES = ("haus_der_sonne", "kerala", "hawaii", "asara")


def replace(path: Path, tag: str, table: str) -> None:
    text = path.read_text()
    pattern = re.compile(rf"(<!-- ladders:{tag} -->\n).*?(<!-- /ladders -->)", re.S)
    if not pattern.search(text):
        raise SystemExit(f"{path}: no <!-- ladders:{tag} --> ... <!-- /ladders --> markers")
    path.write_text(pattern.sub(lambda m: m.group(1) + table + "\n" + m.group(2), text))


def main() -> None:
    ladders = sorted(shipped_ladders(), key=lambda lad: (ORDER_OF_GAMES.index(lad.spec.game), lad.spec.options,
                                                         lad.spec.num_players))
    replace(ROOT / "README.md", "summary", summary_markdown(ladders))
    replace(ROOT / "README.md", "members", markdown(ladders))
    replace(ROOT / "docs" / "LADDER.md", "members", markdown(ladders))
    print(f"{len(ladders)} ladders: {', '.join(lad.name for lad in ladders)}")


if __name__ == "__main__":
    main()
