#pragma once
/// \file
/// The compiler's entry point for the rest of Tessera: a traced kernel graph in, an isa::Program out, with the
/// MLIR text of each stage on request. No MLIR type appears here, so callers need no MLIR header.

#include "tessera/compiler/Provenance.h"
#include "tessera/compiler/TileProgram.h"
#include "tessera/dsl/Graph.h"
#include "tessera/isa/Program.h"
#include "tessera/isa/Target.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::compiler {

/// How to compile.
struct CompileOptions {
  /// Rotating copies of each tile allocated inside a loop body (1 = no pipelining across iterations).
  unsigned loopBuffers = 4;
  /// Print the module after every pass to stderr.
  bool printIrAfterAll = false;
  /// Keep the MLIR text of the tile stage (after allocation) and of the target stage (nc or tpu, after
  /// synchronisation).
  bool keepTileIr = false;
  bool keepNcIr = false;
  /// Print each op's kernel source location (`loc(...)`), so a saved module keeps them for `tessera sim`.
  bool printLocations = false;
  /// The most instructions the unroller (lower-tile-to-nc or -tpu) may emit; past it compiling stops with an error
  /// naming the limit, before the module grows further (about 1 KiB of host memory per instruction). 0: none.
  uint64_t maxInstructions = kDefaultMaxInstructions;
  /// Reorder every NeuronCore kernel's engine streams by list scheduling (nc-schedule-instructions), whether or
  /// not the kernel asks for it (tsr::KernelInfo::scheduleInstructions).
  bool scheduleInstructions = false;
  /// Record where each instruction came from (CompileResult::provenance), for the hardware backends.
  bool recordProvenance = false;
  /// With recordProvenance, on a family whose device backend keeps the kernel's loops (TPU: Pallas): plan the loops
  /// as a launch grid where they allow (false: one launch, every loop inside the kernel). CompileResult::tileProgram.
  bool launchGrid = true;
  static constexpr uint64_t kDefaultMaxInstructions = 50'000'000;
};

/// The words that start the message of a compile stopped by CompileOptions::maxInstructions.
inline constexpr const char *kInstructionLimitMessage = "instruction limit exceeded";

/// What compile() and compileFile() throw when CompileOptions::maxInstructions stops the unroller.
class InstructionLimitError : public Error {
public:
  using Error::Error;
};

/// What compiling gives.
struct CompileResult {
  std::string tileIr;   ///< the tile stage, when asked for
  /// The target stage, when asked for: the nc module on a NeuronCore, the tpu module on a TPU.
  std::string ncIr;
  isa::Program program; ///< ready to simulate
  int64_t sbufPeakBytes = -1; ///< peak SBUF use per partition, from allocation (-1: unknown)
  int64_t psumPeakBytes = -1; ///< peak PSUM use per partition
  int64_t vmemPeakBytes = -1; ///< TPU: peak VMEM use, from allocation (-1: unknown, or not a TPU)
  /// What the compiler wants the kernel's author to know but is not an error, each "file:line: what" (e.g. a
  /// tile that VMEM's native tiling pads).
  std::vector<std::string> notes;
  /// Each instruction's tile op, the kernel's tiles and the program order, when CompileOptions::recordProvenance
  /// asked for them (empty otherwise, and for a module read from a target-level file).
  Provenance provenance;
  /// With recordProvenance, on a family whose device backend keeps the kernel's loops: the placed tile function,
  /// loops kept, with the family's plan for that backend (empty otherwise).
  TileProgram tileProgram;
};

/// Compiles `kernel` for `target`: import -> verify-target -> allocate-memory -> lower-tile-to-nc (or -tpu on a
/// TPU) -> insert-semaphores -> isa::Program. Problems are a tessera::Error at the kernel's source line.
CompileResult compile(const tsr::graph::KernelGraph &kernel, const isa::Target &target,
                      const CompileOptions &options = {});

/// Reads a `.mlir` file holding one kernel at the tile level (compiled with `options` first) or at the target level,
/// nc or tpu (as `tessera compile --emit nc` prints it), for the target its `tessera.target` attribute names.
/// A file that does not parse or verify is a tessera::Error naming the file and line.
CompileResult compileFile(const std::string &path, const CompileOptions &options = {});

/// Prints the tile-dialect module of a traced kernel, before any pass.
std::string importToText(const tsr::graph::KernelGraph &kernel, const isa::Target &target);

} // namespace tessera::compiler
