#pragma once
/// \file
/// How a run draws the kernel's inputs when no file gives them (`--input-dist`): uniform in [-1, 1) by default,
/// uniform in another range, or normal. The draws come from the run's seed (mt19937_64) and are rounded to each
/// input's dtype.

#include <cstdint>
#include <random>
#include <span>
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

/// The draws of one run: a stream of numbers from `dist` seeded by the run's seed. Uniform draws take one engine
/// output each: the canonical value float(x) * 2^-64 (kept below 1), scaled and shifted in float (compiled without
/// FMA contraction), which is what libstdc++'s std::uniform_real_distribution<float> computes over std::mt19937_64
/// (InputDistributionTest checks it draw for draw), the same for a seed on every host. Normal draws are the
/// standard library's std::normal_distribution's (another library's may differ).
class InputDraws {
public:
  InputDraws(const InputDistribution &dist, uint64_t seed);
  /// The next `out.size()` draws, in order.
  void fill(std::span<float> out);
  /// The uniform draw's value in [0, 1) for the engine output `x`: libstdc++'s generate_canonical<float, 24>.
  static float canonical(uint64_t x);

private:
  std::mt19937_64 rng_;
  bool normal_;
  float low_, width_;
  std::normal_distribution<float> gaussian_;
};

} // namespace tessera::driver
