"""Hawaii observation: a flat float32 vector of named blocks, egocentric (rules file §17.3).

Blocks (``game.observation_layout[name]`` is the slice):

* ``round`` (5) one-hot; ``phase`` (11) decision type one-hot (actions.PHASE_NAMES);
* ``context`` (68): the turn in progress - kind (buy/fish/island), chosen slot, circle, tile type,
  side, row, move cost/4, price/12, payment amount/12, payment type (shells/feet), fruit units of
  the payment's first step/12, fish tokens chosen/10, boat-trip units/12, boats launched (9),
  dock (4), usable exchange huts (side I, side II)/5;
* ``indicators`` (30): for each round target/20, VP 1st/2nd/reached /15, base shells, feet /10;
* ``places`` (10 slots x 49): place kind one-hot (13), for each of 3 circles (exists, printed
  number/12, token present, value one-hot 2..6, spear), supply of the offered tile types (up to 4,
  normalised), chieftains present (5, egocentric);
* ``supply`` (22) tiles left / initial; ``god_tops`` (2 x 7): each stack's visible god or empty;
  ``gods_left`` (6) each god's tiles not yet bought (public multiset);
* ``cove`` (3) fish tokens with 1, 2, 3 fish /5; ``docks`` (4 x 12): empty, island kind one-hot (9),
  cost/6, VP/5; ``island_stack`` (10): face-down count/10, face-up islands per kind;
* ``sequence`` (5 x 12): token present, value one-hot, spear, occupant (egocentric seat one-hot 5);
* ``bag`` (11): tokens in the bag by (value, spear)/5 and total/25;
* ``players`` (5 x 174, the observer first, then the others in turn order of seats): VP/150,
  shells, feet, fruit /30 (zero for others when ``resources_public`` is false), round sum/30,
  target/20, ended-round flag, sequence space one-hot (5), turn-order position one-hot (5),
  chieftain location one-hot (beach + 10 slots), five villages x (22 tile types: 0.5 side I, 1 side
  II; columns/15; scored-now flag; exists), Kahunas/5, Tikis/6, boats (I, II, unused I, unused II,
  fishing boat unused), usable exchange huts (2), surfer reduction/10, income preview (3)/20,
  village VP if the game ended now/100, spear VP per spear token/4, gods owned by side (6)/2.

Hidden from everybody: god tiles below the two visible tops, the order of the face-down island
stack; these never enter the vector.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.game import Layout
from . import actions as A
from .components import (
    FRUIT,
    GOD_TYPES,
    GODS_PLACE,
    ISLAND_KIND,
    KU,
    NUM_DOCKS,
    NUM_PLACE_KINDS,
    NUM_ROWS,
    NUM_SLOTS,
    NUM_TYPES,
    PLACE_CIRCLES,
    PLACE_OFFERS,
    PLACE_PRINTED,
    SEQ_SPACES,
    SUPPLY,
    TOKEN_FISH,
    TOKEN_SPEAR,
    TOKEN_VALUE,
)

MAX_P = 5
CONTEXT = 68
SLOT_W = NUM_PLACE_KINDS + 3 * 9 + 4 + MAX_P
ROW_W = NUM_TYPES + 3
PLAYER_W = 6 + 1 + 5 + 5 + 11 + NUM_ROWS * ROW_W + 2 + 5 + 2 + 1 + 3 + 1 + 1 + 6
SUPPLY_INIT = np.array([max(SUPPLY.get(t, 1), 1) for t in range(NUM_TYPES)], dtype=np.float32)


def build_layout(game: Any) -> tuple[dict[str, slice], int]:
    lay = Layout()
    lay.add("round", 5)
    lay.add("phase", A.NUM_PHASES)
    lay.add("context", CONTEXT)
    lay.add("indicators", 30)
    lay.add("places", NUM_SLOTS * SLOT_W)
    lay.add("supply", NUM_TYPES)
    lay.add("god_tops", 14)
    lay.add("gods_left", 6)
    lay.add("cove", 3)
    lay.add("docks", NUM_DOCKS * 12)
    lay.add("island_stack", 10)
    lay.add("sequence", SEQ_SPACES * 12)
    lay.add("bag", 11)
    lay.add("players", MAX_P * PLAYER_W)
    return dict(lay.slices), lay.size


def _static_block(game: Any) -> np.ndarray:
    """Round indicators (fixed for a configuration)."""
    o = game.options
    out = np.zeros(30, dtype=np.float32)
    for r in range(5):
        inc = o["base_income"][r] if r < len(o["base_income"]) else (0, 0)
        v = o["round_vp"][r]
        out[r * 6:(r + 1) * 6] = (o["round_targets"][r] / 20, v[0] / 15, v[1] / 15, v[2] / 15, inc[0] / 10,
                                  inc[1] / 10)
    return out


def encode(s: Any, player: int) -> np.ndarray:
    """Player ``player``'s information state."""
    g = s.game
    lay = g.observation_layout
    o = np.zeros(g.obs_size, dtype=np.float32)
    n = g.num_players
    seat = [(p - player) % n for p in range(n)]  # egocentric index of each seat
    o[lay["round"].start + s.round] = 1.0
    if not s.terminal:
        o[lay["phase"].start + s.phase] = 1.0
    # -- context of the turn in progress
    c = lay["context"].start
    if s.kind:
        o[c + s.kind - 1] = 1.0
    if s.c_slot >= 0:
        o[c + 3 + s.c_slot] = 1.0
    if s.c_circle >= 0:
        o[c + 13 + s.c_circle] = 1.0
    if s.c_tile >= 0:
        o[c + 16 + s.c_tile] = 1.0
    if s.c_side:
        o[c + 38 + s.c_side - 1] = 1.0
    if s.c_row >= 0:
        o[c + 40 + s.c_row] = 1.0
    o[c + 45] = s.c_move / 4
    o[c + 46] = s.c_price / 12
    if s.payments:
        x, rt = s.payments[0]
        o[c + 47] = x / 12
        o[c + 48 + rt] = 1.0
    o[c + 50] = s.pay_nf / 12
    o[c + 51] = s.c_fish / 10
    o[c + 52] = s.c_cost / 12
    for b in s.boats_sel:
        o[c + 53 + b] = 1.0
    if s.c_dock >= 0:
        o[c + 62 + s.c_dock] = 1.0
    if not s.terminal:
        a1, a2 = s.huts_free(s.current_player)
        o[c + 66] = a1 / 5
        o[c + 67] = a2 / 5
    st = getattr(g, "_obs_static", None)
    if st is None:
        st = g._obs_static = _static_block(g)
    o[lay["indicators"]] = st
    # -- main island
    base = lay["places"].start
    for sl in range(NUM_SLOTS):
        b = base + sl * SLOT_W
        pl = s.slot_place[sl]
        o[b + pl] = 1.0
        b2 = b + NUM_PLACE_KINDS
        nc = PLACE_CIRCLES[pl]
        circ = s.circles[sl]
        for ci in range(nc):
            cb = b2 + ci * 9
            o[cb] = 1.0
            if ci == 0:
                o[cb + 1] = PLACE_PRINTED[pl] / 12
            t = circ[ci]
            if t >= 0:
                o[cb + 2] = 1.0
                o[cb + 3 + TOKEN_VALUE[t] - 2] = 1.0
                if TOKEN_SPEAR[t]:
                    o[cb + 8] = 1.0
        b3 = b2 + 27
        if pl == GODS_PLACE:
            o[b3] = (len(s.god_stacks[0]) + len(s.god_stacks[1])) / 12
        else:
            for k, t in enumerate(PLACE_OFFERS[pl][:4]):
                o[b3 + k] = s.supply[t] / SUPPLY_INIT[t]
    cb = base + NUM_PLACE_KINDS + 27 + 4
    for p in range(n):
        loc = s.loc[p]
        if loc >= 0:
            o[cb + loc * SLOT_W + seat[p]] = 1.0
    o[lay["supply"]] = np.asarray(s.supply, dtype=np.float32) / SUPPLY_INIT
    gt = lay["god_tops"].start
    left = [0] * 6
    for k, stck in enumerate(s.god_stacks):
        if stck:
            o[gt + k * 7 + stck[-1] - KU] = 1.0
        else:
            o[gt + k * 7 + 6] = 1.0
        for gd in stck:
            left[gd - KU] += 1
    gl = lay["gods_left"].start
    for k in range(6):
        o[gl + k] = left[k] / 2
    cv = lay["cove"].start
    for t in s.cove:
        o[cv + TOKEN_FISH[t] - 1] += 0.2
    dk = lay["docks"].start
    opts = g.options
    for d in range(NUM_DOCKS):
        isl = s.docks[d]
        b = dk + d * 12
        if isl < 0:
            o[b] = 1.0
        else:
            o[b + 1 + ISLAND_KIND[isl]] = 1.0
        o[b + 10] = opts["dock_cost"][d] / 6
        o[b + 11] = opts["dock_vp"][d] / 5
    ist = lay["island_stack"].start
    for isl, up in zip(s.isl_stack, s.isl_up):
        if up:
            o[ist + 1 + ISLAND_KIND[isl]] += 0.5
        else:
            o[ist] += 0.1
    sq = lay["sequence"].start
    for i in range(SEQ_SPACES):
        t = s.seq[i]
        b = sq + i * 12
        if t >= 0:
            o[b] = 1.0
            o[b + 1 + TOKEN_VALUE[t] - 2] = 1.0
            if TOKEN_SPEAR[t]:
                o[b + 6] = 1.0
    for p in range(n):
        if s.passed[p] >= 0:
            o[sq + s.passed[p] * 12 + 7 + seat[p]] = 1.0
    bg = lay["bag"].start
    for t in s.bag:
        o[bg + (TOKEN_VALUE[t] - 2) * 2 + (1 if TOKEN_SPEAR[t] else 0)] += 0.2
    o[bg + 10] = len(s.bag) / 25
    # -- players, egocentric
    pb = lay["players"].start
    public = opts["resources_public"]
    pos_in_order = {p: i for i, p in enumerate(s.order)}
    for p in range(n):
        b = pb + seat[p] * PLAYER_W
        o[b] = s.vp[p] / 150
        if public or p == player:
            r = s.res[p]
            o[b + 1] = r[0] / 30
            o[b + 2] = r[1] / 30
            o[b + 3] = r[FRUIT] / 30
        o[b + 4] = s.round_sum(p) / 30
        o[b + 5] = max(s.target_of(p), 0) / 20
        b += 6
        if s.passed[p] >= 0:
            o[b] = 1.0
            o[b + 1 + s.passed[p]] = 1.0
        o[b + 6 + pos_in_order[p]] = 1.0
        o[b + 11 + s.loc[p] + 1] = 1.0
        b += 22
        scored = s.scored_rows(p)
        for r, row in enumerate(s.rows[p]):
            rb = b + r * ROW_W
            for code in row:
                o[rb + (code >> 1)] = 1.0 if code & 1 else 0.5
            o[rb + NUM_TYPES] = s.row_columns(row) / 15
            if r in scored:
                o[rb + NUM_TYPES + 1] = 1.0
            o[rb + NUM_TYPES + 2] = 1.0
        b += NUM_ROWS * ROW_W
        o[b] = s.kahunas[p] / 5
        o[b + 1] = s.tikis[p] / 6
        bt = s.boats[p]
        used = s.boat_used[p]
        n2 = bt.count(2)
        o[b + 2] = (len(bt) - n2) / 8
        o[b + 3] = n2 / 8
        _, f1, f2 = s.free_boats(p)
        o[b + 4] = f1 / 8
        o[b + 5] = f2 / 8
        o[b + 6] = 0.0 if used[0] else 1.0
        a1, a2 = s.huts_free(p)
        o[b + 7] = a1 / 5
        o[b + 8] = a2 / 5
        o[b + 9] = s.surfer_reduction(p) / 10
        inc = s.income(p)
        o[b + 10] = inc[0] / 20
        o[b + 11] = inc[1] / 20
        o[b + 12] = inc[2] / 20
        o[b + 13] = s.final_village_vp(p) / 100
        o[b + 14] = s.spear_value(p) / 4
        for k, gd in enumerate(GOD_TYPES):
            o[b + 15 + k] = s.side_of(p, gd) / 2
    np.minimum(o, 1.0, out=o)
    return o
