// `tessera fidelity`: simulated against published hardware times, point by point and summarised (Fidelity.h).
// Exit 0 when every point is within the suite's tolerance and every published ranking is reproduced (and, with
// --holdout, every hold-out error within its tolerance and every fitted coefficient's file value its fit); 1
// otherwise; 2 for a bad suite file or option.

#include "tessera/commands/Commands.h"

#include "tessera/CommandLine.h"
#include "tessera/Fidelity.h"
#include "tessera/JsonText.h"

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <thread>

namespace po = boost::program_options;

namespace tessera::driver {
namespace {

nlohmann::json toJson(const FidelityReport &r) {
  nlohmann::json points = nlohmann::json::array(), rankings = nlohmann::json::array(), fits = nlohmann::json::array();
  for (const FidelityPointResult &p : r.points) {
    nlohmann::json j{{"id", p.point.id},
                     {"kernel", p.point.kernel},
                     {"target", p.point.target},
                     {"shape", p.point.shape},
                     {"params", p.point.kernelParams},
                     {"dtype", p.point.dtype},
                     {"instance", p.point.instance},
                     {"measured_us", p.point.measuredUs},
                     {"measured_by", p.point.measuredBy},
                     {"overhead_us", p.point.overheadUs},
                     {"simulated_us", p.simulatedUs},
                     {"compared_us", p.comparedUs},
                     {"error", p.error},
                     {"within", p.within},
                     {"source", p.point.source},
                     {"source_ref", p.point.sourceRef},
                     {"published", p.point.published},
                     {"differs", p.point.differs},
                     {"ranking", p.point.ranking},
                     {"fit", p.point.fit}};
    if (p.holdoutError) j["holdout_error"] = *p.holdoutError;
    if (p.holdoutUs) j["holdout_us"] = *p.holdoutUs;
    points.push_back(j);
  }
  for (const FidelityRankingPair &p : r.rankings)
    rankings.push_back({{"ranking", p.ranking},
                        {"faster", p.faster},
                        {"slower", p.slower},
                        {"measured_ratio", p.measuredRatio},
                        {"simulated_ratio", p.simulatedRatio},
                        {"reproduced", p.reproduced}});
  for (const FidelityFitResult &f : r.fits)
    fits.push_back({{"target", f.spec.target},
                    {"coefficient", f.spec.coefficient},
                    {"file_value", f.fileValue},
                    {"fitted_value", f.fittedValue},
                    {"determined", f.determined},
                    {"current", f.current},
                    {"points", f.samples}});
  nlohmann::json summary{{"points", r.points.size()},        {"tolerance", r.suite.tolerance},
                         {"mean_abs_error", r.meanAbsError}, {"max_abs_error", r.maxAbsError},
                         {"all_within", r.allWithin},        {"rankings_reproduced", r.rankingsReproduced}};
  if (r.holdout) {
    summary["holdout_tolerance"] = r.suite.holdoutTolerance;
    summary["mean_abs_holdout_error"] = r.meanAbsHoldoutError;
    summary["max_abs_holdout_error"] = r.maxAbsHoldoutError;
    summary["holdout_within"] = r.holdoutWithin;
    summary["fits_current"] = r.fitsCurrent;
  }
  return {{"suite", r.suite.file.string()},
          {"points", points},
          {"rankings", rankings},
          {"fits", fits},
          {"summary", summary}};
}

void printText(const FidelityReport &r) {
  fmt::print("{} published measurements ({})\n\n", r.points.size(), r.suite.file.string());
  fmt::print("  {:<32} {:<8} {:>12} {:>12} {:>9} {:>8}{}\n", "point", "target", "measured us", "simulated us",
             "+overhead", "error", r.holdout ? fmt::format(" {:>9}", "hold-out") : "");
  for (const FidelityPointResult &p : r.points)
    fmt::print("  {:<32} {:<8} {:>12.1f} {:>12.1f} {:>9.1f} {:>+7.1f}%{}{}\n", p.point.id, p.point.target,
               p.point.measuredUs, p.simulatedUs, p.point.overheadUs, 100 * p.error,
               p.holdoutError ? fmt::format(" {:>+8.1f}%", 100 * *p.holdoutError) : "", p.within ? "" : "  OUT");
  fmt::print("\n  error: mean |{:.1f}%|, max |{:.1f}%| (tolerance {:.0f}%): {}\n", 100 * r.meanAbsError,
             100 * r.maxAbsError, 100 * r.suite.tolerance,
             r.allWithin ? "every point within" : "some points out of tolerance");
  size_t reproduced = 0;
  for (const FidelityRankingPair &p : r.rankings) reproduced += p.reproduced;
  fmt::print("  rankings: {} of {} published orderings reproduced\n", reproduced, r.rankings.size());
  for (const FidelityRankingPair &p : r.rankings)
    if (!p.reproduced)
      fmt::print("    not reproduced: {} is {:.2f}x faster than {} measured, {:.2f}x simulated\n", p.faster,
                 p.measuredRatio, p.slower, p.simulatedRatio);
  if (!r.holdout) return;
  for (const FidelityFitResult &f : r.fits)
    fmt::print("  fit {}: {} = {:.4g} in the target file, {:.4g} fitted to its {} points{}\n", f.spec.target,
               f.spec.coefficient, f.fileValue, f.fittedValue, f.samples,
               !f.determined ? " (undetermined: no point depends on it)"
               : f.current   ? ""
                             : " (STALE: write the fitted value into the target file)");
  fmt::print("  hold-out error (leave-one-out for fitted points): mean |{:.1f}%|, max |{:.1f}%| (goal {:.0f}%): {}\n",
             100 * r.meanAbsHoldoutError, 100 * r.maxAbsHoldoutError, 100 * r.suite.holdoutTolerance,
             r.holdoutWithin ? "within" : "not within");
}

} // namespace

int fidelityCommand(const std::vector<std::string> &args) {
  std::string file = defaultFidelityPoints().string(), jobsText;
  bool json = false, holdout = false;
  po::options_description desc("tessera fidelity [POINTS.toml]");
  desc.add_options()("points", po::value(&file), "the suite (default: the repository's bench/fidelity/points.toml)")(
      "holdout", po::bool_switch(&holdout),
      "also fit the suite's coefficients ([[fit]]) and report each fitted point's leave-one-out error (slow)")(
      "jobs,j", po::value(&jobsText), "points simulated at once (default: the machine's cores)")(
      "json", po::bool_switch(&json), "print one JSON object");
  parse(args, desc, "points", 1);
  FidelityOptions options;
  options.jobs = std::max(1u, std::thread::hardware_concurrency());
  if (!jobsText.empty()) options.jobs = static_cast<unsigned>(parseCount("--jobs", jobsText, 1));
  options.holdout = holdout;
  const FidelityReport report = runFidelity(readFidelitySuite(file), options);
  if (json)
    fmt::print("{}\n", jsonText(toJson(report), 2));
  else
    printText(report);
  const bool ok = report.allWithin && report.rankingsReproduced &&
                  (!report.holdout || (report.holdoutWithin && report.fitsCurrent));
  return ok ? kOk : kCheckFailed;
}

} // namespace tessera::driver
