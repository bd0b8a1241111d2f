#pragma once
/// \file
/// How a run draws the kernel's inputs when no file gives them (`--input-dist`): uniform in [-1, 1) by default,
/// uniform in another range, or normal. The draws come from the run's seed (mt19937_64) and are rounded to each
/// input's dtype.

#include <string>
#include <string_view>

namespace tessera::driver {

struct InputDistribution {
  enum class Kind { Uniform, Normal };
  Kind kind = Kind::Uniform;
  double a = -1.0, b = 1.0; ///< Uniform: [a, b); Normal: mean a, standard deviation b

  /// "uniform", "range:LO,HI" (uniform in [LO, HI)), "normal" (mean 0, standard deviation 1) or
  /// "normal:MEAN,SD"; an InputError saying what is expected otherwise.
  static InputDistribution parse(std::string_view text);
  /// "uniform [-1, 1)", "normal (mean 0, sd 1)": what the report and the JSON say.
  std::string describe() const;
  /// The largest magnitude a draw can be expected to have: the range's ends, or six standard deviations past the
  /// mean (a draw beyond them has a chance of about 2e-9).
  double largestMagnitude() const;
};

} // namespace tessera::driver
