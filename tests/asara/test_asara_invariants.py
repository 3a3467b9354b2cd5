"""Invariants over many random Asara games: conservation, masks, scores, persistence, clones."""

import random
from math import ceil

import pytest

from meeplezoo.envs.asara import components as C
from meeplezoo.envs.asara.state import AsaraGame, AsaraState

CONFIGS = [(n, v) for n in (2, 3, 4) for v in ("base", "professional")]
GAMES_PER_CONFIG = 50  # 300 games in all


def conservation_errors(s: AsaraState) -> list[str]:
    """Independent bookkeeping: 45 cards, every tile kind, every lighted window, money >= 0."""
    g = s.game
    n = g.num_players
    errs = []
    cards = [s.deck.count(x) for x in range(5)]
    for q in range(n):
        for x in range(5):
            cards[x] += s.hand[q * 5 + x] + s.laid_up[q * 5 + x] + s.laid_down[q * 5 + x]
    if cards != [g.cards_per_suit] * 5:
        errs.append(f"cards {cards}")
    on_board = sum(1 for c in s.space_card if 0 <= c < 5) + 2 * sum(1 for c in s.space_card if c == 5) + sum(s.five_by)
    if on_board != sum(s.laid_up) + sum(s.laid_down):
        errs.append("board cards")
    tiles = [0] * C.NUM_KINDS
    for t in range(4):
        for x in s.piles[t]:
            tiles[t * 10 + x] += 1
    for k in range(C.NUM_KINDS):
        tiles[k] += s.display[k] + sum(s.reserve[q * C.NUM_KINDS + k] for q in range(n))
    lit = [s.lit_stack.count(m) + s.lit_drawn.count(m) + sum(s.lit_res[q * 5 + m] for q in range(n))
           for m in range(5)]
    for q in range(n):
        for m, _slot, rec in s.towers_of(q):
            tiles[C.BASE * 10 + 2 * m + rec[0] - 1] += 1
            if rec[1]:
                tiles[C.TURRET * 10 + 2 * m + rec[1] - 1] += 1
            tiles[C.TRUNK * 10 + 2 * m] += rec[2]
            tiles[C.TRUNK * 10 + 2 * m + 1] += rec[3]
            tiles[C.WINDOW * 10 + 2 * m] += rec[4] + rec[6]
            tiles[C.WINDOW * 10 + 2 * m + 1] += rec[5] + rec[7]
            lit[m] += rec[6] + rec[7]
    expected = []
    for t in C.TYPES:
        for _m in range(5):
            gold = C.GOLD_PER_TYPE_MATERIAL[t]
            expected += [C.SECTIONS_PER_MATERIAL[t] - gold, gold]
    if tiles != expected:
        errs.append("tiles")
    if lit != [C.LIT_PER_MATERIAL if g.pro else 0] * 5:
        errs.append(f"lit {lit}")
    if min(s.money) < 0:
        errs.append("negative money")
    return errs


def built_sections(s: AsaraState, p: int) -> int:
    return sum(s.tower_height(rec) + s.tower_lit(rec) for _m, _s, rec in s.towers_of(p))


def independent_final(s: AsaraState) -> list[int]:
    """Default-option final evaluation written out separately from the engine."""
    n = s.game.num_players
    out = [0] * n
    towers = [(s.tower_height(rec), s.tower_lit(rec) if s.game.pro else 0, p, m)
              for p in range(n) for m, _sl, rec in s.towers_of(p)]

    def give(ents, first, second):
        if not ents:
            return
        keyed = sorted(ents, key=lambda e: e[0], reverse=True)
        top = keyed[0][0]
        tops = [e for e in keyed if e[0] == top]
        if len(tops) > 1:
            for e in tops:
                out[e[1]] += ceil((first + second) / len(tops))
            return
        out[tops[0][1]] += first
        rest = [e for e in keyed if e[0] < top]
        if rest:
            sec = [e for e in rest if e[0] == rest[0][0]]
            for e in sec:
                out[e[1]] += ceil(second / len(sec))

    for m, (a, b) in enumerate(C.MATERIAL_AWARDS):
        give([((h, lit), p) for h, lit, p, mm in towers if mm == m], a, b)
    give([((h, lit), p) for h, lit, p, _m in towers], *C.HIGHEST_OVERALL)
    counts = []
    for p in range(n):
        mine = [t for t in towers if t[2] == p]
        if mine:
            counts.append(((len(mine), sum(t[1] for t in mine)), p))
    give(counts, *C.MOST_TOWERS)
    for p in range(n):
        out[p] += s.money[p] // 10
    return out


@pytest.mark.parametrize("n,version", CONFIGS)
def test_random_games_invariants(n, version):
    g = AsaraGame(n, version=version)
    for seed in range(GAMES_PER_CONFIG):
        rng = random.Random(seed)
        s = g.new_state(seed)
        year = s.year
        steps = 0
        while not s.is_terminal():
            mask = s.legal_mask()
            legal = s.legal_actions()
            assert mask.any() and sorted(legal) == list(mask.nonzero()[0])
            assert 0 <= s.current_player < n
            a = rng.choice(legal)
            s.apply(a)
            steps += 1
            assert min(s.money) >= 0
            if steps % 7 == 0:
                assert conservation_errors(s) == []
            if s.year != year:  # year-end points recomputed from the unchanged towers and the Caliph
                for p in range(n):
                    expect = sum(1 + s.tower_gold(rec) + s.tower_lit(rec) for _m, _sl, rec in s.towers_of(p))
                    assert s.year_pts[(year - 1) * n + p] == expect + (s.caliph == p)
                year = s.year
            assert steps < 3000, "game does not terminate"
        assert conservation_errors(s) == []
        for p in range(n):
            assert s.prestige[p] == built_sections(s, p) + sum(s.year_pts[y * n + p] for y in range(4)) + s.final_pts[p]
        assert s.final_pts == independent_final(s)
        assert s.scores() == [float(x) for x in s.prestige]


@pytest.mark.parametrize("n,version", CONFIGS)
def test_json_round_trip_and_identical_future(n, version):
    g = AsaraGame(n, version=version)
    for seed in range(4):
        rng = random.Random(100 + seed)
        s = g.new_state(seed)
        checkpoints = 0
        while not s.is_terminal():
            if rng.random() < 0.05:
                checkpoints += 1
                text = s.to_json()
                t = AsaraState.from_json(text)
                assert t.to_json() == text
                assert (t.legal_mask() == s.legal_mask()).all()
                for p in range(n):
                    assert (t.observe(p) == s.observe(p)).all()
                # identical future under identical actions (chance included)
                a_rng = random.Random(seed)
                u, v = s.clone(), t
                while not u.is_terminal():
                    a = a_rng.choice(u.legal_actions())
                    u.apply(a)
                    v.apply(a)
                assert u.to_json() == v.to_json()
            s.apply(rng.choice(s.legal_actions()))
        assert checkpoints > 0


@pytest.mark.parametrize("n,version", CONFIGS)
def test_clone_independence(n, version):
    g = AsaraGame(n, version=version)
    rng = random.Random(7)
    s = g.new_state(3)
    while not s.is_terminal():
        if rng.random() < 0.1:
            before = s.to_json()
            c = s.clone()
            for _ in range(30):
                if c.is_terminal():
                    break
                c.apply(rng.choice(c.legal_actions()))
            assert s.to_json() == before
            c2 = s.clone()
            assert c2.to_json() == before
        s.apply(rng.choice(s.legal_actions()))


def test_reproducible_from_seed_and_actions():
    g = AsaraGame(3, version="professional")
    rng = random.Random(1)
    s = g.new_state(42)
    actions = []
    while not s.is_terminal():
        a = rng.choice(s.legal_actions())
        actions.append(a)
        s.apply(a)
    r = g.new_state(42)
    for a in actions:
        r.apply(a)
    assert r.to_json() == s.to_json()


@pytest.mark.parametrize("opts", [
    {"bank_auto_highest": False, "spy_auto_cheapest": False, "allow_voluntary_higher_plot": True,
     "build_exact_k": False, "version": "professional", "allow_decline_lit_house": True,
     "lit_discard_order": "choose"},
    {"allow_pair_in_empty_area": True, "pair_only_if_lacking_suit": True, "allow_decline_market": False,
     "allow_decline_spies": False, "unlimited_coins": False, "lit_short_stack": "require_full",
     "spy_allow_empty_pile": True, "lit_tiebreak_count_unbuilt": True, "lit_on_new_window": False,
     "version": "professional"},
    {"cards_per_suit": 8, "prices": {"brown": 3, "green": 4, "red": 5, "black": 6, "white": 7},
     "display_size": {"base": 4, "trunk": 4, "window": 5, "turret": 4}, "height_rank_unit": "player_best_tower",
     "tie_rounding": "down", "spy_space_fees": [2, 4, 6]},
])
def test_random_games_with_non_default_options(opts):
    for n in (2, 4):
        g = AsaraGame(n, **opts)
        for seed in range(8):
            rng = random.Random(seed)
            s = g.new_state(seed)
            while not s.is_terminal():
                legal = s.legal_actions()
                assert legal
                s.apply(rng.choice(legal))
                assert min(s.money) >= 0
            AsaraState.from_json(s.to_json())  # validates conservation
            if not g.options["unlimited_coins"]:
                assert sum(s.money) <= C.COIN_TOTAL
