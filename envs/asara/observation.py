"""Observation encoder of Asara: a flat float32 vector of named blocks.

Egocentric: "players" blocks are padded to 4 seats, the observer first, the
others in turn order.  Perfect-recall quantities that the rules file 14.2 calls
derivable (money, unbuilt sections behind screens, pile compositions) are
included for everyone unless ``human_realistic_obs`` hides others' money and
reserves.  Truly private items appear only in their owner's ``private`` block:
the hand, the suits of one's own face-down cards, (pro) kept lighted windows,
windows one sent to the bottom of the stack, and windows being chosen from.

Blocks (``game.observation_layout`` maps each name to its slice):

==================  ==========================================================
meta                year (4), player count (3), professional (1), phase (9),
                    Caliph holder (4 rel.), this year's start player (4 rel.),
                    turns taken this year (1)
pending             chosen area id (17), build steps left 0..7 (8), plot (7),
                    towers opened in this build per material (5), spies fee
                    paid (1), searched pile (4), chosen cards (20), lit windows
                    left to keep (1)
areas               per area except the 5-Asari building: lead suit or none (6)
                    and face-down pairs laid (1)
spaces              per card space: occupied (1), occupied by me (1)
five                cards on the 5-Asari building (1)
cards_laid          per seat: face-up cards per suit (5), face-down cards (1)
displays            face-up tiles per (type, material, gold) (40)
piles               pile composition per kind (40), pile sizes (4), lit stack (1)
seats               per seat: money, PP, hand size (3)
players             per seat: reserve per kind (40),
                    per material x slot: exists, height, visible gold, lit (4),
                    tower count, max height, max height per material (5),
                    lit windows held (count), seat present
private             own hand per suit (5), own face-down suits (5), own kept lit
                    windows (5), own windows known in the stack (5), lit
                    windows drawn now (5)
belief              unseen cards per suit (5), undealt deck size (1)
==================  ==========================================================
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..core.game import Layout
from . import components as C

if TYPE_CHECKING:
    from .state import AsaraGame, AsaraState

MAX_SEATS = 4
NUM_PHASES = 9
LIMITED_AREAS = tuple(a for a in range(C.NUM_AREAS) if a != C.FIVE)


def player_block_size(slots: int) -> int:
    return C.NUM_KINDS + C.NUM_MATERIALS * slots * 4 + 2 + C.NUM_MATERIALS + 2


def build_layout(game: AsaraGame) -> tuple[dict[str, slice], int]:
    """Slices of every block for this configuration, and attaches the per-value scale vector."""
    L = Layout()
    L.add("meta", 4 + 3 + 1 + NUM_PHASES + 4 + 4 + 1)
    L.add("pending", 17 + 8 + 7 + 5 + 1 + 4 + 20 + 1)
    L.add("seats", 3 * MAX_SEATS)
    L.add("areas", len(LIMITED_AREAS) * 7)
    L.add("spaces", 2 * game.total_spaces)
    L.add("five", 1)
    L.add("cards_laid", MAX_SEATS * 6)
    L.add("displays", C.NUM_KINDS)
    L.add("piles", C.NUM_KINDS + 4 + 1)
    pb = player_block_size(game.slots)
    for i in range(MAX_SEATS):
        L.add(f"player_{i}", pb)
    L.add("private", 25)
    L.add("belief", 6)
    size = L.size
    scale = np.ones(size, dtype=np.float32)
    cps = float(game.cards_per_suit)
    kind_max = float(max(max(game.kind_total), 1))
    sl = L.slices
    scale[sl["meta"].stop - 1] = 1.0 / 30.0
    a = sl["areas"].start
    for i in range(len(LIMITED_AREAS)):
        scale[a + i * 7 + 6] = 1.0 / 4.0
    scale[sl["five"]] = 1.0 / 20.0
    scale[sl["cards_laid"]] = 1.0 / cps
    scale[sl["displays"]] = 1.0 / 6.0
    ps = sl["piles"]
    scale[ps.start: ps.start + C.NUM_KINDS] = 1.0 / kind_max
    scale[ps.start + C.NUM_KINDS: ps.stop - 1] = 1.0 / 25.0
    scale[ps.stop - 1] = 1.0 / 15.0
    ts = C.NUM_KINDS
    for i in range(MAX_SEATS):
        o = sl["seats"].start + 3 * i
        scale[o] = 1.0 / 100.0
        scale[o + 1] = 1.0 / 150.0
        scale[o + 2] = 1.0 / 12.0
        o = sl[f"player_{i}"].start
        scale[o: o + ts] = 1.0 / 4.0
        for j in range(C.NUM_MATERIALS * game.slots):
            scale[o + ts + 4 * j + 1] = 1.0 / C.MAX_HEIGHT_NORM
            scale[o + ts + 4 * j + 2] = 1.0 / 4.0
            scale[o + ts + 4 * j + 3] = 1.0 / 4.0
        t2 = o + ts + C.NUM_MATERIALS * game.slots * 4
        scale[t2] = 1.0 / 10.0
        scale[t2 + 1: t2 + 2 + C.NUM_MATERIALS] = 1.0 / C.MAX_HEIGHT_NORM
        scale[t2 + 2 + C.NUM_MATERIALS] = 1.0 / 6.0
    pr = sl["private"].start
    scale[pr: pr + 10] = 1.0 / cps
    scale[pr + 10: pr + 25] = 1.0 / 3.0
    b = sl["belief"].start
    scale[b: b + 5] = 1.0 / cps
    scale[b + 5] = 1.0 / 45.0
    game._obs_scale_vec = scale
    return dict(sl), size


def encode_reference(s: AsaraState, p: int) -> np.ndarray:
    """Player p's information state, written plainly (the fast :func:`encode` must agree with it)."""
    g = s.game
    n = g.num_players
    lay = g.observation_layout
    v = [0.0] * g.obs_size
    rel = [(q - p) % n for q in range(n)]
    # meta
    o = 0
    v[o + s.year - 1] = 1.0
    v[o + 4 + n - 2] = 1.0
    v[o + 7] = 1.0 if g.pro else 0.0
    if s.phase < NUM_PHASES:
        v[o + 8 + s.phase] = 1.0
    v[o + 17 + rel[s.caliph]] = 1.0
    v[o + 21 + rel[s.start_player]] = 1.0
    v[o + 25] = s.turn_no
    # pending
    o = lay["pending"].start
    if s.p_area >= 0:
        v[o + s.p_area] = 1.0
    v[o + 17 + s.b_left] = 1.0
    if s.phase == 6:  # build: the plot in use
        v[o + 25 + s.p_space - g.area_start[C.CIRCLE]] = 1.0
    for m in range(5):
        v[o + 32 + m] = s.open_[m]
    v[o + 37] = 1.0 if s.p_fee else 0.0
    if s.p_pile >= 0:
        v[o + 38 + s.p_pile] = 1.0
    if s.p_cards >= 0 and s.phase == 2 and s.current_player == p:  # a pair's suits are private
        v[o + 42 + s.p_cards] = 1.0
    v[o + 62] = s.lit_keep_left
    # areas and spaces
    o = lay["areas"].start
    own = s.sp_owner
    card = s.sp_card
    st = g.area_start
    nsp = g.area_spaces
    for i, a in enumerate(LIMITED_AREAS):
        v[o + i * 7 + s.lead[a] + 1] = 1.0
        v[o + i * 7 + 6] = sum(1 for j in range(st[a], st[a] + nsp[a]) if card[j] == 5)
    o = lay["spaces"].start
    for j in range(g.total_spaces):
        if own[j] >= 0:
            v[o + 2 * j] = 1.0
            if own[j] == p:
                v[o + 2 * j + 1] = 1.0
    v[lay["five"].start] = sum(s.five_by)
    o = lay["cards_laid"].start
    for q in range(n):
        b = o + rel[q] * 6
        v[b: b + 5] = s.laid_up[q * 5: q * 5 + 5]
        v[b + 5] = sum(s.laid_down[q * 5: q * 5 + 5])
    o = lay["displays"].start
    v[o: o + C.NUM_KINDS] = s.display
    o = lay["piles"].start
    for t in range(4):
        pile = s.piles[t]
        for x in pile:
            v[o + t * 10 + x] += 1
        v[o + C.NUM_KINDS + t] = len(pile)
    v[o + C.NUM_KINDS + 4] = len(s.lit_stack)
    # players
    hide = g.options["human_realistic_obs"]
    S = g.slots
    ts = C.NUM_KINDS
    tw = s.towers
    for q in range(n):
        b = lay[f"player_{rel[q]}"].start
        sb = lay["seats"].start + 3 * rel[q]
        mine = q == p
        if mine or not hide:
            v[sb] = s.money[q]
            v[b: b + ts] = s.reserve[q * C.NUM_KINDS: (q + 1) * C.NUM_KINDS]
        v[sb + 1] = s.pp[q]
        v[sb + 2] = s.hand_n[q]
        count = 0
        best = 0
        tb = b + ts
        mb = tb + C.NUM_MATERIALS * S * 4 + 2
        for m in range(5):
            bm = 0
            i = (q * 5 + m) * S * 8
            for slot in range(S):
                if tw[i]:
                    h = (tw[i + 1] > 0) + 1 + tw[i + 2] + tw[i + 3] + tw[i + 4] + tw[i + 5] + tw[i + 6] + tw[i + 7]
                    k = tb + (m * S + slot) * 4
                    v[k] = 1.0
                    v[k + 1] = h
                    v[k + 2] = (tw[i] == 2) + (tw[i + 1] == 2) + tw[i + 3] + tw[i + 5]
                    v[k + 3] = tw[i + 6] + tw[i + 7]
                    count += 1
                    if h > bm:
                        bm = h
                i += 8
            v[mb + m] = bm
            if bm > best:
                best = bm
        v[mb - 2] = count
        v[mb - 1] = best
        v[mb + 5] = sum(s.lit_res[q * 5: q * 5 + 5])
        v[mb + 6] = 1.0
    # private
    o = lay["private"].start
    v[o: o + 5] = s.hand[p * 5: p * 5 + 5]
    v[o + 5: o + 10] = s.laid_down[p * 5: p * 5 + 5]
    v[o + 10: o + 15] = s.lit_res[p * 5: p * 5 + 5]
    bit = 1 << p
    for i, m in enumerate(s.lit_stack):
        if s.lit_seen[i] & bit:
            v[o + 15 + m] += 1
    if s.current_player == p:
        for m in s.lit_drawn:
            v[o + 20 + m] += 1
    # belief
    o = lay["belief"].start
    v[o: o + 5] = s.unseen_cards(p)
    v[o + 5] = len(s.deck)
    out = np.array(v, dtype=np.float32)
    out *= g._obs_scale_vec
    np.minimum(out, 1.0, out=out)  # the observation space is the unit box
    return out


# -- fast encoder ------------------------------------------------------------------------------
# Blocks that change only when cards move (``s._oc_cards``) or tiles move (``s._oc_tiles``) are
# cached on the state as scaled float32 arrays; the engine replaces a cache dict (never mutates a
# shared one) when it changes the matching fields, so clones may share caches safely.


def _scaled(values: list, scale: np.ndarray) -> np.ndarray:
    a = np.array(values, dtype=np.float32)
    a *= scale
    np.minimum(a, 1.0, out=a)
    return a


def _areas_block(s: AsaraState, sc: np.ndarray) -> np.ndarray:
    g = s.game
    st = g.area_start
    nsp = g.area_spaces
    card = s.sp_card
    v = [0.0] * (len(LIMITED_AREAS) * 7)
    for i, a in enumerate(LIMITED_AREAS):
        v[i * 7 + s.lead[a] + 1] = 1.0
        v[i * 7 + 6] = card[st[a]: st[a] + nsp[a]].count(5)
    return _scaled(v, sc)


def _tower_block(s: AsaraState, q: int, sc: np.ndarray) -> np.ndarray:
    S = s.game.slots
    tw = s.towers
    v = [0.0] * (C.NUM_MATERIALS * S * 4 + 9)
    count = 0
    best = 0
    mb = C.NUM_MATERIALS * S * 4 + 2
    for m in range(5):
        bm = 0
        i = (q * 5 + m) * S * 8
        for slot in range(S):
            if tw[i]:
                h = (tw[i + 1] > 0) + 1 + tw[i + 2] + tw[i + 3] + tw[i + 4] + tw[i + 5] + tw[i + 6] + tw[i + 7]
                k = (m * S + slot) * 4
                v[k] = 1.0
                v[k + 1] = h
                v[k + 2] = (tw[i] == 2) + (tw[i + 1] == 2) + tw[i + 3] + tw[i + 5]
                v[k + 3] = tw[i + 6] + tw[i + 7]
                count += 1
                if h > bm:
                    bm = h
            i += 8
        v[mb + m] = bm
        if bm > best:
            best = bm
    v[mb - 2] = count
    v[mb - 1] = best
    v[mb + 5] = sum(s.lit_res[q * 5: q * 5 + 5])
    v[mb + 6] = 1.0
    return _scaled(v, sc)


def _head(s: AsaraState, p: int, g: AsaraGame, rel: list[int]) -> np.ndarray:
    """meta + pending (they change at every decision)."""
    n = g.num_players
    v = [0.0] * (26 + 63 + 3 * MAX_SEATS)
    v[s.year - 1] = 1.0
    v[4 + n - 2] = 1.0
    if g.pro:
        v[7] = 1.0
    if s.phase < NUM_PHASES:
        v[8 + s.phase] = 1.0
    v[17 + rel[s.caliph]] = 1.0
    v[21 + rel[s.start_player]] = 1.0
    v[25] = s.turn_no
    o = 26
    if s.p_area >= 0:
        v[o + s.p_area] = 1.0
    v[o + 17 + s.b_left] = 1.0
    if s.phase == 6:
        v[o + 25 + s.p_space - g.area_start[C.CIRCLE]] = 1.0
        v[o + 32: o + 37] = s.open_
    if s.p_fee:
        v[o + 37] = 1.0
    if s.p_pile >= 0:
        v[o + 38 + s.p_pile] = 1.0
    if s.p_cards >= 0 and s.phase == 2 and s.current_player == p:
        v[o + 42 + s.p_cards] = 1.0
    v[o + 62] = s.lit_keep_left
    hide = g.options["human_realistic_obs"]
    o = 26 + 63
    money, pp, hand_n = s.money, s.pp, s.hand_n
    for q in range(n):
        b = o + 3 * rel[q]
        if q == p or not hide:
            v[b] = money[q]
        v[b + 1] = pp[q]
        v[b + 2] = hand_n[q]
    return _scaled(v, g._obs_scale_vec[: 26 + 63 + 3 * MAX_SEATS])


def encode(s: AsaraState, p: int) -> np.ndarray:
    """Player p's information state (see the module docstring for the blocks).

    Built by concatenating cached blocks; the result equals :func:`encode_reference`.
    """
    g = s.game
    n = g.num_players
    lay = g.observation_layout
    sc = g._obs_scale_vec
    rel = [(q - p) % n for q in range(n)]
    pieces = [_head(s, p, g, rel)]
    cc = s._oc_cards
    a = cc.get("board")
    if a is None:
        a = cc["board"] = _areas_block(s, sc[lay["areas"]])
    pieces.append(a)
    key = ("spaces", p)
    a = cc.get(key)
    if a is None:
        own = s.sp_owner
        v = [0.0] * (2 * len(own) + 1)
        for j, o in enumerate(own):
            if o >= 0:
                v[2 * j] = 1.0
                if o == p:
                    v[2 * j + 1] = 1.0
        v[-1] = sum(s.five_by)
        a = cc[key] = _scaled(v, sc[lay["spaces"].start: lay["five"].stop])
    pieces.append(a)
    key = ("laid", p)
    a = cc.get(key)
    if a is None:
        v = [0] * (6 * MAX_SEATS)
        for q in range(n):
            b = rel[q] * 6
            v[b: b + 5] = s.laid_up[q * 5: q * 5 + 5]
            v[b + 5] = sum(s.laid_down[q * 5: q * 5 + 5])
        a = cc[key] = _scaled(v, sc[lay["cards_laid"]])
    pieces.append(a)
    tc = s._oc_tiles
    a = tc.get("dp")
    if a is None:
        v = list(s.display) + [0] * (C.NUM_KINDS + 5)
        o = C.NUM_KINDS
        for t in range(4):
            pile = s.piles[t]
            for x in range(10):
                v[o + t * 10 + x] = pile.count(x)
            v[o + C.NUM_KINDS + t] = len(pile)
        v[-1] = len(s.lit_stack)
        a = tc["dp"] = _scaled(v, sc[lay["displays"].start: lay["piles"].stop])
    pieces.append(a)
    hide = g.options["human_realistic_obs"]
    ts = C.NUM_KINDS
    for i in range(n):
        q = (p + i) % n
        sl = lay[f"player_{i}"]
        b = sl.start
        if q == p or not hide:
            key = ("res", q)
            a = tc.get(key)
            if a is None:
                a = tc[key] = _scaled(s.reserve[q * C.NUM_KINDS: (q + 1) * C.NUM_KINDS], sc[b: b + ts])
            pieces.append(a)
        else:
            pieces.append(np.zeros(C.NUM_KINDS, dtype=np.float32))
        key = ("tw", q)
        a = tc.get(key)
        if a is None:
            a = tc[key] = _tower_block(s, q, sc[b + ts: sl.stop])
        pieces.append(a)
    if n < MAX_SEATS:
        pieces.append(np.zeros(lay["player_3"].stop - lay[f"player_{n}"].start, dtype=np.float32))
    key = ("priv", p)
    a = cc.get(key)
    if a is None:
        v = s.hand[p * 5: p * 5 + 5] + s.laid_down[p * 5: p * 5 + 5] + s.lit_res[p * 5: p * 5 + 5] + [0] * 10
        bit = 1 << p
        for j, m in enumerate(s.lit_stack):
            if s.lit_seen[j] & bit:
                v[15 + m] += 1
        if s.current_player == p:
            for m in s.lit_drawn:
                v[20 + m] += 1
        v += s.unseen_cards(p) + [len(s.deck)]
        a = cc[key] = _scaled(v, sc[lay["private"].start: lay["belief"].stop])
    pieces.append(a)
    return np.concatenate(pieces)
