#pragma once
/// \file
/// What a hardware backend emits from: one compiled kernel, as the simulator ran it, with the provenance that
/// names its buffers (compiler::CompileOptions::recordProvenance).

#include "tessera/compiler/Provenance.h"
#include "tessera/dsl/Graph.h"
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
  /// The kernel as traced (its loops kept), for the Pallas grid style; null when the program came from a file.
  const tsr::graph::KernelGraph *graph = nullptr;
};

} // namespace tessera::backends
