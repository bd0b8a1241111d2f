// tessera: the command line.
//   tessera list                      kernels, their shape parameters and kernel parameters
//   tessera targets                   the machines that can be simulated
//   tessera run KERNEL [--target T] [--shape K=V,...] [--param P=V,...] [--seed N] [--no-golden] [--json]
//                      [--trace FILE.json] [--input NAME=FILE.npy ...] [--output-dir DIR]
//   tessera compile KERNEL [--target T] [--shape ...] [--param ...] --emit tile|tile-allocated|nc|tpu|nki|pallas
//                          [-o FILE]
//   tessera deploy KERNEL [--target T] [--shape ...] [--param ...] [--seed N] -o DIR
//   tessera compare KERNEL --targets T1,T2,... [--shape ...] [--price T=USD] [--json|--csv]
//   tessera calibrate RECORD.json... [--target T] [--fit TABLE.KEY,...] [--write FILE.toml] [--json]
//   tessera sim FILE.mlir [--seed N] [--timing-only] [--json] [--trace FILE.json]
//   tessera isa [INSTRUCTION] [--target T] [--json] [--markdown]
//   tessera sweep KERNEL [--target T] --param bm=128,256 [--shape ...] [--jobs N] [--timing-only] [--csv F] [--json]
//   tessera systolic --rows R --cols C --dataflow ws|os|is --gemm M,N,K [--model pe|fold] [--animate] [--svg F]
// Any command also takes --plugin LIB.so (repeatable): kernels of your own, built with tessera_add_kernels.
// Exit status: 0 all well; 1 a check failed (numerics, a kernel bug found); 2 bad usage or input; 3 a resource
// limit stopped the run (--max-instructions, --max-memory-gib, --timeout).

#include "tessera/AtomicFile.h"
#include "tessera/Calibrate.h"
#include "tessera/CommandLine.h"
#include "tessera/Compare.h"
#include "tessera/Deploy.h"
#include "tessera/DeviceCode.h"
#include "tessera/Driver.h"
#include "tessera/HtmlReport.h"
#include "tessera/IsaReference.h"
#include "tessera/Plugin.h"
#include "tessera/ProgressBar.h"
#include "tessera/Report.h"
#include "tessera/SweepCommand.h"
#include "tessera/SweepRanks.h"
#include "tessera/SystolicCommand.h"
#include "tessera/Trace.h"

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <cstdio>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <unistd.h>

namespace po = boost::program_options;
using namespace tessera;
using namespace tessera::driver;

namespace {

int cmdList(const std::vector<std::string> &args) {
  bool json = false;
  po::options_description desc("tessera list");
  desc.add_options()("json", po::bool_switch(&json), "print JSON");
  parse(args, desc);
  nlohmann::json out = nlohmann::json::array();
  auto joined = [](const std::vector<std::pair<std::string, int64_t>> &params) {
    std::string s;
    for (auto &[name, value] : params) s += fmt::format("{}{}={}", s.empty() ? "" : ",", name, value);
    return s;
  };
  // The kernel and scalar parameters, as --param takes them.
  auto kernelJoined = [&](const tsr::KernelInfo &k) {
    std::string s = joined(k.kernelParams);
    for (auto &[name, value] : k.scalarParams) s += fmt::format("{}{}={}", s.empty() ? "" : ",", name, value);
    return s;
  };
  size_t width = 10, paramsWidth = 0; // the longest name and kernel parameters set the columns
  for (const tsr::KernelInfo *k : tsr::Registry::instance().all()) {
    width = std::max(width, k->name.size());
    paramsWidth = std::max(paramsWidth, kernelJoined(*k).size());
  }
  for (const tsr::KernelInfo *k : tsr::Registry::instance().all()) {
    if (json) {
      // "params": the shape parameters (--shape); "kernel_params": the kernel and scalar parameters (--param;
      // integers and real numbers).
      nlohmann::json params = nlohmann::json::object(), kernelParams = nlohmann::json::object();
      for (auto &[name, value] : k->params) params[name] = value;
      for (auto &[name, value] : k->kernelParams) kernelParams[name] = value;
      for (auto &[name, value] : k->scalarParams) kernelParams[name] = value;
      nlohmann::json j = {
          {"name", k->name}, {"summary", k->summary}, {"params", params}, {"kernel_params", kernelParams}};
      if (!k->plugin.empty()) j["plugin"] = k->plugin; // loaded with --plugin
      out.push_back(std::move(j));
      continue;
    }
    const std::string summary = k->plugin.empty() ? k->summary : fmt::format("{} (plugin {})", k->summary, k->plugin);
    if (paramsWidth == 0) fmt::print("{:<{}} {:<24} {}\n", k->name, width, joined(k->params), summary);
    else
      fmt::print("{:<{}} {:<24} {:<{}} {}\n", k->name, width, joined(k->params), kernelJoined(*k), paramsWidth,
                 summary);
  }
  if (json) fmt::print("{}\n", out.dump(2));
  return kOk;
}

int cmdTargets(const std::vector<std::string> &args) {
  bool json = false;
  po::options_description desc("tessera targets");
  desc.add_options()("json", po::bool_switch(&json), "print JSON");
  parse(args, desc);
  nlohmann::json out = nlohmann::json::array();
  for (const isa::Target &t : isa::Target::all()) {
    if (json) out.push_back(toJson(t));
    else if (t.isTpu()) // one TensorCore: peak per TensorCore, its share of HBM, VMEM, the MXUs
      fmt::print("{:<8} {:<10} {:<4} {:>6.1f} TFLOP/s bf16  {:>6.1f} B/ns HBM  {} MiB VMEM  {} MXUs {}x{} at {} GHz, "
                 "{} TensorCore{}/chip  {}\n",
                 t.name, t.family, t.generation, t.tensor.peakBf16Tflops, t.dma.hbmGBps, t.tpu.vmemBytes >> 20,
                 t.tpu.mxus, t.tensor.rows, t.tensor.cols, t.tensor.clockGhz, t.tpu.tensorCoresPerChip,
                 t.tpu.tensorCoresPerChip == 1 ? "" : "s", t.description);
    else
      fmt::print("{:<8} {:<10} {:<4} {:>6.1f} TFLOP/s bf16  {:>6.1f} B/ns DMA  {} KiB SBUF/partition  {}\n", t.name,
                 t.family, t.generation, t.tensor.peakBf16Tflops, t.dma.bytesPerNs(), t.sbufBytesPerPartition / 1024,
                 t.description);
  }
  if (json) fmt::print("{}\n", out.dump(2));
  return kOk;
}

int cmdIsa(const std::vector<std::string> &args) {
  bool json = false, markdown = false;
  std::string target, only;
  po::options_description desc("tessera isa [INSTRUCTION]");
  desc.add_options()("target", po::value(&target)->value_name("T"),
                     "the target whose family, limits and costs to show (default: both families, no costs)")(
      "json", po::bool_switch(&json), "print JSON")(
      "markdown", po::bool_switch(&markdown), "print the whole reference for the built-in targets (docs/isa/README.md)")(
      "instruction", po::value(&only), "show only this instruction (by name or NKI name)");
  po::positional_options_description pos;
  pos.add("instruction", 1);
  parse(args, desc, pos);
  if (markdown) {
    // Family by family: each family's tables have a column per built-in target of that family.
    std::vector<isa::Target> builtin;
    for (const isa::Target &t : isa::Target::all())
      if (t.file.parent_path() == isa::Target::builtinDirectory()) builtin.push_back(t);
    fmt::print("{}", isaReferenceMarkdown(builtin));
    return kOk;
  }
  std::optional<isa::Target> t;
  if (!target.empty()) t = loadTarget(target);
  const isa::Target *chosen = t ? &*t : nullptr;
  if (json) fmt::print("{}\n", isaReferenceJson(chosen, only).dump(2));
  else fmt::print("{}", isaReferenceText(chosen, only));
  return kOk;
}

/// What a simulating command writes besides its report on stdout: `--trace` and `--report` files.
struct RunOutputs {
  std::string tracePath, reportPath;
  std::optional<AtomicFile> trace, html;

  void add(po::options_description &desc) {
    desc.add_options()("trace", po::value(&tracePath)->value_name("FILE.json"),
                       "write the run's timeline as a Chrome/Perfetto trace (open it in ui.perfetto.dev)")(
        "report", po::value(&reportPath)->value_name("FILE.html"),
        "write an HTML report: summary, engine use, timeline, roofline, memory, stalls");
  }
  /// Opens the files before the run, so that a path that cannot be written fails at once. Returns whether the
  /// run must record its timeline.
  bool open() {
    if (!tracePath.empty()) trace.emplace(tracePath, "trace");
    if (!reportPath.empty()) html.emplace(reportPath, "report");
    return trace || html;
  }
  void write(const RunReport &report) {
    if (trace) trace->commit(traceText(toTrace(report)));
    if (html) html->commit(toHtml(report));
  }
};

/// Runs `simulate` with a progress bar on a terminal (never with --json), then writes the outputs and prints the
/// report.
RunReport simulateAndReport(RunRequest request, RunOutputs &outputs, bool json,
                            const std::function<RunReport(const RunRequest &)> &simulate) {
  request.recordTimeline = outputs.open();
  RunReport report;
  {
    ProgressBar bar(stderr, !json && ProgressBar::isTerminal(stderr));
    request.progress = bar.callback();
    report = simulate(request);
  }
  outputs.write(report);
  if (json) fmt::print("{}\n", toJson(report).dump(2));
  else fmt::print("{}", toText(report));
  return report;
}

int cmdRun(const std::vector<std::string> &args) {
  KernelOptions opts;
  po::options_description desc("tessera run KERNEL");
  opts.add(desc);
  bool timingOnly = false, noGolden = false, noChecks = false;
  std::vector<std::string> inputFiles;
  std::string outputDir;
  LimitOptions limits;
  limits.add(desc);
  desc.add_options()("seed", po::value(&opts.seed)->default_value(opts.seed), "seed of the random inputs")(
      "input,i", po::value(&inputFiles)->composing()->value_name("NAME=FILE.npy"),
      "an input from a .npy file instead of random values (repeatable)")(
      "output-dir", po::value(&outputDir)->value_name("DIR"), "write every output to DIR/NAME.npy")(
      "timing-only", po::bool_switch(&timingOnly),
      "simulate time alone: compute no values, compare no outputs (race checks still run)")(
      "no-golden", po::bool_switch(&noGolden), "check against the kernel's reference alone, not the golden model")(
      "no-checks", po::bool_switch(&noChecks), "skip the race and uninitialised-read checks (faster)");
  RunOutputs outputs;
  outputs.add(desc);
  po::positional_options_description pos;
  pos.add("kernel", 1);
  parse(args, desc, pos);
  RunRequest request = opts.request();
  request.timingOnly = timingOnly;
  request.checks = !noChecks;
  request.golden = !noGolden;
  request.inputFiles = parseInputFiles(inputFiles);
  request.outputDir = outputDir;
  if (timingOnly && (!request.inputFiles.empty() || !outputDir.empty()))
    throw InputError("--input and --output-dir need values: they do not go with --timing-only");
  limits.apply(request);
  RunReport report = simulateAndReport(request, outputs, opts.json, runKernel);
  return report.ok ? kOk : kCheckFailed;
}

/// `tessera compile --emit nki|pallas`: the kernel as the simulator ran it, for the device's toolchain, on stdout
/// or into `output`.
int emitForDevice(RunRequest r, const std::string &backend, const std::string &output, const std::string &style) {
  r.compile.recordProvenance = true;
  const backends::PallasStyle pallas = pallasStyle(style);
  std::optional<AtomicFile> file;
  if (!output.empty()) file.emplace(output, backend + " module");
  CompiledKernel k = compileKernel(r);
  const std::string text =
      emitDeviceCode(kernelSource(*k.kernel, k.params, k.target, k.compiled.program, k.compiled.provenance, &k.graph,
                                  emitCommand(r, k.params, backend, style)),
                     backend, pallas);
  if (file)
    file->commit(text);
  else
    fmt::print("{}", text);
  return kOk;
}

int cmdCompile(const std::vector<std::string> &args) {
  KernelOptions opts;
  std::string emit, output, style = "manual";
  bool printAfterAll = false, locations = false;
  po::options_description desc("tessera compile KERNEL");
  opts.add(desc);
  LimitOptions limits;
  limits.add(desc, /*simulates=*/false);
  desc.add_options()("emit", po::value(&emit)->required(),
                     "stage to print: tile (as imported), tile-allocated, nc (NeuronCore) or tpu (TPU); or the kernel "
                     "for the device: nki (Trainium) or pallas (TPU)")(
      "output,o", po::value(&output)->value_name("FILE"), "write to FILE instead of stdout (nki, pallas)")(
      "pallas-style", po::value(&style)->default_value(style),
      "--emit pallas: manual (one statement per simulated instruction), grid (BlockSpecs over the kernel's loops) "
      "or auto (grid where the loops allow)")(
      "print-ir-after-all", po::bool_switch(&printAfterAll), "print the module after every pass (stderr)")(
      "locations", po::bool_switch(&locations), "print each op's kernel source line (keep them for tessera sim)");
  po::positional_options_description pos;
  pos.add("kernel", 1);
  parse(args, desc, pos);
  const bool device = emit == "nki" || emit == "pallas";
  if (emit != "tile" && emit != "tile-allocated" && emit != "nc" && emit != "tpu" && !device)
    throw InputError(fmt::format("--emit: unknown stage '{}'", emit), {},
                     "stages: tile, tile-allocated, nc, tpu; device code: nki, pallas");
  if (!output.empty() && !device)
    throw InputError("--output: only --emit nki and --emit pallas write a file; the MLIR stages go to stdout");
  RunRequest r = opts.request();
  limits.apply(r);
  if (device) return emitForDevice(r, emit, output, style);
  const tsr::KernelInfo &kernel = findKernel(r.kernel);
  isa::Target target = loadTarget(r.target);
  const char *targetStage = target.isTpu() ? "tpu" : "nc";
  const bool machineLevel = emit == "nc" || emit == "tpu";
  if (machineLevel && emit != targetStage)
    throw InputError(fmt::format("--emit {}: target {} is a {}, whose instructions are the {} dialect's", emit,
                                 target.name, target.family, targetStage),
                     {}, fmt::format("use --emit {}", targetStage));
  tsr::Params params;
  tsr::graph::KernelGraph graph = traceKernel(kernel, r.shape, params, r.kernelParams, r.scalarParams);
  if (emit == "tile") {
    fmt::print("{}", compiler::importToText(graph, target));
    return kOk;
  }
  r.compile.keepTileIr = emit == "tile-allocated";
  r.compile.keepNcIr = machineLevel;
  r.compile.printIrAfterAll = printAfterAll;
  r.compile.printLocations = locations;
  compiler::CompileResult result;
  try {
    result = compiler::compile(graph, target, r.compile);
  } catch (const compiler::InstructionLimitError &e) {
    throw LimitError(e.message(), e.where(), "raise --max-instructions, or use smaller shapes");
  }
  fmt::print("{}", machineLevel ? result.ncIr : result.tileIr);
  return kOk;
}

/// The command line that ran, for the records a bundle keeps: "tessera deploy matmul --target tpu-v5e -o dir".
std::string commandLine(const std::string &command, const std::vector<std::string> &args) {
  std::string line = "tessera " + command;
  for (const std::string &a : args) line += " " + a;
  return line;
}

int cmdDeploy(const std::vector<std::string> &args) {
  KernelOptions opts;
  std::string output, style = "manual";
  std::vector<std::string> inputFiles;
  po::options_description desc("tessera deploy KERNEL");
  opts.add(desc);
  LimitOptions limits;
  limits.add(desc);
  desc.add_options()("seed", po::value(&opts.seed)->default_value(opts.seed), "seed of the random inputs")(
      "output,o", po::value(&output)->required()->value_name("DIR"), "the folder to write (created if missing)")(
      "pallas-style", po::value(&style)->default_value(style),
      "TPU targets: manual (one statement per simulated instruction), grid (BlockSpecs) or auto")(
      "input,i", po::value(&inputFiles)->composing()->value_name("NAME=FILE.npy"),
      "an input from a .npy file instead of random values (repeatable)");
  po::positional_options_description pos;
  pos.add("kernel", 1);
  parse(args, desc, pos);
  RunRequest request = opts.request();
  request.inputFiles = parseInputFiles(inputFiles);
  limits.apply(request);
  DeployBundle bundle;
  {
    ProgressBar bar(stderr, !opts.json && ProgressBar::isTerminal(stderr));
    request.progress = bar.callback();
    bundle = deployKernel(request, output, commandLine("deploy", args), style);
  }
  const RunReport &r = bundle.report;
  if (opts.json) {
    nlohmann::json j = {
        {"ok", true},         {"dir", bundle.dir.string()}, {"backend", bundle.backend}, {"files", bundle.files},
        {"kernel", r.kernel}, {"target", r.target.name},    {"predicted_us", r.timeUs()}};
    fmt::print("{}\n", j.dump(2));
    return kOk;
  }
  const bool tpu = bundle.backend == "pallas";
  fmt::print("deployed {} for {} into {}\n\n", r.kernel, r.target.name, bundle.dir.string());
  fmt::print("  {:<22} the {} kernel\n", bundle.files[0], tpu ? "Pallas (TPU)" : "NKI 0.6 (Trainium)");
  fmt::print("  {:<22} {}\n", "run.py",
             tpu ? "python3 run.py on a TPU host; --interpret or --export on any CPU with jax"
                 : "python3 run.py on a Trainium host; --simulate with NKI on any CPU");
  fmt::print("  {:<22} inputs, the simulator's outputs, tolerances, predicted time\n", "tessera.json");
  fmt::print("  {:<22} {} files: inputs/*.npy, expected/*.npy\n", "", bundle.files.size() - 4);
  fmt::print("\n  predicted time {:.3f} us ({} instructions); the runner prints the device's beside it\n", r.timeUs(),
             r.instructions);
  return kOk;
}

int cmdCalibrate(const std::vector<std::string> &args) {
  std::vector<std::string> files;
  std::string target, fit, write;
  bool json = false;
  po::options_description desc("tessera calibrate RECORD.json...");
  desc.add_options()("records", po::value(&files)->required()->composing(), "record-device.json files from run.py")(
      "target,t", po::value(&target), "the target to calibrate (default: the records' own)")(
      "fit", po::value(&fit)->value_name("TABLE.KEY,..."),
      "the coefficients to fit (default: the fixed costs the target files mark as assumptions)")(
      "write,w", po::value(&write)->value_name("FILE.toml"), "write a copy of the target file with the fitted values")(
      "json", po::bool_switch(&json), "print one JSON object");
  po::positional_options_description pos;
  pos.add("records", -1);
  parse(args, desc, pos);
  std::vector<DeviceRecord> records;
  for (const std::string &f : files) records.push_back(readDeviceRecord(f));
  const std::vector<std::string> names = splitList(fit);
  std::optional<AtomicFile> out;
  if (!write.empty()) out.emplace(write, "calibrated target");
  const Calibration c = calibrate(records, target, names);
  if (out) out->commit(c.calibratedToml);
  if (json) {
    nlohmann::json coefficients = nlohmann::json::array(), rows = nlohmann::json::array();
    for (const Coefficient &k : c.coefficients)
      coefficients.push_back(
          {{"name", k.name()}, {"before", k.before}, {"after", k.after}, {"determined", k.determined}});
    for (const CalibratedRecord &r : c.records)
      rows.push_back({{"file", r.record.file.string()},
                      {"kernel", r.record.kernel},
                      {"measured_us", r.record.measuredUs},
                      {"before_us", r.beforeUs},
                      {"after_us", r.afterUs}});
    fmt::print("{}\n", nlohmann::json{{"target", c.base.name},
                                      {"coefficients", coefficients},
                                      {"records", rows},
                                      {"error_before", c.errorBefore},
                                      {"error_after", c.errorAfter},
                                      {"written", write}}
                           .dump(2));
    return kOk;
  }
  fmt::print("calibrating {} from {} device record{}\n\n", c.base.name, c.records.size(),
             c.records.size() == 1 ? "" : "s");
  fmt::print("  {:<34} {:>12} {:>12}\n", "coefficient", "was", "fitted");
  for (const Coefficient &k : c.coefficients)
    fmt::print("  {:<34} {:>12.6g} {:>12}\n", k.name(), k.before,
               k.determined ? fmt::format("{:.6g}", k.after) : std::string("(no record depends on it)"));
  fmt::print("\n  {:<20} {:<24} {:>12} {:>12} {:>12}\n", "kernel", "record", "measured us", "was us", "fitted us");
  for (const CalibratedRecord &r : c.records)
    fmt::print("  {:<20} {:<24} {:>12.3f} {:>12.3f} {:>12.3f}\n", r.record.kernel, r.record.file.filename().string(),
               r.record.measuredUs, r.beforeUs, r.afterUs);
  fmt::print("\n  rms of ln(simulated / measured): {:.4f} before, {:.4f} after\n", c.errorBefore, c.errorAfter);
  if (out) fmt::print("  wrote {} (tessera run ... --target {})\n", write, write);
  return kOk;
}

int cmdCompare(const std::vector<std::string> &args) {
  KernelOptions opts;
  std::string targets;
  std::vector<std::string> priceTexts;
  bool csv = false;
  po::options_description desc("tessera compare KERNEL --targets T1,T2,...");
  opts.add(desc);
  LimitOptions limits;
  limits.add(desc);
  desc.add_options()("targets", po::value(&targets)->required()->value_name("T1,T2,..."), "the targets to compare")(
      "seed", po::value(&opts.seed)->default_value(opts.seed), "seed of the random inputs (the same on every target)")(
      "price", po::value(&priceTexts)->composing()->value_name("TARGET=USD"),
      "a price per chip-hour instead of the target file's (repeatable)")("csv", po::bool_switch(&csv), "print CSV");
  po::positional_options_description pos;
  pos.add("kernel", 1);
  parse(args, desc, pos);
  RunRequest request = opts.request();
  limits.apply(request);
  std::map<std::string, double> prices;
  for (const std::string &text : priceTexts)
    for (const std::string &item : splitList(text)) {
      const size_t eq = item.find('=');
      if (eq == std::string::npos || eq == 0)
        throw InputError(fmt::format("--price: expected TARGET=USD, got '{}'", item), {}, "e.g. --price trn3=4.5");
      prices[item.substr(0, eq)] = parsePositive("price", item.substr(eq + 1));
    }
  const Comparison c = compareTargets(request, splitList(targets), prices);

  auto worst = [](const std::vector<Difference> &d, bool relative) {
    double w = 0;
    for (const Difference &x : d) w = std::max(w, relative ? x.maxRel : x.maxAbs);
    return w;
  };
  if (opts.json) {
    nlohmann::json rows = nlohmann::json::array();
    for (const CompareRow &r : c.rows) {
      nlohmann::json j = {{"target", r.target}};
      if (!r.report) {
        j["error"] = r.error;
        rows.push_back(j);
        continue;
      }
      const RunReport::Bound b = r.report->bound();
      auto diffs = [](const std::vector<Difference> &d) {
        nlohmann::json a = nlohmann::json::array();
        for (const Difference &x : d) a.push_back({{"output", x.output}, {"max_abs", x.maxAbs}, {"max_rel", x.maxRel}});
        return a;
      };
      j.update({{"time_us", r.report->timeUs()},
                {"peak_percent", r.report->peakPercent()},
                {"bound", b.kind},
                {"bound_unit", b.unit},
                {"bound_busy_percent", b.busyPercent},
                {"ok", r.report->ok},
                {"vs_reference", diffs(r.vsReference)},
                {"vs_first", diffs(r.vsFirst)},
                {"price_per_chip_hour", r.pricePerChipHour},
                {"cores_per_chip", r.coresPerChip}});
      if (auto cost = r.dollarsPerMillionCalls())
        j["usd_per_million_calls"] = *cost;
      else
        j["usd_per_million_calls"] = nullptr;
      rows.push_back(j);
    }
    fmt::print("{}\n", nlohmann::json{{"kernel", c.kernel},
                                      {"shape", c.params.values()},
                                      {"kernel_params", c.params.kernelValues()},
                                      {"ok", c.ok},
                                      {"targets", rows}}
                           .dump(2));
    return c.ok ? kOk : kCheckFailed;
  }
  const std::string first = [&] {
    for (const CompareRow &r : c.rows)
      if (r.report) return r.target;
    return std::string("-");
  }();
  if (csv) {
    fmt::print("target,time_us,peak_percent,bound,bound_unit,max_rel_vs_reference,max_abs_vs_reference,"
               "max_rel_vs_{0},max_abs_vs_{0},price_per_chip_hour,usd_per_million_calls,ok,error\n",
               first);
    for (const CompareRow &r : c.rows) {
      if (!r.report) {
        fmt::print("{},,,,,,,,,,,,\"{}\"\n", r.target, r.error);
        continue;
      }
      const RunReport::Bound b = r.report->bound();
      const auto cost = r.dollarsPerMillionCalls();
      fmt::print("{},{:.6g},{:.4g},{},{},{:.6g},{:.6g},{:.6g},{:.6g},{},{},{},\n", r.target, r.report->timeUs(),
                 r.report->peakPercent(), b.kind, b.unit, worst(r.vsReference, true), worst(r.vsReference, false),
                 worst(r.vsFirst, true), worst(r.vsFirst, false),
                 r.pricePerChipHour > 0 ? fmt::format("{}", r.pricePerChipHour) : "",
                 cost ? fmt::format("{:.6g}", *cost) : "", r.report->ok ? "true" : "false");
    }
    return c.ok ? kOk : kCheckFailed;
  }
  fmt::print("{} compared  shape {}{}\n\n", c.kernel, c.params.str(),
             c.params.kernelStr().empty() ? "" : "  params " + c.params.kernelStr());
  fmt::print("  {:<9} {:>11} {:>7}  {:<17} {:>12} {:>12}  {:>9} {:>14}\n", "target", "time us", "% peak", "bound",
             "rel err ref", fmt::format("vs {}", first), "$/chip-h", "$ per 1M calls");
  for (const CompareRow &r : c.rows) {
    if (!r.report) {
      fmt::print("  {:<9} does not run here: {}\n", r.target, r.error);
      continue;
    }
    const RunReport::Bound b = r.report->bound();
    const auto cost = r.dollarsPerMillionCalls();
    fmt::print("  {:<9} {:>11.3f} {:>6.1f}%  {:<17} {:>12.3g} {:>12.3g}  {:>9} {:>14}{}\n", r.target,
               r.report->timeUs(), r.report->peakPercent(), fmt::format("{} ({})", b.kind, b.unit),
               worst(r.vsReference, true), worst(r.vsFirst, true),
               r.pricePerChipHour > 0 ? fmt::format("{:.3f}", r.pricePerChipHour) : "n/a",
               cost ? fmt::format("{:.4f}", *cost) : "n/a", r.report->ok ? "" : "  MISMATCH");
  }
  fmt::print(
      "\n  rel err: max |out - ref| / max(|ref|, rms(ref)) against the FP32 reference, and against {}'s outputs\n"
      "  $ per 1M calls: one call's simulated time on one core at the chip's price per hour shared by its cores\n"
      "  (prices: each target file's price_per_chip_hour, its source beside it; --price TARGET=USD overrides)\n",
      first);
  return c.ok ? kOk : kCheckFailed;
}

int cmdSim(const std::vector<std::string> &args) {
  std::string file;
  RunRequest request;
  std::string loopBuffers = "4", seed = "0";
  bool json = false, noChecks = false;
  po::options_description desc("tessera sim FILE.mlir");
  LimitOptions limits;
  limits.add(desc);
  desc.add_options()("file", po::value(&file)->required(), "an nc-level (or tile-level) module")(
      "seed", po::value(&seed)->default_value(seed), "seed of the random inputs")(
      "loop-buffers", po::value(&loopBuffers)->default_value(loopBuffers), "for a tile-level module")(
      "timing-only", po::bool_switch(&request.timingOnly), "simulate time alone: compute no values")(
      "no-checks", po::bool_switch(&noChecks), "skip the race and uninitialised-read checks")(
      "json", po::bool_switch(&json), "print one JSON object");
  RunOutputs outputs;
  outputs.add(desc);
  po::positional_options_description pos;
  pos.add("file", 1);
  parse(args, desc, pos);
  request.seed = parseCount("seed", seed);
  request.compile.loopBuffers = parseLoopBuffers(loopBuffers);
  request.checks = !noChecks;
  limits.apply(request);
  simulateAndReport(request, outputs, json, [&](const RunRequest &r) { return simulateFile(file, r); });
  return kOk;
}

void printUsage(std::FILE *out) {
  fmt::print(out, "usage: tessera <command> [options]\n\n"
             "commands:\n"
             "  list                     kernels, their shape parameters (--shape) and kernel parameters (--param)\n"
             "  targets                  machines that can be simulated\n"
             "  run KERNEL               compile, simulate and check a kernel: time, engines, numerics\n"
             "  compile KERNEL --emit S  print a compiler stage (tile, tile-allocated, nc or tpu), or the kernel\n"
             "                           for the device: nki (Trainium), pallas (TPU)\n"
             "  deploy KERNEL -o DIR     a folder for the device host: the kernel (NKI or Pallas), inputs, the\n"
             "                           simulator's outputs and time, and a runner that compares and times it\n"
             "  calibrate RECORD...      fit a target's cost coefficients to times measured with deploy's runner\n"
             "  compare KERNEL --targets T,...  one kernel on several targets: time, % of peak, bound,\n"
             "                           numerics against the reference and each other, price-performance\n"
             "  sweep KERNEL --param ... run every combination of kernel parameters in parallel, sorted by time\n"
             "  sim FILE.mlir            simulate a saved module (the output of compile --emit nc)\n"
             "  isa [INSTRUCTION]        the instruction set: operands, engines, limits, cost formulas\n"
             "  systolic --gemm M,N,K    one GEMM on a systolic array, PE by PE: cycles, utilisation, SRAM/DRAM traffic\n\n"
             "--plugin LIB.so (any command, repeatable) loads kernels of your own, built with tessera_add_kernels()\n"
             "from the Tessera CMake package (docs/user-kernels.md).\n"
             "`tessera <command> --help` lists a command's options. --json gives machine-readable output.\n");
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  const bool json = wantsJson(args);
  // Plugins first, whatever the command: their kernels are then found like the library's.
  try {
    loadPlugins(args);
  } catch (const InputError &e) {
    // Every rank of an MPI sweep fails alike here: rank 0 says so, once.
    if (!args.empty() && args[0] == "sweep" && launcherRank() != 0) return kBadInput;
    return reportError(e, kBadInput, json);
  }
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    printUsage(args.empty() ? stderr : stdout);
    return args.empty() ? kBadInput : kOk;
  }
  static const std::map<std::string, std::function<int(const std::vector<std::string> &)>> commands = {
      {"list", cmdList}, {"targets", cmdTargets}, {"run", cmdRun}, {"compile", cmdCompile}, {"sim", cmdSim},
      {"systolic", runSystolicCommand}, {"isa", cmdIsa}, {"deploy", cmdDeploy}, {"calibrate", cmdCalibrate},
      {"compare", cmdCompare},
      {"sweep", runSweepCommand}};
  auto it = commands.find(args[0]);
  if (it == commands.end()) {
    fmt::print(stderr, "tessera: unknown command '{}'\n\n", args[0]);
    printUsage(stderr);
    return kBadInput;
  }
  std::vector<std::string> rest(args.begin() + 1, args.end());
  try {
    return it->second(rest);
  } catch (const HelpShown &) {
    return kOk;
  } catch (const TimeoutError &e) {
    return reportTimeout(e, json);
  } catch (const Error &e) {
    return reportError(e, exitStatusOf(e), json);
  } catch (const std::exception &e) {
    return reportError(Error(fmt::format("internal error: {}", e.what())), kCheckFailed, json);
  }
}
