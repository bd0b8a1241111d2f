#pragma once
/// \file
/// `tessera fidelity`: the simulator against every published hardware measurement of a kernel whose code is
/// public (bench/fidelity/points.toml: NKI tutorials and guides on trn1/trn2, the JAX Pallas TPU guide on v5e). Each
/// point names a Tessera kernel, its shape and parameters, the target, the measured time and its source; the suite
/// compiles and simulates each one (timing only) and compares: the ratio simulated / measured per point (a point
/// fails beyond the suite's tolerance), the mean and largest error, and whether every ranking of variants the
/// sources publish comes out in the same order. With holdout, each coefficient the suite fits ([[fit]]: one key of
/// one target file, fitted with CoefficientFit.h, the code `tessera calibrate` uses) is refitted to all its
/// points and, for each point, to every other point: the leave-one-out prediction is that point's hold-out error.
/// docs/fidelity.md holds the table this produces and what each remaining error is blamed on.

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tessera::driver {

/// One published measurement and the Tessera kernel that reproduces it (the fields of a [[point]]).
struct FidelityPoint {
  std::string id, kernel, target;
  std::map<std::string, int64_t> shape, kernelParams;
  std::string dtype, instance;
  double measuredUs = 0;
  double overheadUs = 0; ///< time the measurement adds to the kernel's own, added to the simulated time
  std::string measuredBy, source, sourceRef, published, differs;
  std::string ranking; ///< the variants compared with it: points sharing this name; empty: none
  bool fit = true;     ///< may be used to fit coefficients
};

/// A coefficient the suite fits: `coefficient` ("table.key") of target `target`, on that target's points, from
/// `prior` (its value without the fit: an assumption or a figure of another machine; 0: the file's value).
struct FidelityFitSpec {
  std::string target, coefficient;
  double prior = 0;
};

struct FidelitySuite {
  std::filesystem::path file;
  double tolerance = 0.15;        ///< |simulated / measured - 1| above this fails a point
  double holdoutTolerance = 0.20; ///< a leave-one-out error above this fails the hold-out goal
  double rankingMargin = 0.10;    ///< measured times closer than this (relative) are not a published ranking
  std::vector<FidelityPoint> points;
  std::vector<FidelityFitSpec> fits;
};

/// The repository's suite (bench/fidelity/points.toml of the source tree Tessera was built from).
std::filesystem::path defaultFidelityPoints();

/// Reads a suite file. InputError (exit 2) naming the file and the point for a missing or mistyped field, a
/// duplicate id, a non-positive time or tolerance, or a [[fit]] whose target has no point.
FidelitySuite readFidelitySuite(const std::filesystem::path &file);

/// One point's outcome.
struct FidelityPointResult {
  FidelityPoint point;
  double simulatedUs = 0;             ///< the kernel's simulated time
  double comparedUs = 0;              ///< simulatedUs + point.overheadUs: what is compared with measuredUs
  double error = 0;                   ///< comparedUs / measuredUs - 1
  bool within = false;                ///< |error| <= the suite's tolerance
  std::optional<double> holdoutUs;    ///< leave-one-out prediction (overhead added), when computed
  std::optional<double> holdoutError; ///< holdoutUs / measuredUs - 1
};

/// One published ranking: a pair of variants whose measured times differ by more than the margin, and whether the
/// simulation orders them the same way.
struct FidelityRankingPair {
  std::string ranking, faster, slower; ///< ids: faster is the one measured faster
  double measuredRatio = 0;            ///< slower's measured time / faster's
  double simulatedRatio = 0;           ///< the same with the compared (simulated) times
  bool reproduced = false;
};

/// A fitted coefficient: the target file's value and the value fitted to all the target's points.
struct FidelityFitResult {
  FidelityFitSpec spec;
  double fileValue = 0, fittedValue = 0;
  bool determined = false; ///< whether its points' times depend on it at all
  size_t samples = 0;      ///< points it was fitted to
  /// Whether the file holds the fitted value (within kFitCurrentTolerance): a model change that moves the fit
  /// leaves the file stale until it is refitted.
  bool current = false;
};

/// How far (relative) a target file's value may be from the suite's fit of it and still count as that fit.
inline constexpr double kFitCurrentTolerance = 0.02;

struct FidelityReport {
  FidelitySuite suite;
  std::vector<FidelityPointResult> points;
  std::vector<FidelityRankingPair> rankings;
  std::vector<FidelityFitResult> fits; ///< empty unless hold-out errors were computed
  double meanAbsError = 0, maxAbsError = 0;
  bool allWithin = false, rankingsReproduced = false;
  bool holdout = false; ///< whether hold-out errors were computed
  double meanAbsHoldoutError = 0, maxAbsHoldoutError = 0;
  bool holdoutWithin = true; ///< every hold-out error within the suite's holdoutTolerance
  bool fitsCurrent = true;   ///< every fitted coefficient's file value is its fit (FidelityFitResult)
};

struct FidelityOptions {
  unsigned jobs = 1;    ///< points simulated at once
  bool holdout = false; ///< also fit the suite's coefficients and compute leave-one-out errors
};

/// Compiles and simulates every point of `suite` (timing only), compares, and checks the rankings.
FidelityReport runFidelity(const FidelitySuite &suite, const FidelityOptions &options);

} // namespace tessera::driver
