#!/usr/bin/env bash
# Set up (scripts/setup.sh), then the main job on one game (default Haus der Sonne, 2 players):
#  1. the shipped pretrained network (meeplezoo.agents.pretrained) against random and the heuristic;
#  2. a short expert-iteration run from scratch (a few minutes), the pipeline that trained the shipped one;
#  3. a league of random, the heuristic, the pretrained network alone, the pretrained network searching
#     (100 simulations a move) and the fresh network, with its leaderboard.
# The fresh run continues with the same command and a larger --iterations (docs/guides/training.md).
set -euo pipefail
cd "$(dirname "$0")/.."
MEEPLEZOO_EXTRAS="${MEEPLEZOO_EXTRAS:-train}" bash scripts/setup.sh
. .venv/bin/activate
game="${GAME:-haus_der_sonne}"
out="runs/quickstart-${game}"
rm -rf "$out"
meeplezoo arena "$game" --players 2 --agents pretrained,random --games 100 --seed 1
meeplezoo arena "$game" --players 2 --agents pretrained,heuristic --games 100 --seed 1
meeplezoo train "$game" --players 2 --algo exit --iterations "${ITERATIONS:-4}" --games-per-iteration 4 \
  --sims 32 --leaf rollout --warm-start-games 300 --width 512 --value-weight 0.1 --buffer-size 40000 \
  --eval-every 2 --eval-games 20 --seed 0 --out "$out/exit"
# rounds of 10 matches: the default rating lag (7 rounds) would draw all 64 matches from the prior alone;
# a lag of 1 keeps the schedule following the ratings and still gives the 2 workers 20 matches to play
meeplezoo league run --game "$game" --players 2 \
  --agents "random,heuristic,pretrained,pretrained-search=pretrained:sims=100,fresh=net:$out/exit/final.zip" \
  --matches 64 --db "$out/league.sqlite" --workers 2 --seed 1 --rating-lag 1
