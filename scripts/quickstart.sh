#!/usr/bin/env bash
# Set up (scripts/setup.sh) and run the main job: a Kerala game between the heuristic and a random agent.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
. .venv/bin/activate
meeplezoo play kerala --players 2 --agents heuristic,random --seed 7 --quiet
meeplezoo arena kerala --players 2 --agents heuristic,random --games 50 --seed 1 --quiet
