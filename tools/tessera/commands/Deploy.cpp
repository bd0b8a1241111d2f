// `tessera deploy`: the folder for the device host (Deploy.h), and what is in it.

#include "tessera/commands/Commands.h"

#include "tessera/CommandLine.h"
#include "tessera/Deploy.h"
#include "tessera/ProgressBar.h"
#include "tessera/JsonText.h"

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace po = boost::program_options;

namespace tessera::driver {

namespace {

/// The command line that ran, for the records a bundle keeps: "tessera deploy matmul --target tpu-v5e -o dir".
std::string commandLine(const std::string &command, const std::vector<std::string> &args) {
  std::string line = "tessera " + command;
  for (const std::string &a : args) line += " " + a;
  return line;
}

} // namespace

int deployCommand(const std::vector<std::string> &args) {
  KernelOptions opts;
  std::string output, style = "manual";
  bool force = false;
  std::vector<std::string> inputFiles;
  po::options_description desc("tessera deploy KERNEL");
  opts.add(desc);
  LimitOptions limits;
  limits.add(desc);
  desc.add_options()("seed", po::value(&opts.seed)->default_value(opts.seed), "seed of the random inputs")(
      "output,o", po::value(&output)->required()->value_name("DIR"),
      "the folder to write: new, empty or an earlier bundle, which it replaces")(
      "force", po::bool_switch(&force), "replace the -o folder even if it holds other files (they are deleted)")(
      "pallas-style", po::value(&style)->default_value(style),
      "TPU targets: manual (one statement per simulated instruction), grid (BlockSpecs) or auto")(
      "input,i", po::value(&inputFiles)->composing()->value_name("NAME=FILE.npy"),
      "an input from a .npy file instead of random values (repeatable)");
  parse(args, desc, "kernel");
  RunRequest request = opts.request();
  request.inputFiles = parseInputFiles(inputFiles);
  limits.apply(request);
  DeployBundle bundle;
  {
    ProgressBar bar(stderr, !opts.json && ProgressBar::isTerminal(stderr));
    request.progress = bar.callback();
    bundle = deployKernel(request, output, commandLine("deploy", args), style, force);
  }
  const RunReport &r = bundle.report;
  if (opts.json) {
    nlohmann::json j = {
        {"ok", true},         {"dir", bundle.dir.string()}, {"backend", bundle.backend}, {"files", bundle.files},
        {"kernel", r.kernel}, {"target", r.target.name},    {"predicted_us", r.timeUs()}};
    fmt::print("{}\n", jsonText(j, 2));
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

} // namespace tessera::driver
