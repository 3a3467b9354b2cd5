"""A trained PPO policy as an Agent, and the checkpoint format it loads.

A checkpoint is stable-baselines3's MaskablePPO ``.zip`` (so
``MaskablePPO.load`` can resume training from it) with two extra members:

* ``meeplezoo.json``: what the policy was trained for (game, player count,
  rule options, observation layout version and size, number of actions,
  network shape, training steps);
* ``meeplezoo_policy.npz``: the policy weights as plain arrays.

:class:`PPOAgent` reads only those two members: ``np.load`` with
``allow_pickle=False`` executes no code from the file (SB3's own ``data``
member is cloudpickled), and acting runs the small MLP in numpy, which is
faster than torch for one observation at a time and lets tournaments and
self-play workers use checkpoints without importing torch.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from .base import Agent

#: version of the meeplezoo.json / npz members (bumped when they change)
CHECKPOINT_FORMAT = 1
METADATA_MEMBER = "meeplezoo.json"
WEIGHTS_MEMBER = "meeplezoo_policy.npz"
ACTIVATIONS = ("tanh", "relu")


def _game_class(name: str) -> type:
    from meeplezoo.registry import game_class

    return game_class(name)


#: the metadata member is a few hundred bytes; anything near this is not one
MAX_METADATA_BYTES = 1 << 20
#: largest policy a checkpoint may describe (float32 parameters: 1 GiB), whatever its metadata says
MAX_POLICY_PARAMETERS = 1 << 28
#: room for the .npy headers and the zip directory of the weights member
_NPZ_SLACK_BYTES = 1 << 16

#: required metadata keys and their types (checked before anything else is read)
_METADATA_KEYS: dict[str, type] = {
    "game": str, "num_players": int, "options": dict, "observation_version": int, "observation_size": int,
    "num_actions": int, "net_arch": dict,
}


def read_metadata(path: str | Path) -> dict[str, Any]:
    """The ``meeplezoo.json`` member of a checkpoint (ValueError if it is not one, or not a complete one)."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"checkpoint {str(path)!r} does not exist")
    try:
        with zipfile.ZipFile(path) as zf:
            if METADATA_MEMBER not in zf.namelist():
                raise ValueError(
                    f"{path} is not a meeplezoo PPO checkpoint (no {METADATA_MEMBER} inside; "
                    "train with `meeplezoo train` or meeplezoo.training.ppo.train; "
                    f"a plain stable-baselines3 model plays as sb3:{path})"
                )
            size = zf.getinfo(METADATA_MEMBER).file_size
            if size > MAX_METADATA_BYTES:
                raise ValueError(f"{path}: {METADATA_MEMBER} unpacks to {size} bytes, more than a checkpoint's "
                                 f"metadata can be ({MAX_METADATA_BYTES}); refusing to read it")
            meta = json.loads(zf.read(METADATA_MEMBER))
    except (zipfile.BadZipFile, EOFError):
        raise ValueError(f"{path} is not a checkpoint (not a zip file)") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ValueError(f"{path}: corrupt {METADATA_MEMBER} ({e})") from None
    except (OSError, NotImplementedError, RuntimeError) as e:  # unreadable, unsupported compression, encrypted
        raise ValueError(f"{path}: cannot read the checkpoint ({type(e).__name__}: {e})") from None
    if not isinstance(meta, dict):
        raise ValueError(f"{path}: {METADATA_MEMBER} holds a JSON {type(meta).__name__}, not an object")
    if meta.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"{path}: checkpoint format {meta.get('format')!r} is not {CHECKPOINT_FORMAT}")
    check_metadata(meta, source=str(path))
    return meta


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_metadata(meta: dict[str, Any], source: str = "checkpoint") -> None:
    """Raise ValueError naming the first missing or ill-typed key of a checkpoint's metadata."""
    for key, kind in _METADATA_KEYS.items():
        if key not in meta:
            raise ValueError(f"{source}: {METADATA_MEMBER} lacks {key!r}")
        value = meta[key]
        if (kind is int and not _is_int(value)) or (kind is not int and not isinstance(value, kind)):
            label = {int: "an integer", str: "a string", dict: "an object"}[kind]
            raise ValueError(f"{source}: {METADATA_MEMBER} key {key!r} must be {label}, got {value!r}")
    for key in ("num_players", "observation_size", "num_actions"):
        if meta[key] < 1:
            raise ValueError(f"{source}: {METADATA_MEMBER} key {key!r} must be >= 1, got {meta[key]!r}")
    layer_widths(meta, source)
    act = meta.get("activation", "tanh")
    if act not in ACTIVATIONS:
        raise ValueError(f"{source}: unsupported activation {act!r}; known: {', '.join(ACTIVATIONS)}")


def layer_widths(meta: dict[str, Any], source: str = "checkpoint") -> tuple[list[int], list[int]]:
    """``(features, pi)`` hidden widths of the acting network, checked to be lists of positive ints."""
    arch = meta["net_arch"]
    out = []
    for key in ("features", "pi"):
        widths = arch.get(key, [] if key == "features" else None)
        if not isinstance(widths, list) or not all(_is_int(w) and w >= 1 for w in widths):
            raise ValueError(f"{source}: {METADATA_MEMBER} net_arch[{key!r}] must be a list of positive ints, "
                             f"got {widths!r}")
        out.append(widths)
    return out[0], out[1]


#: where a block network's trunk sits in an SB3 policy's state dict
BLOCKS_PREFIX = "features_extractor.net."


def block_network(meta: dict[str, Any], source: str = "checkpoint") -> dict[str, int] | None:
    """The widths of the block network a checkpoint uses (``net="blocks"``), or None for the MLP."""
    network = meta.get("network")
    if network is None:
        return None
    from .network import CONFIG_KEYS, OPTIONAL_CONFIG, full_config

    if not isinstance(network, dict) or network.get("kind") != "blocks" or not isinstance(network.get("config"), dict):
        raise ValueError(f"{source}: {METADATA_MEMBER} 'network' must be {{'kind': 'blocks', 'config': {{...}}}}, "
                         f"got {network!r}")
    cfg = network["config"]
    optional = set(cfg) - set(CONFIG_KEYS)
    if not set(CONFIG_KEYS) <= set(cfg) or not optional <= set(OPTIONAL_CONFIG) \
            or not all(_is_int(cfg[k]) and cfg[k] >= 1 for k in CONFIG_KEYS) \
            or not all(_is_int(cfg[k]) and cfg[k] >= 0 for k in optional):
        raise ValueError(f"{source}: block network config must give positive ints for {', '.join(CONFIG_KEYS)} "
                         f"(and optionally {', '.join(OPTIONAL_CONFIG)} >= 0), got {cfg!r}")
    return full_config(cfg)


def _meta_game(meta: dict[str, Any]) -> Any:
    return _game_class(meta["game"])(meta["num_players"], **meta["options"])


def expected_shapes(meta: dict[str, Any], source: str = "checkpoint") -> dict[str, tuple[int, ...]]:
    """Every array the numpy policy needs, with its shape, from the metadata alone."""
    features, pi = layer_widths(meta, source)
    shapes: dict[str, tuple[int, ...]] = {}
    last = int(meta["observation_size"])
    blocks = block_network(meta, source)
    if blocks is not None:
        from .network import PolicyValueNet

        trunk = PolicyValueNet.parameter_shapes(_meta_game(meta), blocks, heads=False)
        shapes.update({BLOCKS_PREFIX + k: v for k, v in trunk.items()})
        last = blocks["trunk_hidden"]
        features = []
    names = [f"features_extractor.net.{2 * i}" for i in range(len(features))]
    names += [f"mlp_extractor.policy_net.{2 * i}" for i in range(len(pi))]
    for name, width in zip(names, [*features, *pi]):
        shapes[name + ".weight"], shapes[name + ".bias"] = (width, last), (width,)
        last = width
    shapes["action_net.weight"], shapes["action_net.bias"] = (int(meta["num_actions"]), last), \
        (int(meta["num_actions"]),)
    total = sum(int(np.prod(s)) for s in shapes.values())
    if total > MAX_POLICY_PARAMETERS:
        raise ValueError(f"{source}: the metadata describes a policy of {total} parameters, more than "
                         f"{MAX_POLICY_PARAMETERS}; refusing to load it")
    return shapes


def _npy_bound(shape: tuple[int, ...]) -> int:
    """The most bytes one float array of ``shape`` may take in an .npy file (float64 and a header allowed)."""
    return 8 * int(np.prod(shape)) + 4096


def _read_weights(path: Path, meta: dict[str, Any]) -> dict[str, np.ndarray]:
    """The policy arrays, refusing before reading anything that unpacks to more than the network needs."""
    shapes = expected_shapes(meta, str(path))
    limit = sum(_npy_bound(s) for s in shapes.values()) + _NPZ_SLACK_BYTES
    try:
        with zipfile.ZipFile(path) as zf:
            if WEIGHTS_MEMBER not in zf.namelist():
                raise ValueError(f"{path}: checkpoint has no {WEIGHTS_MEMBER}")
            declared = zf.getinfo(WEIGHTS_MEMBER).file_size
            if declared > limit:
                raise ValueError(f"{path}: {WEIGHTS_MEMBER} unpacks to {declared} bytes, but the network in its "
                                 f"metadata needs at most {limit}; refusing to read it")
            data = zf.read(WEIGHTS_MEMBER)
        with zipfile.ZipFile(io.BytesIO(data)) as inner:  # the .npz is itself a zip: check its members too
            for info in inner.infolist():
                key = info.filename.removesuffix(".npy")
                bound = _npy_bound(shapes[key]) if key in shapes else 4096
                if info.file_size > bound:
                    raise ValueError(f"{path}: weights array {key!r} unpacks to {info.file_size} bytes, more than "
                                     f"its shape allows ({bound}); refusing to read it")
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:  # never unpickles: no code from the file runs
            arrays = {}
            for k in npz.files:
                a = npz[k]
                if a.dtype.kind not in "fiu":
                    raise ValueError(f"{path}: weights array {k!r} has dtype {a.dtype}, not numbers")
                arrays[k] = np.asarray(a, dtype=np.float32)
    except (zipfile.BadZipFile, EOFError, OSError, NotImplementedError, RuntimeError) as e:
        raise ValueError(f"{path}: corrupt {WEIGHTS_MEMBER} ({type(e).__name__}: {e})") from None
    except ValueError as e:
        if str(e).startswith(str(path)):
            raise
        raise ValueError(f"{path}: cannot load {WEIGHTS_MEMBER} ({e})") from None
    check_weights(arrays, shapes, str(path))
    return arrays


def check_weights(params: dict[str, np.ndarray], shapes: dict[str, tuple[int, ...]], source: str) -> None:
    """Every array the policy needs is there, has the shape the metadata implies and is finite."""
    for name, shape in shapes.items():
        if name not in params:
            raise ValueError(f"{source}: the weights lack {name!r}")
        got = tuple(params[name].shape)
        if got != shape:
            raise ValueError(f"{source}: weights {name!r} have shape {got}, the network in the metadata needs {shape}")
        if not np.isfinite(params[name]).all():
            raise ValueError(f"{source}: weights {name!r} hold NaN or infinite values")


def policy_arrays(policy: Any) -> dict[str, np.ndarray]:
    """The acting part of a MaskableActorCriticPolicy (shared features, policy layers, action head) as numpy."""
    keep = ("features_extractor.", "mlp_extractor.policy_net.", "action_net.")
    return {k: v.detach().cpu().numpy().astype(np.float32) for k, v in policy.state_dict().items()
            if k.startswith(keep)}


def save_checkpoint(model: Any, path: str | Path, metadata: dict[str, Any], *, light: bool = False) -> Path:
    """Write a checkpoint; returns its path.

    Full (default): ``model.save(path)`` plus the metadata and numpy weights
    members, so both ``MaskablePPO.load`` and :meth:`PPOAgent.load` read it.
    ``light``: only the two meeplezoo members (no value net, no optimiser
    state): a fraction of the size, for self-play snapshots that are only played.
    """
    path = Path(path)
    if path.suffix != ".zip":
        path = path.with_suffix(".zip")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp.zip")  # written aside, then renamed: readers never see half a file
    if light:
        tmp.unlink(missing_ok=True)
    else:
        model.save(tmp)
    buf = io.BytesIO()
    np.savez(buf, **policy_arrays(model.policy))
    meta = {"format": CHECKPOINT_FORMAT, **metadata}
    with zipfile.ZipFile(tmp, "a", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(METADATA_MEMBER, json.dumps(meta, indent=2, sort_keys=True))
        zf.writestr(WEIGHTS_MEMBER, buf.getvalue(), compress_type=zipfile.ZIP_STORED)  # floats barely compress
    tmp.replace(path)
    return path


def check_compatible(meta: dict[str, Any], game: Any = None, num_players: int | None = None,
                     rule_options: dict[str, Any] | None = None, source: str = "checkpoint") -> Any:
    """The Game the checkpoint was trained for, after checking it against what the caller plays.

    ``game`` is a registry id, a Game object or None (take the checkpoint's).
    Raises ValueError naming the mismatch: another game, player count, rule
    options, observation layout version or size, or action count.
    """
    from meeplezoo.envs.core import Game

    name = meta["game"]
    if isinstance(game, Game):
        if game.name != name:
            raise ValueError(f"{source} was trained for game {name!r}, not {game.name!r}")
        if num_players is not None and num_players != game.num_players:
            raise ValueError(f"num_players={num_players} contradicts the game object ({game.num_players} players)")
        if rule_options:
            raise ValueError("pass rule options through the Game object, not beside it")
        target = game
    else:
        if game is not None and game != name:
            raise ValueError(f"{source} was trained for game {name!r}, not {game!r}")
        cls = _game_class(name)
        n = meta["num_players"] if num_players is None else num_players
        opts = dict(meta["options"])
        opts.update(rule_options or {})
        target = cls(n, **opts)
    if target.num_players != meta["num_players"]:
        raise ValueError(
            f"{source} was trained for {meta['num_players']}-player {name}, not {target.num_players} players"
        )
    if target.options != meta["options"]:
        diff = {k: (meta["options"].get(k), v) for k, v in target.options.items() if meta["options"].get(k) != v}
        raise ValueError(
            f"{source} was trained with other rule options for {name}: "
            + ", ".join(f"{k}={old!r} in the checkpoint, {new!r} here" for k, (old, new) in diff.items())
        )
    version = type(target).observation_version
    if meta["observation_version"] != version:
        raise ValueError(
            f"{source} uses {name} observation layout version {meta['observation_version']}, but this "
            f"meeplezoo has version {version}; retrain the policy"
        )
    if target.observation_shape[0] != meta["observation_size"] or target.num_actions != meta["num_actions"]:
        raise ValueError(
            f"{source} expects observations of size {meta['observation_size']} and {meta['num_actions']} actions; "
            f"{name} has {target.observation_shape[0]} and {target.num_actions}"
        )
    return target


class PPOAgent(Agent):
    """A MaskablePPO policy playing through the Agent protocol; always legal via the mask.

    ``deterministic=True`` plays the most probable legal action (evaluation);
    ``False`` samples from the masked policy (self-play diversity, leagues),
    seeded by ``seed`` / ``reset(seed)``.
    """

    name = "ppo"

    def __init__(self, params: dict[str, np.ndarray], metadata: dict[str, Any], *, deterministic: bool = True,
                 seed: int | None = None, game: Any = None) -> None:
        if not isinstance(deterministic, bool):
            raise ValueError(f"ppo: deterministic must be true or false, got {deterministic!r}")
        self.metadata = metadata
        self.game = game
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)
        act = metadata.get("activation", "tanh")
        if act not in ACTIVATIONS:
            raise ValueError(f"ppo: unsupported activation {act!r}; known: {', '.join(ACTIVATIONS)}")
        self._act_fn = np.tanh if act == "tanh" else (lambda x: np.maximum(x, 0.0))
        self._trunk = None
        blocks = block_network(metadata)
        if blocks is not None:  # the block network's trunk, then SB3's linear action head
            from .network import PolicyValueNet

            trunk_game = game if game is not None else _meta_game(metadata)
            trunk = {k.removeprefix(BLOCKS_PREFIX): v for k, v in params.items() if k.startswith(BLOCKS_PREFIX)}
            self._trunk = PolicyValueNet(trunk_game, trunk, blocks, heads=False)
        # Linear layers alternate with activations in SB3's Sequential modules: indices 0, 2, 4, ...
        arch = metadata["net_arch"]
        names = [f"features_extractor.net.{2 * i}" for i in range(len(arch.get("features", [])))]
        names += [f"mlp_extractor.policy_net.{2 * i}" for i in range(len(arch["pi"]))]
        try:
            self._layers = [(np.ascontiguousarray(params[n + ".weight"].T), params[n + ".bias"]) for n in names]
            head = (np.ascontiguousarray(params["action_net.weight"].T), params["action_net.bias"])
        except KeyError as e:
            raise ValueError(f"ppo: checkpoint weights lack {e}; they do not match net_arch {arch}") from None
        self._head = head
        self.observation_size = int(metadata["observation_size"])
        self.num_actions = int(metadata["num_actions"])
        if self._layers and self._layers[0][0].shape[0] != self.observation_size:
            raise ValueError("ppo: weights do not match the observation size in the metadata")
        if self._head[0].shape[1] != self.num_actions:
            raise ValueError("ppo: weights do not match the number of actions in the metadata")

    # -- construction ----------------------------------------------------------
    @classmethod
    def load(cls, path: str | Path, game: Any = None, num_players: int | None = None, seed: int | None = None,
             **options: Any) -> PPOAgent:
        """Load a checkpoint, refusing one trained for another game, configuration or layout.

        ``game``: registry id or Game object to check against (None: the
        checkpoint's own).  ``options``: ``deterministic`` (default True); any
        other key is a rule option of the game and must match the checkpoint's.
        """
        deterministic = options.pop("deterministic", True)
        meta = read_metadata(path)
        target = check_compatible(meta, game, num_players, options, source=f"checkpoint {path}")
        agent = cls(_read_weights(Path(path), meta), meta, deterministic=deterministic, seed=seed, game=target)
        agent.name = f"ppo:{path}"
        return agent

    @classmethod
    def from_model(cls, model: Any, metadata: dict[str, Any], *, deterministic: bool = True,
                   seed: int | None = None) -> PPOAgent:
        """A frozen copy of an in-memory MaskablePPO model (used for evaluation during training)."""
        return cls(policy_arrays(model.policy), metadata, deterministic=deterministic, seed=seed)

    # -- facts -------------------------------------------------------------------
    @property
    def game_name(self) -> str:
        return self.metadata["game"]

    @property
    def num_players(self) -> int:
        return int(self.metadata["num_players"])

    @property
    def training_steps(self) -> int:
        return int(self.metadata.get("training_steps", 0))

    # -- acting ------------------------------------------------------------------
    def logits(self, observation: np.ndarray) -> np.ndarray:
        """Unmasked action logits for one observation (or a batch, shape (B, D))."""
        h = np.asarray(observation, dtype=np.float32)
        if h.shape[-1] != self.observation_size:
            raise ValueError(f"ppo: observation of size {h.shape[-1]}, the policy expects {self.observation_size}")
        if self._trunk is not None:
            z = self._trunk.features(h)
            z = z @ self._head[0] + self._head[1]
            return z[0] if h.ndim == 1 else z
        for i, (w, b) in enumerate(self._layers):
            if i == 0 and h.ndim == 1:
                # Board observations are mostly zeros (Kerala: ~100 of 20,936): multiply only the rows that count.
                nz = np.flatnonzero(h)
                z = h[nz] @ w[nz] if nz.size < h.size // 4 else h @ w
                h = self._act_fn(z + b)
            else:
                h = self._act_fn(h @ w + b)
        return h @ self._head[0] + self._head[1]

    def action_probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The masked policy: probability 0 on every illegal action."""
        mask = self._check_mask(action_mask)
        z = np.where(mask, self.logits(observation).astype(np.float64), -np.inf)
        z -= z.max()
        p = np.exp(z)
        return p / p.sum()

    def act(self, observation: np.ndarray, action_mask: np.ndarray, *, state: Any = None) -> int:
        mask = self._check_mask(action_mask)
        if self.deterministic:
            z = np.where(mask, self.logits(observation), -np.inf)
            return int(np.argmax(z))
        p = self.action_probabilities(observation, mask)
        return int(self.rng.choice(self.num_actions, p=p))

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def _check_mask(self, action_mask: np.ndarray) -> np.ndarray:
        mask = np.asarray(action_mask, dtype=bool)
        if mask.shape != (self.num_actions,):
            raise ValueError(f"ppo: action mask of shape {mask.shape}, the policy has {self.num_actions} actions")
        if not mask.any():
            raise ValueError("ppo: the action mask allows no action")
        return mask
