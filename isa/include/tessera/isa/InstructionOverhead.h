#pragma once
/// \file
/// The fixed overheads an instruction pays on top of isa::engineCycles, which depend on the instruction before it
/// on the same engine (NKI architecture guide and perf guide, Opt #5a; coefficients in the target's [cost]):
///  - static overhead: a Vector or Scalar instruction that is tiny (fewer than tiny_free_elements per partition)
///    or back-to-back dependent (it reads what the instruction before it on its engine wrote) takes
///    static_overhead_cycles more;
///  - dependency commit: a back-to-back dependent instruction cannot start reading until its producer's output is
///    committed, dependency_commit_cycles after the producer completes.
/// The simulator charges both (sim/lib/engines/ComputeEngine.cpp); isa::engineCycles, which the compiler uses to
/// balance engines, leaves them out.

#include "tessera/isa/Program.h"
#include "tessera/isa/Target.h"

#include <cstdint>

namespace tessera::isa {

/// Whether `inst` reads bytes that `producer` writes: an operand `inst` reads (a source, an accumulated dst) on chip
/// whose partitions and bytes overlap an operand the producer writes.
bool readsOutputOf(const Instruction &inst, const Instruction &producer);

/// Static overhead, in cycles of `engine`, of `inst` after `previous` (the instruction before it in the same
/// stream; null for the first): cost.static_overhead_cycles for a tiny or back-to-back dependent Vector/Scalar
/// instruction, else 0.
uint64_t staticOverheadCycles(const Instruction &inst, const Instruction *previous, Engine engine,
                              const Target &target);

/// Cycles of `engine` after `previous` completes before `inst` may start reading: cost.dependency_commit_cycles
/// when `inst` is a Vector/Scalar instruction that reads what `previous` wrote, else 0.
uint64_t dependencyCommitCycles(const Instruction &inst, const Instruction *previous, Engine engine,
                                const Target &target);

} // namespace tessera::isa
