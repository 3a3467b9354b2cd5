"""Invariants over many random games (rules file §11.1), persistence, clones and determinization."""

from __future__ import annotations

import numpy as np
import pytest

from meeplezoo.envs.core.game import CorruptStateError
from meeplezoo.envs.kerala.state import KeralaState, _connected, score_platform

GAMES = 300


def _check_position(state: KeralaState) -> None:
    g = state.game
    # conservation: every game tile in exactly one place, start tiles on their own platforms
    tiles = list(state.bag) + state.offer + state.discards + state.setup_removed
    for p in range(g.num_players):
        codes = [c for st in state.platforms[p].values() for c in st]
        tiles.extend(c >> 2 for c in codes if c >> 2 < 100)
        assert sum(1 for c in codes if c >> 2 == 100 + g.player_colours[p]) == 1
        assert _connected(set(state.platforms[p]), g.delta)  # the platform stays connected
        a, b = state.elephants[p]
        assert a in state.platforms[p] and b in state.platforms[p] and (a != b or len(state.platforms[p]) == 1)
        assert state.standing(p) + state.passes[p] == 2
    assert sorted(tiles) == list(range(100))


@pytest.mark.parametrize("chunk", range(3))
def test_random_games_invariants(kit, chunk):
    rng = np.random.default_rng(100 + chunk)
    games = GAMES // 3
    for i in range(games):
        n = 2 + (i + chunk) % 4
        options = {}
        if i % 10 == 7:
            options = {"pass_mode": "discard_chosen", "move_tile_may_rotate": False}
        game = kit.Game(n, **options)
        s = game.new_state(int(rng.integers(1 << 30)))
        check_at = int(rng.integers(20, 60))
        k = 0
        while not s.is_terminal():
            mask = s.legal_mask()
            assert mask.any()
            legal = np.flatnonzero(mask)
            if k % 7 == 0:
                _check_position(s)
            if k == check_at:
                _round_trip_and_clone(s, rng)
            s.apply(int(legal[rng.integers(legal.size)]))
            k += 1
        _check_position(s)
        # scores recomputed from scratch (exhaustive keep choice, fresh state) match the engine's
        fresh = KeralaState.from_json(s.to_json())
        for p in range(n):
            ref = score_platform(game, fresh.platforms[p], game.player_colours[p], 2 - fresh.passes[p], exhaustive=True)
            assert s.scores()[p] == ref.total
        assert s.current_player == -1 and not s.legal_mask().any()


def _round_trip_and_clone(s: KeralaState, rng: np.random.Generator) -> None:
    text = s.to_json()
    loaded = KeralaState.from_json(text)
    assert loaded.to_json() == text
    clone = s.clone()
    assert clone.to_json() == text
    # identical future under the same actions (the chance stream travels with the state)
    a, b = loaded, clone
    steps = 0
    while not a.is_terminal() and steps < 40:
        legal = a.legal_actions()
        assert legal == b.legal_actions()
        act = legal[rng.integers(len(legal))]
        a.apply(act)
        b.apply(act)
        steps += 1
    assert a.to_json() == b.to_json()
    assert np.array_equal(a.observe(0), b.observe(0))
    # the original is untouched by what happened to its clone
    assert s.to_json() == text


def test_clone_independence(kit):
    s = kit.Game(3).new_state(5)
    kit.play_random(s, np.random.default_rng(0), steps=30)
    c = s.clone()
    before = s.to_json()
    kit.play_random(c, np.random.default_rng(1), steps=30)
    assert s.to_json() == before
    c.platforms[0].clear()
    c.bag.clear()
    assert s.to_json() == before


@pytest.mark.parametrize("derived", [False, True])
def test_observation_shape_range_and_layout(kit, derived):
    rng = np.random.default_rng(3)
    planes = 23 if derived else 21
    for n in (2, 3, 4, 5):
        game = kit.Game(n, derived_features=derived)
        assert game.observation_shape[0] == (n * planes + 1) * game.num_cells + n * (19 if derived else 9) + 171
        lay = game.observation_layout
        assert max(sl.stop for sl in lay.values()) == game.observation_shape[0]
        s = game.new_state(n)
        for _ in range(60):
            for p in range(n):
                obs = s.observe(p)
                assert obs.dtype == np.float32 and obs.shape == game.observation_shape
                assert obs.min() >= 0.0 and obs.max() <= 1.0
            legal = s.legal_actions()
            s.apply(legal[rng.integers(len(legal))])
        # egocentric: player p's block 0 is p's own platform, as block 1 in the observation of p-1
        # (all planes but 20, the legal cells, which only the acting player sees on their own block)
        o1, o0 = s.observe(1), s.observe(0)
        mine = o1[lay["platform_0"]].reshape(planes, -1)
        seen = o0[lay["platform_1"]].reshape(planes, -1)
        assert not seen[20].any()
        assert np.array_equal(np.delete(mine, 20, axis=0), np.delete(seen, 20, axis=0))


def test_observation_ignores_bag_order_and_removed_tiles(kit):
    """The only hidden information is the bag order and the setup removals: nobody observes them."""
    game = kit.Game(2)
    s = game.new_state(9)
    kit.play_random(s, np.random.default_rng(4), steps=25)
    for seed in range(5):
        d = s.determinize(0, seed)
        assert sorted(d.bag + d.setup_removed) == sorted(s.bag + s.setup_removed)
        assert len(d.bag) == len(s.bag)
        assert all(game.tile_colour[t] not in game.player_colours for t in d.setup_removed)
        for p in range(2):
            assert np.array_equal(d.observe(p), s.observe(p))
        assert np.array_equal(d.legal_mask(), s.legal_mask())
    # the resampled futures really differ
    futures = set()
    for seed in range(6):
        d = s.determinize(1, np.random.default_rng(seed))
        while d.rounds_played == s.rounds_played:
            d.apply(d.legal_actions()[0])
        futures.add(tuple(d.offer))
    assert len(futures) > 1


def test_corrupt_saved_states(kit):
    s = kit.Game(3).new_state(1)
    kit.play_random(s, np.random.default_rng(0), steps=20)
    text = s.to_json()
    with pytest.raises(CorruptStateError):
        KeralaState.from_json(text[: len(text) // 2])
    import json

    doc = json.loads(text)
    bad_docs = []
    d = json.loads(text)
    d["state"]["bag"].append(d["state"]["bag"][0])  # a tile twice
    bad_docs.append(d)
    d = json.loads(text)
    d["state"]["bag"].pop()  # a tile lost
    bad_docs.append(d)
    d = json.loads(text)
    d["state"]["passes"][0] = 3
    bad_docs.append(d)
    d = json.loads(text)
    d["state"]["current_player"] = (d["state"]["current_player"] + 1) % 3
    bad_docs.append(d)
    d = json.loads(text)
    d["state"]["platforms"][0].append([5, 5, [d["state"]["bag"][0] * 4]])  # a detached stack
    bad_docs.append(d)
    d = json.loads(text)
    d["state"]["elephants"][1] = [[9, 9], [9, 9]]
    bad_docs.append(d)
    d = json.loads(text)
    d["state"]["phase"] = 9
    bad_docs.append(d)
    d = json.loads(text)
    d["state"]["rng"] = "x"
    bad_docs.append(d)
    d = json.loads(text)
    d["config"]["num_players"] = 7
    bad_docs.append(d)
    d = json.loads(text)
    del d["state"]["offer"]
    bad_docs.append(d)
    for bad in bad_docs:
        with pytest.raises(CorruptStateError):
            KeralaState.from_json(json.dumps(bad))
    assert KeralaState.from_json(json.dumps(doc)).to_json() == text


@pytest.mark.parametrize("derived", [False, True])
def test_observation_matches_engine(kit, derived):
    """The observation's platform planes (and with derived features the kept areas and score
    features) describe the engine's position."""
    game = kit.Game(3, derived_features=derived)
    planes_per_platform = 23 if derived else 21
    lay = game.observation_layout
    ncell = game.num_cells
    s = game.new_state(8)
    kit.play_random(s, np.random.default_rng(6), steps=70)
    for player in range(3):
        obs = s.observe(player)
        for i in range(3):
            p = (player + i) % 3
            planes = obs[lay[f"platform_{i}"]].reshape(planes_per_platform, ncell)
            sc = s.platform_score(p)
            occupied = {game.pad_to_cell[c] for c in s.platforms[p]}
            assert set(np.flatnonzero(planes[5])) == occupied
            assert set(np.flatnonzero(planes[18])) == {game.pad_to_cell[c] for c in s.elephants[p]}
            feats = obs[lay[f"player_{i}"]]
            assert feats.size == (19 if derived else 9)
            assert feats[game.player_colours[p]] == 1.0
            assert feats[7] == pytest.approx(len(s.platforms[p]) / 41.0)
            if derived:
                kept = {game.pad_to_cell[c] for c in sc.kept_cells()}
                assert set(np.flatnonzero(planes[21])) == kept
                assert feats[17] == pytest.approx(sc.missing / 5.0)
                assert feats[18] == pytest.approx(min(max((sc.total + 40) / 100.0, 0.0), 1.0))
        legal_plane = obs[lay["platform_0"]].reshape(planes_per_platform, ncell)[20]
        assert legal_plane.any() == (player == s.current_player)
        if player == s.current_player:
            assert set(np.flatnonzero(legal_plane)) == set(s._legal_cells)


def test_refresh_after_hand_edits(kit):
    """Tests and tools may edit public fields; refresh() recomputes every derived value."""
    game = kit.Game(2)
    s = game.new_state(1)
    before = s.scores()[0]
    tile = s.bag.pop()
    s.platforms[0][game.cell_of(0, 1)] = (tile * 4,)
    s.elephants[0] = [game.cell_of(0, 1), game.start_cell]  # unsorted on purpose
    s.refresh()
    assert s.elephants[0] == sorted(s.elephants[0])
    s.validate()
    sym = game.tile_symbols[tile]
    assert s.scores()[0] in (before + sym + 5, before + sym)  # a new colour (+5 back) or the own colour
    assert sum(s.unseen) == len(s.bag) + len(s.setup_removed)
