"""Text and picture rendering of a Haus der Sonne position.

The text lists the ring of six segments (boat, beach discs, bays, meadow,
forest, mountain fields with statues and shamans, crater chips), then the
hands, the scoring board and the scores.  The picture draws the round island
from above: six pie segments with beach, meadow, forest and mountain rings,
the crater in the middle, the cards in the bays around it and the boat.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from ..core.render import default_font
from . import components as C
from . import queries as Q

if TYPE_CHECKING:
    from .state import HausDerSonneState

PLAYER_COLOURS = ("red", "yellow")
PHASE_TEXT = ("choose a main action", "move the shaman", "pick a card", "move a lava chip (priestess)",
              "buy with shells", "buy before the scoring", "game over")


def _discs(state: HausDerSonneState, p: int, seg: int) -> list[int]:
    return Q.discs_on_segment(state, p, seg)


def _field_text(state: HausDerSonneState, f: int) -> str:
    o = state.statue[f]
    t = "." if o < 0 else f"S{o}"
    for p in (0, 1):
        if state.shaman[p] == f:
            t += f"@{p}"
    return t


def _hand_text(state: HausDerSonneState, p: int) -> str:
    h = state.hand[p]
    parts = [f"{h[f]}x{C.FACE_SHORT[f]}" for f in C.KEPT_FACES if h[f]]
    return " ".join(parts) if parts else "-"


def render_text(state: HausDerSonneState) -> str:
    """A readable description of the whole position."""
    g = state.game
    lines = [
        f"Haus der Sonne ({g.options['variant']})  round {state.round}  turn {state.turn}  "
        f"start player P{state.start_player}",
    ]
    if state.is_terminal():
        w = state.winners()
        lines.append(f"GAME OVER  scores P0 {state.score[0]} : P1 {state.score[1]}  winner P{w[0]}")
    else:
        where = f", cards handed out at segment {state.land}" if state.land >= 0 else ""
        where += ", scoring under way" if state.trigger >= 0 else ""
        lines.append(f"P{state.current_player} to {PHASE_TEXT[state.phase]} (turn of P{state.active}{where})")
    lines.append("seg boat beach discs P0 | P1      bays          meadow   forest   mountain crater")
    for s in range(C.NUM_SEGMENTS):
        boat = "BOAT" if state.boat == s else "    "
        d0 = "+".join(map(str, _discs(state, 0, s))) or "-"
        d1 = "+".join(map(str, _discs(state, 1, s))) or "-"
        for p in (0, 1):
            if state.lava_disc[p] == s and g.tactical:
                if p == 0:
                    d0 += "+L"
                else:
                    d1 += "+L"
        beach = f"{d0}={Q.beach_sum(state, 0, s)} | {d1}={Q.beach_sum(state, 1, s)}"
        village = "".join(f"@{p}" for p in (0, 1) if state.shaman[p] == C.BEACH_NODE0 + s)
        bays = " ".join((C.FACE_SHORT[b] if b >= 0 else "--").ljust(4) for b in Q.bay_pair(state, s))
        fields = " ".join(_field_text(state, C.field_id(lv, s)).ljust(8) for lv in (1, 2, 3))
        chips = "*" * state.crater[s] or "."
        lines.append(f" {s}  {boat} {(beach + village).ljust(20)} {bays.ljust(13)} {fields} {chips}")
    lines.append(f"lava chips in supply: {state.chips_in_supply()}   piles: " + ", ".join(
        f"{d + 1}-palm {len(p)}" for d, p in enumerate(state.piles)))
    for p in (0, 1):
        sc = [C.SCORING_CARD_SHORT[i] for i in range(C.NUM_SCORING_CARDS) if state.sc_owner[i] == p]
        supply = Q.discs_in_supply(state, p)
        lines.append(
            f"P{p} ({PLAYER_COLOURS[p]}): score {state.score[p]}  discs {supply or '-'}  statues left "
            f"{state.statues_in_supply(p)}  hand {_hand_text(state, p)}  scoring cards {sc or '-'}"
        )
    board = [C.SCORING_CARD_SHORT[i] for i in range(C.NUM_SCORING_CARDS) if state.sc_owner[i] < 0]
    if state.priestess_available:
        board.append("priestess")
    lines.append("scoring board: " + (", ".join(board) or "-"))
    for rnd, *_, pts in state.scorings:
        lines.append(f"scoring {rnd}: P0 +{pts[0]}, P1 +{pts[1]}")
    lines.append("fields: S<p> statue of player p, @<p> shaman of player p, * lava chip, card* = butterfly")
    return "\n".join(lines)


# -- picture ---------------------------------------------------------------------------
W = H = 640
CX, CY = W // 2, H // 2 - 22
RINGS = ((230, (233, 214, 160)), (190, (126, 186, 92)), (145, (46, 120, 60)), (100, (130, 110, 96)),
         (52, (80, 40, 30)))  # outer radius, colour: beach, meadow, forest, mountain, crater
FIELD_R = (210, 167, 122, 76)  # radius of beach spot, meadow, forest, mountain field centres
SEA = (70, 130, 190)
P_RGB = ((210, 40, 40), (240, 200, 30))
FACE_RGB = ((150, 150, 150), (200, 90, 160), (240, 230, 210), (90, 160, 220), (250, 250, 250), (40, 40, 40),
            (230, 150, 60), (255, 80, 0))


def _angle(seg: float) -> float:
    """Centre angle of a segment, clockwise from the top."""
    return math.radians(-90 + 60 * seg + 30)


def _pt(r: float, seg: float) -> tuple[float, float]:
    a = _angle(seg)
    return CX + r * math.cos(a), CY + r * math.sin(a)


@lru_cache(maxsize=1)
def _island():  # noqa: ANN202 - PIL image
    """The board without pieces (sea, rings, segment borders, building fields), drawn once."""
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (W, H), SEA)
    dr = ImageDraw.Draw(img)
    for r, col in RINGS:
        dr.ellipse((CX - r, CY - r, CX + r, CY + r), fill=col, outline=(60, 50, 40))
    for s in range(C.NUM_SEGMENTS):  # segment borders
        a = math.radians(-90 + 60 * s)
        dr.line((CX + 52 * math.cos(a), CY + 52 * math.sin(a), CX + 230 * math.cos(a), CY + 230 * math.sin(a)),
                fill=(60, 50, 40), width=2)
    for f in range(C.NUM_FIELDS):
        x, y = _pt(FIELD_R[C.FIELD_LEVEL[f]], C.FIELD_SEGMENT[f])
        dr.ellipse((x - 15, y - 15, x + 15, y + 15), fill=(215, 205, 170), outline=(40, 30, 20))
    return img


Box = tuple[int, int, int, int]


def _square(x: float, y: float, half_w: float, half_h: float | None = None) -> Box:
    half_h = half_w if half_h is None else half_h
    return round(x - half_w), round(y - half_h), round(x + half_w), round(y + half_h)


def field_box(field: int) -> Box:
    """``(x0, y0, x1, y1)`` of building field ``field`` (0..17) on the picture of :func:`render_rgb`."""
    return _square(*_pt(FIELD_R[C.FIELD_LEVEL[field]], C.FIELD_SEGMENT[field]), 15)


def bay_box(segment: int, k: int) -> Box:
    """The card of bay ``k`` (0 or 1) of ``segment`` on the picture."""
    return _square(*_pt(268, segment + (k - 0.5) * 0.28), 16, 20)


def beach_box(segment: int) -> Box:
    """The beach of ``segment`` where both players' discs lie (inside the segment's beach ring)."""
    return _square(*_pt(211, segment), 24)


def _disc_pos(state: HausDerSonneState, p: int, s: int, i: int, n: int) -> tuple[float, float]:
    """Centre of the ``i``-th of ``n`` discs of player ``p`` on the beach of segment ``s``."""
    return _pt(203 + 16 * p, s + (i - (n - 1) / 2) * 0.1)


def crater_box(segment: int) -> Box:
    """The lava chips in the crater part of ``segment``."""
    x, y = _pt(32, segment)
    return round(x - 9), round(y - 14), round(x + 9), round(y + 8)


def boat_box(state: HausDerSonneState) -> Box:
    bx, by = _pt(240, state.boat)
    return round(bx - 17), round(by - 19), round(bx + 17), round(by + 9)


def action_regions(state: HausDerSonneState) -> dict[int, Box]:
    """Where on the picture each legal action points (a clickable picture's targets): a disc placed on a
    beach at that beach (every disc value shares it), a disc taken back at that disc, the lava disc placed
    with a disc at the boat, the shaman's move at its field, a pick at the bay's card, the priestess at the
    crater chips she moves (both directions share them). Actions that name no place are left out."""
    from . import actions as A

    if state.is_terminal():
        return {}
    p = state.current_player
    out: dict[int, Box] = {}
    for a in state.legal_actions():
        a = int(a)
        act = A.decode(a)
        if act.kind == "place":
            out[a] = beach_box(act.b)
        elif act.kind == "place_lava":
            out[a] = boat_box(state)
        elif act.kind == "take_back":
            seg = state.disc[p * C.NUM_DISCS + act.a - 1]
            if 0 <= seg < C.NUM_SEGMENTS:
                vals = _discs(state, p, seg)
                if state.game.tactical and state.lava_disc[p] == seg:
                    vals = vals + ["L"]
                out[a] = _square(*_disc_pos(state, p, seg, vals.index(act.a), len(vals)), 8)
        elif act.kind == "shaman_to":
            out[a] = field_box(act.a)
        elif act.kind == "pick" and state.land >= 0:
            out[a] = bay_box(state.land, act.a)
        elif act.kind == "priestess":
            out[a] = crater_box(act.a)
    return out


def render_rgb(state: HausDerSonneState) -> np.ndarray:
    """The island from above as uint8 (H, W, 3); the same state always gives the same picture."""
    from PIL import ImageDraw

    font = default_font()
    img = _island().copy()
    dr = ImageDraw.Draw(img)
    for f in range(C.NUM_FIELDS):  # statues
        o = state.statue[f]
        if o >= 0:
            x, y = _pt(FIELD_R[C.FIELD_LEVEL[f]], C.FIELD_SEGMENT[f])
            dr.polygon([(x - 8, y + 10), (x + 8, y + 10), (x + 5, y - 12), (x - 5, y - 12)], fill=P_RGB[o],
                       outline=(0, 0, 0))
    for p in (0, 1):
        n = state.shaman[p]
        if n >= C.NUM_FIELDS:
            x, y = _pt(FIELD_R[0] + 8, n - C.BEACH_NODE0)
            x += -12 if p == 0 else 12
        else:
            x, y = _pt(FIELD_R[C.FIELD_LEVEL[n]], C.FIELD_SEGMENT[n])
            x, y = x + 9, y - 9
        dr.ellipse((x - 7, y - 7, x + 7, y + 7), fill=P_RGB[p], outline=(0, 0, 0), width=2)
        dr.ellipse((x - 3, y - 12, x + 3, y - 6), fill=P_RGB[p], outline=(0, 0, 0))
    # crater chips
    for s in range(C.NUM_SEGMENTS):
        for i in range(state.crater[s]):
            x, y = _pt(32, s)
            dr.ellipse((x - 7, y - 4 - 4 * i, x + 7, y + 4 - 4 * i), fill=(255, 110, 0), outline=(90, 20, 0))
    # beach discs: P0 inside, P1 outside
    for s in range(C.NUM_SEGMENTS):
        for p in (0, 1):
            vals = _discs(state, p, s)
            if state.game.tactical and state.lava_disc[p] == s:
                vals = vals + ["L"]
            for i, v in enumerate(vals):
                x, y = _disc_pos(state, p, s, i, len(vals))
                dr.ellipse((x - 7, y - 7, x + 7, y + 7), fill=P_RGB[p], outline=(0, 0, 0))
                dr.text((x - 3, y - 7), str(v), fill=(0, 0, 0), font=font)
    # bays with cards, the boat
    for s in range(C.NUM_SEGMENTS):
        for k in (0, 1):
            x, y = _pt(268, s + (k - 0.5) * 0.28)
            f = Q.bay(state, s, k)
            if f < 0:
                dr.rectangle((x - 16, y - 20, x + 16, y + 20), outline=(200, 220, 240))
                continue
            t = C.FACE_TYPE[f]
            dr.rectangle((x - 16, y - 20, x + 16, y + 20), fill=FACE_RGB[t], outline=(20, 20, 20))
            ink = (255, 255, 255) if t == C.FaceType.BLACK else (0, 0, 0)
            dr.text((x - 12, y - 8), C.FACE_SHORT[f][:3], fill=ink, font=font)
            if C.FACE_BUTTERFLY[f]:
                dr.polygon([(x, y + 10), (x - 7, y + 5), (x - 7, y + 16), (x, y + 12), (x + 7, y + 16),
                            (x + 7, y + 5)], fill=(120, 60, 200))
        x, y = _pt(300, s)
        dr.text((x - 4, y - 7), str(s), fill=(255, 255, 255), font=font)
    bx, by = _pt(240, state.boat)
    dr.polygon([(bx - 16, by - 2), (bx + 16, by - 2), (bx + 10, by + 8), (bx - 10, by + 8)], fill=(255, 255, 255),
               outline=(0, 0, 0))
    dr.line((bx, by - 2, bx, by - 18), fill=(0, 0, 0), width=2)
    # status line
    status = (f"round {state.round}  P0 {state.score[0]} : P1 {state.score[1]}  "
              + ("game over" if state.is_terminal() else f"P{state.current_player}: "
                 f"{PHASE_TEXT[state.phase]}"))
    dr.rectangle((0, H - 44, W, H), fill=(20, 40, 70))
    dr.text((8, H - 40), status, fill=(255, 255, 255), font=font)
    for p in (0, 1):  # open cards and scoring cards of each player
        cards = _hand_text(state, p)
        sc = "+".join(C.SCORING_CARD_SHORT[i] for i in range(C.NUM_SCORING_CARDS) if state.sc_owner[i] == p)
        dr.text((8 + 316 * p, H - 21), f"P{p}: {cards}{' | ' + sc if sc else ''}"[:44], fill=P_RGB[p], font=font)
    return np.asarray(img, dtype=np.uint8).copy()


def observation_string(state: HausDerSonneState, player: int) -> str:
    """Player's view as text: everything is public but the order of the palm piles (shown by size)."""
    return f"View of P{player} ({PLAYER_COLOURS[player]})\n" + render_text(state)
