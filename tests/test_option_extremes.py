"""Observations stay inside the declared Box under every option's extreme allowed values.

The options are enumerated from each game's ``options_spec``, so a new option is covered
without editing this file: a choice option is tried with each of its choices, a bool with
the value that is not its default, a bounded number at both bounds, and a structured
option (lists, dicts) with the values its spec lists in ``Option.extremes``.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from pettingzoo.test import api_test

import meeplezoo
from meeplezoo.registry import env_module, game_class

# configurations the sweep starts from (variants that switch rule blocks on)
BASES: dict[str, list[dict]] = {
    "asara": [{}, {"version": "professional"}],
    "haus_der_sonne": [{}, {"variant": "tactical"}],
}
RANDOM_PLAY_STEPS = 250


def extreme_values(opt) -> list:
    """The allowed values at the edges of ``opt``'s range (its default excluded)."""
    if opt.choices is not None:
        values = list(opt.choices)
    elif isinstance(opt.default, bool):
        values = [not opt.default]
    elif opt.bounds is not None and any(b is not None for b in opt.bounds):
        values = [type(opt.default)(b) for b in opt.bounds if b is not None]
    else:
        values = list(opt.extremes)
    return [v for v in values if not (v == opt.default and type(v) is type(opt.default))]


def _cases():
    out = []
    for name in meeplezoo.list_envs():
        gc = game_class(name)
        for base in BASES.get(name, [{}]):
            for opt in gc.options_spec:
                if opt.name in base:
                    continue
                for v in extreme_values(opt):
                    label = "-".join(f"{k}={x}" for k, x in base.items())
                    out.append(pytest.param(name, {**base, opt.name: v}, id=f"{name}-{label}-{opt.name}-{v!r}"[:90]))
    return out


def test_every_option_has_extreme_values():
    missing = [f"{name}.{opt.name}" for name in meeplezoo.list_envs() for opt in game_class(name).options_spec
               if not extreme_values(opt) and opt.choices != (opt.default,)]
    assert not missing, f"options without extreme values (declare Option.extremes): {', '.join(missing)}"


def _check_box(obs: np.ndarray, box, what: str) -> None:
    assert obs.shape == box.shape and obs.dtype == box.dtype, what
    if not box.contains(obs):
        bad = np.flatnonzero((obs < box.low) | (obs > box.high))
        raise AssertionError(f"{what}: {len(bad)} values outside the Box, e.g. index {bad[0]} = {obs[bad[0]]}")


@pytest.mark.parametrize("name,options", _cases())
def test_extreme_option_observations_in_box(name, options):
    gc = game_class(name)
    n = gc.max_players
    env = env_module(name).env(num_players=n, **options)
    api_test(env, num_cycles=60)
    raw = env_module(name).raw_env(num_players=n, **options)
    raw.reset(seed=3)
    box = raw.observation_space("player_0")["observation"]
    state = raw.game_state
    rng = random.Random(5)
    for step in range(RANDOM_PLAY_STEPS):
        for p in range(n):
            _check_box(state.observe(p), box, f"{name} {options} step {step} player {p}")
        if state.is_terminal():
            break
        state.apply(rng.choice(state.legal_actions()))
