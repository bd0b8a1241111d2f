#pragma once
/// \file
/// One core running one isa::Program, a NeuronCore or a TPU TensorCore: the module that owns the core's own
/// memories as its family lists them (isa::Family::memories: NeuronCore SBUF and PSUM; TPU VMEM and SMEM), its
/// semaphores, the TPU's grid-step barrier, its DMA engines and descriptor generator, its kernel-bug checks, and
/// one engine module per instruction stream (a ComputeEngine for the Tensor/Vector/Scalar/GpSimd or
/// MXU/VPU/scalar-unit streams, a DmaQueue per DMA queue). HBM (its tensors and bandwidth pool) and the run's
/// first failure belong to the chip (Chip.h), which runs its cores together.

#include "RunEnvironment.h"
#include "Semaphores.h"
#include "StepBarrier.h"
#include "engines/StreamEngine.h"
#include "memory/DmaEngines.h"
#include "memory/Hbm.h"
#include "memory/MemoryPorts.h"
#include "memory/OnChipMemory.h"

#include "tessera/isa/PackedOperands.h"
#include "tessera/isa/Program.h"
#include "tessera/isa/Target.h"
#include "tessera/sim/KernelBug.h"
#include "tessera/sim/Simulator.h"

#include <systemc>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::sim {

class Core : public sc_core::sc_module {
public:
  /// Builds core `index` of a run in the current sc_simcontext, on the run's shared `hbm` and `chip`. `program`
  /// must have passed checkStreams(); all must outlive the core.
  Core(sc_core::sc_module_name name, uint32_t index, const isa::Program &program, const isa::Target &target,
       Hbm &hbm, ChipRun &chip, const SimOptions &options);
  ~Core() override;

  const isa::Program &program() const { return program_; }
  /// Whether every stream has finished (true for a program without streams).
  bool finished() const;
  /// For a deadlock report: appends each blocked stream's line ("\n  " + `prefix` + "stream 'vector', instruction
  /// 3 (memset) ... waits for semaphore 1 to reach 2; it stands at 1") to `text` and its instruction to `bug`.
  void describeBlocked(std::string_view prefix, std::string &text, KernelBug &bug) const;

  /// What each stream did, and the totals.
  SimResult results() const;
  /// The recorded InstructionEvents, in completion order (empty unless SimOptions::recordTimeline); moved out.
  std::vector<InstructionEvent> takeTimeline() { return std::move(timeline_); }
  /// What Print instructions logged so far.
  const std::vector<DevicePrint> &prints() const { return env_.prints; }

private:
  /// What `inst`, held at the grid-step barrier, waits for, for a deadlock report: "waits for grid step 3's
  /// bookkeeping", or "grid step 4 waits for 2 unfinished instructions of step 3, e.g. stream 'vpu', instruction
  /// 12 (vpu_binary)".
  std::string describeStepWait(const isa::Instruction &inst) const;

  const isa::Program &program_;
  uint32_t index_ = 0;
  std::vector<OnChipMemory> memories_; ///< the family's: NeuronCore SBUF and PSUM; TPU VMEM and SMEM (one row each)
  DmaEngines dma_;
  MemoryPorts ports_;
  Semaphores semaphores_;
  StepBarrier stepBarrier_;
  /// Races and uninitialised reads among this core's streams, in its own memories and in HBM (each core's checker
  /// sees its own accesses only; races between cores on HBM are checkCoresTouchApart's, before the run).
  std::unique_ptr<KernelBugChecks> checks_;
  isa::PackedOperands packedOperands_; ///< matmuls' moving operands, decoded once while unwritten
  std::vector<InstructionEvent> timeline_;
  RunEnvironment env_;
  std::vector<std::unique_ptr<StreamEngine>> engines_;
};

} // namespace tessera::sim
