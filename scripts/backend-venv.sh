#!/usr/bin/env bash
# Makes the Python virtual environment the hardware-backend checks run in (hw-backends/check/requirements.txt:
# jax, jaxlib, libtpu, numpy, ml_dtypes from PyPI, every version pinned), at $1 (default build/backend-venv). Does
# nothing when that environment already has exactly those requirements on the same interpreter. The test suite
# calls it (ctest fixture backends/venv); `tessera deploy` bundles need it only to run their --interpret, --export,
# --compile and --estimate checks here.
#
# The interpreter: jax 0.12 (and so the libtpu that compiles for real TPUs without one, run.py --compile) needs
# Python >= 3.12, and Debian 12's python3 is 3.11. The first of these that runs and is 3.12 or newer is used:
#   1. $TESSERA_PYTHON, when set (then nothing else is tried: what you name is what you get, or an error);
#   2. python3.12, then python3.13, on PATH (pyenv's shims are on PATH here but fail unless that version is
#      selected: a candidate counts only if it runs);
#   3. pyenv's own installs, ${PYENV_ROOT:-$HOME/.pyenv}/versions/3.12.*, then 3.13.* (the newest patch release
#      first): /root/.pyenv/versions/3.12.1 on this machine kind, and on CI, which uses the same image.
# 3.12 comes before 3.13 because every pinned wheel (jaxlib, libtpu, numpy, scipy) exists for it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv="${1:-$root/build/backend-venv}"
requirements="$root/hw-backends/check/requirements.txt"
stamp="$venv/tessera-requirements.txt"

# Prints the interpreter's version when it runs and is Python >= 3.12; fails otherwise.
usable() {
  "$1" -c 'import sys, venv; assert sys.version_info >= (3, 12); print("%d.%d.%d" % sys.version_info[:3])' \
    2>/dev/null
}

python="" version=""
if [ -n "${TESSERA_PYTHON:-}" ]; then
  version=$(usable "$TESSERA_PYTHON") || {
    echo "backend-venv: TESSERA_PYTHON=$TESSERA_PYTHON is not a working Python >= 3.12 with the venv module" \
         "(jax 0.12 needs 3.12 or newer)" >&2
    exit 1
  }
  python=$TESSERA_PYTHON
else
  pyenv_root="${PYENV_ROOT:-$HOME/.pyenv}"
  candidates=(python3.12 python3.13)
  for minor in 12 13; do
    # Newest patch release first.
    while IFS= read -r dir; do
      [ -n "$dir" ] && candidates+=("$dir/bin/python3")
    done < <(ls -d "$pyenv_root"/versions/3."$minor".* 2>/dev/null | sort -t. -k3,3nr)
  done
  for candidate in "${candidates[@]}"; do
    if version=$(usable "$candidate"); then
      python=$(command -v "$candidate")
      break
    fi
  done
  if [ -z "$python" ]; then
    echo "backend-venv: no Python >= 3.12 found (jax 0.12 and the libtpu that compiles for TPU need it; Debian 12's" \
         "python3 is 3.11). Tried: ${candidates[*]}. Install one (pyenv install 3.12, or a python3.12 package) or" \
         "set TESSERA_PYTHON to its path." >&2
    exit 1
  fi
fi
wanted="$(cat "$requirements")
# interpreter: $python (Python $version)"

if [ -x "$venv/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$wanted" ]; then
  echo "backend-venv: $venv is up to date (Python $version)"
  exit 0
fi
echo "backend-venv: making $venv with $python (Python $version)"
"$python" -m venv --clear "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$requirements"
printf '%s\n' "$wanted" > "$stamp"
echo "backend-venv: made $venv ($("$venv/bin/python" -c 'from importlib.metadata import version as v
print(", ".join(f"{p} {v(p)}" for p in ("jax", "jaxlib", "libtpu")))'))"
