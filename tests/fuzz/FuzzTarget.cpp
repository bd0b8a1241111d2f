/// \file
/// libFuzzer target: the target-file reader (isa::Target::load, toml++ underneath). Any bytes may come in; a
/// tessera::Error is the expected answer to a bad file. A crash, a sanitizer report, another exception or a
/// loaded target that breaks the invariants the rest of Tessera relies on is a bug.

#include "tessera/isa/Error.h"
#include "tessera/isa/Target.h"

#include <unistd.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace {

/// One scratch file per process (libFuzzer's -jobs/-fork run several processes).
const std::string &scratchPath() {
  static const std::string path = [] {
    const char *dir = std::getenv("TMPDIR");
    return std::string(dir && *dir ? dir : "/tmp") + "/tessera-fuzz-target-" + std::to_string(getpid()) + ".toml";
  }();
  return path;
}

void check(bool condition, const char *what) {
  if (condition) return;
  std::fprintf(stderr, "fuzz-target: a loaded target breaks an invariant: %s\n", what);
  std::abort();
}

/// What the compiler and simulator divide by or index with on a NeuronCore.
void checkNeuronCore(const tessera::isa::Target &t) {
  check(t.partitions > 0 && t.psumBanks > 0 && t.psumBankBytes() > 0, "memory sizes");
  check(t.psumBankBytes() * t.psumBanks == t.psumBytesPerPartition, "PSUM banks split PSUM evenly");
  check(t.tensor.rows > 0 && t.tensor.rows <= t.partitions, "tensor_engine.rows");
  check(t.tensor.maxContraction <= t.tensor.rows, "max_contraction <= rows");
  check(t.tensor.maxStationaryFree <= t.tensor.cols && t.tensor.maxStationaryFree <= t.partitions,
        "max_stationary_free");
  check(uint64_t{t.tensor.maxMovingFree} * 4 <= t.psumBankBytes(), "max_moving_free fits a bank");
  check(t.tensor.clockGhz > 0 && t.vector.clockGhz > 0 && t.scalar.clockGhz > 0 && t.gpsimd.clockGhz > 0,
        "clocks");
}

/// What the compiler and simulator divide by or index with on a TPU, and the peak the loader checks.
void checkTpu(const tessera::isa::Target &t) {
  const tessera::isa::TpuSpec &tpu = t.tpu;
  const tessera::isa::TpuCostModel &cost = t.tpuCost;
  const auto powerOfTwo = [](uint64_t v) { return v != 0 && (v & (v - 1)) == 0; };
  check(powerOfTwo(tpu.sublanes) && powerOfTwo(tpu.lanes), "sublanes and lanes");
  check(tpu.mxus > 0 && t.tensor.rows % tpu.lanes == 0 && t.tensor.cols % tpu.lanes == 0 && t.tensor.rows > 0 &&
            t.tensor.cols > 0,
        "MXUs of whole lanes");
  check(powerOfTwo(tpu.vmemAlignment) && tpu.vmemBytes % tpu.vmemAlignment == 0 && tpu.smemBytes % 4 == 0,
        "VMEM and SMEM sizes");
  check(t.tensor.clockGhz > 0 && t.vector.clockGhz == t.tensor.clockGhz && t.scalar.clockGhz == t.tensor.clockGhz,
        "one TensorCore clock");
  check(cost.mxuRowsPerCycle > 0 && cost.mxuFp32Passes > 0 && cost.vpuLoadSlots > 0 && cost.vpuStoreSlots > 0 &&
            cost.eupCyclesPerVreg > 0,
        "cost divisors");
  check(tpu.tensorCoresPerChip > 0 && t.partitions == 0, "TensorCores, nothing partitioned");
  check(std::abs(t.mxuPeakBf16Tflops() - t.tensor.peakBf16Tflops) <= tpu.peakTolerance * t.tensor.peakBf16Tflops,
        "peak is the MXUs at the clock");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  {
    std::ofstream out(scratchPath(), std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char *>(data), static_cast<std::streamsize>(size));
  }
  try {
    const tessera::isa::Target t = tessera::isa::Target::load(scratchPath());
    check(!t.name.empty(), "name");
    check(t.dma.bytesPerNs() > 0 && t.dma.fixedLatencyNs >= 0, "DMA bandwidth");
    if (t.family == "tpu")
      checkTpu(t);
    else
      checkNeuronCore(t);
  } catch (const tessera::Error &) {
    // a bad target file: the expected outcome
  }
  return 0;
}
