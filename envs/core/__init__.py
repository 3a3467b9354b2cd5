"""Game-independent machinery: the engine protocol, the PettingZoo adapter, the Gymnasium wrapper."""

from .game import REWARD_MODES, CorruptStateError, Game, IllegalActionError, Layout, Option, State, compute_returns
from .rng import Rng, as_rng, check_seed

__all__ = [
    "REWARD_MODES",
    "CorruptStateError",
    "Game",
    "IllegalActionError",
    "Layout",
    "Option",
    "Rng",
    "State",
    "as_rng",
    "check_seed",
    "compute_returns",
]
