// The path of one kernel through Tessera, top to bottom:
//   1. find the kernel (registered by its DSL source) and the target (a TOML file of hardware figures);
//   2. trace the kernel: run its C++ body once, symbolically, to get a kernel graph;
//   3. compile: graph -> tile dialect -> (verify, allocate) -> nc dialect -> (synchronise) -> isa::Program;
//   4. make inputs and simulate the program on the SystemC model of the target: outputs and time;
//   5. run the golden model (the kernel JIT-compiled for this CPU) and the kernel's own reference, and compare;
//   6. report.

#include "tessera/Driver.h"

#include "tessera/compiler/Golden.h"

#include <fmt/format.h>

#include <optional>

namespace tessera::driver {

const tsr::KernelInfo &findKernel(const std::string &name) {
  if (const tsr::KernelInfo *k = tsr::Registry::instance().find(name)) return *k;
  std::string known;
  for (const tsr::KernelInfo *k : tsr::Registry::instance().all()) known += (known.empty() ? "" : ", ") + k->name;
  throw InputError(fmt::format("unknown kernel '{}' (known: {})", name, known), {}, "`tessera list` shows them");
}

isa::Target loadTarget(const std::string &nameOrPath) {
  try {
    return isa::Target::find(nameOrPath);
  } catch (const Error &e) {
    throw InputError(e);
  }
}

tsr::graph::KernelGraph traceKernel(const tsr::KernelInfo &kernel, const std::map<std::string, int64_t> &shape,
                                    tsr::Params &params) {
  try {
    params = kernel.resolve(shape);
    kernel.signature(params); // shape requirements: a failure here is bad input, not a kernel bug
  } catch (const Error &e) {
    throw InputError(e);
  }
  return tsr::trace(kernel, params);
}

RunReport runKernel(const RunRequest &request) {
  // 1. The kernel and the machine.
  const tsr::KernelInfo &kernel = findKernel(request.kernel);
  RunReport report;
  report.kernel = kernel.name;
  report.target = loadTarget(request.target);

  // 2. Trace: the DSL body runs once and records a kernel graph (loops kept, not unrolled).
  tsr::graph::KernelGraph graph = traceKernel(kernel, request.shape, report.params);

  // 3. Compile to per-engine instruction streams with resolved addresses and semaphores.
  compiler::CompileResult compiled = compiler::compile(graph, report.target, request.compile);
  report.program = std::make_shared<const isa::Program>(std::move(compiled.program));
  const isa::Program &program = *report.program;
  report.instructions = program.instructionCount();
  report.sbufPeakBytes = compiled.sbufPeakBytes;
  report.psumPeakBytes = compiled.psumPeakBytes;

  // 4. Simulate with random inputs: every instruction computes its values and advances its engine's time.
  report.timingOnly = request.timingOnly;
  if (request.timingOnly) {
    sim::HbmImage empty; // timing alone needs no data: the simulator skips every value computation
    report.sim = sim::simulate(program, report.target, empty, request.simOptions());
    report.ok = true;
    return report;
  }
  sim::HbmImage hbm = makeInputs(program, request.seed);
  std::optional<sim::HbmImage> golden; // the golden model starts from the same bytes (outputs NaN)
  if (request.golden) golden = hbm;
  std::vector<tsr::HostTensor> inputs, expected;
  for (size_t i = 0; i < program.tensors.size(); ++i) {
    if (program.tensors[i].isOutput) expected.emplace_back(program.tensors[i].elements());
    else inputs.push_back(decodeTensor(program, hbm, i));
  }
  report.sim = sim::simulate(program, report.target, hbm, request.simOptions());

  // 5. The references, from the same (rounded) inputs: the golden model (the kernel's tile module lowered to
  //    LLVM and JIT-compiled for this CPU, so every kernel has one) and the kernel's hand-written reference, if
  //    it has one. Every output must match both.
  if (golden) {
    try {
      compiler::runGolden(graph, *golden);
    } catch (const compiler::GoldenUnsupported &e) {
      golden.reset();
      report.goldenUnavailable = e.message();
    }
  }
  const bool hasReference = static_cast<bool>(kernel.reference);
  if (hasReference) kernel.reference(report.params, inputs, expected);
  report.reference = golden && hasReference ? "golden+reference"
                     : golden                ? "golden"
                     : hasReference          ? "reference"
                                             : "none";
  report.ok = true;
  for (size_t i = 0, out = 0; i < program.tensors.size(); ++i) {
    const isa::TensorInfo &t = program.tensors[i];
    if (!t.isOutput) continue;
    const tsr::HostTensor &ref = expected[out++];
    if (!golden && !hasReference) continue;
    std::optional<tsr::HostTensor> goldenOut;
    if (golden) goldenOut = decodeTensor(program, *golden, i);
    report.checks.push_back(compareWithBoth(t.name, t.dtype, decodeTensor(program, hbm, i),
                                            goldenOut ? &*goldenOut : nullptr, hasReference ? &ref : nullptr));
    report.ok = report.ok && report.checks.back().ok;
  }

  // 6. The report is printed by the caller (Report.h): text on a terminal, JSON with --json.
  return report;
}

sim::SimOptions RunRequest::simOptions() const {
  return {.computeValues = !timingOnly, .checks = checks, .recordTimeline = recordTimeline, .progress = progress};
}

RunReport simulateFile(const std::string &path, const RunRequest &request) {
  compiler::CompileResult compiled;
  try {
    compiled = compiler::compileFile(path, request.compile);
  } catch (const Error &e) {
    throw InputError(e);
  }
  RunReport report;
  report.program = std::make_shared<const isa::Program>(std::move(compiled.program));
  const isa::Program &program = *report.program;
  report.kernel = program.kernel;
  report.target = loadTarget(program.target);
  report.instructions = program.instructionCount();
  report.sbufPeakBytes = compiled.sbufPeakBytes;
  report.psumPeakBytes = compiled.psumPeakBytes;
  report.timingOnly = request.timingOnly; // either way there is no reference to check outputs against
  sim::HbmImage hbm = request.timingOnly ? sim::HbmImage{} : makeInputs(program, request.seed);
  report.sim = sim::simulate(program, report.target, hbm, request.simOptions());
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
  for (const sim::StreamStats &s : sim.streams)
    if (s.engine == isa::Engine::Tensor) return s.busyNs / 1000.0;
  return 0;
}

double RunReport::dmaBoundUs() const { return double(sim.hbmBytes) / target.dma.bytesPerNs() / 1000.0; }

} // namespace tessera::driver
