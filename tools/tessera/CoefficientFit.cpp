#include "tessera/CoefficientFit.h"

#include "tessera/Calibrate.h"
#include "tessera/Driver.h"
#include "tessera/ParallelFor.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <map>
#include <numeric>

namespace tessera::driver {
namespace {

/// Golden-section steps per coefficient (the bracket, a factor kSearchFactor^2 wide, shrinks to 0.05% of it in log
/// space) and rounds over all coefficients (one when there is one coefficient: another would find the same).
constexpr int kSectionSteps = 16, kRounds = 3;
/// A coefficient whose change by kProbeFactor moves no sample's time by more than this fraction is undetermined.
constexpr double kProbeFactor = 2, kInsensitive = 1e-9;

/// A float TOML reads back as a float (with a point or an exponent), to four significant digits.
std::string tomlFloat(double v) {
  std::string text = fmt::format("{:.4g}", v);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

} // namespace

std::vector<Coefficient> coefficientsOf(const std::string &text, const std::string &file,
                                        const std::vector<std::string> &names) {
  toml::table root;
  try {
    root = toml::parse(text, file);
  } catch (const toml::parse_error &e) {
    throw InputError(fmt::format("cannot read target file '{}': {}", file, e.description()));
  }
  std::vector<Coefficient> coefficients;
  for (const std::string &name : names) {
    const size_t dot = name.find('.');
    if (dot == std::string::npos)
      throw InputError(fmt::format("--fit: '{}' is not TABLE.KEY", name), {}, "e.g. --fit dma.fixed_latency_ns");
    Coefficient coefficient{name.substr(0, dot), name.substr(dot + 1)};
    const toml::node *node = root.at_path(name).node();
    if (!node || !(node->is_integer() || node->is_floating_point()))
      throw InputError(fmt::format("--fit: the target file '{}' has no number '{}'", file, name));
    coefficient.integer = node->is_integer();
    coefficient.before = coefficient.after = node->value<double>().value_or(0);
    coefficients.push_back(coefficient);
  }
  return coefficients;
}

CoefficientFit::CoefficientFit(isa::Target base, std::string text, std::vector<Coefficient> coefficients,
                               std::vector<FitSample> samples, unsigned jobs)
    : base_(std::move(base)), text_(std::move(text)), coefficients_(std::move(coefficients)),
      samples_(std::move(samples)), jobs_(std::max(1u, jobs)) {}

std::vector<double> CoefficientFit::fileValues() const {
  std::vector<double> values;
  for (const Coefficient &c : coefficients_) values.push_back(c.before);
  return values;
}

std::vector<size_t> CoefficientFit::all() const {
  std::vector<size_t> indices(samples_.size());
  std::iota(indices.begin(), indices.end(), size_t{0});
  return indices;
}

std::string CoefficientFit::textWith(const std::vector<double> &values,
                                     const std::vector<std::string> &comments) const {
  std::string text = text_;
  for (size_t i = 0; i < coefficients_.size(); ++i) {
    const Coefficient &c = coefficients_[i];
    const std::string value =
        c.integer ? fmt::format("{}", static_cast<int64_t>(std::llround(values[i]))) : tomlFloat(values[i]);
    text = setTomlValue(text, c.table, c.key, value, i < comments.size() ? comments[i] : std::string());
  }
  return text;
}

std::vector<double> CoefficientFit::times(const std::vector<double> &values, const std::vector<size_t> &subset) const {
  const std::vector<size_t> indices = subset.empty() ? all() : subset;
  const isa::Target target = isa::Target::parse(textWith(values), base_.file);
  std::vector<double> us(indices.size());
  std::exception_ptr failure;
  parallelFor(indices.size(), jobs_, [&](size_t k) {
    try {
      const FitSample &s = samples_[indices[k]];
      sim::HbmImage none;
      us[k] = simulateWithinLimits(s.program, target, none, {.computeValues = false, .checks = false}).timeNs / 1000.0 +
              s.overheadUs;
    } catch (...) {
      failure = std::current_exception(); // the last one wins: any is enough to report
    }
  });
  if (failure) std::rethrow_exception(failure);
  return us;
}

double CoefficientFit::error(const std::vector<double> &values, const std::vector<size_t> &subset) const {
  const std::vector<size_t> indices = subset.empty() ? all() : subset;
  const std::vector<double> us = times(values, indices);
  double sum = 0;
  for (size_t k = 0; k < us.size(); ++k) {
    const double r = std::log(std::max(us[k], 1e-9) / samples_[indices[k]].measuredUs);
    sum += r * r;
  }
  return us.empty() ? 0 : std::sqrt(sum / static_cast<double>(us.size()));
}

double CoefficientFit::objective(const std::vector<double> &values, const std::vector<size_t> &subset) const {
  const double e = error(values, subset);
  double pull = 0;
  for (size_t i = 0; i < coefficients_.size(); ++i)
    if (coefficients_[i].start() > 0) pull += std::pow(std::log(values[i] / coefficients_[i].start()), 2);
  return e * e + kPriorWeight * pull;
}

FitResult CoefficientFit::fit(const std::vector<size_t> &subset) const {
  const std::vector<size_t> indices = subset.empty() ? all() : subset;
  FitResult result{{}, std::vector<bool>(coefficients_.size(), false)};
  std::vector<double> &values = result.values;
  for (const Coefficient &c : coefficients_) values.push_back(c.start());
  const std::vector<double> start = times(values, indices);
  for (size_t i = 0; i < coefficients_.size(); ++i) {
    std::vector<double> probe = values;
    probe[i] = values[i] * kProbeFactor;
    const std::vector<double> moved = times(probe, indices);
    bool sensitive = false;
    for (size_t r = 0; r < start.size(); ++r)
      sensitive |= std::abs(moved[r] - start[r]) > kInsensitive * std::max(1.0, start[r]);
    result.determined[i] = sensitive && values[i] > 0;
    if (!result.determined[i]) values[i] = coefficients_[i].before; // undetermined: the file's value stands
  }
  const double phi = (std::sqrt(5.0) - 1) / 2;
  // The objective of each value set tried: the searches and the final comparisons come back to some of them.
  std::map<std::vector<double>, double> tried;
  auto objectiveAt = [&](const std::vector<double> &v) {
    auto [it, added] = tried.try_emplace(v, 0.0);
    if (added) it->second = objective(v, indices);
    return it->second;
  };
  const int rounds = coefficients_.size() == 1 ? 1 : kRounds;
  for (int round = 0; round < rounds; ++round)
    for (size_t i = 0; i < coefficients_.size(); ++i) {
      if (!result.determined[i]) continue;
      const double centre = coefficients_[i].start();
      double lo = std::log(centre / kSearchFactor), hi = std::log(centre * kSearchFactor);
      auto at = [&](double logValue) {
        std::vector<double> v = values;
        v[i] = std::exp(logValue);
        if (coefficients_[i].integer) v[i] = std::max(1.0, std::round(v[i]));
        return objectiveAt(v);
      };
      double a = hi - phi * (hi - lo), b = lo + phi * (hi - lo), fa = at(a), fb = at(b);
      for (int step = 0; step < kSectionSteps; ++step) {
        if (fa < fb) {
          hi = b, b = a, fb = fa, a = hi - phi * (hi - lo), fa = at(a);
        } else {
          lo = a, a = b, fa = fb, b = lo + phi * (hi - lo), fb = at(b);
        }
      }
      double best = std::exp((lo + hi) / 2);
      if (coefficients_[i].integer) best = std::max(1.0, std::round(best));
      std::vector<double> candidate = values;
      candidate[i] = best;
      if (objectiveAt(candidate) <= objectiveAt(values)) values = candidate;
    }
  return result;
}

std::vector<double> CoefficientFit::leaveOneOut() const {
  std::vector<double> predicted;
  for (size_t out = 0; out < samples_.size(); ++out) {
    std::vector<size_t> rest;
    for (size_t i = 0; i < samples_.size(); ++i)
      if (i != out) rest.push_back(i);
    // With no other sample there is nothing to fit: the file's values predict it.
    const std::vector<double> values = rest.empty() ? fileValues() : fit(rest).values;
    predicted.push_back(times(values, {out}).front());
  }
  return predicted;
}

} // namespace tessera::driver
