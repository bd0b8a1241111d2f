#pragma once
/// \file
/// The driver: one kernel from the DSL to a report. Driver.cpp reads top to bottom as the path every run takes.

#include "tessera/HostData.h"
#include "tessera/compiler/Compiler.h"
#include "tessera/dsl/Kernel.h"
#include "tessera/isa/Target.h"
#include "tessera/sim/Simulator.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace tessera::driver {

/// Bad usage or input (unknown kernel, bad shape, missing target): the CLI exits with status 2.
class InputError : public Error {
public:
  using Error::Error;
  explicit InputError(const Error &e) : Error(e) {}
};

/// What to run.
struct RunRequest {
  std::string kernel;
  std::string target = "trn2";
  std::map<std::string, int64_t> shape;   ///< overrides of the kernel's default shape parameters
  uint64_t seed = 0;
  bool timingOnly = false;                ///< simulate time alone: no values, no reference, no comparison
  bool checks = true;                     ///< the simulator's kernel-bug checks (races, uninitialised reads)
  /// Check the outputs against the golden model (the kernel JIT-compiled for the CPU) as well as against the
  /// kernel's hand-written reference; false (`--no-golden`) uses the reference alone.
  bool golden = true;
  /// Record when every instruction ran (RunReport::sim.timeline), for `--trace` and the HTML report.
  bool recordTimeline = false;
  /// Told how the simulation advances (a progress bar); see sim::SimOptions::progress.
  std::function<void(double, uint64_t, uint64_t)> progress;
  compiler::CompileOptions compile;

  /// The simulator's options for this request.
  sim::SimOptions simOptions() const;
};

/// What a run found.
struct RunReport {
  std::string kernel;
  isa::Target target;
  tsr::Params params;
  sim::SimResult sim;
  /// The simulated program: its instructions, operands and source lines, which sim.timeline indexes into.
  std::shared_ptr<const isa::Program> program;
  size_t instructions = 0;
  int64_t sbufPeakBytes = -1;  ///< peak SBUF use per partition (from allocation; -1 unknown)
  int64_t psumPeakBytes = -1;
  std::vector<TensorCheck> checks;  ///< empty in a timing-only run
  /// What the outputs were checked against: "golden", "reference", "golden+reference", or "none".
  std::string reference = "none";
  /// Why the golden model did not run although it was asked for (an unsupported dtype); empty when it ran.
  std::string goldenUnavailable;
  bool timingOnly = false;
  bool ok = false;            ///< every output within tolerance (a timing-only run checks nothing: true)

  double timeUs() const { return sim.timeNs / 1000.0; }
  /// Simulated time in tensor-engine cycles.
  double cycles() const { return sim.timeNs * target.tensor.clockGhz; }
  double achievedTflops() const { return sim.timeNs > 0 ? double(sim.flops) / sim.timeNs / 1000.0 : 0; }
  /// Share of the run each stream spent executing, in percent; DMA queues are summarised as "dma": the share
  /// of the run the shared DMA bandwidth was moving bytes.
  std::map<std::string, double> busyPercent() const;
  /// The two lower bounds a reader can check by hand: the tensor engine's busy time, and HBM bytes over the
  /// DMA bandwidth.
  double tensorBoundUs() const;
  double dmaBoundUs() const;
};

/// The kernel called `name`, or an InputError listing the known ones.
const tsr::KernelInfo &findKernel(const std::string &name);
/// Loads a target by name or path; problems are InputErrors.
isa::Target loadTarget(const std::string &nameOrPath);
/// Resolves shape overrides and traces the kernel. Bad shapes are InputErrors; DSL misuse is a tessera::Error.
tsr::graph::KernelGraph traceKernel(const tsr::KernelInfo &kernel, const std::map<std::string, int64_t> &shape,
                                    tsr::Params &params);

/// Traces, compiles, simulates and checks one kernel.
RunReport runKernel(const RunRequest &request);

/// Simulates a kernel saved as MLIR (`tessera compile --emit nc` output, or a tile-level module) with random
/// inputs from `request.seed`: time and engine use, no reference to check against (`request.kernel`, `target`,
/// `shape` and `golden` do not apply: the file says what runs where). Problems with the file are InputErrors.
RunReport simulateFile(const std::string &path, const RunRequest &request = {});

} // namespace tessera::driver
