#!/usr/bin/env bash
# Installs the Debian 12 packages Tessera builds against. Safe to run again: it installs only what is missing.
set -euo pipefail

packages=(
  cmake ninja-build g++ ccache pkg-config python3 python3-venv lld   # python3-venv: the backend checks (scripts/backend-venv.sh)
  libmlir-19-dev mlir-19-tools llvm-19-dev llvm-19-tools   # the compiler (MLIR 19)
  libsystemc-dev                                           # the simulator's kernel (SystemC 2.3.4)
  libfmt-dev libboost-program-options-dev                  # formatting, CLI flags
  libtomlplusplus-dev nlohmann-json3-dev                   # target files, --json output
  libgtest-dev libgmock-dev libbenchmark-dev               # tests and benchmarks
  libopenblas-dev                                          # the kernels' references (dgemm); bench/: the host sgemm
  libopenmpi-dev openmpi-bin                               # tessera sweep under mpirun/srun (TESSERA_MPI)
  clang libclang-rt-14-dev                                 # tests/fuzz: clang++ and its libFuzzer runtime
  chromium libpng-dev fonts-dejavu-core                    # the --report test renders the HTML headless and reads the PNG
  zlib1g-dev libzstd-dev libtinfo-dev libxml2-dev libedit-dev libcurl4-openssl-dev libffi-dev  # LLVM's link deps
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
