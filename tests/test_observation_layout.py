"""The observation declared once (envs/core/observation.py): the layout, bounds, structured view and
documentation all follow from each game's declaration; observers own their caches and never serve a
stale one; the rules modules import neither the observation nor the renderer."""

from __future__ import annotations

import ast
import inspect
import pickle
from pathlib import Path

import numpy as np
import pytest
from golden.golden import CONFIGS
from pettingzoo.test import api_test

import meeplezoo
from meeplezoo.envs.core.observation import Changes, ObservationSpec, details_since
from meeplezoo.registry import GAMES as DISCOVERED
from meeplezoo.registry import game_class, make_game

ROOT = Path(__file__).resolve().parent.parent
GAMES = tuple(DISCOVERED)  # every discovered game, the template included


def _game(name, config):
    cfg = dict(config)
    return make_game(name, cfg.pop("num_players", None), **cfg)


def _random_state(game, seed, steps):
    state = game.new_state(seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply(legal[int(rng.integers(len(legal)))])
    return state, rng


@pytest.mark.parametrize("name,config", CONFIGS, ids=lambda x: str(x))
def test_layout_follows_from_the_declaration(name, config):
    game = _game(name, config)
    spec = game.observation_spec
    assert game.observation_layout == spec.layout
    assert game.observation_shape == (spec.size,)
    stop = 0
    for block in spec.blocks.values():
        assert block.start == stop and block.size > 0 and block.low <= block.high
        stop = block.stop
    assert stop == spec.size
    assert spec.low.shape == spec.high.shape == (spec.size,)
    # observations respect the declared per-element bounds
    state, _ = _random_state(game, 3, 40)
    for p in range(game.num_players):
        obs = state.observe(p)
        assert obs.dtype == np.float32 and obs.shape == (spec.size,)
        assert np.all(obs >= spec.low) and np.all(obs <= spec.high)


@pytest.mark.parametrize("name", GAMES)
def test_structured_view_shares_the_flat_vector(name):
    game = make_game(name)
    state, _ = _random_state(game, 5, 25)
    flat = state.observe(0)
    views = game.observation_spec.views(flat)
    covered = 0
    for arr in views.values():
        assert np.shares_memory(arr, flat)
        covered += arr.size
    assert covered == flat.size
    for bname, block in game.observation_spec.blocks.items():
        if bname in views:
            assert views[bname].shape == block.shape
            assert np.array_equal(views[bname].reshape(-1), flat[block.slice])


def test_kerala_platforms_stack_in_seat_order():
    game = make_game("kerala", 3)
    state, _ = _random_state(game, 2, 30)
    flat = state.observe(1)
    views = game.observation_spec.views(flat)
    lay = game.observation_layout
    assert views["platforms"].shape == (3, 21, game.side, game.side)
    assert views["players"].shape == (3, 9)
    for i in range(3):
        assert np.array_equal(views["platforms"][i].reshape(-1), flat[lay[f"platform_{i}"]])


@pytest.mark.parametrize("name", GAMES)
def test_dict_observation_format(name):
    env = meeplezoo.make(name, obs_format="dict")
    env.reset(seed=4)
    obs, *_ = env.last()
    space = env.observation_space(env.agent_selection)
    assert space.contains(obs)
    assert "action_mask" in obs and "observation" not in obs
    flat_env = meeplezoo.make(name)
    flat_env.reset(seed=4)
    flat, *_ = flat_env.last()
    spec = env.unwrapped.game.observation_spec
    for key, (_shape, _lo, _hi, sl) in spec.structure().items():
        assert np.array_equal(obs[key].reshape(-1), flat["observation"][sl])
    assert np.array_equal(obs["action_mask"], flat["action_mask"])


@pytest.mark.parametrize("name", GAMES)
def test_dict_observation_api(name):
    api_test(meeplezoo.make(name, obs_format="dict"), num_cycles=30)


def test_bad_obs_format():
    with pytest.raises(ValueError, match="obs_format"):
        meeplezoo.make("kerala", obs_format="planes")


def test_observation_docs_up_to_date():
    import importlib.util

    spec = importlib.util.spec_from_file_location("observation_docs", ROOT / "scripts" / "observation_docs.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert (ROOT / "docs" / "observations.md").read_text() == mod.render(), (
        "docs/observations.md is stale: run python scripts/observation_docs.py")


@pytest.mark.parametrize("name", GAMES)
def test_rules_module_imports_no_observation_or_renderer(name):
    """Every discovered game (the template and installed ones included) points to its observer and
    renderer by name, and the modules of its Game and State import neither."""
    game_cls = game_class(name)
    assert game_cls.observer_ref and game_cls.renderer_ref
    for cls in (game_cls, game_cls.state_class):
        tree = ast.parse(Path(inspect.getsourcefile(cls)).read_text())
        imported = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                imported.add(node.module or "")
                imported.update(a.name for a in node.names)
            elif isinstance(node, ast.Import):
                imported.update(a.name for a in node.names)
        assert not {m for m in imported if m.split(".")[-1] in ("observation", "render")} - {"core.observation"}, cls
        assert "encode" not in imported and "render_text" not in imported, cls


@pytest.mark.parametrize("name,config", CONFIGS, ids=lambda x: str(x))
def test_observer_never_serves_a_stale_cache(name, config):
    """One observer shown a state, its clone and a determinization in turn, each moving on its own,
    and a loaded copy, gives what a fresh observer gives."""
    game = _game(name, config)
    state, rng = _random_state(game, 11, 15)
    observer = game.make_observer()
    states = [state, state.clone(), state.determinize(0, 5), type(state).from_json(state.to_json())]
    n = game.num_players
    for step in range(40):
        for k, s in enumerate(states):
            for p in ((step + k) % n, (step + k + 1) % n):
                got = observer.observe(s, p)
                want = game.make_observer().observe(s, p)
                assert np.array_equal(got, want), (step, k, p)
                assert np.array_equal(s.observe(p), want)
        k = step % len(states)
        s = states[k]
        if not s.is_terminal():
            legal = s.legal_actions()
            s.apply(legal[int(rng.integers(len(legal)))])
        if step % 7 == 3:
            states.append(states[k].clone())


def test_default_observer_is_not_pickled():
    game = make_game("kerala")
    game.new_state(1).observe(0)
    assert game._observer is not None
    copy = pickle.loads(pickle.dumps(game))
    assert copy._observer is None and copy == game
    assert np.array_equal(copy.new_state(1).observe(0), game.new_state(1).observe(0))


def test_changes_tokens():
    a = Changes()
    b = a.copy()
    assert a.token("x") is b.token("x")
    a.log("cells", (1,))
    a.log("cells", (2, 3))
    assert a.token("cells") is not b.token("cells")
    assert details_since(a.token("cells"), b.token("cells"), 8) == [(2, 3), (1,)]
    assert details_since(a.token("cells"), b.token("cells"), 1) is None
    b.log("cells", (4,))
    assert details_since(a.token("cells"), b.token("cells"), 8) is None  # another line of play
    assert Changes().token("x") is not a.token("x")  # unrelated states never share a token


def test_spec_rejects_bad_declarations():
    spec = ObservationSpec()
    spec.add("a", (2, 3))
    spec.add("b", 4)
    with pytest.raises(ValueError, match="duplicate"):
        spec.add("a", 1)
    with pytest.raises(ValueError, match="adjacent"):
        spec.stack("ab", ["a", "b"])
    assert spec.layout == {"a": slice(0, 6), "b": slice(6, 10)}
    assert "| `a` | 2 x 3 | 0:6 | [0, 1] |" in spec.markdown()


@pytest.mark.parametrize("name", ["kerala", "hawaii", "asara", "haus_der_sonne"])
def test_seat_declarations(name):
    """Seat arrays hold a row per seat (observer first, padded past the player count); the declared
    presence reads 1 on the rows of seats that play and 0 on padding; cell actions name a board's cells."""
    cls = game_class(name)
    for n in range(cls.min_players, cls.max_players + 1):
        game = make_game(name, n)
        spec = game.observation_spec
        seats = spec.seat_names()
        assert seats, name
        rows = {spec.structure()[s][0][0] for s in seats}
        assert len(rows) == 1 and rows.pop() >= n
        state, _ = _random_state(game, 7 + n, 30)
        for p in range(n):
            views = spec.views(state.observe(p))
            if spec.seat_presence is None:
                assert views[seats[0]].shape[0] == n
                continue
            array, start, stop = spec.seat_presence
            present = views[array].reshape(views[array].shape[0], -1)[:, start:stop].sum(axis=1)
            assert np.array_equal(present, (np.arange(len(present)) < n).astype(np.float32)), (n, p)
        for cells in spec.cell_actions:
            assert cells.validate(spec, game.num_actions) == int(np.prod(spec.structure()[cells.board][0][-2:]))


def test_kerala_cell_actions_name_legal_cells():
    """Every legal cell action of a Kerala position is a cell the observer's legal-cells plane marks."""
    game = make_game("kerala", 3)
    spec = game.observation_spec
    runs = {c.name: c for c in spec.cell_actions}
    seen = 0
    state, rng = _random_state(game, 3, 0)
    while not state.is_terminal():
        legal = state.legal_actions()
        views = spec.views(state.observe(state.current_player))
        plane = views["platforms"][0][20].reshape(-1)
        for run in runs.values():
            cells = [a - run.start for a in legal if run.start <= a < run.start + plane.size]
            seen += len(cells)
            assert all(plane[c] > 0 for c in cells), run.name
        state.apply(legal[int(rng.integers(len(legal)))])
    assert seen > 0


@pytest.mark.parametrize("options", [{}, {"derived_features": True}])
def test_kerala_platform_support_planes_cover_every_value(options):
    """A platform's declared support planes (occupied, legal) are non-zero wherever any plane is."""
    for n in (2, 4):
        game = make_game("kerala", n, **options)
        support = list(game.observation_spec.blocks["platform_0"].support)
        state, rng = _random_state(game, 5 + n, 0)
        step = 0
        while not state.is_terminal():
            if step % 5 == 0:
                for p in range(n):
                    platforms = game.observation_spec.views(state.observe(p))["platforms"]
                    anything = (platforms != 0).any(axis=1)
                    assert np.array_equal(anything, (platforms[:, support] != 0).any(axis=1)), (n, step, p)
            legal = state.legal_actions()
            state.apply(legal[int(rng.integers(len(legal)))])
            step += 1
