// `tessera sim`: simulate a saved module (the output of `tessera compile --emit nc`), and report.

#include "tessera/commands/Commands.h"

#include "tessera/CommandLine.h"
#include "tessera/commands/RunOutputs.h"

#include <boost/program_options.hpp>

namespace po = boost::program_options;

namespace tessera::driver {

int simCommand(const std::vector<std::string> &args) {
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
  parse(args, desc, "file");
  request.seed = parseCount("seed", seed);
  request.compile.loopBuffers = parseLoopBuffers(loopBuffers);
  request.checks = !noChecks;
  limits.apply(request);
  simulateAndReport(request, outputs, json, [&](const RunRequest &r) { return simulateFile(file, r); });
  return kOk;
}

} // namespace tessera::driver
