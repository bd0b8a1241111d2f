// `tessera deploy`: the folder for the device host (Deploy.h), and what is in it.

#include "tessera/commands/Commands.h"

#include "tessera/BundleCheck.h"
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

/// Runs `checks` on the bundle in `dir`, each result into `results` ({"compile": true, ...}); whether all passed.
bool runChecks(const std::vector<BundleCheck> &checks, const std::filesystem::path &python,
               const std::filesystem::path &dir, const RunRequest &request, bool outputToStderr,
               nlohmann::json &results) {
  bool passed = true;
  for (BundleCheck check : checks) {
    const bool ok = runBundleCheck(python, dir, check, outputToStderr, request.deadline, request.timeoutSeconds);
    results[std::string(name(check))] = ok;
    passed = passed && ok;
  }
  return passed;
}

} // namespace

int deployCommand(const std::vector<std::string> &args) {
  KernelOptions opts;
  std::string output, style = "auto";
  bool force = false;
  std::vector<std::string> inputFiles, checkNames;
  std::string python;
  po::options_description desc("tessera deploy KERNEL");
  opts.add(desc);
  LimitOptions limits;
  limits.add(desc);
  opts.addInputs(desc, "seed of the random inputs");
  desc.add_options()(
      "output,o", po::value(&output)->required()->value_name("DIR"),
      "the folder to write: new, empty or an earlier bundle, which it replaces")(
      "force", po::bool_switch(&force), "replace the -o folder even if it holds other files (they are deleted)")(
      "pallas-style", po::value(&style)->default_value(style),
      "TPU targets: auto (a grid where the kernel's loops allow), grid or manual (one invocation, every copy by "
      "hand)")(
      "input,i", po::value(&inputFiles)->composing()->value_name("NAME=FILE.npy"),
      "an input from a .npy file instead of random values (repeatable)")(
      "check", po::value(&checkNames)->composing()->value_name("compile|interpret"),
      "TPU targets: then run the bundle's own check here: compile (the real TPU compiler, deviceless: run.py "
      "--compile) or interpret (Pallas' interpret mode against the simulator's outputs); exit 1 when it fails "
      "(repeatable)")(
      "python", po::value(&python)->value_name("PATH"),
      "--check: the backend environment's Python (scripts/backend-venv.sh; default $TESSERA_BACKEND_PYTHON, else "
      "the build tree's backend-venv)");
  parse(args, desc, "kernel");
  std::vector<BundleCheck> checks;
  for (const std::string &n : checkNames) {
    std::optional<BundleCheck> check = parseBundleCheck(n);
    if (!check) throw InputError(fmt::format("--check {}: expected compile or interpret", n));
    checks.push_back(*check);
  }
  std::filesystem::path checkPython;
  if (!checks.empty()) {
    if (opts.target.empty() || loadTarget(opts.target).family != "tpu")
      throw InputError(fmt::format("--check runs a TPU bundle's checks, and {} is not a TPU target", opts.target),
                       {},
                       "no NKI toolchain runs off a Neuron host; a Trainium bundle's run.py --simulate runs under "
                       "NKI's CPU simulator where NKI is installed");
    checkPython = backendPython(python);
  }
  RunRequest request = opts.request();
  request.inputFiles = parseInputFiles(inputFiles);
  limits.apply(request);
  DeployBundle bundle;
  {
    ProgressBar bar(stderr, !opts.json && ProgressBar::isTerminal(stderr));
    request.progress = bar.callback();
    request.waiting = bar.waitingCallback();
    bundle = deployKernel(request, output, commandLine("deploy", args), style, force);
  }
  const RunReport &r = bundle.report;
  if (opts.json) {
    nlohmann::json j = {
        {"ok", true},         {"dir", bundle.dir.string()}, {"backend", bundle.backend}, {"files", bundle.files},
        {"kernel", r.kernel}, {"target", r.target.name},    {"predicted_us", r.timeUs()}};
    if (!checks.empty()) { // the runner writes to stderr here, so that stdout holds the JSON alone
      const bool passed = runChecks(checks, checkPython, bundle.dir, request, /*outputToStderr=*/true, j["checks"]);
      j["ok"] = passed;
    }
    fmt::print("{}\n", jsonText(j, 2));
    return j["ok"].get<bool>() ? kOk : kCheckFailed;
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
  if (checks.empty()) return kOk;
  fmt::print("\n");
  nlohmann::json results;
  const bool passed = runChecks(checks, checkPython, bundle.dir, request, /*outputToStderr=*/false, results);
  fmt::print("\n");
  for (const auto &[check, ok] : results.items()) fmt::print("  check {}: {}\n", check, ok.get<bool>() ? "ok" : "FAILED");
  return passed ? kOk : kCheckFailed;
}

} // namespace tessera::driver
