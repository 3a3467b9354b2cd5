"""Text and picture rendering of Asara.

Both show everything public (markets, lead suits, the building circle, every
player's money, reserve and towers, scores) and the private holdings of one
viewer only: by default the player to move, so a person at a shared screen sees
just their own hand.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..core.render import default_font
from . import components as C
from . import queries as Q
from .actions import PAIRS, area_action_target
from .state import PAIR_CARD, PH_AREA, PH_DONE, PH_MARKET, PH_SPACE, PH_SPY_PILE, PHASE_NAMES

if TYPE_CHECKING:
    from .state import AsaraState


def _kind_str(x: int) -> str:
    """Kind within a type -> 'Rd' or 'Rd*' (gold)."""
    return C.MATERIAL_SHORT[x // 2] + ("*" if x % 2 else "")


def _counts_str(counts: list[int]) -> str:
    parts = []
    for x, c in enumerate(counts):
        if c:
            parts.append(_kind_str(x) + (f"x{c}" if c > 1 else ""))
    return " ".join(parts) or "-"


def _space_str(s: AsaraState, area: int) -> str:
    g = s.game
    st = g.area_start[area]
    out = []
    for i in range(g.area_spaces[area]):
        o, c = s.space_owner[st + i], s.space_card[st + i]
        if o < 0:
            out.append("--")
        else:
            out.append(f"P{o}:" + ("pair" if c == PAIR_CARD else C.SUIT_NAMES[c]))
    return " ".join(out)


def _lead_str(s: AsaraState, area: int) -> str:
    lead = s.lead[area]
    return C.SUIT_NAMES[lead] if lead >= 0 else "none"


def _tower_str(s: AsaraState, m: int, slot: int, rec: list[int]) -> str:
    h = s.tower_height(rec)
    gold = s.tower_gold(rec)
    lit = s.tower_lit(rec)
    extra = (f" gold {gold}" if gold else "") + (f" lit {lit}" if lit else "") + ("" if rec[1] else " OPEN")
    return f"{C.MATERIAL_SHORT[m]}{slot + 1}[h{h}{extra}]"


def _screened(s: AsaraState, viewer: int | None, p: int) -> bool:
    """Whether ``p``'s money and reserve are hidden from ``viewer`` (the option ``human_realistic_obs``)."""
    return viewer is not None and p != viewer and s.game.options["human_realistic_obs"]


def render_text(s: AsaraState, viewer: int | None = None, *, screens: bool = False) -> str:
    """A readable account of the position; private holdings only of ``viewer``; with ``screens``, other
    players' money and reserves hidden from ``viewer`` too where the option ``human_realistic_obs`` hides
    them (the view of :func:`observation_string`)."""
    g = s.game
    n = g.num_players
    behind = [screens and _screened(s, viewer, p) for p in range(n)]
    if viewer is None:
        viewer = s.current_player if s.current_player >= 0 else None
    lines = []
    ver = "professional" if g.pro else "base"
    head = f"Asara ({ver}, {n} players) - year {s.year}/{C.NUM_YEARS}"
    if s.phase == PH_DONE:
        head += " - GAME OVER; winners: " + ", ".join(f"P{p}" for p in s.winners())
    else:
        head += f" - P{s.current_player} to move: {PHASE_NAMES[s.phase]}"
    lines.append(head)
    lines.append(f"Caliph's favour: P{s.caliph}   this year's start player: P{s.start_player}")
    lines.append("Markets (card spaces | lead suit | face-up display | pile size):")
    for t in range(4):
        disp = s.display[t * 10: t * 10 + 10]
        lines.append(f"  {C.TYPES[t]:<7} {_space_str(s, t):<28} lead {_lead_str(s, t):<5} "
                     f"display {_counts_str(disp):<26} pile {len(s.piles[t])}")
    lines.append("  prices: " + ", ".join(f"{C.MATERIALS[m]} {g.price[m]}" for m in range(C.NUM_MATERIALS)))
    lines.append(f"Bank 12/10/8: {_space_str(s, C.BANK)}  lead {_lead_str(s, C.BANK)};  "
                 f"5-Asari building: {sum(s.five_by)} cards")
    lines.append(f"Building circle plots 1-7: {_space_str(s, C.CIRCLE)}  lead {_lead_str(s, C.CIRCLE)}")
    fees = "/".join(str(f) for f in g.spy_fees)
    lines.append(f"House of Spies {fees}: {_space_str(s, C.SPIES)}  lead {_lead_str(s, C.SPIES)};  "
                 f"Caliph space: {_space_str(s, C.CALIPH)}")
    if g.pro:
        rf = "/".join(str(f) for f in g.recruit_fees)
        lines.append(f"Recruit {rf}: {_space_str(s, C.RECRUIT)}  lead {_lead_str(s, C.RECRUIT)};  "
                     f"Lighted windows: {_space_str(s, C.LIT_HOUSE)}  lead {_lead_str(s, C.LIT_HOUSE)}  "
                     f"stack {len(s.lit_stack)}")
    lines.append(f"Undealt deck: {len(s.deck)} cards")
    lines.append("Players:")
    for p in range(n):
        mark = ">" if p == s.current_player else " "
        cal = " (Caliph)" if p == s.caliph else ""
        money = "?" if behind[p] else s.money[p]
        lines.append(f" {mark}P{p}{cal}: PP {s.prestige[p]}  money {money}  hand {s.hand_n[p]} cards"
                     + (f"  lit windows held {sum(Q.lit_reserve(s, p))}" if g.pro else ""))
        res = s.reserve[p * C.NUM_KINDS: (p + 1) * C.NUM_KINDS]
        parts = [f"{C.TYPES[t]} {_counts_str(res[t * 10: t * 10 + 10])}"
                 for t in range(C.NUM_TYPES) if any(res[t * 10: t * 10 + 10])]
        lines.append("     reserve: " + ("hidden" if behind[p] else "; ".join(parts) or "-"))
        towers = [_tower_str(s, m, slot, rec) for m, slot, rec in s.towers_of(p)]
        lines.append("     towers: " + (" ".join(towers) or "-"))
    if viewer is not None:
        h = Q.hand(s, viewer)
        hand = " ".join(f"{C.SUIT_NAMES[x]}x{h[x]}" for x in range(C.NUM_SUITS) if h[x]) or "-"
        down = Q.laid_down(s, viewer)
        ds = " ".join(f"{C.SUIT_NAMES[x]}x{down[x]}" for x in range(C.NUM_SUITS) if down[x]) or "-"
        lines.append(f"Hand of P{viewer}: {hand}   (your face-down cards this year: {ds})")
        if g.pro:
            lit = Q.lit_reserve(s, viewer)
            lines.append("  your lighted windows: "
                         + (" ".join(f"{C.MATERIAL_SHORT[m]}x{k}" for m, k in enumerate(lit) if k) or "-"))
            if s.lit_drawn and viewer == s.current_player:
                lines.append("  drawn, choose to keep: " + " ".join(C.MATERIAL_SHORT[m] for m in s.lit_drawn))
        if s.p_cards >= 0 and viewer == s.current_player:
            c = s.p_cards
            lines.append("  cards chosen: " + (C.SUIT_NAMES[c] if c < C.NUM_SUITS else
                                                "pair " + "+".join(C.SUIT_NAMES[x] for x in PAIRS[c - C.NUM_SUITS])))
    if s.phase == C.Phase.BUILD:
        lines.append(f"Building: {s.b_built} placed, {s.b_left} to go")
    if s.phase == PH_DONE:
        lines.append("Final evaluation: " + ", ".join(f"P{p} +{s.final_pts[p]}" for p in range(n)))
    return "\n".join(lines)


# -- picture ------------------------------------------------------------------------
W, H = 960, 640
BG = (236, 222, 190)
INK = (30, 25, 20)
GOLD = (230, 185, 30)
PLAYER_RGB = ((200, 60, 60), (50, 100, 200), (40, 150, 70), (150, 80, 170))


#: where the areas below the markets start on the picture (x; their labels at y AREAS_Y, spaces 16 below)
AREA_X = {C.BANK: 10, C.CIRCLE: 130, C.SPIES: 310, C.CALIPH: 400, C.RECRUIT: 490, C.LIT_HOUSE: 570}
AREAS_Y = 145
Box = tuple[int, int, int, int]


def market_box(t: int) -> Box:
    """``(x0, y0, x1, y1)`` of market ``t`` (0..3) on the picture of :func:`render_rgb`."""
    x0, y0 = 10 + t * 235, 26
    return x0, y0, x0 + 225, y0 + 110


def area_box(s: AsaraState, area: int) -> Box:
    """An area of the board on the picture: a market, or the label and card spaces of the bank, building
    circle, House of Spies, Caliph (with his token), recruit and lighted-window houses, or the 5-Asari
    building's line."""
    if area < C.NUM_MARKETS:
        return market_box(area)
    if area == C.FIVE:
        return AREA_X[C.BANK], AREAS_Y + 46, AREA_X[C.BANK] + 90, AREAS_Y + 62
    x = AREA_X[area]
    right = 470 if area == C.CALIPH else x + max(s.game.area_spaces[area] * 22 - 4, 60)
    return x, AREAS_Y, right, AREAS_Y + 42


def space_box(s: AsaraState, area: int, i: int) -> Box:
    """Card space ``i`` of ``area`` on the picture."""
    if area < C.NUM_MARKETS:
        x, y = market_box(area)[0] + 5, market_box(area)[1] + 20
    else:
        x, y = AREA_X[area], AREAS_Y + 16
    return x + i * 22, y, x + i * 22 + 18, y + 26


def _display_boxes(s: AsaraState, t: int) -> list[tuple[int, Box]]:
    """The face-up tiles of market ``t`` as drawn: (kind, box) in drawing order."""
    x0, y0, _, _ = market_box(t)
    out = []
    k = 0
    for x in range(10):
        for _ in range(s.display[t * 10 + x]):
            bx, by = x0 + 5 + (k % 8) * 27, y0 + 55 + (k // 8) * 27
            out.append((x, (bx, by, bx + 22, by + 22)))
            k += 1
    return out


def action_regions(s: AsaraState) -> dict[int, Box]:
    """Where on the picture each legal action points (a clickable picture's targets): an area chosen for a
    buyer card at that area (the building circle's 1..7 sections share it), a space chosen at that space, a
    market purchase at a face-up tile of its kind, a House of Spies search at the market whose pile it
    searches. Actions that name no place on the board (cards, building, declining) are left out."""
    if s.is_terminal():
        return {}
    c = s.game.codec
    out: dict[int, Box] = {}
    legal = [int(a) for a in s.legal_actions()]
    if s.phase == PH_AREA:
        for a in legal:
            out[a] = area_box(s, area_action_target(a - c.area)[0])
    elif s.phase == PH_SPACE:
        area = area_action_target(s.p_area)[0]
        for a in legal:
            out[a] = space_box(s, area, a - c.space)
    elif s.phase == PH_MARKET:
        first: dict[int, Box] = {}
        for kind, box in _display_boxes(s, s.p_area):
            first.setdefault(kind, box)
        for a in legal:
            if a - c.market in first:
                out[a] = first[a - c.market]
    elif s.phase == PH_SPY_PILE:
        for a in legal:
            if a - c.spy_pile < C.NUM_MARKETS:
                out[a] = market_box(a - c.spy_pile)
    return out


def render_rgb(s: AsaraState, viewer: int | None = None) -> np.ndarray:
    """Board on top (markets, bank, circle, spies, Caliph), each player's towers below; with ``viewer``,
    other players' money and reserves left out where the option ``human_realistic_obs`` hides them."""
    from PIL import Image, ImageDraw

    g = s.game
    n = g.num_players
    font = default_font()
    img = Image.new("RGB", (W, H), BG)
    d = ImageDraw.Draw(img)
    d.text((10, 6), f"ASARA  year {s.year}/4   " + (f"P{s.current_player} to move" if s.current_player >= 0
                                                     else "game over"), fill=INK, font=font)

    def spaces(x: int, y: int, area: int) -> None:
        st = g.area_start[area]
        for i in range(g.area_spaces[area]):
            o, c = s.space_owner[st + i], s.space_card[st + i]
            box = (x + i * 22, y, x + i * 22 + 18, y + 26)
            if o < 0:
                d.rectangle(box, outline=INK, fill=(250, 245, 230))
            else:
                fill = (90, 70, 60) if c == PAIR_CARD else C.SUIT_RGB[c]
                d.rectangle(box, outline=PLAYER_RGB[o], fill=fill, width=3)

    # markets
    for t in range(4):
        x0, y0, _, _ = market_box(t)
        d.rectangle((x0, y0, x0 + 225, y0 + 110), outline=INK, fill=(245, 235, 210))
        d.text((x0 + 5, y0 + 3), f"{C.TYPES[t]} market  pile {len(s.piles[t])}", fill=INK, font=font)
        spaces(x0 + 5, y0 + 20, t)
        for x, box in _display_boxes(s, t):
            d.rectangle(box, fill=C.MATERIAL_RGB[x // 2], outline=GOLD if x % 2 else INK, width=3 if x % 2 else 1)
    # bank, circle, spies, caliph (+ pro areas)
    y1 = AREAS_Y
    ax = AREA_X
    d.text((ax[C.BANK], y1), "Bank 12/10/8", fill=INK, font=font)
    spaces(ax[C.BANK], y1 + 16, C.BANK)
    d.text((ax[C.BANK], y1 + 48), f"5 Asari: {sum(s.five_by)}", fill=INK, font=font)
    d.text((ax[C.CIRCLE], y1), "Building circle 1-7", fill=INK, font=font)
    spaces(ax[C.CIRCLE], y1 + 16, C.CIRCLE)
    d.text((ax[C.SPIES], y1), "Spies " + "/".join(map(str, g.spy_fees)), fill=INK, font=font)
    spaces(ax[C.SPIES], y1 + 16, C.SPIES)
    d.text((ax[C.CALIPH], y1), "Caliph", fill=INK, font=font)
    spaces(ax[C.CALIPH], y1 + 16, C.CALIPH)
    d.ellipse((440, y1 + 14, 470, y1 + 44), fill=PLAYER_RGB[s.caliph], outline=GOLD, width=3)
    if g.pro:
        d.text((ax[C.RECRUIT], y1), "Recruit", fill=INK, font=font)
        spaces(ax[C.RECRUIT], y1 + 16, C.RECRUIT)
        d.text((ax[C.LIT_HOUSE], y1), f"Lit windows ({len(s.lit_stack)})", fill=INK, font=font)
        spaces(ax[C.LIT_HOUSE], y1 + 16, C.LIT_HOUSE)
    # players
    pw = W // n
    top = 215
    for p in range(n):
        x0 = p * pw + 5
        d.rectangle((x0, top, x0 + pw - 10, H - 8), outline=PLAYER_RGB[p], width=3, fill=(250, 242, 225))
        behind = _screened(s, viewer, p)
        d.text((x0 + 6, top + 4), f"P{p}  PP {s.prestige[p]}  money {'?' if behind else s.money[p]}  "
                                  f"cards {s.hand_n[p]}", fill=INK, font=font)
        res = s.reserve[p * C.NUM_KINDS: (p + 1) * C.NUM_KINDS] if not behind else [0] * C.NUM_KINDS
        k = 0
        for kind in range(C.NUM_KINDS):
            for _ in range(res[kind]):
                bx, by = x0 + 6 + (k % 16) * 14, top + 22 + (k // 16) * 14
                d.rectangle((bx, by, bx + 11, by + 11), fill=C.MATERIAL_RGB[(kind % 10) // 2],
                            outline=GOLD if kind % 2 else INK)
                k += 1
        ground = H - 20
        tx = x0 + 8
        for m, _slot, rec in s.towers_of(p):
            h = s.tower_height(rec)
            col = C.MATERIAL_RGB[m]
            sec = 18
            y = ground
            order = ([rec[C.T_BASE] == C.GOLD_CODE] + [False] * rec[C.T_TRUNK_P] + [True] * rec[C.T_TRUNK_G]
                     + ["w"] * rec[C.T_WIN_P] + ["wg"] * rec[C.T_WIN_G] + ["l"] * s.tower_lit(rec)
                     + ([rec[C.T_TURRET] == C.GOLD_CODE] if rec[C.T_TURRET] else []))
            for j, part in enumerate(order):
                top_y = y - sec
                if j == len(order) - 1 and rec[1]:
                    d.polygon([(tx, y), (tx + 20, y), (tx + 10, y - 26)], fill=col, outline=GOLD if part else INK)
                else:
                    d.rectangle((tx, top_y, tx + 20, y), fill=col, outline=INK)
                    if part is True or part == "wg":
                        d.rectangle((tx + 2, top_y + 2, tx + 18, top_y + 5), fill=GOLD)
                    if part in ("w", "wg", "l"):
                        d.rectangle((tx + 7, top_y + 6, tx + 13, top_y + 14),
                                    fill=(255, 230, 80) if part == "l" else (110, 160, 215))
                y = top_y
            d.text((tx + 4, ground + 2), str(h), fill=INK, font=font)
            tx += 26
            if tx > x0 + pw - 30:
                break
    return np.asarray(img, dtype=np.uint8).copy()


def observation_string(s: AsaraState, player: int) -> str:
    """Player's view as text: the public board and only this player's hand and face-down cards (and, with
    ``human_realistic_obs``, only this player's money and reserve)."""
    return f"View of P{player}\n" + render_text(s, viewer=player, screens=True)


def observation_rgb(s: AsaraState, player: int) -> np.ndarray:
    """Player's view as a picture: :func:`render_rgb` without what the configuration hides from them."""
    return render_rgb(s, viewer=player)
