// The path of one kernel through Tessera, top to bottom:
//   1. find the kernel (registered by its DSL source) and the target (a TOML file of hardware figures);
//   2. trace the kernel: run its C++ body once, symbolically, to get a kernel graph;
//   3. compile: graph -> tile dialect -> (verify, allocate) -> nc dialect (NeuronCore) or tpu dialect (TPU)
//      -> (synchronise) -> isa::Program;
//   4. make inputs and simulate the program on the SystemC model of the target: outputs and time;
//   5. run the golden model (the kernel JIT-compiled for this CPU) and the kernel's own reference, and compare;
//   6. report.

#include "tessera/Driver.h"
#include "tessera/InputDrawing.h"
#include "tessera/ReferenceRun.h"
#include "tessera/isa/Family.h"

#include "tessera/compiler/Golden.h"
#include "tessera/compiler/Launch.h"
#include "tessera/sim/SimulatedTimeOverflow.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <limits>
#include <optional>
#include <unistd.h>

namespace tessera::driver {

namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
uint64_t satMul(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_mul_overflow(a, b, &r) ? kMax : r;
}
uint64_t satAdd(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_add_overflow(a, b, &r) ? kMax : r;
}
/// Elements of a shape, saturating (a shape from a file or a large --shape may overflow int64).
uint64_t elementsOf(const std::vector<int64_t> &shape) {
  uint64_t n = 1;
  for (int64_t d : shape) n = satMul(n, d < 0 ? 0 : static_cast<uint64_t>(d));
  return n;
}
std::string gib(uint64_t bytes) { return fmt::format("{:.3g} GiB", double(bytes) / double(1ull << 30)); }

/// Compiles with `run`, turning the unroller's instruction-limit error into a LimitError and every other error
/// into an InputError: a kernel the compiler refuses (an isa op on the wrong family, tiles that do not fit) is
/// bad input, fixed in the kernel's source, like a failed require().
template <typename F> compiler::CompileResult compileWithin(const RunRequest &request, F run) {
  try {
    return run(request.compileOptions());
  } catch (const compiler::InstructionLimitError &e) {
    throw LimitError(e.message(), e.where(),
                     fmt::format("the limits: --max-instructions {} and --max-memory-gib {:.3g} (at {} bytes per "
                                 "instruction while compiling); raise them or use smaller shapes",
                                 request.maxInstructions, double(request.maxMemoryBytes) / double(1ull << 30),
                                 RunRequest::kCompileBytesPerInstruction));
  } catch (const LimitError &) {
    throw;
  } catch (const InputError &) {
    throw;
  } catch (const Error &e) {
    throw CompileRefused(e);
  }
}

/// What allocation found (peak on-chip memory) and what the compiler noted, for the report.
void keepAllocation(compiler::CompileResult &compiled, RunReport &report) {
  report.sbufPeakBytes = compiled.sbufPeakBytes;
  report.psumPeakBytes = compiled.psumPeakBytes;
  report.vmemPeakBytes = compiled.vmemPeakBytes;
  report.notes = std::move(compiled.notes);
}

/// Stops the run when --timeout's deadline has passed during `stage`, a phase before the simulation (compiling,
/// making the inputs): between phases, so that the overshoot is one phase at most.
void checkDeadline(const RunRequest &request, uint64_t instructions, const std::string &stage) {
  if (request.deadline && std::chrono::steady_clock::now() >= *request.deadline)
    throw TimeoutError(request.timeoutSeconds, 0, 0, instructions, stage);
}

/// Stops a program that is over the instruction or memory limit before anything large is allocated.
void checkLimits(const isa::Program &program, const isa::Target &target, const RunRequest &request) {
  const uint64_t instructions = program.instructionCount();
  if (request.maxInstructions != 0 && instructions > request.maxInstructions)
    throw LimitError(fmt::format("the program has {} instructions, more than the limit of {}", instructions,
                                 request.maxInstructions),
                     {}, "raise --max-instructions, or use smaller shapes");
  const uint64_t bytes = estimateHostBytes(program, target, request);
  if (request.maxMemoryBytes != 0 && bytes > request.maxMemoryBytes)
    throw LimitError(fmt::format("the run would need about {} of host memory, more than the limit of {}", gib(bytes),
                                 gib(request.maxMemoryBytes)),
                     {}, "raise --max-memory-gib, use smaller shapes, or --timing-only (no tensor data)");
}

} // namespace

TimeoutError::TimeoutError(double timeoutSeconds, double simulatedNs, uint64_t retired, uint64_t total,
                           const std::string &stage)
    : LimitError(fmt::format("stopped by --timeout ({} s){}: {} of {} instructions retired, {:.3f} us simulated so far",
                             timeoutSeconds, stage.empty() ? "" : " " + stage, retired, total,
                             simulatedNs / 1000.0)),
      timeoutSeconds(timeoutSeconds), simulatedNs(simulatedNs), retired(retired), total(total) {}

uint64_t defaultMaxMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || pageSize <= 0) return 8ull << 30;
  return satMul(static_cast<uint64_t>(pages), static_cast<uint64_t>(pageSize)) / 2;
}

uint64_t estimateHostBytes(const isa::Program &program, const isa::Target &target, const RunRequest &request) {
  uint64_t tensorBytes = 0, elements = 0;
  for (const isa::TensorInfo &t : program.tensors) {
    const uint64_t n = elementsOf(t.shape);
    elements = satAdd(elements, n);
    tensorBytes = satAdd(tensorBytes, satMul(n, isa::byteSize(t.dtype)));
  }
  uint64_t bytes = satMul(program.instructionCount(), sizeof(isa::Instruction));
  bytes = satAdd(bytes, sim::semaphoreHostBytes(program, request.checks));
  if (request.recordTimeline) bytes = satAdd(bytes, satMul(program.instructionCount(), sizeof(sim::InstructionEvent)));
  if (request.timingOnly) return bytes;
  // The HBM image, the golden model's copy and the input image it starts from; the host tensors (FP32) of the
  // inputs, the expected outputs and the decoded outputs.
  bytes = satAdd(bytes, satMul(tensorBytes, request.golden ? 3 : 1));
  bytes = satAdd(bytes, satMul(elements, 4 * 2));
  uint64_t onChip = 0; // the memories the simulator builds for the target's family
  for (const isa::FamilyMemory &m : isa::familyOf(target).memories(target))
    onChip = satAdd(onChip, satMul(m.partitions, m.bytesPerPartition));
  return satAdd(bytes, satMul(onChip, request.checks ? 2 : 1));
}

compiler::CompileOptions RunRequest::compileOptions() const {
  compiler::CompileOptions options = compile;
  options.maxInstructions = maxInstructions;
  if (maxMemoryBytes != 0) {
    const uint64_t byMemory = std::max<uint64_t>(1, maxMemoryBytes / kCompileBytesPerInstruction);
    options.maxInstructions = options.maxInstructions == 0 ? byMemory : std::min(options.maxInstructions, byMemory);
  }
  return options;
}

const tsr::KernelInfo &findKernel(const std::string &name) {
  if (const tsr::KernelInfo *k = tsr::Registry::instance().find(name)) return *k;
  std::string known;
  for (const tsr::KernelInfo *k : tsr::Registry::instance().all()) known += (known.empty() ? "" : ", ") + k->name;
  throw InputError(fmt::format("unknown kernel '{}' (known: {})", name, known), {},
                   "`tessera list` shows them; kernels of your own come from a plugin: --plugin libNAME.so "
                   "(docs/user-kernels.md)");
}

const tsr::KernelInfo &requestedKernel(const RunRequest &request) {
  return request.kernelInfo ? *request.kernelInfo : findKernel(request.kernel);
}

std::string readTextFile(const std::filesystem::path &file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(fmt::format("cannot read '{}'", file.string()));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

isa::Target loadTarget(const std::string &nameOrPath) {
  try {
    return isa::Target::find(nameOrPath);
  } catch (const Error &e) {
    throw InputError(e);
  }
}

tsr::graph::KernelGraph traceKernel(const tsr::KernelInfo &kernel, const std::map<std::string, int64_t> &shape,
                                    tsr::Params &params, const std::map<std::string, int64_t> &kernelParams,
                                    const std::map<std::string, double> &scalarParams) {
  try {
    params = kernel.resolve(shape, kernelParams, scalarParams);
  } catch (const Error &e) {
    throw InputError(e);
  }
  try {
    // shape and kernel-parameter requirements: a failure here is bad input, not a kernel bug
    for (const tsr::TensorSpec &t : kernel.signature(params)) {
      int64_t elements = 1;
      for (int64_t d : t.shape)
        if (__builtin_mul_overflow(elements, d, &elements) || elements > (int64_t{1} << 60))
          throw InputError(fmt::format("tensor '{}' of kernel '{}' would have more than 2^60 elements", t.name,
                                       kernel.name),
                           {}, "use smaller --shape values");
    }
  } catch (const InputError &) {
    throw;
  } catch (const Error &e) {
    if ((kernel.kernelParams.empty() && kernel.scalarParams.empty()) || !e.hint().empty()) throw InputError(e);
    throw InputError(e.message(), e.where(),
                     fmt::format("kernel '{}' was given the shape {} and the kernel parameters {} (--param; "
                                 "defaults: {})",
                                 kernel.name, params.str(), params.kernelStr(), kernel.describeKernelParams()));
  }
  try {
    return tsr::trace(kernel, params); // DSL misuse (a tile of 256 partitions) is bad input, at the kernel's line
  } catch (const Error &e) {
    throw InputError(e);
  }
}

namespace {

/// Waits for the references until the request's deadline, telling request.waiting how long it has been (every
/// 100 ms, so a bar can show that a long golden model is still computing). False when the deadline came first.
bool waitForReferences(ReferenceRun &references, const RunRequest &request) {
  using Clock = std::chrono::steady_clock;
  if (!request.waiting) return references.waitUntil(request.deadline);
  const Clock::time_point start = Clock::now();
  while (true) {
    Clock::time_point until = Clock::now() + std::chrono::milliseconds(100);
    if (request.deadline) until = std::min(until, *request.deadline);
    if (references.waitUntil(until)) return true;
    if (request.deadline && Clock::now() >= *request.deadline) return false;
    const std::string pending = references.pending();
    request.waiting(pending.empty() ? "golden model and reference" : pending,
                    std::chrono::duration<double>(Clock::now() - start).count());
  }
}

} // namespace

namespace {

/// runKernel's steps, the golden model and the reference on their threads in `references` (made here).
RunReport runKernelWith(const RunRequest &request, std::optional<ReferenceRun> &references) {
  // 1. The kernel and the machine.
  const tsr::KernelInfo &kernel = requestedKernel(request);
  RunReport report;
  report.kernel = kernel.name;
  report.target = request.machine ? *request.machine : loadTarget(request.target);

  const auto compileStart = std::chrono::steady_clock::now();
  // 2. Trace: the DSL body runs once and records a kernel graph (loops kept, not unrolled).
  const auto traced = std::make_shared<const tsr::graph::KernelGraph>(
      traceKernel(kernel, request.shape, report.params, request.kernelParams, request.scalarParams));
  const tsr::graph::KernelGraph &graph = *traced;

  // Tensors too large for host memory stop here, before the compiler unrolls anything.
  if (!request.timingOnly && request.maxMemoryBytes != 0) {
    uint64_t elements = 0;
    for (const tsr::TensorSpec &t : kernel.signature(report.params)) {
      std::vector<int64_t> shape(t.shape.begin(), t.shape.end());
      elements = satAdd(elements, elementsOf(shape));
    }
    const uint64_t bytes = satMul(elements, 4 * 3); // at least the image, its copy and the host tensors
    if (bytes > request.maxMemoryBytes)
      throw LimitError(fmt::format("the tensors of kernel '{}' need about {} of host memory, more than the limit "
                                   "of {}",
                                   kernel.name, gib(bytes), gib(request.maxMemoryBytes)),
                       {}, "raise --max-memory-gib, use smaller shapes, or --timing-only (no tensor data)");
  }

  // The random inputs need only the traced tensors: they are drawn while the kernel compiles (their bytes are
  // within the host-memory check above, made before checkLimits' check of the compiled program).
  std::optional<InputDrawing> drawing;
  if (!request.timingOnly) drawing.emplace(graph, request.seed, request.inputDist, request.deadline);
  // The golden model compiles from the traced kernel too, on its own thread: it runs once the inputs are drawn.
  if (!request.timingOnly) references.emplace(traced, kernel, report.params, request.golden);

  // 3. Compile to per-engine instruction streams with resolved addresses and semaphores. An SPMD launch over
  //    several cores compiles each core's block of programs on its own (compiler/Launch.h).
  const unsigned cores = compiler::launchCores(graph, report.target);
  report.grid = graph.grid;
  std::vector<isa::Program> launch; // one program per core
  for (unsigned core = 1; core < cores; ++core) {
    compiler::CompileResult share = compileWithin(request, [&](const compiler::CompileOptions &options) {
      compiler::CompileOptions shareOptions = options;
      shareOptions.recordProvenance = false; // device code is written from the whole launch, compiled below
      return compiler::compile(compiler::coreShare(graph, core, cores), report.target, shareOptions);
    });
    launch.push_back(std::move(share.program));
  }
  compiler::CompileResult compiled = compileWithin(request, [&](const compiler::CompileOptions &options) {
    return compiler::compile(compiler::coreShare(graph, 0, cores), report.target, options);
  });
  if (cores > 1 && request.compile.recordProvenance) { // the whole launch's loops, for the device code
    compiler::CompileResult whole = compileWithin(request, [&](const compiler::CompileOptions &options) {
      return compiler::compile(graph, report.target, options);
    });
    compiled.provenance = std::move(whole.provenance);
    compiled.tileProgram = std::move(whole.tileProgram);
    report.deviceProgram = std::make_shared<const isa::Program>(std::move(whole.program));
  }
  launch.insert(launch.begin(), std::move(compiled.program));
  for (unsigned core = 0; core < cores && cores > 1; ++core) {
    const compiler::CoreBlock block = compiler::coreBlock(graph.grid.front(), core, cores);
    report.cores.push_back({.core = core, .firstProgram = block.first, .programs = block.programs()});
  }
  report.program = std::make_shared<const isa::Program>(cores > 1 ? isa::mergeCores(launch) : launch.front());
  if (!compiled.provenance.empty()) {
    if (!report.deviceProgram) report.deviceProgram = report.program;
    report.provenance = std::make_shared<const compiler::Provenance>(std::move(compiled.provenance));
    report.graph = traced;
    report.tileProgram = std::make_shared<const compiler::TileProgram>(std::move(compiled.tileProgram));
  }
  const isa::Program &program = *report.program;
  report.instructions = program.instructionCount();
  keepAllocation(compiled, report);
  report.compileSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - compileStart).count();
  checkLimits(program, report.target, request);
  checkDeadline(request, report.instructions, "while compiling");

  // 4. Simulate with random inputs: every instruction computes its values and advances its engine's time.
  report.timingOnly = request.timingOnly;
  if (request.timingOnly) {
    sim::HbmImage empty; // timing alone needs no data: the simulator skips every value computation
    report.sim = simulateWithinLimits(launch, report.target, empty, request.simOptions(), report.cores);
    report.ok = true;
    return report;
  }
  report.inputDist = request.inputDist.describe();
  report.seed = request.seed;
  const auto checkpoint = [&] { checkDeadline(request, report.instructions, "while making the inputs"); };
  std::optional<sim::HbmImage> drawn = drawing->take(program, checkpoint);
  if (!drawn) // the deadline stopped the drawing
    throw TimeoutError(request.timeoutSeconds, 0, 0, report.instructions, "while making the inputs");
  sim::HbmImage hbm = std::move(*drawn);
  for (const auto &[name, path] : request.inputFiles) loadInputFile(program, hbm, name, path);
  for (const auto &[name, array] : request.inputs) loadInputArray(program, hbm, name, array);
  std::optional<sim::HbmImage> goldenInputs; // the golden model starts from the same bytes (outputs NaN)
  if (request.golden) goldenInputs = hbm;
  std::vector<tsr::HostTensor> referenceInputs, referenceOutputs;
  for (size_t i = 0; i < program.tensors.size(); ++i) {
    if (program.tensors[i].isOutput) referenceOutputs.emplace_back(program.tensors[i].elements());
    else if (program.tensors[i].isInput()) referenceInputs.push_back(decodeTensor(program, hbm, i));
  }
  // 5. The references, from the same (rounded) inputs, on their own thread while the simulator runs: the golden
  //    model (the kernel's tile module lowered to LLVM and JIT-compiled for this CPU, so every kernel has one;
  //    compiled since step 2) and the kernel's hand-written reference, if it has one. Every output must match both.
  references->start(std::move(goldenInputs), std::move(referenceInputs), std::move(referenceOutputs));
  report.sim = simulateWithinLimits(launch, report.target, hbm, request.simOptions(), report.cores);
  if (!waitForReferences(*references, request))
    throw TimeoutError(request.timeoutSeconds, report.sim.timeNs, report.instructions, report.instructions,
                       "while the golden model and the reference computed the outputs to check");
  ReferenceResults checked = references->results();
  std::optional<sim::HbmImage> &golden = checked.golden;
  report.goldenUnavailable = std::move(checked.goldenUnavailable);
  report.goldenSeconds = checked.goldenSeconds;
  report.referenceSeconds = checked.referenceSeconds;
  const bool hasReference = checked.hasReference;
  std::vector<tsr::HostTensor> &inputs = checked.inputs, &expected = checked.expected;
  for (size_t i = 0, in = 0; i < program.tensors.size(); ++i)
    if (program.tensors[i].isInput())
      report.inputs[program.tensors[i].name] = {program.tensors[i].shape, std::move(inputs[in++])};
  report.reference = golden && hasReference ? "golden+reference"
                     : golden                ? "golden"
                     : hasReference          ? "reference"
                                             : "none";
  report.ok = true;
  for (size_t i = 0, out = 0; i < program.tensors.size(); ++i) {
    const isa::TensorInfo &t = program.tensors[i];
    if (!t.isOutput) continue;
    const tsr::HostTensor &ref = expected[out++];
    HostArray &written = report.outputs[t.name] = {t.shape, decodeTensor(program, hbm, i)};
    if (!golden && !hasReference) continue;
    std::optional<tsr::HostTensor> goldenOut;
    if (golden) goldenOut = decodeTensor(program, *golden, i);
    TensorCheck &check = report.checks.emplace_back(compareWithBoth(
        t.name, t.dtype, written.values, goldenOut ? &*goldenOut : nullptr, hasReference ? &ref : nullptr,
        kernel.referenceTolerance));
    // An output that matched has no NaN at all (a NaN matches nothing), so only a failed one is searched for the
    // fill's bytes.
    if (!check.ok) check.unwritten = unwrittenElements(t, hbm[i]);
    report.ok = report.ok && check.ok;
  }

  if (!request.outputDir.empty()) writeOutputFiles(program, hbm, request.outputDir);
  if (request.keepTensors) report.hbm = std::make_shared<const sim::HbmImage>(std::move(hbm));

  // 6. The report is printed by the caller (Report.h): text on a terminal, JSON with --json.
  return report;
}

} // namespace

RunReport runKernel(const RunRequest &request) {
  // The golden model's thread may outlive the attempt: a run stopped by its deadline gives it up rather than wait
  // (the CLI then leaves with std::_Exit); any other error waits for it, so that no thread is inside LLVM while the
  // process exits normally and runs its static destructors.
  std::optional<ReferenceRun> references;
  try {
    return runKernelWith(request, references);
  } catch (const TimeoutError &) {
    if (references) references->abandon();
    throw;
  }
}

sim::SimResult simulateWithinLimits(const isa::Program &program, const isa::Target &target, sim::HbmImage &hbm,
                                    const sim::SimOptions &options) {
  std::vector<CoreRun> none;
  return simulateWithinLimits(std::span(&program, 1), target, hbm, options, none);
}

sim::SimResult simulateWithinLimits(std::span<const isa::Program> cores, const isa::Target &target,
                                    sim::HbmImage &hbm, const sim::SimOptions &options, std::vector<CoreRun> &perCore) {
  try {
    return simulateLaunch(cores, target, hbm, options, &perCore);
  } catch (const sim::SimulatedTimeOverflow &e) {
    throw LimitError(e.message(), e.where(), e.hint());
  }
}

CompiledKernel compileKernel(const RunRequest &request) {
  CompiledKernel k;
  k.kernel = &requestedKernel(request);
  k.target = request.machine ? *request.machine : loadTarget(request.target);
  k.graph = traceKernel(*k.kernel, request.shape, k.params, request.kernelParams, request.scalarParams);
  k.compiled = compileWithin(request, [&](const compiler::CompileOptions &options) {
    return compiler::compile(k.graph, k.target, options);
  });
  return k;
}

sim::SimOptions RunRequest::simOptions() const {
  sim::SimOptions options{
      .computeValues = !timingOnly, .checks = checks, .recordTimeline = recordTimeline, .progress = progress};
  if (deadline)
    // Thrown on the simulation thread, the simulator stops the run and rethrows it from sim::simulate.
    options.progress = [progress = progress, deadline = *deadline, timeout = timeoutSeconds](
                           double simulatedNs, uint64_t retired, uint64_t total) {
      if (progress) progress(simulatedNs, retired, total);
      if (std::chrono::steady_clock::now() >= deadline) throw TimeoutError(timeout, simulatedNs, retired, total);
    };
  return options;
}

RunReport simulateFile(const std::string &path, const RunRequest &request) {
  compiler::CompileResult compiled = compileWithin(request, [&](const compiler::CompileOptions &options) {
    return compiler::compileFile(path, options);
  });
  RunReport report;
  report.program = std::make_shared<const isa::Program>(std::move(compiled.program));
  const isa::Program &program = *report.program;
  report.kernel = program.kernel;
  report.target = loadTarget(program.target);
  report.instructions = program.instructionCount();
  keepAllocation(compiled, report);
  checkLimits(program, report.target, request);
  report.timingOnly = request.timingOnly; // either way there is no reference to check outputs against
  sim::HbmImage hbm = request.timingOnly ? sim::HbmImage{} : makeInputs(program, request.seed, request.inputDist);
  report.sim = simulateWithinLimits(program, report.target, hbm, request.simOptions());
  report.ok = true;
  return report;
}

std::map<std::string, double> RunReport::busyPercent() const {
  std::map<std::string, double> busy;
  if (sim.timeNs <= 0) return busy;
  for (const sim::StreamStats &s : sim.streams)
    if (s.engine != isa::Engine::Dma) busy[s.name] = 100.0 * s.busyNs / sim.timeNs;
  busy["dma"] = 100.0 * dmaBoundUs() * 1000.0 / sim.timeNs;
  return busy;
}

double RunReport::tensorBoundUs() const {
  double busiest = 0; // an SPMD launch's cores each have one
  for (const sim::StreamStats &s : sim.streams)
    if (s.engine == isa::Engine::Tensor || s.engine == isa::Engine::Mxu) busiest = std::max(busiest, s.busyNs);
  return busiest / 1000.0;
}

double RunReport::peakTflops() const {
  const uint64_t bf16 = sim.flopsByPeak[static_cast<unsigned>(isa::PeakDtype::Bf16)];
  if (sim.flops == 0 || bf16 == sim.flops) return target.tensor.peakBf16Tflops;
  // The time all the FLOPs take, each at its own peak; the peak is the rate that gives that time.
  double peakNs = 0;
  for (unsigned d = 0; d < isa::kPeakDtypeCount; ++d)
    peakNs += double(sim.flopsByPeak[d]) / (isa::peakTflops(isa::PeakDtype(d), target) * 1e3); // 1e3 FLOP/ns
  return peakNs > 0 ? double(sim.flops) / peakNs / 1e3 : target.tensor.peakBf16Tflops;
}

double RunReport::peakPercent() const {
  const double peak = peakTflops();
  return peak > 0 ? 100.0 * achievedTflops() / peak : 0;
}

RunReport::Bound RunReport::bound() const {
  Bound busiest{"overhead", "", 0};
  for (const auto &[unit, percent] : busyPercent())
    if (percent > busiest.busyPercent) busiest = {unit == "dma" ? "memory" : "compute", unit, percent};
  // A unit that only does bookkeeping (a TPU's scalar core, the grid loop's): time there is overhead, not compute.
  bool bookkeeping = false;
  for (const sim::StreamStats &s : sim.streams)
    bookkeeping |= s.name == busiest.unit && isa::familyOf(target).isBookkeeping(s.engine);
  if (busiest.busyPercent < kBoundBusyPercent || bookkeeping) busiest.kind = "overhead";
  return busiest;
}

double RunReport::dmaBoundUs() const {
  const double cores = std::max<double>(1, static_cast<double>(this->cores.size())); // each core has its own DMA
  return double(sim.hbmBytes) / (target.dma.bytesPerNs() * cores) / 1000.0;
}

} // namespace tessera::driver
