"""PettingZoo conformance of the Asara entry module for every player count, both versions and non-default options."""

import pytest
from pettingzoo.test import api_test, render_test, seed_test

from meeplezoo.envs import asara_v0

CONFIGS = [
    {"num_players": n, "version": v} for n in (2, 3, 4) for v in ("base", "professional")
] + [
    {"num_players": 3, "version": "professional", "bank_auto_highest": False, "spy_auto_cheapest": False,
     "allow_voluntary_higher_plot": True, "build_exact_k": False, "allow_decline_lit_house": True,
     "lit_discard_order": "choose"},
    {"num_players": 2, "allow_pair_in_empty_area": True, "pair_only_if_lacking_suit": True,
     "allow_decline_market": False, "allow_decline_spies": False, "unlimited_coins": False,
     "human_realistic_obs": True, "spy_allow_empty_pile": True, "caliph_holder_may_retake": False},
]


def _id(cfg):
    return "-".join(f"{k}={v}" for k, v in cfg.items())


@pytest.mark.parametrize("cfg", CONFIGS, ids=_id)
def test_api(cfg):
    api_test(asara_v0.env(**cfg), num_cycles=300)


@pytest.mark.parametrize("cfg", CONFIGS, ids=_id)
def test_seed(cfg):
    seed_test(lambda: asara_v0.env(**cfg), num_cycles=100)


@pytest.mark.parametrize("cfg", CONFIGS[:2] + CONFIGS[-2:], ids=_id)
def test_render(cfg):
    render_test(lambda render_mode=None: asara_v0.env(render_mode=render_mode, **cfg))


def test_registry_make():
    import meeplezoo

    env = meeplezoo.make("asara", num_players=4, version="professional")
    env.reset(seed=1)
    assert env.unwrapped.game.num_players == 4
    assert env.unwrapped.game.pro
