"""The conformance suite every meeplezoo game owes the protocol, as PettingZoo's ``api_test``:

    from meeplezoo.testing import check_game
    check_game("kerala")                          # a registered game, every player count
    check_game(MyGame, configs=[{"num_players": 3, "variant": "x"}], invariants=my_conservation_check)

``game`` is a registry id, an entry module (``env``, ``raw_env``), a Game subclass (registered or not) or
a Game object (then only its own configuration).  Each check raises ``AssertionError`` naming the game,
the configuration and what broke; ``check_game`` returns the names of the checks it ran.

Checks (``checks=`` selects some, by name):

* ``api``: PettingZoo's ``api_test`` on ``env()``;
* ``seed``: PettingZoo's ``seed_test`` (same seed, same game) and ``render_test``;
* ``random_games``: random games keep the protocol: a mask of the right shape that is never empty
  before the end and empty after, read-only (the ``State.legal_mask`` contract), the acting player's
  observation float32 of ``observation_shape``,
  finite and within the declared observation space, unique action names, zero-sum ``win`` and ``rank``
  returns, and the game's invariants (``state.check_invariants() -> list[str]`` if the State has it,
  and ``invariants(state)`` if given) after every decision;
* ``json``: ``from_json(to_json())`` gives the same position, whose future (legal actions, scores,
  JSON) is identical to the original's and to a clone's under the same actions;
* ``clone``: playing a clone to the end leaves the original unchanged;
* ``errors``: an illegal action raises ``IllegalActionError`` and changes nothing; truncated or
  tampered JSON raises ``CorruptStateError``;
* ``determinize``: a determinization keeps the observer's observation (and mask, when they are to
  move); and it depends only on what the observer sees: two states that differ only in what the
  observer cannot see (the second made by determinizing the first) determinize alike for the same rng;
* ``gym``: the single-agent wrapper passes Gymnasium's environment checker;
* ``schema``: the state declares its fields (``State.schema``); a saved field replaced by a value of
  the wrong type, or a missing one, is refused with a ``CorruptStateError`` that names the field;
  ``from_position`` refuses an unknown field name.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from types import ModuleType
from typing import Any

import numpy as np

from meeplezoo import registry
from meeplezoo.agents.base import RandomAgent
from meeplezoo.envs.core.aec import MeeplezooAECEnv, classic_env, env_metadata
from meeplezoo.envs.core.game import CorruptStateError, Game, IllegalActionError, State
from meeplezoo.envs.core.gym import SingleAgentEnv

CHECKS = ("api", "seed", "random_games", "json", "clone", "errors", "determinize", "gym", "schema")

__all__ = ["CHECKS", "check_game", "random_game"]


def _resolve(game: Any) -> tuple[type[Game], Callable[..., Any], list[dict[str, Any]] | None]:
    """(Game class, env(**kwargs) factory, the configuration of a Game object or None)."""
    own_config = None
    if isinstance(game, Game):
        own_config = dict(game.config)
        game = type(game)
    if isinstance(game, str):
        game = registry.env_module(game)
    if isinstance(game, ModuleType):
        return game.raw_env.game_cls, game.env, own_config
    if isinstance(game, type) and issubclass(game, Game):
        info = registry.GAMES.get(getattr(game, "name", ""))
        if info is not None:
            mod = registry.env_module(info.name)
            if mod.raw_env.game_cls is game:
                return game, mod.env, own_config
        raw = type("raw_env", (MeeplezooAECEnv,), {"game_cls": game, "metadata": env_metadata(game)})
        return game, lambda **kw: classic_env(raw, **kw), own_config
    raise TypeError(f"check_game needs a game id, entry module, Game class or Game, got {game!r}")


def random_game(game: Game, seed: int) -> Iterator[tuple[State, int | None]]:
    """Play a uniformly random game, yielding ``(state, action)`` before each action, then ``(state, None)``."""
    rng = random.Random(seed)
    state = game.new_state(seed)
    while not state.is_terminal():
        legal = state.legal_actions()
        a = legal[rng.randrange(len(legal))]
        yield state, a
        state.apply(a)
    yield state, None


def _label(cls: type[Game], config: dict[str, Any]) -> str:
    return f"{cls.name} {config}"


def _check_random_games(game: Game, env_fn: Callable[..., Any], seeds: Sequence[int],
                        invariants: Callable[[State], Iterable[str]] | None, where: str) -> None:
    env = env_fn(**game.config)
    space = env.observation_space(env.possible_agents[0])["observation"]
    env.close()
    low, high = np.broadcast_to(space.low, game.observation_shape), np.broadcast_to(space.high, game.observation_shape)
    n = game.num_players

    def broken(state: State) -> list[str]:
        errors = list(state.check_invariants()) if hasattr(state, "check_invariants") else []
        if invariants is not None:
            errors += list(invariants(state))
        return errors

    for seed in seeds:
        for state, a in random_game(game, seed):
            errors = broken(state)
            assert not errors, f"{where}, seed {seed}: invariants broken: {errors}"
            if a is None:
                break
            mask = state.legal_mask()
            assert mask.dtype == bool and mask.shape == (game.num_actions,), f"{where}: bad mask {mask.dtype}"
            assert not mask.flags.writeable, f"{where}: legal_mask() must be read-only (the State.legal_mask contract)"
            assert mask.any(), f"{where}, seed {seed}: empty mask before the end"
            obs = state.observe(state.current_player)
            assert obs.dtype == np.float32 and obs.shape == game.observation_shape, (
                f"{where}: observation {obs.dtype}{obs.shape}, expected float32{game.observation_shape}")
            assert np.isfinite(obs).all(), f"{where}, seed {seed}: observation not finite"
            out = np.flatnonzero((obs < low - 1e-6) | (obs > high + 1e-6))
            if out.size:
                names = [k for k, s in game.observation_layout.items() if s.start <= out[0] < s.stop]
                raise AssertionError(f"{where}, seed {seed}: observation[{out[0]}] = {obs[out[0]]} outside "
                                     f"[{low[out[0]]}, {high[out[0]]}] (block {names})")
        assert state.is_terminal() and state.current_player == -1, f"{where}: terminal state has a player to move"
        assert not state.legal_mask().any(), f"{where}: terminal state has legal actions"
        win = state.returns("win")
        assert len(win) == n and abs(float(win.sum())) < 1e-9, f"{where}: 'win' returns {win} do not sum to 0"
        rank = state.returns("rank")
        assert abs(float(rank.sum())) < 1e-9, f"{where}: 'rank' returns {rank} do not sum to 0"
    names = [game.new_state(0).action_name(a) for a in range(game.num_actions)]
    assert len(set(names)) == len(names), f"{where}: action names are not unique"


def _check_json(game: Game, seeds: Sequence[int], where: str) -> None:
    st_cls = game.state_class
    for seed in seeds:
        states = [s.clone() for s, _ in random_game(game, seed)]
        for state in states[:: max(1, len(states) // 8)]:
            copy = st_cls.from_json(state.to_json())
            clone = state.clone()
            assert copy.to_json() == state.to_json(), f"{where}, seed {seed}: JSON round trip changes the state"
            rng = random.Random(seed)
            while not state.is_terminal():
                legal = state.legal_actions()
                assert copy.legal_actions() == legal == clone.legal_actions(), (
                    f"{where}, seed {seed}: a JSON copy or clone has other legal actions")
                a = legal[rng.randrange(len(legal))]
                state.apply(a)
                copy.apply(a)
                clone.apply(a)
            assert copy.scores() == state.scores() == clone.scores(), f"{where}: a copy's future differs"
            assert copy.to_json() == state.to_json(), f"{where}, seed {seed}: a JSON copy's future differs"


def _check_clone(game: Game, where: str) -> None:
    state = game.new_state(5)
    for _ in range(5):
        if state.is_terminal():
            break
        state.apply(state.legal_actions()[0])
    before = state.to_json()
    clone = state.clone()
    while not clone.is_terminal():
        clone.apply(clone.legal_actions()[-1])
    assert state.to_json() == before, f"{where}: playing a clone changed the original"


def _check_errors(game: Game, where: str) -> None:
    state = game.new_state(3)
    before = state.to_json()
    mask = state.legal_mask()
    illegal = int(np.flatnonzero(~mask)[0]) if (~mask).any() else game.num_actions
    for bad in (illegal, -1):
        try:
            state.apply(bad)
        except IllegalActionError:
            pass
        else:
            raise AssertionError(f"{where}: illegal action {bad} did not raise IllegalActionError")
        assert state.to_json() == before, f"{where}: illegal action {bad} changed the state"
    text = state.to_json()
    for broken in (text[: len(text) // 3], text.replace('"state":{', '"state":{"x":', 1)[:-5], "[]"):
        try:
            type(state).from_json(broken)
        except CorruptStateError:
            continue
        raise AssertionError(f"{where}: corrupt JSON {broken[:40]!r}... did not raise CorruptStateError")


def _check_determinize(game: Game, seeds: Sequence[int], consistency: bool, where: str) -> None:
    rng = random.Random(7)
    n = game.num_players
    for seed in seeds:
        for step, (state, a) in enumerate(random_game(game, seed)):
            if a is None:
                break
            if step % 3:
                continue
            for p in range(n):
                k = rng.randrange(2**32)
                d = state.determinize(p, k)
                assert np.array_equal(d.observe(p), state.observe(p)), (
                    f"{where}, seed {seed}, step {step}: determinize({p}) changes player {p}'s observation")
                assert d.current_player == state.current_player, f"{where}: determinize changes the player to move"
                if p == state.current_player:
                    assert np.array_equal(d.legal_mask(), state.legal_mask()), (
                        f"{where}, seed {seed}, step {step}: determinize changes the mover's legal actions")
                if consistency:
                    # `d` differs from `state` only in what p cannot see: p's determinizations must not tell them apart
                    k2 = rng.randrange(2**32)
                    assert state.determinize(p, k2).to_json() == d.determinize(p, k2).to_json(), (
                        f"{where}, seed {seed}, step {step}: player {p}'s determinization depends on what "
                        f"they cannot see")


def _check_gym(game: Game, where: str) -> None:
    from gymnasium.utils.env_checker import check_env

    env = SingleAgentEnv(game, [RandomAgent(seed=0)], seed=0)
    check_env(env, skip_render_check=True)


def _check_schema(game: Game, where: str) -> None:
    import json

    st_cls = game.state_class
    schema = st_cls.schema
    assert schema is not None, f"{where}: {st_cls.__name__} declares no schema (State.schema)"
    states = [s.clone() for s, _ in random_game(game, 11)]
    doc = json.loads(states[len(states) // 2].to_json())
    assert set(doc["state"]) == schema.saved_names, f"{where}: saved keys differ from the schema's fields"

    def refused(edit: Callable[[dict[str, Any]], None], name: str, what: str) -> None:
        broken = json.loads(json.dumps(doc))
        edit(broken["state"])
        try:
            st_cls.from_json(json.dumps(broken))
        except CorruptStateError as e:
            assert name in str(e), f"{where}: the error for {what} does not name {name!r}: {e}"
        else:
            raise AssertionError(f"{where}: {what} was accepted on load")

    for name in sorted(schema.saved_names):
        for bad in ("not a value", None):
            refused(lambda d, name=name, bad=bad: d.__setitem__(name, bad), name, f"{name} = {bad!r}")
        refused(lambda d, name=name: d.pop(name), name, f"a save without {name}")
    try:
        st_cls.from_position(game, 0, no_such_field_xyz=1)
    except ValueError as e:
        assert "no_such_field_xyz" in str(e), f"{where}: from_position's error does not name the field: {e}"
    else:
        raise AssertionError(f"{where}: from_position accepted an unknown field")


def check_game(game: Any, configs: Sequence[dict[str, Any]] | None = None, *, checks: Iterable[str] | None = None,
               num_games: int = 2, api_cycles: int = 200, invariants: Callable[[State], Iterable[str]] | None = None,
               determinize_consistency: bool = True) -> list[str]:
    """Run the conformance checks on ``game`` for each configuration (Game keyword arguments; default
    every player count with default options).  Returns the checks run; raises AssertionError on the first
    failure.  ``determinize_consistency=False`` skips the part of ``determinize`` that needs the
    resampling to depend only on the observer's view (games that sample hidden state from the true one)."""
    from pettingzoo.test import api_test, render_test, seed_test

    cls, env_fn, own = _resolve(game)
    selected = list(CHECKS if checks is None else checks)
    unknown = [c for c in selected if c not in CHECKS]
    if unknown:
        raise ValueError(f"unknown checks {unknown}; available: {', '.join(CHECKS)}")
    if configs is None:
        configs = [own] if own is not None else [{"num_players": n}
                                                  for n in range(cls.min_players, cls.max_players + 1)]
    seeds = range(num_games)
    for config in configs:
        g = cls(**config)
        where = _label(cls, g.config)
        if "api" in selected:
            api_test(env_fn(**g.config), num_cycles=api_cycles)
        if "seed" in selected:
            cfg = g.config
            seed_test(lambda cfg=cfg, **kw: env_fn(**cfg, **kw), num_cycles=min(api_cycles, 80))
            render_test(lambda render_mode=None, cfg=cfg: env_fn(**cfg, render_mode=render_mode))
        if "random_games" in selected:
            _check_random_games(g, env_fn, seeds, invariants, where)
        if "json" in selected:
            _check_json(g, seeds, where)
        if "clone" in selected:
            _check_clone(g, where)
        if "errors" in selected:
            _check_errors(g, where)
        if "determinize" in selected:
            _check_determinize(g, seeds, determinize_consistency, where)
        if "gym" in selected:
            _check_gym(g, where)
        if "schema" in selected:
            _check_schema(g, where)
    return selected
