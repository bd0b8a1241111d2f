// `tessera systolic`: one GEMM on one systolic array (sim/systolic/), with an animation or an SVG of the wavefront;
// or, given SCALE-Sim's configuration and topology files, a whole network (SystolicNetwork.cpp).

#include "tessera/commands/Commands.h"

#include "SystolicNetwork.h"

#include "tessera/CommandLine.h"
#include "tessera/Driver.h"
#include "tessera/JsonText.h"
#include "tessera/systolic/Model.h"
#include "tessera/systolic/Report.h"
#include "tessera/systolic/Wavefront.h"
#include "tessera/systolic/scalesim/GemmRun.h"

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <optional>
#include <thread>

namespace po = boost::program_options;

namespace tessera::driver {

namespace {

struct SystolicOptions {
  int64_t rows = 0, cols = 0;
  std::string dataflow, gemm, model, svg, sramKiB, target;
  bool json = false, animate = false;
  unsigned frameMs = 0;
  int64_t maxFrames = 2000;
};

/// Turns the library's errors (tessera::Error, naming the flag) into bad-usage errors.
template <typename F> auto asInput(F &&f) {
  try {
    return f();
  } catch (const InputError &) {
    throw;
  } catch (const Error &e) {
    throw InputError(e);
  }
}

} // namespace

int systolicCommand(const std::vector<std::string> &args) {
  SystolicOptions o;
  SystolicNetworkOptions net;
  po::options_description desc("tessera systolic: one GEMM on one systolic array, or a network as SCALE-Sim v3 "
                               "runs it (docs/systolic.md)");
  desc.add_options()("config,c", po::value(&net.config), "a SCALE-Sim configuration file: run a network (with -t)")(
      "topology,t", po::value(&net.topology), "a SCALE-Sim topology file (conv or gemm rows)")(
      "layout,l", po::value(&net.layout), "a SCALE-Sim layout file (read only with custom layouts: not modelled)")(
      "input-type,i", po::value(&net.inputType), "conv or gemm rows in the topology (default: from its header)")(
      "log-dir,p", po::value(&net.logDir), "with -c: write the reports to DIR/<run_name>/ (default ./results)")(
      "trace", po::bool_switch(&net.trace), "with -c: also write each layer's SRAM traces (small cases)")(
      "jobs,j", po::value(&net.jobs), "with -c: layers simulated at once (default: one per core)")(
      "rows,r", po::value(&o.rows), "PE rows (or --target)")("cols", po::value(&o.cols), "PE columns (or --target)")(
      "target", po::value(&o.target), "take rows and columns from a target's tensor engine (tessera targets)")(
      "dataflow,d", po::value(&o.dataflow), "ws (weight), os (output) or is (input) stationary")(
      "gemm,g", po::value(&o.gemm), "M,N,K: C[M][N] = A[M][K] * B[K][N]")(
      "model,m", po::value(&o.model),
      "pe (every PE, every cycle) or fold (closed form); default: pe up to 32x32 arrays and ~1 s of work")(
      "sram-kib", po::value(&o.sramKiB), "ifmap,filter,ofmap SRAM sizes in KiB (default 6144,6144,2048)")(
      "json", po::bool_switch(&o.json), "print one JSON object")(
      "animate", po::bool_switch(&o.animate), "print the array every cycle (PE model)")(
      "frame-ms", po::value(&o.frameMs), "with --animate: redraw in place, this many ms per cycle")(
      "max-frames", po::value(&o.maxFrames)->default_value(o.maxFrames),
      "with --animate: stop drawing after this many")(
      "svg", po::value(&o.svg), "write a picture of the wavefront to this file (PE model)");
  const po::variables_map vm = parseIgnoringPositional(args, desc);

  if (vm.count("config") || vm.count("topology")) {
    if (!vm.count("config") || !vm.count("topology"))
      throw InputError("a network run needs both -c CONFIG.cfg and -t TOPOLOGY.csv", {}, "usage:\n" + usageText(desc));
    for (const char *single : {"rows", "cols", "target", "dataflow", "gemm", "model", "sram-kib", "animate", "svg",
                               "frame-ms", "max-frames"})
      if (vm.count(single) && !vm[single].defaulted())
        throw InputError(fmt::format("--{} is for one GEMM; with -c the configuration file says it", single));
    net.json = o.json;
    return systolicNetworkCommand(net);
  }
  for (const char *flag : {"layout", "input-type", "log-dir", "jobs"})
    if (vm.count(flag)) throw InputError(fmt::format("--{} needs -c CONFIG.cfg -t TOPOLOGY.csv", flag));
  if (net.trace) throw InputError("--trace needs -c CONFIG.cfg -t TOPOLOGY.csv");
  if (!vm.count("dataflow") || !vm.count("gemm"))
    throw InputError("give --dataflow and --gemm M,N,K (one GEMM), or -c CONFIG.cfg -t TOPOLOGY.csv (a network)", {},
                     "usage:\n" + usageText(desc));

  systolic::ArrayConfig config;
  if (!o.target.empty()) {
    isa::Target target = loadTarget(o.target);
    config.rows = target.tensor.rows, config.cols = target.tensor.cols;
  }
  if (vm.count("rows")) config.rows = o.rows;
  if (vm.count("cols")) config.cols = o.cols;
  if (config.rows == 0 || config.cols == 0)
    throw InputError("give the array's size: --rows and --cols, or --target", {}, "usage:\n" + usageText(desc));
  systolic::Gemm gemm = asInput([&] { return systolic::parseGemm(o.gemm); });
  asInput([&] {
    config.dataflow = systolic::parseDataflow(o.dataflow);
    if (!o.sramKiB.empty()) config.sramKiB = systolic::parseSramKiB(o.sramKiB);
    systolic::validate(config, gemm);
    return 0;
  });
  const bool wantsPe = o.animate || !o.svg.empty();
  systolic::ModelKind kind = o.model.empty()
                                 ? (wantsPe ? systolic::ModelKind::Pe : systolic::defaultModel(config, gemm))
                                 : asInput([&] { return systolic::parseModelKind(o.model); });
  if (wantsPe && kind != systolic::ModelKind::Pe)
    throw InputError("--animate and --svg show the PE model: leave out --model fold");
  if (o.animate && o.json) throw InputError("--animate prints text: leave out --json (--svg works with both)");

  // The PE model's observers: the animation (on stdout, so not with --json) and the SVG recorder.
  systolic::WavefrontRecorder recorder;
  int64_t frames = 0;
  systolic::PeModelOptions options;
  options.observer = [&](const systolic::CycleView &view) {
    if (!o.svg.empty()) recorder(view);
    if (!o.animate) return;
    if (frames++ >= o.maxFrames) {
      if (frames == o.maxFrames + 1) fmt::print("... (--max-frames {} reached)\n", o.maxFrames);
      return;
    }
    if (o.frameMs > 0) {
      fmt::print("\x1b[H\x1b[2J{}", systolic::renderFrame(view));
      std::fflush(stdout);
      std::this_thread::sleep_for(std::chrono::milliseconds(o.frameMs));
    } else {
      fmt::print("{}\n", systolic::renderFrame(view));
    }
  };
  if (!o.animate && o.svg.empty()) options.observer = nullptr;

  std::ofstream svgFile; // opened before a long run, so that a bad path fails at once
  if (!o.svg.empty()) {
    svgFile.open(o.svg);
    if (!svgFile) throw InputError(fmt::format("--svg: cannot write '{}'", o.svg));
  }

  systolic::Result result = asInput([&] { return systolic::simulate(config, gemm, kind, options); });

  if (!o.svg.empty()) {
    svgFile << recorder.svg(config, gemm, result);
    if (!svgFile.flush()) throw InputError(fmt::format("--svg: cannot write '{}'", o.svg));
  }
  const systolic::scalesim::GemmOutcome scalesim = systolic::scalesim::scaleSimGemm(config, gemm);
  if (o.json) {
    nlohmann::json j = systolic::toJson(config, gemm, result, scalesim);
    if (!o.svg.empty()) j["svg"] = o.svg;
    fmt::print("{}\n", jsonText(j, 2));
  } else {
    fmt::print("{}", systolic::toText(config, gemm, result, scalesim));
    if (!o.svg.empty()) fmt::print("svg         {}\n", o.svg);
  }
  return kOk;
}

} // namespace tessera::driver
