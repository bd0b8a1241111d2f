#pragma once
/// \file
/// The SystemC simulator of a NeuronCore or TPU TensorCore: runs an isa::Program on a Target, engine by engine,
/// computing real values and estimating time; or several programs on as many cores of one chip at once
/// (simulateChip). No MLIR here: it executes the flat instruction streams the compiler produced.

#include "tessera/isa/Cost.h"
#include "tessera/isa/Program.h"
#include "tessera/isa/Target.h"
#include "tessera/sim/DevicePrint.h"
#include "tessera/sim/KernelBug.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace tessera::sim {

/// How to run.
struct SimOptions {
  bool computeValues = true;  ///< false: timing only (no instruction computes its result)
  /// Kernel-bug checks, in timing-only runs too: races between streams that no semaphore orders, and reads of
  /// never-written SBUF/PSUM/HBM-output bytes. They cost host time, never simulated time. Off: only the checks
  /// that keep the simulator itself safe remain (operands in bounds, shapes, semaphore ids, deadlock).
  bool checks = true;
  /// Record one InstructionEvent per retired instruction in SimResult::timeline (for traces and reports).
  bool recordTimeline = false;
  /// Called every kProgressInterval retired instructions (from the simulation thread) with the simulated time
  /// so far and the instructions retired out of the program's total (simulateChip: over all the cores, out of all
  /// the programs' total): for a progress bar. Costs one branch per instruction when empty.
  std::function<void(double simulatedNs, uint64_t retired, uint64_t total)> progress;
  static constexpr uint64_t kProgressInterval = 64;
};

/// When one instruction ran: it became the next of its stream at `issueNs`, waited for its semaphores until
/// `startNs`, and occupied its engine (or its DMA queue) until `endNs`.
struct InstructionEvent {
  uint32_t stream = 0;       ///< index into Program::streams (and SimResult::streams)
  uint32_t index = 0;        ///< index into that stream's instructions
  double issueNs = 0;
  double startNs = 0;
  double endNs = 0;
  /// A DMA transfer with HBM bytes: when it held the HBM bandwidth (the bandwidth model's server, the launched
  /// cores' shares pooled; memory/Hbm.h). Equal (0) for any other instruction.
  double hbmFromNs = 0;
  double hbmToNs = 0;
};

/// What one instruction stream did.
struct StreamStats {
  std::string name;            ///< "tensor", "vector", "scalar", "gpsimd", "dma0".."dmaN"
  isa::Engine engine = isa::Engine::Tensor;
  uint64_t instructions = 0;
  double busyNs = 0;           ///< time spent executing (DMA queues: time with a transfer in flight)
  double waitNs = 0;           ///< time spent blocked on semaphores
};

/// The outcome of one simulation.
struct SimResult {
  double timeNs = 0;           ///< when the last instruction completed
  uint64_t instructions = 0;   ///< instructions retired
  uint64_t flops = 0;          ///< floating-point operations performed
  /// Those FLOPs by the peak they are measured against (indexed by isa::PeakDtype: BF16, FP8, FP32).
  std::array<uint64_t, isa::kPeakDtypeCount> flopsByPeak{};
  uint64_t hbmBytes = 0;       ///< bytes moved between HBM and the core
  std::vector<StreamStats> streams;
  std::vector<InstructionEvent> timeline; ///< in completion order; empty unless SimOptions::recordTimeline
  std::vector<DevicePrint> prints;        ///< what Print instructions logged, in simulated-time order
  /// Host wall time of the simulation proper (building the machine and running it; not input generation,
  /// compilation or the reference), in seconds: what simulation-speed goals are measured with. In a ChipResult's
  /// cores, the whole chip's run (the cores run together).
  double hostSeconds = 0;
};

/// The contents of every HBM tensor of a program, in Program::tensors order, in the tensors' own dtypes.
using HbmImage = std::vector<std::vector<std::byte>>;

/// Host bytes simulate() allocates for `program`'s semaphores (their counters and events, and with `checks` the
/// race checker's clocks), which grow with the highest semaphore id a module names: for memory estimates.
uint64_t semaphoreHostBytes(const isa::Program &program, bool checks);

/// Simulates `program` on `target`. `hbm` holds the inputs on entry and the outputs on return; missing or empty
/// buffers are made zero-filled, except in timing-only runs, which leave them empty.
/// Throws tessera::Error when the program cannot run, a KernelBugError (KernelBug.h) for a bug in the kernel:
/// deadlock, an operand outside its memory, and with SimOptions::checks the first race, uninitialised read, or
/// (on targets where it is undefined) matmul accumulating onto PSUM that a non-matmul instruction wrote.
SimResult simulate(const isa::Program &program, const isa::Target &target, HbmImage &hbm,
                   const SimOptions &options = {});

/// A run of several cores of one chip: each core's own result (its streams, timeline, prints, time), and the
/// chip's.
struct ChipResult {
  std::vector<SimResult> cores; ///< one per program, in order; each core's timeline indexes its own program's streams
  double timeNs = 0;            ///< when the last instruction of any core completed
  uint64_t instructions = 0;    ///< totals over the cores
  uint64_t flops = 0;
  std::array<uint64_t, isa::kPeakDtypeCount> flopsByPeak{};
  uint64_t hbmBytes = 0;
  double hostSeconds = 0;       ///< building the cores and running them (SimResult::hostSeconds)
};

/// Simulates `cores` (one isa::Program per core, all with the same tensors: same names, shapes, dtypes and
/// outputs, in the same order) on one chip of `target` at once: each core has its own engines, on-chip memories,
/// semaphores, DMA engines and queues; HBM's contents (`hbm`, as for simulate()) and its bandwidth are shared, the
/// bandwidth as one pool of the launched cores' shares (cores.size() x hbm.chip_gbps / hbm.cores_per_chip;
/// docs/memory.md). The first failure of any core stops the run; a deadlock report names every blocked stream of
/// every core. The kernel-bug checks (races, uninitialised reads) are per core, and with SimOptions::checks HBM
/// elements one core writes and another reads or writes are a race (found before the run). With several cores, error messages start "core N: " and BugInstruction::core says whose stream.
/// Throws tessera::Error for an empty span, programs whose tensors differ, or more programs than the target's
/// chip has cores (hbm.cores_per_chip); otherwise as simulate(). simulate() is the one-core case.
ChipResult simulateChip(std::span<const isa::Program> cores, const isa::Target &target, HbmImage &hbm,
                        const SimOptions &options = {});

} // namespace tessera::sim
