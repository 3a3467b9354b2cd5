"""A Haus der Sonne player that follows the game's own strategy.

* Sail the boat to a segment where it holds the higher disc sum (or is alone)
  and the cards there are worth more to it than to the opponent; never hand the
  opponent a good landing.
* Put discs where good cards lie and it can take the lead, preferably where one
  of its own discs can sail next turn; take a disc back when the supply runs dry.
* Walk the shaman up to high, free building fields that lava does not threaten,
  so that statue cards build where they pay most.
* Buy the scoring cards that pay for its statues and cards; steer lava (priestess,
  tactical lava disc) away from its statues and toward the opponent's.

It reads only public information (the whole board, both players' open cards,
the size of the piles); it never looks at the order of the palm piles.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from meeplezoo.envs.haus_der_sonne import actions as A
from meeplezoo.envs.haus_der_sonne import components as C
from meeplezoo.envs.haus_der_sonne import queries as Q
from meeplezoo.envs.haus_der_sonne.components import FaceType as FT
from meeplezoo.envs.haus_der_sonne.state import BUY_SHELL, BUY_WINDOW, MAIN, PICK, PRIESTESS, SHAMAN
from meeplezoo.knobs import Knob, Knobs

from ..base import Agent

#: value of a statue standing on a meadow / forest / mountain field (what the scoring cards pay)
LEVEL_VALUE = (0.0, 1.5, 2.5, 3.5)
#: chips needed on a crater field for lava to reach meadow / forest / mountain of that segment
CHIPS_TO_REACH = (0, 3, 2, 1)


def _pearl_points(w: int, b: int) -> int:
    pairs = min(w, b)
    return 4 * pairs + (w - pairs) + 2 * (b - pairs)


class HausDerSonneHeuristic(Agent):
    """Rule-of-thumb player for Haus der Sonne (both variants)."""

    name = "heuristic"
    uses_state = True
    uses_observation = False

    knobs = Knobs("haus_der_sonne heuristic", [
        Knob("noise", float, 0.01, "size of the random term added to each move's score (breaks ties)", low=0)])

    def __init__(self, seed: int | None = None, **options: Any) -> None:
        self.rng = np.random.default_rng(seed)
        self.noise: float = self.knobs.validate(options)["noise"]

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    # -- entry point ---------------------------------------------------------------
    def act(self, observation: np.ndarray, action_mask: np.ndarray, *, state: Any = None) -> int:
        if state is None:
            raise ValueError("the haus_der_sonne heuristic needs the engine state (uses_state=True)")
        legal = [int(a) for a in np.flatnonzero(action_mask)]
        if len(legal) == 1:
            return legal[0]
        scores = self.action_scores(state, legal)
        noise = self.rng.random(len(legal)) * self.noise
        return legal[int(np.argmax(np.asarray(scores) + noise))]

    def action_scores(self, state: Any, legal: list[int]) -> list[float]:
        """The value ``act`` gives each action in ``legal`` before its small random tie-break noise.

        Read by search as a prior; it uses nothing ``act`` would not, and no random numbers.
        """
        p = state.current_player
        ph = state.phase
        if ph == MAIN:
            return [self._main_value(state, p, a) for a in legal]
        if ph == SHAMAN:
            return [self._shaman_value(state, p, a) for a in legal]
        if ph == PICK:
            return [self._pick_value(state, p, a) for a in legal]
        if ph == PRIESTESS:
            return [self._priestess_value(state, p, a) for a in legal]
        if ph in (BUY_SHELL, BUY_WINDOW):
            return [self._buy_value(state, p, a, ph == BUY_WINDOW) for a in legal]
        return [0.0] * len(legal)

    # -- values of things ------------------------------------------------------------
    def _threatened(self, state: Any, field: int, crater: list[int] | None = None) -> bool:
        crater = state.crater if crater is None else crater
        lvl = C.FIELD_LEVEL[field]
        return crater[C.FIELD_SEGMENT[field]] >= CHIPS_TO_REACH[lvl]

    def lava_balance(self, state: Any, p: int, crater: list[int]) -> float:
        """Value of the opponent's statues this crater would destroy minus the value of ours."""
        total = 0.0
        protect = state.game.options["shaman_protects_statue"]
        for f in range(C.NUM_FIELDS):
            o = state.statue[f]
            if o < 0 or (protect and f in state.shaman):
                continue
            if self._threatened(state, f, crater):
                v = LEVEL_VALUE[C.FIELD_LEVEL[f]]
                total += v if o != p else -v
        return total

    def field_value(self, state: Any, p: int, f: int) -> float:
        """How good it is for ``p``'s shaman to stand on field ``f`` (a statue built here later)."""
        if f >= C.NUM_FIELDS:
            return 0.0
        o = state.statue[f]
        if o >= 0:
            # standing on one's own threatened statue protects it
            if o == p and state.game.options["shaman_protects_statue"] and self._threatened(state, f):
                return LEVEL_VALUE[C.FIELD_LEVEL[f]] * 0.8
            return 0.1 * C.FIELD_LEVEL[f]
        if state.statues_in_supply(p) == 0:
            return 0.0
        lvl = C.FIELD_LEVEL[f]
        v = LEVEL_VALUE[lvl]
        seg = C.FIELD_SEGMENT[f]
        if self._threatened(state, f):
            v *= 0.25
        mine = sum(1 for g in C.SEGMENT_FIELDS[seg] if state.statue[g] == p)
        v += 0.4 * mine  # majority / complete segment
        # statue cards within reach of the boat make this field pay soon
        statues_out = sum(1 for b in state.bays if b == C.STATUE)
        return v * (0.6 + 0.1 * min(statues_out, 4))

    def card_value(self, state: Any, p: int, face: int) -> float:
        """What receiving ``face`` is worth to ``p`` now."""
        if face < 0:
            return 0.0
        h = state.hand[p]
        q = state.hand[1 - p]
        scorings_left = 2 if state.round == 1 else 1
        t = C.FACE_TYPE[face]
        bonus = 0.4 * C.FACE_BUTTERFLY[face]
        if t == FT.STATUE:  # statue: built where the shaman stands
            f = state.shaman[p]
            if f < C.NUM_FIELDS and state.statue[f] < 0 and state.statues_in_supply(p):
                v = LEVEL_VALUE[C.FIELD_LEVEL[f]]
                if self._threatened(state, f) and f not in state.shaman:
                    v *= 0.3
                mine = sum(1 for g in C.SEGMENT_FIELDS[C.FIELD_SEGMENT[f]] if state.statue[g] == p)
                return v + 0.5 * mine
            return 0.0
        if t == FT.PRIESTESS:
            return 0.3 + max(0.0, self._best_priestess_gain(state, p))
        if t == FT.SHELL:
            return 1.6 + bonus
        if t == FT.FISH:  # fish basket: a majority is 3 points
            mine, theirs = h[C.FISH] + h[C.FISH_B], q[C.FISH] + q[C.FISH_B]
            gain = 3.0 if mine == theirs else 1.5 if mine + 1 == theirs else 0.8 if mine > theirs else 0.5
            return gain * scorings_left * 0.8 + bonus
        if t in (FT.WHITE, FT.BLACK):  # pearls
            w, b = h[C.WHITE] + h[C.WHITE_B], h[C.BLACK] + h[C.BLACK_B]
            new = _pearl_points(w + (t == FT.WHITE), b + (t == FT.BLACK))
            return (new - _pearl_points(w, b)) * scorings_left + bonus
        if t == FT.NAUTILUS:
            return 3.0 + bonus
        return 0.0

    def _best_priestess_gain(self, state: Any, p: int) -> float:
        base = self.lava_balance(state, p, state.crater)
        best = 0.0
        for c in range(C.NUM_SEGMENTS):
            if state.crater[c]:
                for d in (-1, 1):
                    cr = state.crater[:]
                    cr[c] -= 1
                    cr[(c + d) % C.NUM_SEGMENTS] += 1
                    best = max(best, self.lava_balance(state, p, cr) - base)
        return best

    def landing_value(self, state: Any, p: int, seg: int, my_extra: int = 0) -> float:
        """Value for ``p`` of the boat landing on ``seg`` now (``p`` being the active player)."""
        ms = Q.beach_sum(state, p, seg) + my_extra
        os_ = Q.beach_sum(state, 1 - p, seg)
        b0, b1 = Q.bay_pair(state, seg)
        cards = [b for b in (b0, b1) if b >= 0]
        if not cards or (ms == 0 and os_ == 0):
            return 0.0
        identical = state.cards_identical(b0, b1)
        if ms and (not os_ or ms > os_ or (ms == os_ and state.game.options["tie_first_picker"] == "active")):
            best = -1e9
            for i, c in enumerate(cards):
                rest = cards[1 - i] if len(cards) == C.BAYS_PER_SEGMENT else -1
                give = self.card_value(state, 1 - p, rest) if os_ and not identical else 0.0
                best = max(best, self.card_value(state, p, c) - 0.8 * give)
            return best
        # the opponent chooses first: assume he takes what is best for him
        his = max(range(len(cards)), key=lambda i: self.card_value(state, 1 - p, cards[i]))
        rest = cards[1 - his] if len(cards) == C.BAYS_PER_SEGMENT else -1
        mine = self.card_value(state, p, rest) if ms and not identical else 0.0
        return mine - 0.8 * self.card_value(state, 1 - p, cards[his])

    def _best_shaman_gain(self, state: Any, p: int) -> float:
        """How much the shaman move that follows a place/take-back is worth."""
        acts = state.game.dest_actions[state.shaman[p]][state.shaman[1 - p]]
        here = self.field_value(state, p, state.shaman[p])
        best = max(self.field_value(state, p, a - A.SHAMAN_TO0) for a in acts if a != A.SHAMAN_STAY) \
            if len(acts) > 1 else here
        return max(0.0, best - here)

    # -- decisions ---------------------------------------------------------------------
    def _main_value(self, state: Any, p: int, a: int) -> float:
        boat = state.boat
        if a == A.PASS:
            return -5.0
        if a == A.SAIL_ONE:
            return self.landing_value(state, p, (boat + 1) % 6)
        shaman_gain = self._best_shaman_gain(state, p)
        if a < A.TAKE_BACK0:
            lava = a >= A.PLACE_LAVA0
            v, seg = (a - A.PLACE_LAVA0 + 1, boat) if lava else (a // 6 + 1, a % 6)
            if seg == boat:  # sail v segments
                dest = (boat + v) % 6
                val = self.landing_value(state, p, dest) - 0.05 * v
                if lava:
                    cr = state.crater[:]
                    cr[dest] += 1
                    val += self.lava_balance(state, p, cr) - self.lava_balance(state, p, state.crater) - 0.3
                return val
            return self._setup_value(state, p, v, seg) + shaman_gain
        # take back a disc
        v = a - A.TAKE_BACK0 + 1
        seg = Q.disc_segment(state, p, v)
        ms = Q.beach_sum(state, p, seg)
        os_ = Q.beach_sum(state, 1 - p, seg)
        supply = len(Q.discs_in_supply(state, p))
        loss = 0.0
        if ms > os_ and ms - v <= os_:
            loss = 0.5 * max(0.0, self._segment_prize(state, p, seg))
        return shaman_gain - loss + (0.6 if supply == 0 else 0.1 if supply == 1 else -0.4)

    def _segment_prize(self, state: Any, p: int, seg: int) -> float:
        cards = Q.bay_cards(state, seg)
        return max((self.card_value(state, p, c) for c in cards), default=0.0)

    def _setup_value(self, state: Any, p: int, v: int, seg: int) -> float:
        """Placing disc ``v`` on beach ``seg`` (not the boat's): prepares a landing there."""
        ms = Q.beach_sum(state, p, seg)
        os_ = Q.beach_sum(state, 1 - p, seg)
        prize = self._segment_prize(state, p, seg)
        lead_before = ms > os_
        lead_after = ms + v > os_
        val = -0.06 * v
        if lead_after and not lead_before:
            reach = any(Q.disc_in_supply(state, p, d) and d != v and (state.boat + d) % 6 == seg
                        for d in range(1, 6))
            opp_reach = any(Q.disc_in_supply(state, 1 - p, d) and (state.boat + d) % 6 == seg
                            for d in range(1, 6))
            val += prize * (0.6 if reach else 0.35)
            if opp_reach and os_:
                val += 0.1  # he will not sail there now
        elif lead_before:
            val -= 0.3  # wasted: already leading there
        else:
            val -= 0.2
        return val

    def _shaman_value(self, state: Any, p: int, a: int) -> float:
        f = state.shaman[p] if a == A.SHAMAN_STAY else a - A.SHAMAN_TO0
        val = self.field_value(state, p, f)
        if f < C.NUM_FIELDS:
            val += 0.05 * C.FIELD_LEVEL[f]
        return val + (0.01 if a == A.SHAMAN_STAY else 0.0)

    def _pick_value(self, state: Any, p: int, a: int) -> float:
        k = a - A.PICK0
        L = state.land
        mine = Q.bay(state, L, k)
        rest = Q.bay(state, L, 1 - k)
        give = self.card_value(state, 1 - p, rest) if state.second == 1 - p else 0.0
        return self.card_value(state, p, mine) - 0.8 * give

    def _priestess_value(self, state: Any, p: int, a: int) -> float:
        if a == A.PRIESTESS_SKIP:
            return self.lava_balance(state, p, state.crater)
        c, d = (a - A.PRIESTESS0) >> 1, 1 if (a - A.PRIESTESS0) & 1 else -1
        cr = state.crater[:]
        cr[c] -= 1
        cr[(c + d) % C.NUM_SEGMENTS] += 1
        return self.lava_balance(state, p, cr)

    def item_value(self, state: Any, p: int, item: int) -> float:
        """Points the scoring-board item would bring ``p`` at the next scoring (board as it stands)."""
        st = state.statue
        if item == C.BUY_PRIESTESS:
            v = self._best_priestess_gain(state, p)
            if state.game.tactical and state.lava_disc[p] >= 0:
                v += 1.0
            return v

        def safe(f: int) -> bool:
            return st[f] == p and not (self._threatened(state, f) and f not in state.shaman)

        if item == C.SC_BUTTERFLIES:
            return float(sum(state.hand[p][f] for f in C.BUTTERFLY_FACES))
        if item == C.SC_MAJORITY:
            n = 0
            for fields in C.SEGMENT_FIELDS:
                m = sum(1 for f in fields if safe(f))
                t = sum(1 for f in fields if st[f] == 1 - p)
                n += m > t
            return 2.0 * n
        if item == C.SC_COMPLETE:
            return 4.0 * sum(1 for fields in C.SEGMENT_FIELDS if all(safe(f) for f in fields))
        if item == C.SC_FOREST:
            return 2.0 * sum(1 for f in range(6, 12) if safe(f))
        return 3.0 * sum(1 for f in range(12, 18) if safe(f))

    def _buy_value(self, state: Any, p: int, a: int, window: bool) -> float:
        final = state.round == C.FINAL_ROUND
        if a == A.BUY_PASS:
            # a kept shell is worth a point at the end, or a later purchase
            return 1.0 if final else 0.8
        item = a - A.BUY0
        v = self.item_value(state, p, item)
        if not window and item != C.BUY_PRIESTESS:
            # bought during play: statues still to come; also denies the card to the opponent
            if item in (C.SC_FOREST, C.SC_MOUNTAIN):
                lvl = 2 if item == C.SC_FOREST else 3
                f = state.shaman[p]
                if f < C.NUM_FIELDS and C.FIELD_LEVEL[f] == lvl and state.statue[f] < 0:
                    v += 1.0 * lvl
            v += 0.3 * self.item_value(state, 1 - p, item)
        return v - 0.4 * state.buy_cost(item)
