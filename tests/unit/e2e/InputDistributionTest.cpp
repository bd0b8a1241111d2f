// --input-dist: how a run draws the inputs no file gives (issue 21: "the random inputs' distribution is neither
// documented nor settable"). The draws follow the distribution asked for, the JSON records it, and a distribution an
// input's dtype cannot hold is refused before the run.

#include "tessera/Driver.h"
#include "tessera/Report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace {

using namespace tessera;
using driver::InputDistribution;

std::string parseError(const std::string &text) {
  try {
    InputDistribution::parse(text);
  } catch (const driver::InputError &e) {
    return e.message();
  }
  return "accepted";
}

TEST(InputDistribution, ParsesTheFourFormsAndRefusesTheRest) {
  EXPECT_EQ(InputDistribution::parse("uniform").describe(), "uniform [-1, 1)");
  EXPECT_EQ(InputDistribution::parse("range:2,3.5").describe(), "uniform [2, 3.5)");
  EXPECT_EQ(InputDistribution::parse("normal").describe(), "normal (mean 0, sd 1)");
  EXPECT_EQ(InputDistribution::parse("normal:-1,0.25").describe(), "normal (mean -1, sd 0.25)");
  EXPECT_EQ(parseError("gauss"),
            "--input-dist gauss: expected uniform, range:LO,HI (uniform in [LO, HI)), normal or normal:MEAN,SD");
  EXPECT_EQ(parseError("range"), "--input-dist range: range needs its ends, range:LO,HI");
  EXPECT_EQ(parseError("range:1"), "--input-dist range:1: expected uniform, range:LO,HI (uniform in [LO, HI)), "
                                   "normal or normal:MEAN,SD, with two numbers after the colon");
  EXPECT_EQ(parseError("range:3,2"), "--input-dist range:3,2: the range's low end must be below its high end");
  // Both ends are finite FP32 numbers, their difference is not: the draws were inf and NaN.
  EXPECT_EQ(parseError("range:-3e38,3e38"),
            "--input-dist range:-3e38,3e38: the range is wider than FP32 holds (3.4028235e+38 at most)");
  EXPECT_EQ(InputDistribution::parse("range:-1e38,1e38").describe(), "uniform [-1e+38, 1e+38)");
  EXPECT_EQ(parseError("normal:0,0"), "--input-dist normal:0,0: the standard deviation must be positive");
  EXPECT_EQ(parseError("uniform:0,1"),
            "--input-dist uniform:0,1: expected uniform, range:LO,HI (uniform in [LO, HI)), normal or normal:MEAN,SD");
}

/// The inputs of `add` (f32) drawn with `dist`, all of them in one vector.
std::vector<float> inputsOfAdd(const std::string &dist, nlohmann::json *json = nullptr) {
  const driver::RunReport r =
      driver::runKernel({.kernel = "add", .target = "trn2", .inputDist = InputDistribution::parse(dist)});
  EXPECT_TRUE(r.ok);
  if (json) *json = driver::toJson(r);
  std::vector<float> all;
  for (const auto &[name, array] : r.inputs) all.insert(all.end(), array.values.begin(), array.values.end());
  return all;
}

TEST(InputDistribution, DrawsFollowIt) {
  nlohmann::json j;
  const std::vector<float> range = inputsOfAdd("range:2,3", &j);
  ASSERT_FALSE(range.empty());
  for (float v : range) ASSERT_TRUE(v >= 2.0f && v < 3.0f) << v;
  EXPECT_EQ(j["inputs"]["distribution"], "uniform [2, 3)");
  EXPECT_EQ(j["inputs"]["seed"], 0);

  const std::vector<float> normal = inputsOfAdd("normal:5,2");
  double sum = 0, squares = 0;
  for (float v : normal) sum += v, squares += double(v) * v;
  const double n = double(normal.size()), mean = sum / n, sd = std::sqrt(squares / n - mean * mean);
  // Five standard errors: the test fails by chance about once in two million runs (and the seed is fixed).
  EXPECT_NEAR(mean, 5.0, 5 * 2.0 / std::sqrt(n));
  EXPECT_NEAR(sd, 2.0, 5 * 2.0 / std::sqrt(2 * n));
}

TEST(InputDistribution, AWiderOneThanAnInputsDtypeHoldsIsRefused) {
  try {
    driver::runKernel(
        {.kernel = "matmul_fp8", .target = "trn2", .inputDist = InputDistribution::parse("normal:0,100")});
    ADD_FAILURE() << "not refused";
  } catch (const driver::InputError &e) {
    EXPECT_EQ(e.message(), "--input-dist normal (mean 0, sd 100): input 'a_t' is f8e4m3, whose largest "
                                     "finite value is 448, and draws reach 600");
  }
}

/// `dist`'s first `n` draws from `seed`, taken by InputDraws in chunks of uneven sizes (as makeInputs takes them,
/// tensor by tensor) and by the standard library's distribution in one loop.
std::pair<std::vector<float>, std::vector<float>> drawsBothWays(const std::string &dist, uint64_t seed, size_t n) {
  const InputDistribution d = InputDistribution::parse(dist);
  std::vector<float> ours(n), theirs(n);
  driver::InputDraws draws(d, seed);
  for (size_t at = 0, chunk = 1; at < n; at += chunk, chunk = chunk * 3 + 1)
    draws.fill(std::span(ours).subspan(at, std::min(chunk, n - at)));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(static_cast<float>(d.a), static_cast<float>(d.b));
  std::normal_distribution<float> normal(static_cast<float>(d.a), static_cast<float>(d.b));
  for (float &v : theirs) v = d.kind == InputDistribution::Kind::Normal ? normal(rng) : uniform(rng);
  return {ours, theirs};
}

#ifdef __GLIBCXX__
/// An engine of mt19937_64's range that returns one chosen number.
struct Fixed {
  using result_type = uint64_t;
  uint64_t value;
  static constexpr uint64_t min() { return 0; }
  static constexpr uint64_t max() { return std::numeric_limits<uint64_t>::max(); }
  uint64_t operator()() const { return value; }
};

// The paths random draws almost never take: a tie or a sticky bit below the float's 24 bits with the top bit set
// (the branchless conversion halves those numbers), and the numbers that round up to 2^64 (kept below 1).
TEST(InputDistribution, CanonicalValueIsTheStandardLibrarysOnItsRarePaths) {
  const uint64_t top = uint64_t{1} << 63, half = uint64_t{1} << 39; // half a unit of the last place above 2^63
  const uint64_t low = uint64_t{1} << 40; // below the top bit: converted directly
  std::vector<uint64_t> numbers = {0, 1, top - 1, top, top + half, top + half + 1, top + 3 * half,
                                   top + 3 * half - 1, ~uint64_t{0} - half, ~uint64_t{0} - half + 1, ~uint64_t{0},
                                   low + (uint64_t{1} << 16), low + 3 * (uint64_t{1} << 15)};
  std::mt19937_64 rng(9);
  for (int i = 0; i < 4096; ++i) { // random high bits, low 40 bits a tie, a tie plus a sticky bit, or all ones
    const uint64_t high = rng() & ~((uint64_t{1} << 40) - 1);
    numbers.insert(numbers.end(), {high | half, high | half | 1, high | (half - 1), high | ((uint64_t{1} << 40) - 1)});
  }
  for (uint64_t x : numbers) {
    Fixed engine{x};
    ASSERT_EQ(driver::InputDraws::canonical(x), (std::generate_canonical<float, 24>(engine))) << x;
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    ASSERT_EQ(driver::InputDraws::canonical(x) * 2.0f + -1.0f, uniform(engine)) << x;
  }
}

// The fast uniform draw is libstdc++'s uniform_real_distribution<float> over mt19937_64 without its logarithms: a
// seed gives the inputs it gave before, draw for draw (bit for bit: EXPECT_EQ on floats).
TEST(InputDistribution, DrawsAreTheStandardLibrarysDrawForDraw) {
  for (const char *dist : {"uniform", "range:2,3.5", "range:-1e-3,7", "normal:-1,0.25"})
    for (uint64_t seed : {0u, 1u, 12345u}) {
      const auto [ours, theirs] = drawsBothWays(dist, seed, size_t{1} << 20);
      for (size_t i = 0; i < ours.size(); ++i)
        ASSERT_EQ(ours[i], theirs[i]) << dist << ", seed " << seed << ", draw " << i;
    }
}
#endif

} // namespace
