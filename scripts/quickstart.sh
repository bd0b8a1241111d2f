#!/usr/bin/env bash
# The main job: install what is missing, build, and simulate the default kernel (matmul) on the default target
# (trn2), printing its report. Extra arguments go to `tessera run`, e.g. --shape M=2048,N=2048,K=2048 --json.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
exec "${TESSERA_BUILD_DIR:-$root/build}/tools/tessera" run matmul --target trn2 --shape M=1024,N=1024,K=1024 "$@"
