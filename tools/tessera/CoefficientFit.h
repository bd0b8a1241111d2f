#pragma once
/// \file
/// Fitting a target's cost coefficients to measured times: the one fit behind `tessera calibrate` (times a device
/// measured, Calibrate.h) and `tessera fidelity` (published measurements, with leave-one-out hold-out errors,
/// Fidelity.h). The programs are compiled once; a candidate set of coefficient values re-times every one of them
/// (timing only) on the base target file with those values written in (setTomlValue). The fit minimises
///   mean over the samples of ln(simulated / measured)^2  +  kPriorWeight x sum over the coefficients of
///   ln(value / prior)^2
/// by coordinate descent from the priors (Coefficient::start: the file's values unless a prior is given): a
/// golden-section search of each coefficient in log space, a factor kSearchFactor either way of its prior, a few
/// rounds. The small pull towards the prior keeps a coefficient that the samples leave free (its times flat over
/// a range) at the end of that range nearest its sourced or assumed value, instead of anywhere in it, and makes
/// the fit independent of the value the file holds now (so refitting a file that holds its fit finds it again); a
/// coefficient no sample's time depends on at all keeps its file value and is reported as undetermined.

#include "tessera/isa/Program.h"
#include "tessera/isa/Target.h"

#include <cstddef>
#include <string>
#include <vector>

namespace tessera::driver {

/// A cost coefficient: a numeric key of a target file's table ("dma", "fixed_latency_ns").
struct Coefficient {
  std::string table, key;
  double before = 0, after = 0; ///< its value in the file, and fitted
  /// Where a fit starts, centres its search and pulls towards: the value the coefficient has without the fit (a
  /// published figure or an assumption). 0: `before`.
  double prior = 0;
  double start() const { return prior > 0 ? prior : before; }
  bool integer = false;   ///< the file holds an integer (cycles); fitted values are rounded
  bool determined = true; ///< false: no sample's time depends on it, so it kept its value
  std::string name() const { return table + "." + key; }
};

/// The coefficients `names` ("table.key") of the target file `text` (read from `file`, named in errors), with
/// their values there. InputError for a name that is not TABLE.KEY or not a number of the file.
std::vector<Coefficient> coefficientsOf(const std::string &text, const std::string &file,
                                        const std::vector<std::string> &names);

/// One measured time of a compiled program.
struct FitSample {
  isa::Program program;
  double measuredUs = 0;
  double overheadUs = 0; ///< time the measurement adds to the kernel's (host dispatch), added to the simulated one
};

/// The values a fit found, and which coefficients the samples it used determine.
struct FitResult {
  std::vector<double> values;
  std::vector<bool> determined;
};

class CoefficientFit {
public:
  /// How far a coefficient may move: a factor of this either way from the file's value.
  static constexpr double kSearchFactor = 16;
  /// Weight of the pull towards the priors (per coefficient, on ln(value / prior)^2): small enough that an error of
  /// 0.01% on one sample outweighs moving a coefficient by a factor e, so that it decides only where the samples'
  /// times are flat.
  static constexpr double kPriorWeight = 1e-8;

  /// `text` is the base target file's text, `coefficients` the ones to fit (their `before` is the file's value).
  CoefficientFit(isa::Target base, std::string text, std::vector<Coefficient> coefficients,
                 std::vector<FitSample> samples, unsigned jobs = 1);

  const std::vector<Coefficient> &coefficients() const { return coefficients_; }
  size_t samples() const { return samples_.size(); }
  /// The coefficients' values in the file.
  std::vector<double> fileValues() const;

  /// The target file with the coefficients at `values`, coefficient i's line commented with `comments[i]` when
  /// there is a non-empty one (its source comment kept after it).
  std::string textWith(const std::vector<double> &values, const std::vector<std::string> &comments = {}) const;
  /// Simulated time, overhead added, of each sample in `subset` (every sample when empty), in microseconds.
  std::vector<double> times(const std::vector<double> &values, const std::vector<size_t> &subset = {}) const;
  /// Root mean square of ln(simulated / measured) over `subset` (every sample when empty).
  double error(const std::vector<double> &values, const std::vector<size_t> &subset = {}) const;

  /// Fits the coefficients to the samples in `subset` (every sample when empty).
  FitResult fit(const std::vector<size_t> &subset = {}) const;
  /// For each sample i: its simulated time (overhead added) with the coefficients fitted to every other sample.
  std::vector<double> leaveOneOut() const;

private:
  double objective(const std::vector<double> &values, const std::vector<size_t> &subset) const;
  std::vector<size_t> all() const;

  isa::Target base_;
  std::string text_;
  std::vector<Coefficient> coefficients_;
  std::vector<FitSample> samples_;
  unsigned jobs_;
};

} // namespace tessera::driver
