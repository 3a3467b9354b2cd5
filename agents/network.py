"""Policy-value networks as agents and as search guidance, run in numpy (no torch needed to play).

A *network checkpoint* is a zip with two members, read without executing code from the file:

* ``meeplezoo.json``: what the network plays (game, number of players, rule options, observation
  layout version and size, number of actions), its architecture (``"blocknet"`` and its widths) and
  how it was trained (algorithm, iterations, samples, CPU seconds, seed, command);
* ``meeplezoo_net.npz``: the weights as plain arrays, named as in the torch module's ``state_dict``
  (``np.load(..., allow_pickle=False)``).

The architecture is :class:`meeplezoo.training.networks.BlockNet` (built from the game's named
observation blocks): blocks declared ``spatial`` (boards: their last two dims are a grid of cells) go
through 3x3 convolutions and global average pooling, the others through one MLP layer, then a shared
trunk, a policy head over every action id and a tanh value head with one value per seat, egocentric
(entry 0 is the observing player's). :func:`forward` computes exactly what the torch module computes (a
test checks it), channels-last.

Agents built on it:

* ``net:PATH`` (:class:`NetworkAgent`): the network alone, greedy (``sample=true``: sampled from
  its policy at ``temperature``);
* ``netmcts:PATH`` (:func:`network_search`): the search of :mod:`meeplezoo.agents.mcts` with the
  network's policy as prior and its values at the leaves (:class:`NetworkEvaluator`), every MCTS option
  accepted (``netmcts:PATH:time=0.5``).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from meeplezoo.knobs import Knob, Knobs
from meeplezoo.threads import limit_blas_threads

from .base import Agent
from .checkpoint import (  # noqa: F401 - re-exported: the network checkpoint's names as they were
    ARCHITECTURE,
    CONFIG_KEYS,
    MAX_METADATA_BYTES,
    MAX_PARAMETERS,
    METADATA_MEMBER,
    NET_FORMAT,
    OPTIONAL_CONFIG,
    blocknet_shapes,
    full_config,
    network_metadata,
    read_metadata_member,
    read_network,
    read_network_metadata,
    save_network,
)
from .checkpoint import NET_WEIGHTS_MEMBER as WEIGHTS_MEMBER  # noqa: F401
from .mcts import MCTSAgent, search_settings
from .netops import egocentric_to_seats, masked_softmax, seats_to_egocentric  # noqa: F401 - re-exported
from .registry import HEURISTICS, make
from .search import LEAF_KINDS, NETWORK_SEARCH_KNOBS, Evaluator, HeuristicPrior  # noqa: F401 - LEAF_KINDS re-exported
from .seat_layout import SEAT_ARCHITECTURE
from .seatnet import POOLED_PASSES, SeatPolicyValueNet, with_pooled_pass  # noqa: F401 - re-exported


def _conv3x3(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A 3x3 convolution with zero padding 1, channels-last: ``x (B, H, W, C)``, ``w`` torch's ``(O, C, 3, 3)``."""
    bsz, h, wd, _c = x.shape
    xp = np.zeros((bsz, h + 2, wd + 2, x.shape[3]), dtype=x.dtype)
    xp[:, 1:-1, 1:-1] = x
    out = np.empty((bsz, h, wd, w.shape[0]), dtype=x.dtype)
    out[...] = b
    wt = np.ascontiguousarray(w.transpose(2, 3, 1, 0))  # (3, 3, C, O)
    for dy in range(3):
        for dx in range(3):
            out += xp[:, dy:dy + h, dx:dx + wd] @ wt[dy, dx]
    return out


def _linear(x: np.ndarray, w: np.ndarray, b: np.ndarray, rows: bool, wt: np.ndarray | None = None) -> np.ndarray:
    """``x @ w.T + b`` for a batch ``x (B, in)``; ``rows``: as B one-row products (a stack of ``(1, in)``
    matrices, which numpy multiplies one by one with the routine a batch of one gets).  ``wt``: ``w.T`` stored
    contiguously, used for a batch of several rows (BLAS multiplies small batches by a transposed view
    several times slower; a batch of one keeps ``w.T``, so one position's evaluation is as before)."""
    if rows:
        return (x[:, None, :] @ w.T)[:, 0] + b
    if wt is not None and x.shape[0] > 1:
        return x @ wt + b
    return x @ w.T + b


class PolicyValueNet:
    """A BlockNet for one game configuration, evaluated in numpy.

    ``forward(obs)`` takes a batch of flat observations ``(B, size)`` and returns ``(logits (B, actions),
    values (B, players))``; values are egocentric and in [-1, 1].
    """

    #: the pass of :meth:`pooled_forward` (:data:`POOLED_PASSES`; :func:`with_pooled_pass` sets another)
    pooled_pass = "rows"

    def __init__(self, game: Any, arrays: Mapping[str, np.ndarray], config: Mapping[str, int],
                 metadata: Mapping[str, Any] | None = None, *, heads: bool = True) -> None:
        limit_blas_threads()  # single-position inference: one BLAS thread unless the user says otherwise
        self.game = game
        self.heads = heads
        self.config = full_config(config)
        self.metadata = dict(metadata or network_metadata(game, self.config))
        self.structure = game.observation_spec.structure()
        boards = game.observation_spec.spatial_names()
        self.spatial = [n for n in self.structure if n in boards]
        self.flat = [n for n in self.structure if n not in self.spatial]
        p = {k: np.asarray(v, dtype=np.float32) for k, v in arrays.items()}
        expected = self.parameter_shapes(game, self.config, heads=heads)
        missing = sorted(set(expected) - set(p))
        extra = sorted(set(p) - set(expected))
        if missing or extra:
            raise ValueError(f"network weights do not fit a BlockNet for {game.name} with {self.config}: "
                             f"missing {missing[:5]}, unexpected {extra[:5]}")
        wrong = [(k, p[k].shape, s) for k, s in expected.items() if p[k].shape != s]
        if wrong:
            k, got, want = wrong[0]
            raise ValueError(f"network weight {k!r} has shape {got}, expected {want} "
                             f"({game.name}, {game.num_players} players, {self.config})")
        bad = [k for k, v in p.items() if not np.isfinite(v).all()]
        if bad:
            raise ValueError(f"network weight {bad[0]!r} holds NaN or infinite values")
        self.params = p
        #: the matrices' transposes, contiguous (the batch pass's products, see _linear)
        self.params_t = {k: np.ascontiguousarray(v.T) for k, v in p.items() if v.ndim == 2}  # noqa: PLR2004
        self._seen: tuple[Any, bool] | None = None  # the last game asked about and the answer
        self.flat_index = np.concatenate([np.arange(self.structure[n][3].start, self.structure[n][3].stop)
                                          for n in self.flat]) if self.flat else np.zeros(0, dtype=np.intp)

    @staticmethod
    def parameter_shapes(game: Any, config: Mapping[str, int], *, heads: bool = True) -> dict[str, tuple[int, ...]]:
        """The name and shape of every weight of a BlockNet for ``game`` (torch ``state_dict`` names;
        ``heads=False``: the trunk only, as inside a PPO policy)."""
        return blocknet_shapes(game, config, heads=heads)

    @property
    def num_parameters(self) -> int:
        return int(sum(v.size for v in self.params.values()))

    def forward(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(logits, values)`` for a batch of flat observations."""
        return self._forward(obs, False)

    def forward_rows(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`forward`, each row computed exactly as ``forward`` computes a batch of that row alone (bit
        for bit: every matrix product is the one-row product), in one call.  The lockstep driver's pooled
        batches go through here, so that a position's evaluation never depends on what else is in the
        batch; it saves the per-call cost, not the arithmetic."""
        return self._forward(obs, True)

    def pooled_forward(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The pass the lockstep driver's pooled batches take: :meth:`forward_rows` for this numpy network
        (:meth:`forward`, one batched product, where :attr:`pooled_pass` is ``batch``), the subclass's own
        :meth:`forward` for one that has one (torch: batched kernels, whose rounding may depend on the batch)."""
        if type(self).forward is PolicyValueNet.forward and self.pooled_pass == "rows":
            return self.forward_rows(obs)
        return self.forward(obs)

    def _forward(self, obs: np.ndarray, rows: bool) -> tuple[np.ndarray, np.ndarray]:
        if not self.heads:
            raise ValueError("this network is a trunk without heads (see features())")
        p = self.params
        obs = np.asarray(obs, dtype=np.float32)
        if obs.ndim == 1:
            obs = obs[None]
        hid = self.features(obs, rows=rows)
        logits = _linear(hid, p["policy.weight"], p["policy.bias"], rows, self.params_t["policy.weight"])
        if self.config["action_hidden"]:
            logits[:, self.action_features.actions] += self.action_scores(obs, hid, rows=rows)
        values = np.tanh(_linear(hid, p["value.weight"], p["value.bias"], rows, self.params_t["value.weight"]))
        return logits, values

    @property
    def action_features(self) -> Any:
        """The game's :class:`~meeplezoo.envs.core.observation.ActionFeatures` (what the action head reads)."""
        return self.game.observation_spec.action_features

    def action_scores(self, obs: np.ndarray, hid: np.ndarray, *, rows: bool = False) -> np.ndarray:
        """The action head's term ``(B, len(actions))``, added to those actions' logits (``rows``: as
        :meth:`forward_rows` computes it)."""
        p = self.params
        z = _linear(hid, p["action_trunk.weight"], p["action_trunk.bias"], rows,
                    self.params_t["action_trunk.weight"])[:, None]
        for f in self.action_features.factors:
            if f.gather is None:
                z = z + p[f"action_items.{f.name}"][f.index]
            else:
                z = z + (obs[:, f.gather] @ p[f"action_inputs.{f.name}.weight"].T)[:, f.index]
        z = np.maximum(np.maximum(z, 0) @ p["action_mid.weight"].T + p["action_mid.bias"], 0)
        return z @ p["action_out.weight"][0] + p["action_out.bias"][0]

    def features(self, obs: np.ndarray, *, rows: bool = False) -> np.ndarray:
        """The trunk's output ``(B, trunk_hidden)`` for a batch of flat observations (``rows``: each row as
        alone, see :meth:`forward_rows`)."""
        obs = np.asarray(obs, dtype=np.float32)
        if obs.ndim == 1:
            obs = obs[None]
        p = self.params
        parts = []
        bsz = obs.shape[0]
        for name in self.spatial:
            shape, _lo, _hi, sl = self.structure[name]
            h, w = shape[-2], shape[-1]
            x = obs[:, sl].reshape(bsz, -1, h, w).transpose(0, 2, 3, 1)
            for i in range(self.config["conv_layers"]):
                x = np.maximum(_conv3x3(x, p[f"convs.{name}.{2 * i}.weight"], p[f"convs.{name}.{2 * i}.bias"]), 0)
            if self.config["board_channels"]:
                w1 = p[f"cells.{name}.weight"][:, :, 0, 0]  # (bc, ch)
                y = np.maximum(x @ w1.T + p[f"cells.{name}.bias"], 0)  # (B, H, W, bc)
                parts.append(y.transpose(0, 3, 1, 2).reshape(bsz, -1))  # torch's (B, C, H, W) order
            elif rows:  # the reduction of each row as of a batch of one
                parts.append(np.concatenate([x[i:i + 1].mean(axis=(1, 2)) for i in range(bsz)]))
            else:
                parts.append(x.mean(axis=(1, 2)))
        if self.flat:
            z = _linear(obs[:, self.flat_index], p["flat_mlp.0.weight"], p["flat_mlp.0.bias"], rows,
                        self.params_t["flat_mlp.0.weight"])
            parts.append(np.maximum(z, 0))
        feat = np.concatenate(parts, axis=1) if len(parts) > 1 else parts[0]
        for i in range(self.config["trunk_layers"]):
            feat = np.maximum(_linear(feat, p[f"trunk.{2 * i}.weight"], p[f"trunk.{2 * i}.bias"], rows,
                                      self.params_t[f"trunk.{2 * i}.weight"]), 0)
        return feat

    def needs_own_observation(self, game: Any) -> bool:
        """Whether states of ``game`` must be observed through this network's own game: they play the
        same rules but show another observation (``observation_only`` options differ, e.g. a network
        trained with ``derived_features`` playing the default game)."""
        if self._seen is not None and self._seen[0] is game:
            return self._seen[1]
        if not self.game.same_rules(game):
            raise ValueError(f"this network plays {self.game!r}, not {game!r}")
        own = game != self.game
        self._seen = (game, own)
        return own

    def observe(self, state: Any, player: int) -> np.ndarray:
        """``player``'s observation of ``state`` in the layout this network reads (the state's own when the
        game is the network's; else through the network's observer, see :meth:`needs_own_observation`)."""
        if self.needs_own_observation(state.game):
            return self.game.observer.observe(state, int(player))
        return state.observe(player)

    def policy(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The masked softmax policy ``(B, actions)`` (illegal actions get probability 0)."""
        logits, _ = self.forward(obs)
        return masked_softmax(logits, np.asarray(masks, dtype=bool).reshape(logits.shape))

    # -- persistence ------------------------------------------------------------------------------
    def save(self, path: str | Path, **training: Any) -> Path:
        """Write this network as a checkpoint (``training`` facts are added to its metadata)."""
        meta = {**self.metadata, **training}
        return save_network(path, self.params, meta)

    @classmethod
    def load(cls, path: str | Path, game: Any = None, num_players: int | None = None) -> PolicyValueNet:
        """Read a checkpoint; with ``game`` (an id or a Game) and ``num_players`` it must be for them.

        A checkpoint for another game, player count, rule options or observation layout is refused with
        a ValueError saying which.
        """
        game, arrays, meta = read_network(path, game, num_players)
        return cls(game, arrays, meta["config"], meta)


class NetworkEvaluator(Evaluator):
    """The network as the search's prior and leaf value (an :class:`~meeplezoo.agents.mcts.Evaluator`).

    Each state is observed by the player to move (so the network sees only what that player may know;
    the search passes determinizations of the searching player's information), the batch goes through
    the network at once, and the egocentric values are turned into one value per seat.  With a ``heuristic``
    (a :class:`~meeplezoo.agents.search.HeuristicPrior`) and a ``weight`` w > 0 the prior is the blend
    ``(1 - w) * network + w * heuristic`` over the legal actions (values: the network's); ``opponent_weight``
    is w at the decisions of seats other than ``searching_player`` (set by the search at each root: an opponent
    model).  ``leaf_mix`` m > 0: the search blends each value with its rollout's, ``(1 - m) * network + m *
    rollout``.  ``policy_temp`` T divides the logits before their softmax (Leela Chess Zero's: T > 1 flattens).
    """

    provides_values = True

    def __init__(self, net: PolicyValueNet, values: bool = True, heuristic: HeuristicPrior | None = None,
                 weight: float = 0.0, leaf_mix: float = 0.0, policy_temp: float = 1.0,
                 opponent_weight: float | None = None) -> None:
        for w in (weight, 0.0 if opponent_weight is None else opponent_weight):
            if not 0 <= w <= 1 or (w > 0 and heuristic is None):
                raise ValueError(f"NetworkEvaluator: weight and opponent_weight must be in [0, 1], and above 0 "
                                 f"only with a heuristic; got {w!r} with heuristic {heuristic!r}")
        if not policy_temp > 0:
            raise ValueError(f"NetworkEvaluator: policy_temp must be above 0, got {policy_temp!r}")
        self.net = net
        #: the policy softmax temperature of the prior (1: the network's policy as trained)
        self.policy_temp = float(policy_temp)
        #: False: the network is the prior only and the search values its leaves by rollouts
        self.provides_values = bool(values)
        self.heuristic = heuristic if weight > 0 or (opponent_weight or 0) > 0 else None
        self.weight = float(weight)
        self.opponent_weight = None if opponent_weight is None else float(opponent_weight)  # None: weight
        #: the seat whose search asks (set by the search at each root; None: every decision is its own)
        self.searching_player: int | None = None
        #: the search blends each leaf's value: (1 - leaf_mix) * the value head's + leaf_mix * its rollout's
        self.leaf_mix = float(leaf_mix) if values else 0.0
        self.calls = 0
        self.states = 0

    def blend(self, priors: list[np.ndarray], states: list[Any]) -> list[np.ndarray]:
        """The network's ``priors`` of ``states`` blended with the heuristic's (unchanged without one)."""
        if self.heuristic is None:
            return priors
        w, me, other, h = self.weight, self.searching_player, self.opponent_weight, self.heuristic
        if other is None or me is None:
            return [(1.0 - w) * p + w * x for p, x in zip(priors, h.evaluate(states)[0])]
        ws = [w if s.current_player == me else other for s in states]  # zero: no heuristic asked
        return [p if x == 0 else (1.0 - x) * p + x * h.evaluate([s])[0][0] for p, s, x in zip(priors, states, ws)]

    def evaluate(self, states: list[Any]) -> tuple[list[np.ndarray], list[np.ndarray]]:
        net = self.net
        if hasattr(net, "for_players"):  # a network for every player count: the view bound to this one
            net = net.for_players(states[0].game.num_players)
        obs = np.stack([net.observe(s, s.current_player) for s in states])
        masks = np.stack([s.legal_mask() for s in states])
        logits, values = net.forward(obs)
        priors = self.blend(list(masked_softmax(logits / self.policy_temp, masks)), states)
        self.calls += 1
        self.states += len(states)
        if not self.provides_values:
            return priors, None
        return priors, [egocentric_to_seats(v, s.current_player) for v, s in zip(values, states)]

    def pool_key(self) -> Any:
        """The network: the lockstep driver answers the requests of every evaluator on it together."""
        return self.net

    @classmethod
    def evaluate_pool(cls, requests: list[Any]) -> list[tuple[Any, Any]]:
        """The answers to ``requests`` of evaluators on one network: the one-state requests (a search with
        ``batch=1``) in one pass of the network (:meth:`PolicyValueNet.pooled_forward`: for the numpy network
        each answer is bit for bit what the request alone gets), the others alone."""
        answers: list[Any] = [None] * len(requests)
        single = []
        for i, r in enumerate(requests):
            if len(r.states) == 1:
                single.append(i)
            else:
                answers[i] = r.answer()
        if not single:
            return answers
        net = requests[single[0]].evaluator.net
        if not hasattr(net, "for_players"):
            cls._answer_pool(net, requests, single, answers)
            return answers
        counts: dict[int, list[int]] = {}  # a network for every player count: one pass per count's view
        for i in single:
            counts.setdefault(requests[i].states[0].game.num_players, []).append(i)
        for n, members in counts.items():
            cls._answer_pool(net.for_players(n), requests, members, answers)
        return answers

    @staticmethod
    def _answer_pool(net: Any, requests: list[Any], members: list[int], answers: list[Any]) -> None:
        """The answers to the one-state ``requests[members]`` in one pooled pass of ``net``."""
        states = [requests[i].states[0] for i in members]
        players = np.array([s.current_player for s in states])
        obs = np.stack([net.observe(s, p) for s, p in zip(states, players)])
        masks = np.stack([s.legal_mask() for s in states])
        logits, values = getattr(net, "pooled_forward", net.forward)(obs)
        temps = np.array([requests[i].evaluator.policy_temp for i in members], dtype=logits.dtype)
        priors = masked_softmax(logits / temps[:, None], masks)  # x / 1.0 is x: bit for bit as before at T=1
        n = values.shape[1]
        seats = values[np.arange(len(states))[:, None], (np.arange(n)[None, :] - players[:, None]) % n]
        for j, i in enumerate(members):
            ev = requests[i].evaluator
            ev.calls += 1
            ev.states += 1
            answers[i] = (ev.blend([priors[j]], [states[j]]), [seats[j]] if ev.provides_values else None)


#: the ``net:PATH`` agent's settings (``pretrained`` without a search has the same)
NET_KNOBS = Knobs("net", [
    Knob("sample", bool, False, "sample from the network's policy instead of playing its most probable move"),
    Knob("temperature", float, 1.0, "temperature of the sampled policy", low=0, low_open=True),
])


class NetworkAgent(Agent):
    """The network alone: the most probable legal action (``sample=True``: sampled at ``temperature``).

    Given the state (``uses_state``), it reads the state through its own observation when the game differs
    from the network's only in observation options (:meth:`PolicyValueNet.observe`); without a state the
    observation passed in must be in the network's layout.
    """

    name = "net"
    uses_state = True

    def __init__(self, net: PolicyValueNet, *, seed: int | None = None, **options: Any) -> None:
        settings = NET_KNOBS.validate(options)
        self.sample: bool = settings["sample"]
        self.temperature: float = settings["temperature"]
        self.net = net
        self.game = net.game
        self.rng = np.random.default_rng(seed)
        # running totals since construction (benchmarks read them)
        self.total_decisions = 0
        self.total_seconds = 0.0

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, *, state: Any = None) -> int:
        t0 = time.perf_counter()
        mask = np.asarray(action_mask, dtype=bool)
        net = self.net
        if state is not None and hasattr(net, "for_players"):  # a seat network: bound to this player count
            net = net.for_players(state.game.num_players)
        if state is not None and net.needs_own_observation(state.game):
            observation = net.observe(state, state.current_player)
        elif observation is None or np.shape(observation)[-1] != net.game.observation_shape[0]:
            got = None if observation is None else np.shape(observation)
            raise ValueError(f"net: this network reads observations of shape {net.game.observation_shape} "
                             f"({net.game!r}), got {got}; pass the state (act(..., state=...)) to "
                             "play a game that differs only in observation options")
        logits, _ = net.forward(observation)
        logits = logits[0]
        if not self.sample:
            a = int(np.flatnonzero(mask)[np.argmax(logits[mask])])
        else:
            pr = masked_softmax(logits / self.temperature, mask)
            a = int(self.rng.choice(len(pr), p=pr))
        self.total_decisions += 1
        self.total_seconds += time.perf_counter() - t0
        return a

    def __repr__(self) -> str:
        return f"<NetworkAgent {self.game.name} {'sampled' if self.sample else 'greedy'}>"


def load_network(path: str | Path, game: Any = None, num_players: int | None = None) -> Any:
    """The network of a checkpoint of either architecture: a :class:`PolicyValueNet` (``"blocknet"``, one
    player count) or a :class:`~meeplezoo.agents.seatnet.SeatPolicyValueNet` (``"seatnet"``, every count it
    lists, bound to ``num_players``: default the Game's, else the first).  ``game`` and ``num_players`` are
    checked as :meth:`PolicyValueNet.load` checks them."""
    meta = read_metadata_member(path, "network checkpoint")
    if meta.get("architecture") == SEAT_ARCHITECTURE:
        return SeatPolicyValueNet.load(path, game, num_players)
    return PolicyValueNet.load(path, game, num_players)


def load_agent(path: str | Path, game: Any = None, num_players: int | None = None, seed: int | None = None,
               **options: Any) -> NetworkAgent:
    """``net:PATH`` from the registry (either architecture, see :func:`load_network`)."""
    return NetworkAgent(load_network(path, game, num_players), seed=seed, **options)


def network_search(net: Any, game: Any = None, num_players: int | None = None,
                   seed: int | None = None, **options: Any) -> Agent:
    """The search guided by the network: PUCT with its policy as prior and its values at the leaves.

    ``net`` is a network object (either architecture) or a checkpoint's path (:func:`load_network`).
    ``options`` are the knobs of :data:`~meeplezoo.agents.search.NETWORK_SEARCH_KNOBS`: the search's
    (:class:`~meeplezoo.agents.mcts.MCTSAgent`'s; ``prior`` is the network), with that table's defaults (``sims=200``,
    ``c=1.5``, ``batch=1``: a leaf per network call, batching is no cheaper in numpy, and virtual losses
    would split small batches evenly).  ``leaf="network"`` (default) values the leaves with the network's
    value head; ``leaf="rollout"`` keeps the network as the prior only and values the leaves the way the
    plain search does (``rollout``, ``rollout_epsilon``, ``rollout_depth``: the expert of expert iteration
    before the value head has learned anything).  ``heuristic_prior=w`` (w > 0) blends the game heuristic's
    prior (:class:`~meeplezoo.agents.search.HeuristicPrior` at ``prior_temp`` and ``prior_weight``, the tuned
    search's) into the network's: ``(1 - w) * network + w * heuristic``; a game without a heuristic refuses it.
    ``opponent_prior=v`` is its weight at the other seats' decisions (an opponent model: at 1 the search expects
    them to play as the heuristic).  ``leaf_mix=m`` (m > 0, with ``leaf="network"``) values each leaf
    ``(1 - m) * value head + m * rollout``, the plain search's rollout (``rollout_depth=0``: the leaf's cut-off
    value, the provisional score margin; AlphaGo's mixing).  ``policy_temp=T`` divides the policy's logits by
    T before the prior's softmax (T > 1 flattens a prior sharpened by many simulations).
    """
    settings = search_settings((), options, NETWORK_SEARCH_KNOBS)
    del settings["prior"]  # the network (the table refuses any other)
    if isinstance(net, (str, Path)):
        net = load_network(net, game, num_players)
    leaf, weight, mix = settings.pop("leaf"), settings.pop("heuristic_prior"), settings.pop("leaf_mix")
    opponent = settings.pop("opponent_prior")
    temp = settings.pop("policy_temp")
    if mix > 0 and leaf != "network":
        raise ValueError(f"{NETWORK_SEARCH_KNOBS.who}: leaf_mix={mix:g} blends the value head with the rollouts, "
                         f"and leaf={leaf!r} has no value head in it (leaf_mix needs leaf=network)")
    heuristic = None
    if weight > 0 or (opponent or 0) > 0:
        name, knob = net.game.name, f"heuristic_prior={weight:g}" if weight > 0 else f"opponent_prior={opponent:g}"
        if name not in HEURISTICS:
            raise ValueError(f"{NETWORK_SEARCH_KNOBS.who}: {knob} blends in the game heuristic's prior, and "
                             f"{name!r} has no heuristic (heuristic_prior and opponent_prior must be 0)")
        heuristic = HeuristicPrior(make("heuristic", name, seed=seed), settings["prior_temp"], settings["prior_weight"])
    prior = NetworkEvaluator(net, values=leaf == "network", heuristic=heuristic, weight=weight, leaf_mix=mix,
                             policy_temp=temp, opponent_weight=opponent)
    agent = MCTSAgent(game=net.game.name, seed=seed, prior=prior, **settings)
    agent.network = net  # type: ignore[attr-defined]
    return agent
