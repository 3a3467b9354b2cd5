"""A Hawaii heuristic that plays by the game's own strategy.

It secures Tikis early (only villages that reach a Tiki score at the end), puts Kahunas in front
of villages it means to finish, grows one or two long villages, reaches the round target with
price tokens and fish, buys the double side when it can afford it, visits islands for their VP
and ends its round when nothing useful is left. It reads only public information and its own
holdings (the engine's legal-move and affordability helpers, which use nothing hidden).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from meeplezoo.agents.base import Agent
from meeplezoo.envs.hawaii import actions as A
from meeplezoo.envs.hawaii import queries as Q
from meeplezoo.envs.hawaii.components import (
    BOAT,
    EXCHANGE_HUT,
    FEET,
    FOOT_HUT,
    FRUIT,
    FRUIT_TYPES,
    HULA,
    HULA_VP,
    IRRIGATION,
    ISL_FRUIT4,
    ISL_KAHUNA2,
    ISL_TIKI2,
    ISL_VP5,
    ISLAND_FRUIT,
    ISLAND_KIND,
    ISLAND_VP,
    KAHUNA,
    KAHUNA_SPACES,
    KANALOA,
    KANALOA_VP,
    KANE,
    KANE_PAYMENTS,
    KU,
    LAKA,
    LAKA_VP,
    LONG_HUT,
    LONG_HUT_II_VP,
    LONO,
    NUM_DOCKS,
    NUM_SLOTS,
    PELE,
    SEQ_SPACES,
    SHELL_HUT,
    SHELLS,
    SIDE_I,
    SIDE_II,
    SPEAR_HUT,
    SURFER,
    TIKI,
    TIKI_SPACES,
    TOKEN_VALUE,
)
from meeplezoo.knobs import Knobs

SHELL_VP = 0.45  # what a shell is worth in VP when spent
FOOT_VP = 0.5
SLOW_NEW_VILLAGE = 2  # from this many villages on, founding another is penalised
EARLY_TIKIS = 3  # the first Tikis are worth extra (0: most, then up to this many)
FISH_LOOKAHEAD = 3  # the cove tokens a fishing trip is judged by


class HawaiiHeuristic(Agent):
    """Greedy value-per-turn player for Hawaii (uses only public state and its own holdings)."""

    uses_state = True
    uses_observation = False
    name = "heuristic"

    knobs = Knobs("hawaii heuristic", [])

    def __init__(self, seed: int | None = None, **options: Any) -> None:
        self.knobs.validate(options)
        self.rng = np.random.default_rng(seed)
        self.plan: tuple[int, int, int, int] | None = None

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self.plan = None

    # ------------------------------------------------------------------ values
    def _rounds_left(self, s: Any) -> int:
        return Q.rounds_left(s)  # income events still to come

    # The realm is judged by a potential: every village's end-game VP as if it were scored, weighted
    # by how likely it is to reach under a Tiki (its gap in columns, and the rounds left to close it).
    def _reach(self, s: Any, cols: int, tikis: int) -> float:
        k = s.game.options["tiki_space1_column"]
        gap = k + 1 - cols - tikis
        if tikis == 0:
            gap = max(gap, 1) + 1  # no village counts before a first Tiki
        if gap <= 0:
            return 1.0
        left = self._rounds_left(s) + 1  # rounds in which to buy tiles or Tikis
        return max(0.0, 0.8 ** gap * min(1.0, left * 2.5 / (gap + 1)))

    def potential(self, s: Any, p: int, rows: list[list[int]], kahunas: int, tikis: int, boats: int) -> float:
        o = s.game.options
        width = s.game.long_hut_width
        reach = []
        for row in rows:
            cols = len(row) + (width - 1 if Q.has_long_hut(row) else 0)
            reach.append(self._reach(s, cols, tikis))
        symbols = surfers = 0.0
        for q, row in zip(reach, rows):
            for code in row:
                t = Q.tile_type(code)
                if t in FRUIT_TYPES:
                    symbols += q * Q.tile_side(code)
                elif t == SURFER:
                    surfers += q
        total = 0.0
        for r, row in enumerate(rows):
            v = o["kahuna_vp"][r] if r < kahunas else 0
            nfruit = sum(1 for code in row if Q.tile_type(code) in FRUIT_TYPES)
            for code in row:
                t, side = Q.tile_type(code), Q.tile_side(code)
                if t == LONG_HUT and side == SIDE_II:
                    v += LONG_HUT_II_VP
                elif t == HULA:
                    v += HULA_VP[side - 1] * len(row)
                elif t == IRRIGATION:
                    v += o["irrigation_vp"][min(nfruit, len(o["irrigation_vp"]) - 1)]
                elif t == LAKA:
                    v += LAKA_VP[side - 1] * symbols
                elif t == KANALOA:
                    v += KANALOA_VP[side - 1] * (boats + surfers)
            total += reach[r] * v
        # Kahunas in front of villages not founded yet still count a little
        for r in range(len(rows), kahunas):
            total += 0.25 * o["kahuna_vp"][r]
        return total

    def _realm(self, s: Any, p: int) -> tuple[list[list[int]], int, int, int]:
        return [row[:] for row in Q.villages(s, p)], Q.kahunas(s, p), Q.tikis(s, p), Q.boat_count(s, p)

    def _base_potential(self, s: Any, p: int) -> float:
        rows, k, t, b = self._realm(s, p)
        return self.potential(s, p, rows, k, t, b)

    def _best_row(self, s: Any, p: int, t: int, side: int = 1) -> tuple[int, float]:
        """The village where tile t adds most potential, and that gain."""
        rows_ok = s.village_rows_for(p, t)
        if not rows_ok:
            return -1, -100.0
        base = self._base_potential(s, p)
        best = (-1, -1e9)
        for r in rows_ok:
            rows, k, ti, b = self._realm(s, p)
            if r == len(rows):
                rows.append([])
            rows[r].append(Q.tile_code(t, side))
            gain = self.potential(s, p, rows, k, ti, b) - base
            nv = Q.village_count(s, p)
            if r == nv:
                gain -= 1.0 if nv >= SLOW_NEW_VILLAGE else 0.0  # a new village is slow to reach the Tikis
            else:
                gain += 0.05 * Q.village_length(s, p, r)  # grow long villages
            if gain > best[1]:
                best = (r, gain)
        return best

    def tile_value(self, s: Any, p: int, t: int, side: int) -> float:
        """VP value of owning tile t (side 1/2; Kahuna/Tiki side 2 = two tiles): potential gain plus income."""
        left = self._rounds_left(s)
        base = self._base_potential(s, p)
        rows, k, ti, b = self._realm(s, p)
        o = s.game.options
        if t == TIKI:
            n = min(side, TIKI_SPACES - ti)
            bonus = sum(o["tiki_bonus_feet"][ti + i] for i in range(n)) * FOOT_VP
            early = sum(3.0 if ti + i == 0 else (1.0 if ti + i < EARLY_TIKIS else 0.3) for i in range(n))
            return self.potential(s, p, rows, k, ti + n, b) - base + bonus + early
        if t == KAHUNA:
            n = min(side, KAHUNA_SPACES - k)
            bonus = sum(o["kahuna_bonus_shells"][k + i] for i in range(n)) * SHELL_VP
            return self.potential(s, p, rows, k + n, ti, b) - base + bonus
        if t == BOAT:
            return self.potential(s, p, rows, k, ti, b + 1) - base + (1.0 if left else 0.2)
        row, gain = self._best_row(s, p, t, side)
        if row < 0:
            return -100.0
        v = gain
        if t == SHELL_HUT:
            v += left * side * SHELL_VP * 1.5
        elif t == FOOT_HUT:
            v += left * side * FOOT_VP * 1.5
        elif t == SPEAR_HUT:
            v += (left + 1) * side * 1.0
        elif t == EXCHANGE_HUT:
            v += 0.3 * left
        elif t == IRRIGATION and side == SIDE_II:
            v += left * 0.5
        elif t in FRUIT_TYPES:
            v += left * side * 0.5
        elif t == SURFER:
            v += (left + 1) * side * 1.2
        elif t == LONO:
            v += (left + 1) * 2 * side * 0.7
        elif t == KANE:
            v += left * side * SHELL_VP * 1.5 + 2
        elif t == KU:
            v += (left + 1) * side * 0.8 + left * FOOT_VP
        elif t == PELE:
            v += left * 1.2 * side
        return v + 0.6  # every tile is a column towards the Tikis

    # ---------------------------------------------------------------- choices
    def _need(self, s: Any, p: int) -> float:
        """How much more round sum p needs to reach his target."""
        return s.target_of(p) - s.round_sum(p)

    def _token_value(self, s: Any, p: int, v: int) -> float:
        need = self._need(s, p)
        if need <= 0:
            return 0.3 * v
        vp1, vp2, vp3 = Q.round_vp(s)
        val = 0.6 * min(v, need)
        if v >= need:
            val += vp3 + 0.3 * (vp1 - vp3)  # reaching the target scores at least the check-mark VP
        return val

    def _best_buy(self, s: Any, p: int) -> tuple[float, tuple[int, int, int, int]] | None:
        best = None
        for slot in range(NUM_SLOTS):
            circles = Q.circles(s, slot)
            if not any(t >= 0 for t in circles):
                continue
            move = s.move_cost(p, slot)
            tiles = [t for t in s.offered_tiles(slot) if s.can_place(p, t, False)]
            if not tiles:
                continue
            for c, tok in enumerate(circles):
                if tok < 0:
                    continue
                v = TOKEN_VALUE[tok]
                for side in (SIDE_I, SIDE_II):
                    price = v * side
                    if not s.can_afford(p, [(move, FEET), (price, SHELLS)]):
                        continue
                    for t in tiles:
                        if side == SIDE_II and not s.can_place(p, t, True):
                            continue
                        val = self.tile_value(s, p, t, side) + self._token_value(s, p, v)
                        val -= price * SHELL_VP + move * FOOT_VP
                        if best is None or val > best[0]:
                            best = (val, (slot, c, t, side))
        return best

    def _island_value(self, s: Any, p: int, d: int) -> float:
        o = s.game.options
        isl = Q.dock_island(s, d)
        k = ISLAND_KIND[isl]
        v = o["dock_vp"][d] - o["dock_cost"][d] * FOOT_VP
        if k == ISL_VP5:
            v += ISLAND_VP
        elif k == ISL_FRUIT4:
            v += ISLAND_FRUIT * 0.5
        elif k == ISL_KAHUNA2:
            v += self.tile_value(s, p, KAHUNA, SIDE_II) if s.can_place(p, KAHUNA, False) else 0
        elif k == ISL_TIKI2:
            v += self.tile_value(s, p, TIKI, SIDE_II) if s.can_place(p, TIKI, False) else 0
        else:
            v += 3.0
        return v

    def _main(self, s: Any, p: int, mask: np.ndarray) -> int:
        options: list[tuple[float, int]] = []
        buy = self._best_buy(s, p)
        if buy is not None and mask[buy[1][0]]:
            options.append((buy[0], buy[1][0]))
            self.plan = buy[1]
        need = self._need(s, p)
        if mask[A.MAIN_FISH]:
            fish = Q.cove_fish(s, FISH_LOOKAHEAD)
            val = (0.8 * min(fish, max(need, 0)) + (3.0 if 0 < need <= fish else 0.0)) - 1.0
            options.append((val, A.MAIN_FISH))
        for d in range(NUM_DOCKS):
            if mask[A.MAIN_ISLAND + d]:
                options.append((self._island_value(s, p, d), A.MAIN_ISLAND + d))
        for sp in range(SEQ_SPACES):
            a = A.MAIN_PASS + sp
            if mask[a]:
                tok = Q.sequence_token(s, sp)
                v = TOKEN_VALUE[tok] if tok >= 0 else 0
                val = self._token_value(s, p, v) * 0.7 + (0.8 if sp == 0 else 0.0) - 0.1 * sp
                options.append((val, a))
        if not options:
            raise ValueError("hawaii heuristic: the action mask allows no action")
        best = max(options, key=lambda x: x[0])
        return best[1]

    def _pay(self, s: Any, p: int, mask: np.ndarray, phase: int) -> int:
        off = s.game.codec.offsets[phase]
        legal = np.flatnonzero(mask[off:off + s.game.pay_size])
        # pay with the required resource first, fruit only when short
        return int(off + legal[0])

    def act(self, observation: np.ndarray, action_mask: np.ndarray, *, state: Any = None) -> int:
        s = state
        legal = np.flatnonzero(action_mask)
        if s is None:
            return int(legal[self.rng.integers(len(legal))])
        p = s.current_player
        ph = s.phase
        codec = s.game.codec
        off = codec.offsets[ph]
        mask = action_mask.astype(bool)
        if ph == A.MAIN:
            return int(self._main(s, p, mask[:A.MAIN_SIZE]))
        plan = self.plan
        if ph == A.TOKEN and plan and plan[0] == s.c_slot and mask[off + plan[1]]:
            return off + plan[1]
        if ph == A.TILE:
            if s.kind == 1 and plan and mask[off + plan[2]]:
                return off + plan[2]
            cands = [int(a) - off for a in legal]
            return off + max(cands, key=lambda t: self.tile_value(s, p, t, SIDE_II))
        if ph == A.SIDE:
            if plan and plan[2] == s.c_tile and mask[off + plan[3] - 1]:
                return off + plan[3] - 1
            return int(legal[-1])
        if ph == A.ROW:
            r, _ = self._best_row(s, p, s.c_tile, s.c_side or SIDE_II)
            if r >= 0 and mask[off + r]:
                return off + r
        if ph in (A.PAY, A.SPLIT):
            return self._pay(s, p, mask, ph)
        if ph == A.KANE:
            if Q.rounds_left(s) > 0 and len(legal) > 1:
                r = Q.resources(s, p)
                # pay with what is most plentiful
                best = max(legal[1:], key=lambda a: -sum(
                    x / (1 + r[k]) for k, x in enumerate(_kane(a - off))))
                return int(best)
            return off
        if ph == A.FISH:
            return int(legal[-1])
        if ph == A.BOATS:
            if mask[off + A.BOAT_DONE]:
                return off + A.BOAT_DONE
            return int(legal[-1])
        if ph == A.IRRIG:
            r = Q.resources(s, p)
            return off + (FRUIT if r[FRUIT] < min(r[SHELLS], r[FEET]) else (SHELLS if r[SHELLS] <= r[FEET] else FEET))
        return int(legal[0])


def _kane(i: int) -> tuple[int, int, int]:
    return KANE_PAYMENTS[i - 1]
