#pragma once
/// \file
/// What the tensor engine's time depends on beyond one instruction's cycles (isa::engineCycles), asked by the
/// loosely timed ComputeEngine for each tensor-engine instruction:
/// - LoadStationary. Every matmul and tensor-engine transpose first loads its stationary into the PE array. The
///   load overlaps the previous multiply, so engineCycles leaves it out; it is charged (isa::loadStationaryCycles)
///   when no multiply was there to hide it: on the engine's first instruction, and after the engine sat idle
///   waiting for a semaphore (the load could start only when the wait ended: we do not know which operand the
///   wait was for).
/// - Row tiling (isa/Modes.h). A matmul in a row tile holds only its rows of the PE array, so it runs beside
///   matmuls in other row tiles. An instruction starts at the earliest when the previous one started (the engine
///   issues in order) and the rows it uses are free, and not before now if it has semaphore waits (they were
///   satisfied at some time up to now; we take now). An untiled instruction uses every row, so it starts when
///   everything before it is done, as without tiling.
/// The engine holds its stream until the instruction completes, never less (its signals must not precede its
/// result): a matmul that overlaps entirely adds no busy time, and the timeline shows the part of each
/// instruction that extended the engine's busy time.

#include "tessera/isa/Program.h"
#include "tessera/isa/Target.h"

#include <cstdint>
#include <vector>

namespace tessera::sim {

class TensorEngineTiming {
public:
  TensorEngineTiming(const isa::Target &target, double psPerCycle);

  /// When `inst` completes, in ps: it takes `cycles` (isa::engineCycles) and was issued at `nowPs`, after waiting
  /// `waitedPs` for its semaphores.
  uint64_t completion(const isa::Instruction &inst, uint64_t cycles, uint64_t nowPs, uint64_t waitedPs);

private:
  /// The finest row tiles [first, last) that `inst` holds.
  std::pair<unsigned, unsigned> rowsOf(const isa::Instruction &inst) const;

  const isa::Target &target_;
  double psPerCycle_;
  std::vector<uint64_t> rowFreePs_; ///< per finest row tile (tensor_engine.max_row_tiles): when it is next free
  uint64_t lastStartPs_ = 0;        ///< when the previous instruction started
  bool first_ = true;
};

} // namespace tessera::sim
