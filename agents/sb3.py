"""A plain stable-baselines3 / sb3-contrib checkpoint as an Agent: ``sb3:PATH[:algo=NAME][:deterministic=false]``.

For models trained outside ``meeplezoo train``, e.g. by PettingZoo's SB3
action-mask tutorial (``MaskablePPO`` on the ``observation`` part of the
observation dict, ``Discrete(num_actions)`` actions).  The model's observation
and action spaces are checked against the game; a model trained on the whole
observation dict (``MultiInputPolicy``) gets the dict.  Masked algorithms
(``MaskablePPO``) predict with the action mask; any other algorithm's choice is
kept when legal, and otherwise replaced by the legal action its policy prefers.

torch and stable-baselines3 are imported when a checkpoint is loaded, not before.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from meeplezoo.envs.core import Game
from meeplezoo.knobs import Knob, Knobs
from meeplezoo.registry import make_game

from .base import Agent

#: algorithm name -> "module:Class"
ALGORITHMS: dict[str, str] = {
    "MaskablePPO": "sb3_contrib:MaskablePPO",
    "PPO": "stable_baselines3:PPO",
    "A2C": "stable_baselines3:A2C",
    "DQN": "stable_baselines3:DQN",
    "QRDQN": "sb3_contrib:QRDQN",
    "TRPO": "sb3_contrib:TRPO",
    "RecurrentPPO": "sb3_contrib:RecurrentPPO",
}


#: the ``sb3:PATH`` agent's settings (any other spec option is a rule option of the game)
SB3_KNOBS = Knobs("sb3", [
    Knob("algo", str, None, "the algorithm that saved the model (none: read from the file)",
         choices=(*ALGORITHMS, None)),
    Knob("deterministic", bool, True, "play the policy's most probable action (false: sample)"),
])


def guess_algorithm(path: Path) -> str:
    """The algorithm a checkpoint was saved by, read from its ``data`` member's policy class."""
    try:
        with zipfile.ZipFile(path) as zf:
            if "data" not in zf.namelist():
                raise ValueError(f"{path} is not a stable-baselines3 checkpoint (no 'data' member)")
            data = json.loads(zf.read("data"))
    except zipfile.BadZipFile:
        raise ValueError(f"{path} is not a checkpoint (not a zip file)") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: corrupt 'data' member ({e})") from None
    policy = data.get("policy_class", {}) if isinstance(data, dict) else {}
    module = str(policy.get("__module__", "")) if isinstance(policy, dict) else ""
    text = module + " " + str(policy.get(":serialized:", "") if isinstance(policy, dict) else "")
    if "maskable" in module:
        return "MaskablePPO"
    if "recurrent" in module:
        return "RecurrentPPO"
    if "dqn" in module or "QNetwork" in text:
        return "QRDQN" if "qrdqn" in module else "DQN"
    return "PPO"


def _load_class(algo: str) -> type:
    import importlib

    if algo not in ALGORITHMS:
        raise ValueError(f"unknown SB3 algorithm {algo!r}; known: {', '.join(ALGORITHMS)}")
    module, name = ALGORITHMS[algo].split(":")
    return getattr(importlib.import_module(module), name)


def check_spaces(model: Any, game: Any, source: str) -> bool:
    """Whether the model takes the observation dict; ValueError naming the mismatch otherwise."""
    from gymnasium import spaces

    obs_space, act_space = model.observation_space, model.action_space
    want_obs, want_actions = tuple(game.observation_shape), int(game.num_actions)
    where = f"{game.pretty_name} ({game.num_players} players)"
    dict_obs = isinstance(obs_space, spaces.Dict)
    box = obs_space["observation"] if dict_obs and "observation" in obs_space.spaces else obs_space
    if not isinstance(box, spaces.Box) or tuple(box.shape) != want_obs:
        got = getattr(box, "shape", obs_space)
        raise ValueError(
            f"{source}: observation space {got} does not fit {where}: observations have shape {want_obs} "
            "(trained for another game, player count or rule options?)"
        )
    if not isinstance(act_space, spaces.Discrete) or int(act_space.n) != want_actions:
        raise ValueError(f"{source}: action space {act_space} does not fit {where}: Discrete({want_actions})")
    return dict_obs


class SB3Agent(Agent):
    """Plays a stable-baselines3 model (always legally, through the mask)."""

    uses_state = False

    def __init__(self, model: Any, game: Any, *, algo: str, deterministic: bool = True,
                 source: str = "model") -> None:
        self.model = model
        self.game = game
        self.algo = algo
        self.deterministic = bool(deterministic)
        self.dict_obs = check_spaces(model, game, source)
        self.masked = algo == "MaskablePPO"
        self.name = f"sb3:{source}"

    @classmethod
    def load(cls, path: str | Path, game: Any, num_players: int | None = None, *, algo: str | None = None,
             deterministic: bool = True, seed: int | None = None, **rule_options: Any) -> SB3Agent:
        """Load ``path`` for ``game`` (a registry id or a Game); ``algo`` is read from the file by default."""
        path = Path(path)
        if not path.is_file():
            raise ValueError(f"SB3 checkpoint {str(path)!r} does not exist")
        if game is None:
            raise ValueError(f"sb3:{path}: say which game the model plays (e.g. --game kerala)")
        if not isinstance(game, Game):
            game = make_game(game, num_players, **rule_options)
        algo = algo or guess_algorithm(path)
        model = _load_class(algo).load(str(path), device="cpu")
        if seed is not None:
            model.set_random_seed(seed)
        return cls(model, game, algo=algo, deterministic=deterministic, source=str(path))

    def act(self, observation: np.ndarray, action_mask: np.ndarray, *, state: Any = None) -> int:
        mask = np.array(action_mask, dtype=bool)  # a writable copy: torch refuses read-only arrays
        obs: Any = np.asarray(observation, dtype=np.float32)
        if self.dict_obs:
            obs = {"observation": obs, "action_mask": mask.astype(np.int8)}
        if self.masked:
            action, _ = self.model.predict(obs, action_masks=mask, deterministic=self.deterministic)
            return int(action)
        action, _ = self.model.predict(obs, deterministic=self.deterministic)
        a = int(action)
        if 0 <= a < mask.size and mask[a]:
            return a
        return self._best_legal(obs, mask)

    def _best_legal(self, obs: Any, mask: np.ndarray) -> int:
        """The legal action the policy rates highest (action probabilities, or Q-values)."""
        import torch

        policy = self.model.policy
        tensor, _ = policy.obs_to_tensor(obs)
        with torch.no_grad():
            if hasattr(policy, "get_distribution"):
                scores = policy.get_distribution(tensor).distribution.logits[0].cpu().numpy()
            elif hasattr(policy, "q_net"):
                scores = policy.q_net(tensor)[0].cpu().numpy()
                if scores.ndim > 1:  # quantiles
                    scores = scores.mean(axis=0)
            else:
                raise ValueError(f"{self.name}: the model chose an illegal action and has no scores to mask")
        scores = np.where(mask, scores, -np.inf)
        return int(np.argmax(scores))


def make_sb3(*args: str, game: str | None = None, num_players: int | None = None, seed: int | None = None,
             **options: Any) -> Agent:
    """Registry factory: ``sb3:PATH[:algo=MaskablePPO][:deterministic=false]``."""
    if len(args) != 1:
        raise ValueError("agent 'sb3' needs a model path: sb3:PATH.zip")
    return SB3Agent.load(args[0], game, num_players, seed=seed, **options)
