"""Strength of learned networks against the heuristics: the network alone and the search guided by it.

For every configuration (Kerala, Haus der Sonne base and tactical, Hawaii, Asara base and professional) at
each player count of ``--players`` (default 2; ``--players 2,3,4,5``: every count each game plays) the agent
``net:CHECKPOINT`` (greedy, no search) and, with ``--search``, ``netmcts:CHECKPOINT:time=0.5`` play
``n - 1`` copies of the heuristic, the agent's seat rotated over every seat of each duplicated deal (the
deals of ``search_strength.py``).  A game's first places share one win (``win`` is 1/k for each of k tied
firsts), ``win_rate`` is the agent's share of first places, its interval the 95% Wilson interval; the
baseline is 1/n.  ``--checkpoint`` is a pattern with ``{game}`` and ``{key}`` (the configuration key, such
as ``kerala-3``), by default the expert-iteration run directories ``runs/exit/{key}/best.zip``; a seat network
plays every count from one file (``--checkpoint runs/exit/kerala/best.zip --players 2,3,4,5``).
Configurations without a checkpoint are skipped with a note.

Every finished game is one JSON line in ``--matches`` (by default ``--json``'s name with ``_matches`` and
the extension ``.jsonl``: ``learned_strength_matches.jsonl``; read back to resume), with the sha256 of the
checkpoint it played and that checkpoint's training CPU hours (from its own metadata).  The summary rows
(``game``, ``players``, ``agent``, ``opponent``, ``games``, ``wins`` (first places, ties split),
``win_rate``, ``ci_low``, ``ci_high``, ``seconds_per_decision``, ``training_cpu_hours``,
``checkpoint_sha256`` and its prefix ``checkpoint``, ``superseded``, ...) are rewritten to ``--json`` after
each game: one row per agent spec *and checkpoint*, so games of a network that has since been replaced (a
new ``pretrained`` file, a retrained ``runs/.../best.zip``) are never counted with the new one's: their rows,
marked ``superseded: true``, go to the history file (``--history``, by default ``--json``'s name with
``_history``; written once there is such a row), so that ``--json`` describes the networks the specs name
today.  The matches file keeps every game.

    .venv/bin/python benchmarks/learned_strength.py --games 200 --search
    .venv/bin/python benchmarks/learned_strength.py --checkpoint pretrained --games 200   # the shipped networks
    .venv/bin/python benchmarks/learned_strength.py --config haus_der_sonne-2 --checkpoint runs/hds/best.zip
    .venv/bin/python benchmarks/learned_strength.py --players 3,4,5 --config kerala-3 --config kerala-4 \
        --config kerala-5 --checkpoint runs/exit/kerala/best.zip     # a seat network at 3, 4 and 5 players
    # two processes sharing the games (and the files) of one configuration
    .venv/bin/python benchmarks/learned_strength.py --config asara-2 --checkpoint pretrained --shard 0/2 &
    .venv/bin/python benchmarks/learned_strength.py --config asara-2 --checkpoint pretrained --shard 1/2
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

import search_strength as S

from meeplezoo.agents.network import load_network
from meeplezoo.agents.pretrained import available
from meeplezoo.agents.seat_layout import SEAT_ARCHITECTURE
from meeplezoo.registry import game_class
from meeplezoo.training.league_storage import file_sha256

TWO_PLAYER = [c for c in S.CONFIGS if c.players == 2]  # noqa: PLR2004
DEFAULT_PATTERN = os.path.join("runs", "exit", "{key}", "best.zip")
#: the characters of a checkpoint's sha256 in a row's ``checkpoint``
SHA_PREFIX = 12


def configs_at(counts: list[int]) -> list[S.Config]:
    """The configurations (those of :data:`TWO_PLAYER`) at each player count of ``counts`` its game plays,
    keyed ``<name>-<players>`` (``kerala-3``)."""
    out = []
    for n in counts:
        for c in TWO_PLAYER:
            cls = game_class(c.game)
            if cls.min_players <= n <= cls.max_players:
                out.append(S.Config(f"{c.key.rsplit('-', 1)[0]}-{n}", c.game, n, dict(c.rules)))
    return out


def _metadata(path: str) -> dict[str, Any]:
    from meeplezoo.agents.checkpoint import read_metadata_member

    return read_metadata_member(path, "network checkpoint")


def training_cpu_hours(path: str) -> float | None:
    """The CPU hours the checkpoint's trainer recorded (None if it did not)."""
    meta = _metadata(path)
    secs = meta.get("training_cpu_seconds")
    return round(float(secs) / 3600, 3) if isinstance(secs, (int, float)) else None


def untrained_copy(path: str, folder: str) -> str:
    """A network of the same game, shape and training config as ``path`` as the trainer initialises it
    (torch seed 0), written once to ``folder``: the untrained prior the trained one is compared with."""
    from meeplezoo.agents.network import PolicyValueNet

    net = load_network(path)
    meta = net.metadata
    seat = meta["architecture"] == SEAT_ARCHITECTURE
    name = f"{meta['game']}-{'seatnet' if seat else str(meta['num_players']) + 'p'}-untrained.zip"
    out = os.path.join(folder, name)
    if not os.path.isfile(out):
        import torch

        from meeplezoo.training.networks import BlockNet, BlockNetConfig

        os.makedirs(folder, exist_ok=True)
        torch.manual_seed(0)
        g = net.game
        untrained = {k: v for k, v in meta.items() if k not in ("training_cpu_seconds", "iterations", "samples")}
        if seat:
            from meeplezoo.agents.seatnet import SeatPolicyValueNet
            from meeplezoo.training.seatnet import SeatNet, SeatNetConfig

            fresh = SeatNet(g, SeatNetConfig(**net.config), net.seat_counts)
            SeatPolicyValueNet(g, fresh.arrays(), net.config, {**untrained, "untrained": True},
                               seat_counts=net.seat_counts).save(out)
            return out
        fresh = BlockNet(g.observation_spec, g.num_actions, g.num_players, BlockNetConfig(**net.config))
        PolicyValueNet(g, fresh.arrays(), net.config, {**untrained, "untrained": True}).save(out)
    return out


def _spec_path(spec: str, cfg: S.Config) -> str | None:
    """The checkpoint an agent spec plays (``net:``/``netmcts:`` path, or the shipped ``pretrained`` one)."""
    name, _, rest = spec.partition(":")
    if name in ("net", "netmcts"):
        return rest.split(":")[0]
    if name == "pretrained":
        from meeplezoo.agents.pretrained import checkpoint_path

        return str(checkpoint_path(cfg.game, cfg.players))
    return None


def summary_rows(matches: list[dict[str, Any]], configs: dict[str, S.Config],
                 paths: dict[tuple[str, str], str] | None = None,
                 hashes: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """The summary rows of ``matches``: one per (configuration, agent spec, opponent, checkpoint sha256).

    A game played twice (same deal, seat and checkpoint: the same game) counts once.  A row whose spec names a
    checkpoint (``paths``, else the spec's own path) that now has another hash is ``superseded``; its training
    hours are those its games recorded, else (older files) the current checkpoint's when the hash matches.
    """
    paths = paths or {}
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    seen = set()
    for m in matches:
        sha = m.get("checkpoint_sha256")
        key = (m["config"], m["agent"], m["opponent"], sha, m["deal"], m["seat"])
        if key not in seen:
            seen.add(key)
            groups.setdefault(key[:4], []).append(m)
    current: dict[str, str | None] = dict(hashes or {})  # path -> its sha256 now (``hashes``: already known)
    rows = []
    for (key, spec, opp, sha), mine in groups.items():
        if key not in configs:
            continue
        row = S.summarise(configs[key], spec, opp, mine)
        path = paths.get((key, spec)) or _spec_path(spec, configs[key])
        if path and path not in current:
            current[path] = file_sha256(path) if os.path.isfile(path) else None
        now = current.get(path) if path else None
        recorded = [m["training_cpu_hours"] for m in mine if m.get("training_cpu_hours") is not None]
        if recorded:
            row["training_cpu_hours"] = recorded[0]
        else:
            row["training_cpu_hours"] = training_cpu_hours(path) if now is not None and now == sha else None
        row["checkpoint_sha256"] = sha
        row["checkpoint"] = sha[:SHA_PREFIX] if sha else None
        row["superseded"] = bool(sha and now and now != sha)
        rows.append(row)
    return rows


def matches_path(json_path: str) -> str:
    """Where the games go by default: ``--json``'s path with ``_matches`` and the extension ``.jsonl``."""
    return f"{os.path.splitext(json_path)[0]}_matches.jsonl"


def history_path(json_path: str) -> str:
    """Where the rows of replaced networks go: ``--json``'s path with ``_history`` before its extension."""
    stem, ext = os.path.splitext(json_path)
    return f"{stem}_history{ext or '.json'}"


def table(rows: list[dict[str, Any]]) -> str:
    """The summary rows as text: one line per configuration, agent and checkpoint (superseded ones marked)."""
    out = [f"{'config':<18} {'agent':<34} {'checkpoint':<10} {'games':>5} {'win rate':>8} {'95% CI':>15} {'s/dec':>6}"]
    for r in rows:
        ci = f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}]"
        sha = (r.get("checkpoint_sha256") or "-")[:8] + (" *" if r.get("superseded") else "")
        out.append(f"{r['config']:<18} {r['agent'][:34]:<34} {sha:<10} {r['games']:>5} {r['win_rate']:>8.3f} "
                   f"{ci:>15} {r['seconds_per_decision'] or 0:>6.3f}")
    if any(r.get("superseded") for r in rows):
        out.append("* superseded: the file the spec names has changed since these games")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--players", default="2", metavar="N[,N...]",
                   help="player counts (default 2): the network alone against n-1 heuristics at each")
    p.add_argument("--config", action="append", help="only this configuration key (repeatable); keys: "
                   + ", ".join(c.key for c in TWO_PLAYER) + ", and NAME-N at other counts (kerala-3)")
    p.add_argument("--checkpoint", default=DEFAULT_PATTERN,
                   help="checkpoint path pattern ({game}, {key}), or 'pretrained': the networks shipped in the package")
    p.add_argument("--games", type=int, default=200, help="games per configuration and agent (even)")
    p.add_argument("--per-pass", type=int, default=10, help="games per configuration in each round-robin pass")
    p.add_argument("--search", action="store_true", help="also the search guided by the network")
    p.add_argument("--search-spec", default="time=0.5", help="netmcts options (default time=0.5)")
    p.add_argument("--search-games", type=int, default=None, help="games of the search (default --games)")
    p.add_argument("--untrained", action="store_true",
                   help="with --search: also the same search with an untrained network of the same shape as the prior")
    p.add_argument("--opponent", default="heuristic")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--matches", default=None, help="every game played, one JSON line each (default: --json's "
                   "name with _matches and .jsonl, learned_strength_matches.jsonl)")
    p.add_argument("--json", default=os.path.join(S.RESULTS, "learned_strength.json"),
                   help="the summary rows of the networks the specs name today")
    p.add_argument("--history", default=None, help="the summary rows of networks since replaced (default: "
                   "--json's name with _history, learned_strength_history.json)")
    p.add_argument("--minutes", type=float, default=None, help="stop starting games after this long")
    p.add_argument("--shard", default="0/1", metavar="K/N",
                   help="play only every N-th game from the K-th (0-based): N processes with K = 0..N-1 share "
                        "the games and the files, each game played once")
    args = p.parse_args(argv)
    args.matches = args.matches or matches_path(args.json)
    try:
        shard, shards = (int(x) for x in args.shard.split("/"))
        if not 0 <= shard < shards:
            raise ValueError
    except ValueError:
        p.error(f"--shard {args.shard!r}: expected K/N with 0 <= K < N, e.g. 1/2")
    try:
        counts = sorted({int(x) for x in args.players.split(",") if x.strip()})
        if not counts or counts[0] < 2:  # noqa: PLR2004
            raise ValueError
    except ValueError:
        p.error(f"--players {args.players!r}: expected player counts >= 2 such as 2 or 3,4,5")
    every = configs_at(counts)
    configs = [c for c in every if not args.config or c.key in args.config]
    unknown = set(args.config or []) - {c.key for c in configs}
    if unknown:
        p.error(f"unknown configuration(s) {sorted(unknown)}")
    plans: list[tuple[S.Config, str, str]] = []
    for cfg in configs:
        if args.checkpoint == "pretrained":
            shipped = {(c["game"], c["num_players"], json.dumps(c["rule_options"], sort_keys=True)): c["path"]
                       for c in available()}
            path = shipped.get((cfg.game, cfg.players, json.dumps(cfg.rules, sort_keys=True)))
            if path is None:
                print(f"{cfg.key}: no shipped network; skipped", flush=True)
                continue
            plans.append((cfg, "pretrained", str(path)))
            if args.search:
                plans.append((cfg, f"pretrained:{args.search_spec}", str(path)))
            continue
        path = args.checkpoint.format(game=cfg.game, key=cfg.key)
        if not os.path.isfile(path):
            print(f"{cfg.key}: no checkpoint at {path}; skipped", flush=True)
            continue
        plans.append((cfg, f"net:{path}", path))
        if args.search:
            plans.append((cfg, f"netmcts:{path}:{args.search_spec}", path))
    deadline = None if args.minutes is None else time.time() + 60 * args.minutes
    matches = S.read_matches(args.matches)
    done = {(m["config"], m["agent"], m["opponent"], m.get("checkpoint_sha256"), m["deal"], m["seat"])
            for m in matches}
    if args.search and args.untrained:
        for cfg, spec, path in list(plans):
            if spec.startswith(("netmcts:", "pretrained:")):
                blank = os.path.relpath(untrained_copy(path, os.path.join(S.RESULTS, "untrained")))
                options = spec.split(":", 2)[2] if spec.startswith("netmcts:") else spec.split(":", 1)[1]
                if spec.startswith("pretrained:"):
                    from meeplezoo.agents.pretrained import search_defaults

                    trained = search_defaults(_metadata(path))
                    given = dict(part.split("=", 1) for part in options.split(":") if "=" in part)
                    options = ":".join([*(f"{k}={v}" for k, v in trained.items() if k not in given), options])
                plans.append((cfg, f"netmcts:{blank}:{options}", blank))

    def games_of(spec: str) -> int:
        searching = spec.startswith("netmcts:") or (spec.startswith("pretrained:") and spec != "pretrained")
        return args.search_games if searching and args.search_games is not None else args.games

    shas = {path: file_sha256(path) for _cfg, _spec, path in plans}
    hours = {path: training_cpu_hours(path) for path in shas}
    todo = {(cfg.key, spec): [t for i, t in enumerate(S.schedule(cfg, games_of(spec)))
                              if i % shards == shard and (cfg.key, spec, args.opponent, shas[path], *t) not in done]
            for cfg, spec, path in plans}

    paths = {(cfg.key, spec): path for cfg, spec, path in plans}
    by_key = {c.key: c for c in configs_at(sorted({*counts, *(m["players"] for m in matches)}))}

    history = args.history or history_path(args.json)

    def summary() -> list[dict[str, Any]]:
        # every (configuration, agent, opponent, checkpoint) in the matches file, also those another process plays
        rows = summary_rows(S.read_matches(args.matches), by_key, paths, shas)
        for path, part in ((args.json, [r for r in rows if not r["superseded"]]),
                           (history, [r for r in rows if r["superseded"]])):
            if not part and path == history and not os.path.exists(path):
                continue  # no network replaced yet: no empty history file beside the results
            tmp = f"{path}.{os.getpid()}.tmp"  # processes sharing the files write their own
            with open(tmp, "w") as f:
                json.dump(part, f, indent=1)
            os.replace(tmp, path)
        return rows

    while any(todo.values()):
        for cfg, spec, path in plans:
            key = (cfg.key, spec)
            batch, todo[key] = todo[key][:args.per_pass], todo[key][args.per_pass:]
            for deal, seat in batch:
                if deadline is not None and time.time() > deadline:
                    print("time budget spent", flush=True)
                    print(table(summary()))
                    return 0
                m = S.play_one(cfg, spec, args.opponent, deal, seat, args.seed)
                m["checkpoint_sha256"] = shas[path]
                m["training_cpu_hours"] = hours[path]
                with open(args.matches, "a") as f:
                    f.write(json.dumps(m) + "\n")
                matches.append(m)
                summary()
                print(f"{cfg.key:<26} {spec[:40]:<40} deal {deal:>3} seat {seat}: win {m['win']:.2f}", flush=True)
    if plans:
        print(table(summary()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
