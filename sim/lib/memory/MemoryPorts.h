#pragma once
/// \file
/// The SBUF and PSUM ports that NeuronCore-v2 engines share (docs/targets.md "Access rules"; the target's
/// [memory] flags): Vector and GpSimd cannot access SBUF at the same time, nor Vector and Scalar PSUM. An
/// instruction that uses a shared port holds it for its whole duration (assumption: an engine streams its
/// operands throughout an instruction), and one that needs a port another engine holds waits until it frees:
/// the later instruction waits. On v3 and later, where the flags are off, no instruction ever waits here.

#include "tessera/isa/Program.h"
#include "tessera/isa/Target.h"

#include <cstdint>

namespace tessera::sim {

class MemoryPorts {
public:
  explicit MemoryPorts(const isa::PortConflicts &conflicts) : conflicts_(conflicts) {}

  /// When `inst` on `engine`, ready at `readyPs`, may start: at `readyPs`, or later when a port it shares is held.
  /// Holds the shared ports it uses for `durationPs` from then.
  uint64_t reserve(isa::Engine engine, const isa::Instruction &inst, uint64_t readyPs, uint64_t durationPs);

private:
  isa::PortConflicts conflicts_;
  uint64_t sbufVectorGpsimdFreeAtPs_ = 0;  ///< when the SBUF port Vector and GpSimd share is free
  uint64_t psumVectorScalarFreeAtPs_ = 0;  ///< when the PSUM port Vector and Scalar share is free
};

} // namespace tessera::sim
