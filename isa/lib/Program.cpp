/// \file
/// Small helpers of isa::Program: names for reports and text, and access-pattern arithmetic.

#include "tessera/isa/Program.h"

#include "tessera/isa/InstructionSet.h"

#include <algorithm>

namespace tessera::isa {

std::string_view name(MemSpace s) {
  switch (s) {
  case MemSpace::Hbm: return "hbm";
  case MemSpace::Sbuf: return "sbuf";
  case MemSpace::Psum: return "psum";
  case MemSpace::Vmem: return "vmem";
  case MemSpace::Smem: return "smem";
  }
  return "unknown";
}

std::string_view name(Engine e) {
  switch (e) {
  case Engine::Tensor: return "tensor";
  case Engine::Vector: return "vector";
  case Engine::Scalar: return "scalar";
  case Engine::GpSimd: return "gpsimd";
  case Engine::Mxu: return "mxu";
  case Engine::Vpu: return "vpu";
  case Engine::ScalarUnit: return "scalar"; // the TPU's scalar core; a program is of one family, so no clash
  case Engine::Dma: return "dma";
  }
  return "unknown";
}

/// The product of the free sizes; 1 when there are no free dimensions (one element per partition).
/// Element offsets, relative to `offset`, of the first and last element the walk touches. Strides may be
/// negative; `rowStride` and `rows` add the partition dimension (HBM).
static std::pair<int64_t, int64_t> elementSpan(const AccessPattern &ap, int64_t rowStride, int64_t rows) {
  int64_t lowest = 0, highest = 0;
  auto extend = [&](int64_t size, int64_t stride) {
    const int64_t reach = (size - 1) * stride;
    lowest += std::min<int64_t>(reach, 0);
    highest += std::max<int64_t>(reach, 0);
  };
  for (unsigned d = 0; d < ap.freeRank; ++d)
    extend(ap.sizes[d], ap.strides[d]);
  extend(rows, rowStride);
  return {lowest, highest};
}

/// SBUF/PSUM: bytes from the start of each partition (`offset` is already a byte address). HBM: bytes from the
/// tensor's start, across all `partitions` rows. VMEM/SMEM: bytes from the memory's start, across all rows. An
/// empty pattern gives the empty range at its start.
std::pair<int64_t, int64_t> AccessPattern::byteExtent() const {
  const int64_t elementBytes = byteSize(dtype);
  const int64_t start = space == MemSpace::Hbm ? offset * elementBytes : offset;
  if (partitions == 0 || freeElements() == 0)
    return {start, start};
  const bool rows = flat();
  const auto [lowest, highest] = elementSpan(*this, rows ? partitionStride : 0, rows ? partitions : 1);
  return {start + lowest * elementBytes, start + (highest + 1) * elementBytes};
}

AccessPattern AccessPattern::dense(MemSpace space, DType dtype, uint32_t partitionStart, uint32_t partitions,
                                   int64_t offset, int64_t n) {
  AccessPattern ap;
  ap.space = space;
  ap.dtype = dtype;
  ap.partitionStart = partitionStart;
  ap.partitions = partitions;
  ap.partitionStride = ap.flat() ? n : 0;
  ap.offset = offset;
  ap.freeRank = 1;
  ap.sizes[0] = n;
  ap.strides[0] = 1;
  return ap;
}

std::string Stream::label() const {
  const std::string prefix = core >= 0 ? "core" + std::to_string(core) + "." : std::string();
  if (engine == Engine::Dma)
    return prefix + "dma" + std::to_string(queue);
  return prefix + std::string(name(engine));
}

Program mergeCores(std::span<const Program> cores) {
  Program merged;
  if (cores.empty()) return merged;
  merged.kernel = cores.front().kernel;
  merged.target = cores.front().target;
  merged.tensors = cores.front().tensors;
  merged.locations = {SourceLoc{}};
  for (size_t c = 0; c < cores.size(); ++c) {
    const Program &core = cores[c];
    const auto semaphoreBase = merged.semaphores;
    const auto locationBase = static_cast<uint32_t>(merged.locations.size()) - 1; // [0] "unknown" is shared
    const auto textBase = static_cast<uint32_t>(merged.texts.size());
    for (const Stream &stream : core.streams) {
      Stream &s = merged.streams.emplace_back(stream);
      s.core = static_cast<int32_t>(c);
      for (Instruction &i : s.instructions) {
        const auto waitBegin = static_cast<uint32_t>(merged.waits.size());
        for (SemWait w : core.waitsOf(i)) merged.waits.push_back({w.sem + semaphoreBase, w.count});
        const auto signalBegin = static_cast<uint32_t>(merged.signals.size());
        for (uint32_t sem : core.signalsOf(i)) merged.signals.push_back(sem + semaphoreBase);
        i.waitBegin = waitBegin;
        i.signalBegin = signalBegin;
        if (i.loc != 0) i.loc += locationBase;
        i.text += textBase;
      }
    }
    merged.semaphores += core.semaphores;
    merged.locations.insert(merged.locations.end(), core.locations.begin() + (core.locations.empty() ? 0 : 1),
                            core.locations.end());
    merged.texts.insert(merged.texts.end(), core.texts.begin(), core.texts.end());
  }
  return merged;
}

/// The product of the shape; 1 for a scalar (empty shape).
int64_t TensorInfo::elements() const {
  int64_t count = 1;
  for (int64_t extent : shape)
    count *= extent;
  return count;
}

size_t Program::instructionCount() const {
  size_t count = 0;
  for (const Stream &stream : streams)
    count += stream.instructions.size();
  return count;
}

bool Instruction::sameWork(const Instruction &o) const {
  return op == o.op && alu == o.alu && alu1 == o.alu1 && func == o.func && accumulate == o.accumulate &&
         reverse0 == o.reverse0 && reverse1 == o.reverse1 && negate == o.negate && preserve == o.preserve &&
         mode == o.mode && scale == o.scale && bias == o.bias && value == o.value && onFalse == o.onFalse && operand0 == o.operand0 &&
         operand1 == o.operand1 && initial == o.initial && elementsPerIndex == o.elementsPerIndex &&
         validIndices == o.validIndices && pattern == o.pattern && shuffleMask == o.shuffleMask &&
         text == o.text && dst == o.dst && dst2 == o.dst2 && src0 == o.src0 && src1 == o.src1 && src2 == o.src2;
}

OperandUse operandUse(const Instruction &inst) { return definition(inst.op).use(inst); }

} // namespace tessera::isa
