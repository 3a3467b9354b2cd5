"""Models trained outside meeplezoo: a MaskablePPO zip from PettingZoo's SB3 action-mask tutorial
plays as ``sb3:PATH`` in arenas and ``evaluate``; arenas hand agents writable masks."""

from __future__ import annotations

import subprocess
import sys
import warnings

import gymnasium
import numpy as np
import pettingzoo.utils
import pytest

import meeplezoo
from meeplezoo.agents import make as make_agent
from meeplezoo.agents.base import Agent
from meeplezoo.cli import main
from meeplezoo.training.arena import run_arena

pytest.importorskip("sb3_contrib")


class SB3ActionMaskWrapper(pettingzoo.utils.BaseWrapper, gymnasium.Env):
    """PettingZoo's SB3 action-mask tutorial wrapper (gymnasium.Env added, as Gymnasium 1.x's
    wrappers require)."""

    def reset(self, seed=None, options=None):
        super().reset(seed, options)
        self.observation_space = super().observation_space(self.possible_agents[0])["observation"]
        self.action_space = super().action_space(self.possible_agents[0])
        return self.observe(self.agent_selection), {}

    def step(self, action):
        current_agent = self.agent_selection
        super().step(action)
        next_agent = self.agent_selection
        return (self.observe(next_agent), self._cumulative_rewards[current_agent],
                self.terminations[current_agent], self.truncations[current_agent], self.infos[current_agent])

    def observe(self, agent):
        return super().observe(agent)["observation"]

    def action_mask(self):
        return super().observe(self.agent_selection)["action_mask"]


@pytest.fixture(scope="module")
def tutorial_zip(tmp_path_factory):
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from sb3_contrib.common.wrappers import ActionMasker

    from meeplezoo.envs import haus_der_sonne_v0

    env = SB3ActionMaskWrapper(haus_der_sonne_v0.env())
    env.reset(seed=0)
    env = ActionMasker(env, lambda e: e.action_mask())
    model = MaskablePPO(MaskableActorCriticPolicy, env, n_steps=64, batch_size=32, n_epochs=1, verbose=0)
    model.set_random_seed(0)
    model.learn(total_timesteps=64)
    path = tmp_path_factory.mktemp("sb3") / "hds_tutorial.zip"
    model.save(path)
    return path


def test_tutorial_checkpoint_plays_in_an_arena_without_warnings(tutorial_zip):
    game = meeplezoo.make_game("haus_der_sonne")
    agent = make_agent(f"sb3:{tutorial_zip}", "haus_der_sonne", seed=0)
    assert agent.algo == "MaskablePPO" and agent.name == f"sb3:{tutorial_zip}"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # torch's "non-writable array" warning among them
        stats, results = run_arena(game, [agent, make_agent("random", seed=1)], 2, seed=0)
    assert stats[agent.name].games == 2 and all(r.actions for r in results)


def test_evaluate_accepts_sb3_spec_with_progress_bar(tutorial_zip, capsys):
    assert main(["evaluate", f"sb3:{tutorial_zip}", "--game", "haus_der_sonne", "--games", "2",
                 "--against", "random"]) == 0
    out, err = capsys.readouterr()
    assert "64 training steps" in out and "random" in out.splitlines()[-1]
    assert "against random" in err and "2/2" in err  # the progress bar


def test_space_mismatch_and_ppo_spec_errors_are_clear(tutorial_zip):
    with pytest.raises(ValueError, match=r"observation space .* does not fit Kerala"):
        make_agent(f"sb3:{tutorial_zip}", "kerala")
    with pytest.raises(ValueError, match=f"plays as sb3:{tutorial_zip}"):
        make_agent(f"ppo:{tutorial_zip}", "haus_der_sonne")
    with pytest.raises(ValueError, match="say which game"):
        make_agent(f"sb3:{tutorial_zip}", None)


def test_importing_the_sb3_agent_does_not_import_torch():
    code = "import sys, meeplezoo.agents.sb3, meeplezoo.agents; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


class _MaskChecker(Agent):
    uses_observation = False

    def act(self, observation, action_mask, *, state=None):
        assert action_mask.flags.writeable
        action_mask[:] = False  # must not reach the engine's own mask
        return int(np.flatnonzero(state.legal_mask())[0])

    uses_state = True


def test_arena_masks_are_writable_and_private():
    game = meeplezoo.make_game("kerala")  # its engine hands out a cached read-only mask
    stats, _ = run_arena(game, [_MaskChecker(), make_agent("random", seed=0)], 1)
    assert sum(s.games for s in stats.values()) == 2
