// tessera fidelity (tools/tessera/Fidelity.h): the repository's suite reads and covers both families; a suite's
// comparison, rankings and tolerances on small points; the hold-out fit on "measurements" made by simulating a
// copy of trn1 with another descriptor cost (so the answer is known), which it must recover with no hold-out error;
// and suite files that are not right.

#include "tessera/Fidelity.h"
#include "tessera/Calibrate.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

namespace {

using namespace tessera;
using namespace tessera::driver;
namespace fs = std::filesystem;

class FidelityTest : public testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tessera-fidelity-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  /// A [[point]] of matmul_tiled on `target` at M x N x K measured at `us`, in ranking "r".
  static std::string point(const std::string &id, const std::string &target, int64_t m, int64_t n, int64_t k, double us,
                           const std::string &kernel = "matmul_tiled") {
    return fmt::format(R"([[point]]
id = "{}"
kernel = "{}"
target = "{}"
shape = {{ M = {}, N = {}, K = {} }}
dtype = "bf16"
instance = "a test"
measured_us = {}
measured_by = "simulated"
source = "https://example.org"
source_ref = "FidelityTest.cpp"
published = "{}"
differs = "none"
ranking = "r"

)",
                       id, kernel, target, m, n, k, us, kernel);
  }

  fs::path write(const std::string &name, const std::string &text) {
    const fs::path file = dir_ / name;
    std::ofstream(file) << text;
    return file;
  }

  static double simulatedUs(const std::string &kernel, const std::string &target, int64_t m, int64_t n, int64_t k) {
    RunRequest request{.kernel = kernel, .target = target, .shape = {{"M", m}, {"N", n}, {"K", k}}, .timingOnly = true};
    return runKernel(request).timeUs();
  }

  fs::path dir_;
};

TEST_F(FidelityTest, TheRepositorySuiteHasTwelvePointsOfBothFamiliesWithSources) {
  const FidelitySuite suite = readFidelitySuite(defaultFidelityPoints());
  EXPECT_GE(suite.points.size(), 12u);
  std::set<std::string> families;
  for (const FidelityPoint &p : suite.points) {
    families.insert(loadTarget(p.target).family);
    EXPECT_EQ(p.source.rfind("https://", 0), 0u) << p.id;
    EXPECT_FALSE(p.sourceRef.empty()) << p.id;
    EXPECT_FALSE(p.measuredBy.empty()) << p.id;
  }
  EXPECT_EQ(families, (std::set<std::string>{"neuroncore", "tpu"}));
  EXPECT_FALSE(suite.fits.empty());
}

TEST_F(FidelityTest, ComparesEachPointAndChecksTheRankings) {
  const double tiled = simulatedUs("matmul_tiled", "trn1", 256, 1024, 256);
  const double tiledLarger = simulatedUs("matmul_tiled", "trn1", 512, 1024, 256);
  // Measured as simulated, 10% off: within the 15% tolerance, and the larger one slower, as simulated.
  const std::string head = "[suite]\ntolerance = 0.15\n\n";
  FidelityReport r =
      runFidelity(readFidelitySuite(write("ok.toml", head + point("a", "trn1", 256, 1024, 256, tiled * 1.1) +
                                                         point("b", "trn1", 512, 1024, 256, tiledLarger))),
                  {});
  ASSERT_EQ(r.points.size(), 2u);
  EXPECT_NEAR(r.points[0].error, 1 / 1.1 - 1, 1e-6);
  EXPECT_NEAR(r.points[1].error, 0.0, 1e-9);
  EXPECT_TRUE(r.allWithin);
  EXPECT_NEAR(r.maxAbsError, 1 - 1 / 1.1, 1e-6);
  ASSERT_EQ(r.rankings.size(), 1u);
  EXPECT_EQ(r.rankings[0].faster, "a");
  EXPECT_TRUE(r.rankingsReproduced);

  // 30% off fails the point; measuring the larger one as the faster fails the ranking.
  r = runFidelity(readFidelitySuite(write("bad.toml", head + point("a", "trn1", 256, 1024, 256, tiled * 1.3) +
                                                          point("b", "trn1", 512, 1024, 256, tiled))),
                  {});
  EXPECT_FALSE(r.points[0].within);
  EXPECT_FALSE(r.allWithin);
  ASSERT_EQ(r.rankings.size(), 1u);
  EXPECT_EQ(r.rankings[0].faster, "b");
  EXPECT_FALSE(r.rankingsReproduced);
}

TEST_F(FidelityTest, HoldOutRecoversTheCoefficientOfTheMachineThatMeasured) {
  // The "device": trn1 whose DMAs take at least 2000 ns; the suite fits trn1's copy with 1300 ns (named by path).
  const std::string trn1 = readTextFile(loadTarget("trn1").file);
  const fs::path device = write("device.toml", setTomlValue(trn1, "dma", "fixed_latency_ns", "2000.0"));
  const fs::path model = write("model.toml", setTomlValue(trn1, "dma", "fixed_latency_ns", "1300.0"));
  std::string points;
  for (auto [id, m] : std::vector<std::pair<std::string, int64_t>>{{"m128", 128}, {"m256", 256}, {"m384", 384}})
    points += point(id, model.string(), m, 1024, 512, simulatedUs("matmul_tiled", device.string(), m, 1024, 512));
  // From the file's value, and from another prior: the same fit, and no hold-out error.
  for (const std::string prior : {"0.0", "1000.0"}) {
    const std::string text = "[suite]\ntolerance = 0.15\n\n[[fit]]\ntarget = \"" + model.string() +
                             "\"\ncoefficient = \"dma.fixed_latency_ns\"\nprior = " + prior + "\n\n" + points;
    const FidelityReport r = runFidelity(readFidelitySuite(write("fit.toml", text)), {.jobs = 2, .holdout = true});
    ASSERT_EQ(r.fits.size(), 1u);
    EXPECT_TRUE(r.fits[0].determined);
    EXPECT_EQ(r.fits[0].fileValue, 1300.0);
    EXPECT_NEAR(r.fits[0].fittedValue, 2000.0, 2000.0 * 0.01) << "prior " << prior;
    EXPECT_FALSE(r.fits[0].current); // the file's 1300 ns is not the fit
    EXPECT_FALSE(r.fitsCurrent);
    EXPECT_GT(r.maxAbsError, 0.05); // and misses the device's times
    for (const FidelityPointResult &p : r.points) {
      ASSERT_TRUE(p.holdoutError) << p.point.id;
      EXPECT_LT(std::abs(*p.holdoutError), 0.01) << p.point.id;
    }
    EXPECT_TRUE(r.holdoutWithin);
  }
}

TEST_F(FidelityTest, RefusesSuitesThatAreNotRight) {
  const std::string good = point("a", "trn1", 256, 1024, 256, 10.0);
  auto refused = [&](const std::string &name, const std::string &text, const std::string &why) {
    try {
      readFidelitySuite(write(name, text));
      ADD_FAILURE() << name << " was read";
    } catch (const InputError &e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  };
  refused("none.toml", "[suite]\ntolerance = 0.15\n", "has no [[point]]");
  refused("twice.toml", good + good, "the id 'a' is used twice");
  refused("time.toml", point("a", "trn1", 256, 1024, 256, -1.0), "measured_us must be a positive time");
  std::string noSource = good;
  noSource.erase(noSource.find("source = "), noSource.find("source_ref") - noSource.find("source = "));
  refused("source.toml", noSource, "no 'source'");
  refused("shape.toml", fmt::format("{}", good).replace(good.find("M = 256"), 7, "M = \"x\""), "'shape' must be");
  refused("fit.toml", good + "[[fit]]\ntarget = \"trn2\"\ncoefficient = \"dma.descriptor_ns\"\n",
          "no point of target 'trn2' may be fitted");
  refused("tolerance.toml", "[suite]\ntolerance = 0\n\n" + good, "must be > 0");
  refused("toml.toml", "[[point]\n", "cannot read fidelity suite");
  EXPECT_THROW(readFidelitySuite(dir_ / "no-such.toml"), InputError);
}

} // namespace
