#pragma once
/// \file
/// What each instruction computes: one reference implementation per opcode, used by the simulator. Every
/// instruction decodes its inputs to FP32, computes in FP32 and encodes on the way out, as the NeuronCore
/// engines do; PSUM accumulation is FP32.

#include "tessera/isa/Program.h"

#include <cstddef>
#include <span>

namespace tessera::isa {

/// The memories an instruction can touch.
struct Memories {
  std::byte *sbuf = nullptr;
  uint64_t sbufPartitionBytes = 0;
  std::byte *psum = nullptr;
  uint64_t psumPartitionBytes = 0;
  std::span<std::byte *const> hbm; ///< one base pointer per Program::tensors entry
};

/// Performs `inst` on `mem`. Operands are assumed in bounds (the simulator checks before calling).
void execute(const Instruction &inst, const Memories &mem);

} // namespace tessera::isa
