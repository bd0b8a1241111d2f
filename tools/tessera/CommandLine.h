#pragma once
/// \file
/// What every `tessera` command shares on its command line: the exit statuses, option values (counts, positive
/// numbers, NAME=VALUE lists, --shape, --param, --input), the option sets of the commands that compile a kernel
/// (KernelOptions) or simulate one (LimitOptions), parsing with --help, and the options any command takes:
/// --plugin (loaded before the command runs) and --json (an error is then a JSON object on stdout too).
/// The commands themselves are in commands/ (commands/Commands.h).

#include "tessera/Driver.h"

#include <boost/program_options.hpp>

#include <cstdint>
#include <exception>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tessera::driver {

/// Exit statuses: all well; a check failed (numerics, a kernel bug found); bad usage or input; a resource limit
/// stopped the run (--max-instructions, --max-memory-gib, --timeout).
inline constexpr int kOk = 0, kCheckFailed = 1, kBadInput = 2, kLimit = 3;

/// The exit status an error gives: InputError kBadInput, LimitError kLimit, any other kCheckFailed.
int exitStatusOf(const std::exception &e);

/// `text` as a decimal unsigned integer, when it is one entirely (no sign, no spaces) and fits in 64 bits.
std::optional<uint64_t> toUnsigned(const std::string &text);

/// A non-negative integer option value (boost would wrap "-1" round to 2^64-1), at least `minimum`.
uint64_t parseCount(const std::string &option, const std::string &text, uint64_t minimum = 0);
/// --loop-buffers: 1 to 65536 rotating copies.
unsigned parseLoopBuffers(const std::string &text);
/// A positive, finite number option value.
double parsePositive(const std::string &option, const std::string &text);

/// Splits "a,b,c" (nothing for "").
std::vector<std::string> splitList(const std::string &text);
/// Parses "M=1024,N=512" (the value of --`option`) into NAME -> positive integer; `hint` ends each error.
std::map<std::string, int64_t> parseAssignments(const std::string &option, const std::string &text,
                                                const std::string &hint);
/// Parses "M=1024,N=512" into shape overrides.
std::map<std::string, int64_t> parseShape(const std::string &text);

/// The values of every --param ("bm=256,bn=512,scale=0.125", or one per flag), as overrides of `kernel`'s kernel
/// parameters (positive integers) and scalar parameters (real numbers, which the kernel's declaration names); an
/// error names the kernel's parameters.
struct ParamOverrides {
  std::map<std::string, int64_t> kernel;
  std::map<std::string, double> scalars;
};
ParamOverrides parseKernelParams(const std::vector<std::string> &texts, const std::string &kernel);

/// Parses the values of every --input ("a=a.npy", or several comma-separated) into NAME -> file.
std::map<std::string, std::string> parseInputFiles(const std::vector<std::string> &texts);

/// The resource limits of `run` and `sim` (and the instruction limit of `compile`).
struct LimitOptions {
  std::string maxInstructions = std::to_string(compiler::CompileOptions::kDefaultMaxInstructions);
  std::string maxMemoryGib, timeout;

  /// Adds --max-instructions, and unless `simulates` is false --max-memory-gib and --timeout.
  void add(boost::program_options::options_description &desc, bool simulates = true);
  void apply(RunRequest &r) const;
};

/// Options that the commands running or compiling one kernel share: the kernel, --target, --shape, --param,
/// --loop-buffers, --no-pipeline, --json (and --seed's value, which each adds with its own help).
struct KernelOptions {
  std::string kernel, target{kDefaultTarget}, shape;
  std::vector<std::string> params;
  std::string seed = "0";
  std::string inputDist = "uniform";
  std::string loopBuffers = "4";
  bool noPipeline = false;
  bool json = false;

  void add(boost::program_options::options_description &desc);
  /// Adds --seed and --input-dist, for the commands that draw inputs (run, deploy, compare).
  void addInputs(boost::program_options::options_description &desc, const char *seedHelp);
  RunRequest request() const;
};

/// Thrown after a command's --help was printed: the command ends with kOk.
struct HelpShown {};

/// The option list --help prints, as text.
std::string usageText(const boost::program_options::options_description &desc);

/// Adds --help to `desc` and parses `args` against it; an argument that is not an option is bad usage. --help
/// prints the option list and throws HelpShown; bad usage throws InputError with the option list.
boost::program_options::variables_map parse(const std::vector<std::string> &args,
                                            boost::program_options::options_description &desc);
/// The same, with the arguments that are not options the values of option `positional` (at most `count`; -1: any
/// number), as in `tessera run KERNEL`; --help prints only when `printHelp`.
boost::program_options::variables_map parse(const std::vector<std::string> &args,
                                            boost::program_options::options_description &desc,
                                            const char *positional, int count = 1, bool printHelp = true);
/// The same for a command that takes no positional arguments and passes over any it is given (`tessera systolic`).
boost::program_options::variables_map parseIgnoringPositional(const std::vector<std::string> &args,
                                                              boost::program_options::options_description &desc);
/// Parses the arguments of `command` ("tessera list"), whose one option is --json; returns whether it was given.
bool parseJsonOption(const std::vector<std::string> &args, const char *command);

/// Whether `args` (the whole command line) asks for JSON: then an error is a JSON object on stdout as well.
bool wantsJson(const std::vector<std::string> &args);
/// Removes every --plugin from `args` and loads each (Plugin.h): their kernels are then found like the library's.
void loadPlugins(std::vector<std::string> &args);

/// Reports `e` on stderr (what the kernel printed before a kernel bug stopped it on stdout); with `json` also as a
/// JSON object on stdout, so a program reading stdout sees it. Returns `status`.
int reportError(const Error &e, int status, bool json);
/// Reports a run that --timeout stopped: its partial report (how far the simulation got) and the error. Returns
/// kLimit.
int reportTimeout(const TimeoutError &e, bool json);

} // namespace tessera::driver
