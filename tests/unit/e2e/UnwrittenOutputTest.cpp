// An output the kernel does not write in full: the elements no store reached still hold the NaN every output
// starts with, and the run says so by region (issue 21: "outputs never written reported by region"), instead of
// only an infinite error against the references.

#include "tessera/Driver.h"
#include "tessera/Report.h"
#include "tessera/dsl/tsr.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>

namespace {

using namespace tessera;

// Stores columns [0, stored) of y's 512: 256 by default.
const tsr::Registration halfStore{{
    .name = "test_half_store",
    .summary = "copies x to y, storing only its first `stored` columns",
    .kernelParams = {{"stored", 256}},
    .signature = [](const tsr::Params &) {
      return std::vector<tsr::TensorSpec>{tsr::input("x", {128, 512}, tsr::bf16),
                                          tsr::output("y", {128, 512}, tsr::bf16)};
    },
    .body = tsr::body([](const tsr::Params &p, tsr::Hbm x, tsr::Hbm y) {
      tsr::Tile t = tsr::load(x.tile(0, 0, {128, 512}));
      const int64_t stored = p["stored"];
      tsr::store(y.window(0, 0, {128, stored}), t.slice(0, stored));
    }),
    .reference = [](const tsr::Params &, const std::vector<tsr::HostTensor> &in,
                    std::vector<tsr::HostTensor> &out) { out[0] = in[0]; },
}};

TEST(UnwrittenOutput, ElementsNoStoreReachedAreReportedByRegion) {
  for (const char *target : {"trn2", "tpu-v5e"}) {
    SCOPED_TRACE(target);
    const driver::RunReport r = driver::runKernel({.kernel = "test_half_store", .target = target});
    EXPECT_FALSE(r.ok);
    ASSERT_EQ(r.checks.size(), 1u);
    ASSERT_TRUE(r.checks[0].unwritten);
    const driver::UnwrittenElements &u = *r.checks[0].unwritten;
    EXPECT_EQ(u.count, 128 * 256);
    EXPECT_EQ(u.elements, 128 * 512);
    EXPECT_EQ(u.firstRow, 0);
    EXPECT_EQ(u.lastRow, 127);
    EXPECT_EQ(u.firstColumn, 256);
    EXPECT_EQ(u.lastColumn, 511);
    const std::string text = driver::toText(r);
    EXPECT_NE(text.find("output y        never written: rows 0..127, columns 256..511 (32768 of 65536 elements "
                        "still hold the NaN an output starts with): a store is missing or too small"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("verdict: FAILED: an output is not written in full"), std::string::npos) << text;
    const nlohmann::json j = driver::toJson(r);
    EXPECT_EQ(j["outputs"][0]["unwritten"]["elements"], 32768);
    EXPECT_EQ(j["outputs"][0]["unwritten"]["columns"], nlohmann::json::array({256, 511}));
    EXPECT_EQ(j["outputs"][0]["unwritten"]["regions"],
              nlohmann::json::parse(R"([{"rows": [0, 127], "columns": [256, 511]}])"));
    EXPECT_EQ(j["outputs"][0]["unwritten"]["region_count"], 1);
    EXPECT_EQ(j["outputs"][0]["ok"], false);
  }
}

// Two stores forgotten: the second row block of y [384, 512], and the right half of its third. Each is named as the
// rectangle it left (not one box around both, which would take in the written left half of the third block).
const tsr::Registration twoForgottenStores{{
    .name = "test_two_forgotten_stores",
    .summary = "copies x [384, 512] to y, forgetting rows 128..255 and the right half of rows 256..383",
    .signature = [](const tsr::Params &) {
      return std::vector<tsr::TensorSpec>{tsr::input("x", {384, 512}, tsr::f32),
                                          tsr::output("y", {384, 512}, tsr::f32)};
    },
    .body = tsr::body([](tsr::Hbm x, tsr::Hbm y) {
      tsr::store(y.tile(0, 0, {128, 512}), tsr::load(x.tile(0, 0, {128, 512})));
      tsr::store(y.window(256, 0, {128, 256}), tsr::load(x.window(256, 0, {128, 256})));
    }),
    .reference = [](const tsr::Params &, const std::vector<tsr::HostTensor> &in,
                    std::vector<tsr::HostTensor> &out) { out[0] = in[0]; },
}};

TEST(UnwrittenOutput, EachForgottenStoreIsARegion) {
  const driver::RunReport r = driver::runKernel({.kernel = "test_two_forgotten_stores", .target = "trn2"});
  EXPECT_FALSE(r.ok);
  ASSERT_EQ(r.checks.size(), 1u);
  ASSERT_TRUE(r.checks[0].unwritten);
  const driver::UnwrittenElements &u = *r.checks[0].unwritten;
  EXPECT_EQ(u.count, 128 * 512 + 128 * 256);
  EXPECT_EQ(u.regionCount, 2u);
  EXPECT_EQ(u.regions, (std::vector<driver::ElementRegion>{{128, 255, 0, 511}, {256, 383, 256, 511}}));
  EXPECT_EQ(driver::describe(u), "rows 128..255, columns 0..511; rows 256..383, columns 256..511 (98304 of 196608 "
                                 "elements still hold the NaN an output starts with): a store is missing or too small");
}

// Past UnwrittenElements::kMaxRegions the rest are counted and bounded; the regions cover exactly the unwritten elements.
TEST(UnwrittenOutput, ManyRegionsAreCountedAndBounded) {
  isa::TensorInfo t{.name = "y", .shape = {4, 24}, .dtype = isa::DType::F32, .isOutput = true};
  std::vector<float> values(4 * 24, 1.0f);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int64_t c = 0; c < 24; c += 2) values[1 * 24 + c] = nan; // row 1: every other column, 12 regions
  values[3 * 24 + 5] = nan, values[2 * 24 + 5] = nan;            // rows 2..3, column 5: one region
  std::vector<std::byte> bytes(values.size() * 4);
  std::memcpy(bytes.data(), values.data(), bytes.size());
  const std::optional<driver::UnwrittenElements> u = driver::unwrittenElements(t, bytes);
  ASSERT_TRUE(u);
  EXPECT_EQ(u->count, 14);
  EXPECT_EQ(u->regionCount, 13u);
  ASSERT_EQ(u->regions.size(), driver::UnwrittenElements::kMaxRegions);
  EXPECT_EQ(u->regions[0], (driver::ElementRegion{1, 1, 0, 0}));
  EXPECT_EQ(u->regions[7], (driver::ElementRegion{1, 1, 14, 14}));
  EXPECT_NE(driver::describe(*u).find("rows 1..1, columns 14..14; and 5 more regions within rows 1..3 and columns "
                                      "0..22 (14 of 96 elements"),
            std::string::npos)
      << driver::describe(*u);
}

TEST(UnwrittenOutput, AWholeStoreLeavesNothingUnwritten) {
  const driver::RunReport r =
      driver::runKernel({.kernel = "test_half_store", .target = "trn2", .kernelParams = {{"stored", 512}}});
  EXPECT_TRUE(r.ok);
  ASSERT_EQ(r.checks.size(), 1u);
  EXPECT_FALSE(r.checks[0].unwritten);
  EXPECT_FALSE(driver::toJson(r)["outputs"][0].contains("unwritten"));
}

// The detection reads bytes: a NaN the kernel computes with other bits is not "never written", and an integer
// output (no NaN to start with) is never reported.
TEST(UnwrittenOutput, OnlyTheFillsOwnBytesCount) {
  isa::TensorInfo f32{.name = "y", .shape = {2, 3}, .dtype = isa::DType::F32, .isOutput = true};
  std::vector<float> values = {1.0f, std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN(),
                               2.0f, 3.0f, std::numeric_limits<float>::quiet_NaN()};
  std::vector<std::byte> bytes(values.size() * 4);
  std::memcpy(bytes.data(), values.data(), bytes.size());
  const std::optional<driver::UnwrittenElements> u = driver::unwrittenElements(f32, bytes);
  ASSERT_TRUE(u);
  EXPECT_EQ(u->count, 2);
  EXPECT_EQ(u->firstRow, 0);
  EXPECT_EQ(u->lastRow, 1);
  EXPECT_EQ(u->firstColumn, 1);
  EXPECT_EQ(u->lastColumn, 2);
  isa::TensorInfo u8{.name = "q", .shape = {1, 4}, .dtype = isa::DType::U8, .isOutput = true};
  EXPECT_FALSE(driver::unwrittenElements(u8, std::vector<std::byte>(4)));
}

} // namespace
