#include "memory/MemoryPorts.h"

#include <algorithm>

namespace tessera::sim {
namespace {

/// Whether an operand `inst` uses lies in `space`.
bool uses(const isa::Instruction &inst, isa::MemSpace space) {
  bool found = false;
  isa::forEachOperand(inst, [&](const char *, const isa::AccessPattern &ap, bool) { found |= ap.space == space; });
  return found;
}

} // namespace

uint64_t MemoryPorts::reserve(isa::Engine engine, const isa::Instruction &inst, uint64_t readyPs,
                              uint64_t durationPs) {
  if (durationPs == 0)
    return readyPs;
  using isa::Engine;
  const bool sbufPort = conflicts_.vectorGpsimdSbuf && (engine == Engine::Vector || engine == Engine::GpSimd) &&
                        uses(inst, isa::MemSpace::Sbuf);
  const bool psumPort = conflicts_.vectorScalarPsum && (engine == Engine::Vector || engine == Engine::Scalar) &&
                        uses(inst, isa::MemSpace::Psum);
  uint64_t start = readyPs;
  if (sbufPort)
    start = std::max(start, sbufVectorGpsimdFreeAtPs_);
  if (psumPort)
    start = std::max(start, psumVectorScalarFreeAtPs_);
  if (sbufPort)
    sbufVectorGpsimdFreeAtPs_ = start + durationPs;
  if (psumPort)
    psumVectorScalarFreeAtPs_ = start + durationPs;
  return start;
}

} // namespace tessera::sim
