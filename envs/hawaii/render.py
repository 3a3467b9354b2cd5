"""Hawaii rendering: a text view a person can follow and a Pillow picture of the board."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from ..core.render import default_font
from . import actions as A
from .components import (
    GODS_PLACE,
    ISLAND_KIND,
    ISLAND_KIND_NAMES,
    LONG_HUT,
    NUM_DOCKS,
    NUM_SLOTS,
    PLACE_CIRCLES,
    PLACE_NAMES,
    PLACE_OFFERS,
    PLACE_PRINTED,
    TOKEN_VALUE,
    TYPE_NAMES,
    TYPE_SHORT,
)

# slot layout on the picture: (column offset in half-widths, row from the top)
SLOT_POS = {0: (1, 3), 1: (3, 3), 2: (0, 2), 3: (2, 2), 4: (4, 2), 5: (0, 1), 6: (2, 1), 7: (4, 1), 8: (1, 0),
            9: (3, 0)}
PLAYER_COLORS = ((200, 40, 40), (40, 90, 200), (40, 150, 60), (210, 160, 20), (130, 60, 170))
TYPE_COLORS = {
    0: (150, 120, 90), 1: (235, 225, 200), 2: (180, 140, 100), 3: (160, 60, 50), 4: (90, 160, 150),
    5: (140, 100, 60), 6: (70, 140, 210), 7: (230, 120, 170), 8: (150, 190, 60), 9: (120, 90, 160),
    10: (200, 170, 120), 11: (240, 220, 60), 12: (60, 180, 230), 13: (200, 60, 60), 14: (220, 140, 40),
    15: (240, 90, 30), 16: (90, 200, 120), 17: (250, 150, 200), 18: (40, 80, 160), 19: (110, 70, 40),
    20: (60, 60, 60), 21: (120, 80, 50),
}


def _tok(s: Any, t: int) -> str:
    return f"{TOKEN_VALUE[t]}{'x' if s.game.token_spear[t] else ''}"


def _row_text(s: Any, p: int, r: int, row: list[int], scored: list[int]) -> str:
    tiles = " ".join(TYPE_SHORT[c >> 1] + ("2" if c & 1 else "") for c in row)
    mark = "scores" if r in scored else "not scored"
    k = "K" if r < s.kahunas[p] else " "
    return f"    {k} village {r + 1}: {tiles}  ({s.row_columns(row)} cols, {mark})"


def render_text(s: Any, viewer: int | None = None) -> str:
    """The position as text; with ``viewer``, what that player may know (see :func:`observation_string`)."""
    g = s.game
    o = g.options
    n = g.num_players
    lines = []
    rnd = s.round
    vp = o["round_vp"][rnd]
    head = f"Hawaii, round {rnd + 1}/5, target {o['round_targets'][rnd]} (VP {vp[0]}/{vp[1]}/{vp[2]})"
    if s.terminal:
        head += "  GAME OVER, winner(s): " + ", ".join(f"player {p}" for p in s.winners())
    else:
        head += f"  player {s.current_player} to decide ({A.PHASE_NAMES[s.phase]})"
    lines.append(head)
    lines.append("Main island (P1-P2 border the beach; x = spear token):")
    for row in (3, 2, 1, 0):
        slots = [sl for sl in range(NUM_SLOTS) if SLOT_POS[sl][1] == row]
        parts = []
        for sl in slots:
            pl = s.slot_place[sl]
            toks = []
            for c in range(PLACE_CIRCLES[pl]):
                t = s.circles[sl][c]
                toks.append((_tok(s, t) if t >= 0 else "-") + ("*" if c == 0 else ""))
            if pl == GODS_PLACE:
                offer = "/".join(TYPE_NAMES[st[-1]] for st in s.god_stacks if st) or "none"
                offer += f" ({len(s.god_stacks[0]) + len(s.god_stacks[1])} left)"
            else:
                offer = ",".join(f"{TYPE_SHORT[t]}{s.supply[t]}" for t in PLACE_OFFERS[pl])
            who = "".join(str(p) for p in range(n) if s.loc[p] == sl)
            parts.append(f"P{sl + 1} {PLACE_NAMES[pl]}<={PLACE_PRINTED[pl]} [{' '.join(toks)}] {offer}"
                         + (f" @{who}" if who else ""))
        lines.append("  " + " | ".join(parts))
    cove = " ".join(f"{s.game.token_fish[t]}f" for t in s.cove) or "empty"
    lines.append(f"Beach: fishing cove: {cove}")
    docks = []
    for d in range(NUM_DOCKS):
        isl = s.docks[d]
        name = ISLAND_KIND_NAMES[ISLAND_KIND[isl]] if isl >= 0 else "(visited)"
        docks.append(f"D{d + 1} {o['dock_cost'][d]}ft/{o['dock_vp'][d]}VP: {name}")
    lines.append("  docks: " + " | ".join(docks))
    seq = []
    for i in range(g.pass_spaces):
        t = s.seq[i]
        who = [str(p) for p in range(n) if s.passed[p] == i]
        seq.append(f"{i + 1}:{_tok(s, t) if t >= 0 else '--'}{'<-' + who[0] if who else ''}")
    lines.append("  sequence track: " + " ".join(seq) + "   turn order: " + " ".join(map(str, s.order)))
    lines.append(f"  island stack: {sum(1 for u in s.isl_up if not u)} face down, "
                 f"{sum(1 for u in s.isl_up if u)} visited under it; bag: {len(s.bag)} tokens")
    for p in range(n):
        r = s.res[p]
        where = "beach" if s.loc[p] < 0 else f"P{s.loc[p] + 1}"
        status = f"ended on space {s.passed[p] + 1}" if s.passed[p] >= 0 else where
        fish = " ".join(str(s.game.token_fish[t]) for t in s.fished[p])
        tokens = " ".join(_tok(s, t) for t in s.held[p]) + (" fish " + fish if fish else "")
        mark = ">" if p == s.current_player else " "
        hidden = viewer is not None and p != viewer and not o["resources_public"]
        stock = "? shells ? feet ? fruit" if hidden else f"{r[0]} shells {r[1]} feet {r[2]} fruit"
        lines.append(f"{mark}Player {p}: {s.vp[p]} VP | {stock} | "
                     f"round sum {s.round_sum(p)}/{s.target_of(p)} [{tokens}] | {status}")
        boats = ["fishing" + ("(used)" if s.boat_used[p][0] else "")]
        boats += [("I" if b == 1 else "II") + ("(used)" if s.boat_used[p][i + 1] else "")
                  for i, b in enumerate(s.boats[p])]
        lines.append(f"    Tikis {s.tikis[p]}/6  Kahunas {s.kahunas[p]}/5  boats: {' '.join(boats)}  "
                     f"village VP now: {s.final_village_vp(p)}")
        scored = s.scored_rows(p)
        for ri, row in enumerate(s.rows[p]):
            lines.append(_row_text(s, p, ri, row, scored))
    return "\n".join(lines)


@lru_cache(maxsize=1)
def _font():  # noqa: ANN202 - PIL font
    return default_font()


PLACE_W, PLACE_H = 120, 58  # a place on the island picture


def place_box(slot: int) -> tuple[int, int, int, int]:
    """``(x0, y0, x1, y1)`` of place ``slot`` (P1 is 0) on the picture of :func:`render_rgb`."""
    cx, ry = SLOT_POS[slot]
    x0 = 40 + cx * (PLACE_W // 2 + 4)
    y0 = 12 + ry * (PLACE_H + 6)
    return x0, y0, x0 + PLACE_W, y0 + PLACE_H


def action_regions(s: Any) -> dict[int, tuple[int, int, int, int]]:
    """Where on the picture each legal action points: each ``buy at Pk`` at its place (a clickable picture's
    targets)."""
    codec = s.game.codec
    if s.terminal:
        return {}
    mask = s.legal_mask()
    return {a: place_box(sl) for sl in range(NUM_SLOTS) if mask[a := codec.encode(A.MAIN, sl)]}


def render_rgb(s: Any, viewer: int | None = None) -> np.ndarray:
    """The main island as a 2-3-3-2 grid of places with their tokens, the beach with cove, docks and
    sequence track, and one board per player (villages as coloured tiles, Tikis above, Kahunas left); with
    ``viewer``, what that player may know (other players' resources drawn as ``?`` when the option
    ``resources_public`` is off)."""
    from PIL import Image, ImageDraw

    g = s.game
    n = g.num_players
    font = _font()
    W, H = 1000, 330 + 130 * n
    img = Image.new("RGB", (W, H), (250, 246, 230))
    d = ImageDraw.Draw(img)
    # sea and island
    d.rectangle((0, 0, 560, 330), fill=(120, 190, 230))
    d.ellipse((10, 5, 550, 300), fill=(130, 180, 90))
    pw = PLACE_W
    for sl in range(NUM_SLOTS):
        x0, y0, _, _ = place_box(sl)
        ph = PLACE_H
        pl = s.slot_place[sl]
        d.rectangle((x0, y0, x0 + pw, y0 + ph), fill=(235, 215, 160), outline=(90, 60, 30), width=2)
        d.text((x0 + 4, y0 + 2), f"P{sl + 1} {PLACE_NAMES[pl][:10]}", fill=(40, 30, 20), font=font)
        if pl == GODS_PLACE:
            offer = "/".join(TYPE_SHORT[st[-1]] for st in s.god_stacks if st)
        else:
            offer = " ".join(f"{TYPE_SHORT[t]}{s.supply[t]}" for t in PLACE_OFFERS[pl])
        d.text((x0 + 4, y0 + 16), offer[:17], fill=(60, 40, 20), font=font)
        for c in range(PLACE_CIRCLES[pl]):
            cx0 = x0 + 8 + c * 30
            cy0 = y0 + 32
            d.ellipse((cx0, cy0, cx0 + 22, cy0 + 22), outline=(80, 50, 20), width=2,
                      fill=(255, 255, 255) if c == 0 else (245, 240, 225))
            t = s.circles[sl][c]
            if t >= 0:
                col = (170, 40, 40) if s.game.token_spear[t] else (30, 30, 30)
                d.text((cx0 + 7, cy0 + 4), str(TOKEN_VALUE[t]), fill=col, font=font)
            elif c == 0:
                d.text((cx0 + 3, cy0 + 4), str(PLACE_PRINTED[pl]), fill=(180, 180, 180), font=font)
        for p in range(n):
            if s.loc[p] == sl:
                px = x0 + pw - 14 - p * 12
                d.ellipse((px, y0 + 36, px + 10, y0 + 50), fill=PLAYER_COLORS[p], outline=(0, 0, 0))
    # beach
    d.rectangle((0, 270, 560, 330), fill=(240, 220, 160))
    d.text((8, 274), "cove:", fill=(0, 0, 0), font=font)
    for i, t in enumerate(s.cove[:10]):
        d.ellipse((50 + i * 20, 274, 66 + i * 20, 290), fill=(80, 140, 200))
        d.text((55 + i * 20, 275), str(s.game.token_fish[t]), fill=(255, 255, 255), font=font)
    o = g.options
    for dk in range(NUM_DOCKS):
        x0 = 270 + dk * 70
        isl = s.docks[dk]
        d.rectangle((x0, 272, x0 + 64, 300), fill=(90, 170, 90) if isl >= 0 else (200, 200, 200),
                    outline=(60, 40, 20))
        label = ISLAND_KIND_NAMES[ISLAND_KIND[isl]][:9] if isl >= 0 else "-"
        d.text((x0 + 2, 273), f"D{dk + 1} {o['dock_cost'][dk]}f{o['dock_vp'][dk]}v", fill=(0, 0, 0), font=font)
        d.text((x0 + 2, 286), label, fill=(0, 0, 0), font=font)
    d.text((8, 306), "sequence:", fill=(0, 0, 0), font=font)
    for i in range(g.pass_spaces):
        x0 = 80 + i * 60
        d.rectangle((x0, 304, x0 + 54, 326), outline=(60, 40, 20), fill=(250, 240, 210))
        t = s.seq[i]
        d.text((x0 + 3, 308), f"{i + 1}:{_tok(s, t) if t >= 0 else '-'}", fill=(0, 0, 0), font=font)
        for p in range(n):
            if s.passed[p] == i:
                d.ellipse((x0 + 40, 308, x0 + 50, 320), fill=PLAYER_COLORS[p])
    # round info
    rnd = s.round
    info = [f"Round {rnd + 1}/5  target {o['round_targets'][rnd]}",
            "turn order: " + " ".join(str(p) for p in s.order)]
    if s.terminal:
        info.append("GAME OVER  winner: " + ", ".join(str(p) for p in s.winners()))
    else:
        info.append(f"player {s.current_player} to decide: {A.PHASE_NAMES[s.phase]}")
    for i, line in enumerate(info):
        d.text((580, 12 + i * 18), line, fill=(0, 0, 0), font=font)
    for p in range(n):
        y = 80 + p * 16
        d.rectangle((580, y, 592, y + 12), fill=PLAYER_COLORS[p])
        r = s.res[p]
        stock = "S? F? R?" if viewer is not None and p != viewer and not o["resources_public"] \
            else f"S{r[0]} F{r[1]} R{r[2]}"
        d.text((598, y), f"P{p}: {s.vp[p]:3d} VP  {stock}  sum {s.round_sum(p)}/{s.target_of(p)}",
               fill=(0, 0, 0), font=font)
    # player boards
    for p in range(n):
        y0 = 340 + p * 130
        d.rectangle((10, y0, W - 10, y0 + 122), fill=(245, 235, 205), outline=PLAYER_COLORS[p], width=3)
        d.text((18, y0 + 4), f"Player {p}", fill=PLAYER_COLORS[p], font=font)
        cell = 22
        bx = 90
        k = o["tiki_space1_column"]
        for ti in range(6):  # Tiki spaces above columns k..k-5
            col = k - 1 - ti
            x = bx + col * cell
            filled = ti < s.tikis[p]
            d.rectangle((x, y0 + 4, x + cell - 2, y0 + 18), fill=(60, 60, 60) if filled else (225, 215, 190),
                        outline=(120, 100, 80))
        for r in range(5):
            y = y0 + 22 + r * 20
            kx = bx - 26
            d.rectangle((kx, y, kx + 18, y + 17), fill=(110, 70, 40) if r < s.kahunas[p] else (225, 215, 190),
                        outline=(120, 100, 80))
            if r < len(s.rows[p]):
                x = bx
                for code in s.rows[p][r]:
                    t = code >> 1
                    w = cell * (o["long_hut_width"] if t == LONG_HUT else 1) - 2
                    d.rectangle((x, y, x + w, y + 17), fill=TYPE_COLORS[t],
                                outline=(0, 0, 0) if code & 1 else (120, 100, 80), width=2 if code & 1 else 1)
                    d.text((x + 2, y + 2), TYPE_SHORT[t], fill=(0, 0, 0), font=font)
                    x += w + 2
        bxs = 520
        d.text((bxs, y0 + 22), "boats:", fill=(0, 0, 0), font=font)
        boats = [(0, s.boat_used[p][0])] + [(b, s.boat_used[p][i + 1]) for i, b in enumerate(s.boats[p])]
        for i, (b, used) in enumerate(boats):
            x = bxs + 50 + i * 34
            d.polygon([(x, y0 + 24), (x + 30, y0 + 24), (x + 24, y0 + 36), (x + 6, y0 + 36)],
                      fill=(150, 150, 150) if used else (150, 100, 50))
            d.text((x + 8, y0 + 24), "F" if b == 0 else ("I" if b == 1 else "II"), fill=(255, 255, 255), font=font)
        toks = " ".join(_tok(s, t) for t in s.held[p]) + " " + " ".join(
            f"{s.game.token_fish[t]}f" for t in s.fished[p])
        d.text((bxs, y0 + 44), f"tokens: {toks}"[:60], fill=(0, 0, 0), font=font)
        d.text((bxs, y0 + 62), f"village VP now: {s.final_village_vp(p)}", fill=(0, 0, 0), font=font)
    return np.asarray(img, dtype=np.uint8).copy()


def observation_string(s: Any, player: int) -> str:
    """Player's view as text: the stacks show only their tops and sizes, and other players'
    resources are hidden when the option ``resources_public`` is off."""
    return f"View of player {player}\n" + render_text(s, viewer=player)


def observation_rgb(s: Any, player: int) -> np.ndarray:
    """Player's view as a picture: :func:`render_rgb` without what the configuration hides from them."""
    return render_rgb(s, viewer=player)
