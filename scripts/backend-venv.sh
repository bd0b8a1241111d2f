#!/usr/bin/env bash
# Makes the Python virtual environment the hardware-backend checks run in (hw-backends/check/requirements.txt:
# jax, jaxlib, numpy, ml_dtypes from PyPI, every version pinned), at $1 (default build/backend-venv). Does nothing
# when that environment already has exactly those requirements. The test suite calls it (ctest fixture
# backends/venv); `tessera deploy` bundles need it only to run their --interpret and --export checks here.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv="${1:-$root/build/backend-venv}"
requirements="$root/hw-backends/check/requirements.txt"
stamp="$venv/tessera-requirements.txt"
if [ -x "$venv/bin/python" ] && cmp -s "$requirements" "$stamp"; then
  echo "backend-venv: $venv is up to date"
  exit 0
fi
python3 -m venv --clear "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$requirements"
cp "$requirements" "$stamp"
echo "backend-venv: made $venv ($("$venv/bin/python" -c 'import jax; print("jax", jax.__version__)'))"
