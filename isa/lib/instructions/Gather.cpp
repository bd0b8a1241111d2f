/// \file
/// GpSimd's gathers: local_gather.

#include "Common.h"

namespace tessera::isa::instructions {

std::span<const InstructionDef> gatherInstructions() { return {}; }

} // namespace tessera::isa::instructions
