#pragma once
/// \file
/// The top-level module: one core running one isa::Program, a NeuronCore or a TPU TensorCore. It owns the
/// memories its family lists (isa::Family::memories: NeuronCore SBUF and PSUM; TPU VMEM and SMEM; both: HBM with
/// its shared DMA bandwidth), the
/// semaphores, the TPU's grid-step barrier, and one engine module per instruction stream (a ComputeEngine for the
/// Tensor/Vector/Scalar/GpSimd or MXU/VPU/scalar-unit streams, a DmaQueue per DMA queue), and runs them until every
/// stream finishes.

#include "RunEnvironment.h"
#include "Semaphores.h"
#include "StepBarrier.h"
#include "engines/StreamEngine.h"
#include "memory/Hbm.h"
#include "memory/MemoryPorts.h"
#include "memory/OnChipMemory.h"

#include "tessera/isa/PackedOperands.h"
#include "tessera/isa/Program.h"
#include "tessera/isa/Target.h"
#include "tessera/sim/Simulator.h"

#include <systemc>

#include <memory>
#include <string>
#include <vector>

namespace tessera::sim {

class Machine : public sc_core::sc_module {
public:
  /// Builds the machine in the current sc_simcontext. `program` must have passed checkStreams(), `hbm` must have
  /// passed prepareHbm(); all must outlive the machine.
  Machine(sc_core::sc_module_name name, const isa::Program &program, const isa::Target &target, HbmImage &hbm,
          const SimOptions &options);
  ~Machine() override;

  /// Runs until no engine can proceed. Rethrows the first failure of an engine; throws a deadlock Error naming
  /// every blocked stream when some stream has not finished.
  void run();

  /// What each stream did, and the totals.
  SimResult results() const;
  /// The recorded InstructionEvents, in completion order (empty unless SimOptions::recordTimeline); moved out.
  std::vector<InstructionEvent> takeTimeline() { return std::move(timeline_); }

private:
  [[noreturn]] void throwDeadlock() const;
  /// What `inst`, held at the grid-step barrier, waits for, for a deadlock report: "waits for grid step 3's
  /// bookkeeping", or "grid step 4 waits for 2 unfinished instructions of step 3, e.g. stream 'vpu', instruction
  /// 12 (vpu_binary)".
  std::string describeStepWait(const isa::Instruction &inst) const;

  const isa::Program &program_;
  std::vector<OnChipMemory> memories_; ///< the family's: NeuronCore SBUF and PSUM; TPU VMEM and SMEM (one row each)
  Hbm hbm_;
  MemoryPorts ports_;
  Semaphores semaphores_;
  StepBarrier stepBarrier_;
  std::unique_ptr<KernelBugChecks> checks_;
  isa::PackedOperands packedOperands_; ///< matmuls' moving operands, decoded once while unwritten
  std::vector<InstructionEvent> timeline_;
  RunEnvironment env_;
  std::vector<std::unique_ptr<StreamEngine>> engines_;
};

} // namespace tessera::sim
