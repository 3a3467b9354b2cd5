"""Observation encoder of Asara: a flat float32 vector of named blocks (rules: ``docs/rules/asara.md``;
the blocks are declared in :meth:`AsaraObserver.declare` and tabled in ``docs/observations.md``).

Egocentric: "players" blocks are padded to 4 seats, the observer first, the
others in turn order.  Perfect-recall quantities that the rules file §14.2 calls
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
                    left to keep (1; 0 while drawn windows remain = ordering them
                    under the stack with ``lit_discard_order="choose"``)
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

Values are divided by fixed scales and clipped at 1, except the counts with no small fixed
maximum (turns this year /30, money /100, PP /150, hand size /12, tower count /10, lit windows
held /6): those follow ``core.game.scaled_count`` (``1 - 1/(x+1)`` from the scale on), so larger
counts stay distinct.  Layout version 2 (``AsaraGame.observation_version``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.game import readonly, scaled_count
from ..core.observation import ObservationSpec, Observer
from . import components as C
from . import queries as Q
from .actions import NUM_AREA_ACTIONS, NUM_CARD_ACTIONS
from .state import NUM_PHASES, PAIR_CARD, PH_BUILD, PH_SPACE

if TYPE_CHECKING:
    from .state import AsaraGame, AsaraState

MAX_SEATS = 4
MIN_SEATS = 2
LIMITED_AREAS = tuple(a for a in range(C.NUM_AREAS) if a != C.FIVE)
KIND_RANGE = range(C.KINDS_PER_TYPE)
#: the parts of state.changes behind each seat's reserve and tower blocks
RESERVE_KEYS = tuple(("reserve", q) for q in range(4))
TOWER_KEYS = tuple(("towers", q) for q in range(4))
#: the most cached blocks an observer keeps per game (then it starts afresh)
MAX_CACHED_PARTS = 4096
# offsets inside the meta block: year (4), player count (3), professional, phase (9), Caliph holder
# (4 seats), start player (4 seats), turns taken
M_YEAR = 0
M_PLAYERS = M_YEAR + C.NUM_YEARS
M_PRO = M_PLAYERS + MAX_SEATS - MIN_SEATS + 1
M_PHASE = M_PRO + 1
M_CALIPH = M_PHASE + NUM_PHASES
M_START = M_CALIPH + MAX_SEATS
M_TURN = M_START + MAX_SEATS
META = M_TURN + 1
# offsets inside the pending block: chosen area, build steps left 0..7, plot, towers opened per
# material, spies fee paid, searched pile, chosen cards, lit windows left to keep
P_AREA = 0
P_STEPS = P_AREA + NUM_AREA_ACTIONS
P_PLOT = P_STEPS + C.NUM_PLOTS + 1
P_OPEN = P_PLOT + C.NUM_PLOTS
P_FEE = P_OPEN + C.NUM_MATERIALS
P_PILE = P_FEE + 1
P_CARDS = P_PILE + C.NUM_TYPES
P_LIT = P_CARDS + NUM_CARD_ACTIONS
PENDING = P_LIT + 1
#: per tower slot in a player block: exists, height, visible gold, lit windows
TOWER_VALUES = 4
#: per area in the areas block: lead suit or none (NUM_SUITS + 1), face-down pairs
AREA_VALUES = C.NUM_SUITS + 2
#: the rows of the private block (each per suit or material): own hand, own face-down suits, own kept
#: lighted windows, own windows known in the stack, lighted windows drawn now
PR_HAND, PR_DOWN, PR_LIT, PR_STACK, PR_DRAWN = (i * C.NUM_SUITS for i in range(5))
#: the scales of counts without a small fixed maximum (core.game.scaled_count)
TURN_SCALE, MONEY_SCALE, PRESTIGE_SCALE, HAND_SCALE, TOWER_COUNT_SCALE, LIT_HELD_SCALE = 30, 100, 150, 12, 10, 6


def player_block_size(slots: int) -> int:
    return C.NUM_KINDS + C.NUM_MATERIALS * slots * TOWER_VALUES + 2 + C.NUM_MATERIALS + 2


def declare(game: AsaraGame) -> ObservationSpec:
    """The blocks of this configuration (see the module docstring)."""
    spec = ObservationSpec()
    spec.add("meta", META, "year (4), player count (3), professional, phase (9), Caliph holder (4), this year's "
             "start player (4), turns taken this year / 30; seats relative to the observer")
    spec.add("pending", PENDING, "chosen area (17), build steps left 0..7 (8), plot (7), towers opened per "
             "material (5), spies fee paid, searched pile (4), chosen cards (20), lit windows left to keep")
    spec.add("seats", (MAX_SEATS, 3), "per seat: money / 100, PP / 150, hand size / 12 (scaled_count)", seats=True)
    spec.add("areas", (len(LIMITED_AREAS), 7), "per area but the 5-Asari building: lead suit or none (6), "
             "face-down pairs / 4")
    spec.add("spaces", (game.total_spaces, 2), "per card space: occupied, occupied by me")
    spec.add("five", 1, "cards on the 5-Asari building / 20")
    spec.add("cards_laid", (MAX_SEATS, 6), "per seat: face-up cards per suit (5), face-down cards; / cards per suit",
             seats=True)
    spec.add("displays", C.NUM_KINDS, "face-up tiles per kind (type x material x gold) / 6")
    spec.add("piles", C.NUM_KINDS + 5, "pile composition per kind (40), pile sizes / 25 (4), lit stack / 15")
    pb = player_block_size(game.slots)
    for i in range(MAX_SEATS):
        spec.add(f"player_{i}", pb, f"seat {i} from the observer: reserve per kind / 4 (40), per material x slot: "
                 "exists, height, visible gold, lit (4 each), tower count, max height, max height per material "
                 "(5), lit windows held, seat present")
    spec.add("private", (5, 5), "own hand, own face-down suits, own kept lit windows, own windows known in "
             "the stack, lit windows drawn now (per suit or material)")
    spec.add("belief", 6, "unseen cards per suit (5), undealt deck size / 45")
    spec.stack("players", [f"player_{i}" for i in range(MAX_SEATS)], "the seats' reserves and towers, "
               "observer first, padded to 4", seats=True, seat_presence=(pb - 1, pb))
    return spec


def scale_vector(game: AsaraGame, lay: dict[str, slice]) -> np.ndarray:
    """The divisor of every value (as a factor)."""
    size = max(sl.stop for sl in lay.values())
    scale = np.ones(size, dtype=np.float32)
    cps = float(game.cards_per_suit)
    kind_max = float(max(max(game.kind_total), 1))
    sl = lay
    scale[sl["meta"].stop - 1] = 1.0 / TURN_SCALE
    a = sl["areas"].start
    for i in range(len(LIMITED_AREAS)):
        scale[a + i * AREA_VALUES + AREA_VALUES - 1] = 1.0 / 4.0
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
        scale[o] = 1.0 / MONEY_SCALE
        scale[o + 1] = 1.0 / PRESTIGE_SCALE
        scale[o + 2] = 1.0 / HAND_SCALE
        o = sl[f"player_{i}"].start
        scale[o: o + ts] = 1.0 / 4.0
        for j in range(C.NUM_MATERIALS * game.slots):
            scale[o + ts + TOWER_VALUES * j + 1] = 1.0 / C.MAX_HEIGHT_NORM
            scale[o + ts + TOWER_VALUES * j + 2] = 1.0 / 4.0
            scale[o + ts + TOWER_VALUES * j + 3] = 1.0 / 4.0
        t2 = o + ts + C.NUM_MATERIALS * game.slots * TOWER_VALUES
        scale[t2] = 1.0 / TOWER_COUNT_SCALE
        scale[t2 + 1: t2 + 2 + C.NUM_MATERIALS] = 1.0 / C.MAX_HEIGHT_NORM
        scale[t2 + 2 + C.NUM_MATERIALS] = 1.0 / LIT_HELD_SCALE
    pr = sl["private"].start
    scale[pr + PR_HAND: pr + PR_LIT] = 1.0 / cps
    scale[pr + PR_LIT: pr + PR_DRAWN + C.NUM_MATERIALS] = 1.0 / 3.0
    b = sl["belief"].start
    scale[b: b + 5] = 1.0 / cps
    scale[b + 5] = 1.0 / 45.0
    return scale


def _scaled(values: list, scale: np.ndarray) -> np.ndarray:
    a = np.array(values, dtype=np.float32)
    a *= scale
    np.minimum(a, 1.0, out=a)
    return a


def _tower_block(s: AsaraState, q: int, sc: np.ndarray) -> np.ndarray:
    S = s.game.slots
    NM = C.NUM_MATERIALS
    v = [0.0] * (NM * S * TOWER_VALUES + 2 + NM + 2)
    count = 0
    best = 0
    mb = NM * S * TOWER_VALUES + 2
    tallest = [0] * NM
    for m, slot, rec in s.towers_of(q):
        h = Q.tower_height(rec)
        k = (m * S + slot) * TOWER_VALUES
        v[k] = 1.0
        v[k + 1] = h
        v[k + 2] = Q.tower_gold(rec)
        v[k + 3] = Q.tower_lit(rec)
        count += 1
        if h > tallest[m]:
            tallest[m] = h
    for m in range(NM):
        v[mb + m] = tallest[m]
        if tallest[m] > best:
            best = tallest[m]
    v[mb - 2] = count
    v[mb - 1] = best
    v[mb + NM] = sum(Q.lit_reserve(s, q))
    v[mb + NM + 1] = 1.0
    out = _scaled(v, sc)
    # counts without a small fixed maximum: towers (/10) and kept lit windows (/6) are not clipped
    out[mb - 2] = scaled_count(count, TOWER_COUNT_SCALE)
    out[mb + NM] = scaled_count(v[mb + NM], LIT_HELD_SCALE)
    return out


class AsaraObserver(Observer):
    """Builds Asara observations.

    The blocks that change only when cards move, or only when tiles move, are cached as scaled
    float32 arrays, each with the token of ``state.changes`` it was built from; the head (meta,
    pending, seats) changes at every decision and is written afresh."""

    game: AsaraGame

    @classmethod
    def declare(cls, game: AsaraGame) -> ObservationSpec:
        return declare(game)

    def __init__(self, game: AsaraGame) -> None:
        super().__init__(game)
        lay = game.observation_layout
        self.scale = scale_vector(game, lay)
        self.pending = lay["pending"].start
        self.seats = lay["seats"].start
        self.head_size = lay["seats"].stop
        sc = self.scale
        # observe scales the head (values final), the front run (areas .. cards_laid) and the back
        # (private, belief) as one list: their scales, and where the tiles go between them
        self.sc_lists = np.concatenate((np.ones(self.head_size, dtype=np.float32),
                                        sc[lay["areas"].start: lay["cards_laid"].stop],
                                        sc[lay["private"].start: lay["belief"].stop]))
        self.lists_cut = lay["cards_laid"].stop
        self.sc_displays = sc[lay["displays"]]
        self.sc_piles = sc[lay["piles"]]
        self.player_slices = [(lay[f"player_{i}"].start, lay[f"player_{i}"].stop) for i in range(MAX_SEATS)]
        # blocks by the values they are built from (the seats' reserves and towers), for any game
        self._by_value: dict[tuple[Any, ...], np.ndarray] = {}
        self.zero_reserve = readonly(np.zeros(C.NUM_KINDS, dtype=np.float32))
        # the padding after n seats (read-only: only ever concatenated)
        self.zero_seats = [readonly(np.zeros(self.player_slices[-1][1] - self.player_slices[n][0], dtype=np.float32))
                           for n in range(MAX_SEATS)]
        # the front run (areas, spaces, five, cards_laid): per area (area, offset, its card spaces)
        st, nsp = game.area_start, game.area_spaces
        self.area_rows = [(a, i * AREA_VALUES, st[a], st[a] + nsp[a]) for i, a in enumerate(LIMITED_AREAS)]
        self.front_spaces = len(LIMITED_AREAS) * AREA_VALUES
        self.front_size = lay["cards_laid"].stop - lay["areas"].start
        self.__dict__.update(self.fresh_caches())

    def fresh_caches(self) -> dict[str, Any]:
        """``_parts``: (part, token of the part) -> the block built from it: several versions of a part
        at once (a search shows the observer many lines of play of one game in turn)."""
        return {"_parts": {}}

    def _part(self, state: AsaraState, part: Any, key: Any = None) -> Any:
        """The cached block ``key`` (default: ``part``) for the state's version of ``part``, else None."""
        return self._parts.get((part if key is None else key, state.changes.token(part)))

    def _keep(self, state: AsaraState, part: Any, value: Any, key: Any = None) -> Any:
        parts = self._parts
        if len(parts) >= MAX_CACHED_PARTS:
            parts.clear()
        parts[(part if key is None else key, state.changes.token(part))] = value
        return value

    def observe(self, s: AsaraState, p: int) -> np.ndarray:
        """Player p's information state (see the module docstring for the blocks).

        The head, front and back (which change at most decisions) are written as one list and scaled at
        once; the tiles (displays, piles, the seats' reserves and towers) come from cached blocks.  The
        result equals the plain reference encoder in tests/asara/asara_reference_obs.py.
        """
        self.use_caches_of(s)
        g = s.game
        n = g.num_players
        rel = [(q - p) % n for q in range(n)]
        v = self._head(s, p, g, rel)
        self._front(v, s, p, g, rel)
        self._back(v, s, p)
        a = np.array(v, dtype=np.float32)
        a *= self.sc_lists
        np.minimum(a, 1.0, out=a)
        cut = self.lists_cut
        return np.concatenate((a[:cut], *self._tiles(s, p, g), a[cut:]))

    def _head(self, s: AsaraState, p: int, g: AsaraGame, rel: list[int]) -> list[float]:
        """The meta, pending and seats blocks (their values final: the scale of these entries is 1)."""
        v = [0.0] * self.head_size
        v[M_YEAR + s.year - 1] = 1.0
        v[M_PLAYERS + g.num_players - 2] = 1.0
        v[M_CALIPH + rel[s.caliph]] = 1.0
        v[M_START + rel[s.start_player]] = 1.0
        v[M_TURN] = scaled_count(s.turn_no, TURN_SCALE)
        if g.pro:
            v[M_PRO] = 1.0
        phase = s.phase
        if phase < NUM_PHASES:
            v[M_PHASE + phase] = 1.0
        o = self.pending
        if s.p_area >= 0:
            v[o + P_AREA + s.p_area] = 1.0
        v[o + P_STEPS + s.b_left] = 1.0
        if phase == PH_BUILD:
            v[o + P_PLOT + s.p_space - g.area_start[C.CIRCLE]] = 1.0
            for m in range(C.NUM_MATERIALS):
                if s.open_[m]:
                    v[o + P_OPEN + m] = 1.0
        if s.p_fee:
            v[o + P_FEE] = 1.0
        if s.p_pile >= 0:
            v[o + P_PILE + s.p_pile] = 1.0
        if s.p_cards >= 0 and phase == PH_SPACE and s.current_player == p:
            v[o + P_CARDS + s.p_cards] = 1.0
        if s.lit_keep_left:
            v[o + P_LIT] = 1.0
        o = self.seats
        hide = g.options["human_realistic_obs"]
        money, prestige, hand_n = s.money, s.prestige, s.hand_n
        for q in range(g.num_players):
            b = o + 3 * rel[q]
            v[b] = scaled_count(money[q], MONEY_SCALE) if q == p or not hide else 0.0
            v[b + 1] = scaled_count(prestige[q], PRESTIGE_SCALE)
            v[b + 2] = scaled_count(hand_n[q], HAND_SCALE)
        return v

    def _tiles(self, s: AsaraState, p: int, g: AsaraGame) -> list[np.ndarray]:
        """The displays, piles and the seats' blocks (scaled, cached: the piles by their part's token, the
        others by the values they show)."""
        known = self._by_value
        if len(known) >= MAX_CACHED_PARTS:
            known.clear()
        k = ("d", *s.display)  # by value, as the seats' blocks
        disp = known.get(k)
        if disp is None:
            disp = known[k] = _scaled(s.display, self.sc_displays)
        piles = self._part(s, "piles")
        if piles is None:
            v = [0] * (C.NUM_KINDS + C.NUM_TYPES + 1)
            for t in range(C.NUM_TYPES):
                pile = s.piles[t]
                if pile:
                    v[t * C.KINDS_PER_TYPE: (t + 1) * C.KINDS_PER_TYPE] = map(pile.count, KIND_RANGE)
                v[C.NUM_KINDS + t] = len(pile)
            v[-1] = len(s.lit_stack)
            piles = self._keep(s, "piles", _scaled(v, self.sc_piles))
        return [disp, piles, *self._players(s, p, g)]

    def _front(self, v: list[float], s: AsaraState, p: int, g: AsaraGame, rel: list[int]) -> None:
        """Append the areas, spaces, five and cards_laid blocks (one contiguous run; unscaled) to ``v``."""
        f = [0.0] * self.front_size
        lead = s.lead
        card = s.space_card
        pairs = PAIR_CARD in card
        for a, b, lo, hi in self.area_rows:
            f[b + lead[a] + 1] = 1.0
            if pairs:
                f[b + AREA_VALUES - 1] = card[lo: hi].count(PAIR_CARD)
        j = self.front_spaces
        for o in s.space_owner:  # occupied, occupied by me
            if o >= 0:
                f[j] = 1.0
                if o == p:
                    f[j + 1] = 1.0
            j += 2
        f[j] = sum(s.five_by)
        j += 1
        ns = C.NUM_SUITS
        up, down = s.laid_up, s.laid_down
        for q in range(g.num_players):
            b = j + rel[q] * (ns + 1)
            f[b: b + ns] = up[q * ns: q * ns + ns]
            f[b + ns] = sum(down[q * ns: q * ns + ns])
        v += f

    def _back(self, v: list[float], s: AsaraState, p: int) -> None:
        """Append the private and belief blocks (unscaled) to ``v``."""
        b = Q.hand(s, p) + Q.laid_down(s, p) + Q.lit_reserve(s, p) + [0] * (2 * C.NUM_MATERIALS)
        if s.lit_stack:
            bit = 1 << p
            for j, m in enumerate(s.lit_stack):
                if s.lit_seen[j] & bit:
                    b[PR_STACK + m] += 1
        if s.current_player == p:
            for m in s.lit_drawn:
                b[PR_DRAWN + m] += 1
        b += s.unseen_cards(p)
        b.append(len(s.deck))
        v += b

    def _players(self, s: AsaraState, p: int, g: AsaraGame) -> list[np.ndarray]:
        """The pieces of the seats' reserves and towers, observer first."""
        n = g.num_players
        hide = g.options["human_realistic_obs"]
        pieces = []
        known = self._by_value  # keys: ("r", *reserve) and ("t", lit windows kept, *towers) of one seat
        res, tw = s.reserve, s.towers
        rw = C.NUM_KINDS
        tw_width = C.NUM_MATERIALS * g.slots * C.TOWER_FIELDS
        for i in range(n):
            q = (p + i) % n
            b, stop = self.player_slices[i]
            if q == p or not hide:  # the blocks are cached by value: the same holdings recur across the tree
                k = ("r", *res[q * rw: q * rw + rw])
                a = known.get(k)
                if a is None:
                    a = known[k] = _scaled(res[q * rw: q * rw + rw], self.scale[b: b + rw])
                pieces.append(a)
            else:
                pieces.append(self.zero_reserve)
            k = ("t", sum(Q.lit_reserve(s, q)), *tw[q * tw_width: q * tw_width + tw_width])
            a = known.get(k)
            if a is None:
                a = known[k] = _tower_block(s, q, self.scale[b + rw: stop])
            pieces.append(a)
        if n < MAX_SEATS:
            pieces.append(self.zero_seats[n])
        return pieces
