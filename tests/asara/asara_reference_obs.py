"""A plain, loop-by-loop Asara observation encoder: the oracle the fast cached encoder is checked against."""

from __future__ import annotations

import numpy as np

from meeplezoo.envs.asara import components as C
from meeplezoo.envs.asara.observation import LIMITED_AREAS, NUM_PHASES
from meeplezoo.envs.asara.state import AsaraState


def encode_reference(s: AsaraState, p: int) -> np.ndarray:
    """Player p's information state, written plainly (the fast :func:`encode` must agree with it)."""
    g = s.game
    n = g.num_players
    lay = g.observation_layout
    v = [0.0] * g.observation_shape[0]
    counts: list[tuple[int, int, float]] = []  # (index, count, scale): counts without a small fixed maximum
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
    counts.append((o + 25, s.turn_no, 30))
    # pending
    o = lay["pending"].start
    if s.p_area >= 0:
        v[o + s.p_area] = 1.0
    v[o + 17 + s.b_left] = 1.0
    if s.phase == C.Phase.BUILD:  # build: the plot in use
        v[o + 25 + s.p_space - g.area_start[C.CIRCLE]] = 1.0
    for m in range(5):
        v[o + 32 + m] = s.open_[m]
    v[o + 37] = 1.0 if s.p_fee else 0.0
    if s.p_pile >= 0:
        v[o + 38 + s.p_pile] = 1.0
    if s.p_cards >= 0 and s.phase == C.Phase.SPACE and s.current_player == p:  # a pair's suits are private
        v[o + 42 + s.p_cards] = 1.0
    v[o + 62] = s.lit_keep_left
    # areas and spaces
    o = lay["areas"].start
    own = s.space_owner
    card = s.space_card
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
            counts.append((sb, s.money[q], 100))
            v[b: b + ts] = s.reserve[q * C.NUM_KINDS: (q + 1) * C.NUM_KINDS]
        counts += [(sb + 1, s.prestige[q], 150), (sb + 2, s.hand_n[q], 12)]
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
        counts.append((mb - 2, count, 10))
        v[mb - 1] = best
        counts.append((mb + 5, sum(s.lit_res[q * 5: q * 5 + 5]), 6))
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
    out *= g.observer.scale
    np.minimum(out, 1.0, out=out)  # the observation space is the unit box
    for i, x, cap in counts:  # x / cap below cap, 1 - 1 / (x + 1) from cap on: never clipped
        out[i] = x / cap if x < cap else 1.0 - 1.0 / (x + 1.0)
    return out
