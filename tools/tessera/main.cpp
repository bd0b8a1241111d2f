// tessera: the command line. Each command is a file in commands/ (commands/Commands.h lists them with their
// options); this file is the table of their names, which `tessera --help` prints, and turns what a command throws
// into a message and an exit status (CommandLine.h): 0 all well; 1 a check failed (numerics, a kernel bug found);
// 2 bad usage or input; 3 a resource limit stopped the run (--max-instructions, --max-memory-gib, --timeout).
// Any command also takes --plugin LIB.so (repeatable): kernels of your own, built with tessera_add_kernels.

#include "tessera/CommandLine.h"
#include "tessera/Plugin.h"
#include "tessera/SweepRanks.h"
#include "tessera/commands/Commands.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

using namespace tessera;
using namespace tessera::driver;

namespace {

/// One command: its name, how `tessera --help` shows it (its main arguments, a summary whose lines '\n' splits),
/// and the function that runs it.
struct Command {
  std::string_view name, usage, summary;
  int (*run)(const std::vector<std::string> &args);
};

/// In the order `tessera --help` lists them.
constexpr Command kCommands[] = {
    {"list", "list", "kernels, their shape parameters (--shape) and kernel parameters (--param)", listCommand},
    {"targets", "targets", "machines that can be simulated", targetsCommand},
    {"run", "run KERNEL", "compile, simulate and check a kernel: time, engines, numerics", runCommand},
    {"compile", "compile KERNEL --emit S",
     "print a compiler stage (tile, tile-allocated, nc or tpu), or the kernel\n"
     "for the device: nki (Trainium), pallas (TPU)",
     compileCommand},
    {"deploy", "deploy KERNEL -o DIR",
     "a folder for the device host: the kernel (NKI or Pallas), inputs, the\n"
     "simulator's outputs and time, and a runner that compares and times it",
     deployCommand},
    {"calibrate", "calibrate RECORD...", "fit a target's cost coefficients to times measured with deploy's runner",
     calibrateCommand},
    {"fidelity", "fidelity [POINTS.toml]",
     "the simulator against every published hardware measurement (bench/fidelity):\n"
     "per point, summarised, variant rankings, hold-out errors of fitted coefficients",
     fidelityCommand},
    {"compare", "compare KERNEL --targets T,...",
     "one kernel on several targets: time, % of peak, bound,\n"
     "numerics against the reference and each other, price-performance",
     compareCommand},
    {"sweep", "sweep KERNEL --param ...", "run every combination of kernel parameters in parallel, sorted by time",
     sweepCommand},
    {"sim", "sim FILE.mlir", "simulate a saved module (the output of compile --emit nc)", simCommand},
    {"isa", "isa [INSTRUCTION]", "the instruction set: operands, engines, limits, cost formulas", isaCommand},
    {"systolic", "systolic --gemm M,N,K",
     "one GEMM on a systolic array, PE by PE: cycles, utilisation, SRAM/DRAM traffic", systolicCommand},
};

/// The width of the usage column of `tessera --help`; a longer usage is followed by two spaces instead.
constexpr size_t kUsageColumn = 25;

void printUsage(std::FILE *out) {
  std::string commands;
  for (const Command &c : kCommands) {
    commands += "  " + std::string(c.usage);
    commands += c.usage.size() < kUsageColumn ? std::string(kUsageColumn - c.usage.size(), ' ') : "  ";
    for (char ch : c.summary) commands += ch == '\n' ? "\n" + std::string(2 + kUsageColumn, ' ') : std::string(1, ch);
    commands += '\n';
  }
  fmt::print(out,
             "usage: tessera <command> [options]\n\n"
             "commands:\n"
             "{}\n"
             "--plugin LIB.so (any command, repeatable) loads kernels of your own, built with tessera_add_kernels()\n"
             "from the Tessera CMake package (docs/user-kernels.md).\n"
             "`tessera <command> --help` lists a command's options. --json gives machine-readable output.\n",
             commands);
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  const bool json = wantsJson(args);
  // Plugins first, whatever the command: their kernels are then found like the library's.
  reportPluginFailuresAsJson(json);
  try {
    loadPlugins(args);
  } catch (const InputError &e) {
    // Every rank of an MPI sweep fails alike here: rank 0 says so, once, while MPI runs. MPI_Finalize (when
    // `ranks` ends) is collective, so no rank exits, and no launcher aborts the job for its status, before rank 0's
    // message is out. A tessera built without MPI cannot join the ranks: rank 0 reports, the others stay silent.
    if (!args.empty() && args[0] == "sweep" && launchedByMpi()) {
      std::optional<SweepRanks> ranks;
      try {
        ranks.emplace();
      } catch (const InputError &) {
      }
      return launcherRank() == 0 ? reportError(e, kBadInput, json) : kBadInput;
    }
    return reportError(e, kBadInput, json);
  }
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    printUsage(args.empty() ? stderr : stdout);
    return args.empty() ? kBadInput : kOk;
  }
  const auto command =
      std::find_if(std::begin(kCommands), std::end(kCommands), [&](const Command &c) { return c.name == args[0]; });
  if (command == std::end(kCommands)) {
    fmt::print(stderr, "tessera: unknown command '{}'\n\n", args[0]);
    printUsage(stderr);
    return kBadInput;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  try {
    return command->run(rest);
  } catch (const HelpShown &) {
    return kOk;
  } catch (const TimeoutError &e) {
    // The golden model or the reference may still be computing on their thread (ReferenceRun.h): leave without
    // running static destructors under it. Nothing is left unwritten: outputs are committed only by a whole run.
    const int status = reportTimeout(e, json);
    std::fflush(nullptr);
    std::_Exit(status);
  } catch (const Error &e) {
    return reportError(e, exitStatusOf(e), json);
  } catch (const std::bad_alloc &) { // the host ran out of memory: a limit, like --max-memory-gib
    return reportError(Error("the host ran out of memory (std::bad_alloc)", {},
                             "use smaller shapes, --timing-only (no tensor data), or a --max-memory-gib below what "
                             "the machine can give, so that the run stops before it allocates"),
                       kLimit, json);
  } catch (const std::exception &e) {
    return reportError(Error(fmt::format("internal error: {}", e.what())), kCheckFailed, json);
  } catch (...) { // only a plugin's code throws what is not a std::exception: its kernel is at fault
    return reportError(Error("a kernel threw something that is not a std::exception (throw 42;?)", {},
                             "throw std::runtime_error or call tsr::require in a kernel's code"),
                       kBadInput, json);
  }
}
