"""The Asara rules engine (base game and professional version), 2-4 players.

Reading order follows the rulebook: setup (``_setup_game``), the turn (dispatch
a buyer: ``area_mask`` / ``card_mask`` / ``place_buyer``; execute the move:
``buy_from_market``, ``take_bank_money``, ``build_step``, ``bribe``...), the end
of a year (``score_year_end``, ``start_new_year``) and the final evaluation
(``final_awards``).  Rule references (section numbers, A-nn) point into the
rules file ``docs/rules/asara.md``.

Position layout: every per-player quantity is one flat list indexed
``player * width + i`` so that :meth:`AsaraState.clone` is a handful of list
copies.  Tests may set the public fields directly (or use
:meth:`AsaraState.from_position`) and then call :meth:`AsaraState.refresh`.
"""

from __future__ import annotations

from math import ceil
from operator import add
from typing import Any

import numpy as np

from ..core.fields import Cache, Int, IntList, Nested, RngField, StateSchema
from ..core.game import CorruptStateError, Game, Option, State, readonly
from ..core.observation import Changes
from ..core.rng import Rng, as_rng
from . import components as C
from . import queries as Q
from .actions import (
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
    B_TRUNK,
    B_TURRET,
    B_WINDOW,
    LIT_DECLINE,
    MARKET_DECLINE,
    NUM_AREA_ACTIONS,
    NUM_CARD_ACTIONS,
    PAIRS,
    SPY_DECLINE,
    SPY_NOTHING,
    ActionCodec,
    area_action_target,
)

# phases of a turn (the observation carries them)
(PH_AREA, PH_CARDS, PH_SPACE, PH_MARKET, PH_SPY_PILE, PH_SPY_TAKE, PH_BUILD, PH_LIT_OFFER, PH_LIT_KEEP,
 PH_DONE) = (int(p) for p in C.Phase)
#: the phases in which a player decides (all but DONE)
NUM_PHASES = int(C.Phase.DONE)
PHASE_NAMES = ("select area", "select cards", "select space", "market purchase", "spies: choose pile",
               "spies: take", "build", "lighted windows: offer", "lighted windows: keep", "game over")
PAIR_CARD = C.NUM_SUITS  # space_card value of a face-down pair (after the suits 0..4)
#: PAIR_ID[a][b] (a <= b): the local card id of the face-down pair of suits a and b
PAIR_ID = [[C.NUM_SUITS + PAIRS.index((min(a, b), max(a, b))) for b in range(C.NUM_SUITS)]
           for a in range(C.NUM_SUITS)]
# the widths of the flat per-player lists, short because they index everything
NS = C.NUM_SUITS  # hand, laid_up, laid_down: player * NS + suit
NF = C.NUM_MATERIALS  # lit_res, open_: player * NF + material
TF = C.TOWER_FIELDS  # one tower record
KT = C.KINDS_PER_TYPE  # display, reserve: type * KT + material * GV + gold
GV = C.GOLD_VARIANTS


def _type_dict_option(name: str, value: Any, lo: int, hi: int) -> list[int]:
    """Validate a {type: int} option and return it as a list indexed by section type."""
    if not isinstance(value, dict) or set(value) != set(C.TYPES):
        raise ValueError(f"asara: option {name} must be a dict with keys {', '.join(C.TYPES)}; got {value!r}")
    out = []
    for t in C.TYPES:
        v = value[t]
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise ValueError(f"asara: option {name}[{t!r}]={v!r} must be an int in [{lo}, {hi}]")
        out.append(v)
    return out


def _fee_list_option(name: str, value: Any) -> list[int]:
    if (not isinstance(value, list) or not 1 <= len(value) <= C.OPTION_MAX_SPACES
            or any(isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= C.OPTION_MAX_VALUE for v in value)):
        raise ValueError(f"asara: option {name} must be a list of 1..7 ints in [0, 50]; got {value!r}")
    return sorted(value)


_DETERMINIZE_TRIES = 200  # samples tried for another player's begun turn (determinize)

#: results of the build rules by everything they read (build_reach, build_choices): a search meets the
#: same holdings again and again; cleared when full
_MEMO: dict[tuple[Any, ...], Any] = {}
_MEMO_SIZE = 4096


def _memo(key: tuple[Any, ...], value: Any) -> Any:
    if len(_MEMO) >= _MEMO_SIZE:
        _MEMO.clear()
    _MEMO[key] = value
    return value


def completable_reach(r_max: int, open_: list[int], base: list[int], trunk: list[int], window: list[int],
                      turret: list[int], lit: list[int], has: list[int], uncov: list[int], free: list[int],
                      lit_on_new: bool = True) -> int:
    """Bitmask of the numbers r <= r_max of further build steps that can all be used legally.

    Bit r is set iff exactly r more sections can be built from the reserve so
    that every tower opened in this action gets its turret (rules file 14.3:
    a base needs its turret in the same action, middles need a tower of their
    material, a lit window needs an uncovered window of its material; with
    ``lit_on_new`` False only one that stood before this action, A-29).
    """
    owed = 0
    for m in range(NF):
        if open_[m] > turret[m]:
            return 0
        owed += open_[m]
    if owed > r_max:
        return 0
    span = r_max - owed
    full = (1 << (span + 1)) - 1
    reach = 1
    for m in range(NF):
        nmax = min(base[m], turret[m] - open_[m], free[m])
        w = window[m]
        jmax = trunk[m] + w + min(lit[m], uncov[m] + (w if lit_on_new else 0))
        band = (1 << (jmax + 1)) - 1
        opts = band if has[m] else 1
        for n in range(1, nmax + 1):
            opts |= band << (C.MIN_TOWER_SECTIONS * n)
        opts &= full
        if opts == 1:
            continue
        new = 0
        x = reach
        while x:
            low = x & -x
            new |= opts << (low.bit_length() - 1)
            x ^= low
        reach = new & full
    return reach << owed


def award(entities: list[tuple[int, tuple, int]], first: int, second: int, round_up: bool) -> dict[int, int]:
    """Rules 8.2: points per owner for one award over (value, rank_key, owner) entities.

    A tie for 1st pools 1st and 2nd and leaves no 2nd place; a tie for 2nd splits
    the 2nd-place points; shares are rounded up (or down with ``tie_rounding``).
    """
    def share(total: int, k: int) -> int:
        return ceil(total / k) if round_up else total // k

    out: dict[int, int] = {}
    ents = [e for e in entities if e[0] > 0]
    if not ents:
        return out
    top = max(e[1] for e in ents)
    firsts = [e for e in ents if e[1] == top]
    if len(firsts) > 1:
        pts = share(first + second, len(firsts))
        for e in firsts:
            out[e[2]] = out.get(e[2], 0) + pts
        return out
    out[firsts[0][2]] = out.get(firsts[0][2], 0) + first
    rest = [e for e in ents if e[1] < top]
    if not rest:
        return out
    v2 = max(e[1] for e in rest)
    seconds = [e for e in rest if e[1] == v2]
    pts = share(second, len(seconds))
    for e in seconds:
        out[e[2]] = out.get(e[2], 0) + pts
    return out


class AsaraGame(Game):
    """Asara for 2-4 players; ``version`` "base" or "professional"; every ASSUMPTION an option."""

    name = "asara"
    env_name = "asara_v0"
    pretty_name = "Asara"
    min_players = 2
    max_players = 4
    default_players = 2
    score_scale = 40.0
    hidden_information = True
    #: 2: money, PP, hand size, turns, towers and kept lit windows past their scale are squeezed
    #: below 1 instead of clipped (core.game.scaled_count)
    observation_version = 2
    observer_ref = ".observation:AsaraObserver"
    renderer_ref = ".render"
    options_spec = (
        Option("version", "base", "base game or professional version (recruiting, lighted windows)",
               choices=("base", "professional")),
        Option("cards_per_suit", C.CARDS_PER_SUIT, "A-01: buyer cards per suit (5 suits)", type=int, bounds=(7, 12)),
        Option("sections_per_material", dict(C.SECTIONS_PER_MATERIAL), "A-02: tower sections per type and material",
               type=dict,
               extremes=({t: 1 for t in C.TYPES}, {t: 8 for t in C.TYPES})),
        Option("lit_per_material", C.LIT_PER_MATERIAL, "A-02b: lighted windows per material", type=int,
               bounds=(0, 6)),
        Option("gold_per_type_material", dict(C.GOLD_PER_TYPE_MATERIAL),
               "A-03: gold-decorated sections per type and material", type=dict,
               extremes=({t: 0 for t in C.TYPES}, dict(C.SECTIONS_PER_MATERIAL))),
        Option("unlimited_coins", True, "A-04: coin supply is unlimited (False: 215 Asari in all)", type=bool),
        Option("prices", dict(C.PRICES), "A-05/A-06: price per material (green and white are assumptions)",
               type=dict,
               extremes=({m: 0 for m in C.MATERIALS}, {m: 50 for m in C.MATERIALS})),
        Option("market_card_spaces", dict(C.MARKET_CARD_SPACES), "A-07: buyer-card spaces per market", type=dict,
               extremes=({t: 1 for t in C.TYPES}, {t: 7 for t in C.TYPES})),
        Option("display_size", dict(C.DISPLAY_SIZE), "A-08: face-up tiles per market display", type=dict,
               extremes=({t: 0 for t in C.TYPES}, {t: 12 for t in C.TYPES})),
        Option("spy_space_fees", list(C.SPY_SPACE_FEES), "A-09: one House of Spies space per fee", type=list,
               extremes=([0], [50] * 7)),
        Option("recruit_space_fees", list(C.RECRUIT_SPACE_FEES), "A-10: recruit spaces and fees (pro)", type=list,
               extremes=([0], [50] * 7)),
        Option("lit_house_spaces", C.LIT_HOUSE_SPACES, "A-11: spaces of the House of the lighted windows (pro)",
               type=int, bounds=(1, 7)),
        Option("board_by_player_count", None, "A-12: no board changes by player count", choices=(None,)),
        Option("allow_pair_in_empty_area", False, "A-13: a face-down pair may open an area without lead suit",
               type=bool),
        Option("bank_auto_highest", True, "A-14: the bank card takes the highest vacant value (False: choose)",
               type=bool),
        Option("spy_auto_cheapest", True, "A-15: spies/recruit use the cheapest vacant space (False: choose)",
               type=bool),
        Option("allow_decline_market", True, "A-16: a market card may be laid without buying", type=bool),
        Option("allow_decline_spies", True, "A-16: the spies move may be declined before paying the fee", type=bool),
        Option("allow_decline_lit_house", False, "variant: lay a card in the lighted-window house and take nothing",
               type=bool),
        Option("allow_voluntary_higher_plot", False, "A-18: a higher plot may be chosen while plot k is free",
               type=bool),
        Option("build_exact_k", True, "A-19: exactly k sections must be built (False: 1..k)", type=bool),
        Option("spy_allow_empty_pile", False, "A-20: an empty pile may be searched (the fee buys nothing)",
               type=bool),
        Option("caliph_holder_may_retake", True, "A-21: the Caliph's holder may lay a card on the Caliph space",
               type=bool),
        Option("lit_on_new_window", True,
               "A-29: a lit window may cover a window built earlier in the same action (False: older ones only)",
               type=bool),
        Option("final_highest_overall", list(C.HIGHEST_OVERALL), "A-22: highest tower overall, 1st and 2nd",
               type=list,
               extremes=([0, 0], [50, 50])),
        Option("height_rank_unit", "tower", "A-24: height awards rank towers or each player's best tower",
               choices=("tower", "player_best_tower")),
        Option("tie_rounding", "up", "A-26: rounding of shared award points", choices=("up", "down")),
        Option("lit_discard_order", "random",
               "A-28: unkept lighted windows go to the bottom in random order ('choose': the player orders them)",
               choices=("random", "choose")),
        Option("lit_short_stack", "draw_remaining",
               "A-30: short lighted-window stack: look at what remains, or require the full offer",
               choices=("draw_remaining", "require_full")),
        Option("lit_tiebreak_count_unbuilt", False, "A-31: unbuilt lighted windows count in the most-towers tie-break",
               type=bool),
        Option("pair_only_if_lacking_suit", False, "variant: face-down pair only without a card of the lead suit",
               type=bool),
        Option("human_realistic_obs", False, "observation hides opponents' money and reserves", type=bool),
    )

    def _setup(self) -> None:
        o = self.options
        n = self.num_players
        self.pro = o["version"] == "professional"
        self.cards_per_suit = o["cards_per_suit"]
        self.hand_size = C.HAND_SIZE[n]
        self.sections = _type_dict_option("sections_per_material", o["sections_per_material"], 0, 8)
        if self.sections[C.BASE] < 1 or self.sections[C.TURRET] < 1:
            raise ValueError("asara: option sections_per_material needs at least 1 base and 1 turret per material")
        self.gold = _type_dict_option("gold_per_type_material", o["gold_per_type_material"], 0, 8)
        for t in range(C.NUM_TYPES):
            if self.gold[t] > self.sections[t]:
                raise ValueError(f"asara: option gold_per_type_material[{C.TYPES[t]!r}] exceeds sections_per_material")
        prices = o["prices"]
        if not isinstance(prices, dict) or set(prices) != set(C.MATERIALS) or any(
                isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= C.OPTION_MAX_VALUE
                for v in prices.values()):
            raise ValueError(f"asara: option prices must map {', '.join(C.MATERIALS)} to ints in [0, 50]")
        self.price = [prices[m] for m in C.MATERIALS]
        self.market_spaces = _type_dict_option("market_card_spaces", o["market_card_spaces"], 1, 7)
        self.display_size = _type_dict_option("display_size", o["display_size"], 0, 12)
        self.spy_fees = _fee_list_option("spy_space_fees", o["spy_space_fees"])
        self.recruit_fees = _fee_list_option("recruit_space_fees", o["recruit_space_fees"])
        fho = o["final_highest_overall"]
        if len(fho) != len(C.HIGHEST_OVERALL) or any(
                isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= C.OPTION_MAX_VALUE for v in fho):
            raise ValueError(f"asara: option final_highest_overall must be [first, second] ints; got {fho!r}")
        self.highest_overall = tuple(fho)
        self.slots = self.sections[C.BASE]  # at most this many towers of one material
        self.lit_per_material = o["lit_per_material"] if self.pro else 0
        # card spaces per area (the 5-Asari building is unlimited and has none)
        nsp = list(self.market_spaces) + [len(C.BANK_VALUES), C.NUM_PLOTS, len(self.spy_fees), 1, 0,
                                          len(self.recruit_fees) if self.pro else 0,
                                          o["lit_house_spaces"] if self.pro else 0]
        self.area_spaces = nsp
        self.area_start = [sum(nsp[:a]) for a in range(C.NUM_AREAS)]
        #: (area, first, end) of the card spaces of every area with spaces to take (all but the 5-Asari building)
        self.card_areas = [(a, self.area_start[a], self.area_start[a] + nsp[a]) for a in range(C.NUM_AREAS)
                           if a != C.FIVE]
        self.total_spaces = sum(nsp)
        self.codec = ActionCodec(self.slots, max(len(C.BANK_VALUES), C.NUM_PLOTS, len(self.spy_fees),
                                                  len(self.recruit_fees)))
        self.num_actions = self.codec.size
        # number of tiles of each global kind (type*10 + material*2 + gold)
        self.kind_total = [0] * C.NUM_KINDS
        for t in range(C.NUM_TYPES):
            for m in range(NF):
                self.kind_total[t * KT + m * GV] = self.sections[t] - self.gold[t]
                self.kind_total[t * KT + m * GV + 1] = self.gold[t]
        self.total_cards = C.NUM_SUITS * self.cards_per_suit

    def new_state(self, seed: int | None = None) -> AsaraState:
        return AsaraState.initial(self, seed)


class AsaraState(State):
    """One Asara position (mutable; ``apply`` validates, ``_apply`` plays)."""

    _game_class = AsaraGame
    game: AsaraGame

    # ------------------------------------------------------------------ setup
    def _setup_game(self) -> None:
        """Rules 3: displays filled, random start player with the Caliph, money 20/21/.., hands dealt."""
        g = self.game
        n = g.num_players
        rng = self.rng
        self.piles: list[list[int]] = []
        for t in range(C.NUM_TYPES):
            pile = [x for x in range(C.KINDS_PER_TYPE) for _ in range(g.kind_total[t * KT + x])]
            rng.shuffle(pile)
            self.piles.append(pile)
        self.display = [0] * C.NUM_KINDS
        self.refill_displays()
        self.start_player = rng.randbelow(n)
        self.caliph = self.start_player
        self.money = [0] * n
        for i in range(n):
            self.money[(self.start_player + i) % n] = C.START_MONEY + i
        self.prestige = [0] * n
        self.reserve = [0] * (n * C.NUM_KINDS)
        self.towers = [0] * (n * NF * g.slots * TF)
        self.lit_res = [0] * (n * NF)
        self.lit_drawn: list[int] = []
        self.lit_keep_left = 0
        self.lit_placed = 0  # unkept windows already put under the stack (lit_discard_order="choose")
        self.lit_stack = [m for m in range(NF) for _ in range(g.lit_per_material)]
        rng.shuffle(self.lit_stack)
        self.lit_seen = [0] * len(self.lit_stack)
        self.year_pts = [0] * (n * C.NUM_YEARS)
        self.final_pts = [0] * n
        self.year = 1
        self.open_ = [0] * NF
        self._clear_board()
        self.deal_hands()
        self._clear_pending()
        self.current_player = self.start_player
        self.phase = PH_AREA
        self.turn_no = 0
        self.refresh()

    def _clear_board(self) -> None:
        g = self.game
        n = g.num_players
        self.space_owner = [-1] * g.total_spaces
        self.space_card = [-1] * g.total_spaces
        self.lead = [-1] * C.NUM_AREAS
        self.laid_up = [0] * (n * C.NUM_SUITS)
        self.laid_down = [0] * (n * C.NUM_SUITS)
        self.five_by = [0] * n

    def _clear_pending(self) -> None:
        self.p_area = -1  # area-select action id of the turn in progress
        self.pending_sections = 0
        self.p_cards = -1
        self.p_space = -1  # global space index used
        self.p_pile = -1
        self.p_fee = 0
        self.b_left = 0
        self.b_built = 0
        for m in range(NF):
            self.open_[m] = 0
        # windows placed in this build action, per (material, slot, gold): not coverable when A-29 is off
        self.new_windows = [0] * (NF * self.game.slots * 2)

    def deal_hands(self) -> None:
        """Rules 3.6 / 7.2: shuffle all cards and deal 9/8/7 each; the rest is the undealt deck."""
        g = self.game
        n = g.num_players
        deck = [s for s in range(C.NUM_SUITS) for _ in range(g.cards_per_suit)]
        self.rng.shuffle(deck)
        self.hand = [0] * (n * C.NUM_SUITS)
        for p in range(n):
            for _ in range(g.hand_size):
                self.hand[p * C.NUM_SUITS + deck.pop()] += 1
        self.deck = deck

    def refill_displays(self) -> None:
        """Rules 3.3 / 7.3: fill empty display spaces from the market's pile (spaces stay empty when it runs out)."""
        g = self.game
        for t in range(C.NUM_TYPES):
            have = sum(self.display[t * KT: t * KT + KT])
            pile = self.piles[t]
            while have < g.display_size[t] and pile:
                self.display[t * KT + pile.pop()] += 1
                have += 1

    # ---------------------------------------------------------- position API
    @classmethod
    def initial(cls, game: AsaraGame, seed: int | None = None) -> AsaraState:
        """The position after setup, every setup draw from ``seed``."""
        s = cls.__new__(cls)
        s.game = game
        s.rng = Rng(seed)
        s._setup_game()
        return s

    def refresh(self) -> None:
        """Recompute caches after fields were edited by hand."""
        n = self.game.num_players
        self.hand_n = [sum(self.hand[p * NS: p * NS + NS]) for p in range(n)]
        self._mask = None
        self._legal = None
        # what changed, for whoever derives data from the position (the observer): "cards" (hands,
        # cards laid, the deck, lighted windows), "board" (buyers placed: card spaces, lead suits, cards
        # laid; it implies "cards"), ("hand", p), and the tiles: "display", "piles" (what the piles
        # and the lighted-window stack hold), "pile_order" (only their order: determinize),
        # ("reserve", p), ("towers", p), with "tiles" for any of them
        self.changes = Changes()
        # build_reach per player: shared by clones and determinizations while their reserves, towers and
        # kept lit windows are the same (entries are added in place; _tiles_moved replaces it)
        self._reach: dict[int, int] = {}

    # tower helpers ---------------------------------------------------------------
    def tower_index(self, p: int, m: int, slot: int) -> int:
        return ((p * NF + m) * self.game.slots + slot) * TF

    def towers_of(self, p: int) -> list[tuple[int, int, list[int]]]:
        """(material, slot, record) of every tower player p has."""
        out = []
        S = self.game.slots
        tw = self.towers
        for m in range(NF):
            for slot in range(S):
                i = ((p * NF + m) * S + slot) * TF
                if tw[i]:
                    out.append((m, slot, tw[i: i + TF]))
        return out

    #: sections, visible gold and lighted windows of a tower record (see ``queries``)
    tower_height = staticmethod(Q.tower_height)
    tower_gold = staticmethod(Q.tower_gold)
    tower_lit = staticmethod(Q.tower_lit)

    def build_resources(self, p: int) -> tuple[list[int], ...]:
        """Per material: reserve base/trunk/window/turret/lit, has a tower, uncovered windows, free slots."""
        S = self.game.slots
        o = p * C.NUM_KINDS
        seg = self.reserve[o: o + C.NUM_KINDS]  # type * KT + material * GV + gold
        tot = list(map(add, seg[0::GV], seg[1::GV]))  # plain + gold: type * NF + material
        base, trunk, window, turret = (tot[t * NF: t * NF + NF] for t in (C.BASE, C.TRUNK, C.WINDOW, C.TURRET))
        lit = self.lit_res[p * NF: p * NF + NF]
        has = [0] * NF
        uncov = [0] * NF
        free = [0] * NF
        tw = self.towers
        st = p * NF * S * TF
        bases = tw[st: st + NF * S * TF: TF]  # the base field of every slot of p, material-major
        for m in range(NF):
            j = m * S
            f = bases[j: j + S].count(0)
            free[m] = f
            if f < S:
                has[m] = 1
                u = 0
                i = st + j * TF
                for b in bases[j: j + S]:
                    if b:
                        u += tw[i + C.T_WIN_P] + tw[i + C.T_WIN_G]
                    i += TF
                uncov[m] = u
        return base, trunk, window, turret, lit, has, uncov, free

    # ------------------------------------------------------------------ masks
    def legal_mask(self) -> np.ndarray:
        m = self._mask
        if m is None:
            m = np.zeros(self.game.num_actions, dtype=bool)
            if self.phase != PH_DONE:
                m[self.legal_actions()] = True
            self._mask = m = readonly(m)  # the State.legal_mask contract: read-only, cached, shareable
        return m

    def legal_actions(self) -> list[int]:
        ids = self._legal
        if ids is None:
            ids = self._legal = self._legal_ids() if self.phase != PH_DONE else []
        return list(ids)

    def is_legal(self, action: int) -> bool:
        ids = self._legal
        if ids is None:
            ids = self._legal = self._legal_ids() if self.phase != PH_DONE else []
        return action in ids

    def _legal_ids(self) -> list[int]:
        ph = self.phase
        c = self.game.codec
        if ph == PH_AREA:
            return [i for i, ok in enumerate(self.area_mask()) if ok]
        if ph == PH_CARDS:
            return [c.cards + i for i in self.card_choices(self.current_player, area_action_target(self.p_area)[0])]
        if ph == PH_SPACE:
            return [c.space + i for i in self.space_choices()]
        if ph == PH_MARKET:
            return [c.market + i for i in self.market_choices()]
        if ph == PH_SPY_PILE:
            return [c.spy_pile + i for i in self.spy_pile_choices()]
        if ph == PH_SPY_TAKE:
            return [c.spy_take + i for i in self.spy_take_choices()]
        if ph == PH_BUILD:
            return self.build_choices()
        if ph == PH_LIT_OFFER:
            return [c.lit_offer + i for i in self.lit_offer_choices()]
        if ph == PH_LIT_KEEP:
            base = c.lit_keep if self.lit_keep_left else c.lit_order
            return [base + m for m in sorted(set(self.lit_drawn))]
        return []

    # -- dispatching a buyer (rules 5.1) ---------------------------------------------
    def _cards_ok(self, p: int, area: int) -> bool:
        """Can player p lay a single card or a face-down pair in ``area`` (follow suit)?"""
        h = self.hand
        o = p * NS
        if area == C.FIVE:
            return self.hand_n[p] > 0
        lead = self.lead[area]
        if lead < 0:
            if self.hand_n[p] > 0:
                return True
        elif h[o + lead] > 0:
            return True
        return self._pair_ok(p, lead)

    def _pair_ok(self, p: int, lead: int) -> bool:
        if self.hand_n[p] < C.PAIR_SIZE:
            return False
        o = self.game.options
        if lead < 0:
            return o["allow_pair_in_empty_area"]
        if o["pair_only_if_lacking_suit"] and self.hand[p * NS + lead] > 0:
            return False
        return True

    def card_choices(self, p: int, area: int) -> list[int]:
        """Local card ids: 0-4 one card of suit s, 5+ a face-down pair (rules 5.1, A-13)."""
        h = self.hand[p * NS: p * NS + NS]
        if area == C.FIVE:
            return [s for s in range(NS) if h[s]]
        lead = self.lead[area]
        held = [s for s in range(NS) if h[s]]
        out = held[:] if lead < 0 else [lead] if h[lead] else []
        if self._pair_ok(p, lead):  # the pairs in the order of PAIRS
            for i, a in enumerate(held):
                row = PAIR_ID[a]
                if h[a] >= C.PAIR_SIZE:
                    out.append(row[a])
                for b in held[i + 1:]:
                    out.append(row[b])
        return out

    def _vacant(self, area: int) -> list[int]:
        st = self.game.area_start[area]
        own = self.space_owner
        return [i for i in range(self.game.area_spaces[area]) if own[st + i] < 0]

    def _plot_for(self, k: int) -> int:
        """Rules 5.4: plot k if vacant, else the lowest vacant higher plot; -1 if none."""
        st = self.game.area_start[C.CIRCLE]
        own = self.space_owner
        for i in range(k - 1, C.NUM_PLOTS):
            if own[st + i] < 0:
                return i
        return -1

    def build_reach(self, p: int) -> int:
        """Bitmask of the section counts k (0..7) that player p could build right now."""
        reach = self._reach.get(p)  # depends only on p's reserve, lit windows and towers
        if reach is None:
            lit_new = self.game.options["lit_on_new_window"]
            key = ("reach", lit_new, *self._pieces(p))
            reach = _MEMO.get(key)
            if reach is None:
                reach = _memo(key, completable_reach(C.NUM_PLOTS, [0] * NF, *self.build_resources(p), lit_new))
            self._reach[p] = reach
        return reach

    def _pieces(self, p: int) -> tuple[int, ...]:
        """Everything of p's that building depends on: the slots per material, his reserve, kept lighted
        windows and towers (a key for _MEMO)."""
        S = self.game.slots
        o = p * C.NUM_KINDS
        t = p * NF * S * TF
        return (S, *self.reserve[o: o + C.NUM_KINDS], *self.lit_res[p * NF: p * NF + NF],
                *self.towers[t: t + NF * S * TF])

    def area_mask(self) -> list[bool]:
        """Rules 5.1-5.2, 9: which of the 17 area ids the current player may choose."""
        p = self.current_player
        g = self.game
        o = g.options
        money = self.money[p]
        own = self.space_owner
        lead = self.lead
        h = self.hand[p * NS: p * NS + NS]
        pair_any = self.hand_n[p] >= C.PAIR_SIZE
        general = o["pair_only_if_lacking_suit"] or (pair_any and o["allow_pair_in_empty_area"])
        # per area: a vacant card space, and cards p may lay there (rules 5.1: a single card following
        # suit, or a face-down pair; the player to move holds at least one card)
        avail = [False] * C.NUM_AREAS
        for a, lo, hi in g.card_areas:
            if -1 in own[lo: hi]:
                if general:  # the pair variants
                    avail[a] = self._cards_ok(p, a)
                else:
                    s_ = lead[a]
                    avail[a] = True if s_ < 0 or h[s_] else pair_any
        ok = [False] * NUM_AREA_ACTIONS
        decline_market = o["allow_decline_market"]
        for t in range(C.NUM_MARKETS):
            if avail[t]:
                if decline_market:
                    ok[t] = True
                else:
                    d = self.display
                    ok[t] = any(d[t * KT + x] and g.price[x // GV] <= money for x in range(KT))
        ok[AREA_BANK] = avail[C.BANK]
        ro = p * C.NUM_KINDS
        if avail[C.CIRCLE] and (any(self.reserve[ro: ro + C.NUM_KINDS]) or any(self.lit_res[p * NF: p * NF + NF])):
            reach = self.build_reach(p)
            exact = o["build_exact_k"]
            circle = own[g.area_start[C.CIRCLE]: g.area_start[C.CIRCLE] + C.NUM_PLOTS]
            plot = -1  # _plot_for(k): plot k if vacant, else the lowest vacant higher plot
            for k in range(C.NUM_PLOTS, 0, -1):
                if circle[k - 1] < 0:
                    plot = k - 1
                if plot < 0 or plot + 1 > money:
                    continue
                if exact:
                    ok[AREA_BUILD1 + k - 1] = bool(reach >> k & 1)
                else:
                    ok[AREA_BUILD1 + k - 1] = bool(reach & ((1 << (k + 1)) - 2))
        if avail[C.SPIES]:
            if o["allow_decline_spies"]:
                ok[AREA_SPIES] = True
            else:
                vac = self._vacant(C.SPIES)
                ok[AREA_SPIES] = g.spy_fees[vac[0]] <= money and (any(self.piles) or o["spy_allow_empty_pile"])
        ok[AREA_CALIPH] = (avail[C.CALIPH] and (o["caliph_holder_may_retake"] or self.caliph != p))
        ok[AREA_FIVE] = self.hand_n[p] > 0
        if g.pro:
            if avail[C.RECRUIT] and self.deck:
                ok[AREA_RECRUIT] = min(g.recruit_fees[i] for i in self._vacant(C.RECRUIT)) <= money
            if avail[C.LIT_HOUSE]:
                ok[AREA_LIT] = o["allow_decline_lit_house"] or bool(self.lit_offer_choices())
        return ok

    def _needs_space_choice(self, area: int) -> bool:
        o = self.game.options
        if area == C.BANK:
            return not o["bank_auto_highest"]
        if area in (C.SPIES, C.RECRUIT):
            return not o["spy_auto_cheapest"]
        if area == C.CIRCLE:
            return o["allow_voluntary_higher_plot"]
        return False

    def space_choices(self) -> list[int]:
        """Spaces the player may pick when an option makes the choice his (A-14, A-15, A-18)."""
        g = self.game
        area, k = area_action_target(self.p_area)
        money = self.money[self.current_player]
        vac = self._vacant(area)
        if area == C.CIRCLE:
            return [i for i in vac if i >= k - 1 and i + 1 <= money]
        if area == C.RECRUIT:
            return [i for i in vac if g.recruit_fees[i] <= money]
        if area == C.SPIES and not g.options["allow_decline_spies"]:
            return [i for i in vac if g.spy_fees[i] <= money]
        return vac

    def _auto_space(self, area: int, k: int) -> int:
        """The space a buyer takes when the rules (with default options) fix it."""
        if area == C.CIRCLE:
            return self._plot_for(k)
        vac = self._vacant(area)
        return vac[0]  # bank: highest value first; spies/recruit: cheapest fee first; others: any

    def place_buyer(self, p: int, area: int, card: int, space: int) -> None:
        """Lay the card(s): a single face up (face down on the 5-Asari building), or a pair face down."""
        self.changes.mark("cards", "board")  # board, beliefs and p's private block all change
        h = self.hand
        o5 = p * NS
        if card < NS:
            h[o5 + card] -= 1
            self.hand_n[p] -= 1
            if area == C.FIVE:
                self.laid_down[o5 + card] += 1
                self.five_by[p] += 1
                return
            self.laid_up[o5 + card] += 1
            if self.lead[area] < 0:
                self.lead[area] = card
        else:
            a, b = PAIRS[card - NS]
            h[o5 + a] -= 1
            h[o5 + b] -= 1
            self.hand_n[p] -= C.PAIR_SIZE
            self.laid_down[o5 + a] += 1
            self.laid_down[o5 + b] += 1
            card = PAIR_CARD
        gi = self.game.area_start[area] + space
        self.space_owner[gi] = p
        self.space_card[gi] = card
        self.p_space = gi

    # -- what changed (state.changes) ------------------------------------------------------------------
    def _cards_moved(self) -> None:
        """Cards changed hands or places (a deal, cards laid, lighted windows drawn or kept)."""
        self.changes.mark("cards")

    def _hand_changed(self, p: int) -> None:
        self.changes.mark(("hand", p))

    def _tiles_moved(self, *parts: Any) -> None:
        """Tiles moved: ``parts`` among "display", "piles", "pile_order", ("reserve", p), ("towers", p)."""
        self.changes.mark("tiles", *parts)
        drop = [k[1] for k in parts if k[0] in ("reserve", "towers")]
        if drop:  # a dict of its own: the old one stays with the states that share it (see refresh)
            self._reach = {q: r for q, r in self._reach.items() if q not in drop}

    # -- the moves (rules 5.3-5.7, 9) ---------------------------------------------------
    def pay_out(self, p: int, amount: int) -> None:
        """Income from the supply (limited to what is left when coins are limited, A-04)."""
        if not self.game.options["unlimited_coins"]:
            amount = max(0, min(amount, C.COIN_TOTAL - sum(self.money)))
        self.money[p] += amount

    def market_choices(self) -> list[int]:
        """Rules 5.3: any face-up tile of this market the player can afford; decline (A-16)."""
        g = self.game
        t = self.p_area
        money = self.money[self.current_player]
        d = self.display
        out = [x for x in range(KT) if d[t * KT + x] and g.price[x // GV] <= money]
        if g.options["allow_decline_market"] or not out:
            out.append(MARKET_DECLINE)
        return out

    def spy_pile_choices(self) -> list[int]:
        """Rules 5.5 / A-20: a non-empty pile if the fee is affordable; decline before paying (A-16)."""
        g = self.game
        fee = g.spy_fees[self.p_space - g.area_start[C.SPIES]]
        out = []
        if fee <= self.money[self.current_player]:
            empty_ok = g.options["spy_allow_empty_pile"]
            out = [t for t in range(C.NUM_TYPES) if self.piles[t] or empty_ok]
        if g.options["allow_decline_spies"] or not out:
            out.append(SPY_DECLINE)
        return out

    def spy_take_choices(self) -> list[int]:
        g = self.game
        money = self.money[self.current_player]
        present = set(self.piles[self.p_pile])
        out = [x for x in sorted(present) if g.price[x // GV] <= money]
        out.append(SPY_NOTHING)
        return out

    def lit_offer_choices(self) -> list[int]:
        """Rules 9.2 / A-30: the 4- and 10-Asari offers, if affordable and the stack is long enough."""
        g = self.game
        money = self.money[self.current_player]
        n = len(self.lit_stack)
        full = g.options["lit_short_stack"] == "require_full"
        out = []
        for i, (fee, shown, keep) in enumerate(C.LIT_OFFERS):
            if money >= fee and n >= (shown if full else keep):
                out.append(i)
        if self.phase == PH_LIT_OFFER and g.options["allow_decline_lit_house"]:
            out.append(LIT_DECLINE)
        return out

    def build_choices(self) -> list[int]:
        """Rules 5.4: every build step that keeps the action completable (rules file 14.3).

        Memoized by everything it reads (the same building recurs across the determinizations of a search)."""
        g = self.game
        o = g.options
        key = ("build", g.codec, o["build_exact_k"], o["lit_on_new_window"], self.b_left, self.b_built,
               *self.open_, *self.new_windows, *self._pieces(self.current_player))
        out = _MEMO.get(key)
        if out is None:
            out = _memo(key, self._build_choices())
        return out[:]

    def _build_choices(self) -> list[int]:
        g = self.game
        c = g.codec
        p = self.current_player
        S = g.slots
        base, trunk, window, turret, lit, has, uncov, free = self.build_resources(p)
        open_ = self.open_
        r = self.b_left - 1
        exact = g.options["build_exact_k"]
        lit_new = g.options["lit_on_new_window"]
        nw = self.new_windows
        if not lit_new:  # only windows that stood before this action can take a lit window
            uncov = [uncov[m] - sum(nw[m * S * 2: (m + 1) * S * 2]) for m in range(NF)]
        res = self.reserve
        ro = p * C.NUM_KINDS
        tw = self.towers
        out: list[int] = []

        def feasible(op, ba, tr, wi, tu, li, ha, un, fr) -> bool:
            if exact:
                return bool(completable_reach(r, op, ba, tr, wi, tu, li, ha, un, fr, lit_new) >> r & 1)
            return all(op[m] <= tu[m] for m in range(NF)) and sum(op) <= r

        for m in range(NF):
            tbase = (p * NF + m) * S * TF
            # base: opens a new tower of m in its lowest free slot
            if base[m] and free[m]:
                op = open_[:]
                op[m] += 1
                b2 = base[:]
                b2[m] -= 1
                h2 = has[:]
                h2[m] = 1
                f2 = free[:]
                f2[m] -= 1
                if feasible(op, b2, trunk, window, turret, lit, h2, uncov, f2):
                    for gd in range(2):
                        if res[ro + GV * m + gd]:
                            out.append(c.base_id(m, gd))
            # turret: closes a tower of m opened in this action
            if turret[m] and open_[m]:
                op = open_[:]
                op[m] -= 1
                t2 = turret[:]
                t2[m] -= 1
                if feasible(op, base, trunk, window, t2, lit, has, uncov, free):
                    for gd in range(2):
                        if res[ro + C.TURRET * KT + GV * m + gd]:
                            for slot in range(S):
                                i = tbase + slot * TF
                                if tw[i] and not tw[i + C.T_TURRET]:
                                    out.append(c.placed_id(B_TURRET, m, gd, slot))
            if has[m]:
                if trunk[m]:
                    t2 = trunk[:]
                    t2[m] -= 1
                    if feasible(open_, base, t2, window, turret, lit, has, uncov, free):
                        for gd in range(2):
                            if res[ro + C.TRUNK * KT + GV * m + gd]:
                                out.extend(c.placed_id(B_TRUNK, m, gd, slot) for slot in range(S)
                                           if tw[tbase + slot * TF])
                if window[m]:
                    w2 = window[:]
                    w2[m] -= 1
                    u2 = uncov[:]
                    if lit_new:
                        u2[m] += 1
                    if feasible(open_, base, trunk, w2, turret, lit, has, u2, free):
                        for gd in range(2):
                            if res[ro + C.WINDOW * KT + GV * m + gd]:
                                out.extend(c.placed_id(B_WINDOW, m, gd, slot) for slot in range(S)
                                           if tw[tbase + slot * TF])
                if lit[m] and uncov[m]:
                    l2 = lit[:]
                    l2[m] -= 1
                    u2 = uncov[:]
                    u2[m] -= 1
                    if feasible(open_, base, trunk, window, turret, l2, has, u2, free):
                        for slot in range(S):
                            i = tbase + slot * TF
                            k = (m * S + slot) * 2
                            wp, wg = tw[i + C.T_WIN_P], tw[i + C.T_WIN_G]
                            if tw[i] and (wp - nw[k] + wg - nw[k + 1] if not lit_new else wp or wg):
                                out.append(c.lit_id(m, slot))
        if not exact and self.b_built >= 1 and not any(open_):
            out.append(c.b_stop)
        out.sort()
        return out

    # ------------------------------------------------------------------ apply
    def _apply(self, action: int) -> None:
        self._mask = None
        self._legal = None
        g = self.game
        c = g.codec
        p = self.current_player
        ph = self.phase
        if ph == PH_AREA:
            self.p_area = action
            self.pending_sections = area_action_target(action)[1]
            self.phase = PH_CARDS
        elif ph == PH_CARDS:
            self.p_cards = action - c.cards
            area, k = area_action_target(self.p_area)
            if self._needs_space_choice(area):
                self.phase = PH_SPACE
            else:
                self.place_buyer(p, area, self.p_cards, self._auto_space(area, k) if area != C.FIVE else -1)
                self.execute_move(p, area)
        elif ph == PH_SPACE:
            area = area_action_target(self.p_area)[0]
            self.place_buyer(p, area, self.p_cards, action - c.space)
            self.execute_move(p, area)
        elif ph == PH_MARKET:
            self.buy_from_market(p, action - c.market)
        elif ph == PH_SPY_PILE:
            self.choose_spy_pile(p, action - c.spy_pile)
        elif ph == PH_SPY_TAKE:
            self.bribe(p, action - c.spy_take)
        elif ph == PH_BUILD:
            self.build_step(p, action)
        elif ph == PH_LIT_OFFER:
            self.take_lit_offer(p, action - c.lit_offer)
        elif ph == PH_LIT_KEEP:
            if action < c.lit_order:
                self.keep_lit_window(p, action - c.lit_keep)
            else:
                self.put_lit_window_under(p, action - c.lit_order)

    def execute_move(self, p: int, area: int) -> None:
        """Rules 5.2: carry out the move of the area the buyer was sent to."""
        g = self.game
        if area < C.NUM_MARKETS:
            self.phase = PH_MARKET
        elif area == C.BANK:
            self.pay_out(p, C.BANK_VALUES[self.p_space - g.area_start[C.BANK]])
            self.end_turn()
        elif area == C.CIRCLE:
            plot = self.p_space - g.area_start[C.CIRCLE]
            self.money[p] -= plot + 1
            self.b_left = self.pending_sections
            self.b_built = 0
            self.phase = PH_BUILD
        elif area == C.SPIES:
            self.phase = PH_SPY_PILE
        elif area == C.CALIPH:
            self.caliph = p  # rules 5.6: the patronage tile moves at once; turn order changes next year
            self.end_turn()
        elif area == C.FIVE:
            self.pay_out(p, C.FIVE_VALUE)
            self.end_turn()
        elif area == C.RECRUIT:
            self.recruit_buyers(p)
        elif area == C.LIT_HOUSE:
            self.phase = PH_LIT_OFFER

    def buy_from_market(self, p: int, x: int) -> None:
        """Rules 5.3: take one face-up tile and pay its material's price (gold costs the same)."""
        if x != MARKET_DECLINE:
            self._tiles_moved("display", ("reserve", p))
            t = self.p_area
            self.display[t * KT + x] -= 1
            self.money[p] -= self.game.price[x // GV]
            self.reserve[p * C.NUM_KINDS + t * KT + x] += 1
        self.end_turn()

    def choose_spy_pile(self, p: int, t: int) -> None:
        """Rules 5.5: pay the fee, then search pile t (or decline before paying, A-16)."""
        if t == SPY_DECLINE:
            self.end_turn()
            return
        g = self.game
        fee = g.spy_fees[self.p_space - g.area_start[C.SPIES]]
        self.money[p] -= fee
        self.p_fee = fee
        self.p_pile = t
        self.phase = PH_SPY_TAKE

    def bribe(self, p: int, x: int) -> None:
        """Rules 5.5: optionally buy one tile from the searched pile at its price; reshuffle the pile."""
        pile = self.piles[self.p_pile]
        self._tiles_moved("piles", ("reserve", p))
        if x != SPY_NOTHING:
            pile.remove(x)
            self.money[p] -= self.game.price[x // GV]
            self.reserve[p * C.NUM_KINDS + self.p_pile * KT + x] += 1
        self.rng.shuffle(pile)
        self.end_turn()

    def recruit_buyers(self, p: int) -> None:
        """Rules 9.1 / A-27: pay the space's fee and draw up to 2 cards from the undealt deck."""
        g = self.game
        self._cards_moved()  # p's hand and the public deck size change
        self.money[p] -= g.recruit_fees[self.p_space - g.area_start[C.RECRUIT]]
        for _ in range(min(C.RECRUIT_DRAW, len(self.deck))):
            self.hand[p * NS + self.deck.pop()] += 1
            self.hand_n[p] += 1
        self.end_turn()

    def take_lit_offer(self, p: int, i: int) -> None:
        """Rules 9.2: pay 4 (see 3, keep 1) or 10 (see 5, keep 2); A-30 on a short stack."""
        if i == LIT_DECLINE:
            self.end_turn()
            return
        fee, shown, keep = C.LIT_OFFERS[i]
        self._cards_moved()  # windows known in the stack change for everyone
        self._tiles_moved("piles")
        self.money[p] -= fee
        k = min(shown, len(self.lit_stack))
        self.lit_drawn = [self.lit_stack.pop() for _ in range(k)]
        del self.lit_seen[len(self.lit_stack):]
        self.lit_keep_left = min(keep, k)
        self.phase = PH_LIT_KEEP

    def keep_lit_window(self, p: int, m: int) -> None:
        """Keep one drawn window; after the last, the rest go to the bottom in random order (A-28)."""
        self._cards_moved()
        self._tiles_moved("piles", ("towers", p))
        self.lit_drawn.remove(m)
        self.lit_res[p * NF + m] += 1
        self.lit_keep_left -= 1
        if self.lit_keep_left == 0:
            rest = self.lit_drawn
            if self.game.options["lit_discard_order"] == "choose" and len(set(rest)) > 1:
                self.lit_placed = 0  # the player now orders them, one decision per window
                return
            self.rng.shuffle(rest)
            self.lit_stack[0:0] = rest
            self.lit_seen[0:0] = [1 << p] * len(rest)
            self.lit_drawn = []
            self.end_turn()

    def put_lit_window_under(self, p: int, m: int) -> None:
        """Rules 9.2 with A-28 switched: the unkept windows go under the stack in the player's order."""
        self._cards_moved()
        self._tiles_moved("piles")
        self.lit_drawn.remove(m)
        self.lit_stack.insert(self.lit_placed, m)
        self.lit_seen.insert(self.lit_placed, 1 << p)
        self.lit_placed += 1
        if len(set(self.lit_drawn)) <= 1:  # the rest (all alike) follow on top of them
            for x in self.lit_drawn:
                self.lit_stack.insert(self.lit_placed, x)
                self.lit_seen.insert(self.lit_placed, 1 << p)
                self.lit_placed += 1
            self.lit_drawn = []
            self.lit_placed = 0
            self.end_turn()

    def build_step(self, p: int, action: int) -> None:
        """Rules 5.4: place one section (or stop when building up to k); +1 PP per section."""
        g = self.game
        kind, m, gd, slot = g.codec.decode_build(action)
        if kind == B_STOP:
            self.end_turn()
            return
        self._tiles_moved(("reserve", p), ("towers", p))
        tw = self.towers
        ro = p * C.NUM_KINDS
        if kind == B_BASE:
            self.reserve[ro + GV * m + gd] -= 1
            i = self.tower_index(p, m, 0)
            while tw[i]:
                i += TF
            tw[i] = 1 + gd
            self.open_[m] += 1
        elif kind == B_LIT:
            self._hand_changed(p)
            self.lit_res[p * NF + m] -= 1
            i = self.tower_index(p, m, slot)
            k = (m * g.slots + slot) * 2
            if g.options["lit_on_new_window"]:
                plain_free = tw[i + C.T_WIN_P]
            else:
                plain_free = tw[i + C.T_WIN_P] - self.new_windows[k]
            if plain_free:  # cover a plain window before a gold one (rules 9.3)
                tw[i + C.T_WIN_P] -= 1
                tw[i + C.T_LIT_P] += 1
            else:
                tw[i + C.T_WIN_G] -= 1
                tw[i + C.T_LIT_G] += 1
        else:
            t = {B_TURRET: C.TURRET, B_TRUNK: C.TRUNK, B_WINDOW: C.WINDOW}[kind]
            self.reserve[ro + t * KT + GV * m + gd] -= 1
            i = self.tower_index(p, m, slot)
            if kind == B_TURRET:
                tw[i + C.T_TURRET] = 1 + gd
                self.open_[m] -= 1
            elif kind == B_TRUNK:
                tw[i + C.T_TRUNK_P + gd] += 1
            else:
                tw[i + C.T_WIN_P + gd] += 1
                self.new_windows[(m * g.slots + slot) * 2 + gd] += 1
        self.prestige[p] += 1
        self.b_built += 1
        self.b_left -= 1
        if self.b_left == 0:
            self.end_turn()

    # -- turn order and years (rules 4, 6, 7) ------------------------------------------------
    def end_turn(self) -> None:
        """Next player clockwise who still holds cards; the year ends when nobody does."""
        self._clear_pending()
        self.turn_no += 1
        n = self.game.num_players
        p = self.current_player
        hn = self.hand_n
        for i in range(1, n + 1):
            q = (p + i) % n
            if hn[q]:
                self.current_player = q
                self.phase = PH_AREA
                return
        self.end_year()

    def year_end_points(self, p: int) -> int:
        """Rules 6: +1 per tower, +1 per visible gold decoration, (pro) +1 per lit window, +1 Caliph."""
        pts = 0
        for _m, _s, rec in self.towers_of(p):
            pts += 1 + self.tower_gold(rec) + self.tower_lit(rec)
        return pts + (self.caliph == p)

    def end_year(self) -> None:
        """Year-end evaluation, then the next year or the final evaluation."""
        n = self.game.num_players
        for p in range(n):
            pts = self.year_end_points(p)
            self.year_pts[(self.year - 1) * n + p] = pts
            self.prestige[p] += pts
        if self.year == C.NUM_YEARS:
            fin = self.final_awards()
            for p in range(n):
                self.final_pts[p] = fin[p]
                self.prestige[p] += fin[p]
            self.phase = PH_DONE
            self.current_player = -1
            return
        self.start_new_year()

    def start_new_year(self) -> None:
        """Rules 7: sweep the board, reshuffle and deal, refill displays, 20 Asari each; the Caliph starts."""
        n = self.game.num_players
        self._clear_board()
        self.deal_hands()
        self.refill_displays()
        for p in range(n):
            self.pay_out(p, C.YEAR_INCOME)
        self.year += 1
        self.start_player = self.caliph
        self.current_player = self.caliph
        self.phase = PH_AREA
        self.turn_no = 0
        self.refresh()

    # -- final evaluation (rules 8, 9.3) ------------------------------------------------------
    def final_awards(self) -> list[int]:
        """Per player: material height awards, highest overall, most towers, 1 PP per 10 Asari."""
        g = self.game
        n = g.num_players
        o = g.options
        up = o["tie_rounding"] == "up"
        pro = g.pro
        out = [0] * n
        towers = []  # (height, rank_key, owner, material)
        for p in range(n):
            for m, _s, rec in self.towers_of(p):
                h = self.tower_height(rec)
                towers.append((h, (h, self.tower_lit(rec)) if pro else (h,), p, m))
        best_unit = o["height_rank_unit"] == "player_best_tower"

        def units(ts: list) -> list[tuple]:
            if not best_unit:
                return [(h, k, p) for h, k, p, _m in ts]
            best: dict[int, tuple] = {}
            for h, k, p, _m in ts:
                if p not in best or k > best[p][1]:
                    best[p] = (h, k, p)
            return list(best.values())

        def add(d: dict[int, int]) -> None:
            for p, v in d.items():
                out[p] += v

        for m in range(NF):
            first, second = C.MATERIAL_AWARDS[m]
            add(award(units([t for t in towers if t[3] == m]), first, second, up))
        add(award(units(towers), g.highest_overall[0], g.highest_overall[1], up))
        players = []
        for p in range(n):
            ts = self.towers_of(p)
            lit = sum(self.tower_lit(rec) for _m, _s, rec in ts)
            if o["lit_tiebreak_count_unbuilt"]:
                lit += sum(self.lit_res[p * NF: p * NF + NF])
            players.append((len(ts), (len(ts), lit) if pro else (len(ts),), p))
        add(award(players, C.MOST_TOWERS[0], C.MOST_TOWERS[1], up))
        for p in range(n):
            out[p] += self.money[p] // C.MONEY_PER_POINT
        return out

    # ------------------------------------------------------------------ results
    def is_terminal(self) -> bool:
        return self.phase == PH_DONE

    def scores(self) -> list[float]:
        return [float(x) for x in self.prestige]

    # ------------------------------------------------------------------ information
    def unseen_cards(self, p: int) -> list[int]:
        """Per suit, cards p has not seen: in other hands, others' face-down cards or the deck."""
        cps = self.game.cards_per_suit
        lu, h, ld = self.laid_up, self.hand, self.laid_down
        return [cps - h[p * NS + s] - sum(lu[s::NS]) - ld[p * NS + s] for s in range(NS)]

    def determinize(self, player: int, rng: Any = None) -> AsaraState:
        """A full state consistent with what ``player`` knows (rules file 14.2).

        Unseen cards are re-dealt to the other hands, the other players' face-down cards and
        the deck (sizes kept); tile piles are reshuffled; (pro) lighted windows whose material
        ``player`` does not know (others' kept windows, another player's drawn offer and the
        unknown stack entries) are redistributed, and the windows ``player`` put under the stack
        in random order (A-28 ``random``) are reordered among themselves.  Everything is drawn
        from sorted pools, so the sample depends only on what ``player`` can see.

        Another player in the middle of his turn (area chosen, cards chosen, building) is dealt
        holdings that allow that turn (:meth:`pending_turn_possible`); a hidden card choice is
        redrawn from his new hand.
        """
        r = as_rng(rng)
        s = self.clone()
        g = self.game
        n = g.num_players
        cur = s.current_player
        others = [q for q in range(n) if q != player]
        pending = cur != player and s.phase in (PH_CARDS, PH_SPACE, PH_BUILD)
        pool = list(s.deck)
        for q in others:
            for x in range(NS):
                pool.extend([x] * (s.hand[q * NS + x] + s.laid_down[q * NS + x]))
        pool.sort()
        sizes = [(sum(s.hand[q * NS: q * NS + NS]), sum(s.laid_down[q * NS: q * NS + NS])) for q in others]
        for pile in s.piles:
            pile.sort()
        pro = g.pro
        # the piles reshuffled (r.shuffle each); without lighted windows no draw comes between them and the
        # shuffle of the first try's cards, which is done with them
        cards0 = None if pro else pool[:]
        r.shuffle_many(s.piles if pro else [*s.piles, cards0])
        if pro:
            bit = 1 << player
            unknown = [i for i, b in enumerate(s.lit_seen) if not b & bit]
            lpool = [s.lit_stack[i] for i in unknown]
            for q in others:
                for m in range(NF):
                    lpool.extend([m] * s.lit_res[q * NF + m])
            hidden_drawn = bool(s.lit_drawn) and cur != player
            if hidden_drawn:
                lpool.extend(s.lit_drawn)
            lpool.sort()
            lit_sizes = [sum(s.lit_res[q * NF: q * NF + NF]) for q in others]
            if g.options["lit_discard_order"] == "random":
                self._reorder_own_discards(s, bit, r)
        lead = s.lead[area_action_target(s.p_area)[0]] if pending and s.phase != PH_BUILD else -1
        for attempt in range(_DETERMINIZE_TRIES + 1):
            # the first half unconditioned; then (a rare hand) a card of the lead suit first; last, if
            # nothing was found, he keeps what he holds (the engine's guarantee of a playable state)
            keep = attempt == _DETERMINIZE_TRIES
            first = lead if attempt >= _DETERMINIZE_TRIES // 2 and lead in pool else -1
            if attempt == 0 and cards0 is not None:
                cards = cards0  # pool[:] shuffled with the piles
            else:
                cards = pool[:]
                if keep:
                    for x in range(NS):
                        for _ in range(self.hand[cur * NS + x]):
                            cards.remove(x)
                r.shuffle(cards)
            if first >= 0:
                cards.remove(first)
            for q, (hn, dn) in zip(others, sizes):
                h = [0] * NS
                d = [0] * NS
                if q == cur and keep:
                    h, hn = self.hand[cur * NS: cur * NS + NS], 0
                elif q == cur and first >= 0:
                    h[first] += 1
                    hn -= 1
                for _ in range(hn):
                    h[cards.pop()] += 1
                for _ in range(dn):
                    d[cards.pop()] += 1
                s.hand[q * NS: q * NS + NS] = h
                s.laid_down[q * NS: q * NS + NS] = d
            s.deck = cards
            if pro:
                lit = lpool[:]
                if keep:
                    for m in range(NF):
                        for _ in range(self.lit_res[cur * NF + m]):
                            lit.remove(m)
                r.shuffle(lit)
                for i in unknown:
                    s.lit_stack[i] = lit.pop()
                for q, k in zip(others, lit_sizes):
                    if q == cur and keep:
                        s.lit_res[q * NF: q * NF + NF] = self.lit_res[q * NF: q * NF + NF]
                        continue
                    res = [0] * NF
                    for _ in range(k):
                        res[lit.pop()] += 1
                    s.lit_res[q * NF: q * NF + NF] = res
                if hidden_drawn:
                    s.lit_drawn = [lit.pop() for _ in range(len(s.lit_drawn))]
            s.refresh()
            # the build reach depends on reserves, towers and kept lighted windows: only the latter are
            # redrawn (pro: a dict of its own for each try)
            s._reach = {q: x for q, x in self._reach.items() if q not in others} if pro else self._reach
            if not pending or keep or s.pending_turn_possible():
                break
        if pending and s.phase == PH_SPACE:
            s.p_cards = r.choice(s.card_choices(cur, area_action_target(s.p_area)[0]))
        s.rng = Rng(r.next64())
        if cur == player and s.phase != PH_DONE:
            # his own turn: what his legal actions depend on (his hand, money and pieces, the board, the
            # sizes and contents of the piles) is his or public, and was not redrawn: the sample shares them
            if self._legal is None:
                self._legal = self._legal_ids()
            s._legal, s._mask = self._legal, self._mask
        else:
            s._mask = s._legal = None  # the rest of refresh() was done after the last draw of holdings
        # the sample is the same game (an observer keeps its caches): what it redrew is marked changed
        s.changes = self.changes.copy()
        s._cards_moved()
        s.changes.mark(*(("hand", q) for q in others))
        # the piles were reshuffled, not changed: "pile_order" (their tiles and sizes are the same)
        s._tiles_moved("pile_order", *((("towers", q) for q in others) if pro else ()))
        return s

    @staticmethod
    def _reorder_own_discards(s: AsaraState, bit: int, r: Rng) -> None:
        """Windows the observer put under in random order: known as a group, not in order."""
        seen, stack = s.lit_seen, s.lit_stack
        i = 0
        while i < len(seen):
            j = i
            while j < len(seen) and seen[j] & bit:
                j += 1
            if j - i > 1:
                run = sorted(stack[i:j])
                r.shuffle(run)
                stack[i:j] = run
            i = j + 1

    def pending_turn_possible(self) -> bool:
        """Whether the current player's holdings allow the turn he has begun: the area he chose
        (PH_CARDS, PH_SPACE: cards to lay there and the area still open to him) or the building
        he is doing (PH_BUILD: a step that keeps it completable)."""
        ph = self.phase
        if ph == PH_BUILD:
            return bool(self.build_choices())
        if ph not in (PH_CARDS, PH_SPACE):
            return True
        if not self.card_choices(self.current_player, area_action_target(self.p_area)[0]):
            return False
        self.phase = PH_AREA
        try:
            return bool(self.area_mask()[self.p_area])
        finally:
            self.phase = ph

    # -- persistence: clone, _to_dict and _from_dict follow from SCHEMA (bottom of the module) ------
    def validate(self) -> None:
        """The invariants the schema's per-field checks cannot express: conservation of cards,
        tiles and lighted windows, and the consistency of the phase with the turn in progress
        (raises :class:`CorruptStateError` naming the first broken one)."""

        def bad(msg: str) -> None:
            raise CorruptStateError(f"asara: corrupt saved state: {msg}")

        g = self.game
        n = g.num_players
        if (self.phase == PH_DONE) != (self.current_player == -1):
            bad("current_player is -1 exactly when the game is over")
        if any((o < 0) != (c < 0) for o, c in zip(self.space_owner, self.space_card)):
            bad("space owner and card disagree")
        # cards: every suit is complete (hands + deck + face-up + face-down)
        for x in range(NS):
            total = sum(self.hand[q * NS + x] + self.laid_up[q * NS + x] + self.laid_down[q * NS + x] for q in range(n))
            total += self.deck.count(x)
            if total != g.cards_per_suit:
                bad(f"suit {x} has {total} cards, expected {g.cards_per_suit}")
        placed = (sum(1 for c in self.space_card if 0 <= c < NS)
                  + C.PAIR_SIZE * sum(1 for c in self.space_card if c == PAIR_CARD))
        placed += sum(self.five_by)
        if placed != sum(self.laid_up) + sum(self.laid_down):
            bad("cards on the board do not match the cards laid")
        # tiles: piles + displays + reserves + towers
        counts = [0] * C.NUM_KINDS
        for t in range(C.NUM_TYPES):
            for x in self.piles[t]:
                counts[t * KT + x] += 1
            for x in range(KT):
                counts[t * KT + x] += self.display[t * KT + x]
                if sum(self.display[t * KT: t * KT + KT]) > g.display_size[t]:
                    bad(f"display {C.TYPES[t]} overfull")
        for q in range(n):
            for k in range(C.NUM_KINDS):
                counts[k] += self.reserve[q * C.NUM_KINDS + k]
        lit_built = [0] * NF
        for q in range(n):
            for m, _slot, rec in self.towers_of(q):
                base, turret = rec[C.T_BASE], rec[C.T_TURRET]
                if base > C.GOLD_CODE or turret > C.GOLD_CODE:
                    bad("tower base/turret code out of range")
                plain = GV * m
                counts[C.BASE * KT + plain + base - C.PLAIN_CODE] += 1
                if turret:
                    counts[C.TURRET * KT + plain + turret - C.PLAIN_CODE] += 1
                elif self.phase != PH_BUILD or q != self.current_player:
                    bad("a tower without turret outside its build action")
                counts[C.TRUNK * KT + plain] += rec[C.T_TRUNK_P]
                counts[C.TRUNK * KT + plain + 1] += rec[C.T_TRUNK_G]
                counts[C.WINDOW * KT + plain] += rec[C.T_WIN_P] + rec[C.T_LIT_P]
                counts[C.WINDOW * KT + plain + 1] += rec[C.T_WIN_G] + rec[C.T_LIT_G]
                lit_built[m] += self.tower_lit(rec)
            for m in range(NF):
                for slot in range(g.slots):
                    i = self.tower_index(q, m, slot)
                    if not self.towers[i] and any(self.towers[i + 1: i + TF]):
                        bad("parts in a tower without base")
        if counts != g.kind_total:
            bad("tower sections are not conserved")
        lit = [0] * NF
        for m in self.lit_stack + self.lit_drawn:
            lit[m] += 1
        for m in range(NF):
            lit[m] += lit_built[m] + sum(self.lit_res[q * NF + m] for q in range(n))
            if lit[m] != g.lit_per_material:
                bad(f"lighted windows of {C.MATERIALS[m]} not conserved")
        if len(self.lit_seen) != len(self.lit_stack):
            bad("lit_seen does not match the stack")
        if self.phase in (PH_CARDS, PH_SPACE) and self.p_area < 0:
            bad("pending area missing")
        if self.phase == PH_SPACE and self.p_cards < 0:
            bad("pending cards missing")
        if self.phase == PH_SPACE and self.p_cards not in self.card_choices(
                self.current_player, area_action_target(self.p_area)[0]):
            bad(f"p_cards={self.p_cards}: not a choice of cards the player to move can lay at the area chosen")
        cur = self.current_player
        unroofed = [0] * NF
        if self.phase == PH_BUILD:
            for m, _slot, rec in self.towers_of(cur):
                if not rec[C.T_TURRET]:
                    unroofed[m] += 1
        if list(self.open_) != unroofed:
            bad(f"open_={list(self.open_)}: the towers begun without turret in the build in progress are {unroofed}")
        if self.phase in (PH_CARDS, PH_SPACE):  # the area chosen opens the turn: it must be one he could choose
            if self.pending_sections != area_action_target(self.p_area)[1]:
                bad(f"pending_sections={self.pending_sections} do not match the area chosen (p_area={self.p_area})")
            try:
                possible = self.clone().pending_turn_possible()
            except (IndexError, KeyError, ValueError):
                possible = False
            if not possible:
                bad(f"p_area={self.p_area}: the area chosen is closed to the player or he holds no cards to lay there")
        if self.phase == PH_MARKET and not 0 <= self.p_area < len(C.MARKET_AREAS):
            bad("market phase without a market")
        if self.phase in (PH_SPY_PILE, PH_SPY_TAKE, PH_BUILD) and self.p_space < 0:
            bad("pending space missing")
        if self.phase == PH_SPY_TAKE and self.p_pile < 0:
            bad("pending pile missing")
        if self.phase == PH_BUILD and not (self.b_left >= 1 and sum(self.open_) <= self.b_left):
            bad("build progress out of range")
        if self.phase == PH_LIT_KEEP and not 1 <= self.lit_keep_left <= len(self.lit_drawn):
            if self.lit_keep_left != 0 or g.options["lit_discard_order"] != "choose" or not self.lit_drawn:
                bad("lighted-window choice out of range")
        if self.lit_placed > len(self.lit_stack):
            bad("lit_placed out of range")
        if self.phase != PH_LIT_KEEP and self.lit_drawn:
            bad("drawn lighted windows outside their choice")
        if self.phase == PH_AREA and sum(self.hand[self.current_player * NS: self.current_player * NS + NS]) == 0:
            bad("the player to move holds no cards")
        try:
            s2 = self.clone()
            s2.refresh()
            stuck = self.phase != PH_DONE and not s2._legal_ids()
        except (IndexError, KeyError, ValueError) as e:
            bad(f"inconsistent pending action ({e})")
        if stuck:
            bad("no legal action in the saved position")

    # ------------------------------------------------------------------ display
    def action_name(self, action: int) -> str:
        return self.game.codec.name(int(action))

    def render_text(self, viewer: int | None = None) -> str:
        """Everything public plus the hand of ``viewer`` (default: the player to move)."""
        return self.game.renderer().render_text(self, viewer)


def _max_keep(g: AsaraGame) -> int:
    return max(keep for _fee, _shown, keep in C.LIT_OFFERS)


def _last_player(g: AsaraGame) -> int:
    """The last player's index (a bound that depends on the player count)."""
    return g.num_players - 1

#: every field of a position, declared once: clone, JSON save/load and the per-field checks follow
SCHEMA = StateSchema("asara", [
    RngField(doc="the chance stream (shuffles of decks, piles and discarded lighted windows)"),
    Int("current_player", -1, _last_player, doc="who decides; -1 once the game is over"),
    Int("phase", 0, PH_DONE, doc="the decision of the turn (Phase); DONE at the end"),
    Int("year", 1, C.NUM_YEARS, doc="1..4"),
    Int("start_player", 0, _last_player, doc="who started this year"),
    Int("caliph", 0, _last_player, doc="holder of the Caliph's patronage"),
    Int("turn_no", 0, None, doc="turns taken this year"),
    Int("p_area", -1, NUM_AREA_ACTIONS - 1, doc="area-select action of the turn in progress, or -1"),
    Int("pending_sections", 0, C.NUM_PLOTS, aliases=("p_k",),
        doc="sections the chosen build area asks for (its k; 0 for other areas)"),
    Int("p_cards", -1, NUM_CARD_ACTIONS - 1, doc="card choice of the turn in progress (0-4 one card, 5+ a pair)"),
    Int("p_space", -1, lambda g: g.total_spaces - 1, doc="global index of the card space used, or -1"),
    Int("p_pile", -1, C.NUM_TYPES - 1, doc="the pile searched in the house of spies, or -1"),
    Int("p_fee", 0, None, doc="the spies fee paid this turn"),
    Int("b_left", 0, C.NUM_PLOTS, doc="build steps left in this build action"),
    Int("b_built", 0, C.NUM_PLOTS, doc="sections built in this build action"),
    Int("lit_keep_left", 0, _max_keep, doc="drawn lighted windows still to keep"),
    Int("lit_placed", 0, lambda g: NF * g.lit_per_material,
        doc="unkept windows already put under the stack (lit_discard_order='choose')"),
    IntList("money", lambda g: g.num_players, 0, None, doc="Asari per player"),
    IntList("prestige", lambda g: g.num_players, 0, None, aliases=("pp",),
            doc="prestige points (PP) per player: the score"),
    IntList("hand", lambda g: g.num_players * C.NUM_SUITS, 0, lambda g: g.cards_per_suit,
            doc="hand[p*5 + suit]: buyer cards in hand"),
    IntList("laid_up", lambda g: g.num_players * C.NUM_SUITS, 0, lambda g: g.cards_per_suit,
            doc="laid_up[p*5 + suit]: cards laid face up this year"),
    IntList("laid_down", lambda g: g.num_players * C.NUM_SUITS, 0, lambda g: g.cards_per_suit,
            doc="laid_down[p*5 + suit]: cards laid face down this year (pairs, 5-Asari building)"),
    IntList("five_by", lambda g: g.num_players, 0, lambda g: g.total_cards,
            doc="cards each player laid on the 5-Asari building this year"),
    IntList("space_owner", lambda g: g.total_spaces, -1, _last_player, aliases=("sp_owner",),
            doc="the player whose buyer occupies each card space, or -1"),
    IntList("space_card", lambda g: g.total_spaces, -1, PAIR_CARD, aliases=("sp_card",),
            doc="the suit laid on each card space, PAIR_CARD for a face-down pair, or -1"),
    IntList("lead", C.NUM_AREAS, -1, C.NUM_SUITS - 1, doc="lead suit of each area this year, or -1"),
    IntList("display", C.NUM_KINDS, 0, lambda g: max(g.display_size),
            doc="display[type*10 + material*2 + gold]: face-up tiles of the markets"),
    IntList("reserve", lambda g: g.num_players * C.NUM_KINDS, 0, lambda g: max(g.kind_total),
            doc="reserve[p*40 + kind]: unbuilt sections behind each screen"),
    IntList("towers", lambda g: g.num_players * NF * g.slots * TF, 0, None,
            doc="one record of TOWER_FIELDS ints per (player, material, slot); see tower_index"),
    IntList("deck", None, 0, C.NUM_SUITS - 1, doc="the undealt buyer cards (drawn from the end)"),
    IntList("lit_stack", None, 0, NF - 1, doc="lighted windows by material (drawn from the end)"),
    IntList("lit_seen", None, 0, lambda g: (1 << g.num_players) - 1,
            doc="per stack entry, a bit per player who knows its material"),
    IntList("lit_res", lambda g: g.num_players * NF, 0, lambda g: g.lit_per_material,
            doc="lit_res[p*5 + material]: kept lighted windows not yet built"),
    IntList("lit_drawn", None, 0, NF - 1, max_length=max(shown for _f, shown, _k in C.LIT_OFFERS),
            doc="lighted windows drawn and being chosen from"),
    IntList("year_pts", lambda g: g.num_players * C.NUM_YEARS, 0, None,
            doc="year_pts[(year-1)*n + p]: points of each year-end evaluation"),
    IntList("final_pts", lambda g: g.num_players, 0, None, doc="points of the final evaluation"),
    IntList("open_", NF, 0, lambda g: g.slots, doc="towers opened in this build action (turret owed), per material"),
    IntList("new_windows", lambda g: NF * g.slots * 2, 0, lambda g: g.sections[C.WINDOW], aliases=("b_newwin",),
            doc="windows placed in this build action per (material, slot, gold)"),
    Nested("piles", (C.NUM_TYPES, None), 0, C.KINDS_PER_TYPE - 1,
           doc="the face-down pile of each market, tile kinds material*2+gold (drawn from the end)"),
    Cache("hand_n", copy=list.copy, doc="cards in each hand"),
    Cache("_mask", doc="the read-only legal mask"),
    Cache("_legal", doc="the legal action ids (a list, never mutated)"),
    Cache("changes", copy=Changes.copy, doc="what changed, for the observer's caches"),
    Cache("_reach", doc="build_reach per player (a dict shared while the reserves, towers and lit windows are)"),
])
AsaraState.schema = SCHEMA
AsaraState.clone = SCHEMA.bind(AsaraState)  # type: ignore[method-assign]
AsaraGame.state_class = AsaraState
