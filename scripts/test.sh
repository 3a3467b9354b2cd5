#!/usr/bin/env bash
# Set up (scripts/setup.sh) and run the test suite. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
MEEPLEZOO_EXTRAS="${MEEPLEZOO_EXTRAS:-dev,ray,rllib,openspiel}" bash scripts/setup.sh
# Headless Chromium for the HTML replay viewer test (Debian package; needs root, skipped otherwise).
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  (apt-get update -qq && apt-get install -y -qq chromium >/dev/null) || echo "note: chromium not installed"
fi
. .venv/bin/activate
export RAY_USAGE_STATS_ENABLED=0
ruff check .
python -m pytest -q "$@"
