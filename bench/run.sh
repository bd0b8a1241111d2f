#!/usr/bin/env bash
# The side-by-side benchmarks of docs/performance.md, measured in one run, each printing its table of ratios:
#   1. the simulator against the host's OpenBLAS sgemm (functional speed) and its timing-only speed
#      (build/bench/bench-sim-speed);
#   2. `tessera systolic -c -t` against SCALE-Sim 3.0.0 on the same files, ResNet-50 among them
#      (bench/scalesim/compare.py: a pinned venv);
#   3. Tessera against JAX's Pallas interpret mode on the Pallas kernels Tessera emits (bench/pallas/compare.py:
#      the pinned backend venv of scripts/backend-venv.sh);
#   4. the edit-run loop: a whole `tessera run` against its compile and simulation, and the start-up of the
#      commands that compile nothing (bench/run_loop.py).
# At the end it prints issue 22's "done when" goals again, each with its measured ratio and verdict (the lines the
# four print that start with "done-when:"), beside the CPU's vector extensions.
#   ./bench/run.sh            the whole set (about 17 minutes on a quiet 2-core machine, most of it SCALE-Sim)
#   ./bench/run.sh --quick    a few cases of each (a few minutes)
# It installs what is missing and builds first, like scripts/test.sh. Nothing here is a test: no wall time gates CI.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="${TESSERA_BUILD_DIR:-$root/build}"
quick=()
for arg in "$@"; do
  case "$arg" in
    --quick) quick=(--quick) ;;
    *) echo "usage: $0 [--quick]" >&2; exit 2 ;;
  esac
done

"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
if [ ! -x "$build/bench/bench-sim-speed" ]; then
  echo "bench/run.sh: $build/bench/bench-sim-speed was not built (is libopenblas-dev installed?)" >&2
  exit 1
fi

vector=$(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E '^(sse4_2|avx|avx2|fma|avx512f|avx512bw|avx512vl|avx512_bf16|amx_bf16)$' | tr '\n' ' ' || true)
echo "== machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores, $(free -g | awk '/^Mem:/ {print $2}') GiB;" \
     "load average $(cut -d' ' -f1-3 /proc/loadavg); tessera $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "   vector extensions: ${vector:-none of those listed}"
echo
log=$(mktemp)
trap 'rm -f "$log"' EXIT
echo "== 1. the simulator against the host (OpenBLAS $(pkg-config --modversion openblas 2>/dev/null || echo '?'))"
"$build/bench/bench-sim-speed" "${quick[@]}" | tee -a "$log"
echo "== 2. tessera systolic against SCALE-Sim"
python3 "$root/bench/scalesim/compare.py" --tessera "$build/tools/tessera" "${quick[@]}" | tee -a "$log"
echo
echo "== 3. Tessera against Pallas interpret mode"
python3 "$root/bench/pallas/compare.py" --tessera "$build/tools/tessera" --venv "$build/backend-venv" "${quick[@]}" \
  | tee -a "$log"
echo
echo "== 4. the edit-run loop"
python3 "$root/bench/run_loop.py" --tessera "$build/tools/tessera" "${quick[@]}" | tee -a "$log"
echo
echo "== issue 22, done when: every goal of this run (vector extensions: ${vector:-none of those listed})"
grep '^done-when:' "$log" | sed 's/^done-when: /  /'
