"""Hawaii observation: a flat float32 vector of named blocks, egocentric (``docs/rules/hawaii.md`` §17.3;
declared in :func:`declare`, tabled in ``docs/observations.md``).

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

Scales (layout version 2, ``HawaiiGame.observation_version``): a count with no fixed maximum
(shells, feet, fruit, VP, round sum, columns, income, surfer reduction, spear VP, village VP, fish
tokens in the cove) is ``x / scale`` below its scale and ``1 - 1 / (x + 1)`` from it on
(:func:`over`), so larger counts stay distinct and inside [0, 1); a value fixed by the options
(targets, round VP, base income, dock costs and VP, move cost, payment amounts) is divided by the
larger of its documented scale and the configured maximum (:class:`Scales`), so the default
configuration keeps the documented scales.

Hidden from everybody: god tiles below the two visible tops, the order of the face-down island
stack; these never enter the vector.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.game import scaled_count as over
from ..core.observation import ActionFactor, ActionFeatures, Changes, ObservationSpec, Observer, details_since
from . import actions as A
from . import queries as Q
from .components import (
    EXCHANGE_HUT,
    GOD_TYPES,
    GODS_PLACE,
    ISLAND_KIND,
    KAHUNA_SPACES,
    KU,
    MAX_BOATS,
    NUM_DOCKS,
    NUM_PLACE_KINDS,
    NUM_ROWS,
    NUM_SLOTS,
    NUM_TYPES,
    PLACE_CIRCLES,
    PLACE_OFFERS,
    PLACE_PRINTED,
    SEQ_SPACES,
    SIDE_II,
    SUPPLY,
    TIKI_SPACES,
    TOKEN_VALUE,
)

MAX_P = 5
# observation scales (see the module docstring): resources and round sums, VP, exchange huts
RES_SCALE = 30
VP_SCALE = 150
HUT_SCALE = SUPPLY[EXCHANGE_HUT]
CONTEXT = 68
SLOT_W = NUM_PLACE_KINDS + 3 * 9 + 4 + MAX_P
ROW_W = NUM_TYPES + 3
PLAYER_W = 6 + 1 + 5 + 5 + 11 + NUM_ROWS * ROW_W + 2 + 5 + 2 + 1 + 3 + 1 + 1 + 6
# offsets inside the context block
X_KIND, X_SLOT, X_CIRCLE, X_TILE, X_SIDE, X_ROW = 0, 3, 13, 16, 38, 40
X_MOVE, X_PRICE, X_PAY, X_PAY_TYPE, X_PAY_FRUIT, X_FISH, X_TRIP, X_BOATS, X_DOCK, X_HUTS = (
    45, 46, 47, 48, 50, 51, 52, 53, 62, 66)
# offsets inside a player's block: VP, resources (3), round sum, target, ended-round flag, sequence
# space (5), turn-order position (5), chieftain location (beach + 10 slots), then the realm
W_VP, W_RES, W_RSUM, W_TARGET, W_ENDED, W_SEQ, W_ORDER, W_CHIEF, W_REALM = 0, 1, 4, 5, 6, 7, 12, 17, 28
# offsets after the villages in the realm part: free boats (I, II), fishing boat unused, usable huts (2)
R_FREE_BOATS, R_FISHING_BOAT, R_HUTS = 4, 6, 7
SEQ_W, SEQ_OCCUPANT = 12, 7  # per sequence space: token (7), occupant seat (5)
SUPPLY_INIT = np.array([max(SUPPLY.get(t, 1), 1) for t in range(NUM_TYPES)], dtype=np.float32)


def declare(game: Any) -> ObservationSpec:
    """The blocks (see the module docstring for what each value means)."""
    spec = ObservationSpec()
    spec.add("round", 5, "one-hot round")
    spec.add("phase", A.NUM_PHASES, "decision type one-hot (actions.PHASE_NAMES)")
    spec.add("context", CONTEXT, "the turn in progress: kind, slot, circle, tile type, side, row, costs and "
             "payments, fish tokens chosen, boat-trip units, boats launched, dock, usable exchange huts")
    spec.add("indicators", (5, 6), "per round: target / 20, VP 1st / 2nd / reached / 15, base shells, feet / 10")
    spec.add("places", (NUM_SLOTS, SLOT_W), "per slot: place kind (13), per circle (3 x 9: exists, printed "
             "number / 12, token, value 2..6, spear), supply of the offered types (4), chieftains (5, egocentric)")
    spec.add("supply", NUM_TYPES, "tiles left per type / initial")
    spec.add("god_tops", (2, 7), "each god stack's visible god, or empty")
    spec.add("gods_left", 6, "each god's tiles not yet bought / 2")
    spec.add("cove", 3, "fish tokens with 1, 2, 3 fish / 5 (scaled_count)")
    spec.add("docks", (NUM_DOCKS, 12), "per dock: empty, island kind (9), cost / 6, VP / 5")
    spec.add("island_stack", 10, "face-down count / 10, face-up islands per kind / 2")
    spec.add("sequence", (SEQ_SPACES, 12), "per space: token, value (5), spear, occupant (5 seats, egocentric)")
    spec.add("bag", 11, "tokens in the bag by (value, spear) / 5, total / 25")
    spec.add("players", (MAX_P, PLAYER_W), "per seat, observer first: VP, resources, round sum, target, turn "
             "order, chieftain, villages (5 x 25), Kahunas, Tikis, boats, huts, income, village VP, spears, gods",
             seats=True, seat_presence=(W_ORDER, W_ORDER + MAX_P))  # a seat that plays has a turn-order place
    if game.options["place_view"]:
        spec.add("move_costs", NUM_SLOTS, "the observer's move cost to each slot now / move scale (§12.1, Pele "
                 "included)")
        spec.add("chosen_place", SLOT_W, "the place the turn in progress chose (its `places` row; zeros before "
                 "a choice)")
    spec.action_features = buy_features(spec)
    return spec


def buy_features(spec: ObservationSpec) -> ActionFeatures:
    """What each "buy at slot P1..P10" action reads, for a network's action head (``action_hidden``).

    The main decision's buys are the same choice at ten places (rules file §17.2), so a head that scores
    each from that place's own inputs shares its judgement across the places: a buy at slot ``i`` reads
    the slot's 49 ``places`` features (kind, circles, tokens, offered supply, chieftains there) and the
    slot itself (a category).  With the option ``place_view`` it also reads the observer's move cost to
    the slot, and the price choice that follows a buy (the TOKEN decision: which circle of the chosen
    place) is scored the same way: circle ``c`` reads the ``chosen_place`` row with circle ``c``'s nine
    features where a buy reads its place's first circle, and the move cost the turn pays.  The vector
    does not change; a network without an action head never reads these tables."""
    lay = spec.layout
    start = lay["places"].start
    slots = np.arange(NUM_SLOTS)
    gather = start + slots[:, None] * SLOT_W + np.arange(SLOT_W)
    actions = slots.copy()
    if "chosen_place" in lay:  # the option place_view
        gather = np.hstack([gather, lay["move_costs"].start + slots[:, None]])
        chosen = lay["chosen_place"].start + np.arange(SLOT_W)
        first = NUM_PLACE_KINDS  # the circles follow the place kind, nine values each
        rows = []
        for c in range(3):
            order = np.arange(SLOT_W)
            mine, head = np.arange(first + 9 * c, first + 9 * c + 9), np.arange(first, first + 9)
            order[first:first + 9], order[first + 9 * c:first + 9 * c + 9] = mine, head
            rows.append(np.append(chosen[order], lay["context"].start + X_MOVE))
        gather = np.vstack([gather, np.asarray(rows)])
        actions = np.concatenate([actions, A.MAIN_SIZE + np.arange(3)])  # TOKEN follows MAIN (actions.py)
    items = len(actions)
    index = np.arange(items)
    feats = ActionFeatures(actions, (ActionFactor("place", items, index, gather.astype(np.intp)),
                                     ActionFactor("choice", items, index)))
    feats.validate(spec.size, int(actions.max()) + 1)
    return feats


class Scales:
    """Divisors of the configuration-dependent values: the documented ones, raised to the
    configured maxima where the options allow more (the defaults keep the documented ones)."""

    def __init__(self, game: Any) -> None:
        o = game.options
        self.target = max(20, *o["round_targets"])
        self.round_vp = max(15, *(v for r in o["round_vp"] for v in r))
        self.base_income = max(10, *(v for r in o["base_income"] for v in r))
        self.dock_cost = max(6, *o["dock_cost"])
        self.dock_vp = max(5, *o["dock_vp"])
        self.move = max(4, *game.beach_dist, *(d for row in game.slot_dist for d in row))
        self.pay = max(12, game.pay_size - 1)


def _static_block(game: Any, sc: Scales) -> np.ndarray:
    """Round indicators (fixed for a configuration).  A target at or below 0 is always reached
    (sums are never negative), so it shows as 0."""
    o = game.options
    out = np.zeros(30, dtype=np.float32)
    for r in range(5):
        inc = o["base_income"][r] if r < len(o["base_income"]) else (0, 0)
        v = o["round_vp"][r]
        out[r * 6:(r + 1) * 6] = (max(o["round_targets"][r], 0) / sc.target, v[0] / sc.round_vp,
                                  v[1] / sc.round_vp, v[2] / sc.round_vp, inc[0] / sc.base_income,
                                  inc[1] / sc.base_income)
    return out


def _layout_block(s: Any, sc: Scales) -> np.ndarray:
    """The parts of the public block fixed at setup: place kinds, circles, printed numbers, docks."""
    g = s.game
    lay = g.observation_layout
    start = lay["places"].start
    out = np.zeros(lay["bag"].stop - start, dtype=np.float32)
    for sl in range(NUM_SLOTS):
        b = sl * SLOT_W
        pl = s.slot_place[sl]
        out[b + pl] = 1.0
        b2 = b + NUM_PLACE_KINDS
        for ci in range(PLACE_CIRCLES[pl]):
            out[b2 + ci * 9] = 1.0
        out[b2 + 1] = PLACE_PRINTED[pl] / 12
    dk = lay["docks"].start - start
    opts = g.options
    for d in range(NUM_DOCKS):
        out[dk + d * 12 + 10] = opts["dock_cost"][d] / sc.dock_cost
        out[dk + d * 12 + 11] = opts["dock_vp"][d] / sc.dock_vp
    return out


def _fill_slot(s: Any, o: np.ndarray, start: int, sl: int) -> None:
    """Price tokens on the circles of slot ``sl``."""
    b2 = start + sl * SLOT_W + NUM_PLACE_KINDS
    for ci, t in enumerate(Q.circles(s, sl)):
        cb = b2 + ci * 9
        o[cb + 2:cb + 9] = 0.0
        if t >= 0:
            o[cb + 2] = 1.0
            o[cb + 1 + TOKEN_VALUE[t]] = 1.0
            if s.game.token_spear[t]:
                o[cb + 8] = 1.0


def _fill_supply(s: Any, o: np.ndarray, lay: dict[str, slice], start: int) -> None:
    """Tiles left per place and per type, the two god tops and the gods not yet bought."""
    supply = s.supply
    n_gods = (len(s.god_stacks[0]) + len(s.god_stacks[1])) / 12
    for sl in range(NUM_SLOTS):
        b3 = start + sl * SLOT_W + NUM_PLACE_KINDS + 27
        pl = s.slot_place[sl]
        if pl == GODS_PLACE:
            o[b3] = n_gods
        else:
            for k, t in enumerate(PLACE_OFFERS[pl][:4]):
                o[b3 + k] = supply[t] / SUPPLY_INIT[t]
    o[lay["supply"]] = np.asarray(supply, dtype=np.float32) / SUPPLY_INIT
    gt = lay["god_tops"].start
    o[gt:gt + 14] = 0.0
    left = [0.0] * 6
    for k, stck in enumerate(s.god_stacks):
        o[gt + k * 7 + (stck[-1] - KU if stck else 6)] = 1.0
        for gd in stck:
            left[gd - KU] += 0.5
    o[lay["gods_left"]] = left


def _fill_cove(s: Any, o: np.ndarray, lay: dict[str, slice]) -> None:
    cove = [0, 0, 0]
    for t in s.cove:
        cove[s.game.token_fish[t] - 1] += 1
    o[lay["cove"]] = [over(c, 5) for c in cove]


def _fill_docks(s: Any, o: np.ndarray, lay: dict[str, slice]) -> None:
    dk = lay["docks"].start
    for d in range(NUM_DOCKS):
        b = dk + d * 12
        o[b:b + 10] = 0.0
        isl = Q.dock_island(s, d)
        o[b + (0 if isl < 0 else 1 + ISLAND_KIND[isl])] = 1.0
    stack = [0.0] * 10
    for isl, up in zip(s.isl_stack, s.isl_up):
        if up:
            stack[1 + ISLAND_KIND[isl]] += 0.5
        else:
            stack[0] += 0.1
    o[lay["island_stack"]] = stack


def _fill_seq(s: Any, o: np.ndarray, lay: dict[str, slice]) -> None:
    """Tokens on the sequence track (the chieftains below it are seat-relative, added per observer)."""
    sq = lay["sequence"].start
    for i in range(SEQ_SPACES):
        b = sq + i * 12
        o[b:b + 7] = 0.0
        t = Q.sequence_token(s, i)
        if t >= 0:
            o[b] = 1.0
            o[b - 1 + TOKEN_VALUE[t]] = 1.0
            if s.game.token_spear[t]:
                o[b + 6] = 1.0


def _fill_bag(s: Any, o: np.ndarray, lay: dict[str, slice]) -> None:
    bag = [0.0] * 11
    for t in s.bag:
        bag[(TOKEN_VALUE[t] - 2) * 2 + (1 if s.game.token_spear[t] else 0)] += 0.2
    bag[10] = len(s.bag) / 25
    o[lay["bag"]] = bag


def _public_block(s: Any, static: np.ndarray) -> np.ndarray:
    """Places, supply, gods, cove, docks, island stack, sequence tokens and bag (no seat-relative parts),
    over ``static`` (:func:`_layout_block`)."""
    g = s.game
    lay = g.observation_layout
    start = lay["places"].start
    o = np.zeros(g.observation_shape[0], dtype=np.float32)
    o[start:start + len(static)] = static
    for sl in range(NUM_SLOTS):
        _fill_slot(s, o, start, sl)
    _fill_supply(s, o, lay, start)
    _fill_cove(s, o, lay)
    _fill_docks(s, o, lay)
    _fill_seq(s, o, lay)
    _fill_bag(s, o, lay)
    return o[start:lay["bag"].stop]


def _board_block(s: Any, p: int) -> np.ndarray:
    """Player p's realm: villages, Kahunas, Tikis, boats, surfers, income, village VP, spears, gods."""
    out = np.zeros(NUM_ROWS * ROW_W + 21, dtype=np.float32)
    scored = s.scored_rows(p)
    for r, row in enumerate(Q.villages(s, p)):
        rb = r * ROW_W
        for code in row:
            out[rb + Q.tile_type(code)] = 1.0 if Q.is_side2(code) else 0.5
        out[rb + NUM_TYPES] = over(s.row_columns(row), 15)
        if r in scored:
            out[rb + NUM_TYPES + 1] = 1.0
        out[rb + NUM_TYPES + 2] = 1.0
    b = NUM_ROWS * ROW_W
    bt = s.boats[p]
    n2 = bt.count(SIDE_II)
    inc = s.income(p)
    out[b:b + 15] = (Q.kahunas(s, p) / KAHUNA_SPACES, Q.tikis(s, p) / TIKI_SPACES, (len(bt) - n2) / MAX_BOATS,
                     n2 / MAX_BOATS, 0, 0, 0, 0, 0,
                     over(s.surfer_reduction(p), 10), over(inc[0], 20), over(inc[1], 20), over(inc[2], 20),
                     over(s.final_village_vp(p), 100), over(s.spear_value(p), 4))
    for k, gd in enumerate(GOD_TYPES):
        out[b + 15 + k] = s.side_of(p, gd) / 2
    return out


class _Offsets:
    """Start offsets of the blocks, resolved once per configuration."""

    def __init__(self, lay: dict[str, slice]) -> None:
        self.round = lay["round"].start
        self.phase = lay["phase"].start
        self.ctx = lay["context"].start
        self.chief = lay["places"].start + NUM_PLACE_KINDS + 27 + 4
        self.seq = lay["sequence"].start
        self.players = lay["players"].start


# the parts of the public board that change during a round (``state.changes``), each refilled alone
_PARTS = ("supply", "cove", "docks", "sequence")
_FILL = {"cove": _fill_cove, "docks": _fill_docks, "sequence": _fill_seq}


class HawaiiObserver(Observer):
    """Builds Hawaii observations.

    Keeps a full-size vector of everything the same for all observers (the public board), with the
    tokens of ``state.changes`` it was built from, and patches a copy of it where the board changed
    (price tokens of a slot, supply, cove, docks, sequence); a new layout of price tokens rebuilds
    it.  Each player's realm block is cached until that realm changes."""

    @classmethod
    def declare(cls, game: Any) -> ObservationSpec:
        return declare(game)

    def __init__(self, game: Any) -> None:
        super().__init__(game)
        self.sc = Scales(game)
        self.static = _static_block(game, self.sc)
        self.off = _Offsets(game.observation_layout)
        self.__dict__.update(self.fresh_caches())
        lay = game.observation_layout
        #: (move_costs, chosen_place, places) starts with the option place_view, else None
        self.place_view = ((lay["move_costs"].start, lay["chosen_place"].start, lay["places"].start)
                           if "chosen_place" in lay else None)

    def fresh_caches(self) -> dict[str, Any]:
        """``_layout``: (setup token, :func:`_layout_block`); ``_base``: (board, slots, supply, cove, docks,
        sequence tokens, vector); ``_realm``: per player (token, realm block, target)."""
        return {"_layout": None, "_base": None, "_realm": [None] * self.game.num_players}

    def _base_vector(self, s: Any) -> np.ndarray:
        """Full-size vector holding every part that is the same for all observers."""
        ch: Changes = s.changes
        tokens, origin = ch.tokens, ch.origin
        board = tokens.get("board", origin)
        slots = tokens.get("slots", origin)
        now = [tokens.get(k, origin) for k in _PARTS]
        base = self._base
        if base is not None and base[0] is board:
            stale = [k for k, t, b in zip(_PARTS, now, base[2:6]) if t is not b]
            if not stale and slots is base[1]:
                return base[6]
            vec = self._patch(s, base[6], stale, details_since(slots, base[1], NUM_SLOTS))
        else:
            g = self.game  # a state of other observation options (a network's own view) is sized as ours
            lay = g.observation_layout
            vec = np.zeros(g.observation_shape[0], dtype=np.float32)
            vec[lay["indicators"]] = self.static
            lb = self._layout
            if lb is None or lb[0] is not origin:  # fixed at setup
                lb = self._layout = (origin, _layout_block(s, self.sc))
            pub = _public_block(s, lb[1])
            start = lay["places"].start
            vec[start:start + len(pub)] = pub
        self._base = (board, slots, *now, vec)
        return vec

    @staticmethod
    def _patch(s: Any, base: np.ndarray, stale: list[str], slots: list[int] | None) -> np.ndarray:
        """A copy of ``base`` with the ``stale`` parts and the price tokens of ``slots`` (None: of
        every slot) recomputed."""
        lay = s.game.observation_layout
        start = lay["places"].start
        o = base.copy()
        for sl in (range(NUM_SLOTS) if slots is None else set(slots)):
            _fill_slot(s, o, start, sl)
        for k in stale:
            if k == "supply":
                _fill_supply(s, o, lay, start)
            else:
                _FILL[k](s, o, lay)
        return o

    def observe(self, s: Any, player: int) -> np.ndarray:
        """Player ``player``'s information state."""
        self.use_caches_of(s)
        g = s.game
        off = self.off
        sc = self.sc
        o = self._base_vector(s).copy()
        n = g.num_players
        ones = [off.round + s.round]
        idx: list[int] = []
        val: list[float] = []
        terminal = s.terminal
        if not terminal:
            ones.append(off.phase + s.phase)
        # -- context of the turn in progress
        c = off.ctx
        if s.kind:
            ones.append(c + X_KIND + s.kind - 1)
            if s.c_slot >= 0:
                ones.append(c + X_SLOT + s.c_slot)
            if s.c_circle >= 0:
                ones.append(c + X_CIRCLE + s.c_circle)
            if s.c_tile >= 0:
                ones.append(c + X_TILE + s.c_tile)
            if s.c_side:
                ones.append(c + X_SIDE + s.c_side - 1)
            if s.c_row >= 0:
                ones.append(c + X_ROW + s.c_row)
            if s.payments:
                x, rt = s.payments[0]
                idx.append(c + X_PAY)
                val.append(x / sc.pay)
                ones.append(c + X_PAY_TYPE + rt)
            for b in s.boats_sel:
                ones.append(c + X_BOATS + b)
            if s.c_dock >= 0:
                ones.append(c + X_DOCK + s.c_dock)
            idx += [c + X_MOVE, c + X_PRICE, c + X_PAY_FRUIT, c + X_FISH, c + X_TRIP]
            val += [s.c_move / sc.move, s.c_price / sc.pay, s.pay_nf / sc.pay, s.c_fish / 10, s.c_cost / sc.pay]
        # -- players, egocentric (the observer first); seat-relative chieftain marks on the board
        pb = off.players
        public = g.options["resources_public"]
        realms = self._realm
        tokens, origin = s.changes.tokens, s.changes.origin
        cb = off.chief
        sq = off.seq
        me = s.current_player if not terminal else -1
        for pos, p in enumerate(s.order):
            seat = (p - player) % n
            b = pb + seat * PLAYER_W
            loc = Q.position(s, p)
            if loc >= 0:
                ones.append(cb + loc * SLOT_W + seat)
            passed = Q.sequence_space(s, p)
            if passed >= 0:
                ones.append(sq + passed * SEQ_W + SEQ_OCCUPANT + seat)
                ones.append(b + W_ENDED)
                ones.append(b + W_SEQ + passed)
            if public or p == player:
                r0, r1, r2 = Q.resources(s, p)
                idx += [b + W_RES, b + W_RES + 1, b + W_RES + 2]
                val += [r0 / RES_SCALE if r0 < RES_SCALE else 1.0 - 1.0 / (r0 + 1),
                        r1 / RES_SCALE if r1 < RES_SCALE else 1.0 - 1.0 / (r1 + 1),
                        r2 / RES_SCALE if r2 < RES_SCALE else 1.0 - 1.0 / (r2 + 1)]  # over(r, RES_SCALE), inlined
            tok = tokens.get(("realm", p), origin)
            cached = realms[p]
            if cached is None or cached[0] is not tok:
                cached = realms[p] = (tok, _board_block(s, p), max(s.target_of(p), 0) / sc.target)
            _tok, bb, target = cached
            vp = Q.victory_points(s, p)
            rs = Q.round_sum(s, p)
            idx += [b + W_VP, b + W_RSUM, b + W_TARGET]
            val += [vp / VP_SCALE if vp < VP_SCALE else 1.0 - 1.0 / (vp + 1),
                    rs / RES_SCALE if rs < RES_SCALE else 1.0 - 1.0 / (rs + 1), target]
            ones.append(b + W_ORDER + pos)
            ones.append(b + W_CHIEF + 1 + loc)  # loc -1: the beach
            o[b + W_REALM:b + W_REALM + len(bb)] = bb
            b += W_REALM + NUM_ROWS * ROW_W
            if s.boats[p]:
                _, f1, f2 = s.free_boats(p)
            else:
                f1 = f2 = 0
            h1, h2 = s.huts_free(p)
            a1 = h1 / HUT_SCALE
            a2 = h2 / HUT_SCALE
            idx += [b + R_FREE_BOATS, b + R_FREE_BOATS + 1, b + R_FISHING_BOAT, b + R_HUTS, b + R_HUTS + 1]
            val += [f1 / MAX_BOATS, f2 / MAX_BOATS, 0.0 if Q.fishing_boat_used(s, p) else 1.0, a1, a2]
            if p == me:
                idx += [c + X_HUTS, c + X_HUTS + 1]
                val += [a1, a2]
        o.put(ones, 1.0)
        o.put(idx, val)
        if self.place_view is not None:
            self._place_view(s, player, o)
        return o

    def _place_view(self, s: Any, player: int, o: np.ndarray) -> None:
        """The option ``place_view``'s blocks: move costs to every slot, the chosen place's row."""
        costs, chosen, places = self.place_view
        move = self.sc.move
        o[costs:costs + NUM_SLOTS] = [s.move_cost(player, sl) / move for sl in range(NUM_SLOTS)]
        if s.kind and s.c_slot >= 0:
            row = places + s.c_slot * SLOT_W
            o[chosen:chosen + SLOT_W] = o[row:row + SLOT_W]
