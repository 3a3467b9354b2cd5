"""The settings of a PPO run (``meeplezoo train --algo ppo``, :func:`meeplezoo.training.ppo.train`), declared once.

Kept apart from :mod:`.ppo`, which imports torch and stable-baselines3 when loaded, so that the command
line builds its flags and checks a config without them.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from meeplezoo.agents import make as make_agent
from meeplezoo.envs.core import Game
from meeplezoo.knobs import Knob, knob, parse_value

from .run import TrainerConfig, shared
from .selfplay import parse_weighted_specs

#: the two network families of PPO: one wide MLP layer over the flat vector, or the block network
NETS = ("mlp", "blocks")
#: how the learner's environments run
VECS = ("auto", "subproc", "dummy")
DEFAULT_OPPONENTS = {"random": 1.0, "heuristic": 1.0}
DEFAULT_EVAL_AGAINST = ("random", "heuristic")
#: PPO's defaults for the two knobs whose default depends on the run (``None`` in the config)
ROLLOUT_STEPS, BATCH_SIZE = 2048, 256


def _weights(value: Any) -> dict[str, float] | None:
    return parse_weighted_specs(value) if value is not None else None


def _show_weights(value: Mapping[str, float]) -> str:
    return ",".join(f"{k}:{w:g}" for k, w in value.items())


_WIDTH = Knob("width", int, 64, "a hidden width", low=1)


def _widths(value: Any) -> tuple[int, ...]:
    items = [parse_value(w) for w in value.split(",") if w.strip()] if isinstance(value, str) else \
        [value] if not isinstance(value, (list, tuple)) else list(value)
    if not items:
        raise ValueError(f"must be a non-empty list of positive ints, got {value!r}")
    try:
        return tuple(_WIDTH.validate(w, "net_arch") for w in items)
    except ValueError:
        raise ValueError(f"must be a non-empty list of positive ints, got {value!r}") from None


def _block_widths(value: Any) -> dict[str, int]:
    if isinstance(value, str):
        out: dict[str, Any] = {}
        for part in value.split(","):
            k, sep, v = part.partition("=")
            if not sep or not k.strip():
                raise ValueError(f"expects KEY=INT,..., got {value!r}")
            try:
                out[k.strip()] = int(v)
            except ValueError:
                raise ValueError(f"expects KEY=INT,..., got {value!r}") from None
        return out
    if not isinstance(value, Mapping):
        raise ValueError(f"must be a mapping of block network widths, got {value!r}")
    return dict(value)


@dataclass(frozen=True)
class PPOConfig(TrainerConfig, algo="ppo"):
    """What a PPO run trains against and how (``config.json`` of a PPO run holds it, its defaults resolved)."""

    opponents: dict[str, float] | None = knob(
        None, "weighted opponent specs, e.g. random:1,heuristic:2,mcts:sims=50:1 (the weight is the last ':' part "
        "when it is a number; default random:1,heuristic:1)", type=object, check=_weights, show=_show_weights,
        metavar="SPEC:W,...")
    timesteps: int = knob(20_000, "learner decisions to train for", low=1)
    self_play: bool = knob(False, "add frozen snapshots of the learner to the opponents")
    self_play_weight: float | None = knob(None, "total weight of the snapshots (default: the fixed opponents' "
                                          "total)", type=float, low=0)
    keep_last: int = knob(5, "snapshots kept in the pool (plus the best)", low=1)
    snapshot_freq: int | None = knob(None, "steps between snapshots (default: the evaluation frequency)", type=int,
                                     low=1)
    eval_against: tuple[str, ...] | None = shared("eval_against", None, doc="comma-separated evaluation opponents "
                                                  "(default random and, where the game has one, heuristic)")
    eval_games: int = shared("eval_games", 50, doc="games per opponent at each evaluation (0: off)")
    eval_freq: int | None = knob(None, "steps between evaluations (default: timesteps/5)", type=int, low=1)
    eval_interval_s: float | None = knob(None, "evaluate by the clock instead, every this many seconds (useful "
                                         "with --time-limit)", type=float, low=0, low_open=True,
                                         flag="--eval-every-seconds", metavar="S")
    final_eval_games: int = knob(100, "games per opponent to evaluate best.zip at the end (0: none)", low=0)
    seed: int = shared("seed")
    n_envs: int = knob(2, "parallel environments", low=1)
    vec: str = knob("auto", "SubprocVecEnv or DummyVecEnv (auto: subproc when there are 2+ cores and envs)",
                    choices=VECS)
    net: str = knob("mlp", "PPO network: mlp (--net-arch over the flat vector) or blocks (the block network: "
                    "convolutions over board blocks, as the expert-iteration networks)", choices=NETS)
    net_arch: tuple[int, ...] | None = knob(None, "hidden widths: the first shared by actor and critic, the rest "
                                            "each's own (default: sized to the observation)", type=object,
                                            check=_widths, show=lambda v: ",".join(map(str, v)), metavar="W,W")
    activation: str = knob("tanh", "activation of the MLP", choices=("tanh", "relu"))
    blocks: dict[str, int] | None = knob(None, "--net blocks: its widths, e.g. channels=16,conv_layers=1,"
                                         "board_channels=2,trunk_hidden=256", type=object, check=_block_widths,
                                         show=lambda v: ",".join(f"{k}={w}" for k, w in v.items()),
                                         metavar="KEY=N,...")
    reward_mode: str = knob("win", "the learner's reward", choices=("win", "rank", "score"))
    learning_rate: float = shared("lr", 3e-4, flag="--lr")
    rollout_steps: int | None = knob(None, f"transitions per update, all envs (default {ROLLOUT_STEPS}; a shorter "
                                     "run is one rollout of its own size)", type=int, low=1)
    batch_size: int | None = shared("batch_size", None, type=int, optional=True,
                                    doc=f"minibatch size (default {BATCH_SIZE}, at most a short run's timesteps)")
    n_epochs: int = knob(4, "PPO epochs per update (CleanRL's choice; SB3's 10 doubles the update time on big "
                         "boards for little gain)", low=1)
    gamma: float = knob(0.995, "discount (near 1: the reward comes at the end of the game)", low=0, high=1,
                        low_open=True)
    gae_lambda: float = knob(0.95, "GAE's lambda", low=0, high=1)
    clip_range: float = knob(0.2, "PPO's ratio clip", low=0, low_open=True)
    ent_coef: float = knob(0.01, "entropy bonus (some, against early collapse)", low=0)
    vf_coef: float = knob(0.5, "weight of the value loss", low=0)
    max_grad_norm: float = knob(0.5, "gradient norm clip", low=0, low_open=True)

    def check(self) -> None:
        if self.net == "blocks" and self.net_arch is not None:
            raise ValueError("ppo: net_arch applies to net='mlp'; the block network's widths are set by blocks=")
        if self.net != "blocks" and self.blocks:
            raise ValueError("ppo: blocks= applies to net='blocks'")


#: the hyperparameters handed to MaskablePPO (the config's knobs of the same names)
SB3_KNOBS = ("learning_rate", "batch_size", "n_epochs", "gamma", "gae_lambda", "clip_range", "ent_coef", "vf_coef",
             "max_grad_norm")


def heuristic_available(game: Game) -> bool:
    """Whether ``heuristic`` builds for this game (engines and heuristics land separately)."""
    try:
        make_agent("heuristic", game.name, num_players=game.num_players, seed=0)
    except (ImportError, ValueError, AttributeError):
        return False
    return True


def default_opponents(game: Game) -> dict[str, float]:
    """random:1, heuristic:1 (random alone, with a warning, where the heuristic is missing)."""
    if heuristic_available(game):
        return dict(DEFAULT_OPPONENTS)
    warnings.warn(f"{game.name}: no heuristic agent available; training against random only", stacklevel=3)
    return {"random": 1.0}


def default_eval_against(game: Game) -> list[str]:
    return [a for a in DEFAULT_EVAL_AGAINST if a != "heuristic" or heuristic_available(game)]
