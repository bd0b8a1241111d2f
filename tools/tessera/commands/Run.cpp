// `tessera run`: compile, simulate and check one kernel (Driver.h, runKernel), and report.

#include "tessera/commands/Commands.h"

#include "tessera/CommandLine.h"
#include "tessera/HostData.h"
#include "tessera/commands/RunOutputs.h"

#include <boost/program_options.hpp>

namespace po = boost::program_options;

namespace tessera::driver {

int runCommand(const std::vector<std::string> &args) {
  KernelOptions opts;
  po::options_description desc("tessera run KERNEL");
  opts.add(desc);
  bool timingOnly = false, noGolden = false, noChecks = false;
  std::vector<std::string> inputFiles;
  std::string outputDir;
  LimitOptions limits;
  limits.add(desc);
  opts.addInputs(desc, "seed of the random inputs");
  desc.add_options()(
      "input,i", po::value(&inputFiles)->composing()->value_name("NAME=FILE.npy"),
      "an input from a .npy file instead of random values (repeatable)")(
      "output-dir", po::value(&outputDir)->value_name("DIR"), "write every output to DIR/NAME.npy")(
      "timing-only", po::bool_switch(&timingOnly),
      "simulate time alone: compute no values, compare no outputs (race checks still run)")(
      "no-golden", po::bool_switch(&noGolden), "check against the kernel's reference alone, not the golden model")(
      "no-checks", po::bool_switch(&noChecks), "skip the race and uninitialised-read checks (faster)");
  RunOutputs outputs;
  outputs.add(desc);
  parse(args, desc, "kernel");
  RunRequest request = opts.request();
  request.timingOnly = timingOnly;
  request.checks = !noChecks;
  request.golden = !noGolden;
  request.inputFiles = parseInputFiles(inputFiles);
  request.outputDir = outputDir;
  if (timingOnly && (!request.inputFiles.empty() || !outputDir.empty()))
    throw InputError("--input and --output-dir need values: they do not go with --timing-only");
  limits.apply(request);
  if (!outputDir.empty()) prepareOutputDir(outputDir); // before the run, not after it
  RunReport report = simulateAndReport(request, outputs, opts.json, runKernel);
  return report.ok ? kOk : kCheckFailed;
}

} // namespace tessera::driver
