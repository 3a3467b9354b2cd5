"""The Hawaii rules engine (rules file ``docs/rules/hawaii.md``): HawaiiGame and HawaiiState.

A round: price tokens are laid out (§11.1), the chieftains take turns in sequence-track order
(buy, fish, visit an island or end the round, §12), then round scoring, income and the next
layout (§14). After round 5 the villages that reach a Tiki are scored (§15).

Turns are split into decisions of one player (see ``actions.py``); a sub-decision with exactly
one legal option is resolved by the engine. Legality of every decision is computed with
look-ahead, so a player never gets stuck inside a turn.

Tests set up positions with :meth:`HawaiiState.from_position` (or by editing the public fields
documented on :class:`HawaiiState` and calling :meth:`HawaiiState.refresh`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.fields import Bool, BoolList, Cache, Custom, FieldError, Int, IntList, Nested, RngField, StateSchema, is_int
from ..core.game import CorruptStateError, Game, Option, State
from ..core.observation import Changes
from ..core.rng import Rng, as_rng
from . import actions as A
from .components import (
    BOAT,
    BOAT_PAID_CAPACITY,
    DOUBLE_TILES,
    EXCHANGE_HUT,
    FEET,
    FISHING_BOAT_CAPACITY,
    FOOT_HUT,
    FRUIT,
    FRUIT_TYPES,
    GOD_TYPES,
    GODS_PLACE,
    HULA,
    HULA_VP,
    HUT_TYPES,
    IRRIGATION,
    ISL_FOOT_HUT,
    ISL_FRUIT4,
    ISL_FRUIT_TILE,
    ISL_HULA,
    ISL_KAHUNA2,
    ISL_SHELL_HUT,
    ISL_SURFER,
    ISL_TIKI2,
    ISL_VP5,
    ISLAND_FRUIT,
    ISLAND_KIND,
    ISLAND_TILE,
    ISLAND_VP,
    KAHUNA,
    KAHUNA_SPACES,
    KANALOA,
    KANALOA_VP,
    KANE,
    KANE_PAYMENTS,
    KANE_TIKI_COST,
    KU,
    LAKA,
    LAKA_VP,
    LONG_HUT,
    LONG_HUT_II_VP,
    LONO,
    LONO_VP,
    MAX_BOATS,
    MAX_CIRCLES,
    NUM_DOCKS,
    NUM_ISLANDS,
    NUM_RESOURCES,
    NUM_ROUNDS,
    NUM_ROWS,
    NUM_SLOTS,
    NUM_TOKENS,
    NUM_TYPES,
    PELE,
    PELE_CAP,
    PLACE_CIRCLES,
    PLACE_OFFERS,
    PLACE_PRINTED,
    PLACE_SETS,
    SEQ_SPACES,
    SHELL_HUT,
    SHELLS,
    SIDE_I,
    SIDE_II,
    SLOT_ADJ,
    SPEAR_HUT,
    SPEAR_VP,
    SUPPLY,
    SURFER,
    SURFER_REDUCTION,
    TIKI,
    TIKI_SPACES,
    TOKEN_VALUE,
    TOKENS_PER_VALUE,
    board_distances,
)

BUY, FISHING, ISLAND = 1, 2, 3
GOD_SET = frozenset(GOD_TYPES)
# VP accounts (for the score-recomputation invariant): round scoring (incl. Lono and the
# sequence-space-1 bonus), spear VP, island VP, final village scoring.
VP_ROUND, VP_SPEAR, VP_ISLAND, VP_FINAL = VP_ACCOUNTS = range(4)
# bounds a saved state is checked against (far above anything a game reaches)
MAX_VP = 10_000
MAX_RESOURCE = 10_000
MAX_PRICE = 100
#: above any token value and any move cost (no token on a slot; no Pele cap)
ABOVE_ANY = 99


def _opt(name: str, default: Any, doc: str, **kw: Any) -> Option:
    return Option(name, default, doc, **kw)


LIST = (list, tuple)

OPTIONS = (
    _opt("board_adjacency", [list(a) for a in SLOT_ADJ], "ASSUMPTION §3.1: neighbours of slots P1..P10 "
         "(0-based; the beach borders P1 and P2)", type=LIST,
         extremes=([[b for b in range(NUM_SLOTS) if b != a] for a in range(NUM_SLOTS)],
                   [[1]] + [[a - 1, a + 1] for a in range(1, NUM_SLOTS - 1)] + [[NUM_SLOTS - 2]])),
    _opt("place_set", "A", "ASSUMPTION §4: A = long hut + irrigation share a place, Kahuna and Tiki apart; "
         "B = long hut alone, irrigation alone, Kahuna + Tiki together", choices=("A", "B")),
    _opt("gods_per_kind", 2, "ASSUMPTION §2: god tiles per god (12 tiles / 6 gods)", bounds=(1, 2)),
    _opt("fruit_kind_choice_on_purchase", True, "ASSUMPTION §4: the buyer chooses the fruit kind; "
         "false: he must take the kind with most tiles left"),
    _opt("tokens_on_exhausted_places", True, "ASSUMPTION §11.1: tokens are laid out on exhausted places too"),
    _opt("token_fish_by_value", [1, 1, 2, 2, 3], "ASSUMPTION §5: fish on the back of the price tokens of value "
         "2..6", type=LIST,
         extremes=([1] * 5, [3] * 5)),
    _opt("spear_tokens_per_value", 2, "ASSUMPTION §5: tokens of each value (of 5) that show spears", bounds=(0, 5)),
    _opt("pass_positions", "n", "ASSUMPTION §12.6: sequence spaces a chieftain may end on: 1..n (n) or all 5 (all)",
         choices=("n", "all")),
    _opt("bust_on_equal", False, "§11.1 [R]: a sum equal to the printed number keeps the token; true busts it"),
    _opt("round_targets", [9, 11, 13, 15, 17], "round targets (9, 17 [R]; 11 [2nd]; 13, 15 ASSUMPTION)", type=LIST,
         extremes=([-20] * 5, [60] * 5)),
    _opt("round_vp", [[8, 5, 2], [9, 6, 3], [10, 7, 4], [11, 8, 5], [12, 9, 6]],
         "VP for highest / second / reached, per round (round 1 [R-ex], rest ASSUMPTION)", type=LIST,
         extremes=([[0] * 3] * 5, [[50] * 3] * 5)),
    _opt("base_income", [[10, 6], [7, 5], [4, 4], [0, 3]], "ASSUMPTION §6: base shells, feet after rounds 1-4",
         type=LIST,
         extremes=([[0, 0]] * 4, [[30, 30]] * 4)),
    _opt("income_after_round5", False, "[R]: no income after round 5 (the game ends)"),
    _opt("start_shells", 13, "[R] starting shells", bounds=(0, 100)),
    _opt("start_feet", 7, "[R] starting feet", bounds=(0, 100)),
    _opt("start_fruit_by_position", [0, 2, 3, 4, 5], "[R] starting fruit by turn position", type=LIST,
         extremes=([0] * 5, [30] * 5)),
    _opt("dock_cost", [3, 4, 5, 6], "ASSUMPTION §3.2: feet cost of docks D1..D4 (D2 [R-ex])", type=LIST,
         extremes=([1] * 4, [12] * 4)),
    _opt("dock_vp", [2, 3, 4, 5], "ASSUMPTION §3.2: VP of docks D1..D4 (D2 [R-ex])", type=LIST,
         extremes=([0] * 4, [20] * 4)),
    _opt("island_requires_placeable_reward", False, "[R]: a visit whose tile cannot be placed is still legal"),
    _opt("island_reshuffle", "on_draw", "ASSUMPTION §7: reshuffle the island stack when a face-up island would "
         "be drawn (on_draw) or as soon as one comes to the top (on_top)", choices=("on_draw", "on_top")),
    _opt("island_reward_funds_payment", True, "ASSUMPTION §12.5: resources from the island reward may pay the visit"),
    _opt("kahuna_vp", [5, 5, 10, 10, 15], "Kahuna VP by space (1-4 [R-ex], 5 ASSUMPTION)", type=LIST,
         extremes=([0] * 5, [50] * 5)),
    _opt("kahuna_bonus_shells", [0, 1, 1, 2, 2], "ASSUMPTION §8: shells on Kahuna spaces 1..5", type=LIST,
         extremes=([0] * 5, [10] * 5)),
    _opt("tiki_bonus_feet", [0, 1, 0, 1, 0, 2], "ASSUMPTION §8: feet on Tiki spaces 1..6", type=LIST,
         extremes=([0] * 6, [10] * 6)),
    _opt("tiki_space1_column", 9, "ASSUMPTION §8: board column under Tiki space 1 (scored iff len + T > it)",
         bounds=(1, 20)),
    _opt("max_village_columns", 0, "ASSUMPTION §12.3: longest village in columns (0 = no limit)", bounds=(0, 30)),
    _opt("long_hut_width", 2, "ASSUMPTION §8: columns of a long hut (both sides)", bounds=(1, 3)),
    _opt("printed_start_hut", True, "ASSUMPTION §8: a hut printed at the left of row 1 (village 1 exists); "
         "false: row 1 must be founded with a hut tile"),
    _opt("irrigation_vp", [0, 1, 3, 6, 10], "irrigation VP for 0..4 fruit tiles (2 tiles ASSUMPTION)", type=LIST,
         extremes=([0] * 5, [50] * 5)),
    _opt("double_single_sided_needs_both", True, "ASSUMPTION §9: a double Kahuna/Tiki purchase needs supply and "
         "room for both; false: one is enough"),
    _opt("kanaloa_counts_starting_boat", False, "ASSUMPTION §9: Kanaloa counts the starting fishing boat"),
    _opt("surfers_stack", True, "[R]: surfer reductions add up; false: only the largest counts"),
    _opt("spear_bonus_on_pass_token", True, "[R]: spear huts / Ku score on sequence-track tokens"),
    _opt("spear_bonus_on_buying_token", False, "[R]/ASSUMPTION: the token that buys a spear hut / Ku triggers it"),
    _opt("spear_bonus_on_fish_token", False, "ASSUMPTION §9: fish tokens whose number side has spears trigger"),
    _opt("boat2_allow_surplus_payment", True, "ASSUMPTION §12.4: a side-II boat may launch when its printed foot "
         "is wasted (pay max(c - f, f))"),
    _opt("allow_empty_boat_launch", False, "ASSUMPTION §12.4: a boat may be launched carrying no paid unit"),
    _opt("max_boats", 8, "ASSUMPTION §12.3: most bought boats per player (supply is 8)", bounds=(0, 8)),
    _opt("fish_cost_per_fish", False, "[R]: fishing costs 1 foot per token; true: per fish"),
    _opt("exchange_limit", "per_turn", "§13: exchange huts usable once per turn [R], per payment or per round "
         "(seed readings)", choices=("per_turn", "per_payment", "per_round")),
    _opt("beach_as_waypoint", False, "ASSUMPTION §12.1: a paid move may pass over the beach"),
    _opt("rank_among_eligible_only", True, "ASSUMPTION §14.1: only players who reached their target are ranked"),
    _opt("final_bonus_pass_pos1", 2, "[R]: VP in round-5 scoring for sequence space 1 (0 = German rules)",
         bounds=(0, 20)),
    _opt("pass_pos1_bonus_requires_target", False, "ASSUMPTION §14.1: the space-1 bonus needs the target"),
    _opt("tiebreak_remaining_resources", True, "[R]: ties broken by remaining shells + feet + fruit"),
    _opt("resources_public", True, "RL choice §17.1: every player's shells, feet, fruit are observed by all"),
    _opt("place_view", False, "RL choice §17.3: the observation adds what a network scores each buy and "
         "price choice from (the observer's move cost to every slot, the chosen place's features)",
         observation_only=True),
)


def _int_list(name: str, value: Any, length: int, lo: int, hi: int) -> list[int]:
    if not isinstance(value, (list, tuple)) or len(value) != length:
        raise ValueError(f"hawaii: option {name} must be a list of {length} ints in [{lo}, {hi}], got {value!r}")
    out = []
    for v in value:
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise ValueError(f"hawaii: option {name} must be a list of {length} ints in [{lo}, {hi}], got {value!r}")
        out.append(int(v))
    return out


class HawaiiGame(Game):
    """Hawaii for 2-5 players with every rule option of the rules file."""

    name = "hawaii"
    env_name = "hawaii_v0"
    pretty_name = "Hawaii"
    min_players = 2
    max_players = 5
    default_players = 2
    options_spec = OPTIONS
    score_scale = 60.0
    hidden_information = True
    #: 2: counts past their scale are squeezed below 1 instead of clipped; option-dependent
    #: indicators are scaled by the configured maxima (observation.py)
    observation_version = 2
    observer_ref = ".observation:HawaiiObserver"
    renderer_ref = ".render"

    def _setup(self) -> None:
        o = self.options
        o["round_targets"] = _int_list("round_targets", o["round_targets"], NUM_ROUNDS, -20, 60)
        rv = o["round_vp"]
        if not isinstance(rv, (list, tuple)) or len(rv) != NUM_ROUNDS:
            raise ValueError(f"hawaii: option round_vp must be 5 lists of 3 ints in [0, 50], got {rv!r}")
        o["round_vp"] = [_int_list("round_vp", r, 3, 0, 50) for r in rv]
        bi = o["base_income"]
        if not isinstance(bi, (list, tuple)) or len(bi) != NUM_ROUNDS - 1:
            raise ValueError(f"hawaii: option base_income must be 4 lists of 2 ints in [0, 30], got {bi!r}")
        o["base_income"] = [_int_list("base_income", r, 2, 0, 30) for r in bi]
        o["start_fruit_by_position"] = _int_list("start_fruit_by_position", o["start_fruit_by_position"], 5, 0, 30)
        o["dock_cost"] = _int_list("dock_cost", o["dock_cost"], NUM_DOCKS, 1, 12)
        o["dock_vp"] = _int_list("dock_vp", o["dock_vp"], NUM_DOCKS, 0, 20)
        o["kahuna_vp"] = _int_list("kahuna_vp", o["kahuna_vp"], KAHUNA_SPACES, 0, 50)
        o["kahuna_bonus_shells"] = _int_list("kahuna_bonus_shells", o["kahuna_bonus_shells"], KAHUNA_SPACES, 0, 10)
        o["tiki_bonus_feet"] = _int_list("tiki_bonus_feet", o["tiki_bonus_feet"], TIKI_SPACES, 0, 10)
        o["irrigation_vp"] = _int_list("irrigation_vp", o["irrigation_vp"], 5, 0, 50)
        o["token_fish_by_value"] = _int_list("token_fish_by_value", o["token_fish_by_value"], 5, 1, 3)
        spears = o["spear_tokens_per_value"]
        self.token_spear = tuple((t % TOKENS_PER_VALUE) < spears for t in range(NUM_TOKENS))
        self.token_fish = tuple(o["token_fish_by_value"][TOKEN_VALUE[t] - 2] for t in range(NUM_TOKENS))
        self.pass_spaces = self.num_players if o["pass_positions"] == "n" else SEQ_SPACES
        self.places = PLACE_SETS[o["place_set"]]
        self.slot_dist, self.beach_dist = self._board_graph(o)
        fish_max = 10 * (3 if o["fish_cost_per_fish"] else 1)
        self.pay_size = 1 + max(2 * max(TOKEN_VALUE), max(o["dock_cost"]), fish_max)
        self.codec = A.ActionCodec(self.pay_size)
        self.num_actions = self.codec.num_actions
        # hot-path copies of options
        self.exchange_limit = o["exchange_limit"]
        self.long_hut_width = o["long_hut_width"]
        self.max_cols = o["max_village_columns"]

    @staticmethod
    def _board_graph(o: dict[str, Any]) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
        """Validate ``board_adjacency`` (symmetric, connected) and derive the step counts of §12.1."""
        adj = o["board_adjacency"]
        bad = ValueError(f"hawaii: option board_adjacency must be 10 lists of neighbour slots 0..9, symmetric and "
                         f"connected, got {adj!r}")
        if not isinstance(adj, (list, tuple)) or len(adj) != NUM_SLOTS:
            raise bad
        clean = []
        for a, nb in enumerate(adj):
            if not isinstance(nb, (list, tuple)) or any(
                    isinstance(b, bool) or not isinstance(b, int) or not 0 <= b < NUM_SLOTS or b == a for b in nb):
                raise bad
            clean.append(sorted(set(nb)))
        for a, nb in enumerate(clean):
            if any(a not in clean[b] for b in nb):
                raise bad
        o["board_adjacency"] = clean
        dist, beach = board_distances(tuple(tuple(x) for x in clean))
        if min(beach) < 0:
            raise bad
        return dist, beach

    def new_state(self, seed: int | None = None) -> HawaiiState:
        return HawaiiState.initial(self, seed)


class HawaiiState(State):
    """One Hawaii position.

    Its fields are declared once, in :data:`SCHEMA` (kinds, bounds and the meaning of each); clone
    and JSON save/load follow from it. Tests build positions with :meth:`from_position`, or edit the
    public fields and call :meth:`refresh`.
    """

    _game_class = HawaiiGame

    # ------------------------------------------------------------------ setup
    @classmethod
    def initial(cls, game: HawaiiGame, seed: int | None = None) -> HawaiiState:
        s = cls.__new__(cls)
        s.game = game
        o = game.options
        n = game.num_players
        rng = Rng(seed)
        s.rng = rng
        places = list(game.places)
        rng.shuffle(places)
        s.slot_place = places
        s.supply = [0] * NUM_TYPES
        for t, c in SUPPLY.items():
            s.supply[t] = c
        gods = [g for g in GOD_TYPES for _ in range(o["gods_per_kind"])]
        rng.shuffle(gods)
        half = len(gods) // 2
        s.god_stacks = [gods[:half], gods[half:]]
        islands = list(range(NUM_ISLANDS))
        rng.shuffle(islands)
        s.docks = islands[:NUM_DOCKS]
        s.isl_stack = islands[NUM_DOCKS:]
        s.isl_up = [False] * len(s.isl_stack)
        order = list(range(n))
        rng.shuffle(order)
        s.order = order
        s.round = 0
        s.passed = [-1] * n
        s.turn_pos = 0
        s.vp = [0] * n
        s.vp_parts = [[0, 0, 0, 0] for _ in range(n)]
        s.res = [[o["start_shells"], o["start_feet"], 0] for _ in range(n)]
        for pos, p in enumerate(order):
            s.res[p][FRUIT] = o["start_fruit_by_position"][pos]
        s.held = [[] for _ in range(n)]
        s.fished = [[] for _ in range(n)]
        s.loc = [-1] * n
        s.rows = [[[0]] if o["printed_start_hut"] else [] for _ in range(n)]
        s.kahunas = [0] * n
        s.tikis = [0] * n
        s.boats = [[] for _ in range(n)]
        s.boat_used = [[False] for _ in range(n)]
        s.exch_used = [[0, 0] for _ in range(n)]
        s.circles = [[-1, -1, -1] for _ in range(NUM_SLOTS)]
        s.seq = [-1] * SEQ_SPACES
        s.cove = []
        s.bag = list(range(NUM_TOKENS))
        s._reset_ctx()
        s.terminal = False
        s.refresh()
        s.layout_price_tokens()
        s.current_player = order[0]
        s.phase = A.MAIN
        s._mask = None
        return s

    @classmethod
    def from_position(cls, game: Game, seed: int = 0, **fields: Any) -> HawaiiState:
        """A setup position with ``fields`` overwritten by name, completed as a test would mean it: boats
        given without ``boat_used`` are unused, and in the main phase the turn order says who decides."""
        s = cls.initial(game, seed)
        SCHEMA.assign(s, fields)
        n = game.num_players
        while len(s.boat_used) < n:
            s.boat_used.append([False])
        for p in range(n):
            bu = s.boat_used[p]
            while len(bu) < 1 + len(s.boats[p]):
                bu.append(False)
        if not s.terminal and s.phase == A.MAIN and "current_player" not in fields:
            s.current_player = s.order[s.turn_pos]
        s.refresh()
        return s

    def refresh(self) -> None:
        """Recompute the caches (tile counts per player, round sums, mask) after fields were edited."""
        n = self.game.num_players
        self.own = [[0] * NUM_TYPES for _ in range(n)]
        self.own_side2 = [[0] * NUM_TYPES for _ in range(n)]
        for p in range(n):
            for row in self.rows[p]:
                for code in row:
                    self.own[p][code >> 1] += 1
                    if code & 1:
                        self.own_side2[p][code >> 1] += 1
        self._mask = None
        self._recount_round_sums()
        # what changed, for whoever derives data from the position (the observer): "board" (a new
        # layout of price tokens: everything public), "slots" (logged with the slot), "supply",
        # "docks", "cove", "sequence", and ("realm", p) for player p's villages and holdings
        self.changes = Changes()
        self._placeable = [None] * n

    def _reset_ctx(self) -> None:
        self.phase = A.MAIN
        self.kind = 0
        self.c_slot = -1
        self.c_circle = -1
        self.c_tile = -1
        self.c_side = 0
        self.c_row = -1
        self.c_move = 0
        self.c_price = 0
        self.payments: list[tuple[int, int]] = []
        self.pay_nf = 0
        self.c_fish = 0
        self.c_dock = -1
        self.c_cost = 0
        self.boats_sel: list[int] = []
        self.pending_gain = [0, 0, 0]
        self.irrig_queue: list[int] = []

    # ------------------------------------------------------------ price tokens
    def _draw_token(self) -> int:
        bag = self.bag
        i = self.rng.randbelow(len(bag))
        bag[i], bag[-1] = bag[-1], bag[i]
        return bag.pop()

    def layout_price_tokens(self) -> None:
        """§11.1: blanks first, then the printed circle (busts into the cove), then the sequence track."""
        o = self.game.options
        self.changes.mark("board")
        self.bag.sort()
        for s in range(NUM_SLOTS):
            pl = self.slot_place[s]
            circ = self.circles[s]
            circ[0] = circ[1] = circ[2] = -1
            if not o["tokens_on_exhausted_places"] and self.place_exhausted(s):
                continue
            total = 0
            for c in range(1, PLACE_CIRCLES[pl]):
                t = self._draw_token()
                circ[c] = t
                total += TOKEN_VALUE[t]
            t = self._draw_token()
            total += TOKEN_VALUE[t]
            if total < PLACE_PRINTED[pl] or (total == PLACE_PRINTED[pl] and not o["bust_on_equal"]):
                circ[0] = t
            else:
                self.cove.append(t)
        self.cove.sort(key=lambda t: (-self.game.token_fish[t], t))
        n = self.game.num_players
        drawn = [self._draw_token() for _ in range(min(n - 1, len(self.bag)))]
        drawn.sort(key=lambda t: (TOKEN_VALUE[t], self.game.token_spear[t], t))
        for i in range(SEQ_SPACES):
            self.seq[i] = -1
        for i, t in enumerate(drawn):
            self.seq[i + 1] = t
        self.bag.sort()

    def place_exhausted(self, slot: int) -> bool:
        pl = self.slot_place[slot]
        if pl == GODS_PLACE:
            return not self.god_stacks[0] and not self.god_stacks[1]
        return all(self.supply[t] == 0 for t in PLACE_OFFERS[pl])

    # ------------------------------------------------------------- realm queries
    def side_of(self, p: int, t: int) -> int:
        """Side (1/2) of player p's tile of type t (gods are unique per realm), 0 if none."""
        if not self.own[p][t]:
            return 0
        return 2 if self.own_side2[p][t] else 1

    def row_columns(self, row: list[int]) -> int:
        w = len(row)
        if self.game.long_hut_width != 1 and (LONG_HUT * 2 in row or LONG_HUT * 2 + 1 in row):
            w += self.game.long_hut_width - 1
        return w

    def can_place_in_row(self, p: int, t: int, r: int) -> bool:
        """§12.3: extend row r (no duplicate type, one god per village, each god once) or found it with a hut."""
        rows = self.rows[p]
        if r < len(rows):
            row = rows[r]
            if t * 2 in row or t * 2 + 1 in row:
                return False
            if t >= KU:  # a god (village types stop at Kanaloa)
                if self.own[p][t]:
                    return False
                for code in row:
                    if KU <= code >> 1 <= KANALOA:
                        return False
            mc = self.game.max_cols
            if mc:
                add = self.game.long_hut_width if t == LONG_HUT else 1
                if self.row_columns(row) + add > mc:
                    return False
            return True
        if r == len(rows) and r < NUM_ROWS and t in HUT_TYPES:
            mc = self.game.max_cols
            return not mc or (self.game.long_hut_width if t == LONG_HUT else 1) <= mc
        return False

    def village_rows_for(self, p: int, t: int) -> list[int]:
        nr = min(len(self.rows[p]) + 1, NUM_ROWS)
        return [r for r in range(nr) if self.can_place_in_row(p, t, r)]

    def can_place(self, p: int, t: int, double: bool) -> bool:
        """Whether a tile of type t (two Kahunas/Tikis if double) can be placed by p."""
        if t == KAHUNA or t == TIKI:
            room = (KAHUNA_SPACES - self.kahunas[p]) if t == KAHUNA else (TIKI_SPACES - self.tikis[p])
            if double and self.game.options["double_single_sided_needs_both"]:
                return room >= DOUBLE_TILES and self.supply[t] >= DOUBLE_TILES
            return room >= 1 and self.supply[t] >= 1
        if t == BOAT:
            return len(self.boats[p]) < self.game.options["max_boats"] and self.supply[BOAT] >= 1
        nr = min(len(self.rows[p]) + 1, NUM_ROWS)
        for r in range(nr):
            if self.can_place_in_row(p, t, r):
                return True
        return False

    def offered_tiles(self, slot: int) -> list[int]:
        """Tile types a buyer may choose at the place in ``slot`` (supply left; gods: the stack tops)."""
        pl = self.slot_place[slot]
        if pl == GODS_PLACE:
            out = []
            for st in self.god_stacks:
                if st and st[-1] not in out:
                    out.append(st[-1])
            return out
        offers = PLACE_OFFERS[pl]
        if offers is FRUIT_TYPES and not self.game.options["fruit_kind_choice_on_purchase"]:
            best = max(FRUIT_TYPES, key=lambda t: (self.supply[t], -t))
            return [best] if self.supply[best] else []
        return [t for t in offers if self.supply[t] > 0]

    def surfer_reduction(self, p: int) -> int:
        n1 = self.own[p][SURFER] - self.own_side2[p][SURFER]
        n2 = self.own_side2[p][SURFER]
        if self.game.options["surfers_stack"]:
            return n1 * SURFER_REDUCTION[0] + n2 * SURFER_REDUCTION[1]
        return SURFER_REDUCTION[1] if n2 else (SURFER_REDUCTION[0] if n1 else 0)

    def target_of(self, p: int) -> int:
        return self.game.options["round_targets"][self.round] - self.surfer_reduction(p)

    def round_sum(self, p: int) -> int:
        """S_p: face values of price tokens plus fish on fish tokens acquired this round (§14.1)."""
        return self.rsum[p]

    def _recount_round_sums(self) -> None:
        fish = self.game.token_fish
        self.rsum = [sum(TOKEN_VALUE[t] for t in self.held[p]) + sum(fish[t] for t in self.fished[p])
                     for p in range(self.game.num_players)]

    def spear_value(self, p: int) -> int:
        """VP per spear token acquired: spear huts and Ku add up (§9)."""
        own, own2 = self.own[p], self.own_side2[p]
        v = (own[SPEAR_HUT] - own2[SPEAR_HUT]) * SPEAR_VP[0] + own2[SPEAR_HUT] * SPEAR_VP[1]
        ku = self.side_of(p, KU)
        if ku:
            v += SPEAR_VP[ku - 1]
        return v

    def move_cost(self, p: int, slot: int) -> int:
        """§12.1: steps from the beach or the current place, staying costs 1, Pele caps the cost."""
        loc = self.loc[p]
        g = self.game
        if loc < 0:
            d = g.beach_dist[slot]
        elif loc == slot:
            d = 1
        else:
            d = g.slot_dist[loc][slot]
            if g.options["beach_as_waypoint"]:
                d = min(d, g.beach_dist[loc] + g.beach_dist[slot])
        pele = self.side_of(p, PELE)
        if pele:
            d = min(d, PELE_CAP[pele - 1])
        return d

    # ---------------------------------------------------------------- payments
    def huts_free(self, p: int) -> tuple[int, int]:
        """Exchange huts still usable by p now: (side I count, side II count)."""
        n2 = self.own_side2[p][EXCHANGE_HUT]
        n1 = self.own[p][EXCHANGE_HUT] - n2
        u = self.exch_used[p]
        return n1 - u[0], n2 - u[1]

    @staticmethod
    def hut_use(j: int, a1: int, a2: int) -> tuple[int, int] | None:
        """§13 convention: huts (side I x, side II y) with the smallest capacity >= j, then fewest huts."""
        if j <= 0:
            return 0, 0
        best = None
        for y in range(min(a2, (j + 1) // 2) + 1):
            x = j - 2 * y
            if x < 0:
                x = 0
            if x > a1:
                continue
            key = (x + 2 * y, x + y)
            if best is None or key < best[0]:
                best = (key, x, y)
        return None if best is None else (best[1], best[2])

    def _pay_ok(self, r: list[int], a1: int, a2: int, x: int, rtype: int, nf: int, nq: int):
        """Huts used (x, y) by paying x of type rtype with nf fruit and nq third-resource units, or None."""
        nr = x - nf - nq
        if nr < 0 or nf > r[FRUIT] or nr > r[rtype] or nq > r[1 - rtype]:
            return None
        j = min(x - nr, x - nf)
        if j == 0:
            return 0, 0
        return self.hut_use(j, a1, a2)

    def feasible(self, r: list[int], a1: int, a2: int, payments: list[tuple[int, int]]) -> bool:
        """Whether the payments (amount, required type) can all be made in order (§13)."""
        if not payments:
            return True
        x, rt = payments[0]
        if len(payments) == 1:
            cap = a1 + 2 * a2
            return r[0] + r[1] + r[2] >= x and max(r[rt], r[FRUIT]) >= x - cap
        rest = payments[1:]
        spend = self.game.exchange_limit != "per_payment"
        if a1 == 0 and a2 == 0 and len(rest) == 1:
            # no exchange hut: each payment is wholly in its type or wholly in fruit
            y, rt2 = rest[0]
            fr = r[FRUIT]
            if r[rt] >= x:
                left = r[rt2] - (x if rt2 == rt else 0)
                if left >= y or fr >= y:
                    return True
            if fr >= x:
                return r[rt2] >= y or fr - x >= y
            return False
        if a1 == 0 and a2 == 0:
            for nf in (0, x):
                if nf <= r[FRUIT] and (x - nf <= r[rt]):
                    r2 = r[:]
                    r2[FRUIT] -= nf
                    r2[rt] -= x - nf
                    if self.feasible(r2, 0, 0, rest):
                        return True
            return False
        for nf in range(x + 1):
            for nq in range(x - nf + 1):
                use = self._pay_ok(r, a1, a2, x, rt, nf, nq)
                if use is None:
                    continue
                r2 = r[:]
                r2[FRUIT] -= nf
                r2[1 - rt] -= nq
                r2[rt] -= x - nf - nq
                b1, b2 = (a1 - use[0], a2 - use[1]) if spend else (a1, a2)
                if self.feasible(r2, b1, b2, rest):
                    return True
        return False

    def can_afford(self, p: int, payments: list[tuple[int, int]]) -> bool:
        a1, a2 = self.huts_free(p)
        return self.feasible(self.res[p], a1, a2, payments)

    # ------------------------------------------------------------------- boats
    def boat_units(self, c: int, n0: int, n1: int, n2: int) -> int:
        """Paid units P for carrying c units with the chosen boats, or -1 if the set is not allowed (§12.4)."""
        nb = n0 + n1 + n2
        if nb == 0:
            return -1
        o = self.game.options
        if o["boat2_allow_surplus_payment"]:
            pay = max(c - n2, n2)
        else:
            pay = c - n2
            if pay < n2:
                return -1
        if not o["allow_empty_boat_launch"] and pay < nb:
            return -1
        if pay > FISHING_BOAT_CAPACITY * n0 + BOAT_PAID_CAPACITY * (n1 + n2):
            return -1
        return pay

    def free_boats(self, p: int, exclude: list[int] | None = None) -> tuple[int, int, int]:
        """Unused boats of p: (fishing boat 0/1, side-I boats, side-II boats)."""
        used = self.boat_used[p]
        f0 = 0 if used[0] or (exclude and 0 in exclude) else 1
        b1 = b2 = 0
        for i, side in enumerate(self.boats[p]):
            if used[i + 1] or (exclude and i + 1 in exclude):
                continue
            if side == SIDE_II:
                b2 += 1
            else:
                b1 += 1
        return f0, b1, b2

    def _sel_counts(self, p: int, sel: list[int]) -> tuple[int, int, int]:
        s0 = s1 = s2 = 0
        for i in sel:
            if i == 0:
                s0 += 1
            elif self.boats[p][i - 1] == SIDE_II:
                s2 += 1
            else:
                s1 += 1
        return s0, s1, s2

    def min_boat_payment(self, c: int, sel: tuple[int, int, int], free: tuple[int, int, int]) -> int:
        """Smallest payment P of any allowed superset of the selected boats carrying c units, or -1."""
        s0, s1, s2 = sel
        f0, f1, f2 = free
        best = -1
        units = self.boat_units
        for n2 in range(s2, s2 + f2 + 1):
            for n0 in range(s0, s0 + f0 + 1):
                for n1 in range(s1, s1 + f1 + 1):
                    pay = units(c, n0, n1, n2)
                    if pay >= 0:
                        if best < 0 or pay < best:
                            best = pay
                        break  # more side-I boats never lower the payment
        return best

    def boat_plan_exists(self, p: int, c: int, sel: tuple[int, int, int], free: tuple[int, int, int]) -> bool:
        """Whether some superset of the selected boats carries c units affordably (§12.4).

        Affordability only gets harder as the payment grows, so the smallest payment decides."""
        pay = self.min_boat_payment(c, sel, free)
        if pay < 0:
            return False
        r = self.res[p]
        a1, a2 = self.huts_free(p)
        return r[0] + r[1] + r[2] >= pay and max(r[FEET], r[FRUIT]) >= pay - a1 - 2 * a2

    def boat_options_exist(self, p: int, c: int) -> bool:
        return self.boat_plan_exists(p, c, (0, 0, 0), self.free_boats(p))

    def fish_cost(self, k: int) -> int:
        if self.game.options["fish_cost_per_fish"]:
            return sum(self.game.token_fish[t] for t in self.cove[:k])
        return k

    # --------------------------------------------------------------- legality
    def is_terminal(self) -> bool:
        return self.terminal

    def legal_mask(self) -> np.ndarray:
        m = self._mask
        if m is None:
            m = self._compute_mask()
            m.flags.writeable = False  # read-only per the State.legal_mask contract
            self._mask = m
        return m

    def legal_actions(self) -> list[int]:
        return self.legal_mask().nonzero()[0].tolist()

    def is_legal(self, action: int) -> bool:
        return 0 <= action < self.game.num_actions and bool(self.legal_mask()[action])

    def _buy_possible(self, p: int, slot: int, value: int, memo: dict | None = None) -> bool:
        """A purchase at ``slot`` with a token of ``value`` (side I) can be placed and paid, move included."""
        pc = self.placeable(p)
        for t in self.offered_tiles(slot):
            if pc[t]:
                m = self.move_cost(p, slot)
                if memo is None:
                    return self.can_afford(p, [(m, FEET), (value, SHELLS)])
                key = m * 64 + value
                ok = memo.get(key)
                if ok is None:
                    ok = memo[key] = self.can_afford(p, [(m, FEET), (value, SHELLS)])
                return ok
        return False

    def placeable(self, p: int) -> list[bool]:
        """Per tile type, whether one tile of it could be placed by p now (cached until a realm changes)."""
        pc = self._placeable[p]
        if pc is None:
            pc = self._placeable[p] = self._compute_placeable(p)
        return pc

    def _compute_placeable(self, p: int) -> list[bool]:
        if self.game.max_cols:
            return [t != 0 and self.can_place(p, t, False) for t in range(NUM_TYPES)]
        out = [False] * NUM_TYPES
        rows = self.rows[p]
        if rows:
            sets = [{code >> 1 for code in row} for row in rows]
            in_all = set.intersection(*sets)
            god_free_row = any(not (st & GOD_SET) for st in sets)
            for t in range(1, KU):
                out[t] = t not in in_all  # some village lacks this type
            own = self.own[p]
            for t in GOD_TYPES:
                out[t] = god_free_row and not own[t]
        if len(rows) < NUM_ROWS:
            for t in HUT_TYPES:
                out[t] = True  # a hut may found the next village
        supply = self.supply
        out[KAHUNA] = self.kahunas[p] < KAHUNA_SPACES and supply[KAHUNA] > 0
        out[TIKI] = self.tikis[p] < TIKI_SPACES and supply[TIKI] > 0
        out[BOAT] = len(self.boats[p]) < self.game.options["max_boats"] and supply[BOAT] > 0
        return out

    def _main_buys(self, p: int, out: list[int]) -> None:
        """Slots where p can buy (a placeable tile, a token, and move + price payable): the hot path."""
        g = self.game
        pc = self.placeable(p)
        supply = self.supply
        r = self.res[p]
        sh, ft, fr = r
        a1, a2 = self.huts_free(p)
        nohut = a1 == 0 and a2 == 0
        loc = self.loc[p]
        dist = g.beach_dist if loc < 0 else g.slot_dist[loc]
        waypoint = g.options["beach_as_waypoint"] and loc >= 0
        pele = self.side_of(p, PELE)
        cap = PELE_CAP[pele - 1] if pele else ABOVE_ANY
        choose_fruit = g.options["fruit_kind_choice_on_purchase"]
        memo: dict[int, bool] = {}
        for s in range(NUM_SLOTS):
            c0, c1, c2 = self.circles[s]
            v = ABOVE_ANY
            if c0 >= 0:
                v = TOKEN_VALUE[c0]
            if c1 >= 0 and TOKEN_VALUE[c1] < v:
                v = TOKEN_VALUE[c1]
            if c2 >= 0 and TOKEN_VALUE[c2] < v:
                v = TOKEN_VALUE[c2]
            if v == ABOVE_ANY:
                continue
            pl = self.slot_place[s]
            ok = False
            if pl == GODS_PLACE:
                for st in self.god_stacks:
                    if st and pc[st[-1]]:
                        ok = True
                        break
            elif PLACE_OFFERS[pl] is FRUIT_TYPES and not choose_fruit:
                ok = any(pc[t] for t in self.offered_tiles(s))
            else:
                for t in PLACE_OFFERS[pl]:
                    if supply[t] and pc[t]:
                        ok = True
                        break
            if not ok:
                continue
            mc = 1 if loc == s else dist[s]
            if waypoint:
                mc = min(mc, g.beach_dist[loc] + g.beach_dist[s])
            if mc > cap:
                mc = cap
            if nohut:
                # without exchange huts: move wholly in feet or fruit, price wholly in shells or fruit
                if (ft >= mc and (sh >= v or fr >= v)) or (fr >= mc and (sh >= v or fr - mc >= v)):
                    out.append(s)
                continue
            key = mc * 64 + v
            aff = memo.get(key)
            if aff is None:
                aff = memo[key] = self.feasible(r, a1, a2, [(mc, FEET), (v, SHELLS)])
            if aff:
                out.append(s)

    def _legal_list(self) -> list[int]:
        """Legal flat actions of the current decision (look-ahead: every one can be completed)."""
        g = self.game
        codec = g.codec
        m: list[int] = []
        if self.terminal:
            return m
        p = self.current_player
        ph = self.phase
        off = codec.offsets[ph]
        if ph == A.MAIN:
            self._main_buys(p, m)
            free = self.free_boats(p)
            r = self.res[p]
            a1, a2 = self.huts_free(p)
            total = r[0] + r[1] + r[2]
            best = r[FEET] if r[FEET] > r[FRUIT] else r[FRUIT]
            cap = a1 + 2 * a2
            if self.cove:
                pay = self.min_boat_payment(self.fish_cost(1), (0, 0, 0), free)
                if 0 <= pay <= total and best >= pay - cap:
                    m.append(A.MAIN_FISH)
            dc = g.options["dock_cost"]
            for d in range(NUM_DOCKS):
                isl = self.docks[d]
                if isl < 0:
                    continue
                pay = self.min_boat_payment(dc[d], (0, 0, 0), free)
                if 0 <= pay <= total and best >= pay - cap:
                    if g.options["island_requires_placeable_reward"] and not self.island_reward_placeable(p, isl):
                        continue
                    m.append(A.MAIN_ISLAND + d)
            taken = self.passed
            for sp in range(g.pass_spaces):
                if sp not in taken:
                    m.append(A.MAIN_PASS + sp)
        elif ph == A.TOKEN:
            memo = {}
            for c, t in enumerate(self.circles[self.c_slot]):
                if t >= 0 and self._buy_possible(p, self.c_slot, TOKEN_VALUE[t], memo):
                    m.append(off + c)
        elif ph == A.TILE:
            if self.kind == BUY:  # the TOKEN decision already checked that the price can be paid
                pc = self.placeable(p)
                for t in self.offered_tiles(self.c_slot):
                    if pc[t]:
                        m.append(off + t)
            else:  # island fruit tile: any kind in supply that fits
                for t in FRUIT_TYPES:
                    if self.supply[t] and self.can_place(p, t, False):
                        m.append(off + t)
        elif ph == A.SIDE:
            v = TOKEN_VALUE[self.circles[self.c_slot][self.c_circle]]
            m.append(off)  # checked by the TILE mask
            if self.can_place(p, self.c_tile, True) and self.can_afford(p, [(self.c_move, FEET), (2 * v, SHELLS)]):
                m.append(off + 1)
        elif ph == A.ROW:
            for r in self.village_rows_for(p, self.c_tile):
                m.append(off + r)
        elif ph == A.PAY or ph == A.SPLIT:
            x, rt = self.payments[0]
            rest = self.payments[1:]
            r = self.res[p]
            a1, a2 = self.huts_free(p)
            spend = g.exchange_limit != "per_payment"
            nohut = a1 == 0 and a2 == 0
            if ph == A.PAY:
                nfs = ((0, x) if x else (0,)) if nohut else range(x + 1)
            else:
                nfs = (self.pay_nf,)
            for nf in nfs:
                for nq in ((0,) if nohut else range(x - nf + 1)):
                    use = self._pay_ok(r, a1, a2, x, rt, nf, nq)
                    if use is None:
                        continue
                    if rest:
                        r2 = r[:]
                        r2[FRUIT] -= nf
                        r2[1 - rt] -= nq
                        r2[rt] -= x - nf - nq
                        b1, b2 = (a1 - use[0], a2 - use[1]) if spend else (a1, a2)
                        if not self.feasible(r2, b1, b2, rest):
                            continue
                    if ph == A.PAY:
                        m.append(off + nf)
                        break
                    m.append(off + nq)
        elif ph == A.KANE:
            m.append(off)
            r = self.res[p]
            for i, (s_, f_, fr) in enumerate(KANE_PAYMENTS):
                if r[SHELLS] >= s_ and r[FEET] >= f_ and r[FRUIT] >= fr:
                    m.append(off + 1 + i)
        elif ph == A.FISH:
            sel = (0, 0, 0)
            free = self.free_boats(p)
            for k in range(min(len(self.cove), A.MAX_FISH_TAKE)):
                if self.boat_plan_exists(p, self.fish_cost(k + 1), sel, free):
                    m.append(off + k)
        elif ph == A.BOATS:
            sel = self._sel_counts(p, self.boats_sel)
            free = self.free_boats(p, self.boats_sel)
            c = self.c_cost
            pay = self.boat_units(c, *sel)
            if pay >= 0 and self.can_afford(p, [(pay, FEET)]):
                m.append(off + A.BOAT_DONE)
            can = [False, False, False]
            for kind in range(3):
                if free[kind]:
                    s2 = list(sel)
                    s2[kind] += 1
                    f2 = list(free)
                    f2[kind] -= 1
                    can[kind] = self.boat_plan_exists(p, c, tuple(s2), tuple(f2))
            used = self.boat_used[p]
            if can[0] and not used[0] and 0 not in self.boats_sel:
                m.append(off)
            for i, side in enumerate(self.boats[p]):
                if not used[i + 1] and i + 1 not in self.boats_sel and can[SIDE_II if side == SIDE_II else SIDE_I]:
                    m.append(off + i + 1)
        elif ph == A.IRRIG:
            m.extend((off, off + 1, off + 2))
        return m

    def _compute_mask(self) -> np.ndarray:
        m = np.zeros(self.game.num_actions, dtype=bool)
        legal = self._legal_list()
        if legal:
            m[legal] = True
        return m

    # ------------------------------------------------------------------ apply
    def _apply(self, action: int) -> None:
        self._step(action)
        self._autoresolve()

    def _autoresolve(self) -> None:
        """Resolve sub-decisions that have exactly one legal option."""
        while not self.terminal and self.phase != A.MAIN and self.phase != A.IRRIG:
            legal = self._legal_list()
            if len(legal) != 1:
                m = np.zeros(self.game.num_actions, dtype=bool)
                m[legal] = True
                m.flags.writeable = False  # the State.legal_mask contract
                self._mask = m
                return
            self._step(legal[0])

    def _step(self, action: int) -> None:
        ph, i = self.game.codec.table[action]
        self._mask = None
        p = self.current_player
        if ph == A.MAIN:
            self._main(p, i)
        elif ph == A.TOKEN:
            self.c_circle = i
            self.phase = A.TILE
        elif ph == A.TILE:
            self.c_tile = i
            if self.kind == BUY:
                self.phase = A.SIDE
            else:
                self.phase = A.ROW
        elif ph == A.SIDE:
            self.c_side = i + 1
            v = TOKEN_VALUE[self.circles[self.c_slot][self.c_circle]]
            self.c_price = v * (i + 1)
            self.payments = [(self.c_move, FEET), (self.c_price, SHELLS)]
            t = self.c_tile
            self.phase = A.PAY if t in (KAHUNA, TIKI, BOAT) else A.ROW
        elif ph == A.ROW:
            self.c_row = i
            if self.kind == BUY:
                self.phase = A.PAY
            else:  # island reward tile, side II
                self.place_village_tile(p, self.c_tile, 2, i)
                self._start_boats()
        elif ph == A.PAY:
            self.pay_nf = i
            a1, a2 = self.huts_free(p)
            if a1 == 0 and a2 == 0:  # without exchange huts the third resource cannot be used
                self._finish_payment(p, i, 0)
            else:
                self.phase = A.SPLIT
        elif ph == A.SPLIT:
            self._finish_payment(p, self.pay_nf, i)
        elif ph == A.KANE:
            if i > 0:
                cost = KANE_PAYMENTS[i - 1]
                r = self.res[p]
                for k in range(3):
                    r[k] -= cost[k]
                self.place_tikis(p, 1)
            self._end_turn()
        elif ph == A.FISH:
            self.c_fish = i + 1
            self.c_cost = self.fish_cost(i + 1)
            self._start_boats()
        elif ph == A.BOATS:
            if i == A.BOAT_DONE:
                sel = self._sel_counts(p, self.boats_sel)
                self.payments = [(self.boat_units(self.c_cost, *sel), FEET)]
                self.phase = A.PAY
            else:
                self.boats_sel.append(i)
        else:  # IRRIG
            self.res[p][i] += 1
            self.irrig_queue.pop(0)
            if self.irrig_queue:
                self.current_player = self.irrig_queue[0]
            else:
                self._start_next_round()

    def _main(self, p: int, i: int) -> None:
        g = self.game
        if i < NUM_SLOTS:
            self.kind = BUY
            self.c_slot = i
            self.c_move = self.move_cost(p, i)
            self.phase = A.TOKEN
        elif i == A.MAIN_FISH:
            self.kind = FISHING
            self.loc[p] = -1
            self.phase = A.FISH
        elif i < A.MAIN_PASS:
            d = i - A.MAIN_ISLAND
            self.kind = ISLAND
            self.loc[p] = -1
            self.c_dock = d
            self.c_cost = g.options["dock_cost"][d]
            self.visit_island(p, d)
        else:
            self.end_round_for(p, i - A.MAIN_PASS)

    def _start_boats(self) -> None:
        self.boats_sel = []
        self.phase = A.BOATS

    def _finish_payment(self, p: int, nf: int, nq: int) -> None:
        x, rt = self.payments.pop(0)
        a1, a2 = self.huts_free(p)
        use = self._pay_ok(self.res[p], a1, a2, x, rt, nf, nq)
        assert use is not None
        r = self.res[p]
        r[FRUIT] -= nf
        r[1 - rt] -= nq
        r[rt] -= x - nf - nq
        if self.game.exchange_limit != "per_payment":
            self.exch_used[p][0] += use[0]
            self.exch_used[p][1] += use[1]
        if self.payments:
            self.phase = A.PAY
            return
        if self.kind == BUY:
            self.complete_purchase(p)
        else:
            self.complete_boat_trip(p)

    # ------------------------------------------------------------ rule effects
    def acquire_spear_token(self, p: int) -> None:
        v = self.spear_value(p)
        if v:
            self.vp[p] += v
            self.vp_parts[p][VP_SPEAR] += v

    def complete_purchase(self, p: int) -> None:
        """§12.2: take the token, spear VP, place the tile(s) with their space bonuses, Kane's offer."""
        s, c, t, side = self.c_slot, self.c_circle, self.c_tile, self.c_side
        tok = self.circles[s][c]
        self.circles[s][c] = -1
        self.changes.log("slots", s)
        self.changes.mark("supply")
        self.held[p].append(tok)
        self.rsum[p] += TOKEN_VALUE[tok]
        self.loc[p] = s
        on_buy = self.game.options["spear_bonus_on_buying_token"]
        if self.game.token_spear[tok] and not on_buy:
            self.acquire_spear_token(p)
        if t == KAHUNA:
            self.place_kahunas(p, side)
        elif t == TIKI:
            self.place_tikis(p, side)
        elif t == BOAT:
            self.supply[BOAT] -= 1
            self.changes.mark(("realm", p))
            self._placeable = [None] * len(self._placeable)
            self.boats[p].append(side)
            self.boat_used[p].append(False)
        else:
            if t in GOD_TYPES:
                st = self.god_stacks[0] if self.god_stacks[0] and self.god_stacks[0][-1] == t else self.god_stacks[1]
                st.pop()
            else:
                self.supply[t] -= 1
            self._put_tile(p, t, side, self.c_row)
        if self.game.token_spear[tok] and on_buy:
            self.acquire_spear_token(p)
        r = self.res[p]
        if (t == KANE and self.supply[TIKI] > 0 and self.tikis[p] < TIKI_SPACES
                and r[0] + r[1] + r[2] >= KANE_TIKI_COST):
            self.phase = A.KANE
            return
        self._end_turn()

    def _put_tile(self, p: int, t: int, side: int, r: int) -> None:
        rows = self.rows[p]
        if r == len(rows):
            rows.append([])
        rows[r].append(t * 2 + side - 1)
        self.changes.mark(("realm", p))
        self._placeable[p] = None
        self.changes.mark("supply")
        # own and own_side2 are shared with clones (copied here, on the rare write, not on every clone)
        own = self.own = self.own[:]
        own[p] = own[p][:]
        own[p][t] += 1
        if side == SIDE_II:
            own2 = self.own_side2 = self.own_side2[:]
            own2[p] = own2[p][:]
            own2[p][t] += 1

    def place_village_tile(self, p: int, t: int, side: int, r: int) -> None:
        """Take a village tile from the supply (not gods) and place it in row r."""
        self.supply[t] -= 1
        self._put_tile(p, t, side, r)

    def _gain(self, p: int, kind: int, amount: int) -> None:
        if self.kind == ISLAND and not self.game.options["island_reward_funds_payment"]:
            self.pending_gain[kind] += amount
        else:
            self.res[p][kind] += amount

    def place_kahunas(self, p: int, count: int) -> int:
        """Put up to ``count`` Kahunas on the next free spaces, collecting their shells."""
        bonus = self.game.options["kahuna_bonus_shells"]
        placed = 0
        while placed < count and self.kahunas[p] < KAHUNA_SPACES and self.supply[KAHUNA] > 0:
            self.supply[KAHUNA] -= 1
            self.changes.mark(("realm", p))
            self._placeable = [None] * len(self._placeable)
            self.changes.mark("supply")
            self._gain(p, SHELLS, bonus[self.kahunas[p]])
            self.kahunas[p] += 1
            placed += 1
        return placed

    def place_tikis(self, p: int, count: int) -> int:
        """Put up to ``count`` Tikis on the next free spaces, collecting their feet."""
        bonus = self.game.options["tiki_bonus_feet"]
        placed = 0
        while placed < count and self.tikis[p] < TIKI_SPACES and self.supply[TIKI] > 0:
            self.supply[TIKI] -= 1
            self.changes.mark(("realm", p))
            self._placeable = [None] * len(self._placeable)
            self.changes.mark("supply")
            self._gain(p, FEET, bonus[self.tikis[p]])
            self.tikis[p] += 1
            placed += 1
        return placed

    def island_reward_placeable(self, p: int, isl: int) -> bool:
        k = ISLAND_KIND[isl]
        if k in ISLAND_TILE:
            t = ISLAND_TILE[k]
            return self.supply[t] > 0 and self.can_place(p, t, False)
        if k == ISL_FRUIT_TILE:
            return any(self.supply[t] and self.can_place(p, t, False) for t in FRUIT_TYPES)
        if k == ISL_KAHUNA2:
            return self.can_place(p, KAHUNA, False)
        if k == ISL_TIKI2:
            return self.can_place(p, TIKI, False)
        return True

    def visit_island(self, p: int, d: int) -> None:
        """§12.5: dock VP at once, then the reward (free, side II), then boats and payment."""
        isl = self.docks[d]
        self.changes.mark("docks")
        self.docks[d] = -1
        self.isl_stack.append(isl)
        self.isl_up.append(True)
        v = self.game.options["dock_vp"][d]
        k = ISLAND_KIND[isl]
        if k == ISL_VP5:
            v += ISLAND_VP
        self.vp[p] += v
        self.vp_parts[p][VP_ISLAND] += v
        if k == ISL_FRUIT4:
            self._gain(p, FRUIT, ISLAND_FRUIT)
        elif k == ISL_KAHUNA2:
            self.place_kahunas(p, 2)
        elif k == ISL_TIKI2:
            self.place_tikis(p, 2)
        elif k in (ISL_SHELL_HUT, ISL_FOOT_HUT, ISL_HULA, ISL_SURFER):
            t = ISLAND_TILE[k]
            if self.supply[t] > 0 and self.can_place(p, t, False):
                self.c_tile = t
                self.phase = A.ROW
                return
        elif k == ISL_FRUIT_TILE:
            if any(self.supply[t] and self.can_place(p, t, False) for t in FRUIT_TYPES):
                self.phase = A.TILE
                return
        self._start_boats()

    def complete_boat_trip(self, p: int) -> None:
        """Turn the launched boats; fishing takes the tokens with most fish; island gains arrive."""
        used = self.boat_used[p]
        for i in self.boats_sel:
            used[i] = True
        if self.kind == FISHING:
            k = self.c_fish
            taken = self.cove[:k]
            del self.cove[:k]
            self.changes.mark("cove")
            self.fished[p].extend(taken)
            self.rsum[p] += sum(self.game.token_fish[t] for t in taken)
            if self.game.options["spear_bonus_on_fish_token"]:
                for t in taken:
                    if self.game.token_spear[t]:
                        self.acquire_spear_token(p)
        else:
            g = self.pending_gain
            r = self.res[p]
            for i in range(3):
                r[i] += g[i]
        self._end_turn()

    def end_round_for(self, p: int, space: int) -> None:
        """§12.6: stand below sequence space ``space``, take its token (spear VP)."""
        self.passed[p] = space
        self.loc[p] = -1
        tok = self.seq[space]
        if tok >= 0:
            self.seq[space] = -1
            self.changes.mark("sequence")
            self.held[p].append(tok)
            self.rsum[p] += TOKEN_VALUE[tok]
            if self.game.token_spear[tok] and self.game.options["spear_bonus_on_pass_token"]:
                self.acquire_spear_token(p)
        self._end_turn()

    def _end_turn(self) -> None:
        p = self.current_player
        if self.game.exchange_limit == "per_turn":
            self.exch_used[p][0] = self.exch_used[p][1] = 0
        self._reset_ctx()
        order, passed = self.order, self.passed
        n = len(order)
        for k in range(1, n + 1):
            pos = (self.turn_pos + k) % n
            if passed[order[pos]] < 0:
                self.turn_pos = pos
                self.current_player = order[pos]
                return
        self.end_of_round()

    # ------------------------------------------------------------- round end
    def round_scoring(self) -> None:
        """§14.1: targets, first / second / reached VP, Lono, round-5 bonus for sequence space 1."""
        o = self.game.options
        n = self.game.num_players
        vp1, vp2, vp3 = o["round_vp"][self.round]
        sums = [self.round_sum(p) for p in range(n)]
        elig = [p for p in range(n) if sums[p] >= self.target_of(p)]
        ranked = elig if o["rank_among_eligible_only"] else list(range(n))
        gain = [0] * n
        if ranked:
            top = max(sums[p] for p in ranked)
            firsts = [p for p in ranked if sums[p] == top]
            seconds: list[int] = []
            if len(firsts) == 1:
                rest = [sums[p] for p in ranked if sums[p] < top]
                if rest:
                    sec = max(rest)
                    seconds = [p for p in ranked if sums[p] == sec]
            for p in elig:
                gain[p] = vp1 if p in firsts else (vp2 if p in seconds else vp3)
        for p in elig:
            lono = self.side_of(p, LONO)
            if lono:
                gain[p] += LONO_VP[lono - 1]
        if self.round == NUM_ROUNDS - 1 and o["final_bonus_pass_pos1"]:
            for p in range(n):
                if self.passed[p] == 0 and (p in elig or not o["pass_pos1_bonus_requires_target"]):
                    gain[p] += o["final_bonus_pass_pos1"]
        for p in range(n):
            self.vp[p] += gain[p]
            self.vp_parts[p][VP_ROUND] += gain[p]

    def income(self, p: int) -> list[int]:
        """§14.2: base income plus huts, Kane, Ku and fruit tiles (irrigation II is a decision)."""
        bi = self.game.options["base_income"]
        base = bi[self.round] if self.round < len(bi) else (0, 0)
        own, own2 = self.own[p], self.own_side2[p]
        shells = base[0] + own[SHELL_HUT] + own2[SHELL_HUT]
        feet = base[1] + own[FOOT_HUT] + own2[FOOT_HUT]
        kane = self.side_of(p, KANE)
        if kane:
            shells += kane
        if own[KU]:
            feet += 1
        fruit = sum(own[t] + own2[t] for t in FRUIT_TYPES)
        return [shells, feet, fruit]

    def end_of_round(self) -> None:
        """§11.3: round scoring; after round 5 final scoring, otherwise income and the next round."""
        self.round_scoring()
        last = self.round == NUM_ROUNDS - 1
        queue = []
        if not last or self.game.options["income_after_round5"]:
            for p in self.order:
                inc = self.income(p)
                r = self.res[p]
                for k in range(3):
                    r[k] += inc[k]
                if last:  # no decision after the last round: irrigation II gives fruit
                    r[FRUIT] += self.own_side2[p][IRRIGATION]
                else:
                    queue.extend([p] * self.own_side2[p][IRRIGATION])
        if last:
            self.final_scoring()
            return
        if queue:
            self.phase = A.IRRIG
            self.irrig_queue = queue
            self.current_player = queue[0]
            self._mask = None
            return
        self._start_next_round()

    def _start_next_round(self) -> None:
        """§11.3: new turn order, tokens back and laid out anew, islands slide, boats and huts reset."""
        n = self.game.num_players
        self.round += 1
        self.order = sorted(range(n), key=lambda p: self.passed[p])  # by sequence space
        self.passed = [-1] * n
        self.loc = [-1] * n
        bag = self.bag
        for p in range(n):
            bag.extend(self.held[p])
            bag.extend(self.fished[p])
            self.held[p] = []
            self.fished[p] = []
            self.rsum[p] = 0
            self.boat_used[p] = [False] * (1 + len(self.boats[p]))
            self.exch_used[p] = [0, 0]
        for circ in self.circles:
            for c in range(3):
                if circ[c] >= 0:
                    bag.append(circ[c])
                    circ[c] = -1
        for i in range(SEQ_SPACES):
            if self.seq[i] >= 0:
                bag.append(self.seq[i])
                self.seq[i] = -1
        bag.extend(self.cove)
        self.cove = []
        self.layout_price_tokens()
        self.refill_docks()
        self.changes.mark("board", *(("realm", p) for p in range(n)))
        self._reset_ctx()
        self.turn_pos = 0
        self.current_player = self.order[0]
        self._mask = None

    def _shuffle_island_stack(self) -> None:
        self.rng.shuffle(self.isl_stack)
        self.isl_up = [False] * len(self.isl_stack)

    def draw_island(self) -> int:
        """§7: draw the top island, reshuffling the stack when a face-up island comes to light."""
        mode = self.game.options["island_reshuffle"]
        if mode == "on_draw" and self.isl_up[0]:
            self._shuffle_island_stack()
        isl = self.isl_stack.pop(0)
        self.isl_up.pop(0)
        if mode == "on_top" and self.isl_up and self.isl_up[0]:
            self._shuffle_island_stack()
        return isl

    def refill_docks(self) -> None:
        """Remaining islands slide towards D1; empty docks are refilled from the stack."""
        if -1 not in self.docks:
            return
        kept = [i for i in self.docks if i >= 0]
        while len(kept) < NUM_DOCKS:
            kept.append(self.draw_island())
        self.docks = kept

    # ----------------------------------------------------------- final scoring
    def scored_rows(self, p: int) -> list[int]:
        """§8: rows that reach under a Tiki: T >= 1 and columns + T > tiki_space1_column."""
        t = self.tikis[p]
        if t == 0:
            return []
        k = self.game.options["tiki_space1_column"]
        return [r for r, row in enumerate(self.rows[p]) if self.row_columns(row) + t >= k + 1]

    def final_village_vp(self, p: int) -> int:
        """§15: VP of p's scored villages (Kahunas, long hut II, hula, irrigation, Laka, Kanaloa)."""
        o = self.game.options
        scored = self.scored_rows(p)
        fruit_symbols = 0
        surfers = 0
        for r in scored:
            for code in self.rows[p][r]:
                t = code >> 1
                if t in FRUIT_TYPES:
                    fruit_symbols += 1 + (code & 1)
                elif t == SURFER:
                    surfers += 1
        boats = len(self.boats[p]) + (1 if o["kanaloa_counts_starting_boat"] else 0)
        total = 0
        for r in scored:
            row = self.rows[p][r]
            if r < self.kahunas[p]:
                total += o["kahuna_vp"][r]
            nfruit = sum(1 for code in row if (code >> 1) in FRUIT_TYPES)
            for code in row:
                t, side = code >> 1, (code & 1) + 1
                if t == LONG_HUT and side == SIDE_II:
                    total += LONG_HUT_II_VP
                elif t == HULA:
                    total += HULA_VP[side - 1] * len(row)
                elif t == IRRIGATION:
                    total += o["irrigation_vp"][min(nfruit, 4)]
                elif t == LAKA:
                    total += LAKA_VP[side - 1] * fruit_symbols
                elif t == KANALOA:
                    total += KANALOA_VP[side - 1] * (boats + surfers)
        return total

    def final_scoring(self) -> None:
        for p in range(self.game.num_players):
            v = self.final_village_vp(p)
            self.vp[p] += v
            self.vp_parts[p][VP_FINAL] += v
        self.terminal = True
        self.current_player = -1
        self._reset_ctx()

    # ---------------------------------------------------------------- results
    def scores(self) -> list[float]:
        return [float(v) for v in self.vp]

    def rank_keys(self) -> list[tuple]:
        if self.game.options["tiebreak_remaining_resources"]:
            return [(self.vp[p], sum(self.res[p])) for p in range(self.game.num_players)]
        return [(v,) for v in self.vp]

    # ---------------------------------------------------------- information
    def determinize(self, player: int, rng: Any = None) -> HawaiiState:
        """Resample what nobody has seen: god tiles below the two tops, face-down island order, future draws.

        The token bag (drawn by index from the state's generator) is put in a canonical order, so
        the sample does not depend on the order the bag happens to be in."""
        r = as_rng(rng)
        s = self.clone()
        s.bag.sort()
        st0, st1 = s.god_stacks
        below = sorted(st0[:-1] + st1[:-1])  # sorted: the sample must not depend on the hidden order
        r.shuffle(below)
        n0 = max(len(st0) - 1, 0)
        if st0:
            s.god_stacks[0] = below[:n0] + [st0[-1]]
        if st1:
            s.god_stacks[1] = below[n0:] + [st1[-1]]
        down = [i for i, up in enumerate(s.isl_up) if not up]
        ids = sorted(s.isl_stack[i] for i in down)
        r.shuffle(ids)
        for i, isl in zip(down, ids):
            s.isl_stack[i] = isl
        s.rng = Rng(r.next64())
        s._mask = None
        return s

    # -- persistence: clone, _to_dict and _from_dict follow from SCHEMA ----------------------
    def validate(self) -> None:
        """The invariants of a position that the schema's per-field checks cannot express: every
        component in exactly one place, villages built by the rules, the turn consistent."""
        g = self.game
        n = g.num_players
        o = g.options
        if sorted(self.order) != list(range(n)):
            raise _corrupt("order is not a permutation of the players")
        spaces = [x for x in self.passed if x >= 0]
        if len(set(spaces)) != len(spaces):
            raise _corrupt("two chieftains on one sequence space")
        if sorted(self.slot_place) != sorted(g.places):
            raise _corrupt("slot_place is not the place set of this configuration")
        tokens: list[int] = []
        for sl, circ in enumerate(self.circles):
            if any(circ[c] != -1 for c in range(PLACE_CIRCLES[self.slot_place[sl]], MAX_CIRCLES)):
                raise _corrupt("circles: token on a circle the place does not have")
            tokens += [t for t in circ if t >= 0]
        if self.seq[0] != -1 or any(t != -1 for t in self.seq[n:]):
            raise _corrupt("seq: token on sequence space 1 or beyond the player count")
        tokens += [t for t in self.seq if t >= 0]
        tokens += self.cove + self.bag
        for p in range(n):
            tokens += self.held[p] + self.fished[p]
        if sorted(tokens) != list(range(NUM_TOKENS)):
            raise _corrupt("price tokens are not each in exactly one place")
        if len(self.isl_up) != len(self.isl_stack):
            raise _corrupt("isl_up must be one bool per stacked island")
        if sorted([i for i in self.docks if i >= 0] + self.isl_stack) != list(range(NUM_ISLANDS)):
            raise _corrupt("islands are not each in exactly one place")
        for p in range(n):
            if sum(self.vp_parts[p]) != self.vp[p]:
                raise _corrupt("vp_parts do not add up to vp")
        placed = [0] * NUM_TYPES
        for p in range(n):
            rows = self.rows[p]
            if len(rows) > NUM_ROWS:
                raise _corrupt(f"rows: a realm has at most {NUM_ROWS} villages")
            if o["printed_start_hut"] and (not rows or START_HUT_CODE not in rows[0]):
                raise _corrupt("rows: the printed start hut is missing from row 1")
            seen_gods: set[int] = set()
            for r, row in enumerate(rows):
                if not row:
                    raise _corrupt("rows: empty village row")
                types = [c >> 1 for c in row]
                if len(set(types)) != len(types):
                    raise _corrupt("rows: a village holds one tile type twice")
                if START_HUT_CODE in row and (r != 0 or not o["printed_start_hut"]):
                    raise _corrupt("rows: start hut outside row 1")
                if START_HUT_CODE + 1 in row:
                    raise _corrupt("rows: the start hut has no side II")
                if types[0] not in HUT_TYPES and types[0] != 0:
                    raise _corrupt("rows: a village must be founded with a hut")
                vg = [t for t in types if KU <= t <= KANALOA]
                if len(vg) > 1 or any(t in seen_gods for t in vg):
                    raise _corrupt("rows: more than one god in a village or a god twice in a realm")
                seen_gods.update(vg)
                for t in types:
                    placed[t] += 1
            if len(self.boats[p]) > o["max_boats"]:
                raise _corrupt("boats: more boats than allowed")
            if len(self.boat_used[p]) != 1 + len(self.boats[p]):
                raise _corrupt("boat_used must be one bool per boat (fishing boat first)")
            placed[KAHUNA] += self.kahunas[p]
            placed[TIKI] += self.tikis[p]
            placed[BOAT] += len(self.boats[p])
        for t, c in SUPPLY.items():
            if self.supply[t] + placed[t] != c:
                raise _corrupt(f"supply: {c} tiles of type {t} expected, supply and realms hold "
                               f"{self.supply[t] + placed[t]}")
        gods = self.god_stacks[0] + self.god_stacks[1]
        for gd in GOD_TYPES:
            if self.supply[gd] != 0 or gods.count(gd) + placed[gd] != o["gods_per_kind"]:
                raise _corrupt("god_stacks: god tiles are not conserved")
        for t in range(NUM_TYPES):
            if t not in SUPPLY and t not in GOD_TYPES and self.supply[t]:
                raise _corrupt(f"supply: type {t} has no tiles in this game, the supply holds {self.supply[t]}")
        for p in range(n):
            n2 = self.own_side2[p][EXCHANGE_HUT]
            owned = (self.own[p][EXCHANGE_HUT] - n2, n2)
            for side in range(2):
                if self.exch_used[p][side] > owned[side]:
                    raise _corrupt(f"exch_used: player {p} used {self.exch_used[p][side]} exchange huts of side "
                                   f"{'I' * (side + 1)}, he owns {owned[side]}")
        if self.terminal != (self.current_player == -1):
            raise _corrupt("current_player must be -1 exactly when the game is over")
        if not self.terminal and self.phase != A.IRRIG and (self.current_player != self.order[self.turn_pos]
                                                             or self.passed[self.current_player] >= 0):
            raise _corrupt("current_player: the player to move is not the one whose turn it is")
        problem = self._turn_context_problem()
        if problem:
            raise _corrupt(problem)
        if not self.terminal:
            if not self.legal_mask().any():
                raise _corrupt("the position has no legal action")

    def _turn_context_problem(self) -> str | None:
        """The decision asked (``phase``) and the turn's action (``kind``) must agree with each other and
        with the choices made so far in the turn (``c_*``, ``payments``, ``boats_sel``...), as the turn
        sequence of rules file §12 builds them: a saved state that breaks this plays into a decision with
        no legal action a few steps later.  Returns the broken rule, naming the field, or None."""
        ph, kind = self.phase, self.kind
        name = A.PHASE_NAMES[ph]
        kinds = _PHASE_KINDS[ph]
        if kind not in kinds:
            allowed = " or ".join(_KIND_NAMES[k] for k in kinds)
            return (f"kind={kind} ({_KIND_NAMES[kind]}) does not fit phase={ph} ({name}), which a turn reaches with "
                    f"kind {allowed}")
        if self.terminal or ph in (A.MAIN, A.IRRIG):  # between turns: nothing chosen yet
            for f, rest in _TURN_RESET.items():
                if getattr(self, f) != rest:
                    return f"{f}={getattr(self, f)!r} outside a turn (phase={ph} {name}): must be {rest!r}"
            irrig = ph == A.IRRIG
            if irrig != bool(self.irrig_queue) or (irrig and self.irrig_queue[0] != self.current_player):
                return "irrig_queue: the irrigation decision needs the queue, its first player to decide"
            return None
        if self.irrig_queue:
            return f"irrig_queue must be empty during a turn (phase={ph} {name})"
        need_payment = ph in (A.PAY, A.SPLIT) or (ph == A.ROW and kind == BUY)
        if bool(self.payments) != need_payment:
            return f"payments={self.payments!r} do not fit the decision phase={ph} ({name})"
        if kind == BUY:
            if self.c_slot < 0:
                return f"c_slot: a purchase (kind={kind}) needs its slot"
            if self.c_dock != -1 or self.c_fish or self.c_cost or self.boats_sel or any(self.pending_gain):
                return "c_dock, c_fish, c_cost, boats_sel and pending_gain belong to boat trips, not a purchase"
            has_token, has_tile, has_side = _PURCHASE_CHOSEN[ph]
            taken = ph == A.KANE  # the purchase is complete: its token has left the circle, he stands there
            if not taken and self.c_move != self.move_cost(self.current_player, self.c_slot):
                return f"c_move={self.c_move}: the move to slot {self.c_slot} costs " \
                       f"{self.move_cost(self.current_player, self.c_slot)}"
            if (self.c_circle >= 0) != has_token or (
                    has_token and not taken and self.circles[self.c_slot][self.c_circle] < 0):
                return f"c_circle={self.c_circle}: the price token chosen does not fit phase={ph} ({name})"
            if (self.c_tile >= 0) != has_tile or (
                    has_tile and not taken and self.c_tile not in self.offered_tiles(self.c_slot)):
                return f"c_tile={self.c_tile}: the tile chosen does not fit phase={ph} ({name}) at slot {self.c_slot}"
            if ph == A.TILE and not self._buy_possible(self.current_player, self.c_slot,
                                                       TOKEN_VALUE[self.circles[self.c_slot][self.c_circle]]):
                return f"c_circle={self.c_circle}: the price token chosen at slot {self.c_slot} cannot be paid"
            village = self.c_tile not in (KAHUNA, TIKI, BOAT)
            if ph in (A.PAY, A.SPLIT) and village:
                if self.c_row not in self.village_rows_for(self.current_player, self.c_tile):
                    return f"c_row={self.c_row}: the village chosen cannot take tile type {self.c_tile}"
            elif ph != A.KANE and self.c_row != -1:
                return f"c_row={self.c_row}: no village is chosen before phase={ph} ({name})"
            if (self.c_side > 0) != has_side and ph != A.KANE:
                return f"c_side={self.c_side}: the side chosen does not fit phase={ph} ({name})"
            if ph == A.KANE and self.c_tile != KANE:
                return f"c_tile={self.c_tile}: Kane's offer (phase={ph}) follows buying Kane"
            return None
        # a boat trip: fishing or an island visit
        if self.c_slot != -1 or self.c_circle != -1 or self.c_side or self.c_move or self.c_price:
            return f"c_slot, c_circle, c_side, c_move and c_price belong to purchases, not kind={kind}"
        if kind == FISHING:
            if self.c_dock != -1 or self.c_tile != -1 or self.c_row != -1 or any(self.pending_gain):
                return "c_dock, c_tile, c_row and pending_gain belong to island visits, not fishing"
            if (self.c_fish > 0) != (ph != A.FISH) or (ph == A.FISH and (self.c_cost or self.boats_sel)):
                return f"c_fish={self.c_fish}: the fish tokens chosen do not fit phase={ph} ({name})"
            return None
        if self.c_dock < 0 or self.c_fish:
            return f"c_dock={self.c_dock}, c_fish={self.c_fish}: an island visit needs its dock and takes no fish"
        if ph in (A.TILE, A.ROW):
            if (self.c_tile >= 0) != (ph == A.ROW) or self.boats_sel or self.c_row != -1:
                return f"c_tile={self.c_tile}: the island's reward tile does not fit phase={ph} ({name})"
            if ph == A.ROW and not self.village_rows_for(self.current_player, self.c_tile):
                return f"c_tile={self.c_tile}: the island's reward tile has no village to go to"
        return None

    # -------------------------------------------------------------- display
    def action_name(self, action: int) -> str:
        return self.game.codec.name(int(action))


START_HUT_CODE = 0
_KIND_NAMES = ("none", "purchase", "fishing", "island visit")
#: the turn's actions (kind) that can be asked each decision (phase), rules file §12
_PHASE_KINDS: dict[int, tuple[int, ...]] = {
    A.MAIN: (0,), A.IRRIG: (0,), A.TOKEN: (BUY,), A.SIDE: (BUY,), A.KANE: (BUY,), A.FISH: (FISHING,),
    A.TILE: (BUY, ISLAND), A.ROW: (BUY, ISLAND), A.BOATS: (FISHING, ISLAND),
    A.PAY: (BUY, FISHING, ISLAND), A.SPLIT: (BUY, FISHING, ISLAND),
}
#: in a purchase, per decision: whether the price token, the tile and its side are chosen already
_PURCHASE_CHOSEN: dict[int, tuple[bool, bool, bool]] = {
    A.TOKEN: (False, False, False), A.TILE: (True, False, False), A.SIDE: (True, True, False),
    A.ROW: (True, True, True), A.PAY: (True, True, True), A.SPLIT: (True, True, True), A.KANE: (True, True, True),
}
#: the turn's choices between turns (HawaiiState._reset_ctx)
_TURN_RESET: dict[str, object] = {
    "kind": 0, "c_slot": -1, "c_circle": -1, "c_tile": -1, "c_side": 0, "c_row": -1, "c_move": 0, "c_price": 0,
    "payments": [], "pay_nf": 0, "c_fish": 0, "c_dock": -1, "c_cost": 0, "boats_sel": [], "pending_gain": [0, 0, 0],
}

def _corrupt(msg: str) -> CorruptStateError:
    return CorruptStateError(f"hawaii: corrupt saved state: {msg}")


def _max_move(g: Game) -> int:
    """The dearest move of the configuration's board (§12.1: the longest distance; staying costs 1)."""
    assert isinstance(g, HawaiiGame)
    return max(1, *g.beach_dist, *(d for row in g.slot_dist for d in row))


def _max_payment(g: Game) -> int:
    """The largest single payment of the configuration (a price, a dock or the dearest fishing trip)."""
    assert isinstance(g, HawaiiGame)
    return g.pay_size - 1


def _players(g: Game) -> int:
    return g.num_players


def _last_player(g: Game) -> int:
    return g.num_players - 1


def _copy_rows(rows: list[list[Any]]) -> list[list[Any]]:
    return [r[:] for r in rows]


def _load_boat_used(data: Any, game: Game) -> list[list[bool]]:
    if not isinstance(data, list) or len(data) != game.num_players:
        raise FieldError(f"must be {game.num_players} lists of bools, got {data!r}")
    for row in data:
        if not isinstance(row, list) or not row or not all(isinstance(b, bool) for b in row):
            raise FieldError(f"must hold non-empty lists of bools, got {row!r}")
    return _copy_rows(data)


PAYMENT_PAIR = 2  # a saved payment is [amount, resource type]


def _load_payments(data: Any, game: Game) -> list[tuple[int, int]]:
    if not isinstance(data, list):
        raise FieldError(f"must be a list of [amount, type] pairs, got {data!r}")
    out = []
    for x in data:
        if (not isinstance(x, list) or len(x) != PAYMENT_PAIR or not all(is_int(v) for v in x)
                or not 0 <= x[0] < game.pay_size or x[1] not in (FEET, SHELLS)):
            raise FieldError(f"holds {x!r}, not an [amount < {game.pay_size}, type 0/1] pair")
        out.append((x[0], x[1]))
    return out


SCHEMA = StateSchema("hawaii", [
    RngField(doc="the chance stream (price-token draws; the piles are shuffled at setup)"),
    Int("round", 0, NUM_ROUNDS - 1, doc="the round, 0-based"),
    IntList("order", _players, 0, _last_player, doc="the players in turn order (sequence track)"),
    IntList("passed", _players, -1, lambda g: g.pass_spaces - 1,
            doc="passed[p]: the sequence space (0-based) p ended his round on, or -1"),
    Int("turn_pos", 0, _last_player, doc="index into order of the player whose turn it is"),
    IntList("slot_place", NUM_SLOTS, 0, len(PLACE_CIRCLES) - 1, doc="the place id in each slot P1..P10"),
    Nested("circles", (NUM_SLOTS, MAX_CIRCLES), -1, NUM_TOKENS - 1,
           doc="circles[s][c]: the price token on circle c of slot s (0 = printed), or -1"),
    IntList("supply", NUM_TYPES, 0, max(SUPPLY.values()), doc="tiles of each type left (gods: god_stacks)"),
    Nested("god_stacks", (2, None), KU, KANALOA, doc="the two god stacks, tops last"),
    IntList("seq", SEQ_SPACES, -1, NUM_TOKENS - 1, doc="the price token on each sequence space, or -1"),
    IntList("cove", None, 0, NUM_TOKENS - 1, doc="the fish tokens in the cove, best first"),
    IntList("bag", None, 0, NUM_TOKENS - 1, doc="the price tokens in the bag"),
    IntList("docks", NUM_DOCKS, -1, NUM_ISLANDS - 1, doc="the island at each dock, or -1"),
    IntList("isl_stack", None, 0, NUM_ISLANDS - 1, doc="the island stack from the top"),
    BoolList("isl_up", None, doc="whether each stacked island is face up"),
    IntList("vp", _players, 0, MAX_VP, doc="victory points"),
    Nested("vp_parts", (_players, len(VP_ACCOUNTS)), 0, MAX_VP, doc="vp[p] split by account (VP_ROUND..VP_FINAL)"),
    Nested("res", (_players, NUM_RESOURCES), 0, MAX_RESOURCE, doc="res[p] = [shells, feet, fruit]"),
    Nested("held", (_players, None), 0, NUM_TOKENS - 1, doc="the price tokens each player took this round"),
    Nested("fished", (_players, None), 0, NUM_TOKENS - 1, doc="the fish tokens each player took this round"),
    IntList("loc", _players, -1, NUM_SLOTS - 1, doc="each chieftain's slot, or -1 (beach)"),
    Nested("rows", (_players, None, None), 0, 2 * KANALOA + 1,
           doc="rows[p][r]: village r as tile codes type * 2 + side - 1 (start hut = 0)"),
    IntList("kahunas", _players, 0, KAHUNA_SPACES, doc="Kahunas placed"),
    IntList("tikis", _players, 0, TIKI_SPACES, doc="Tikis placed"),
    Nested("boats", (_players, None), 1, 2, doc="the side (1/2) of each bought boat"),
    Custom("boat_used", copy=_copy_rows, load=_load_boat_used,
           doc="boat_used[p][i]: boat i launched this turn (0 = the fishing boat)"),
    Nested("exch_used", (_players, 2), 0, NUM_ROWS, doc="[side-I huts used, side-II huts used] this turn"),
    Int("phase", 0, A.NUM_PHASES - 1, doc="the decision asked (actions.py phases)"),
    Int("kind", 0, ISLAND, doc="the turn's action: 0 none, BUY, FISHING, ISLAND"),
    Int("c_slot", -1, NUM_SLOTS - 1, doc="the slot of the purchase, or -1"),
    Int("c_circle", -1, MAX_CIRCLES - 1, doc="the circle of the chosen token, or -1"),
    Int("c_tile", -1, NUM_TYPES - 1, doc="the tile type chosen, or -1"),
    Int("c_side", 0, 2, doc="the side chosen (0 = not yet)"),
    Int("c_row", -1, NUM_ROWS - 1, doc="the village chosen, or -1"),
    Int("c_move", 0, _max_move, doc="the feet the move costs"),
    Int("c_price", 0, _max_payment, doc="the shells the purchase costs"),
    Custom("payments", copy=list.copy, save=lambda v: [list(x) for x in v], load=_load_payments,
           doc="payments still to make: (amount, resource type) pairs"),
    Int("pay_nf", 0, lambda g: g.pay_size - 1, doc="fruit chosen for the payment being split"),
    Int("c_fish", 0, A.MAX_FISH_TAKE, doc="fish tokens to take"),
    Int("c_dock", -1, NUM_DOCKS - 1, doc="the dock visited, or -1"),
    Int("c_cost", 0, _max_payment, doc="the units the boats must carry"),
    IntList("boats_sel", None, 0, MAX_BOATS, doc="the boats chosen for the launch (0 = fishing boat)"),
    IntList("pending_gain", NUM_RESOURCES, 0, MAX_PRICE, doc="resources gained that may fund the payment"),
    IntList("irrig_queue", None, 0, _last_player, doc="players still to choose an irrigation resource"),
    Bool("terminal", doc="the game is over"),
    Int("current_player", -1, _last_player, doc="who decides; -1 at the end"),
    Cache("own", doc="own[p][t]: tiles of type t in p's realm (shared by clones: copied on write)"),
    Cache("own_side2", doc="own_side2[p][t]: those of them showing side II (shared: copied on write)"),
    Cache("rsum", copy=list.copy, doc="each player's round sum (round_sum)"),
    Cache("changes", copy=Changes.copy, doc="what changed since the observer last looked"),
    Cache("_placeable", copy=list.copy, doc="per player the placeable tile types, or None (not computed)"),
    Cache("_mask", doc="the read-only legal mask"),
])
HawaiiState.schema = SCHEMA
HawaiiState.clone = SCHEMA.bind(HawaiiState)  # type: ignore[method-assign]


HawaiiGame.state_class = HawaiiState
