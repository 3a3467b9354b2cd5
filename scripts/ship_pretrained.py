"""Ship a trained network: copy a run's checkpoint into the package as the ``pretrained`` agent of its game.

    python scripts/ship_pretrained.py runs/exit/haus_der_sonne-2 [--checkpoint best.zip]

writes ``agents/pretrained/<game>-<players>p.zip`` (the command that trained it, from the run's
``config.json``, is added to its metadata) and copies the run's record (``config.json``, ``progress.json``,
``log.csv``, ``curve.png``) to ``benchmarks/results/exit_<game>-<players>p/``.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from meeplezoo.agents.network import PolicyValueNet
from meeplezoo.agents.pretrained import FOLDER, MAX_CHECKPOINT_BYTES, checkpoint_name
from meeplezoo.training.exit import ExItConfig

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("run", type=Path, help="an expert-iteration run directory")
    p.add_argument("--checkpoint", default="best.zip", help="which of its checkpoints (default best.zip)")
    args = p.parse_args()
    cfg = ExItConfig.from_json(json.loads((args.run / "config.json").read_text()))
    progress = json.loads((args.run / "progress.json").read_text())
    net = PolicyValueNet.load(args.run / args.checkpoint)
    try:
        out_dir = args.run.resolve().relative_to(ROOT)
    except ValueError:
        out_dir = args.run
    dest = FOLDER / checkpoint_name(cfg.game, cfg.num_players)
    net.save(dest, command=cfg.command(out=str(out_dir)), run_iterations=int(progress["iteration"]),
             run_cpu_seconds=round(float(progress["cpu_seconds"]), 1), shipped_from=args.checkpoint)
    size = dest.stat().st_size
    if size > MAX_CHECKPOINT_BYTES:
        dest.unlink()
        raise SystemExit(f"{dest.name}: {size} bytes, more than the {MAX_CHECKPOINT_BYTES} a shipped network may take")
    record = ROOT / "benchmarks" / "results" / f"exit_{cfg.game}-{cfg.num_players}p"
    record.mkdir(parents=True, exist_ok=True)
    for name in ("config.json", "progress.json", "log.csv", "curve.png"):
        if (args.run / name).exists():
            shutil.copy2(args.run / name, record / name)
    print(f"{dest} ({size / 1e6:.2f} MB, {net.metadata.get('training_cpu_seconds', 0) / 3600:.2f} CPU hours); "
          f"record in {record}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
