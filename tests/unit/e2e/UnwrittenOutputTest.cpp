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
    EXPECT_NE(text.find("output y        never written: 32768 of 65536 elements, within rows 0..127 and columns "
                        "256..511 (still the NaN an output starts with): a store is missing or too small"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("verdict: FAILED: an output is not written in full"), std::string::npos) << text;
    const nlohmann::json j = driver::toJson(r);
    EXPECT_EQ(j["outputs"][0]["unwritten"]["elements"], 32768);
    EXPECT_EQ(j["outputs"][0]["unwritten"]["columns"], nlohmann::json::array({256, 511}));
    EXPECT_EQ(j["outputs"][0]["ok"], false);
  }
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
