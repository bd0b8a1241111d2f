// tessera-difftest --pallas (tests/differential/PallasBundles.h): a random kernel's Pallas bundles, one per style,
// and a style's refusal recorded with its reason.

#include "PallasBundles.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using namespace tessera::difftest;

class PallasBundles : public ::testing::Test {
protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("tessera-pallas-bundles-" + std::to_string(::getpid()));
    fs::remove_all(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
  fs::path dir;
};

TEST_F(PallasBundles, WritesTheDeployBundleOfEveryStyle) {
  // Seed 1 is a grid kernel: every style writes it.
  const SeedBundles s = writePallasBundles(generate(1), "tpu-v5e", {"manual", "grid", "auto"}, dir);
  ASSERT_EQ(s.failure, "");
  ASSERT_EQ(s.styles.size(), 3u);
  for (const StyleBundle &b : s.styles) {
    EXPECT_EQ(b.refusal, "") << b.style;
    ASSERT_EQ(b.bundle, "1-" + b.style);
    std::ifstream in(dir / b.bundle / "tessera.json");
    ASSERT_TRUE(in) << b.bundle;
    const nlohmann::json manifest = nlohmann::json::parse(in);
    EXPECT_EQ(manifest["pallas_style"], b.style);
    EXPECT_EQ(manifest["target"], "tpu-v5e");
    EXPECT_TRUE(fs::exists(dir / b.bundle / "diff_1.py"));
    EXPECT_TRUE(fs::exists(dir / b.bundle / "run.py"));
    for (const auto &entry : manifest["inputs"]) EXPECT_TRUE(fs::exists(dir / b.bundle / entry["file"].get<std::string>()));
    for (const auto &entry : manifest["outputs"]) EXPECT_TRUE(fs::exists(dir / b.bundle / entry["file"].get<std::string>()));
  }
}

TEST_F(PallasBundles, RecordsARefusalWithItsReasonAndWritesNothingForIt) {
  // Seed 8's loops are C++ loops, unrolled when the kernel is traced (its tensors are one block): no loop moves
  // tiles, so it is not a grid. An old bundle of that name must not survive.
  fs::create_directories(dir / "8-grid");
  const SeedBundles s = writePallasBundles(generate(8), "tpu-v5e", {"manual", "grid"}, dir);
  ASSERT_EQ(s.failure, "");
  ASSERT_EQ(s.styles.size(), 2u);
  EXPECT_EQ(s.styles[0].bundle, "8-manual");
  EXPECT_EQ(s.styles[1].bundle, "");
  EXPECT_NE(s.styles[1].refusal.find("is not a Pallas grid"), std::string::npos) << s.styles[1].refusal;
  EXPECT_EQ(refusalKind(s.styles[1].refusal).rfind("not a grid: ", 0), 0u) << refusalKind(s.styles[1].refusal);
  EXPECT_FALSE(fs::exists(dir / "8-grid"));
}

TEST(PallasRefusals, KindTakesOutTheKernelsNamesAndNumbers) {
  EXPECT_EQ(refusalKind("Pallas: kernel 'diff_5' is not a Pallas grid: a block of 'x0' is 100 elements along "
                        "dimension 1: neither a multiple of 128 nor the whole dimension"),
            "not a grid: a block of '*' is N elements along dimension N: neither a multiple of N nor the whole "
            "dimension");
  EXPECT_EQ(refusalKind("Pallas: a strided window of an HBM tensor is written"),
            "Pallas: a strided window of an HBM tensor is written");
}

} // namespace
