#include "tessera/CommandLine.h"

#include "tessera/Plugin.h"
#include "tessera/Report.h"
#include "tessera/JsonText.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <sstream>

namespace po = boost::program_options;

namespace tessera::driver {

int exitStatusOf(const std::exception &e) {
  if (dynamic_cast<const InputError *>(&e)) return kBadInput;
  if (dynamic_cast<const LimitError *>(&e)) return kLimit;
  return kCheckFailed;
}

std::optional<uint64_t> toUnsigned(const std::string &text) {
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return v;
}

uint64_t parseCount(const std::string &option, const std::string &text, uint64_t minimum) {
  const std::optional<uint64_t> v = toUnsigned(text);
  if (!v || *v < minimum)
    throw InputError(fmt::format("--{}: expected an integer >= {} (at most {}), got '{}'", option, minimum,
                                 std::numeric_limits<uint64_t>::max(), text));
  return *v;
}

unsigned parseLoopBuffers(const std::string &text) {
  const uint64_t v = parseCount("loop-buffers", text, 1);
  if (v > 65536) throw InputError(fmt::format("--loop-buffers: expected at most 65536 copies, got {}", v));
  return static_cast<unsigned>(v);
}

double parsePositive(const std::string &option, const std::string &text) {
  char *end = nullptr;
  errno = 0;
  const double v = text.empty() ? 0 : std::strtod(text.c_str(), &end);
  if (text.empty() || errno != 0 || end != text.c_str() + text.size() || !std::isfinite(v) || v <= 0)
    throw InputError(fmt::format("--{}: expected a positive number, got '{}'", option, text));
  return v;
}

std::vector<std::string> splitList(const std::string &text) {
  std::vector<std::string> items;
  for (size_t start = 0; !text.empty() && start <= text.size();) {
    const size_t end = text.find(',', start);
    items.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return items;
}

std::map<std::string, int64_t> parseAssignments(const std::string &option, const std::string &text,
                                                const std::string &hint) {
  std::map<std::string, int64_t> values;
  for (const std::string &item : splitList(text)) {
    size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError(fmt::format("--{}: expected NAME=VALUE, got '{}'", option, item), {}, hint);
    std::string name = item.substr(0, eq), value = item.substr(eq + 1);
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc() || ptr != value.data() + value.size() || v <= 0)
      throw InputError(fmt::format("--{}: {} must be a positive integer, got '{}'", option, name, value), {}, hint);
    values[name] = v;
  }
  return values;
}

std::map<std::string, int64_t> parseShape(const std::string &text) {
  return parseAssignments("shape", text, "e.g. --shape M=1024,N=512");
}

ParamOverrides parseKernelParams(const std::vector<std::string> &texts, const std::string &kernel) {
  std::string hint = "e.g. --param bm=256,bn=512";
  const tsr::KernelInfo *k = tsr::Registry::instance().find(kernel);
  if (k) hint = fmt::format("kernel '{}' has the kernel parameters {}", k->name, k->describeKernelParams());
  ParamOverrides values;
  for (const std::string &text : texts) {
    // The scalar parameters first (real numbers); the rest must be positive integers.
    std::string integers;
    for (const std::string &item : splitList(text)) {
      const size_t eq = item.find('=');
      const std::string name = item.substr(0, eq == std::string::npos ? 0 : eq);
      if (k && eq != std::string::npos && k->isScalarParam(name)) {
        const std::string value = item.substr(eq + 1);
        char *stop = nullptr;
        const double v = std::strtod(value.c_str(), &stop);
        if (value.empty() || *stop != '\0' || !std::isfinite(v))
          throw InputError(fmt::format("--param: {} must be a number, got '{}'", name, value), {}, hint);
        values.scalars[name] = v;
      } else {
        integers += (integers.empty() ? "" : ",") + item;
      }
    }
    for (auto &[name, value] : parseAssignments("param", integers, hint)) values.kernel[name] = value;
  }
  return values;
}

std::map<std::string, std::string> parseInputFiles(const std::vector<std::string> &texts) {
  std::map<std::string, std::string> files;
  for (const std::string &text : texts)
    // An empty value is one item, empty and so malformed.
    for (const std::string &item : text.empty() ? std::vector<std::string>{""} : splitList(text)) {
      const size_t eq = item.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
        throw InputError(fmt::format("--input: expected NAME=FILE.npy, got '{}'", item), {},
                         "e.g. --input a=a.npy --input b=b.npy");
      files[item.substr(0, eq)] = item.substr(eq + 1);
    }
  return files;
}

void LimitOptions::add(po::options_description &desc, bool simulates) {
  desc.add_options()("max-instructions", po::value(&maxInstructions)->default_value(maxInstructions),
                     "stop (exit 3) when the program would have more instructions (0 = no limit)");
  if (!simulates) return;
  desc.add_options()("max-memory-gib", po::value(&maxMemoryGib)->value_name("GIB"),
                     fmt::format("stop (exit 3) when the run would need more host memory (default: half of this "
                                 "machine's, {:.1f})",
                                 double(defaultMaxMemoryBytes()) / double(1ull << 30))
                         .c_str())(
      "timeout", po::value(&timeout)->value_name("SECONDS"),
      "stop the simulation after this much wall-clock time, print what it did so far, exit 3");
}

void LimitOptions::apply(RunRequest &r) const {
  r.maxInstructions = parseCount("max-instructions", maxInstructions);
  if (!maxMemoryGib.empty()) {
    const double limit = parsePositive("max-memory-gib", maxMemoryGib);
    // More GiB than 64 bits of bytes hold is no limit (0); a limit under a byte is a byte.
    constexpr double kMostGib = double(std::numeric_limits<uint64_t>::max() >> 30);
    r.maxMemoryBytes =
        limit >= kMostGib ? 0 : std::max<uint64_t>(1, static_cast<uint64_t>(limit * double(1ull << 30)));
  }
  if (!timeout.empty()) {
    r.timeoutSeconds = parsePositive("timeout", timeout);
    r.deadline = std::chrono::steady_clock::now() +
                 std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                     std::chrono::duration<double>(std::min(r.timeoutSeconds, 1e9)));
  }
  r.compile.maxInstructions = r.compileOptions().maxInstructions;
}

void KernelOptions::add(po::options_description &desc) {
  desc.add_options()("kernel", po::value(&kernel)->required(), "kernel name (tessera list)")(
      "target,t", po::value(&target)->default_value(target), "target name or .toml file (tessera targets)")(
      "shape,s", po::value(&shape), "shape parameters, e.g. M=1024,N=1024,K=1024")(
      "param,p", po::value(&params)->composing()->value_name("NAME=VALUE,..."),
      "kernel parameters (tessera list), e.g. --param bm=256,bn=512 or --param bm=256 --param bn=512")(
      "loop-buffers", po::value(&loopBuffers)->default_value(loopBuffers),
      "rotating copies of loop-local tiles (1 = no overlap of iterations)")(
      "no-pipeline", po::bool_switch(&noPipeline), "one copy of each loop-local tile (same as --loop-buffers 1)")(
      "json", po::bool_switch(&json), "print one JSON object");
}

void KernelOptions::addInputs(po::options_description &desc, const char *seedHelp) {
  desc.add_options()("seed", po::value(&seed)->default_value(seed), seedHelp)(
      "input-dist", po::value(&inputDist)->default_value(inputDist)->value_name("DIST"),
      "how random inputs are drawn: uniform ([-1, 1)), range:LO,HI (uniform in [LO, HI)), normal (mean 0, sd 1) or "
      "normal:MEAN,SD");
}

RunRequest KernelOptions::request() const {
  RunRequest r;
  r.kernel = kernel;
  r.target = target;
  r.shape = parseShape(shape);
  ParamOverrides overrides = parseKernelParams(params, kernel);
  r.kernelParams = std::move(overrides.kernel);
  r.scalarParams = std::move(overrides.scalars);
  r.seed = parseCount("seed", seed);
  r.inputDist = InputDistribution::parse(inputDist);
  r.compile.loopBuffers = noPipeline ? 1 : parseLoopBuffers(loopBuffers);
  return r;
}

std::string usageText(const po::options_description &desc) {
  std::ostringstream usage;
  usage << desc;
  return usage.str();
}

namespace {

/// parse() and parseIgnoringPositional(): `positional` null passes over positional arguments.
po::variables_map parseWith(const std::vector<std::string> &args, po::options_description &desc,
                            const po::positional_options_description *positional, bool printHelp) {
  desc.add_options()("help,h", "show this help");
  po::variables_map vm;
  try {
    po::command_line_parser parser(args);
    parser.options(desc);
    if (positional) parser.positional(*positional);
    po::store(parser.run(), vm);
    if (vm.count("help")) {
      if (printHelp) fmt::print("{}", usageText(desc));
      throw HelpShown{};
    }
    po::notify(vm);
  } catch (const po::error &e) {
    throw InputError(e.what(), {}, "usage:\n" + usageText(desc));
  }
  return vm;
}

} // namespace

po::variables_map parse(const std::vector<std::string> &args, po::options_description &desc) {
  const po::positional_options_description none;
  return parseWith(args, desc, &none, true);
}

po::variables_map parse(const std::vector<std::string> &args, po::options_description &desc, const char *positional,
                        int count, bool printHelp) {
  po::positional_options_description pos;
  pos.add(positional, count);
  return parseWith(args, desc, &pos, printHelp);
}

po::variables_map parseIgnoringPositional(const std::vector<std::string> &args, po::options_description &desc) {
  return parseWith(args, desc, nullptr, true);
}

bool parseJsonOption(const std::vector<std::string> &args, const char *command) {
  bool json = false;
  po::options_description desc(command);
  desc.add_options()("json", po::bool_switch(&json), "print JSON");
  parse(args, desc);
  return json;
}

bool wantsJson(const std::vector<std::string> &args) {
  return std::find(args.begin(), args.end(), "--json") != args.end();
}

void loadPlugins(std::vector<std::string> &args) {
  for (const std::string &plugin : takePluginOptions(args)) loadPlugin(plugin);
}

int reportError(const Error &e, int status, bool json) {
  const auto *bug = dynamic_cast<const sim::KernelBugError *>(&e);
  // What the kernel printed (device_print) before the bug stopped it: on stdout, like a report's log.
  if (bug && !json) {
    fmt::print("{}", printsToText(bug->bug().prints));
    std::fflush(stdout); // before the error on stderr
  }
  fmt::print(stderr, "tessera: {}\n", e.what());
  if (json) {
    nlohmann::json j = {{"ok", false}, {"error", e.message()}};
    if (e.where().known()) j["file"] = e.where().file, j["line"] = e.where().line;
    if (!e.hint().empty()) j["hint"] = e.hint();
    if (bug) {
      j["bug"] = toJson(bug->bug());
      nlohmann::json prints = nlohmann::json::array();
      for (const sim::DevicePrint &p : bug->bug().prints) prints.push_back(toJson(p));
      j["prints"] = prints;
    }
    fmt::print("{}\n", jsonText(j, 2));
  }
  return status;
}

int reportTimeout(const TimeoutError &e, bool json) {
  if (json) {
    nlohmann::json j = {{"ok", false},           {"error", e.message()},     {"stopped_by", "timeout"},
                        {"time_us", e.simulatedNs / 1000.0}, {"instructions_retired", e.retired},
                        {"instructions", e.total}};
    fmt::print("{}\n", jsonText(j, 2));
  } else {
    fmt::print("stopped by --timeout after {} s (partial report)\n\n"
               "  simulated time so far {:>12.3f} us\n"
               "  instructions retired  {:>12} of {}\n",
               e.timeoutSeconds, e.simulatedNs / 1000.0, e.retired, e.total);
    std::fflush(stdout);
  }
  fmt::print(stderr, "tessera: {}\n", e.what());
  return kLimit;
}

} // namespace tessera::driver
