"""Write docs/images/<game>.png: each game's picture (its renderer) of a position in mid-game.

The position is reproducible: the game's default configuration at 2 players (the README's examples),
seed 7, the heuristic playing every seat for a fixed share of a game's decisions.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PIL import Image

import meeplezoo
from meeplezoo.agents import make as make_agent
from meeplezoo.registry import make_game

OUT = Path(__file__).resolve().parent.parent / "docs" / "images"
SEED = 7
# decisions played before the picture is taken, per game (part of a 2-player game)
DECISIONS = {"kerala": 30, "haus_der_sonne": 40, "hawaii": 30, "asara": 90}


def picture(name: str, decisions: int) -> Image.Image:
    game = make_game(name, num_players=2)
    state = game.new_state(seed=SEED)
    agents = [make_agent("heuristic", game=name, seed=SEED + p) for p in range(game.num_players)]
    for _ in range(decisions):
        if state.is_terminal():
            break
        p = state.current_player
        action = agents[p].act(state.observe(p), state.legal_mask(), state=state)
        state.apply(action)
    return Image.fromarray(state.render_rgb())


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name in meeplezoo.list_envs():
        img = picture(name, DECISIONS.get(name, 40))
        path = OUT / f"{name}.png"
        img.save(path, optimize=True)
        print(f"wrote {path} {img.size[0]}x{img.size[1]}", file=sys.stderr)


if __name__ == "__main__":
    main()
