"""The Haus der Sonne rules engine (rules file ``docs/rules/haus_der_sonne.md``).

A turn is one MAIN decision of the active player: place a number disc on a
beach without the boat (then SHAMAN: walk up to two fields), take a disc back
(then SHAMAN), place a disc on the boat's beach and sail that many segments, or
sail one segment with an empty supply.  A landing hands out the cards of the
landing segment (PICK by the higher sum, then the other player gets the rest),
each card is resolved at once (statue, PRIESTESS chip move, BUY_SHELL purchase),
the discs go home and the bays are refilled from the palm piles, where lava
cards put chips on the crater.  Emptying the 2-palm pile runs scoring 1
(BUY_WINDOW, eruption, points), emptying the 3-palm pile runs scoring 2 and
ends the game.  Ties go to the player who did not start.

Tests may build positions directly: ``HausDerSonneState.from_position(game,
**fields)`` or edit the public fields below and call :meth:`refresh`.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ..core.fields import Bool, BoolList, Cache, Custom, FieldError, Int, IntList, Nested, RngField, StateSchema, is_int
from ..core.game import CorruptStateError, Game, Option, State, readonly
from ..core.rng import Rng, as_rng
from . import actions as A
from . import components as C

# phases
# phases (components.Phase; plain ints on the hot path)
MAIN, SHAMAN, PICK, PRIESTESS, BUY_SHELL, BUY_WINDOW, GAME_OVER = (int(p) for p in C.Phase)
PHASE_NAMES = tuple(p.name.lower() for p in C.Phase)
# automatic continuation points of a landing / scoring (where play resumes after a sub-decision)
STG_NONE, STG_SECOND, STG_FINISH, STG_WINDOW = (int(g) for g in C.Stage)
#: what ``draw_into`` reports: a card drawn; the round's trigger pile emptied; no card left
DRAW_OK, DRAW_TRIGGER, DRAW_EMPTY = range(3)

#: where automatic play may resume after each decision (a landing's second receiver or finish, or the buy
#: window); the priestess interrupts either, the game's end keeps whatever was last
_RESUME_BY_PHASE = {MAIN: (STG_NONE,), SHAMAN: (STG_NONE,), PICK: (STG_NONE,),
                    PRIESTESS: (STG_SECOND, STG_FINISH, STG_WINDOW), BUY_SHELL: (STG_SECOND, STG_FINISH),
                    BUY_WINDOW: (STG_WINDOW,)}

SUPPLY = -1
EMPTY = -1
BOARD = -1  # owner of a scoring card still on the scoring board


class HausDerSonneGame(Game):
    """Static facts of one Haus der Sonne configuration (always two players)."""

    name = "haus_der_sonne"
    env_name = "haus_der_sonne_v0"
    pretty_name = "Haus der Sonne"
    min_players = 2
    max_players = 2
    default_players = 2
    score_scale = 30.0
    hidden_information = False
    #: 2: turns, scores and spendable shells past their scale are squeezed below 1 instead of
    #: clipped (core.game.scaled_count)
    observation_version = 2
    observer_ref = ".observation:HausDerSonneObserver"
    renderer_ref = ".render"
    options_spec = (
        Option("variant", "base", "base game, or the tactical variant (no lava cards, lava discs, no buying at "
               "scorings)", choices=("base", "tactical")),
        Option("deck_table", "reconstructed", "A-01/A-02: palm deck composition (components.DECK_TABLES)",
               choices=tuple(C.DECK_TABLES)),
        Option("shell_value_per_card", 1, "A-03: shells per shell card", bounds=(1, 3)),
        Option("majority_rule", "strict", "A-06: statue majority needs strictly more statues (>=1); "
               "'ties_count' also pays both players in a tied segment with statues", choices=("strict", "ties_count")),
        Option("complete_segment_scoring", "per_segment", "A-07: complete-segment card pays 4 per complete "
               "segment, or 4 once", choices=("per_segment", "once")),
        Option("priestess_cost", 1, "A-08: shells to buy the board's Lava-Priestess card", choices=(1, 2)),
        Option("priestess_board_card_reusable", True, "A-09: the bought priestess card returns and may be bought "
               "again; False: once per round"),
        Option("dock_segment", 0, "A-10: segment where the boat starts", bounds=(0, 5)),
        Option("start_village", 1, "A-10/A-12: village beach of the start player's shaman", bounds=(0, 5)),
        Option("other_village", 4, "A-10/A-12: village beach of the other shaman", bounds=(0, 5)),
        Option("diagonal_adjacency", False, "A-11: shamans may also step diagonally to the next level"),
        Option("takeback_tie", "allow", "A-15: take-backs may leave equal sums ('allow') or not ('forbid')",
               choices=("allow", "forbid")),
        Option("tie_first_picker", "active", "A-16: on equal sums at a landing the active player picks first, "
               "or the other", choices=("active", "non_active")),
        Option("scoring2_trigger", "pile_empty", "A-28: scoring 2 when the 3-palm pile empties, or at the first "
               "refill that finds no card", choices=("pile_empty", "refill_impossible")),
        Option("priestess_optional", False, "A-29: the priestess chip move may be skipped"),
        Option("nautilus_kept_after_round1", False, "A-31: nautilus cards stay in hand after scoring 1"),
        Option("buy_window_multi", False, "A-32: buy window alternates single purchases until both pass "
               "(default: one decision each)"),
        Option("shaman_protects_statue", True, "A-34: a shaman on a field protects its statue from lava"),
        Option("statue_base_points", "none", "A-37: statues score nothing by themselves, or 1/2/3 by level at each "
               "scoring", choices=("none", "by_level")),
        Option("refill_gaps_at_round2_start", True, "A-39: empty bays are refilled from the 3-palm pile when "
               "round 2 begins"),
        Option("placement_tie_rule", "totals", "A-44: with own discs already there, the placer's new total must "
               "differ from the opponent's ('totals') or only the placed value ('value')",
               choices=("totals", "value")),
        Option("shells_kept_after_round1", True, "A-47: unspent shells stay in hand through scoring 1"),
        Option("lava_disc_return", "owner_landing", "A-49: a lava disc returns when its owner lands there, or at "
               "any landing there", choices=("owner_landing", "any_landing")),
        Option("tactical_priestess_buy_at_scoring", False, "A-50: tactical variant keeps the priestess card "
               "buyable in the scoring buy window"),
        Option("takeback_on_boat_segment", True, "A-14: discs on the boat's beach may be taken back"),
        Option("entry_step_is_upward", True, "A-19: the beach->meadow entry step counts as the one upward step"),
        Option("identical_cards", "type_and_butterfly", "A-20: cards are identical when face and butterfly match, "
               "or by face type alone", choices=("type_and_butterfly", "type")),
        Option("no_tie_on_boat_segment", True, "A-45: the no-tie rule also applies when placing on the boat's "
               "beach"),
        Option("tactical_chip_timing", "before_distribution", "A-40: the lava disc's chip lands before or after "
               "the card distribution", choices=("before_distribution", "after_distribution")),
        Option("lava_card_refill", "draw_again", "A-25: after a lava card the same bay draws again, or stays "
               "empty", choices=("draw_again", "leave_gap")),
        Option("purchases_per_shell", "one", "A-30: one purchase per shell receipt, or buy on until passing "
               "(a priestess purchase ends the buying)", choices=("one", "many")),
        Option("pearl_pairs", "every_pair", "A-35: every white+black pair scores 4, or only one pair does",
               choices=("every_pair", "one_pair")),
        Option("nautilus_scoring", "per_card", "A-36: 3 points per nautilus card, or 3 once for holding any",
               choices=("per_card", "once")),
        Option("lava_disc_without_chip", "forbidden", "A-41: tactical lava disc with no chip left in supply is "
               "forbidden, or allowed without effect", choices=("forbidden", "allowed")),
        Option("derived_features", False, "observation only: add the boat-relative view of the segments and the "
               "landing segment's bays with their picking order (observation.DERIVED_BLOCKS)", observation_only=True),
        Option("turn_limit", 1000, "safeguard, not a rule: the game is cut off (a truncation: no winner, "
               "rewards 0) after this many turns; 0 = no limit", bounds=(0, 100000)),
    )

    def _setup(self) -> None:
        o = self.options
        if o["start_village"] == o["other_village"]:
            raise ValueError(
                f"{self.name}: options start_village and other_village must differ (both {o['start_village']})"
            )
        self.tactical = o["variant"] == "tactical"
        self.num_actions = A.NUM_ACTIONS
        deck = C.DECK_TABLES[o["deck_table"]]
        if self.tactical:
            deck = tuple(tuple(0 if f == C.LAVA else n for f, n in enumerate(row)) for row in deck)
        self.deck = deck
        self.face_totals = tuple(sum(row[f] for row in deck) for f in range(C.NUM_FACES))
        self.neighbors = C.shaman_neighbors(o["diagonal_adjacency"])
        self.dest_actions = self._destination_table()

    def _destination_table(self) -> tuple[tuple[tuple[int, ...], ...], ...]:
        """SHAMAN action ids for every (own node, opponent node) pair (§7), computed once per configuration."""
        entry_up = self.options["entry_step_is_upward"]
        lvl = C.NODE_LEVEL
        nb = self.neighbors

        def up(a: int, b: int) -> bool:
            if a >= C.NUM_FIELDS:  # beach -> meadow entry step
                return entry_up
            return lvl[b] > lvl[a]

        table = []
        for pos in range(C.NUM_SHAMAN_NODES):
            row = []
            for opp in range(C.NUM_SHAMAN_NODES):
                dests: set[int] = set()
                for p1 in nb[pos]:
                    up1 = up(pos, p1)
                    if p1 != opp:
                        dests.add(p1)
                    for p2 in nb[p1]:
                        if up1 and up(p1, p2):
                            continue
                        if p2 != opp:
                            dests.add(p2)
                dests.discard(pos)
                row.append(tuple(A.shaman_to(d) for d in sorted(dests)) + (A.SHAMAN_STAY,))
            table.append(tuple(row))
        return tuple(table)

    def new_state(self, seed: int | None = None) -> HausDerSonneState:
        return HausDerSonneState.initial(self, seed)


class HausDerSonneState(State):
    """One position.  Public fields (tests may set them, then call :meth:`refresh`):

    ``round`` 1/2, ``start_player``, ``active`` (owner of the turn), ``current_player`` (who
    decides; -1 at the end), ``phase`` (MAIN..GAME_OVER), ``turn``, ``boat`` (segment),
    ``disc[5p + v-1]`` (segment or -1 = supply), ``lava_disc[p]`` (segment or -1),
    ``shaman[p]`` (node 0..17 field, 18+s beach), ``statue[f]`` (owner or -1),
    ``crater[s]`` (chips), ``bays[2s+k]`` (face or -1), ``piles[d]`` (face lists, drawn
    from the end), ``hand[p][face]`` (counts), ``discard[face]``, ``sc_owner[i]``
    (owner or -1), ``priestess_available``, ``score[p]``; the landing context ``land``,
    ``second`` (second receiver or -1), ``stage``/``resume``; the buy window
    ``trigger``, ``win_passed``, ``win_last``; ``pending_chip`` (tactical, A-40).
    """

    _game_class: ClassVar[type[Game]] = HausDerSonneGame
    __slots__ = (
        "game", "rng", "round", "start_player", "active", "current_player", "phase", "turn", "boat", "disc",
        "lava_disc", "shaman", "statue", "crater", "bays", "piles", "hand", "discard", "sc_owner",
        "priestess_available", "score", "land", "second", "resume", "trigger", "win_passed", "win_last",
        "pending_chip", "scorings", "beach_sum", "_legal", "_mask",
    )

    # -- construction --------------------------------------------------------------
    @classmethod
    def initial(cls, game: HausDerSonneGame, seed: int | None = None) -> HausDerSonneState:
        """Setup (§5): random start player, shuffled palm piles, twelve 1-palm cards in the bays."""
        s = cls.__new__(cls)
        s.game = game
        s.rng = Rng(seed)
        o = game.options
        s.round = 1
        s.start_player = s.rng.randbelow(2)
        s.active = s.start_player
        s.current_player = s.start_player
        s.phase = MAIN
        s.turn = 0
        s.boat = o["dock_segment"]
        s.disc = [SUPPLY] * (2 * C.NUM_DISCS)
        s.lava_disc = [SUPPLY, SUPPLY]
        s.shaman = [0, 0]
        s.shaman[s.start_player] = C.BEACH_NODE0 + o["start_village"]
        s.shaman[1 - s.start_player] = C.BEACH_NODE0 + o["other_village"]
        s.statue = [EMPTY] * C.NUM_FIELDS
        s.crater = [0] * C.NUM_SEGMENTS
        s.piles = []
        for row in game.deck:
            pile = [f for f in range(C.NUM_FACES) for _ in range(row[f])]
            s.rng.shuffle(pile)
            s.piles.append(pile)
        s.bays = [s.piles[0].pop() for _ in range(C.NUM_BAYS)]
        s.hand = [[0] * C.NUM_FACES, [0] * C.NUM_FACES]
        s.discard = [0] * C.NUM_FACES
        s.sc_owner = [BOARD] * C.NUM_SCORING_CARDS
        s.priestess_available = True
        s.score = [0, 0]
        s.land = -1
        s.second = -1
        s.resume = STG_NONE
        s.trigger = -1
        s.win_passed = [False, False]
        s.win_last = -1
        s.pending_chip = False
        s.scorings = []
        s.refresh()
        return s

    def refresh(self) -> None:
        """Recompute the caches (beach sums, legal actions) after fields were edited."""
        bs = [0] * (2 * C.NUM_SEGMENTS)
        for i, seg in enumerate(self.disc):
            if seg >= 0:
                bs[(i // C.NUM_DISCS) * C.NUM_SEGMENTS + seg] += i % C.NUM_DISCS + 1
        self.beach_sum = bs
        self._legal = None
        self._mask = None

    # -- small queries -------------------------------------------------------------
    def chips_in_supply(self) -> int:
        return C.LAVA_CHIPS - sum(self.crater)

    def statues_in_supply(self, p: int) -> int:
        return C.STATUES_PER_PLAYER - self.statue.count(p)

    def shells(self, p: int) -> int:
        """Shells the player can spend now (A-03)."""
        h = self.hand[p]
        return (h[C.SHELL] + h[C.SHELL_B]) * self.game.options["shell_value_per_card"]

    def current_pile(self) -> int:
        """Index of the pile refills draw from (0: 1-palm, 1: 2-palm, 2: 3-palm), -1 when all are empty."""
        p = self.piles
        return 0 if p[0] else 1 if p[1] else 2 if p[2] else -1

    def buy_cost(self, item: int) -> int:
        return self.game.options["priestess_cost"] if item == C.BUY_PRIESTESS else C.SCORING_CARD_COST[item]

    def buyable_items(self, p: int, window: bool = False) -> list[int]:
        """Items of the scoring board player ``p`` can afford now (§10.4); tactical windows: priestess only."""
        shells = self.shells(p)
        if shells <= 0:
            return []
        out = []
        if not (window and self.game.tactical):
            sc = self.sc_owner
            for i in range(C.NUM_SCORING_CARDS):
                if sc[i] == BOARD and C.SCORING_CARD_COST[i] <= shells:
                    out.append(i)
        if self.priestess_available and self.game.options["priestess_cost"] <= shells:
            out.append(C.BUY_PRIESTESS)
        return out

    def is_terminal(self) -> bool:
        return self.phase == GAME_OVER

    def is_truncated(self) -> bool:
        """Stopped by the ``turn_limit`` safeguard (a natural end always comes before the limit)."""
        limit = self.game.options["turn_limit"]
        return self.phase == GAME_OVER and bool(limit) and self.turn >= limit

    # -- legal actions -------------------------------------------------------------
    def legal_actions(self) -> list[int]:
        la = self._legal
        if la is None:
            la = self._legal = self._compute_legal()
        return list(la)

    def legal_mask(self) -> np.ndarray:
        m = self._mask
        if m is None:
            la = self._legal
            if la is None:
                la = self._legal = self._compute_legal()
            m = np.zeros(A.NUM_ACTIONS, dtype=bool)
            m[list(la)] = True
            self._mask = m = readonly(m)
        return m

    def is_legal(self, action: int) -> bool:
        la = self._legal
        if la is None:
            la = self._legal = self._compute_legal()
        return action in la

    def _compute_legal(self) -> tuple[int, ...]:
        ph = self.phase
        if ph == MAIN:
            return self._main_actions()
        if ph == SHAMAN:
            p = self.current_player
            return self.game.dest_actions[self.shaman[p]][self.shaman[1 - p]]
        if ph == PICK:
            L2 = 2 * self.land
            return tuple(A.PICK0 + k for k in (0, 1) if self.bays[L2 + k] >= 0)
        if ph == PRIESTESS:
            out = [A.PRIESTESS0 + 2 * c + d for c in range(C.NUM_SEGMENTS) if self.crater[c] for d in (0, 1)]
            if self.game.options["priestess_optional"]:
                out.append(A.PRIESTESS_SKIP)
            return tuple(out)
        if ph == BUY_SHELL or ph == BUY_WINDOW:
            items = self.buyable_items(self.current_player, ph == BUY_WINDOW)
            return tuple(A.BUY0 + i for i in items) + (A.BUY_PASS,)
        return ()

    def placement_allowed(self, p: int, v: int, seg: int) -> bool:
        """The no-tie rule (§6.4, A-44, A-45) for placing disc ``v`` of ``p`` on beach ``seg``."""
        opp_sum = self.beach_sum[(1 - p) * 6 + seg]
        if opp_sum == 0:
            return True
        if seg == self.boat and not self.game.options["no_tie_on_boat_segment"]:
            return True
        if self.game.options["placement_tie_rule"] == "totals":
            return self.beach_sum[p * 6 + seg] + v != opp_sum
        return v != opp_sum

    def _main_actions(self) -> tuple[int, ...]:
        p = self.current_player
        o = self.game.options
        disc = self.disc
        base = p * C.NUM_DISCS
        boat = self.boat
        bs = self.beach_sum
        mine = bs[p * 6: p * 6 + 6]
        opp = bs[(1 - p) * 6: (1 - p) * 6 + 6]
        totals = o["placement_tie_rule"] == "totals"
        boat_rule = o["no_tie_on_boat_segment"]
        lava_ok = self.game.tactical and self.lava_disc[p] == SUPPLY and (
            sum(self.crater) < C.LAVA_CHIPS or o["lava_disc_without_chip"] == "allowed")
        out = []
        lava = []
        takes = []
        any_supply = False
        for v in range(1, 6):
            seg_of = disc[base + v - 1]
            if seg_of == SUPPLY:
                any_supply = True
                row = 6 * (v - 1)
                for s in range(6):
                    os_ = opp[s]
                    if os_ and (s != boat or boat_rule) and (mine[s] + v if totals else v) == os_:
                        continue
                    out.append(row + s)
                    if s == boat and lava_ok:
                        lava.append(A.PLACE_LAVA0 + v - 1)
            else:
                if seg_of == boat and not o["takeback_on_boat_segment"]:
                    continue
                if o["takeback_tie"] == "forbid":
                    left = mine[seg_of] - v
                    if left and left == opp[seg_of]:
                        continue
                takes.append(A.TAKE_BACK0 + v - 1)
        out += lava
        out += takes
        if not any_supply:
            out.append(A.SAIL_ONE)
        if not out:
            out.append(A.PASS)
        return tuple(out)

    # -- applying actions ---------------------------------------------------------------
    def _apply(self, action: int) -> None:
        self._legal = None
        self._mask = None
        ph = self.phase
        if ph == MAIN:
            self._apply_main(action)
        elif ph == SHAMAN:
            p = self.current_player
            if action != A.SHAMAN_STAY:
                self.shaman[p] = action - A.SHAMAN_TO0
            self._end_turn()
        elif ph == PICK:
            k = action - A.PICK0
            self._take_card(self.current_player, 2 * self.land + k, STG_SECOND)
        elif ph == PRIESTESS:
            if action != A.PRIESTESS_SKIP:
                c = (action - A.PRIESTESS0) >> 1
                d = 1 if (action - A.PRIESTESS0) & 1 else -1
                self.move_lava_chip(c, (c + d) % C.NUM_SEGMENTS)
            self._run(self.resume)
        else:  # BUY_SHELL or BUY_WINDOW
            p = self.current_player
            if ph == BUY_WINDOW:
                self.win_last = p
                if action == A.BUY_PASS or not self.game.options["buy_window_multi"]:
                    self.win_passed[p] = True
            if action == A.BUY_PASS:
                self._run(self.resume)
            elif not self._buy(p, action - A.BUY0):
                if ph == BUY_SHELL and self.game.options["purchases_per_shell"] == "many" and self.buyable_items(p):
                    return  # A-30 alternative: the same player buys on
                self._run(self.resume)

    def _apply_main(self, action: int) -> None:
        p = self.current_player
        if action < A.PLACE_LAVA0:
            v, seg = action // 6 + 1, action % 6
            self._put_disc(p, v, seg)
            if seg == self.boat:
                self.sail(v)  # action B
            else:
                self.phase = SHAMAN  # action A1
        elif action < A.TAKE_BACK0:  # action B with the lava disc (tactical, §14)
            v = action - A.PLACE_LAVA0 + 1
            self._put_disc(p, v, self.boat)
            self.lava_disc[p] = self.boat
            self.sail(v, lava=True)
        elif action < A.SAIL_ONE:  # action A2
            v = action - A.TAKE_BACK0 + 1
            i = p * C.NUM_DISCS + v - 1
            self.beach_sum[p * 6 + self.disc[i]] -= v
            self.disc[i] = SUPPLY
            self.phase = SHAMAN
        elif action == A.SAIL_ONE:  # action C
            self.sail(1)
        else:  # PASS
            self._end_turn()

    def _put_disc(self, p: int, v: int, seg: int) -> None:
        self.disc[p * C.NUM_DISCS + v - 1] = seg
        self.beach_sum[p * 6 + seg] += v

    def sail(self, steps: int, lava: bool = False) -> None:
        """Move the boat clockwise and resolve the landing (§6.2, §6.3, §8)."""
        self.boat = (self.boat + steps) % C.NUM_SEGMENTS
        if lava:
            if self.game.options["tactical_chip_timing"] == "before_distribution":
                self.place_lava_chip(self.boat)
            else:
                self.pending_chip = True
        self.resolve_boat_landing(self.boat)

    def place_lava_chip(self, seg: int) -> None:
        """A chip from the supply onto crater ``seg`` (none left: no effect, A-05)."""
        if sum(self.crater) < C.LAVA_CHIPS:
            self.crater[seg] += 1

    def move_lava_chip(self, src: int, dst: int) -> None:
        self.crater[src] -= 1
        self.crater[dst] += 1

    def landing_receivers(self, seg: int) -> list[int]:
        """Who receives cards at a landing on ``seg``, in picking order (§8, A-16, A-17)."""
        a = self.active
        o = 1 - a
        sa = self.beach_sum[a * 6 + seg]
        so = self.beach_sum[o * 6 + seg]
        if sa and so:
            if sa > so:
                return [a, o]
            if so > sa:
                return [o, a]
            return [a, o] if self.game.options["tie_first_picker"] == "active" else [o, a]
        if sa:
            return [a]
        if so:
            return [o]
        return []

    def cards_identical(self, f1: int, f2: int) -> bool:
        """A-20: the identical-cards rule compares face and butterfly (or the face type only)."""
        if f1 < 0 or f2 < 0:
            return False
        if self.game.options["identical_cards"] == "type":
            return C.FACE_TYPE[f1] == C.FACE_TYPE[f2]
        return f1 == f2

    def resolve_boat_landing(self, seg: int) -> None:
        """Hand out the cards of ``seg``: the first receiver picks, the second gets the rest (§8)."""
        self.land = seg
        recv = self.landing_receivers(seg)
        b0, b1 = self.bays[2 * seg], self.bays[2 * seg + 1]
        identical = self.cards_identical(b0, b1)
        self.second = recv[1] if len(recv) == C.NUM_PLAYERS and not identical else -1
        if not recv or (b0 < 0 and b1 < 0):
            self._run(STG_FINISH)
            return
        first = recv[0]
        if b0 >= 0 and b1 >= 0 and b0 != b1:
            self.phase = PICK
            self.current_player = first
            return
        self._take_card(first, 2 * seg if b0 >= 0 else 2 * seg + 1, STG_SECOND)

    def _take_card(self, p: int, bay: int, then: int) -> None:
        face = self.bays[bay]
        self.bays[bay] = EMPTY
        self.resume = then
        if not self.receive_card(p, face):
            self._run(then)

    def receive_card(self, p: int, face: int) -> bool:
        """Resolve a received palm card (§10); True when ``p`` now has a decision to make."""
        if face == C.STATUE:
            self.discard[face] += 1
            self.build_statue(p)
            return False
        if face == C.PRIESTESS:
            self.discard[face] += 1
            return self.priestess_effect(p)
        self.hand[p][face] += 1
        if face == C.SHELL or face == C.SHELL_B:
            if self.buyable_items(p):
                self.phase = BUY_SHELL
                self.current_player = p
                return True
        return False

    def build_statue(self, p: int) -> bool:
        """Statue card (§10.1): build where the shaman stands, if that field is a free building field."""
        f = self.shaman[p]
        if f < C.NUM_FIELDS and self.statue[f] == EMPTY and self.statues_in_supply(p) > 0:
            self.statue[f] = p
            return True
        return False

    def priestess_effect(self, p: int) -> bool:
        """Lava priestess (§10.2): the lava disc comes home (tactical); a chip move if any chip is on the crater."""
        if self.game.tactical:
            self.lava_disc[p] = SUPPLY
        if sum(self.crater) == 0:
            return False
        self.phase = PRIESTESS
        self.current_player = p
        return True

    def _buy(self, p: int, item: int) -> bool:
        """Pay with shell cards (plain ones first, A-48) and take ``item``; True when a PRIESTESS decision follows."""
        per = self.game.options["shell_value_per_card"]
        cards = -(-self.buy_cost(item) // per)
        h = self.hand[p]
        for f in C.SHELL_FACES:
            n = min(cards, h[f])
            h[f] -= n
            self.discard[f] += n
            cards -= n
        if item == C.BUY_PRIESTESS:
            if not self.game.options["priestess_board_card_reusable"]:
                self.priestess_available = False
            return self.priestess_effect(p)
        self.sc_owner[item] = p
        return False

    def _run(self, stage: int) -> None:
        """Continue automatic play from ``stage`` until someone must decide (or the turn ends)."""
        if stage == STG_SECOND:
            L = self.land
            q = self.second
            self.second = -1
            if q >= 0:
                for k in (0, 1):
                    if self.bays[2 * L + k] >= 0:
                        self._take_card(q, 2 * L + k, STG_FINISH)  # automatic receipt
                        return
            stage = STG_FINISH
        if stage == STG_FINISH:
            if self.finish_landing():
                self.start_scoring(self.active)
            else:
                self._end_turn()
            return
        if stage == STG_WINDOW:
            self._next_buyer()
            return
        self._end_turn()

    def finish_landing(self) -> bool:
        """Discs go home, lava discs return (§14), the bays refill (§9); True if a scoring was triggered."""
        L = self.land
        if self.pending_chip:
            self.pending_chip = False
            self.place_lava_chip(L)
        disc = self.disc
        for i in range(2 * C.NUM_DISCS):
            if disc[i] == L:
                disc[i] = SUPPLY
        self.beach_sum[L] = 0
        self.beach_sum[6 + L] = 0
        if self.game.tactical:
            if self.game.options["lava_disc_return"] == "any_landing":
                for p in (0, 1):
                    if self.lava_disc[p] == L:
                        self.lava_disc[p] = SUPPLY
            elif self.lava_disc[self.active] == L:
                self.lava_disc[self.active] = SUPPLY
        self.land = -1
        return self.refill(L)

    def draw_into(self, bay: int) -> int:
        """Draw palm cards into an empty bay (§9.1); lava cards put chips at the boat (A-25: keep drawing).

        Returns DRAW_OK normally, DRAW_TRIGGER when the draw emptied the pile whose exhaustion
        triggers the round's scoring, DRAW_EMPTY when no card was left for the bay (scoring 2 under
        ``refill_impossible``).
        """
        piles = self.piles
        r1 = self.round == 1
        while True:
            d = 0 if piles[0] else 1 if piles[1] else 2 if piles[2] else -1
            if d < 0 or (r1 and d == C.ROUND2_TRIGGER_PILE):
                return DRAW_EMPTY
            face = piles[d].pop()
            o = self.game.options
            if face == C.LAVA:
                self.discard[face] += 1
                self.place_lava_chip(self.boat)
            else:
                self.bays[bay] = face
            if not piles[d] and ((d == C.ROUND1_TRIGGER_PILE and r1)
                                 or (d == C.ROUND2_TRIGGER_PILE and o["scoring2_trigger"] == "pile_empty")):
                return DRAW_TRIGGER
            if face != C.LAVA or o["lava_card_refill"] == "leave_gap":
                return DRAW_OK

    def refill(self, seg: int) -> bool:
        """Refill both bays of ``seg`` (A-24, A-51); True when a scoring triggers."""
        for bay in (2 * seg, 2 * seg + 1):
            if self.bays[bay] < 0:
                r = self.draw_into(bay)
                if r == DRAW_TRIGGER:
                    return True
                if r == DRAW_EMPTY:
                    return self.round == C.FINAL_ROUND and self.game.options["scoring2_trigger"] == "refill_impossible"
        return False

    # -- scoring -------------------------------------------------------------------
    def start_scoring(self, trigger: int) -> None:
        """Scoring phase (§11): buy window (base game), eruption, points."""
        self.trigger = trigger
        self.win_passed = [False, False]
        self.win_last = -1
        if self.game.tactical and not self.game.options["tactical_priestess_buy_at_scoring"]:
            self.erupt_and_score()
            return
        self._next_buyer()

    def _next_buyer(self) -> None:
        """Give the buy window to the next player who may still buy (A-32), else erupt."""
        c = self.trigger if self.win_last < 0 else 1 - self.win_last
        for _ in range(2):
            if not self.win_passed[c]:
                if self.buyable_items(c, window=True):
                    self.phase = BUY_WINDOW
                    self.current_player = c
                    self.resume = STG_WINDOW
                    return
                self.win_passed[c] = True
            c = 1 - c
        self.erupt_and_score()

    def erupt(self) -> list[int]:
        """Eruption (§11.2): chips flow down their segment and destroy statues; returns destroyed fields."""
        protect = self.game.options["shaman_protects_statue"]
        destroyed = []
        for s in range(C.NUM_SEGMENTS):
            n = self.crater[s]
            for i in range(min(n, 3)):
                f = C.LAVA_PATH[s][i]
                if self.statue[f] >= 0 and not (protect and f in self.shaman):
                    self.statue[f] = EMPTY
                    destroyed.append(f)
            self.crater[s] = 0
        return destroyed

    def scoring_points(self, p: int, final: bool) -> dict[str, int]:
        """Points of ``p`` at a scoring on the current board and hands (§11.3)."""
        o = self.game.options
        h = self.hand[p]
        hq = self.hand[1 - p]
        pts: dict[str, int] = {}
        mine, theirs = h[C.FISH] + h[C.FISH_B], hq[C.FISH] + hq[C.FISH_B]  # one basket per card
        pts["fish"] = C.FISH_MAJORITY_POINTS if mine > theirs else 0
        w, b = h[C.WHITE] + h[C.WHITE_B], h[C.BLACK] + h[C.BLACK_B]
        pairs = min(w, b) if o["pearl_pairs"] == "every_pair" else min(w, b, 1)
        pts["pearls"] = C.PEARL_PAIR_POINTS * pairs + C.WHITE_POINTS * (w - pairs) + C.BLACK_POINTS * (b - pairs)
        n = h[C.NAUTILUS] + h[C.NAUTILUS_B]
        pts["nautilus"] = C.NAUTILUS_POINTS * (n if o["nautilus_scoring"] == "per_card" else min(n, 1))
        st = self.statue
        sc = self.sc_owner
        if sc[C.SC_BUTTERFLIES] == p:
            pts["butterflies"] = sum(h[f] for f in C.BUTTERFLY_FACES)
        if sc[C.SC_MAJORITY] == p:
            n = 0
            for fields in C.SEGMENT_FIELDS:
                m = sum(1 for f in fields if st[f] == p)
                t = sum(1 for f in fields if st[f] == 1 - p)
                if m > t or (o["majority_rule"] == "ties_count" and m == t and m > 0):
                    n += 1
            pts["majority"] = C.MAJORITY_POINTS * n
        if sc[C.SC_COMPLETE] == p:
            n = sum(1 for fields in C.SEGMENT_FIELDS if all(st[f] == p for f in fields))
            if o["complete_segment_scoring"] == "once":
                n = min(n, 1)
            pts["complete"] = C.COMPLETE_POINTS * n
        if sc[C.SC_FOREST] == p:
            pts["forest"] = C.FOREST_POINTS * sum(1 for f in range(6, 12) if st[f] == p)
        if sc[C.SC_MOUNTAIN] == p:
            pts["mountain"] = C.MOUNTAIN_POINTS * sum(1 for f in range(12, 18) if st[f] == p)
        if o["statue_base_points"] == "by_level":
            pts["statues"] = sum(C.STATUE_LEVEL_POINTS[C.FIELD_LEVEL[f] - 1] for f in range(18) if st[f] == p)
        if final:
            pts["shells"] = C.SHELL_END_POINTS * (h[C.SHELL] + h[C.SHELL_B])
        return pts

    def erupt_and_score(self) -> None:
        """Eruption, points, then round 2 (§11.4) or the end (§11.5)."""
        self.erupt()
        final = self.round == C.FINAL_ROUND
        pts = [self.scoring_points(p, final) for p in (0, 1)]
        for p in (0, 1):
            self.score[p] += sum(pts[p].values())
        # a snapshot of what was scored, for replays and independent score checks
        self.scorings.append((self.round, tuple(self.statue), tuple(self.shaman), tuple(map(tuple, self.hand)),
                              tuple(self.sc_owner), tuple(sum(x.values()) for x in pts)))
        if final:
            self._game_over()
            return
        if not self.prepare_round_two():
            self._end_turn()

    def prepare_round_two(self) -> bool:
        """After scoring 1 (§11.4): scoring cards back, hand clean-up, round 2, refill the gaps (A-39).

        Returns True in the corner case where that refill empties the 3-palm pile and scoring 2 starts.
        """
        o = self.game.options
        self.sc_owner = [BOARD] * C.NUM_SCORING_CARDS
        self.priestess_available = True
        for p in (0, 1):
            h = self.hand[p]
            drop = () if o["nautilus_kept_after_round1"] else C.NAUTILUS_FACES
            if not o["shells_kept_after_round1"]:
                drop = drop + C.SHELL_FACES
            for f in drop:
                self.discard[f] += h[f]
                h[f] = 0
        self.round = 2
        if o["refill_gaps_at_round2_start"]:
            for i in range(C.NUM_SEGMENTS):
                seg = (self.boat + i) % C.NUM_SEGMENTS
                for bay in (2 * seg, 2 * seg + 1):
                    if self.bays[bay] < 0 and self.piles[2]:
                        if self.draw_into(bay) == DRAW_TRIGGER:
                            # the 3-palm pile ran out while setting up round 2: scoring 2 at once
                            self.start_scoring(self.trigger)
                            return True
        return False

    def _end_turn(self) -> None:
        if self.phase == GAME_OVER:
            return
        self.active = 1 - self.active
        self.turn += 1
        self.trigger = -1
        self.resume = STG_NONE
        self.win_passed = [False, False]
        self.win_last = -1
        limit = self.game.options["turn_limit"]
        if limit and self.turn >= limit:
            self._game_over()
            return
        self.phase = MAIN
        self.current_player = self.active

    def _game_over(self) -> None:
        self.phase = GAME_OVER
        self.current_player = -1
        self.land = -1
        self.second = -1

    # -- results -------------------------------------------------------------------
    def scores(self) -> list[float]:
        return [float(self.score[0]), float(self.score[1])]

    def rank_keys(self) -> list[tuple]:
        """Score, then the tie-break: the player who did not start wins ties (§11.5)."""
        return [(self.score[p], int(p != self.start_player)) for p in (0, 1)]

    # -- information -----------------------------------------------------------------
    def determinize(self, player: int, rng: Any = None) -> HausDerSonneState:
        """Reshuffle each palm pile (its composition is public, its order is not) and re-seed."""
        r = as_rng(rng)
        s = self.clone()
        for pile in s.piles:
            pile.sort()  # the sample must depend on the public composition only, not on the hidden order
            r.shuffle(pile)
        s.rng = Rng(r.next64())
        return s

    def action_name(self, action: int) -> str:
        """The configuration-unique name, with what it means here (where the boat goes, which card)."""
        name = A.action_name(action)
        try:
            a = int(action)
        except (TypeError, ValueError):
            return name
        if self.phase == MAIN and (0 <= a < A.PLACE_LAVA0 and a % 6 == self.boat):
            name += f" (sail {a // 6 + 1} to segment {(self.boat + a // 6 + 1) % C.NUM_SEGMENTS})"
        elif self.phase == MAIN and A.PLACE_LAVA0 <= a < A.TAKE_BACK0:
            name += f" (lava chip at segment {(self.boat + a - A.PLACE_LAVA0 + 1) % C.NUM_SEGMENTS})"
        elif self.phase == PICK and A.PICK0 <= a < A.PRIESTESS0 and self.land >= 0:
            face = self.bays[2 * self.land + a - A.PICK0]
            if face >= 0:
                name += f" ({C.FACE_NAMES[face]})"
        return name

    # -- persistence: clone, _to_dict and _from_dict follow from SCHEMA ----------------------
    def validate(self) -> None:
        """The invariants of a position that the schema's per-field checks cannot express."""
        game = self.game

        def bad(msg: str) -> CorruptStateError:
            return CorruptStateError(f"haus_der_sonne: corrupt saved state: {msg}")

        if not game.tactical and self.lava_disc != [SUPPLY, SUPPLY]:
            raise bad("lava discs are used only in the tactical variant")
        allowed = _RESUME_BY_PHASE.get(self.phase)
        if allowed is not None and self.resume not in allowed:
            raise bad(f"resume={self.resume}: the decision {PHASE_NAMES[self.phase]} continues at "
                      f"{' or '.join(str(x) for x in allowed)}")
        if self.shaman[0] == self.shaman[1]:
            raise bad("both shamans on one node")
        if sum(self.crater) > C.LAVA_CHIPS:
            raise bad(f"{sum(self.crater)} lava chips on the crater (there are {C.LAVA_CHIPS})")
        if C.LAVA in self.bays:
            raise bad("a lava card lies in a bay")
        for h in self.hand:
            if any(h[f] for f in range(C.NUM_FACES) if f not in C.KEPT_FACES):
                raise bad("a hand holds a card that is never kept (statue, priestess, lava)")
        # conservation of cards: every card in exactly one place, per face and per palm back
        for f in range(C.NUM_FACES):
            n = sum(p.count(f) for p in self.piles) + self.bays.count(f) + self.hand[0][f] + self.hand[1][f] \
                + self.discard[f]
            if n != game.face_totals[f]:
                raise bad(f"{n} cards of face {C.FACE_NAMES[f]} found, the deck has {game.face_totals[f]}")
            for d in range(C.PALM_DECKS):
                if self.piles[d].count(f) > game.deck[d][f]:
                    raise bad(f"pile {d} holds too many {C.FACE_NAMES[f]} cards")
        for p in range(C.NUM_PLAYERS):
            if self.statue.count(p) > C.STATUES_PER_PLAYER:
                raise bad(f"player {p} has more than {C.STATUES_PER_PLAYER} statues on the board")
        # phase consistency
        if self.phase == GAME_OVER:
            if self.current_player != -1:
                raise bad("a finished game has no current player")
        else:
            if self.current_player not in (0, 1):
                raise bad("a running game needs a current player")
            if self.phase in (MAIN, SHAMAN) and self.current_player != self.active:
                raise bad("MAIN and SHAMAN decisions belong to the active player")
            land = self.land
            if self.phase == PICK and (land < 0 or min(self.bays[2 * land], self.bays[2 * land + 1]) < 0):
                raise bad("PICK needs two cards at the landing segment")
            if self.phase == BUY_WINDOW and self.trigger < 0:
                raise bad("a buy window needs a triggering player")
            if self.phase == PRIESTESS and sum(self.crater) == 0 and not game.options["priestess_optional"]:
                raise bad("PRIESTESS without any lava chip")
            if not self._compute_legal():
                raise bad("no legal action in this position")


def _load_scorings(v: Any, game: Game) -> list[tuple]:
    if not isinstance(v, list) or len(v) > C.NUM_ROUNDS:
        raise FieldError(f"must be a list of at most {C.NUM_ROUNDS} entries")
    out = []
    for e in v:
        if not isinstance(e, list) or len(e) != SCORING_PARTS:
            raise FieldError(f"a scoring entry must have {SCORING_PARTS} parts")
        r, st, sh, hd, own, pt = e
        ok = r in (1, 2) and isinstance(st, list) and len(st) == C.NUM_FIELDS and isinstance(sh, list) and \
            len(sh) == C.NUM_PLAYERS and isinstance(hd, list) and len(hd) == C.NUM_PLAYERS and \
            all(isinstance(h, list) and len(h) == C.NUM_FACES for h in hd) and isinstance(own, list) and \
            len(own) == C.NUM_SCORING_CARDS and isinstance(pt, list) and len(pt) == C.NUM_PLAYERS and \
            all(is_int(x) for x in st + sh + own + pt + hd[0] + hd[1])
        if not ok:
            raise FieldError("malformed scoring entry")
        out.append((r, tuple(st), tuple(sh), tuple(tuple(h) for h in hd), tuple(own), tuple(pt)))
    return out


def _dump_scorings(v: list[tuple]) -> list[list]:
    return [[r, list(st), list(sh), [list(h) for h in hd], list(sc), list(pt)] for r, st, sh, hd, sc, pt in v]


#: the parts of a recorded scoring: round, statues, shamans, hands, scoring-card owners, points
SCORING_PARTS = 6
P_LAST = C.NUM_PLAYERS - 1
MAX_TURNS = 10**7
MAX_SCORE = 10**6
MAX_DISCARD = 100

#: every field of a position, declared once: clone, JSON save/load and the per-field checks follow
SCHEMA = StateSchema("haus_der_sonne", [
    RngField(doc="the chance stream (palm piles are shuffled at setup)"),
    Int("round", 1, C.NUM_ROUNDS, doc="1 or 2"),
    Int("start_player", 0, P_LAST, doc="who started the game"),
    Int("active", 0, P_LAST, doc="the owner of the turn"),
    Int("current_player", -1, P_LAST, doc="who decides; -1 at the end"),
    Int("phase", 0, GAME_OVER, doc="MAIN..GAME_OVER (Phase)"),
    Int("turn", 0, MAX_TURNS, doc="turns played"),
    Int("boat", 0, C.NUM_SEGMENTS - 1, doc="the boat's segment"),
    IntList("disc", C.NUM_PLAYERS * C.NUM_DISCS, -1, C.NUM_SEGMENTS - 1,
            doc="disc[5p + v-1]: the segment of player p's disc v, -1 = supply"),
    IntList("lava_disc", C.NUM_PLAYERS, -1, C.NUM_SEGMENTS - 1, doc="each lava disc's segment or -1 (tactical)"),
    IntList("shaman", C.NUM_PLAYERS, 0, C.NUM_SHAMAN_NODES - 1, doc="shaman node: 0..17 field, 18+s beach"),
    IntList("statue", C.NUM_FIELDS, -1, P_LAST, doc="owner of the statue on each field, or -1"),
    IntList("crater", C.NUM_SEGMENTS, 0, C.LAVA_CHIPS, doc="lava chips on each crater segment"),
    IntList("bays", C.NUM_BAYS, -1, C.NUM_FACES - 1, doc="bays[2s+k]: the card face in a bay, or -1"),
    Nested("piles", (C.PALM_DECKS, None), 0, C.NUM_FACES - 1, doc="the palm piles (face ids, drawn from the end)"),
    Nested("hand", (C.NUM_PLAYERS, C.NUM_FACES), 0, None, doc="hand[p][face]: cards kept"),
    IntList("discard", C.NUM_FACES, 0, MAX_DISCARD, doc="discarded cards per face"),
    IntList("sc_owner", C.NUM_SCORING_CARDS, -1, P_LAST, doc="owner of each scoring card, -1 = on the board"),
    Bool("priestess_available", doc="the board's priestess card can still be bought"),
    IntList("score", C.NUM_PLAYERS, 0, MAX_SCORE, doc="points"),
    Int("land", -1, C.NUM_SEGMENTS - 1, doc="the landing segment being resolved, or -1"),
    Int("second", -1, P_LAST, doc="the second receiver of a landing, or -1"),
    Int("resume", STG_NONE, STG_WINDOW, doc="where an automatic landing/scoring sequence resumes"),
    Int("trigger", -1, P_LAST, doc="the player who triggered the buy window, or -1"),
    BoolList("win_passed", C.NUM_PLAYERS, doc="who passed in the buy window"),
    Int("win_last", -1, P_LAST, doc="the last buyer in the buy window, or -1"),
    Bool("pending_chip", doc="a lava chip still to be placed (tactical, A-40)"),
    Custom("scorings", copy=list.copy, save=_dump_scorings, load=_load_scorings,
           doc="the record of each scoring (immutable tuples)"),
    Cache("beach_sum", copy=list.copy, doc="beach_sum[p*6 + s]: the sum of player p's discs on beach s"),
    Cache("_legal", doc="the legal actions (a tuple, never mutated)"),
    Cache("_mask", doc="the read-only legal mask"),
])
HausDerSonneState.schema = SCHEMA
HausDerSonneState.clone = SCHEMA.bind(HausDerSonneState)  # type: ignore[method-assign]


HausDerSonneGame.state_class = HausDerSonneState
