#pragma once
/// \file
/// A compute engine (NeuronCore: Tensor, Vector, Scalar or GpSimd; TPU: MXU, VPU or the scalar unit): runs its
/// stream one instruction at a time, each taking isa::engineCycles() cycles of the engine's clock (loosely timed:
/// one wait per instruction, no clock edges). The same class models every kind; the kind selects the cost formula
/// and clock, the tensor engine adds what its time depends on across instructions (TensorEngineTiming), and the
/// MXU its pipeline fill after idling (MxuTiming). Vector and Scalar instructions add
/// isa::staticOverheadCycles(); before it starts, an instruction stalls for its producer's commit when it depends
/// back to back on the instruction before it (isa::dependencyCommitCycles), and for a memory port that another
/// engine holds (MemoryPorts, NeuronCore-v2).

#include "engines/StreamEngine.h"
#include "engines/TensorEngineTiming.h"

#include <optional>

namespace tessera::sim {

class ComputeEngine final : public StreamEngine {
public:
  ComputeEngine(sc_core::sc_module_name name, const isa::Stream &stream, RunEnvironment &env);

private:
  /// Computes the result (at the start of the instruction); returns how long it holds the engine.
  uint64_t begin(const isa::Instruction &inst) override;
  /// A Print: appends the tile's values, the time and the place to the run's print log.
  void logPrint(const isa::Instruction &inst);
  /// `cycles` of this engine's clock, to the nearest picosecond.
  uint64_t picoseconds(uint64_t cycles) const;

  double psPerCycle_ = 0;
  uint64_t previousEndPs_ = 0;  ///< when the instruction before the current one completed
  std::optional<TensorEngineTiming> tensorTiming_; ///< the tensor engine's LoadStationary and row tiles
};

} // namespace tessera::sim
