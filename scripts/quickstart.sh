#!/usr/bin/env bash
# Set up (scripts/setup.sh), then the main job: train a MaskablePPO baseline on Hawaii against random and
# heuristic opponents, evaluate it, and rate it in a short league against random and the heuristic.
set -euo pipefail
cd "$(dirname "$0")/.."
MEEPLEZOO_EXTRAS="${MEEPLEZOO_EXTRAS:-train}" bash scripts/setup.sh
. .venv/bin/activate
game="${GAME:-hawaii}"
out="runs/quickstart-${game}"
rm -rf "$out"
meeplezoo train "$game" --players 2 --opponents random:1,heuristic:1 --timesteps "${TIMESTEPS:-40000}" --out "$out"
meeplezoo evaluate "$out/best.zip" --against random,heuristic --games 200
meeplezoo league run --game "$game" --players 2 --agents "random,heuristic,ppo=ppo:$out/best.zip" \
  --matches 48 --db "$out/league.sqlite" --workers 2 --seed 1
