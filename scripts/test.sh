#!/usr/bin/env bash
# Builds everything and runs the whole test suite with ctest: GoogleTest units, lit/FileCheck compiler tests,
# and end-to-end kernel runs. Installs missing packages first, so it works on a fresh machine too.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
cd "${TESSERA_BUILD_DIR:-$root/build}"
ctest --output-on-failure -j "$(nproc)"
