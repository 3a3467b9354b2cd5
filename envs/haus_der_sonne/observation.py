"""Observation encoder of Haus der Sonne: 399 float32 values in named blocks (``docs/rules/haus_der_sonne.md``
§16.5, extended; the blocks are declared in :data:`BLOCKS`, tabled in ``docs/observations.md``).

Egocentric: "me" is the observing player, "opp" the other one.  Segments keep
their board numbering.  Everything in this game is public except the order of
the palm piles, whose remaining composition is shown instead.

The blocks, their shapes and meanings are :data:`BLOCKS` below (one declaration; the table in
``docs/observations.md`` is generated from it).

Layout version 2 (``HausDerSonneGame.observation_version``): version 1 clipped turns, scores and
spendable shells at 1.

With the game option ``derived_features=True`` two blocks follow (:data:`DERIVED_BLOCKS`): the board as
seen from the boat (row ``r`` is the segment the boat reaches by sailing ``r``, so the move "sail ``v``"
and the segment it lands on share an index) and the two bays of the segment being handed out, with the
picking order of both.  They repeat what the other blocks hold, gathered where the actions point: a
network with one policy layer over a pooled trunk cannot easily compute "boat + v mod 6" and then look
up that segment's cards.  Off by default; the shipped network reads this layout and plays the default game
through its own observer (the option is ``observation_only``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..core.game import scaled_count
from ..core.observation import ObservationSpec, Observer
from . import components as C
from .state import BUY_SHELL, BUY_WINDOW, GAME_OVER, PRIESTESS

if TYPE_CHECKING:
    from .state import HausDerSonneGame, HausDerSonneState

# name, natural shape, meaning (the table above); every value in [0, 1]
BLOCKS = (
    ("phase", 6, "one-hot MAIN, SHAMAN, PICK, PRIESTESS, BUY_SHELL, BUY_WINDOW"),
    ("round", 2, "one-hot round 1 / 2"),
    ("current_pile", 3, "one-hot of the pile refills draw from (1-, 2-, 3-palm)"),
    ("flags", 4, "tactical variant, I am start player, I own the turn, I decide now"),
    ("turn", 1, "turns played / 150 (scaled_count)"),
    ("boat", 6, "one-hot boat segment"),
    ("my_discs", (5, 7), "per disc value 1..5 one-hot {supply, beach 0..5}"),
    ("opp_discs", (5, 7), "same for the opponent"),
    ("lava_discs", (2, 7), "me, opp: one-hot {supply, beach 0..5} (zeros in the base game)"),
    ("beach_sums", (2, 6), "me, opp: number-disc sum per beach / 15"),
    ("shamans", (2, 19), "me, opp: one-hot {village beach, field 0..17}"),
    ("statues", (2, 18), "me, opp: statue on field 0..17"),
    ("statue_supply", 2, "statues left in supply / 8, me and opp"),
    ("crater", (6, 5), "per crater field one-hot 0..4 chips"),
    ("chip_supply", 1, "chips in supply / 4"),
    ("bays", (12, 9), "per bay (2s+k): empty, 7 face types, butterfly flag"),
    ("hands", (2, 6), "me, opp: shells, white, black, fish, nautilus, butterfly cards (each / 8)"),
    ("scoring_cards", 16, "per scoring card one-hot {board, me, opp} (5 x 3); priestess card available"),
    ("piles", (3, 9), "per pile: count of each of 8 face types / 8, butterfly cards / 8"),
    ("scores", 2, "me, opp / 80 (scaled_count)"),
    ("landing", 6, "one-hot landing segment during a card distribution"),
    ("pending", 2, "shells I can spend now / 8 (scaled_count), I-act-first flag"),
    ("window", 1, "the opponent has passed in the buy window"),
)

#: the blocks with one row per seat (me, then the opponent)
SEAT_BLOCKS = ("lava_discs", "beach_sums", "shamans", "statues", "statue_supply", "hands", "scores")

#: columns of a row of ``ahead`` and of ``landing_detail``'s picking flags
RECEIVER_FLAGS = 4  # I pick first, I get the rest, the opponent picks first, the opponent gets the rest
AHEAD_COLS = 2 + RECEIVER_FLAGS + 2 * 9 + 1 + 2
DERIVED_BLOCKS = (
    ("ahead", (6, AHEAD_COLS), "row r: the segment (boat + r) mod 6 (sailing r lands there): my, opp beach sum / "
     "15; picking order at a landing there now (I first, I second, opp first, opp second); its two bays as in "
     "'bays'; crater chips / 4; my, opp disc of value r in supply (row 0: zeros)"),
    ("landing_detail", 2 * 9 + RECEIVER_FLAGS, "during a card distribution: the landing segment's bays 0 and 1 "
     "as in 'bays', then its picking order (I first, I second, opp first, opp second)"),
)


def declare(derived: bool = False) -> ObservationSpec:
    """The blocks of :data:`BLOCKS` in order, then with ``derived`` those of :data:`DERIVED_BLOCKS`."""
    spec = ObservationSpec()
    for name, shape, doc in BLOCKS + (DERIVED_BLOCKS if derived else ()):
        spec.add(name, shape, doc, seats=name in SEAT_BLOCKS)
    return spec


SPEC = declare()
SPEC_DERIVED = declare(derived=True)
SIZE_DERIVED = SPEC_DERIVED.size
AHEAD = SPEC_DERIVED.layout["ahead"].start
LANDING_DETAIL = SPEC_DERIVED.layout["landing_detail"].start
LAYOUT = SPEC.layout
SIZE = SPEC.size
_O = {name: s.start for name, s in LAYOUT.items()}
PHASE, ROUND, PILE, FLAGS, TURN, BOAT = (_O[k] for k in ("phase", "round", "current_pile", "flags", "turn", "boat"))
MY_DISCS, OPP_DISCS, LAVA_DISCS, SUMS, SHAMANS = (_O[k] for k in ("my_discs", "opp_discs", "lava_discs",
                                                                 "beach_sums", "shamans"))
STATUES, STATUE_SUPPLY, CRATER, CHIP_SUPPLY, BAYS = (_O[k] for k in ("statues", "statue_supply", "crater",
                                                                    "chip_supply", "bays"))
HANDS, SCORING, PILES, SCORES, LANDING, PENDING, WINDOW = (_O[k] for k in ("hands", "scoring_cards", "piles",
                                                                          "scores", "landing", "pending", "window"))
_FT = C.FACE_TYPE
_BF = C.FACE_BUTTERFLY


class HausDerSonneObserver(Observer):
    """Builds Haus der Sonne observations (nothing is cached: the whole vector is cheap)."""

    @classmethod
    def declare(cls, game: HausDerSonneGame) -> ObservationSpec:
        return SPEC_DERIVED if game.options["derived_features"] else SPEC

    def __init__(self, game: HausDerSonneGame) -> None:
        super().__init__(game)
        # this observer's configuration decides the layout (it may be shown a state of a game that differs
        # only in observation options: a network trained with derived features playing the base game)
        self.derived = bool(game.options["derived_features"])

    def observe(self, state: HausDerSonneState, player: int) -> np.ndarray:
        if self.derived:
            out = np.zeros(SIZE_DERIVED, dtype=np.float32)
            encode_observation(state, player, out[:SIZE])
            encode_derived(state, player, out)
            return out
        return encode_observation(state, player)


def _receiver_flags(state: HausDerSonneState, me: int, seg: int) -> list[int]:
    """Offsets (0..3) of the picking-order flags of a landing on ``seg`` now, egocentric."""
    order = state.landing_receivers(seg)
    return [(0 if p == me else 2) + i for i, p in enumerate(order)]


#: one bay's offsets (0..8) as in the ``bays`` block, indexed by face + 1 (index 0: the empty bay)
_BAY_OFFSETS = ((0,),) + tuple((1 + t, 8) if b else (1 + t,) for t, b in zip(_FT, _BF))


def encode_derived(state: HausDerSonneState, player: int, out: np.ndarray) -> None:
    """Fill the :data:`DERIVED_BLOCKS` of ``out`` (a zeroed vector of :data:`SIZE_DERIVED` values); the
    entries are gathered in lists and written at once (one numpy store, not one per entry)."""
    ones, vals_i, vals_v = derived_entries(state, player)
    out[ones] = 1.0
    if vals_i:
        out[vals_i] = vals_v


def derived_entries(state: HausDerSonneState, player: int) -> tuple[list[int], list[int], list[float]]:
    """The non-zero entries of the :data:`DERIVED_BLOCKS`: indices of the ones, and indices and values of
    the others (the state's flat lists read directly, as :mod:`.queries` would)."""
    me, op = player, 1 - player
    nseg = C.NUM_SEGMENTS
    boat, bs, bays, crater, disc = state.boat, state.beach_sum, state.bays, state.crater, state.disc
    mine, theirs = me * nseg, op * nseg
    my_disc, op_disc = me * C.NUM_DISCS - 1, op * C.NUM_DISCS - 1  # + value (1..5)
    offsets = _BAY_OFFSETS
    ones: list[int] = []
    vals_i: list[int] = []
    vals_v: list[float] = []
    for r in range(nseg):
        seg = (boat + r) % nseg
        row = AHEAD + AHEAD_COLS * r
        x, y = bs[mine + seg], bs[theirs + seg]
        if x:
            vals_i.append(row)
            vals_v.append(x / 15.0)
        if y:
            vals_i.append(row + 1)
            vals_v.append(y / 15.0)
        for f in _receiver_flags(state, me, seg):
            ones.append(row + 2 + f)
        col = row + 2 + RECEIVER_FLAGS
        for o in offsets[bays[2 * seg] + 1]:
            ones.append(col + o)
        for o in offsets[bays[2 * seg + 1] + 1]:
            ones.append(col + 9 + o)
        cr = crater[seg]
        if cr:
            vals_i.append(col + 18)
            vals_v.append(min(cr, 4) / 4.0)
        if r:
            if disc[my_disc + r] < 0:
                ones.append(row + AHEAD_COLS - 2)
            if disc[op_disc + r] < 0:
                ones.append(row + AHEAD_COLS - 1)
    land = state.land
    if land >= 0:
        for k in range(C.BAYS_PER_SEGMENT):
            for o in offsets[bays[2 * land + k] + 1]:
                ones.append(LANDING_DETAIL + 9 * k + o)
        order = state.landing_receivers(land)
        if order:
            ones.append(LANDING_DETAIL + 18 + (0 if order[0] == me else 2))
        if state.second >= 0:  # -1: nobody gets the rest (one receiver, or identical cards)
            ones.append(LANDING_DETAIL + 18 + (1 if state.second == me else 3))
    return ones, vals_i, vals_v


def encode_observation(state: HausDerSonneState, player: int, out: np.ndarray | None = None) -> np.ndarray:
    """Fill ``out`` (or a new array) with ``player``'s view of ``state``."""
    if out is None:
        out = np.zeros(SIZE, dtype=np.float32)
    else:
        out.fill(0.0)
    me, op = player, 1 - player
    ones = []
    vals_i = []
    vals_v = []
    ph = state.phase
    if ph < GAME_OVER:
        ones.append(PHASE + ph)
    ones.append(ROUND + state.round - 1)
    d = state.current_pile()
    if d >= 0:
        ones.append(PILE + d)
    if state.game.tactical:
        ones.append(FLAGS)
    if state.start_player == me:
        ones.append(FLAGS + 1)
    if state.active == me:
        ones.append(FLAGS + 2)
    if state.current_player == me:
        ones.append(FLAGS + 3)
    vals_i.append(TURN)
    vals_v.append(scaled_count(state.turn, 150))
    ones.append(BOAT + state.boat)
    seg_slots = C.NUM_SEGMENTS + 1  # {supply, beach 0..5}
    disc, nd = state.disc, C.NUM_DISCS
    for base, p in ((MY_DISCS, me), (OPP_DISCS, op)):
        for i in range(nd):  # disc value i + 1 (Q.disc_segment, read directly)
            ones.append(base + seg_slots * i + disc[p * nd + i] + 1)
    ld = state.lava_disc
    if state.game.tactical:
        ones.append(LAVA_DISCS + ld[me] + 1)
        ones.append(LAVA_DISCS + 7 + ld[op] + 1)
    bs, nseg = state.beach_sum, C.NUM_SEGMENTS
    for j, p in enumerate((me, op)):
        for s in range(nseg):
            x = bs[p * nseg + s]  # Q.beach_sum
            if x:
                vals_i.append(SUMS + C.NUM_SEGMENTS * j + s)
                vals_v.append(x / 15.0)
    sh = state.shaman
    for j, p in enumerate((me, op)):
        n = sh[p]
        ones.append(SHAMANS + 19 * j + (0 if n >= C.NUM_FIELDS else n + 1))
    st = state.statue
    cnt = [0, 0]
    for f in range(C.NUM_FIELDS):
        o = st[f]
        if o >= 0:
            cnt[o] += 1
            ones.append(STATUES + (0 if o == me else 18) + f)
    vals_i += [STATUE_SUPPLY, STATUE_SUPPLY + 1]
    vals_v += [(8 - cnt[me]) / 8.0, (8 - cnt[op]) / 8.0]
    cr = state.crater
    for s in range(6):
        ones.append(CRATER + 5 * s + min(cr[s], 4))
    vals_i.append(CHIP_SUPPLY)
    vals_v.append((C.LAVA_CHIPS - sum(cr)) / 4.0)
    bays = state.bays
    for b in range(C.NUM_BAYS):
        for o in _BAY_OFFSETS[bays[b] + 1]:
            ones.append(BAYS + 9 * b + o)
    for j, p in enumerate((me, op)):
        h = state.hand[p]
        base = HANDS + 6 * j
        counts = (h[2] + h[3], h[6] + h[7], h[8] + h[9], h[4] + h[5], h[10] + h[11], h[3] + h[5] + h[7] + h[9] + h[11])
        for i, x in enumerate(counts):
            if x:
                vals_i.append(base + i)
                vals_v.append(x / 8.0)
    sc = state.sc_owner
    for i in range(C.NUM_SCORING_CARDS):
        o = sc[i]
        ones.append(SCORING + 3 * i + (0 if o < 0 else 1 if o == me else 2))
    if state.priestess_available:
        ones.append(SCORING + 15)
    for dk, pile in enumerate(state.piles):
        if pile:
            tc = [0] * 9
            for f in pile:
                tc[_FT[f]] += 1
                tc[8] += _BF[f]
            base = PILES + 9 * dk
            for i in range(9):
                if tc[i]:
                    vals_i.append(base + i)
                    vals_v.append(tc[i] / 8.0)
    vals_i += [SCORES, SCORES + 1]
    vals_v += [scaled_count(state.score[me], 80), scaled_count(state.score[op], 80)]
    if state.land >= 0:
        ones.append(LANDING + state.land)
    if state.current_player == me and ph in (PRIESTESS, BUY_SHELL, BUY_WINDOW):
        vals_i.append(PENDING)
        vals_v.append(scaled_count(state.shells(me), 8))
    if state.current_player == me and _acts_first(state, me):
        ones.append(PENDING + 1)
    if state.win_passed[op] and ph == BUY_WINDOW:
        ones.append(WINDOW)
    out[ones] = 1.0
    out[vals_i] = vals_v
    return out


def _acts_first(state: HausDerSonneState, me: int) -> bool:
    """The opponent may still act after me in this landing or buy window."""
    if state.land >= 0:
        return state.second == 1 - me
    if state.phase == BUY_WINDOW or (state.phase == PRIESTESS and state.trigger >= 0):
        return not state.win_passed[1 - me]
    return False
