"""RLlib's masked PPO on a meeplezoo game without user code: the observation keys RLlib's
``ActionMaskingTorchRLModule`` reads (``meeplezoo.rllib``), and a couple of PPO iterations (slow)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test

import meeplezoo
from meeplezoo.rllib import ObservationKeys

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "rllib_masked_ppo.py"


def test_observation_keys_rename_observations_and_spaces():
    env = ObservationKeys(meeplezoo.make("kerala", num_players=3))
    env.reset(seed=3)
    agent = env.agent_selection
    obs = env.observe(agent)
    assert set(obs) == {"observations", "action_mask"}
    space = env.observation_space(agent)
    assert set(space.spaces) == {"observations", "action_mask"} and space.contains(obs)
    assert obs["action_mask"].dtype == np.float32 and obs["action_mask"].sum() >= 1
    raw = env.unwrapped.observe(agent)
    assert np.array_equal(obs["observations"], raw["observation"])
    assert np.array_equal(obs["action_mask"], raw["action_mask"].astype(np.float32))
    last = env.last()[0]
    assert set(last) == {"observations", "action_mask"}


def test_observation_keys_pass_pettingzoo_api_test():
    # PettingZoo's test samples actions with the mask, which gymnasium wants as int8: keep it so here
    api_test(ObservationKeys(meeplezoo.make("hawaii", num_players=2), float_mask=False), num_cycles=60)


def test_rllib_pettingzoo_env_gets_the_keys_rllib_reads():
    pytest.importorskip("ray.rllib")
    from meeplezoo.rllib import rllib_env

    env = rllib_env("asara", num_players=2)
    obs, _ = env.reset(seed=1)
    (agent, first), = obs.items()
    assert set(first) == {"observations", "action_mask"}
    assert env.observation_space[agent].contains(first)
    action = int(np.flatnonzero(first["action_mask"])[0])
    obs, rewards, terminated, truncated, _ = env.step({agent: action})
    assert len(obs) == 1 and not terminated["__all__"]


@pytest.mark.slow
def test_masked_ppo_runs_two_iterations_on_kerala():
    pytest.importorskip("ray.rllib")
    pytest.importorskip("torch")
    import ray

    spec = importlib.util.spec_from_file_location("rllib_masked_ppo", EXAMPLE)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        rows = example.train("kerala", 2, 2, batch=128, minibatch=64)
    finally:
        ray.shutdown()
    assert [r["iteration"] for r in rows] == [1, 2]
    assert rows[-1]["env_steps_sampled"] >= 256
    assert all(np.isfinite(r["policy_loss"]) for r in rows)
    assert sum(r["episodes"] for r in rows) >= 1  # whole games were played with masked actions only
