#!/usr/bin/env bash
# Build the documentation site into site/ (open site/index.html; no server needed). Strict: a warning
# (a broken link or anchor, a docstring the reference cannot read, a README link into docs/ that the site
# does not build) fails the build. Installs the docs extra into .venv first (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! .venv/bin/python -c "import mkdocs, material, mkdocstrings_handlers.python, mkdocs_jupyter" 2>/dev/null; then
  MEEPLEZOO_EXTRAS="${MEEPLEZOO_EXTRAS:-docs}" bash scripts/setup.sh
fi
NO_MKDOCS_2_WARNING=1 .venv/bin/python -m mkdocs build --strict --clean "$@"
