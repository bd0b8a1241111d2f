#!/usr/bin/env bash
# Configures (once) and builds Tessera into build/ with Ninja and ccache. Called by quickstart.sh and test.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="${TESSERA_BUILD_DIR:-$root/build}"
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
# MLIR translation units take about 1.5 GiB each to compile: one job per core keeps a 2-core, 24 GiB machine safe.
cmake --build "$build" -j "$(nproc)"
