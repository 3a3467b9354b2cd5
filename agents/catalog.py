"""The built-in agent kinds, registered with their factories and settings tables.

=============  ==========================================================  =====================================
spec           agent                                                       settings
=============  ==========================================================  =====================================
``random``     :class:`~meeplezoo.agents.base.RandomAgent`                 none
``heuristic``  the game's heuristic (``GameInfo.heuristic``)               its class's ``knobs``
``mcts``       :class:`~meeplezoo.agents.mcts.MCTSAgent`                   :data:`MCTS_SPEC_KNOBS`
``net``        :class:`~meeplezoo.agents.network.NetworkAgent`             :data:`~meeplezoo.agents.network.NET_KNOBS`
``netmcts``    :func:`~meeplezoo.agents.network.network_search`            ``NETWORK_SEARCH_KNOBS``
``pretrained`` :func:`~meeplezoo.agents.pretrained.make_pretrained`        ``PRETRAINED_KNOBS``
``ppo``        :class:`~meeplezoo.agents.ppo.PPOAgent`                     ``PPO_KNOBS`` (+ rule options)
``sb3``        :class:`~meeplezoo.agents.sb3.SB3Agent` (torch, SB3)        ``SB3_KNOBS`` (+ rule options)
``human``      :class:`~meeplezoo.agents.human.HumanAgent`                 none
=============  ==========================================================  =====================================
"""

from __future__ import annotations

from typing import Any

from meeplezoo.knobs import Knob, Knobs
from meeplezoo.registry import GAMES

from .base import Agent, RandomAgent
from .external import KNOBS as EXTERNAL_KNOBS
from .external import ExternalAgent
from .human import HumanAgent
from .mcts import MCTSAgent
from .network import NET_KNOBS, load_agent, network_search
from .ppo import PPO_KNOBS, PPOAgent
from .pretrained import PRETRAINED_KNOBS, make_pretrained
from .registry import HEURISTICS, load_object, register
from .sb3 import SB3_KNOBS, make_sb3
from .search import NETWORK_SEARCH_KNOBS

#: the ``mcts`` spec's options: the search's knobs and which defaults to start from
MCTS_SPEC_KNOBS = MCTSAgent.knobs.extend("mcts", [
    Knob("preset", str, "tuned", "tuned: the game's tuned setting (GameInfo.search_defaults) under the options "
         "given; plain: the search's own defaults", choices=("tuned", "plain"))])
NO_KNOBS = Knobs("agent", [])


def _random(*args: str, game: Any = None, num_players: int | None = None, seed: int | None = None,
            **options: Any) -> Agent:
    if args or options:
        raise ValueError(f"agent 'random' takes no options, got {args or options}")
    return RandomAgent(seed=seed)


def _heuristic_class(game: Any) -> Any:
    if game not in HEURISTICS:
        raise ValueError(f"no heuristic agent for game {game!r}; games with one: {', '.join(HEURISTICS)}")
    return load_object(HEURISTICS[game])


def _heuristic_knobs(game: Any) -> Knobs | None:
    return getattr(_heuristic_class(game), "knobs", None)


def _heuristic(*args: str, game: Any = None, num_players: int | None = None, seed: int | None = None,
               **options: Any) -> Agent:
    return _heuristic_class(game)(*args, seed=seed, **options)


def _mcts(*args: str, game: Any = None, num_players: int | None = None, seed: int | None = None,
          preset: str = "tuned", **options: Any) -> Agent:
    preset = MCTS_SPEC_KNOBS["preset"].validate(preset, "mcts")
    info = GAMES.get(game) if isinstance(game, str) else None
    if preset == "tuned" and info is not None and info.search_defaults:
        tuned = dict(info.search_defaults)
        if args or "sims" in options or "time" in options:  # a budget given is the whole budget
            tuned.pop("sims", None)
            tuned.pop("time", None)
        options = {**tuned, **options}
    return MCTSAgent(*args, game=game, seed=seed, **options)


def _ppo(*args: str, game: Any = None, num_players: int | None = None, seed: int | None = None,
         **options: Any) -> Agent:
    if len(args) != 1:
        raise ValueError("agent 'ppo' needs a checkpoint path: ppo:PATH.zip")
    return PPOAgent.load(args[0], game=game, num_players=num_players, seed=seed, **options)


def _net(*args: str, game: Any = None, num_players: int | None = None, seed: int | None = None,
         **options: Any) -> Agent:
    if len(args) != 1:
        raise ValueError("agent 'net' needs a network checkpoint path: net:PATH.zip")
    return load_agent(args[0], game, num_players, seed=seed, **options)


def _netmcts(*args: str, game: Any = None, num_players: int | None = None, seed: int | None = None,
             **options: Any) -> Agent:
    if len(args) != 1:
        raise ValueError("agent 'netmcts' needs a network checkpoint path: netmcts:PATH.zip[:sims=N|:time=S]")
    return network_search(args[0], game, num_players, seed=seed, **options)


def _pretrained(*args: str, game: Any = None, num_players: int | None = None, seed: int | None = None,
                **options: Any) -> Agent:
    if args:
        raise ValueError(f"agent 'pretrained' takes options only (sims=, time=, search=, sample=, temperature=), "
                         f"got {args}")
    return make_pretrained(game, num_players, seed=seed, **options)


def _human(*args: str, game: Any = None, num_players: int | None = None, seed: int | None = None,
           **options: Any) -> Agent:
    return HumanAgent(*args, **options)


register("random", _random, NO_KNOBS)
register("heuristic", _heuristic, _heuristic_knobs)
register("mcts", _mcts, MCTS_SPEC_KNOBS)
register("ppo", _ppo, PPO_KNOBS, extra="rule options", object_game=True)
register("net", _net, NET_KNOBS, object_game=True)
register("netmcts", _netmcts, NETWORK_SEARCH_KNOBS, object_game=True)
register("pretrained", _pretrained, PRETRAINED_KNOBS, object_game=True)
register("human", _human, NO_KNOBS)
def _external(*args: str, game: Any = None, num_players: int | None = None, seed: int | None = None,
              **options: Any) -> Agent:
    if len(args) != 1:
        raise ValueError("agent 'external' needs the program's path: external:PATH[:timeout=SECONDS]")
    return ExternalAgent(args[0], game=game, num_players=num_players, seed=seed, **options)


register("external", _external, EXTERNAL_KNOBS)
register("sb3", make_sb3, SB3_KNOBS, extra="rule options")  # plain SB3 models (torch imported on load)
