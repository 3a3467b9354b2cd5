"""A Kerala heuristic that plays by the game's own strategy.

It judges every choice by the player's *provisional final score* (rules file
§9 applied to the platform as it would be after the choice): that one number
already rewards keeping one area per colour (two of the own colour), having all
five colours, high-symbol tiles on top and colored edges touching their second
colour, and it charges every tile that would have to be removed.  On top of it:

* an edge tile whose edge faces an empty cell gets a small bonus (it may still
  be completed); placements next to many tiles are preferred (a compact
  platform keeps areas joinable, a snake splits them) and keep the elephants
  next to free cells;
* it passes only when every placement costs clearly more than the lying
  elephant (-1) and a pass is left;
* move-elephant moves an elephant next to the most free cells; move-tile
  moves a stack only if the provisional score rises.

It reads only public information (the platforms and the offer) through the
engine state; it never looks into the bag.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from meeplezoo.agents.base import Agent
from meeplezoo.envs.kerala import components as C
from meeplezoo.envs.kerala import queries as Q
from meeplezoo.envs.kerala.actions import PICK_IDS
from meeplezoo.envs.kerala.state import KeralaState, score_platform
from meeplezoo.knobs import Knob, Knobs

#: a pass must beat the best placement by this much (passes are few and cost a point)
PASS_MARGIN = 1.0
OPEN_EDGE_BONUS = 1.0
FREEDOM_WEIGHT = 0.05
#: per occupied neighbour of the target cell: compact platforms keep areas joinable
#: (0.5 won about 65% of 80 two-player games against the same heuristic without it)
COMPACT_WEIGHT = 0.5


class KeralaHeuristic(Agent):
    """Greedy on the provisional final score, with small positional terms."""

    name = "heuristic"
    uses_state = True
    uses_observation = False

    knobs = Knobs("kerala heuristic", [
        Knob("pass_margin", float, PASS_MARGIN, "how much better than passing a placement must score to be played")])

    def __init__(self, seed: int | None = None, **options: Any) -> None:
        self.rng = np.random.default_rng(seed)
        self.pass_margin: float = self.knobs.validate(options)["pass_margin"]

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    # -- evaluation --------------------------------------------------------------------------------
    @staticmethod
    def _value(state: KeralaState, player: int, stacks: dict[int, tuple[int, ...]], standing: int) -> float:
        g = state.game
        total = score_platform(g, stacks, Q.colour(state, player), standing).total
        # open edges: an edge tile on top whose edge faces an empty cell may still score
        return total + OPEN_EDGE_BONUS * Q.open_edges(g, stacks)

    @staticmethod
    def _freedom(state: KeralaState, stacks: dict[int, tuple[int, ...]], cells: tuple[int, int]) -> int:
        return len(Q.free_cells_around(state.game, stacks, cells))

    # -- decisions -----------------------------------------------------------------------------------
    def act(self, observation: np.ndarray, action_mask: np.ndarray, *, state: Any = None) -> int:
        if state is None:
            raise ValueError("kerala heuristic needs the engine state (uses_state=True)")
        legal = np.flatnonzero(action_mask)
        if legal.size == 1:
            return int(legal[0])
        phase = state.phase
        if phase == C.PHASE_PICK:
            return self._pick(state, legal)
        if phase == C.PHASE_MOVE_ELEPHANT:
            return self._move_elephant(state, legal)
        if phase in (C.PHASE_MOVE_TILE_SRC, C.PHASE_MOVE_TILE_DST):
            return self._move_tile(state, legal)
        return self._rotate(state, legal)

    def _pick(self, state: KeralaState, legal: np.ndarray) -> int:
        look = Q.pick_lookahead(state)
        best, best_a = -1e9, int(legal[0])
        pass_action = None
        for a in legal.tolist():
            if a >= PICK_IDS:
                pass_action = a if pass_action is None else pass_action
                continue
            v = self._placement_value(look.effect(a))
            v += 1e-6 * self.rng.random()  # break ties at random
            if v > best:
                best, best_a = v, a
        if pass_action is not None:
            if self._pass_value(state, look) > best + self.pass_margin:
                return pass_action
        return best_a

    @staticmethod
    def _placement_value(eff: Q.PickEffect) -> float:
        """The value of a pick-and-place from its effect on the platform (``queries.pick_lookahead``)."""
        v = eff.total + OPEN_EDGE_BONUS * eff.open_edges + FREEDOM_WEIGHT * eff.free
        return v + COMPACT_WEIGHT * eff.occupied

    def _pass_value(self, state: KeralaState, look: Q.PickLookahead) -> float:
        """The value of passing: the platform as it stands with one elephant more lying down."""
        p = state.current_player
        return self._value(state, p, Q.platform(state, p), state.standing(p) - 1) + FREEDOM_WEIGHT * look.before.free

    def action_scores(self, state: KeralaState, legal: list[int]) -> list[float] | None:
        """Pick phase: the value ``act`` gives each action in ``legal`` (a pass scores its value less the
        pass margin, since ``act`` passes only when it beats the best placement by that margin); None in
        the other phases, where ``act`` decides without scoring every action.

        Read by search as a prior; it uses nothing ``act`` would not, and no random numbers.  The
        placements' values come from the position's one-step lookahead (``queries.pick_lookahead``), which
        the ``pick_afterstate`` observation shares.
        """
        if state.phase != C.PHASE_PICK:
            return None
        look = Q.pick_lookahead(state)
        out = []
        v_pass = None
        for a in legal:
            if a >= PICK_IDS:
                if v_pass is None:
                    v_pass = self._pass_value(state, look) - self.pass_margin
                out.append(v_pass)
                continue
            out.append(self._placement_value(look.effect(a)))
        return out

    def _move_elephant(self, state: KeralaState, legal: np.ndarray) -> int:
        g = state.game
        p = state.current_player
        stacks = Q.platform(state, p)
        els = Q.elephant_cells(state, p)
        codec = g.codec
        best = self._freedom(state, stacks, tuple(els))
        best_a = codec.skip
        for a in legal.tolist():
            if a == codec.skip:
                continue
            e, cell = divmod(a - codec.move_elephant_base, g.num_cells)
            moved = (Q.padded_cell(g, cell), els[1 - e])
            f = self._freedom(state, stacks, moved) + 1e-6 * self.rng.random()
            if f > best:
                best, best_a = f, a
        return int(best_a)

    def _move_tile(self, state: KeralaState, legal: np.ndarray) -> int:
        g = state.game
        p = state.current_player
        stacks = Q.platform(state, p)
        standing = state.standing(p)
        codec = g.codec
        pairs = state.move_tile_pairs()
        base = self._value(state, p, stacks, standing)
        best, best_pair = base + 0.5, None  # move only for a real gain
        sources = [Q.move_tile_cell(state)] if state.phase == C.PHASE_MOVE_TILE_DST else list(pairs)
        for s in sources:
            for q in pairs[s]:
                trial = dict(stacks)
                stack = trial.pop(s)
                trial[q] = stack
                v = self._value(state, p, trial, standing)
                if Q.is_edge(g, stack[-1]) and g.options["move_tile_may_rotate"]:
                    v = max(v, max(self._value(state, p, Q.turned(g, trial, q, o), standing) for o in range(4)))
                if v > best:
                    best, best_pair = v, (s, q)
        if state.phase == C.PHASE_MOVE_TILE_SRC:
            if best_pair is None:
                return int(codec.skip)
            return int(codec.move_tile_src(Q.window_cell(g, best_pair[0])))
        if best_pair is None:  # committed to this source: the least harmful destination
            src = Q.move_tile_cell(state)
            q = max(pairs[src], key=lambda q: self._value(
                state, p, {**{k: v for k, v in stacks.items() if k != src}, q: stacks[src]}, standing))
            return int(codec.move_tile_dst(Q.window_cell(g, q)))
        return int(codec.move_tile_dst(Q.window_cell(g, best_pair[1])))

    def _rotate(self, state: KeralaState, legal: np.ndarray) -> int:
        g = state.game
        p = state.current_player
        stacks = Q.platform(state, p)
        q = Q.move_tile_cell(state)
        best_o = max(range(4), key=lambda o: self._value(state, p, Q.turned(g, stacks, q, o), state.standing(p)))
        return int(g.codec.move_tile_rot(best_o))

