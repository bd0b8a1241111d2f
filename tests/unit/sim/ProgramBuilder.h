#pragma once
/// \file
/// Builds small isa::Programs by hand for the simulator's tests, and the data helpers they share.

#include "tessera/isa/Cost.h"
#include "tessera/isa/DmaCost.h"
#include "tessera/isa/InstructionOverhead.h"
#include "tessera/isa/NumberFormats.h"
#include "tessera/isa/Program.h"
#include "tessera/isa/Target.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace tessera::sim::testing {

/// Appends instructions to streams, with their waits, signals and source lines.
class ProgramBuilder {
public:
  explicit ProgramBuilder(std::string kernel = "test") {
    program.kernel = std::move(kernel);
    program.target = "trn2";
    program.locations.push_back({}); // [0] is "unknown"
  }

  /// Adds an HBM tensor; returns its index.
  int32_t tensor(std::string name, std::vector<int64_t> shape, isa::DType dtype, bool isOutput = false) {
    program.tensors.push_back({std::move(name), std::move(shape), dtype, isOutput});
    return static_cast<int32_t>(program.tensors.size() - 1);
  }

  /// A new semaphore id.
  uint32_t semaphore() { return program.semaphores++; }

  /// Appends `inst` to the stream of `engine` (and DMA `queue`), creating the stream on first use.
  void add(isa::Engine engine, isa::Instruction inst, std::vector<isa::SemWait> waits = {},
           std::vector<uint32_t> signals = {}, SourceLoc where = {}, uint32_t queue = 0) {
    inst.waitBegin = static_cast<uint32_t>(program.waits.size());
    inst.waitCount = static_cast<uint32_t>(waits.size());
    program.waits.insert(program.waits.end(), waits.begin(), waits.end());
    inst.signalBegin = static_cast<uint32_t>(program.signals.size());
    inst.signalCount = static_cast<uint32_t>(signals.size());
    program.signals.insert(program.signals.end(), signals.begin(), signals.end());
    if (where.known()) {
      inst.loc = static_cast<uint32_t>(program.locations.size());
      program.locations.push_back(where);
    }
    streamOf(engine, queue).instructions.push_back(inst);
  }

  isa::Stream &streamOf(isa::Engine engine, uint32_t queue = 0) {
    for (isa::Stream &s : program.streams)
      if (s.engine == engine && s.queue == queue)
        return s;
    program.streams.push_back({engine, queue, {}});
    return program.streams.back();
  }

  isa::Program program;
};

/// Rows [row0, row0 + rows) x columns [col0, col0 + cols) of a row-major HBM tensor with `rowLength` columns.
inline isa::AccessPattern hbmTile(int32_t tensor, isa::DType dtype, int64_t rowLength, int64_t row0, uint32_t rows,
                                  int64_t col0, int64_t cols) {
  isa::AccessPattern ap = isa::AccessPattern::dense(isa::MemSpace::Hbm, dtype, 0, rows, row0 * rowLength + col0, cols);
  ap.tensor = tensor;
  ap.partitionStride = rowLength;
  return ap;
}

/// `rows` partitions from `partition0`, `n` contiguous elements at byte `offset` of each.
inline isa::AccessPattern onChip(isa::MemSpace space, isa::DType dtype, uint32_t partition0, uint32_t rows,
                                 int64_t offset, int64_t n) {
  return isa::AccessPattern::dense(space, dtype, partition0, rows, offset, n);
}

inline isa::Instruction dmaCopy(isa::AccessPattern dst, isa::AccessPattern src) {
  isa::Instruction inst;
  inst.op = isa::Opcode::DmaCopy;
  inst.dst = dst;
  inst.src0 = src;
  return inst;
}

/// `count` floats uniform in [lo, hi), already rounded to `dtype`, from a fixed seed.
inline std::vector<float> randomValues(size_t count, isa::DType dtype, uint32_t seed, float lo = -1.0f,
                                       float hi = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> values(count);
  for (float &v : values)
    v = isa::roundTo(dtype, dist(rng));
  return values;
}

inline std::vector<std::byte> encoded(isa::DType dtype, const std::vector<float> &values) {
  std::vector<std::byte> bytes(values.size() * isa::byteSize(dtype));
  isa::encode(dtype, values.data(), bytes.data(), values.size());
  return bytes;
}

inline std::vector<float> decoded(isa::DType dtype, const std::vector<std::byte> &bytes) {
  std::vector<float> values(bytes.size() / isa::byteSize(dtype));
  isa::decode(dtype, bytes.data(), values.data(), values.size());
  return values;
}

inline const isa::Target &trn2() {
  static const isa::Target target = isa::Target::find("trn2");
  return target;
}

/// Nanoseconds an instruction occupies a compute engine, by the cost model, after `previous` on the same engine
/// (the static overhead of a tiny or dependent instruction included).
inline double engineNs(const isa::Instruction &inst, isa::Engine engine, const isa::Target &target,
                       const isa::Instruction *previous = nullptr) {
  const uint64_t cycles =
      isa::engineCycles(inst, engine, target) + isa::staticOverheadCycles(inst, previous, engine, target);
  return static_cast<double>(cycles) / isa::clockGhz(engine, target);
}

/// Nanoseconds a DMA transfer takes on an otherwise idle machine: the longest of its fixed cost, its descriptor
/// slot, its streaming on its engines and its time on the HBM share (memory/DmaEngines.h: one core's pool is its
/// share).
inline double dmaNs(const isa::Instruction &inst, const isa::Target &target) {
  const isa::DmaTransferCost cost = isa::dmaTransferCost(inst, target);
  return std::max(cost.leastNs, cost.hbmNs);
}

} // namespace tessera::sim::testing
