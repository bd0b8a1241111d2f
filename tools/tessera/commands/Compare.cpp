// `tessera compare`: one kernel on several targets (Compare.h, compareTargets), printed in one of three formats:
// a table for people (the default), --csv, or --json.

#include "tessera/commands/Commands.h"

#include "tessera/CommandLine.h"
#include "tessera/Compare.h"
#include "tessera/JsonText.h"

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>

namespace po = boost::program_options;

namespace tessera::driver {

namespace {

/// The values of every --price ("trn2=4.5", or several comma-separated): target name -> USD per chip-hour.
std::map<std::string, double> parsePrices(const std::vector<std::string> &texts) {
  std::map<std::string, double> prices;
  for (const std::string &text : texts)
    for (const std::string &item : splitList(text)) {
      const size_t eq = item.find('=');
      if (eq == std::string::npos || eq == 0)
        throw InputError(fmt::format("--price: expected TARGET=USD, got '{}'", item), {}, "e.g. --price trn3=4.5");
      prices[item.substr(0, eq)] = parsePositive("price", item.substr(eq + 1));
    }
  return prices;
}

/// The largest difference of any output: relative, or absolute.
double worst(const std::vector<Difference> &d, bool relative) {
  double w = 0;
  for (const Difference &x : d) w = std::max(w, relative ? x.maxRel : x.maxAbs);
  return w;
}

/// The first target that ran the kernel, whose outputs the others' are compared with; "-" when none did.
std::string firstTarget(const Comparison &c) {
  for (const CompareRow &r : c.rows)
    if (r.report) return r.target;
  return std::string("-");
}

void printJson(const Comparison &c, const RunRequest &request) {
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
  // The inputs every target was given, as `run --json` records them.
  const nlohmann::json inputs = {{"distribution", request.inputDist.describe()}, {"seed", request.seed}};
  fmt::print("{}\n", jsonText(nlohmann::json{{"kernel", c.kernel},
                                    {"shape", c.params.values()},
                                    {"kernel_params", c.params.kernelValues()},
                                    {"inputs", inputs},
                                    {"ok", c.ok},
                                    {"targets", rows}}, 2));
}

void printCsv(const Comparison &c) {
  fmt::print("target,time_us,peak_percent,bound,bound_unit,max_rel_vs_reference,max_abs_vs_reference,"
             "max_rel_vs_{0},max_abs_vs_{0},price_per_chip_hour,usd_per_million_calls,ok,error\n",
             firstTarget(c));
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
}

void printTable(const Comparison &c) {
  const std::string first = firstTarget(c);
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
}

} // namespace

int compareCommand(const std::vector<std::string> &args) {
  KernelOptions opts;
  std::string targets;
  std::vector<std::string> priceTexts;
  bool csv = false;
  po::options_description desc("tessera compare KERNEL --targets T1,T2,...");
  opts.add(desc);
  LimitOptions limits;
  limits.add(desc);
  opts.addInputs(desc, "seed of the random inputs (the same on every target)");
  desc.add_options()("targets", po::value(&targets)->required()->value_name("T1,T2,..."), "the targets to compare")(
      "price", po::value(&priceTexts)->composing()->value_name("TARGET=USD"),
      "a price per chip-hour instead of the target file's (repeatable)")("csv", po::bool_switch(&csv), "print CSV");
  parse(args, desc, "kernel");
  RunRequest request = opts.request();
  limits.apply(request);
  const std::map<std::string, double> prices = parsePrices(priceTexts);
  const Comparison c = compareTargets(request, splitList(targets), prices);
  if (opts.json)
    printJson(c, request);
  else if (csv)
    printCsv(c);
  else
    printTable(c);
  return c.ok ? kOk : kCheckFailed;
}

} // namespace tessera::driver
