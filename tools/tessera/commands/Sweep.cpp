// `tessera sweep`: one kernel over every combination of parameter values (Sweep.h), on one process or across MPI
// ranks (SweepRanks.h), as a table, CSV or JSON.

#include "tessera/commands/Commands.h"

#include "tessera/AtomicFile.h"
#include "tessera/CommandLine.h"
#include "tessera/ProgressBar.h"
#include "tessera/Sweep.h"
#include "tessera/SweepRanks.h"
#include "tessera/JsonText.h"

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <optional>
#include <thread>

namespace po = boost::program_options;

namespace tessera::driver {
namespace {

unsigned parseJobs(const std::string &text) {
  const std::optional<uint64_t> v = toUnsigned(text);
  if (!v || *v == 0 || *v > 1024)
    throw InputError(fmt::format("--jobs: expected an integer from 1 to 1024, got '{}'", text));
  return static_cast<unsigned>(*v);
}

std::string shapeNames(const tsr::KernelInfo &kernel) {
  std::string names;
  for (const auto &[name, value] : kernel.params)
    names += fmt::format("{}{}={}", names.empty() ? "" : ", ", name, value);
  return names;
}

/// Every swept name must be one of the kernel's shape (or kernel) parameters: a typo fails before anything runs.
void requireKnownNames(const tsr::KernelInfo &kernel, const std::vector<SweepAxis> &axes) {
  for (const SweepAxis &a : axes) {
    const bool shape = a.kind == SweepAxis::Kind::Shape;
    if (a.kind == SweepAxis::Kind::ScalarParam) continue; // parseSweepAxes gave this kind to the kernel's own only
    const auto &known = shape ? kernel.params : kernel.kernelParams;
    if (std::none_of(known.begin(), known.end(), [&](const auto &p) { return p.first == a.name; }))
      throw InputError(fmt::format("--{}: kernel '{}' has no {} parameter '{}'", shape ? "shape" : "param",
                                   kernel.name, shape ? "shape" : "kernel", a.name),
                       {},
                       shape ? fmt::format("its shape parameters: {}", shapeNames(kernel))
                             : fmt::format("its kernel parameters: {}", kernel.describeKernelParams()));
  }
}

/// Counts finished combinations on a terminal: "sweep: 3 of 9 done".
class SweepProgress {
public:
  explicit SweepProgress(bool enabled) : enabled_(enabled) {}
  ~SweepProgress() {
    if (drawn_)
      fmt::print(stderr, "\r\033[K");
  }
  void operator()(size_t finished, size_t total) {
    if (!enabled_)
      return;
    fmt::print(stderr, "\rsweep: {} of {} done", finished, total);
    std::fflush(stderr);
    drawn_ = true;
  }

private:
  bool enabled_, drawn_ = false;
};

/// The rows of every rank back in point order: shardOf gave rank r the points r, r + size, r + 2 size, ...
std::vector<SweepRow> interleave(const std::vector<std::vector<SweepRow>> &byRank, size_t total) {
  size_t sent = 0;
  for (const std::vector<SweepRow> &shard : byRank)
    sent += shard.size();
  if (sent != total)
    throw Error(fmt::format("sweep: the ranks sent {} rows for {} combinations", sent, total));
  std::vector<SweepRow> rows;
  rows.reserve(total);
  for (size_t i = 0; i < total; ++i) {
    const std::vector<SweepRow> &shard = byRank.at(i % byRank.size());
    if (i / byRank.size() >= shard.size())
      throw Error(fmt::format("sweep: rank {} sent {} rows, fewer than its share", i % byRank.size(), shard.size()));
    rows.push_back(shard[i / byRank.size()]);
  }
  return rows;
}

/// The command on one rank (the only one, unless an MPI launcher started it).
int sweepOn(const SweepRanks &ranks, const std::vector<std::string> &args) {
  std::string kernelName, target{kDefaultTarget}, seed = "0", jobs, csvPath, maxInstructions;
  std::vector<std::string> shapes, params;
  bool timingOnly = false, noGolden = false, noChecks = false, json = false;
  po::options_description desc("tessera sweep KERNEL");
  desc.add_options()("kernel", po::value(&kernelName)->required(), "kernel name (tessera list)")(
      "target,t", po::value(&target)->default_value(target), "target name or .toml file (tessera targets)")(
      "param,p", po::value(&params)->composing()->value_name("NAME=V1,V2,..."),
      "kernel-parameter values to sweep, e.g. --param bm=128,256,512 --param bn=256,512; scalar parameters take "
      "any numbers, e.g. --param causal=0,1")(
      "shape,s", po::value(&shapes)->composing()->value_name("NAME=V1,V2,..."),
      "shape parameters: one value each, or several to sweep, e.g. --shape M=2048,N=2048,K=1024,2048")(
      "jobs,j", po::value(&jobs)->value_name("N"),
      "combinations at a time (default: the host's cores; under MPI, shared by the ranks on the host)")(
      "timing-only", po::bool_switch(&timingOnly), "simulate time alone: no values, no output comparison")(
      "no-golden", po::bool_switch(&noGolden), "check against the kernel's reference alone")(
      "no-checks", po::bool_switch(&noChecks), "skip the race and uninitialised-read checks")(
      "seed", po::value(&seed)->default_value(seed), "seed of the random inputs")(
      "max-instructions", po::value(&maxInstructions)->value_name("N"),
      "a combination whose program would have more instructions is reported as 'limit' (0 = no limit)")(
      "csv", po::value(&csvPath)->value_name("FILE"), "also write the rows as CSV")(
      "json", po::bool_switch(&json), "print one JSON object (the rows) instead of the table");
  parse(args, desc, "kernel", 1, /*printHelp=*/ranks.root());

  const tsr::KernelInfo &kernel = findKernel(kernelName);
  std::vector<SweepAxis> axes;
  for (const std::string &text : shapes)
    for (SweepAxis &a : parseSweepAxes("shape", text, SweepAxis::Kind::Shape))
      axes.push_back(std::move(a));
  for (const std::string &text : params)
    for (SweepAxis &a : parseSweepAxes("param", text, SweepAxis::Kind::KernelParam,
                                       [&](const std::string &name) { return kernel.isScalarParam(name); }))
      axes.push_back(std::move(a));
  requireKnownNames(kernel, axes);
  const std::vector<SweepPoint> points = sweepPoints(axes);
  // Shape names with one value are fixed for every row; only the others are columns.
  std::vector<SweepAxis> columns;
  for (const SweepAxis &a : axes)
    if (a.size() > 1 || a.kind != SweepAxis::Kind::Shape)
      columns.push_back(a);

  RunRequest base;
  base.kernel = kernel.name;
  base.target = target;
  (void)loadTarget(target); // an unknown target is bad usage before anything runs
  base.timingOnly = timingOnly;
  base.golden = !noGolden;
  base.checks = !noChecks;
  const std::optional<uint64_t> seedValue = toUnsigned(seed);
  if (!seedValue) throw InputError(fmt::format("--seed: expected a non-negative integer, got '{}'", seed));
  base.seed = *seedValue;
  if (!maxInstructions.empty()) {
    const std::optional<uint64_t> v = toUnsigned(maxInstructions);
    if (!v)
      throw InputError(fmt::format("--max-instructions: expected a non-negative integer, got '{}'", maxInstructions));
    base.maxInstructions = *v;
  }
  base.compile.maxInstructions = base.compileOptions().maxInstructions;
  // The host's cores, shared by the ranks on it.
  const unsigned threads = jobs.empty()
                               ? std::max(1u, std::thread::hardware_concurrency() / ranks.onThisHost())
                               : parseJobs(jobs);

  // Everything above failed alike on every rank; from here rank 0 alone opens and writes files, and tells the others.
  std::optional<AtomicFile> csv;
  if (!csvPath.empty())
    ranks.onRoot([&] { csv.emplace(csvPath, "CSV"); }, exitStatusOf);
  const std::vector<SweepPoint> mine = shardOf(points, ranks.rank(), ranks.size());
  std::vector<SweepRow> rows;
  {
    SweepProgress progress(!json && ranks.size() == 1 && ProgressBar::isTerminal(stderr));
    rows = runSweep(base, mine, threads, [&](size_t finished, size_t total) { progress(finished, total); });
  }
  // Every rank's rows to rank 0 as text (one process too: the same path).
  const std::vector<std::string> texts = ranks.gather(encodeRows(rows));
  int status = kOk;
  ranks.onRoot(
      [&] {
        std::vector<std::vector<SweepRow>> byRank;
        for (const std::string &text : texts)
          byRank.push_back(decodeRows(text));
        rows = interleave(byRank, points.size());
        sortBySimulatedTime(rows);
        if (csv)
          csv->commit(sweepCsv(rows, columns));
        if (json) {
          fmt::print("{}\n", jsonText(sweepJson(rows, columns, base), 2));
        } else {
          std::string shares; // how many combinations each rank ran: 2+2+1+1
          for (const std::vector<SweepRow> &shard : byRank)
            shares += fmt::format("{}{}", shares.empty() ? "" : "+", shard.size());
          const std::string where =
              ranks.size() == 1 ? fmt::format("{} at a time", std::min<size_t>(threads, rows.size()))
                                : fmt::format("{} ranks ({}), {} at a time each", ranks.size(), shares, threads);
          fmt::print("{} on {}: {} combinations, {}{}\n\n", kernel.name, target, rows.size(), where,
                     timingOnly ? ", timing only" : "");
          fmt::print("{}", sweepTable(rows, columns));
        }
        std::fflush(stdout);
        const bool anyFailed = std::any_of(rows.begin(), rows.end(),
                                           [](const SweepRow &r) { return r.status == SweepRow::Status::Failed; });
        const bool anyOk = std::any_of(rows.begin(), rows.end(),
                                       [](const SweepRow &r) { return r.status == SweepRow::Status::Ok; });
        status = anyFailed ? kCheckFailed : anyOk ? kOk : kBadInput;
      },
      exitStatusOf);
  // Every rank exits with rank 0's status, so mpirun's is the sweep's.
  return ranks.broadcast(status);
}

} // namespace

int sweepCommand(const std::vector<std::string> &args) {
  SweepRanks ranks;
  if (ranks.root()) {
    // Rank 0 reports an error while MPI still runs: MPI_Finalize (when `ranks` ends) is collective, so no other
    // rank exits, and no launcher aborts the job for its status, before the message is out. (Reported by main
    // after `ranks` ended, the message was lost when mpiexec killed rank 0 first.) A timeout goes to main, which
    // leaves without waiting on the threads still computing.
    try {
      return sweepOn(ranks, args);
    } catch (const TimeoutError &) {
      throw;
    } catch (const Error &e) {
      return reportError(e, exitStatusOf(e), wantsJson(args));
    }
  }
  // Rank 0 reports every error: those before the runs happen alike on every rank, the later ones on rank 0 alone.
  try {
    return sweepOn(ranks, args);
  } catch (const RootFailed &f) {
    return f.status;
  } catch (const std::exception &e) {
    return exitStatusOf(e);
  }
}

} // namespace tessera::driver
