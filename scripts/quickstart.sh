#!/usr/bin/env bash
# Set up (scripts/setup.sh), then the main job on one game (default Haus der Sonne) at PLAYERS players (default 2):
#  1. the shipped pretrained network (meeplezoo.agents.pretrained) against random and the heuristic
#     (in the other seats);
#  2. a short expert-iteration run from scratch at that count (a few minutes), the pipeline that trained the
#     shipped ones;
#  3. a league of random, the heuristic, the pretrained network alone, the pretrained network searching
#     (100 simulations a move) and the fresh network, with its leaderboard.
# Where no shipped network plays the game at PLAYERS players, the pretrained steps say so and the rest runs.
# The fresh run continues with the same command and a larger --iterations (docs/guides/training.md).
# QUICKSTART_DRY_RUN=1 prints the commands instead of running them (no setup).
set -euo pipefail
cd "$(dirname "$0")/.."
game="${GAME:-haus_der_sonne}"
players="${PLAYERS:-2}"
out="runs/quickstart-${game}"
[[ "$players" != 2 ]] && out+="-${players}p"
dry="${QUICKSTART_DRY_RUN:-}"
if [[ -z "$dry" ]]; then
  MEEPLEZOO_EXTRAS="${MEEPLEZOO_EXTRAS:-train}" bash scripts/setup.sh
  . .venv/bin/activate
fi
python="${PYTHON:-python}"
run() { if [[ -n "$dry" ]]; then printf '%q ' "$@"; echo; else "$@"; fi; }

# the game must play that count; does a shipped network play it?
"$python" - "$game" "$players" <<'EOF' || exit 2
import sys
from meeplezoo.registry import game_class
cls = game_class(sys.argv[1])
n = int(sys.argv[2])
if not cls.min_players <= n <= cls.max_players:
    sys.exit(f"quickstart: {sys.argv[1]} plays {cls.min_players}..{cls.max_players} players, not PLAYERS={n}")
EOF
if "$python" -c "import sys; from meeplezoo.agents.pretrained import checkpoint_path; checkpoint_path(sys.argv[1], int(sys.argv[2]))" \
    "$game" "$players" 2>/dev/null; then
  shipped=1
else
  shipped=""
  echo "quickstart: no shipped network plays $game at $players players (meeplezoo.agents.pretrained.available()" \
       "lists those that ship); the pretrained steps are left out"
fi
others() { local spec="$1" s="" i; for ((i = 1; i < players; i++)); do s+=",$spec"; done; echo "$s"; }

[[ -z "$dry" ]] && rm -rf "$out"
if [[ -n "$shipped" ]]; then
  run meeplezoo arena "$game" --players "$players" --agents "pretrained$(others random)" --games 100 --seed 1
  run meeplezoo arena "$game" --players "$players" --agents "pretrained$(others heuristic)" --games 100 --seed 1
fi
# a block network at this one count (a seat network plays several: docs/guides/training.md, "Every seat count")
run meeplezoo train "$game" --players "$players" --algo exit --iterations "${ITERATIONS:-4}" --games-per-iteration 4 \
  --sims 32 --leaf rollout --warm-start-games 300 --width 512 --value-weight 0.1 --buffer-size 40000 \
  --eval-every 2 --eval-games 20 --seed 0 --out "$out/exit"
# rounds of 10 matches: the default rating lag (7 rounds) would draw all 64 matches from the prior alone;
# a lag of 1 keeps the schedule following the ratings and still gives the 2 workers 20 matches to play
agents="random,heuristic"
[[ -n "$shipped" ]] && agents+=",pretrained,pretrained-search=pretrained:sims=100"
run meeplezoo league run --game "$game" --players "$players" --agents "$agents,fresh=net:$out/exit/final.zip" \
  --matches 64 --db "$out/league.sqlite" --workers 2 --seed 1 --rating-lag 1
