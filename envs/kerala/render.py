"""Kerala rendering: a text view for the terminal and a Pillow picture of the table."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from . import components as C

if TYPE_CHECKING:
    from .state import KeralaState

EDGE_ARROWS = "^>v<"
KIND_MARKS = {C.KIND_SYM0: "0", C.KIND_SYM1: "1", C.KIND_SYM2: "2", C.KIND_SYM3: "3",
              C.KIND_MOVE_ELEPHANT: "J", C.KIND_MOVE_TILE: "M", C.KIND_START: "*"}

LEGEND = ("cell = colour letter (B blue, K black, G green, P purple, R red) + kind (1-3 symbols, * start, "
          "J move-elephant, M move-tile, ^>v< colored edge + its second colour in lower case), "
          "then x and the stack height if above 1; @ = elephant")


def tile_label(state: KeralaState, code: int) -> str:
    """Three-character label of a tile code, e.g. ``R2``, ``B>g`` (blue, green edge facing east)."""
    g = state.game
    t = code >> 2
    kind = g.tile_kind[t]
    letter = C.COLOUR_LETTERS[g.tile_colour[t]]
    if kind == C.KIND_EDGE:
        return f"{letter}{EDGE_ARROWS[code & 3]}{C.COLOUR_LETTERS[g.tile_second[t]].lower()}"
    return f"{letter}{KIND_MARKS[kind]}"


def platform_lines(state: KeralaState, player: int) -> list[str]:
    g = state.game
    stacks = state.platforms[player]
    rows = [g.pos_of(c) for c in stacks]
    r0, r1 = min(r for r, _ in rows), max(r for r, _ in rows)
    c0, c1 = min(c for _, c in rows), max(c for _, c in rows)
    els = state.elephants[player]
    lines = ["      " + "".join(f"{c:^8d}" for c in range(c0, c1 + 1))]
    for r in range(r0, r1 + 1):
        cells = []
        for c in range(c0, c1 + 1):
            cell = g.cell_of(r, c)
            st = stacks.get(cell)
            if st is None:
                cells.append("   .    ")
                continue
            label = tile_label(state, st[-1])
            height = f"x{len(st)}" if len(st) > 1 else ""
            mark = "@" if cell in els else ""
            cells.append(f" {label + height + mark:<7}")
        lines.append(f"{r:+4d}  " + "".join(cells).rstrip())
    return lines


def render_text(state: KeralaState) -> str:
    g = state.game
    n = g.num_players
    head = (f"Kerala, {n} players: round {min(state.rounds_played + 1, g.total_rounds)}/{g.total_rounds}, "
            f"bag {len(state.bag)}, discarded {len(state.discards)}")
    out = [head]
    if state.is_terminal():
        sc = state.scores()
        winners = state.winners()
        out.append("Game over. Winner" + ("s: " if len(winners) > 1 else ": ")
                   + ", ".join(f"player {p} ({C.COLOURS[g.player_colours[p]]})" for p in winners)
                   + " with " + f"{sc[winners[0]]:g}")
    else:
        out.append(f"Start player {state.start_seat}; player {state.current_player} "
                   f"({C.COLOURS[g.player_colours[state.current_player]]}) to decide: "
                   f"{C.PHASE_NAMES[state.phase]}")
        out.append("Offer: " + ("  ".join(f"[{i}] {g.tile_name(t)}" for i, t in enumerate(state.offer)) or "empty"))
    for p in range(n):
        ps = state.platform_score(p)
        parts = ", ".join(f"{k} {v}" for k, v in ps.as_dict().items() if k != "total")
        label = "final" if state.is_terminal() else "provisional"
        out.append("")
        out.append(f"Player {p} ({C.COLOURS[g.player_colours[p]]}), passes {state.passes[p]}: "
                   f"{label} score {ps.total} ({parts})")
        out.extend(platform_lines(state, p))
    out.append("")
    out.append(LEGEND)
    return "\n".join(out)


# -- picture -----------------------------------------------------------------------------------------------------

PANEL_W, PANEL_H = 340, 360
HEADER_H = 92
BG = (244, 238, 222)
PANEL_BG = (232, 222, 196)
INK = (30, 30, 30)


@lru_cache(maxsize=4)
def _font(size: int):  # noqa: ANN202 - PIL font
    from PIL import ImageFont

    for name in ("DejaVuSans.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"):
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return ImageFont.load_default()


def _draw_tile(draw, state: KeralaState, code: int, x: int, y: int, size: int, height: int = 1) -> None:
    """One tile as the printed square: background colour, symbols as dots, the edge as a half-disc."""
    g = state.game
    t = code >> 2
    kind = g.tile_kind[t]
    draw.rectangle([x, y, x + size - 1, y + size - 1], fill=C.COLOUR_RGB[g.tile_colour[t]], outline=INK)
    cx, cy = x + size // 2, y + size // 2
    white = (250, 250, 250)
    if kind == C.KIND_EDGE:
        r = size // 3
        second = C.COLOUR_RGB[g.tile_second[t]]
        o = code & 3
        ex, ey = [(cx, y), (x + size - 1, cy), (cx, y + size - 1), (x, cy)][o]
        start = [0, 90, 180, 270][o]
        draw.pieslice([ex - r, ey - r, ex + r, ey + r], start, start + 180, fill=second, outline=white)
    elif kind in (C.KIND_SYM1, C.KIND_SYM2, C.KIND_SYM3) or (kind == C.KIND_START and g.tile_symbols[t]):
        n = g.tile_symbols[t]
        rr = max(size // 10, 2)
        for i in range(n):
            dx = int((i - (n - 1) / 2) * size * 0.27)
            draw.ellipse([cx + dx - rr, cy - rr, cx + dx + rr, cy + rr], fill=white)
    if kind == C.KIND_START:
        draw.rectangle([x + 3, y + 3, x + size - 4, y + size - 4], outline=(255, 215, 0), width=2)
    elif kind == C.KIND_MOVE_ELEPHANT:
        draw.text((cx, cy), "J", fill=white, font=_font(max(size // 2, 8)), anchor="mm")
    elif kind == C.KIND_MOVE_TILE:
        draw.text((cx, cy), "M", fill=white, font=_font(max(size // 2, 8)), anchor="mm")
    if height > 1:
        draw.text((x + size - 3, y + 2), str(height), fill=(255, 235, 120), font=_font(max(size // 3, 8)),
                  anchor="ra")


def _panel_origin(state: KeralaState, player: int) -> tuple[int, int]:
    """Top-left corner of ``player``'s panel on the picture of :func:`render_rgb`."""
    cols = min(state.game.num_players, 3)
    return (player % cols) * PANEL_W, HEADER_H + (player // cols) * PANEL_H


def _platform_grid(state: KeralaState, player: int) -> tuple[int, int, int, int, int]:
    """``(x, y, size, row0, col0)``: where ``player``'s platform grid starts on the picture, the size of a cell
    and the (row, col) of its top-left cell (one empty ring is drawn around the tiles)."""
    g = state.game
    px, py = _panel_origin(state, player)
    pos = [g.pos_of(c) for c in state.platforms[player]]
    r0, r1 = min(r for r, _ in pos) - 1, max(r for r, _ in pos) + 1
    c0, c1 = min(c for _, c in pos) - 1, max(c for _, c in pos) + 1
    size = max(min(44, (PANEL_W - 24) // (c1 - c0 + 1), (PANEL_H - 44) // (r1 - r0 + 1)), 6)
    ox = px + (PANEL_W - size * (c1 - c0 + 1)) // 2
    oy = py + 34 + (PANEL_H - 40 - size * (r1 - r0 + 1)) // 2
    return ox, oy, size, r0, c0


def cell_box(state: KeralaState, player: int, cell: int) -> tuple[int, int, int, int] | None:
    """``(x0, y0, x1, y1)`` of padded ``cell`` on ``player``'s platform in the picture of :func:`render_rgb`,
    or None where the cell lies outside the drawn grid (the tiles and one ring around them)."""
    g = state.game
    ox, oy, size, r0, c0 = _platform_grid(state, player)
    r, c = g.pos_of(cell)
    x, y = ox + (c - c0) * size, oy + (r - r0) * size
    px, py = _panel_origin(state, player)
    if not (px + 4 <= x and x + size <= px + PANEL_W - 4 and py + 30 <= y and y + size <= py + PANEL_H - 4):
        return None
    return x, y, x + size, y + size


def action_regions(state: KeralaState) -> dict[int, tuple[int, int, int, int]]:
    """Where on the picture each legal action points, on the platform of the player to move: a tile's
    placement at the cell it goes to (every tile, elephant and orientation placed there shares the cell), an
    elephant's move at its new cell, a stack's move at the cell it leaves and then at the cell it goes to
    (a clickable picture's targets; actions that name no cell are left out)."""
    from .actions import KIND_MOVE_ELEPHANT, KIND_MOVE_TILE_DST, KIND_MOVE_TILE_SRC, KIND_PICK

    if state.is_terminal():
        return {}
    g = state.game
    p = state.current_player
    out = {}
    for a in state.legal_actions():
        act = g.codec.decode(int(a))
        if act.kind == KIND_PICK:
            cell = state.elephants[p][act.elephant] + g.delta[act.direction]
        elif act.kind in (KIND_MOVE_ELEPHANT, KIND_MOVE_TILE_SRC, KIND_MOVE_TILE_DST):
            cell = g.cell_to_pad[act.cell]
        else:
            continue
        box = cell_box(state, p, cell)
        if box is not None:
            out[int(a)] = box
    return out


def render_rgb(state: KeralaState) -> np.ndarray:
    """The table: offer and round on top, one panel per platform (elephants as grey discs)."""
    from PIL import Image, ImageDraw

    g = state.game
    n = g.num_players
    cols = min(n, 3)
    rows = (n + cols - 1) // cols
    img = Image.new("RGB", (cols * PANEL_W, HEADER_H + rows * PANEL_H), BG)
    draw = ImageDraw.Draw(img)
    f = _font(14)
    if state.is_terminal():
        status = "game over - winner: " + ", ".join(f"P{p}" for p in state.winners())
    else:
        status = f"P{state.current_player} to decide: {C.PHASE_NAMES[state.phase]}"
    draw.text((10, 8), f"Kerala  round {min(state.rounds_played + 1, g.total_rounds)}/{g.total_rounds}  "
                       f"bag {len(state.bag)}  {status}", fill=INK, font=f)
    draw.text((10, 34), "offer:", fill=INK, font=f)
    for i, t in enumerate(state.offer):
        _draw_tile(draw, state, t * 4, 70 + i * 52, 30, 44)
    for p in range(n):
        px, py = (p % cols) * PANEL_W, HEADER_H + (p // cols) * PANEL_H
        draw.rectangle([px + 4, py + 4, px + PANEL_W - 5, py + PANEL_H - 5], fill=PANEL_BG,
                       outline=C.COLOUR_RGB[g.player_colours[p]], width=3)
        ps = state.platform_score(p)
        mark = " *" if p == state.current_player else ""
        draw.text((px + 12, py + 10), f"P{p} {C.COLOURS[g.player_colours[p]]}{mark}  score {ps.total}  "
                                      f"passes {state.passes[p]}", fill=INK, font=f)
        stacks = state.platforms[p]
        ox, oy, size, r0, c0 = _platform_grid(state, p)
        for cell, st in stacks.items():
            r, c = g.pos_of(cell)
            _draw_tile(draw, state, st[-1], ox + (c - c0) * size, oy + (r - r0) * size, size, len(st))
        for k, cell in enumerate(state.elephants[p]):
            r, c = g.pos_of(cell)
            x, y = ox + (c - c0) * size, oy + (r - r0) * size
            rr = max(size // 5, 3)
            ex = x + size - rr - 3 - (k * 2 * rr if state.elephants[p][0] == state.elephants[p][1] else 0)
            ey = y + size - rr - 3
            draw.ellipse([ex - rr, ey - rr, ex + rr, ey + rr], fill=(150, 150, 150), outline=(255, 255, 255))
    return np.asarray(img, dtype=np.uint8).copy()


def observation_string(state: KeralaState, player: int) -> str:
    """Player's view as text: the whole table is public (the bag shows only its size)."""
    colour = C.COLOURS[state.game.player_colours[player]]
    return f"View of player {player} ({colour})\n" + render_text(state)
