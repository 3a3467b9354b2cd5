"""Checkpoints: the one module that writes and reads the two kinds of saved agent.

Both kinds are zip files read without executing code from the file, with the same members and checks:

* a *network checkpoint* (:func:`save_network`, :func:`read_network`): a policy-value network of
  :mod:`meeplezoo.agents.network`; members ``meeplezoo.json`` (what it plays, its architecture, how it
  was trained) and ``meeplezoo_net.npz`` (the weights, named as in the torch module's ``state_dict``);
* a *policy checkpoint* (:func:`save_checkpoint`, :func:`read_policy`): a PPO policy of
  :mod:`meeplezoo.agents.ppo`; stable-baselines3's MaskablePPO ``.zip`` (so ``MaskablePPO.load`` can resume
  training from it) with two extra members, ``meeplezoo.json`` and ``meeplezoo_policy.npz``.

Every read goes through :func:`read_metadata_member` (size capped, an object with typed keys) and
:func:`read_weights` (unpacked sizes bounded by the network the metadata describes before anything is read,
``allow_pickle=False``, numbers only, every array present, of its shape and finite); the game played is
checked against the one trained for (game, players, rule options, observation layout, actions) by
:func:`check_compatible` (policies) and :func:`network_game` (networks, which may also play a game that
differs only in observation options).
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from meeplezoo.envs.core import Game
from meeplezoo.knobs import is_int
from meeplezoo.registry import game_class

#: the metadata member of both kinds, and the weights members of a network and of a policy checkpoint
METADATA_MEMBER = "meeplezoo.json"
NET_WEIGHTS_MEMBER, POLICY_WEIGHTS_MEMBER = "meeplezoo_net.npz", "meeplezoo_policy.npz"
#: versions of the network and of the policy checkpoint members (bumped when they change)
NET_FORMAT = CHECKPOINT_FORMAT = 1
#: the network architecture a network checkpoint holds
ARCHITECTURE = "blocknet"
#: the metadata member is a few hundred bytes; anything near this is not one
MAX_METADATA_BYTES = 1 << 20
#: the largest policy-value network and PPO policy (float32 parameters) a checkpoint may hold
MAX_PARAMETERS, MAX_POLICY_PARAMETERS = 1 << 26, 1 << 28
#: room for the .npy headers and the zip directory of a weights member
NPZ_SLACK_BYTES = 1 << 16
#: the activations a PPO policy's layers may use
ACTIVATIONS = ("tanh", "relu")
#: where a block network's trunk sits in an SB3 policy's state dict
BLOCKS_PREFIX = "features_extractor.net."

#: required metadata keys and their types, per kind
NET_METADATA_KEYS: dict[str, type] = {
    "format": int, "architecture": str, "game": str, "num_players": int, "options": dict,
    "observation_version": int, "observation_size": int, "num_actions": int, "config": dict,
}
POLICY_METADATA_KEYS: dict[str, type] = {
    "game": str, "num_players": int, "options": dict, "observation_version": int, "observation_size": int,
    "num_actions": int, "net_arch": dict,
}
#: the widths of a BlockNet (``BlockNetConfig`` fields)
CONFIG_KEYS = ("channels", "conv_layers", "flat_hidden", "trunk_hidden")
#: optional widths and their defaults (a checkpoint without them was written before they existed):
#: ``board_channels`` 0 pools each board's convolutions over the cells (global average); N > 0 keeps the
#: cells, a 1x1 convolution to N channels flattened into the trunk, so the policy can tell where;
#: ``trunk_layers`` is the number of ReLU layers of the trunk, each ``trunk_hidden`` wide;
#: ``action_hidden`` 0 has no action head, H > 0 scores the actions of the game's action features
#: (``ObservationSpec.action_features``) one by one with an H-unit head (``training/networks.py``)
OPTIONAL_CONFIG: dict[str, int] = {"board_channels": 0, "trunk_layers": 1, "action_hidden": 0}


# -- writing ------------------------------------------------------------------------------------------
def _write(path: Path, metadata: Mapping[str, Any], weights_member: str, arrays: Mapping[str, Any], *,
           append_to: Path | None = None, stored: bool = False, dtype: Any = np.float32) -> Path:
    """Add the two meeplezoo members to ``append_to`` (or a new zip) and move it to ``path`` atomically: a
    partial file never replaces a good one."""
    buf = io.BytesIO()
    np.savez(buf, **{k: np.asarray(v, dtype=dtype) for k, v in arrays.items()})
    tmp = append_to if append_to is not None else path.with_name(path.name + ".tmp")
    with zipfile.ZipFile(tmp, "a" if append_to is not None else "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr(METADATA_MEMBER, json.dumps(dict(metadata), indent=2, sort_keys=True))
        z.writestr(weights_member, buf.getvalue(), compress_type=zipfile.ZIP_STORED if stored else None)
    tmp.replace(path)
    return path


def save_network(path: str | Path, arrays: Mapping[str, np.ndarray], metadata: Mapping[str, Any],
                 dtype: Any = np.float32) -> Path:
    """Write a network checkpoint, weights as ``dtype`` (atomically: a partial file never replaces a good one)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return _write(path, metadata, NET_WEIGHTS_MEMBER, arrays, dtype=dtype)


def policy_arrays(policy: Any) -> dict[str, np.ndarray]:
    """The acting part of a MaskableActorCriticPolicy (shared features, policy layers, action head) as numpy."""
    keep = ("features_extractor.", "mlp_extractor.policy_net.", "action_net.")
    return {k: v.detach().cpu().numpy().astype(np.float32) for k, v in policy.state_dict().items()
            if k.startswith(keep)}


def save_checkpoint(model: Any, path: str | Path, metadata: dict[str, Any], *, light: bool = False) -> Path:
    """Write a policy checkpoint of a MaskablePPO ``model``; returns its path.

    Full (default): ``model.save(path)`` plus the metadata and numpy weights members, so both
    ``MaskablePPO.load`` and :meth:`~meeplezoo.agents.ppo.PPOAgent.load` read it.  ``light``: only the two
    meeplezoo members (no value net, no optimiser state): a fraction of the size, for self-play snapshots
    that are only played.
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
    meta = {"format": CHECKPOINT_FORMAT, **metadata}
    return _write(path, meta, POLICY_WEIGHTS_MEMBER, policy_arrays(model.policy), append_to=tmp,
                  stored=True)  # floats barely compress


# -- reading: the metadata member ----------------------------------------------------------------------
def read_metadata_member(path: str | Path, what: str, missing_hint: str = "") -> dict[str, Any]:
    """The ``meeplezoo.json`` member of a checkpoint as a dict (ValueError naming what is wrong).

    ``what`` names the kind in errors (``"network checkpoint"``); ``missing_hint`` is added when the member
    is absent (where a plain model of another library should go instead).
    """
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{what} {str(path)!r} does not exist")
    try:
        with zipfile.ZipFile(path) as zf:
            if METADATA_MEMBER not in zf.namelist():
                raise ValueError(f"{path} is not a meeplezoo {what} (no {METADATA_MEMBER} member{missing_hint})")
            size = zf.getinfo(METADATA_MEMBER).file_size
            if size > MAX_METADATA_BYTES:
                raise ValueError(f"{path}: {METADATA_MEMBER} unpacks to {size} bytes, more than a checkpoint's "
                                 f"metadata can be ({MAX_METADATA_BYTES}); refusing to read it")
            meta = json.loads(zf.read(METADATA_MEMBER))
    except (zipfile.BadZipFile, EOFError):
        raise ValueError(f"{path} is not a readable {what} (not a zip file)") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ValueError(f"{path}: corrupt {METADATA_MEMBER} ({e})") from None
    except (OSError, NotImplementedError, RuntimeError) as e:  # unreadable, unsupported compression, encrypted
        raise ValueError(f"{path}: cannot read the {what} ({type(e).__name__}: {e})") from None
    if not isinstance(meta, dict):
        raise ValueError(f"{path}: {METADATA_MEMBER} holds a JSON {type(meta).__name__}, not an object")
    return meta


def check_metadata_keys(meta: Mapping[str, Any], keys: Mapping[str, type], source: str) -> None:
    """Raise ValueError naming the first missing or ill-typed key of ``meta``."""
    for key, kind in keys.items():
        if key not in meta:
            raise ValueError(f"{source}: {METADATA_MEMBER} lacks {key!r}")
        value = meta[key]
        if (kind is int and not is_int(value)) or (kind is not int and not isinstance(value, kind)):
            label = {int: "an integer", str: "a string", dict: "an object"}[kind]
            raise ValueError(f"{source}: {METADATA_MEMBER} key {key!r} must be {label}, got {value!r}")
    for key in ("num_players", "observation_size", "num_actions"):
        if meta[key] < 1:
            raise ValueError(f"{source}: {METADATA_MEMBER} key {key!r} must be >= 1, got {meta[key]!r}")


def full_config(config: Mapping[str, Any]) -> dict[str, int]:
    """``config`` with every width (optional ones at their defaults), as ints."""
    out = {k: int(config[k]) for k in CONFIG_KEYS}
    out.update({k: int(config.get(k, d)) for k, d in OPTIONAL_CONFIG.items()})
    if out["trunk_layers"] < 1:
        raise ValueError(f"network config: trunk_layers must be >= 1, got {out['trunk_layers']}")
    return out


def check_block_config(cfg: Any, source: str) -> dict[str, int]:
    """A block network's widths checked (positive ints, optional ones >= 0) and completed."""
    ok = isinstance(cfg, dict) and set(CONFIG_KEYS) <= set(cfg) and set(cfg) - set(CONFIG_KEYS) <= set(OPTIONAL_CONFIG)
    ok = ok and all(is_int(cfg[k]) and cfg[k] >= 1 for k in CONFIG_KEYS) \
        and all(is_int(cfg[k]) and cfg[k] >= 0 for k in set(cfg) - set(CONFIG_KEYS)) \
        and cfg.get("trunk_layers", 1) != 0
    if not ok:
        raise ValueError(f"{source}: block network config must give positive ints for {', '.join(CONFIG_KEYS)} "
                         f"(and optionally {', '.join(OPTIONAL_CONFIG)} >= 0, trunk_layers >= 1), got {cfg!r}")
    return full_config(cfg)


def read_network_metadata(path: str | Path) -> dict[str, Any]:
    """The metadata of a network checkpoint (ValueError naming what is wrong if it is not one)."""
    meta = read_metadata_member(path, "network checkpoint")
    check_metadata_keys(meta, NET_METADATA_KEYS, str(path))
    if meta["architecture"] != ARCHITECTURE:
        raise ValueError(f"{path}: architecture {meta['architecture']!r} is not {ARCHITECTURE!r}")
    if meta["format"] > NET_FORMAT:
        raise ValueError(f"{path}: network format {meta['format']} is newer than this meeplezoo reads ({NET_FORMAT})")
    check_block_config(meta["config"], str(path))
    return meta


def read_metadata(path: str | Path) -> dict[str, Any]:
    """The ``meeplezoo.json`` member of a policy checkpoint (ValueError if it is not one, or not a complete one)."""
    meta = read_metadata_member(path, "PPO checkpoint", (
        "; train with `meeplezoo train` or meeplezoo.training.ppo.train; "
        f"a plain stable-baselines3 model plays as sb3:{path}"))
    if meta.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"{path}: checkpoint format {meta.get('format')!r} is not {CHECKPOINT_FORMAT}")
    check_metadata(meta, source=str(path))
    return meta


#: the name the policy reader also goes by (beside :func:`read_network_metadata`)
read_policy_metadata = read_metadata


def check_metadata(meta: dict[str, Any], source: str = "checkpoint") -> None:
    """Raise ValueError naming the first missing or ill-typed key of a policy checkpoint's metadata."""
    check_metadata_keys(meta, POLICY_METADATA_KEYS, source)
    layer_widths(meta, source)
    act = meta.get("activation", "tanh")
    if act not in ACTIVATIONS:
        raise ValueError(f"{source}: unsupported activation {act!r}; known: {', '.join(ACTIVATIONS)}")


def layer_widths(meta: dict[str, Any], source: str = "checkpoint") -> tuple[list[int], list[int]]:
    """``(features, pi)`` hidden widths of a PPO policy's acting network, checked to be lists of positive ints."""
    arch = meta["net_arch"]
    out = []
    for key in ("features", "pi"):
        widths = arch.get(key, [] if key == "features" else None)
        if not isinstance(widths, list) or not all(is_int(w) and w >= 1 for w in widths):
            raise ValueError(f"{source}: {METADATA_MEMBER} net_arch[{key!r}] must be a list of positive ints, "
                             f"got {widths!r}")
        out.append(widths)
    return out[0], out[1]


def block_network(meta: dict[str, Any], source: str = "checkpoint") -> dict[str, int] | None:
    """The widths of the block network a policy checkpoint uses (``net="blocks"``), or None for the MLP."""
    network = meta.get("network")
    if network is None:
        return None
    if not isinstance(network, dict) or network.get("kind") != "blocks" or not isinstance(network.get("config"), dict):
        raise ValueError(f"{source}: {METADATA_MEMBER} 'network' must be {{'kind': 'blocks', 'config': {{...}}}}, "
                         f"got {network!r}")
    return check_block_config(network["config"], source)


# -- shapes: what the metadata says the weights are ----------------------------------------------------
def blocknet_shapes(game: Any, config: Mapping[str, int], *, heads: bool = True) -> dict[str, tuple[int, ...]]:
    """The name and shape of every weight of a BlockNet for ``game`` (torch ``state_dict`` names;
    ``heads=False``: the trunk only, as inside a PPO policy)."""
    config = full_config(config)
    ch, layers, bc = config["channels"], config["conv_layers"], config["board_channels"]
    out: dict[str, tuple[int, ...]] = {}
    flat_size = width = 0
    boards = game.observation_spec.spatial_names()
    for name, (shape, _lo, _hi, sl) in game.observation_spec.structure().items():
        if name not in boards:
            flat_size += sl.stop - sl.start
            continue
        cin = int(np.prod(shape[:-2], dtype=np.int64))
        for i in range(layers):
            out[f"convs.{name}.{2 * i}.weight"] = (ch, cin, 3, 3)
            out[f"convs.{name}.{2 * i}.bias"] = (ch,)
            cin = ch
        if bc:
            out[f"cells.{name}.weight"] = (bc, ch, 1, 1)
            out[f"cells.{name}.bias"] = (bc,)
            width += bc * int(shape[-2]) * int(shape[-1])
        else:
            width += ch
    if flat_size:
        out["flat_mlp.0.weight"] = (int(config["flat_hidden"]), flat_size)
        out["flat_mlp.0.bias"] = (int(config["flat_hidden"]),)
        width += int(config["flat_hidden"])
    th = int(config["trunk_hidden"])
    out["trunk.0.weight"] = (th, width)
    out["trunk.0.bias"] = (th,)
    for i in range(1, int(config["trunk_layers"])):
        out[f"trunk.{2 * i}.weight"] = (th, th)
        out[f"trunk.{2 * i}.bias"] = (th,)
    if heads:
        out.update(_head_shapes(game, th, int(config["action_hidden"])))
    return out


def _head_shapes(game: Any, th: int, hid: int) -> dict[str, tuple[int, ...]]:
    out: dict[str, tuple[int, ...]] = {
        "policy.weight": (game.num_actions, th), "policy.bias": (game.num_actions,),
        "value.weight": (game.num_players, th), "value.bias": (game.num_players,)}
    if not hid:
        return out
    af = game.observation_spec.action_features
    if af is None:
        raise ValueError(f"this network has an action head (action_hidden={hid}) but {game!r} declares no "
                         "action features (Kerala: elephant_view=True)")
    mid = max(hid // 2, 1)
    out["action_trunk.weight"], out["action_trunk.bias"] = (hid, th), (hid,)
    for f in af.factors:
        if f.gather is None:
            out[f"action_items.{f.name}"] = (f.items, hid)
        else:
            out[f"action_inputs.{f.name}.weight"] = (hid, f.size)
    return out | {"action_mid.weight": (mid, hid), "action_mid.bias": (mid,), "action_out.weight": (1, mid),
                  "action_out.bias": (1,)}


def checkpoint_game(meta: Mapping[str, Any]) -> Any:
    """The Game a checkpoint's metadata was trained for."""
    return game_class(meta["game"])(meta["num_players"], **meta["options"])


def expected_shapes(meta: dict[str, Any], source: str = "checkpoint") -> dict[str, tuple[int, ...]]:
    """Every array a PPO policy needs, with its shape, from the metadata alone (refused past
    :data:`MAX_POLICY_PARAMETERS`)."""
    features, pi = layer_widths(meta, source)
    shapes: dict[str, tuple[int, ...]] = {}
    last = int(meta["observation_size"])
    blocks = block_network(meta, source)
    if blocks is not None:
        trunk = blocknet_shapes(checkpoint_game(meta), blocks, heads=False)
        shapes.update({BLOCKS_PREFIX + k: v for k, v in trunk.items()})
        last = blocks["trunk_hidden"]
        features = []
    names = [f"features_extractor.net.{2 * i}" for i in range(len(features))]
    names += [f"mlp_extractor.policy_net.{2 * i}" for i in range(len(pi))]
    for name, width in zip(names, [*features, *pi]):
        shapes[name + ".weight"], shapes[name + ".bias"] = (width, last), (width,)
        last = width
    na = int(meta["num_actions"])
    shapes["action_net.weight"], shapes["action_net.bias"] = (na, last), (na,)
    _check_size(shapes, MAX_POLICY_PARAMETERS, source, "the metadata describes a policy")
    return shapes


def _check_size(shapes: Mapping[str, tuple[int, ...]], limit: int, source: str, what: str) -> None:
    total = sum(int(np.prod(s)) for s in shapes.values())
    if total > limit:
        raise ValueError(f"{source}: {what} of {total} parameters, more than {limit}; refusing to load it")


# -- reading: the weights member -----------------------------------------------------------------------
def _npy_bound(shape: tuple[int, ...]) -> int:
    """The most bytes one float array of ``shape`` may take in an .npy file (float64 and a header allowed)."""
    return 8 * int(np.prod(shape)) + 4096


def read_weights(path: str | Path, member: str, shapes: Mapping[str, tuple[int, ...]]) -> dict[str, np.ndarray]:
    """The arrays of a weights member as float32, refusing before reading anything that unpacks to more
    than the network of ``shapes`` needs; then checked by :func:`check_weights`.  Never unpickles."""
    path = Path(path)
    limit = sum(_npy_bound(s) for s in shapes.values()) + NPZ_SLACK_BYTES
    try:
        with zipfile.ZipFile(path) as zf:
            if member not in zf.namelist():
                raise ValueError(f"{path}: checkpoint has no {member}")
            declared = zf.getinfo(member).file_size
            if declared > limit:
                raise ValueError(f"{path}: {member} unpacks to {declared} bytes, but the network in its "
                                 f"metadata needs at most {limit}; refusing to read it")
            data = zf.read(member)
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
        raise ValueError(f"{path}: corrupt {member} ({type(e).__name__}: {e})") from None
    except ValueError as e:
        if str(e).startswith(str(path)):
            raise
        raise ValueError(f"{path}: cannot load {member} ({e})") from None
    check_weights(arrays, shapes, str(path))
    return arrays


def check_weights(params: Mapping[str, np.ndarray], shapes: Mapping[str, tuple[int, ...]], source: str) -> None:
    """Every array the network needs is there, has the shape the metadata implies and is finite."""
    for name, shape in shapes.items():
        if name not in params:
            raise ValueError(f"{source}: the weights lack {name!r}")
        got = tuple(params[name].shape)
        if got != shape:
            raise ValueError(f"{source}: weight {name!r} has shape {got}, the network in the metadata needs {shape}")
        if not np.isfinite(params[name]).all():
            raise ValueError(f"{source}: weights {name!r} hold NaN or infinite values")


# -- the game a checkpoint plays -----------------------------------------------------------------------
def _check_layout(meta: Mapping[str, Any], target: Any, source: str) -> None:
    """The observation layout version and size and the action count of ``target`` are the checkpoint's."""
    name = meta["game"]
    version = type(target).observation_version
    if meta["observation_version"] != version:
        raise ValueError(f"{source} uses {name} observation layout version {meta['observation_version']}, but "
                         f"this meeplezoo has version {version}; the network was trained on another observation "
                         "layout: retrain it")
    if target.observation_shape[0] != meta["observation_size"] or target.num_actions != meta["num_actions"]:
        raise ValueError(f"{source} expects observations of size {meta['observation_size']} and "
                         f"{meta['num_actions']} actions; {name} has {target.observation_shape[0]} and "
                         f"{target.num_actions} (another observation layout or action set)")


def check_compatible(meta: dict[str, Any], game: Any = None, num_players: int | None = None,
                     rule_options: dict[str, Any] | None = None, source: str = "checkpoint") -> Any:
    """The Game a policy checkpoint was trained for, after checking it against what the caller plays.

    ``game`` is a registry id, a Game object or None (take the checkpoint's).  Raises ValueError naming the
    mismatch: another game, player count, rule options, observation layout version or size, or action count.
    """
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
        n = meta["num_players"] if num_players is None else num_players
        target = game_class(name)(n, **{**meta["options"], **(rule_options or {})})
    if target.num_players != meta["num_players"]:
        raise ValueError(f"{source} was trained for {meta['num_players']}-player {name}, "
                         f"not {target.num_players} players")
    if target.options != meta["options"]:
        diff = {k: (meta["options"].get(k), v) for k, v in target.options.items() if meta["options"].get(k) != v}
        raise ValueError(f"{source} was trained with other rule options for {name}: "
                         + ", ".join(f"{k}={old!r} in the checkpoint, {new!r} here" for k, (old, new) in diff.items()))
    _check_layout(meta, target, source)
    return target


def network_game(meta: dict[str, Any], game: Any = None, num_players: int | None = None,
                 source: str = "checkpoint") -> Any:
    """The Game a network checkpoint plays as, after checking it against ``game`` (an id, a Game or None).

    Another game, player count or rule options is refused.  A Game with the same rules but other
    observation options gets the network's own game back (the network then observes through it).
    """
    gname = game if isinstance(game, str) or game is None else game.name
    if gname is not None and gname != meta["game"]:
        raise ValueError(f"{source} is a network for {meta['game']!r}, not {gname!r}")
    players = num_players if num_players is not None else (
        game.num_players if game is not None and not isinstance(game, str) else None)
    if players is not None and players != meta["num_players"]:
        raise ValueError(f"{source} is a network for {meta['num_players']} players, not {players}")
    if game is None or isinstance(game, str):
        game = checkpoint_game(meta)
    elif dict(game.non_default_options) != meta["options"]:
        trained = game.rule_options_of(meta["options"])
        if game.rule_options != trained:
            raise ValueError(f"{source} was trained with rule options {trained}, not {dict(game.rule_options)}")
        game = checkpoint_game(meta)
    _check_layout(meta, game, source)
    return game


def read_network(path: str | Path, game: Any = None, num_players: int | None = None,
                 ) -> tuple[Any, dict[str, np.ndarray], dict[str, Any]]:
    """``(game, arrays, metadata)`` of a network checkpoint, checked against ``game``/``num_players`` (see
    :func:`network_game`) and its weights against the architecture in its metadata."""
    meta = read_network_metadata(path)
    target = network_game(meta, game, num_players, source=str(path))
    shapes = blocknet_shapes(target, meta["config"])
    _check_size(shapes, MAX_PARAMETERS, str(path), "a network")
    return target, read_weights(path, NET_WEIGHTS_MEMBER, shapes), meta


def read_policy(path: str | Path, game: Any = None, num_players: int | None = None,
                rule_options: dict[str, Any] | None = None) -> tuple[Any, dict[str, np.ndarray], dict[str, Any]]:
    """``(game, arrays, metadata)`` of a policy checkpoint, checked against the game played (see
    :func:`check_compatible`) and its weights against the network in its metadata."""
    meta = read_metadata(path)
    target = check_compatible(meta, game, num_players, rule_options, source=f"checkpoint {path}")
    return target, read_weights(path, POLICY_WEIGHTS_MEMBER, expected_shapes(meta, str(path))), meta


def network_metadata(game: Any, config: Mapping[str, int], **training: Any) -> dict[str, Any]:
    """The ``meeplezoo.json`` of a network for ``game`` with widths ``config`` (plus training facts)."""
    return {"format": NET_FORMAT, "architecture": ARCHITECTURE, "game": game.name,
            "num_players": game.num_players, "options": dict(game.non_default_options),
            "observation_version": game.observation_version, "observation_size": int(game.observation_shape[0]),
            "num_actions": game.num_actions, "config": full_config(config), **training}
