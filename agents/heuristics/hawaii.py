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
from meeplezoo.envs.hawaii.components import (
    BOAT,
    EXCHANGE_HUT,
    FEET,
    FOOT_HUT,
    FRUIT,
    FRUIT_TYPES,
    HULA,
    IRRIGATION,
    ISL_FRUIT4,
    ISL_KAHUNA2,
    ISL_TIKI2,
    ISL_VP5,
    ISLAND_KIND,
    ISLAND_VP,
    KAHUNA,
    KAHUNA_SPACES,
    KANALOA,
    KANE,
    KU,
    LAKA,
    LONG_HUT,
    LONO,
    NUM_ROUNDS,
    NUM_SLOTS,
    PELE,
    SHELL_HUT,
    SHELLS,
    SPEAR_HUT,
    SURFER,
    TIKI,
    TIKI_SPACES,
    TOKEN_FISH,
    TOKEN_VALUE,
)

SHELL_VP = 0.45  # what a shell is worth in VP when spent
FOOT_VP = 0.5


class HawaiiHeuristic(Agent):
    """Greedy value-per-turn player for Hawaii (uses only public state and its own holdings)."""

    uses_state = True
    name = "heuristic"

    def __init__(self, seed: int | None = None, **options: Any) -> None:
        if options:
            raise ValueError(f"hawaii heuristic takes no options, got {sorted(options)}")
        self.rng = np.random.default_rng(seed)
        self.plan: tuple[int, int, int, int] | None = None

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self.plan = None

    # ------------------------------------------------------------------ values
    def _rounds_left(self, s: Any) -> int:
        return NUM_ROUNDS - 1 - s.round  # income events still to come

    def _best_row(self, s: Any, p: int, t: int) -> int:
        rows = s.village_rows_for(p, t)
        if not rows:
            return -1
        existing = [r for r in rows if r < len(s.rows[p])]
        if existing:
            # grow the longest village that can take the tile (villages must reach a Tiki)
            return max(existing, key=lambda r: (s.row_columns(s.rows[p][r]), -r))
        return rows[0]

    def _row_scored_chance(self, s: Any, p: int, r: int, extra_cols: int = 1) -> float:
        if r >= len(s.rows[p]):
            cols = extra_cols
        else:
            cols = s.row_columns(s.rows[p][r]) + extra_cols
        k = s.game.options["tiki_space1_column"]
        gap = k + 1 - cols - s.tikis[p]
        if gap <= 0 and s.tikis[p] > 0:
            return 1.0
        return max(0.15, 1.0 - 0.12 * gap)

    def tile_value(self, s: Any, p: int, t: int, side: int) -> float:
        """Rough VP value of owning tile t (side 1/2; Kahuna/Tiki side 2 = two tiles)."""
        left = self._rounds_left(s)
        late = s.round >= NUM_ROUNDS - 1
        o = s.game.options
        if t == TIKI:
            room = TIKI_SPACES - s.tikis[p]
            count = min(side, room)
            per = 9.0 if s.tikis[p] < 3 else 5.0
            return per * count
        if t == KAHUNA:
            v = 0.0
            for k in range(min(side, KAHUNA_SPACES - s.kahunas[p])):
                r = s.kahunas[p] + k
                v += o["kahuna_vp"][r] * self._row_scored_chance(s, p, r, 0) * 0.8
                v += o["kahuna_bonus_shells"][r] * SHELL_VP
            return v
        if t == BOAT:
            kan = s.side_of(p, KANALOA)
            return (1.5 if not late else 0.3) + 2 * kan
        row = self._best_row(s, p, t)
        if row < 0:
            return -100.0
        chance = self._row_scored_chance(s, p, row)
        grow = 1.2 * chance  # a tile moves its village towards the Tikis
        if row == len(s.rows[p]):
            grow = 2.0 if len(s.rows[p]) < 2 else 0.5
        base = 0.0
        if t == SHELL_HUT:
            base = left * side * 1.0 * SHELL_VP * 2
        elif t == FOOT_HUT:
            base = left * side * 1.0 * FOOT_VP * 2
        elif t == SPEAR_HUT:
            base = (left + 1) * side * 1.0
        elif t == EXCHANGE_HUT:
            base = 0.5 + 0.3 * left
        elif t == LONG_HUT:
            base = 2.0 * chance + (5 * chance if side == 2 else 0)
        elif t == IRRIGATION:
            nf = sum(1 for c in s.rows[p][row] if (c >> 1) in FRUIT_TYPES) if row < len(s.rows[p]) else 0
            base = o["irrigation_vp"][min(nf + 1, 4)] * chance + (left * 1.0 if side == 2 else 0)
        elif t == HULA:
            n = len(s.rows[p][row]) + 3 if row < len(s.rows[p]) else 3
            base = n * side * chance
        elif t in FRUIT_TYPES:
            base = left * side * 0.9
            if row < len(s.rows[p]):
                codes = [c >> 1 for c in s.rows[p][row]]
                if IRRIGATION in codes:
                    base += 3 * chance
            if s.side_of(p, LAKA):
                base += side * chance
        elif t == SURFER:
            base = (left + 1) * side * 1.2 + 2 * s.side_of(p, KANALOA) * chance
        elif t == LONO:
            base = (left + 1) * 2 * side * 0.8
        elif t == KANE:
            base = left * side * SHELL_VP + 3
        elif t == KU:
            base = (left + 1) * side * 0.8 + left * FOOT_VP
        elif t == PELE:
            base = left * 1.5 * side
        elif t == LAKA:
            sym = sum(1 + (c & 1) for rr in s.rows[p] for c in rr if (c >> 1) in FRUIT_TYPES)
            base = side * (sym + 2) * chance
        elif t == KANALOA:
            n = len(s.boats[p]) + s.own[p][SURFER]
            base = 2 * side * (n + 1) * chance
        return base + grow

    # ---------------------------------------------------------------- choices
    def _need(self, s: Any, p: int) -> float:
        """How much more round sum p needs to reach his target."""
        return s.target_of(p) - s.round_sum(p)

    def _token_value(self, s: Any, p: int, v: int) -> float:
        need = self._need(s, p)
        if need <= 0:
            return 0.3 * v
        val = 0.6 * min(v, need)
        if v >= need:
            val += 3.0
        return val

    def _best_buy(self, s: Any, p: int) -> tuple[float, tuple[int, int, int, int]] | None:
        best = None
        for slot in range(NUM_SLOTS):
            circles = s.circles[slot]
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
                for side in (1, 2):
                    price = v * side
                    if not s.can_afford(p, [(move, FEET), (price, SHELLS)]):
                        continue
                    for t in tiles:
                        if side == 2 and not s.can_place(p, t, True):
                            continue
                        val = self.tile_value(s, p, t, side) + self._token_value(s, p, v)
                        val -= price * SHELL_VP + move * FOOT_VP
                        if best is None or val > best[0]:
                            best = (val, (slot, c, t, side))
        return best

    def _island_value(self, s: Any, p: int, d: int) -> float:
        o = s.game.options
        isl = s.docks[d]
        k = ISLAND_KIND[isl]
        v = o["dock_vp"][d] - o["dock_cost"][d] * FOOT_VP
        if k == ISL_VP5:
            v += ISLAND_VP
        elif k == ISL_FRUIT4:
            v += 4 * 0.5
        elif k == ISL_KAHUNA2:
            v += self.tile_value(s, p, KAHUNA, 2) if s.can_place(p, KAHUNA, False) else 0
        elif k == ISL_TIKI2:
            v += self.tile_value(s, p, TIKI, 2) if s.can_place(p, TIKI, False) else 0
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
            fish = sum(TOKEN_FISH[t] for t in s.cove[:3])
            val = (0.8 * min(fish, max(need, 0)) + (3.0 if 0 < need <= fish else 0.0)) - 1.0
            options.append((val, A.MAIN_FISH))
        for d in range(4):
            if mask[A.MAIN_ISLAND + d]:
                options.append((self._island_value(s, p, d), A.MAIN_ISLAND + d))
        for sp in range(5):
            a = A.MAIN_PASS + sp
            if mask[a]:
                tok = s.seq[sp]
                v = TOKEN_VALUE[tok] if tok >= 0 else 0
                val = self._token_value(s, p, v) * 0.7 + (0.8 if sp == 0 else 0.0) - 0.1 * sp
                options.append((val, a))
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
            return off + max(cands, key=lambda t: self.tile_value(s, p, t, 2))
        if ph == A.SIDE:
            if plan and plan[2] == s.c_tile and mask[off + plan[3] - 1]:
                return off + plan[3] - 1
            return int(legal[-1])
        if ph == A.ROW:
            r = self._best_row(s, p, s.c_tile)
            if r >= 0 and mask[off + r]:
                return off + r
        if ph in (A.PAY, A.SPLIT):
            return self._pay(s, p, mask, ph)
        if ph == A.KANE:
            if s.round < NUM_ROUNDS - 1 and len(legal) > 1:
                r = s.res[p]
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
            r = s.res[p]
            return off + (FRUIT if r[FRUIT] < min(r[SHELLS], r[FEET]) else (SHELLS if r[SHELLS] <= r[FEET] else FEET))
        return int(legal[0])


def _kane(i: int) -> tuple[int, int, int]:
    from meeplezoo.envs.hawaii.components import KANE_PAYMENTS

    return KANE_PAYMENTS[i - 1]
