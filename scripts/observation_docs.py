"""Write docs/observations.md: the observation layout of every game, from each game's declaration."""

from __future__ import annotations

import sys
from pathlib import Path

from meeplezoo.envs.core.observation import observation_docs
from meeplezoo.registry import make_game

PATH = Path(__file__).resolve().parent.parent / "docs" / "observations.md"
# one configuration per distinct layout worth showing
CONFIGS = (
    ("haus_der_sonne", {}),
    ("haus_der_sonne", {"derived_features": True}),
    ("kerala", {}),
    ("kerala", {"derived_features": True}),
    ("kerala", {"derived_features": True, "elephant_view": True}),
    ("kerala", {"derived_features": True, "elephant_view": True, "pick_afterstate": True}),
    ("kerala", {"derived_features": True, "elephant_view": True, "pick_afterstate": True, "move_lookahead": True}),
    ("hawaii", {}),
    ("hawaii", {"place_view": True}),
    ("asara", {}),
)


def render() -> str:
    return observation_docs([make_game(name, **cfg) for name, cfg in CONFIGS])


if __name__ == "__main__":
    PATH.write_text(render())
    print(f"wrote {PATH}", file=sys.stderr)


def game_sections(name: str, level: int = 3) -> str:
    """The layouts of one game (every configuration of ``CONFIGS`` for it), with headings of ``level``:
    the documentation site's game pages include them."""
    out = []
    for game_name, cfg in CONFIGS:
        if game_name != name:
            continue
        game = make_game(game_name, **cfg)
        spec = game.observation_spec
        opts = ", ".join(f"`{k}={v!r}`" for k, v in game.non_default_options.items())
        title = f"{game.num_players} players" + (f", {opts}" if opts else ", default options")
        out += [f"{'#' * level} {title}", "",
                f"Observation version {type(game).observation_version}, {spec.size} values.", "",
                spec.markdown(), ""]
    return "\n".join(out)
