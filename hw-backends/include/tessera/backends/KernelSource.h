#pragma once
/// \file
/// What a hardware backend emits from: one compiled kernel, as the simulator ran it, with the provenance that
/// names its buffers (compiler::CompileOptions::recordProvenance).

#include "tessera/compiler/Provenance.h"
#include "tessera/compiler/TileProgram.h"
#include "tessera/isa/Program.h"
#include "tessera/isa/Target.h"

#include <string>

namespace tessera::backends {

struct KernelSource {
  std::string kernel;     ///< the kernel's registered name: the emitted function is called so
  std::string summary;    ///< what it computes, one line
  std::string parameters; ///< its shape and kernel parameters, "K=256,M=128,N=512", for the file's header
  std::string command;    ///< the tessera command that emits the same file again
  const isa::Target *target = nullptr;
  const isa::Program *program = nullptr;             ///< what the simulator ran: instructions, tensors, semaphores
  const compiler::Provenance *provenance = nullptr;  ///< the program's order, tiles and tile ops
  /// The placed tile function, its loops kept, with the family's plan for a loop-keeping backend (Pallas); null or
  /// empty when the program came from a target-level file or the family has no such plan.
  const compiler::TileProgram *tileProgram = nullptr;
};

} // namespace tessera::backends
