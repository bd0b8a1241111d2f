#pragma once
/// \file
/// A compute engine (Tensor, Vector, Scalar or GpSimd): runs its stream one instruction at a time, each taking
/// isa::engineCycles() plus isa::staticOverheadCycles() cycles of the engine's clock (loosely timed: one wait per
/// instruction, no clock edges). Before it starts, an instruction stalls for its producer's commit when it
/// depends back to back on the instruction before it (isa::dependencyCommitCycles), and for a memory port that
/// another engine holds (MemoryPorts, NeuronCore-v2). The same class models all four kinds; the kind only selects
/// the cost formula and clock.

#include "engines/StreamEngine.h"

namespace tessera::sim {

class ComputeEngine final : public StreamEngine {
public:
  ComputeEngine(sc_core::sc_module_name name, const isa::Stream &stream, RunEnvironment &env);

private:
  /// Computes the result (at the start of the instruction), then holds the engine for its cycles.
  void perform(const isa::Instruction &inst) override;
  /// A Print: appends the tile's values, the time and the place to the run's print log.
  void logPrint(const isa::Instruction &inst);
  /// `cycles` of this engine's clock, to the nearest picosecond.
  uint64_t picoseconds(uint64_t cycles) const;

  double psPerCycle_ = 0;
  uint64_t previousEndPs_ = 0;  ///< when the instruction before the current one completed

};

} // namespace tessera::sim
