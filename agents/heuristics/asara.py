"""A rule-of-thumb Asara player, following the game's own strategy advice.

* Buy parts that complete towers: a base is worth most when its turret is
  already behind the screen (and vice versa), middle parts when a tower of that
  material stands or can be built; gold-decorated parts first (they score at
  every remaining year end).
* Build in large batches (many PP at once, fewer plots used), and build before
  the year runs out so towers and gold score at the year end.
* Keep money flowing through the bank; take the Caliph's favour when cheap.
* Put middle parts into the tallest tower of their material to contest the
  height awards.

It reads the public position and its own holdings only (hand, own face-down
cards); never another player's hand, the deck or pile order.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from meeplezoo.agents.base import Agent
from meeplezoo.envs.asara import components as C
from meeplezoo.envs.asara import queries as Q
from meeplezoo.envs.asara.actions import (
    AREA_BANK,
    AREA_BUILD1,
    AREA_CALIPH,
    AREA_FIVE,
    AREA_LIT,
    AREA_RECRUIT,
    AREA_SPIES,
    B_BASE,
    B_LIT,
    B_STOP,
    B_TURRET,
    LIT_DECLINE,
    MARKET_DECLINE,
    PAIRS,
    SPY_DECLINE,
    SPY_NOTHING,
    area_action_target,
)
from meeplezoo.envs.asara.state import (
    PH_AREA,
    PH_BUILD,
    PH_CARDS,
    PH_LIT_KEEP,
    PH_LIT_OFFER,
    PH_MARKET,
    PH_SPACE,
    PH_SPY_PILE,
    PH_SPY_TAKE,
)
from meeplezoo.knobs import Knobs

COIN_VALUE = 0.22  # PP per Asari spent on parts, roughly what a section returns
PAIR_PENALTY = 1.6  # a face-down pair spends a second card (a whole turn)
LAST_YEAR_SPARE_MONEY = 15  # above this, money in the last year is worth little
LOW_MONEY = 10  # below this, money weighs more
BANK_HUNGRY_MONEY = 12  # below this, the bank is worth more
LATE_CARDS = 2  # with this many cards or fewer left, build now
BIG_BATCH = 3  # batches of this many sections or more earn a bonus
NO_FEE = 99  # the fee of a space that does not exist


class AsaraHeuristic(Agent):
    """Greedy Asara strategy over the legal actions of each decision."""

    name = "heuristic"
    uses_state = True
    uses_observation = False

    knobs = Knobs("asara heuristic", [])

    def __init__(self, seed: int | None = None, **options: Any) -> None:
        self.knobs.validate(options)
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    # ------------------------------------------------------------------ helpers
    @staticmethod
    def _own(state: Any, p: int) -> dict[str, list[int]]:
        per = Q.reserves_by_type(state, p)
        return {"base": per[C.BASE], "trunk": per[C.TRUNK], "window": per[C.WINDOW], "turret": per[C.TURRET],
                "has": Q.towers_per_material(state, p), "tallest": Q.tallest_per_material(state, p)}

    def tile_value(self, state: Any, p: int, t: int, x: int, own: dict) -> float:
        """Worth of one section of type t and kind x (material*2+gold) to player p, in PP."""
        m, gold = Q.material_of(x), Q.is_gold(x)
        years_left = C.NUM_YEARS - state.year + 1
        disp_turret = Q.display(state, C.TURRET, m)
        disp_base = Q.display(state, C.BASE, m)
        mat = 0.25 * m  # dearer materials carry bigger height awards
        if t == C.BASE:
            if own["turret"][m] > own["base"][m]:
                v = 3.2
            elif disp_turret:
                v = 1.6
            else:
                v = 0.5
        elif t == C.TURRET:
            if own["base"][m] > own["turret"][m]:
                v = 3.2
            elif disp_base:
                v = 1.6
            else:
                v = 0.5
        else:
            if own["has"][m] or min(own["base"][m], own["turret"][m]) > 0:
                v = 2.6 + 0.1 * own["tallest"][m]
            else:
                v = 0.4
        if gold:
            v += 0.6 * years_left
        return v + mat

    def _money_weight(self, state: Any, p: int) -> float:
        money = state.money[p]
        if state.year == C.NUM_YEARS:
            return 0.1 if money > LAST_YEAR_SPARE_MONEY else COIN_VALUE  # left-over money: 1 PP per 10
        return COIN_VALUE * (1.6 if money < LOW_MONEY else 1.0)

    def _single_ok(self, state: Any, p: int, area: int) -> bool:
        if area == C.FIVE:
            return True
        lead = state.lead[area]
        h = Q.hand(state, p)
        return (lead < 0 and sum(h) > 0) or (lead >= 0 and h[lead] > 0)

    # ------------------------------------------------------------------ decisions
    def act(self, observation: np.ndarray, action_mask: np.ndarray, *, state: Any = None) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("asara heuristic: the action mask allows no action")
        if state is None:
            return int(legal[self.rng.integers(legal.size)])
        legal = legal.tolist()
        scores = self.action_scores(state, legal)
        if scores is None:
            return int(legal[0])
        best, best_v = legal[0], -1e18
        for a, sc in zip(legal, scores):
            v = sc + 1e-6 * self.rng.random()
            if v > best_v:
                best, best_v = a, v
        return int(best)

    def _scorer(self, phase: int) -> Any:
        return {PH_AREA: self._score_area, PH_CARDS: self._score_cards, PH_SPACE: self._score_space,
                PH_MARKET: self._score_market, PH_SPY_PILE: self._score_spy_pile, PH_SPY_TAKE: self._score_spy_take,
                PH_BUILD: self._score_build, PH_LIT_OFFER: self._score_lit_offer,
                PH_LIT_KEEP: self._score_lit_keep}.get(phase)

    def action_scores(self, state: Any, legal: list[int]) -> list[float] | None:
        """The value ``act`` gives each action in ``legal`` (higher is better; ``act`` plays the best, ties
        broken at random), or None in a phase where it plays the first legal action without scoring.

        Read by search as a prior; it uses nothing ``act`` would not, and no random numbers.
        """
        scorer = self._scorer(state.phase)
        if scorer is None:
            return None
        p = state.current_player
        own = self._own(state, p)
        return [scorer(state, p, a, own) for a in legal]

    def _score_area(self, state: Any, p: int, a: int, own: dict) -> float:
        g = state.game
        area, k = area_action_target(a)
        w = self._money_weight(state, p)
        money = state.money[p]
        cards_left = state.hand_n[p]
        single = self._single_ok(state, p, area)
        penalty = 0.0 if single else PAIR_PENALTY
        years_left = C.NUM_YEARS - state.year + 1
        if a < AREA_BANK:  # a market
            t = a
            best = 0.0
            for x in range(C.KINDS_PER_TYPE):
                if Q.display_kind(state, t, x) and Q.price(g, x) <= money:
                    best = max(best, self.tile_value(state, p, t, x, own) - w * Q.price(g, x))
            return best - penalty - 0.2
        if a == AREA_BANK:
            value = Q.vacant_bank_value(state)
            return value * w * (1.3 if money < BANK_HUNGRY_MONEY else 0.8) - penalty
        if AREA_BUILD1 <= a < AREA_SPIES:
            plot = state._plot_for(k)
            gold_bonus = 0.3 * years_left
            v = k * (1.0 + gold_bonus * 0.3) - (plot + 1) * w
            # build big batches; build anyway late in the year or in the last year
            urgency = 2.0 if cards_left <= LATE_CARDS or state.year == C.NUM_YEARS else 0.0
            batch = 0.8 * k if k >= BIG_BATCH else 0.0
            return v + batch + urgency + 1.0 - penalty
        if a == AREA_SPIES:
            vac = state._vacant(C.SPIES)
            fee = g.spy_fees[vac[0]] if vac else NO_FEE
            best = -1.0
            if fee < money:
                for t in range(C.NUM_TYPES):
                    for x in set(state.piles[t]):  # composition is public (every tile that left was shown)
                        if Q.price(g, x) + fee <= money:
                            best = max(best, self.tile_value(state, p, t, x, own) - w * (Q.price(g, x) + fee))
            return best - penalty - 0.5
        if a == AREA_CALIPH:
            return (1.3 if state.caliph != p else -1.0) - penalty
        if a == AREA_FIVE:
            return C.FIVE_VALUE * w * 0.8 - 0.3
        if a == AREA_RECRUIT:
            vac = state._vacant(C.RECRUIT)
            fee = min(g.recruit_fees[i] for i in vac) if vac else NO_FEE
            return 1.4 - fee * w - penalty
        if a == AREA_LIT:
            windows = sum(own["window"]) + sum(Q.uncovered_windows(rec) for _m, _s, rec in state.towers_of(p))
            return (1.5 + 0.3 * years_left if windows else 0.0) - C.LIT_OFFERS[0][0] * w - penalty
        return 0.0

    def _score_cards(self, state: Any, p: int, a: int, own: dict) -> float:
        c = a - state.game.codec.cards
        h = Q.hand(state, p)
        leads = set(state.lead)
        if c < C.NUM_SUITS:
            # keep suits that lead elsewhere (we may want to follow there), spend abundant ones
            return 10 + h[c] - (0.5 if c in leads else 0.0)
        s1, s2 = PAIRS[c - C.NUM_SUITS]
        return h[s1] + h[s2] - 1.0 * ((s1 in leads) + (s2 in leads))

    def _score_space(self, state: Any, p: int, a: int, own: dict) -> float:
        return -float(a)  # bank: highest value; spies/recruit: cheapest; circle: cheapest plot

    def _score_market(self, state: Any, p: int, a: int, own: dict) -> float:
        x = a - state.game.codec.market
        if x == MARKET_DECLINE:
            return 0.0
        w = self._money_weight(state, p)
        return self.tile_value(state, p, state.p_area, x, own) - w * Q.price(state.game, x)

    def _score_spy_pile(self, state: Any, p: int, a: int, own: dict) -> float:
        t = a - state.game.codec.spy_pile
        if t == SPY_DECLINE:
            return 0.0
        g = state.game
        fee = Q.spy_fee(state)
        w = self._money_weight(state, p)
        best = -fee * w
        for x in set(state.piles[t]):
            if Q.price(g, x) + fee <= state.money[p]:
                best = max(best, self.tile_value(state, p, t, x, own) - w * (Q.price(g, x) + fee))
        return best

    def _score_spy_take(self, state: Any, p: int, a: int, own: dict) -> float:
        x = a - state.game.codec.spy_take
        if x == SPY_NOTHING:
            return 0.0
        w = self._money_weight(state, p)
        return self.tile_value(state, p, state.p_pile, x, own) - w * Q.price(state.game, x)

    def _score_build(self, state: Any, p: int, a: int, own: dict) -> float:
        kind, m, gold, slot = state.game.codec.decode_build(a)
        if kind == B_STOP:
            return -5.0
        v = 1.0 + gold * 2.0 + 0.1 * m
        if kind == B_BASE:
            return v + 1.0
        if kind == B_TURRET:
            return v + 0.5
        if kind == B_LIT:
            return v + 1.5
        return v + 0.05 * Q.tower_height(Q.tower_record(state, p, m, slot))  # grow the tallest tower of the material

    def _score_lit_offer(self, state: Any, p: int, a: int, own: dict) -> float:
        i = a - state.game.codec.lit_offer
        if i == LIT_DECLINE:
            return 0.0
        return (1.0, 0.5)[i]

    def _score_lit_keep(self, state: Any, p: int, a: int, own: dict) -> float:
        if a >= state.game.codec.lit_order:  # ordering unkept windows under the stack: bury the dearest
            return float(a - state.game.codec.lit_order)
        m = a - state.game.codec.lit_keep
        uncov = sum(Q.uncovered_windows(rec) for mm, _s, rec in state.towers_of(p) if mm == m)
        return uncov + own["window"][m] + 0.1 * m
