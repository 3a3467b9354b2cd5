"""Expert iteration's games: self-play of the expert (one game, or many in lockstep) and the warm-start
teacher's games, each turned into samples (observation, legal mask, policy target, value target).

Numpy only (the self-play workers run it); :mod:`.exit` holds the config, the workers' jobs and the trainer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from meeplezoo.agents import make as make_agent
from meeplezoo.agents.mcts import HeuristicPrior
from meeplezoo.agents.network import PolicyValueNet, network_search, seats_to_egocentric
from meeplezoo.agents.search import Steps, drive, lockstep

from . import samples
from .exit_config import OPPONENT_KINDS, ExItConfig


def _seat_kinds(cfg: ExItConfig, rng: np.random.Generator, n: int, have_snapshots: bool) -> list[str]:
    kinds = [k for k in OPPONENT_KINDS if cfg.opponents.get(k, 0) > 0 and (k != "snapshot" or have_snapshots)]
    if not kinds:
        kinds = ["self"]
    w = np.array([cfg.opponents.get(k, 0.0) for k in kinds], dtype=np.float64)
    w /= w.sum()
    expert = int(rng.integers(n))
    return ["expert" if i == expert else str(kinds[rng.choice(len(kinds), p=w)]) for i in range(n)]


def _search(net: PolicyValueNet, cfg: ExItConfig, seed: int, sims: int | None = None) -> Any:
    return network_search(net, seed=seed, sims=cfg.sims if sims is None else sims, batch=cfg.batch, c=cfg.c,
                          fpu=cfg.fpu, reward_mode=cfg.reward_mode, leaf=cfg.leaf, **cfg.search_options)


def play_game(cfg: ExItConfig, net: PolicyValueNet, snapshots: Sequence[PolicyValueNet], seed: int,
              game: Any = None) -> dict[str, np.ndarray]:
    """One self-play game on ``seed``: the samples of its expert decisions (arrays of equal length)."""
    return drive(game_steps(cfg, net, snapshots, seed, game))


def play_games(cfg: ExItConfig, net: PolicyValueNet, snapshots: Sequence[PolicyValueNet], seeds: Sequence[int],
               game: Any = None) -> list[dict[str, np.ndarray]]:
    """The self-play games on ``seeds``, ``cfg.games_at_once`` at a time in lockstep: the samples of each,
    in seed order (each game's are what :func:`play_game` gives)."""
    game = game if game is not None else cfg.make_game()
    return lockstep((game_steps(cfg, net, snapshots, int(s), game) for s in seeds), cfg.games_at_once)


def game_steps(cfg: ExItConfig, net: PolicyValueNet, snapshots: Sequence[PolicyValueNet], seed: int,
               game: Any = None) -> Steps:
    """:func:`play_game` as resumable steps (the searches' evaluator requests; see
    :func:`~meeplezoo.agents.search.lockstep`), returning the game's samples."""
    game = game if game is not None else cfg.make_game()
    n = game.num_players
    rng = np.random.default_rng(seed)
    kinds = _seat_kinds(cfg, rng, n, bool(snapshots))
    full = cfg.full_search_fraction
    capped = full < 1
    agents: list[Any] = []
    fast: list[Any] = [None] * n  # under the playout cap: the searching seats' cheaper search
    for i, kind in enumerate(kinds):
        s = int(rng.integers(2**31))
        if kind in ("expert", "self"):
            agents.append(_search(net, cfg, s))
            if capped:
                fast[i] = _search(net, cfg, s + 1, sims=cfg.fast_sims)
                fast[i].reset(s + 1)
        elif kind == "snapshot":
            agents.append(_search(snapshots[int(rng.integers(len(snapshots)))], cfg, s,
                                  sims=cfg.fast_sims if capped else None))
        else:
            agents.append(make_agent("heuristic", game.name, num_players=n, seed=s))
        agents[i].reset(s)
    state = game.new_state(int(rng.integers(2**31)))
    obs, masks, pis, players = [], [], [], []
    moves = [0] * n
    while not state.is_terminal():
        p = state.current_player
        mask = state.legal_mask()
        agent = agents[p]
        if kinds[p] in ("expert", "self") and int(mask.sum()) > 1:
            keep = not capped or rng.random() < full  # no draw without the cap: its runs are as before
            result = yield from (agent if keep else fast[p]).search_steps(state)
            pi = result.extra["improved_policy"] if cfg.policy_target == "improved" else result.policy(1.0)
            if moves[p] < cfg.explore_moves:
                a = int(rng.choice(len(pi), p=pi))
            else:
                a = result.action
            moves[p] += 1
            if keep:
                obs.append(state.observe(p).astype(np.float16))
                masks.append(np.array(mask, dtype=bool))
                pis.append(pi.astype(np.float16))
                players.append(p)
        elif kinds[p] in ("expert", "self"):
            a = int(np.flatnonzero(mask)[0])
        elif hasattr(agent, "search_steps"):  # a snapshot's search, as its act() would run it
            a = (yield from agent.search_steps(state, observation=state.observe(p), action_mask=mask)).action
        else:
            a = int(agent.act(state.observe(p) if getattr(agent, "uses_observation", True) else None, mask,
                              state=state if agent.uses_state else None))
        state.apply(a)
    returns = state.returns(cfg.reward_mode)
    z = np.array([seats_to_egocentric(returns, p) for p in players], dtype=np.float32).reshape(len(players), n)
    return _pack(obs, masks, pis, z, game)


def imitation_game(cfg: ExItConfig, seed: int, game: Any = None) -> dict[str, np.ndarray]:
    """One game of the warm-start teacher against itself (every seat), its choices as policy targets:
    the heuristic's move and action scores, or a search's visit counts (``warm_start_teacher``)."""
    game = game if game is not None else cfg.make_game()
    n = game.num_players
    rng = np.random.default_rng(seed)
    teacher = cfg.warm_start_teacher
    agents = [make_agent(teacher, game.name, num_players=n, seed=int(rng.integers(2**31))) for _ in range(n)]
    searching = teacher != "heuristic"
    priors = None if searching else [HeuristicPrior(a) for a in agents]
    state = game.new_state(int(rng.integers(2**31)))
    obs, masks, pis, players = [], [], [], []
    while not state.is_terminal():
        p = state.current_player
        mask = state.legal_mask()
        if int(mask.sum()) > 1:
            if searching:
                result = agents[p].search(state)
                a, target = result.action, result.policy(1.0)
            else:
                pi = priors[p].evaluate([state])[0][0]
                a = int(agents[p].act(state.observe(p), mask, state=state))
                target = np.zeros(len(mask))
                target[a] = 0.5
                target += 0.5 * pi
            obs.append(state.observe(p).astype(np.float16))
            masks.append(np.array(mask, dtype=bool))
            pis.append(target.astype(np.float16))
            players.append(p)
        else:
            a = int(np.flatnonzero(mask)[0])
        state.apply(a)
    returns = state.returns(cfg.reward_mode)
    z = np.array([seats_to_egocentric(returns, p) for p in players], dtype=np.float32).reshape(len(players), n)
    return _pack(obs, masks, pis, z, game)


def _pack(obs: list, masks: list, pis: list, z: np.ndarray, game: Any) -> dict[str, np.ndarray]:
    return samples.pack(obs, masks, pis, z, game)


def _empty(game: Any) -> dict[str, np.ndarray]:
    return samples.empty(game.observation_shape[0], game.num_actions, game.num_players)


def _concat(parts: Sequence[dict[str, np.ndarray]], game: Any) -> dict[str, np.ndarray]:
    """The samples of ``parts`` in order, padded to the widest of them (:mod:`.samples`)."""
    return samples.concat(parts, game.observation_shape[0], game.num_players, game.num_actions)
