#!/usr/bin/env bash
# Create .venv (once) and install meeplezoo with the extras named in $MEEPLEZOO_EXTRAS (default: dev).
# torch is pinned to the CPU build first, so that no extra pulls a multi-GB CUDA build.
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${MEEPLEZOO_EXTRAS:-dev}"
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
. .venv/bin/activate
python -m pip install --quiet --upgrade pip
if ! python -c "import torch" 2>/dev/null; then
  python -m pip install --quiet "torch==2.13.0"
fi
python -m pip install --quiet -e ".[${extras}]"
