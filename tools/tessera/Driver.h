#pragma once
/// \file
/// The driver: one kernel from the DSL to a report. Driver.cpp reads top to bottom as the path every run takes.

#include "tessera/HostData.h"
#include "tessera/InputDistribution.h"
#include "tessera/LaunchRun.h"
#include "tessera/compiler/Compiler.h"
#include "tessera/dsl/Kernel.h"
#include "tessera/isa/Target.h"
#include "tessera/sim/Simulator.h"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::driver {

/// The target a run simulates when none is named (`--target`, RunRequest::target).
inline constexpr std::string_view kDefaultTarget = "trn2";

/// Bad usage or input (unknown kernel, bad shape, missing target): the CLI exits with status 2.
class InputError : public Error {
public:
  using Error::Error;
  explicit InputError(const Error &e) : Error(e) {}
};

/// The compiler refused the kernel for its target (an isa op of another family, tiles that do not fit): bad input,
/// fixed in the kernel's source. `tessera compare` reports it as that target's row instead of stopping.
class CompileRefused : public InputError {
public:
  using InputError::InputError;
};

/// A resource limit stopped the run (--max-instructions, --max-memory-gib, --timeout): the CLI exits with
/// status 3.
class LimitError : public Error {
public:
  using Error::Error;
};

/// --timeout ended the simulation at an instruction boundary; what it had done by then is the partial report.
class TimeoutError : public LimitError {
public:
  /// `stage` says what it stopped, when not the simulation ("while the golden model ... computed").
  TimeoutError(double timeoutSeconds, double simulatedNs, uint64_t retired, uint64_t total,
               const std::string &stage = "");
  double timeoutSeconds = 0;
  double simulatedNs = 0;  ///< simulated time reached when it stopped
  uint64_t retired = 0;    ///< instructions retired by then
  uint64_t total = 0;      ///< instructions in the program
};

/// Half of the machine's physical memory: the default of RunRequest::maxMemoryBytes (`--max-memory-gib`).
uint64_t defaultMaxMemoryBytes();

/// What to run.
struct RunRequest {
  std::string kernel;
  /// A kernel that is not in the registry (tests/differential's random kernels): when set, runs and compiles run
  /// it and do not look `kernel` up. It must outlive the run.
  const tsr::KernelInfo *kernelInfo = nullptr;
  std::string target{kDefaultTarget};     ///< a target name (`tessera targets`) or a .toml file
  /// A target opened, and perhaps changed, in code (`loadTarget("trn2")`, then twice the SBUF): when set, runKernel
  /// and compileKernel simulate this machine and do not read `target`.
  std::optional<isa::Target> machine;
  std::map<std::string, int64_t> shape;   ///< overrides of the kernel's default shape parameters
  std::map<std::string, int64_t> kernelParams; ///< overrides of its default kernel parameters (`--param`)
  std::map<std::string, double> scalarParams;  ///< overrides of its default scalar parameters (`--param`)
  uint64_t seed = 0;
  InputDistribution inputDist;            ///< how inputs no file gives are drawn (--input-dist)
  bool timingOnly = false;                ///< simulate time alone: no values, no reference, no comparison
  bool checks = true;                     ///< the simulator's kernel-bug checks (races, uninitialised reads)
  /// Check the outputs against the golden model (the kernel JIT-compiled for the CPU) as well as against the
  /// kernel's hand-written reference; false (`--no-golden`) uses the reference alone.
  bool golden = true;
  /// Record when every instruction ran (RunReport::sim.timeline), for `--trace` and the HTML report.
  bool recordTimeline = false;
  /// Inputs from .npy files (`--input NAME=FILE`), instead of random values; the others stay random.
  std::map<std::string, std::string> inputFiles;
  /// Inputs given as host arrays by name, rounded to each tensor's dtype (loadInputArray); the others stay random
  /// (or come from inputFiles).
  std::map<std::string, HostArray> inputs;
  /// Where to write every output as NAME.npy after the run (`--output-dir`); empty: nowhere.
  std::string outputDir;
  /// Keep the tensors after the run (RunReport::hbm: the inputs as the kernel read them and the outputs it
  /// wrote), for `tessera deploy`.
  bool keepTensors = false;
  /// Told how the simulation advances (a progress bar); see sim::SimOptions::progress.
  std::function<void(double, uint64_t, uint64_t)> progress;
  /// Told, about every 100 ms, what the run is waiting for once the simulation is done and for how long so far (a
  /// progress bar: ProgressBar::waitingCallback): "golden model (compiling for the host)", "kernel's reference",
  /// or both joined by " and the " (ReferenceRun::pending).
  std::function<void(const std::string &what, double seconds)> waiting;
  compiler::CompileOptions compile;
  /// The most instructions the simulated program may have (`--max-instructions`): the unroller stops at it (or
  /// earlier, at maxMemoryBytes / kCompileBytesPerInstruction), and a compiled or loaded program above it is not
  /// simulated. 0: no limit. Overrides compile.maxInstructions.
  uint64_t maxInstructions = compiler::CompileOptions::kDefaultMaxInstructions;
  /// Host memory the run may use (`--max-memory-gib`), estimated before anything large is allocated: the HBM
  /// image and its copies, SBUF/PSUM storage, the program and the timeline (estimateHostBytes). 0: no limit.
  uint64_t maxMemoryBytes = defaultMaxMemoryBytes();
  /// Wall-clock deadline (`--timeout`), with a TimeoutError: checked after compiling, while making the inputs (every
  /// million elements), in the simulation at each progress report (every SimOptions::kProgressInterval
  /// instructions), and while waiting for the golden model and the reference, which are then left to finish on
  /// their thread (ReferenceRun.h). Unset: none.
  std::optional<std::chrono::steady_clock::time_point> deadline;
  double timeoutSeconds = 0; ///< what the deadline was set from, for the message

  /// The simulator's options for this request.
  sim::SimOptions simOptions() const;
  /// compile, with the unroller's instruction limit from maxInstructions and maxMemoryBytes.
  compiler::CompileOptions compileOptions() const;
  /// Host bytes the compiler may need per unrolled instruction (MLIR ops, measured at about 1.1 KiB, plus the
  /// program), used to cap the unroller by maxMemoryBytes.
  static constexpr uint64_t kCompileBytesPerInstruction = 2048;
};

/// What a run found.
struct RunReport {
  std::string kernel;
  isa::Target target;
  tsr::Params params;
  sim::SimResult sim;
  /// The kernel's SPMD launch grid (tsr::KernelInfo::grid); empty for a kernel launched once.
  std::vector<int64_t> grid;
  /// With a launch grid on a target whose launch spans several cores: what each core did (sim holds them all, its
  /// streams named by core, and the chip's time); empty when the run used one core.
  std::vector<CoreRun> cores;
  /// The simulated program: its instructions, operands and source lines, which sim.timeline indexes into.
  std::shared_ptr<const isa::Program> program;
  /// Where the program's instructions came from, when the request's compile options recorded it (for the hardware
  /// backends: tessera deploy); null otherwise.
  std::shared_ptr<const compiler::Provenance> provenance;
  /// The program `provenance` describes, which device code is written from: `program`, except for an SPMD launch
  /// simulated on several cores, where it is the whole launch compiled as one program (its launch grid's loops
  /// kept as loops, as NKI and Pallas write them).
  std::shared_ptr<const isa::Program> deviceProgram;
  /// The kernel as traced (loops kept), kept with the provenance (the golden model runs it).
  std::shared_ptr<const tsr::graph::KernelGraph> graph;
  /// With the provenance, on a family whose device backend keeps the kernel's loops (TPU): the placed tile function
  /// and its plan (compiler::CompileResult::tileProgram), which the Pallas backend writes from.
  std::shared_ptr<const compiler::TileProgram> tileProgram;
  /// Every tensor's bytes after the run, in program.tensors order, when RunRequest::keepTensors asked for them.
  std::shared_ptr<const sim::HbmImage> hbm;
  /// The inputs as the kernel read them (rounded to their dtypes) and the outputs it wrote, as FP32 host arrays
  /// by tensor name; empty in a timing-only run.
  std::map<std::string, HostArray> inputs, outputs;
  size_t instructions = 0;
  int64_t sbufPeakBytes = -1;  ///< NeuronCore: peak SBUF use per partition (from allocation; -1 unknown)
  int64_t psumPeakBytes = -1;
  int64_t vmemPeakBytes = -1;  ///< TPU: peak VMEM use (from allocation; -1 unknown)
  /// What the compiler told the kernel's author without failing ("file:line: what"), e.g. VMEM padding.
  std::vector<std::string> notes;
  std::vector<TensorCheck> checks;  ///< empty in a timing-only run
  /// What the outputs were checked against: "golden", "reference", "golden+reference", or "none".
  std::string reference = "none";
  /// How the generated inputs were drawn (InputDistribution::describe) and from which seed; empty for a timing-only
  /// run, which draws none.
  std::string inputDist;
  uint64_t seed = 0;
  /// Why the golden model did not run although it was asked for (an unsupported dtype); empty when it ran.
  std::string goldenUnavailable;
  bool timingOnly = false;
  bool ok = false;            ///< every output within tolerance (a timing-only run checks nothing: true)
  /// Host wall time of the phases around the simulation (sim.hostSeconds is its own), in seconds: tracing and
  /// compiling; the golden model and the kernel's reference, which run on their own thread during the simulation
  /// (0 when they did not run).
  double compileSeconds = 0, goldenSeconds = 0, referenceSeconds = 0;

  double timeUs() const { return sim.timeNs / 1000.0; }
  /// Simulated time in cycles of the tensor engine (NeuronCore) or the MXUs (TPU).
  double cycles() const { return sim.timeNs * target.tensor.clockGhz; }
  double achievedTflops() const { return sim.timeNs > 0 ? double(sim.flops) / sim.timeNs / 1000.0 : 0; }
  /// Share of the run each stream spent executing, in percent; DMA queues are summarised as "dma": the share
  /// of the run the shared DMA bandwidth was moving bytes.
  std::map<std::string, double> busyPercent() const;
  /// The two lower bounds a reader can check by hand: the tensor engine's (MXUs') busy time, and HBM bytes over
  /// the DMA bandwidth.
  double tensorBoundUs() const;
  double dmaBoundUs() const;
  /// Achieved FLOP/s as a percentage of the target's BF16 peak.
  /// The matrix unit's peak for this run's FLOPs, TFLOP/s: each matmul's FLOPs at the published peak of its
  /// operands' dtype (FP8, FP32, else BF16; isa::peakDtypeOf), the rest at BF16's; exactly the BF16 peak when all
  /// are at it.
  double peakTflops() const;
  double peakPercent() const;

  /// What limits the run: the resource busiest over the run when it is busy at least half of it - "compute"
  /// (`unit`: the busiest compute engine or unit) or "memory" (the DMA bound: HBM bytes at the DMA bandwidth) -
  /// else "overhead" (fixed costs and latencies: neither is kept busy).
  struct Bound {
    std::string kind;     ///< "compute", "memory" or "overhead"
    std::string unit;     ///< the busiest compute engine ("tensor", "mxu", "vector"...) or "dma"
    double busyPercent = 0; ///< of that unit over the run
  };
  Bound bound() const;
  /// The share of the run a resource must be busy for it to be what bounds the run (an assumption: the roofline's
  /// "bound" regimes, where one resource runs most of the time).
  static constexpr double kBoundBusyPercent = 50;
};

/// The kernel called `name`, or an InputError listing the known ones.
const tsr::KernelInfo &findKernel(const std::string &name);
/// The kernel `request` runs: its kernelInfo, else the registered kernel called request.kernel (findKernel).
const tsr::KernelInfo &requestedKernel(const RunRequest &request);
/// The whole of a text file; an InputError naming it when it cannot be read.
std::string readTextFile(const std::filesystem::path &file);

/// Loads a target by name or path; problems are InputErrors.
isa::Target loadTarget(const std::string &nameOrPath);
/// Resolves shape and kernel-parameter overrides (into `params`) and traces the kernel. Bad shapes and bad kernel
/// parameters are InputErrors; DSL misuse is a tessera::Error.
tsr::graph::KernelGraph traceKernel(const tsr::KernelInfo &kernel, const std::map<std::string, int64_t> &shape,
                                    tsr::Params &params, const std::map<std::string, int64_t> &kernelParams = {},
                                    const std::map<std::string, double> &scalarParams = {});

/// Host memory a run of `program` needs beyond the compiler's: the HBM image and its copies (input image, golden
/// image, host tensors) unless timing-only, SBUF and PSUM storage (doubled for the checks' shadow state), the
/// program and the timeline. An estimate, saturating instead of overflowing.
uint64_t estimateHostBytes(const isa::Program &program, const isa::Target &target, const RunRequest &request);

/// Traces, compiles, simulates and checks one kernel.
RunReport runKernel(const RunRequest &request);

/// A kernel traced and compiled, not simulated: what `tessera compile` prints a stage of.
struct CompiledKernel {
  const tsr::KernelInfo *kernel = nullptr;
  isa::Target target;
  tsr::Params params;
  tsr::graph::KernelGraph graph;
  compiler::CompileResult compiled;
};
/// Traces and compiles `request`'s kernel with request.compile (recordProvenance for a hardware backend).
CompiledKernel compileKernel(const RunRequest &request);

/// sim::simulate, with the simulator's own limit, the horizon of its clock (sim::SimulatedTimeOverflow), reported as
/// a LimitError like the run's other limits (exit 3).
sim::SimResult simulateWithinLimits(const isa::Program &program, const isa::Target &target, sim::HbmImage &hbm,
                                    const sim::SimOptions &options);
/// The same for an SPMD launch's cores (simulateLaunch): `perCore`, one entry per core when there are several (with
/// each core's block of programs), receives each core's time, instructions and HBM bytes.
sim::SimResult simulateWithinLimits(std::span<const isa::Program> cores, const isa::Target &target,
                                    sim::HbmImage &hbm, const sim::SimOptions &options, std::vector<CoreRun> &perCore);

/// Simulates a kernel saved as MLIR (`tessera compile --emit nc` output, or a tile-level module) with random
/// inputs from `request.seed`: time and engine use, no reference to check against (`request.kernel`, `target`,
/// `shape` and `golden` do not apply: the file says what runs where). Problems with the file are InputErrors.
RunReport simulateFile(const std::string &path, const RunRequest &request = {});

} // namespace tessera::driver
