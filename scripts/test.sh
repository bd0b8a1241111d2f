#!/usr/bin/env bash
# Builds everything and runs the whole test suite with ctest: GoogleTest units, lit/FileCheck compiler tests,
# and end-to-end kernel runs. Installs missing packages first, so it works on a fresh machine too.
# With --sanitize, or in CI (CI=true), it then builds build-asan/ with AddressSanitizer and UndefinedBehaviorSanitizer
# (-DTESSERA_SANITIZE=ON) and runs the whole suite again there.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sanitize=0
[ "${CI:-}" = "true" ] && sanitize=1
for arg in "$@"; do
  case "$arg" in
    --sanitize) sanitize=1 ;;
    *) echo "usage: $0 [--sanitize]" >&2; exit 2 ;;
  esac
done

"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
(cd "${TESSERA_BUILD_DIR:-$root/build}" && ctest --output-on-failure -j "$(nproc)")

if [ "$sanitize" = 1 ]; then
  asan="${TESSERA_ASAN_BUILD_DIR:-$root/build-asan}"
  echo "test.sh: the suite again under AddressSanitizer + UndefinedBehaviorSanitizer in $asan"
  # -O1 -g1 (line tables: file and line in every report): the build takes 40% less time than RelWithDebInfo's
  # -O2 -g, and -O1 is what ASan's own documentation asks for. The backend checks' Python environment is the
  # release build's: the same pinned packages. Configured every time, so an older build-asan/ gets these too.
  cmake -S "$root" -B "$asan" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTESSERA_SANITIZE=ON \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
    -DTESSERA_BUILD_BENCH=OFF -DTESSERA_BACKEND_VENV="${TESSERA_BUILD_DIR:-$root/build}/backend-venv" > /dev/null
  cmake --build "$asan" -j "$(nproc)"
  # The first finding fails the test (halt_on_error here, -fno-sanitize-recover in the build).
  # allow_user_poisoning=0: LLVM's header-inline BumpPtrAllocator poisons its slabs when compiled into our
  # instrumented code, but the prebuilt, uninstrumented MLIR libraries never unpoison what they allocate from it,
  # so every MLIRContext would report a use-after-poison in mlir::Dialect::addType.
  # detect_leaks=0: SystemC's sc_event_timed::allocate() keeps a process-wide free list it never frees, which
  # LeakSanitizer reports at exit (1 KiB blocks from libsystemc); our own leaks are not what this run looks for.
  # detect_stack_use_after_return=0: SystemC switches coroutine stacks behind ASan's back.
  # use_sigaltstack=0: the golden model's thread stores its object with MLIR's ExecutionEngine::dumpToObjectFile,
  # whose output file registers LLVM's signal handlers, and LLVM then gives that thread an alternate signal stack
  # of its own (malloc'd); at the thread's exit ASan unmapped it as its own and aborted ("failed to deallocate ...
  # unable to unmap"). Without its alternate stacks ASan only loses reports of stack overflows inside signal
  # handlers.
  export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1:allow_user_poisoning=0:detect_leaks=0:detect_stack_use_after_return=0:use_sigaltstack=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
  export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
  # -LE libtpu: the real TPU compiler's checks (tests/backends.cmake) spend their time in libtpu, which is not
  # instrumented; the Tessera code they run (emitting the Pallas module) runs here in the Pallas checks.
  # TESSERA_BACKEND_CHECKS=static: the per-kernel backend checks (check_kernel.sh) deploy and read each module, and
  # the Pallas differential writes its modules, but their runs under JAX and the NKI model (uninstrumented Python,
  # half this pass's time) are left to the release pass above (docs/reliability.md).
  (cd "$asan" && TESSERA_BACKEND_CHECKS=static ctest --output-on-failure -j "$(nproc)" -LE libtpu)
fi
