#!/usr/bin/env bash
# One kernel through one hardware backend, checked with what runs offline (docs/backends.md):
#   check_kernel.sh TESSERA PYTHON pallas KERNEL TARGET WORKDIR [STYLE [DEPLOY-ARG...]]
#                              tessera deploy (--pallas-style STYLE, default manual), then the bundle's runner:
#                              --interpret (numerics vs the simulator, Pallas' race detector) and --export (Mosaic)
#   check_kernel.sh TESSERA PYTHON tpu-compile KERNEL TARGET WORKDIR [STYLE [DEPLOY-ARG...]]
#                              tessera deploy, check_dma_waits.py (every async copy waited on before its bytes are
#                              used), then the bundle's runner --compile: the real Mosaic/XLA:TPU (libtpu), deviceless,
#                              for the target's generation. With EXPECT_COMPILE_ERROR=REGEX set, the compile must fail
#                              with an error matching REGEX, at a kernel line (a known failure, asserted as such)
#   check_kernel.sh TESSERA PYTHON nki KERNEL TARGET WORKDIR [- [DEPLOY-ARG...]]
#                              tessera deploy, then check_nki.py on the kernel (Python compile, the NKI 0.6 API
#                              manifest's names and rules, for the target the module names) and the bundle's runner --simulate on Tessera's NumPy model of the NKI calls
#                              it emits (nki_model/: numerics vs the simulator under that reading of NKI; not NKI)
# With TESSERA_BACKEND_CHECKS=static (the sanitizer pass of scripts/test.sh), only tessera deploy and the checks that
# read the module (check_dma_waits.py, check_nki.py) run: the module's runs under JAX, libtpu or the NKI model spend
# their time in uninstrumented Python, and the release pass runs them.
# PYTHON: the backend virtual environment's python (scripts/backend-venv.sh). DEPLOY-ARGs go to tessera deploy
# (a variant of the kernel: --param causal=1).
set -euo pipefail
[ $# -ge 6 ] || { echo "usage: $0 TESSERA PYTHON pallas|tpu-compile|nki KERNEL TARGET WORKDIR [STYLE [DEPLOY-ARG...]]" >&2; exit 2; }
tessera=$1 python=$2 backend=$3 kernel=$4 target=$5 work=$6 style=${7:-manual}
[ "$style" = - ] && style=manual
shift $(($# < 7 ? $# : 7))
variant=$(printf '%s' "$*" | tr -c 'A-Za-z0-9_.=-' '_')
dir="$work/$backend-$style-$kernel-$target${variant:+-$variant}"
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$dir"
# True when the module's runs are to be skipped (TESSERA_BACKEND_CHECKS=static); says so.
static_only() {
  [ "${TESSERA_BACKEND_CHECKS:-}" = static ] || return 1
  echo "check_kernel: TESSERA_BACKEND_CHECKS=static: the module's runs are left to the release pass"
}
case "$backend" in
  pallas)
    "$tessera" deploy "$kernel" --target "$target" --pallas-style "$style" -o "$dir" "$@"
    grep -E '^(Pallas TPU, [a-z]+ style)' "$dir/$kernel.py"
    "$python" "$here/check_dma_waits.py" "$dir/$kernel.py"
    static_only && exit 0
    "$python" "$dir/run.py" --interpret
    "$python" "$dir/run.py" --export ;;
  tpu-compile)
    "$tessera" deploy "$kernel" --target "$target" --pallas-style "$style" -o "$dir" "$@"
    grep -E '^(Pallas TPU, [a-z]+ style)' "$dir/$kernel.py"
    "$python" "$here/check_dma_waits.py" "$dir/$kernel.py"
    static_only && exit 0
    if [ -z "${EXPECT_COMPILE_ERROR:-}" ]; then
      "$python" "$dir/run.py" --compile
    else
      if "$python" "$dir/run.py" --compile > "$dir/compile.log" 2>&1; then
        cat "$dir/compile.log"
        echo "expected the compile to fail with /$EXPECT_COMPILE_ERROR/; it passed: update the test (and docs/backends.md)"
        exit 1
      fi
      cat "$dir/compile.log"
      grep -E "^  [A-Za-z0-9_.+-]+\.(cpp|h):[0-9]+: error: .*($EXPECT_COMPILE_ERROR)" "$dir/compile.log" > /dev/null || {
        echo "the compile failed, but not with /$EXPECT_COMPILE_ERROR/ at a kernel line"; exit 1; }
      echo "failed as expected: /$EXPECT_COMPILE_ERROR/"
    fi ;;
  nki)
    "$tessera" deploy "$kernel" --target "$target" -o "$dir" "$@"
    "$python" "$here/check_nki.py" "$dir/$kernel.py"
    static_only && exit 0
    PYTHONPATH="$here/nki_model" "$python" "$dir/run.py" --simulate ;;
  *) echo "$0: unknown backend '$backend'" >&2; exit 2 ;;
esac
