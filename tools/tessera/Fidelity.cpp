#include "tessera/Fidelity.h"

#include "tessera/CoefficientFit.h"
#include "tessera/Driver.h"
#include "tessera/ParallelFor.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <set>

#ifndef TESSERA_FIDELITY_POINTS
#error "TESSERA_FIDELITY_POINTS must be defined by the build (tools/CMakeLists.txt)"
#endif

namespace tessera::driver {
namespace {

namespace fs = std::filesystem;

/// Reads the fields of one table of the suite file, naming the file and the table in every error.
class Fields {
public:
  Fields(const toml::table &table, std::string where) : table_(table), where_(std::move(where)) {}

  std::string text(std::string_view key, bool required = true) const {
    const toml::node *n = table_.get(key);
    if (!n) {
      if (required) throw missing(key);
      return {};
    }
    if (!n->is_string()) throw wrong(key, "a string");
    return std::string(*n->value<std::string_view>());
  }
  double number(std::string_view key, std::optional<double> fallback = std::nullopt) const {
    const toml::node *n = table_.get(key);
    if (!n) {
      if (fallback) return *fallback;
      throw missing(key);
    }
    if (!n->is_number()) throw wrong(key, "a number");
    return *n->value<double>();
  }
  bool flag(std::string_view key, bool fallback) const {
    const toml::node *n = table_.get(key);
    if (!n) return fallback;
    if (!n->is_boolean()) throw wrong(key, "true or false");
    return *n->value<bool>();
  }
  /// An inline table of integers ({ M = 4096, N = 8192 }); empty when absent.
  std::map<std::string, int64_t> integers(std::string_view key) const {
    std::map<std::string, int64_t> values;
    const toml::node *n = table_.get(key);
    if (!n) return values;
    const toml::table *t = n->as_table();
    if (!t) throw wrong(key, "a table of integers, like { M = 4096 }");
    for (const auto &[name, value] : *t) {
      if (!value.is_integer()) throw wrong(key, fmt::format("integers ('{}' is not one)", name.str()));
      values[std::string(name.str())] = *value.value<int64_t>();
    }
    return values;
  }
  InputError error(const std::string &what) const {
    return InputError(fmt::format("{}: {}", where_, what), {}, "see the comment at the top of the suite file");
  }

private:
  InputError missing(std::string_view key) const { return error(fmt::format("no '{}'", key)); }
  InputError wrong(std::string_view key, std::string_view expected) const {
    return error(fmt::format("'{}' must be {}", key, expected));
  }
  const toml::table &table_;
  std::string where_;
};

FidelityPoint readPoint(const toml::table &t, const std::string &where) {
  const Fields f(t, where);
  FidelityPoint p;
  p.id = f.text("id");
  const Fields named(t, fmt::format("{} '{}'", where, p.id));
  p.kernel = named.text("kernel");
  p.target = named.text("target");
  p.shape = named.integers("shape");
  p.kernelParams = named.integers("params");
  p.dtype = named.text("dtype");
  p.instance = named.text("instance");
  p.measuredUs = named.number("measured_us");
  if (!(p.measuredUs > 0) || !std::isfinite(p.measuredUs)) throw named.error("measured_us must be a positive time");
  p.overheadUs = named.number("overhead_us", 0.0);
  if (!(p.overheadUs >= 0) || p.overheadUs >= p.measuredUs)
    throw named.error("overhead_us must be at least 0 and less than measured_us");
  p.measuredBy = named.text("measured_by");
  p.source = named.text("source");
  p.sourceRef = named.text("source_ref");
  p.published = named.text("published");
  p.differs = named.text("differs");
  p.ranking = named.text("ranking", false);
  p.fit = named.flag("fit", true);
  return p;
}

/// Signed relative error of `compared` against `measured`.
double relativeError(double compared, double measured) { return compared / measured - 1; }

/// Every pair of points of one ranking whose measured times differ by more than the margin.
std::vector<FidelityRankingPair> rankingPairs(const std::vector<FidelityPointResult> &results, double margin) {
  std::vector<FidelityRankingPair> pairs;
  for (size_t a = 0; a < results.size(); ++a)
    for (size_t b = 0; b < results.size(); ++b) {
      const FidelityPoint &pa = results[a].point, &pb = results[b].point;
      if (pa.ranking.empty() || pa.ranking != pb.ranking || !(pa.measuredUs < pb.measuredUs)) continue;
      const double measuredRatio = pb.measuredUs / pa.measuredUs;
      if (measuredRatio <= 1 + margin) continue;
      FidelityRankingPair pair{pa.ranking, pa.id, pb.id, measuredRatio, results[b].comparedUs / results[a].comparedUs};
      pair.reproduced = pair.simulatedRatio > 1;
      pairs.push_back(pair);
    }
  return pairs;
}

} // namespace

fs::path defaultFidelityPoints() { return fs::path(TESSERA_FIDELITY_POINTS); }

FidelitySuite readFidelitySuite(const fs::path &file) {
  FidelitySuite suite;
  suite.file = file;
  const std::string text = readTextFile(file);
  toml::table root;
  try {
    root = toml::parse(text, file.string());
  } catch (const toml::parse_error &e) {
    throw InputError(fmt::format("cannot read fidelity suite '{}': {}", file.string(), e.description()));
  }
  if (const toml::table *s = root["suite"].as_table()) {
    const Fields f(*s, fmt::format("{} [suite]", file.string()));
    suite.tolerance = f.number("tolerance", suite.tolerance);
    suite.holdoutTolerance = f.number("holdout_tolerance", suite.holdoutTolerance);
    suite.rankingMargin = f.number("ranking_margin", suite.rankingMargin);
    for (double v : {suite.tolerance, suite.holdoutTolerance, suite.rankingMargin})
      if (!(v > 0) || !std::isfinite(v)) throw f.error("tolerance, holdout_tolerance and ranking_margin must be > 0");
  }
  const toml::array *points = root["point"].as_array();
  if (!points || points->empty())
    throw InputError(fmt::format("fidelity suite '{}' has no [[point]]", file.string()), {},
                     "see bench/fidelity/points.toml");
  std::set<std::string> ids;
  for (size_t i = 0; i < points->size(); ++i) {
    const toml::table *t = (*points)[i].as_table();
    const std::string where = fmt::format("{} [[point]] #{}", file.string(), i + 1);
    if (!t) throw InputError(where + ": not a table");
    FidelityPoint p = readPoint(*t, where);
    if (!ids.insert(p.id).second) throw InputError(fmt::format("{}: the id '{}' is used twice", where, p.id));
    suite.points.push_back(std::move(p));
  }
  if (const toml::array *fits = root["fit"].as_array())
    for (size_t i = 0; i < fits->size(); ++i) {
      const std::string where = fmt::format("{} [[fit]] #{}", file.string(), i + 1);
      const toml::table *t = (*fits)[i].as_table();
      if (!t) throw InputError(where + ": not a table");
      const Fields f(*t, where);
      FidelityFitSpec spec{f.text("target"), f.text("coefficient"), f.number("prior", 0.0)};
      if (!(spec.prior >= 0) || !std::isfinite(spec.prior))
        throw f.error("prior must be a number >= 0 (0: the file's value)");
      const bool fitted = std::any_of(suite.points.begin(), suite.points.end(),
                                      [&](const FidelityPoint &p) { return p.target == spec.target && p.fit; });
      if (!fitted) throw f.error(fmt::format("no point of target '{}' may be fitted", spec.target));
      suite.fits.push_back(spec);
    }
  return suite;
}

FidelityReport runFidelity(const FidelitySuite &suite, const FidelityOptions &options) {
  FidelityReport report;
  report.suite = suite;
  report.holdout = options.holdout;
  std::set<std::string> fittedTargets;
  for (const FidelityFitSpec &f : suite.fits) fittedTargets.insert(f.target);
  // Whether a point's program is kept for the fits (the others are dropped once simulated: some are large).
  auto kept = [&](const FidelityPoint &p) { return options.holdout && p.fit && fittedTargets.count(p.target); };

  const size_t n = suite.points.size();
  std::vector<FidelityPointResult> results(n);
  std::vector<std::optional<isa::Program>> programs(n);
  std::vector<std::exception_ptr> failures(n);
  parallelFor(n, options.jobs, [&](size_t i) {
    try {
      const FidelityPoint &p = suite.points[i];
      RunRequest request;
      request.kernel = p.kernel;
      request.target = p.target;
      request.shape = p.shape;
      request.kernelParams = p.kernelParams;
      request.timingOnly = true;
      request.checks = false;
      isa::Program program = compileKernel(request).compiled.program;
      sim::HbmImage none;
      const isa::Target target = loadTarget(p.target);
      FidelityPointResult &r = results[i];
      r.point = p;
      r.simulatedUs =
          simulateWithinLimits(program, target, none, {.computeValues = false, .checks = false}).timeNs / 1000.0;
      r.comparedUs = r.simulatedUs + p.overheadUs;
      r.error = relativeError(r.comparedUs, p.measuredUs);
      r.within = std::abs(r.error) <= suite.tolerance;
      if (kept(p)) programs[i] = std::move(program);
    } catch (...) {
      failures[i] = std::current_exception();
    }
  });
  for (size_t i = 0; i < n; ++i)
    if (failures[i]) {
      try {
        std::rethrow_exception(failures[i]);
      } catch (const Error &e) {
        throw InputError(fmt::format("fidelity point '{}' ({} on {}): {}", suite.points[i].id, suite.points[i].kernel,
                                     suite.points[i].target, e.message()),
                         e.where(), e.hint());
      }
    }

  report.allWithin = true;
  for (const FidelityPointResult &r : results) {
    report.meanAbsError += std::abs(r.error) / static_cast<double>(n);
    report.maxAbsError = std::max(report.maxAbsError, std::abs(r.error));
    report.allWithin = report.allWithin && r.within;
  }
  report.rankings = rankingPairs(results, suite.rankingMargin);
  report.rankingsReproduced = std::all_of(report.rankings.begin(), report.rankings.end(),
                                          [](const FidelityRankingPair &p) { return p.reproduced; });

  if (options.holdout) {
    // One fit per target, of all the coefficients the suite fits on it, to the target's fittable points.
    for (const std::string &target : fittedTargets) {
      std::vector<std::string> names;
      std::vector<double> priors;
      for (const FidelityFitSpec &f : suite.fits)
        if (f.target == target) {
          names.push_back(f.coefficient);
          priors.push_back(f.prior);
        }
      std::vector<size_t> members;
      std::vector<FitSample> samples;
      for (size_t i = 0; i < n; ++i)
        if (programs[i] && suite.points[i].target == target) {
          members.push_back(i);
          samples.push_back({std::move(*programs[i]), suite.points[i].measuredUs, suite.points[i].overheadUs});
        }
      const isa::Target base = loadTarget(target);
      const std::string text = readTextFile(base.file);
      std::vector<Coefficient> coefficients = coefficientsOf(text, base.file.string(), names);
      for (size_t c = 0; c < coefficients.size(); ++c) coefficients[c].prior = priors[c];
      const CoefficientFit fit(base, text, std::move(coefficients), std::move(samples), options.jobs);
      const FitResult all = fit.fit();
      for (size_t c = 0; c < names.size(); ++c) {
        const double file = fit.coefficients()[c].before;
        const bool current = std::abs(all.values[c] / file - 1) <= kFitCurrentTolerance;
        report.fits.push_back({{target, names[c]}, file, all.values[c], all.determined[c], members.size(), current});
        report.fitsCurrent = report.fitsCurrent && current;
      }
      const std::vector<double> predicted = fit.leaveOneOut();
      for (size_t k = 0; k < members.size(); ++k) results[members[k]].holdoutUs = predicted[k];
    }
    // A point no fit used was never fitted to: its own error is out of sample.
    for (FidelityPointResult &r : results) {
      const double compared = r.holdoutUs.value_or(r.comparedUs);
      r.holdoutError = relativeError(compared, r.point.measuredUs);
      report.meanAbsHoldoutError += std::abs(*r.holdoutError) / static_cast<double>(n);
      report.maxAbsHoldoutError = std::max(report.maxAbsHoldoutError, std::abs(*r.holdoutError));
      report.holdoutWithin = report.holdoutWithin && std::abs(*r.holdoutError) <= suite.holdoutTolerance;
    }
  }
  report.points = std::move(results);
  return report;
}

} // namespace tessera::driver
