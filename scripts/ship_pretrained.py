"""Ship a trained network: copy a run's checkpoint into the package as the ``pretrained`` agent of its game.

    python scripts/ship_pretrained.py runs/exit/haus_der_sonne-2 [--checkpoint best.zip]
    python scripts/ship_pretrained.py runs/distill/hds_dagger1 --checkpoint final.zip \\
        --search leaf=rollout --search c=1.5 --search fpu=0.2

writes ``agents/pretrained/<game>-<players>p.zip`` (a seat network, ``--architecture seatnet``:
``agents/pretrained/<game>.zip``, every count it was trained at; one trained at a single count ships as that
count's ``<game>-<n>p.zip``, which ``pretrained`` takes before ``<game>.zip``) and copies the run's record to
``benchmarks/results/<algo>_<game>-<players>p/`` (a seat network: ``<algo>_<game>/``):

* an expert-iteration run (``config.json``): the command that trained it is added to the metadata; the
  record is ``config.json``, ``progress.json``, ``log.csv``, ``curve.png``; the search defaults of
  ``pretrained:sims=N`` are the expert's (its ``exit_config``);
* a distillation run (``generate.json``): the command is already in the checkpoint's metadata; the record
  is ``generate.json`` and ``fit.csv``; ``--search KEY=VALUE`` (repeatable) records the search defaults of
  ``pretrained:sims=N`` (such a network was trained without a search of its own).
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from meeplezoo.agents.network import load_network
from meeplezoo.agents.pretrained import FOLDER, MAX_CHECKPOINT_BYTES, checkpoint_name
from meeplezoo.training.exit import ExItConfig

ROOT = Path(__file__).resolve().parent.parent


def _search_option(text: str) -> tuple[str, object]:
    key, sep, value = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"--search {text!r}: expected KEY=VALUE")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("run", type=Path, help="an expert-iteration or distillation run directory")
    p.add_argument("--checkpoint", default=None, help="which of its checkpoints (default best.zip, or final.zip "
                   "for a distillation run)")
    p.add_argument("--folder", type=Path, default=FOLDER, help="where the shipped checkpoints live (default: the "
                   "package's agents/pretrained)")
    p.add_argument("--results", type=Path, default=ROOT / "benchmarks" / "results",
                   help="where the run's record is copied (default benchmarks/results)")
    p.add_argument("--search", action="append", default=[], type=_search_option, metavar="KEY=VALUE",
                   help="a search default of pretrained:sims=N (distillation runs; repeatable)")
    args = p.parse_args()
    try:
        out_dir = args.run.resolve().relative_to(ROOT)
    except ValueError:
        out_dir = args.run
    extra: dict[str, object] = {}
    if (args.run / "config.json").exists():
        cfg = ExItConfig.from_json(json.loads((args.run / "config.json").read_text()))
        progress = json.loads((args.run / "progress.json").read_text())
        checkpoint = args.checkpoint or "best.zip"
        game, players, algo = cfg.game, cfg.num_players, "exit"
        if cfg.architecture == "seatnet" and len(cfg.counts) > 1:
            players = None  # one file for every count it plays
        elif cfg.architecture == "seatnet":
            players = cfg.counts[0]  # trained at one count: that count's file, the game's file for the others
        extra = {"command": cfg.command(out=str(out_dir)), "run_iterations": int(progress["iteration"]),
                 "run_cpu_seconds": round(float(progress["cpu_seconds"]), 1)}
        record_files = ("config.json", "progress.json", "log.csv", "curve.png")
        if args.search:
            raise SystemExit("--search is for distillation runs: an expert-iteration network searches as trained")
    elif (args.run / "generate.json").exists():
        gen = json.loads((args.run / "generate.json").read_text())
        checkpoint = args.checkpoint or "final.zip"
        game, players, algo = gen["game"], int(gen["players"]), "distill"
        record_files = ("generate.json", "fit.csv")
        if args.search:
            extra["search_defaults"] = dict(args.search)
    else:
        raise SystemExit(f"{args.run}: neither an expert-iteration run (config.json) nor a distillation run "
                         "(generate.json)")
    net = load_network(args.run / checkpoint)
    dest = args.folder / checkpoint_name(game, players)
    net.save(dest, shipped_from=checkpoint, **extra)
    size = dest.stat().st_size
    if size > MAX_CHECKPOINT_BYTES:
        dest.unlink()
        raise SystemExit(f"{dest.name}: {size} bytes, more than the {MAX_CHECKPOINT_BYTES} a shipped network may take")
    record = args.results / (f"{algo}_{game}" if players is None else f"{algo}_{game}-{players}p")
    record.mkdir(parents=True, exist_ok=True)
    for name in record_files:
        if (args.run / name).exists():
            shutil.copy2(args.run / name, record / name)
    print(f"{dest} ({size / 1e6:.2f} MB, {net.metadata.get('training_cpu_seconds', 0) / 3600:.2f} CPU hours); "
          f"record in {record}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
