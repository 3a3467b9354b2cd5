"""Pretrained policy-value networks shipped with the package, one checkpoint per configuration.

``make("pretrained", game="kerala")`` is the shipped network of that game alone, greedy (no search);
``pretrained:time=0.5`` (or ``:sims=N``, or ``:search=true``, which means ``time=0.5``) is the
network-guided search with it (:func:`~meeplezoo.agents.network.network_search`; by default the search
the network was trained with, its leaf kind and rollouts, see :func:`search_defaults`; every ``mcts``
option applies), and
``pretrained:sample=true[:temperature=T]`` samples from its policy.  On the command line:
``meeplezoo arena kerala --agents pretrained,heuristic``.

The checkpoints in this folder are ``<game>-<players>p.zip``, a network for one player count (a block network, or
a seat network whose ``seat_counts`` hold that count alone), and
``<game>.zip``, a seat network (:mod:`~meeplezoo.agents.seatnet`) for every count its ``seat_counts`` list,
in the no-pickle format of :class:`~meeplezoo.agents.network.PolicyValueNet` (``meeplezoo.json`` +
``meeplezoo_net.npz``); their metadata records how each was trained (algorithm, command, seed, iterations,
samples, training CPU seconds).  A configuration plays the file of its own count where there is one, else the
seat network covering its count (:func:`checkpoint_path`); :func:`available` lists every configuration that
resolves.  A configuration without one (another player count, rule options such as Haus der Sonne's tactical
variant) is refused with a ValueError naming what exists.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from meeplezoo.knobs import Knob
from meeplezoo.registry import game_class

from ..base import Agent
from ..checkpoint import read_metadata_member, read_network_metadata
from ..network import NET_KNOBS, NetworkAgent, load_network, network_search
from ..search import NETWORK_SEARCH_KNOBS
from ..seat_layout import SEAT_ARCHITECTURE
from ..seatnet import read_seatnet_metadata

#: the folder holding the shipped checkpoints
FOLDER = Path(__file__).resolve().parent
#: the largest checkpoint that ships (bytes)
MAX_CHECKPOINT_BYTES = 5 * 1024 * 1024


def checkpoint_name(game: str, num_players: int | None = None) -> str:
    """The file name of the shipped checkpoint for ``game`` at ``num_players`` players (None: the seat network
    for every count, ``<game>.zip``)."""
    return f"{game}.zip" if num_players is None else f"{game}-{int(num_players)}p.zip"


def _entry(path: Path, meta: dict[str, Any], num_players: int) -> dict[str, Any]:
    return {"game": meta["game"], "num_players": num_players, "options": meta["options"],
            "rule_options": game_class(meta["game"]).rule_options_of(meta["options"]), "path": path,
            "architecture": meta["architecture"], "seat_counts": list(meta.get("seat_counts") or [num_players]),
            "training": {k: meta[k] for k in ("algorithm", "iterations", "samples", "training_cpu_seconds", "seed",
                                              "command") if k in meta}}


def available() -> list[dict[str, Any]]:
    """Every configuration a shipped checkpoint plays: ``game``, ``num_players``, ``options`` (as trained),
    ``rule_options`` (those options less the observation-only ones: the configuration it plays), ``path``,
    ``architecture``, ``seat_counts`` and the training facts.  A seat network gives one entry per count it
    covers that has no file of its own."""
    out, own = [], set()
    for path in sorted(FOLDER.glob("*-*p.zip")):  # a network for one count (of either architecture)
        seat = read_metadata_member(path, "network checkpoint").get("architecture") == SEAT_ARCHITECTURE
        meta = read_seatnet_metadata(path) if seat else read_network_metadata(path)
        n = int(path.stem.rsplit("-", 1)[1][:-1])
        if seat and n not in meta["seat_counts"]:
            raise ValueError(f"{path}: a network for {n} players whose seat_counts are {meta['seat_counts']}")
        out.append(_entry(path, meta, n))
        own.add((meta["game"], n))
    for path in sorted(FOLDER.glob("*.zip")):
        meta = read_metadata_member(path, "network checkpoint")
        if meta.get("architecture") != SEAT_ARCHITECTURE:
            continue
        meta = read_seatnet_metadata(path)
        out += [_entry(path, meta, int(n)) for n in meta["seat_counts"] if (meta["game"], int(n)) not in own]
    return sorted(out, key=lambda c: (c["game"], c["num_players"]))


def _shipped() -> str:
    """What ships, for an error message: ``kerala 2p, kerala 3-5p (seat network), ...``."""
    parts = []
    for c in available():
        if c["architecture"] == SEAT_ARCHITECTURE:
            parts.append(f"{c['game']} {c['num_players']}p (seat network {c['path'].name})")
        else:
            parts.append(f"{c['game']} {c['num_players']}p")
    return ", ".join(parts) or "none"


def checkpoint_path(game: Any, num_players: int | None = None) -> Path:
    """The shipped checkpoint for ``game`` (an id or a Game) at ``num_players`` (default the Game's, or 2): the
    file of that count (``<game>-<n>p.zip``) where there is one, else the seat network ``<game>.zip`` when its
    ``seat_counts`` cover the count.

    Raises ValueError naming the shipped configurations when there is none for this one.
    """
    name = game if isinstance(game, str) else getattr(game, "name", None)
    if name is None:
        raise ValueError("pretrained: a game is needed (make('pretrained', game='kerala'))")
    if num_players is None:
        num_players = 2 if isinstance(game, str) else int(game.num_players)
    path = FOLDER / checkpoint_name(name, num_players)
    if path.exists():
        return path
    seat = FOLDER / checkpoint_name(name)
    if seat.exists() and int(num_players) in read_seatnet_metadata(seat)["seat_counts"]:
        return seat
    raise ValueError(f"pretrained: no shipped network for {name!r} at {num_players} players; shipped: {_shipped()}")


#: search options of a training run's expert that play does not take over: the Gumbel root labels positions
#: under a simulation budget, and ``pretrained:time=...`` searches for a time
LABELLER_ONLY = ("root", "gumbel_k", "gumbel_scale")


def search_defaults(metadata: dict[str, Any]) -> dict[str, Any]:
    """The search a network was trained with (its expert's leaf kind, rollouts, ``c``, ``fpu``), from the
    ``exit_config`` in its metadata, or the ``search_defaults`` recorded when it was shipped (a network
    trained without a search of its own, by distillation): the defaults of ``pretrained:time=...``.  The
    expert's root (:data:`LABELLER_ONLY`) is left out: the search plays with PUCT's root."""
    if isinstance(metadata.get("search_defaults"), dict):
        return dict(metadata["search_defaults"])
    cfg = metadata.get("exit_config") or {}
    out: dict[str, Any] = {k: cfg[k] for k in ("c", "fpu", "leaf") if k in cfg}
    out.update({k: v for k, v in (cfg.get("search_options") or {}).items() if k not in LABELLER_ONLY})
    return out


#: the ``pretrained`` agent's settings: the network-guided search's (used when it searches) and the network
#: agent's ``sample``; ``temperature`` is the search's or, alone, the sampled policy's
PRETRAINED_KNOBS = NETWORK_SEARCH_KNOBS.extend("pretrained", [
    Knob("search", bool, False, "search with the network (for time seconds unless sims or time is given)"),
    Knob("time", float, 0.5, "seconds per decision when searching (given alone, or with search=true)",
         low=0, low_open=True),
    NET_KNOBS["sample"],
    Knob("temperature", float, None, "when searching, the search's visit temperature (default 0); alone with "
         "sample=true, the policy's (default 1)", low=0),
])


def make_pretrained(game: Any = None, num_players: int | None = None, seed: int | None = None,
                    **options: Any) -> Agent:
    """The ``pretrained`` agent: the shipped network alone, or searching with it when ``sims``/``time``/``search``
    is given.  A Game with rule options the checkpoint was not trained with is refused."""
    options = PRETRAINED_KNOBS.validate(options, fill=False)
    if num_players is None and game is not None:
        num_players = 2 if isinstance(game, str) else int(game.num_players)
    path = checkpoint_path(game, num_players)
    net = load_network(path, game, num_players)
    search = bool(options.pop("search", False)) or "sims" in options or "time" in options
    if options.get("temperature", 0) is None:
        del options["temperature"]
    if search:
        if "sims" not in options and "time" not in options:
            options["time"] = PRETRAINED_KNOBS["time"].default
        return network_search(net, seed=seed, **{**search_defaults(net.metadata), **options})
    return NetworkAgent(net, seed=seed, **options)
