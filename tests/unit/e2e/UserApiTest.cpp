/// \file
/// The C++ API a kernel author's own tests use (tools/tessera/Tessera.h, KernelTest.h): inputs given as host
/// arrays and checked against the kernel's tensors, outputs and inputs returned by name, a target opened and changed
/// in code, and the GoogleTest helper, which passes when a kernel matches its references and fails - saying why -
/// when an output differs, the simulator finds a kernel bug, the kernel is unknown, or nothing can be checked.

#include "tessera/KernelTest.h"
#include "tessera/Tessera.h"
#include "tessera/dsl/tsr.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

namespace {

using namespace tessera::driver;

// y = x + x, with a reference that forgets the doubling: the golden model agrees with the kernel, the reference
// does not, so the helper must fail on it (a kernel registered by a test: test_*, outside the library's tests).
const tsr::Registration wrongReference{{
    .name = "test_api_wrong_reference",
    .summary = "y = x + x, with a wrong reference (y = x)",
    .params = {{"R", 128}, {"C", 128}},
    .signature =
        [](const tsr::Params &p) {
          return std::vector<tsr::TensorSpec>{tsr::input("x", {p["R"], p["C"]}, tsr::f32),
                                              tsr::output("y", {p["R"], p["C"]}, tsr::f32)};
        },
    .body = tsr::body([](tsr::Hbm x, tsr::Hbm y) {
      tsr::Tile t = tsr::load(x.tile(0, 0, {128, 128}));
      tsr::store(y.tile(0, 0, {128, 128}), t + t);
    }),
    .reference =
        [](const tsr::Params &, const std::vector<tsr::HostTensor> &in, std::vector<tsr::HostTensor> &out) {
          out[0] = in[0];
        },
}};

// y = 2.5 x in int8: half the products are ties (2.5 -> 2, 7.5 -> 8), and |x| > 50 saturates. For the range
// check of integer inputs, and the conversion rule in the simulator, the golden model and the reference at once.
const tsr::Registration int8Scaling{{
    .name = "test_api_int8_scaling",
    .summary = "y = 2.5 x in int8 (rounded to nearest even, saturated)",
    .params = {},
    .signature =
        [](const tsr::Params &) {
          return std::vector<tsr::TensorSpec>{tsr::input("x", {128, 64}, tsr::i8), tsr::output("y", {128, 64}, tsr::i8)};
        },
    .body = tsr::body([](tsr::Hbm x, tsr::Hbm y) {
      tsr::Tile t = tsr::load(x.tile(0, 0, {128, 64}));
      tsr::store(y.tile(0, 0, {128, 64}), tsr::copy<tsr::i8>(tsr::copy<tsr::f32>(t) * 2.5f));
    }),
    .reference =
        [](const tsr::Params &, const std::vector<tsr::HostTensor> &in, std::vector<tsr::HostTensor> &out) {
          for (size_t i = 0; i < in[0].size(); ++i)
            out[0][i] = std::clamp(std::nearbyint(in[0][i] * 2.5f), -128.0f, 127.0f);
        },
}};

/// [rows, cols] values i / 8 - 3 (exact in FP32 and BF16).
HostArray ramp(int64_t rows, int64_t cols) {
  HostArray a{{rows, cols}, std::vector<float>(static_cast<size_t>(rows * cols))};
  for (size_t i = 0; i < a.values.size(); ++i) a.values[i] = float(i % 64) / 8 - 3;
  return a;
}

TEST(UserApi, InputsAsHostArraysAndOutputsByName) {
  RunRequest request{.kernel = "add", .target = "trn2", .shape = {{"M", 128}, {"N", 256}}};
  request.inputs["a"] = ramp(128, 256);
  request.inputs["b"] = ramp(128, 256);
  const RunReport report = runKernel(request);
  ASSERT_TRUE(report.ok);
  ASSERT_EQ(report.outputs.count("c"), 1u);
  const HostArray &c = report.outputs.at("c");
  EXPECT_EQ(c.shape, (std::vector<int64_t>{128, 256}));
  for (size_t i = 0; i < c.values.size(); ++i) ASSERT_EQ(c.values[i], 2 * request.inputs["a"].values[i]) << i;
  // The inputs come back as the kernel read them.
  EXPECT_EQ(report.inputs.at("a").values, request.inputs["a"].values);
  EXPECT_EQ(report.inputs.size(), 2u);
  EXPECT_EQ(report.outputs.size(), 1u);
  HostArray expected = request.inputs["a"];
  for (float &v : expected.values) v *= 2;
  EXPECT_TRUE(outputMatches(report, "c", expected));
  expected.values[5] += 1;
  const testing::AssertionResult off = outputMatches(report, "c", expected);
  EXPECT_FALSE(off);
  EXPECT_NE(std::string(off.message()).find("output c DIFFERS"), std::string::npos) << off.message();
  EXPECT_FALSE(outputMatches(report, "nothing", expected));
}

TEST(UserApi, InputArraysAreCheckedAgainstTheKernelsTensors) {
  RunRequest request{.kernel = "add", .target = "trn2", .shape = {{"M", 128}, {"N", 256}}};
  request.inputs["a"] = ramp(128, 128);
  try {
    runKernel(request);
    FAIL() << "a [128, 128] array for a [128, 256] tensor was taken";
  } catch (const InputError &e) {
    const std::string expected = "input 'a': the array has shape (128, 128), but the kernel's 'a' is (128, 256)";
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
  }
  request.inputs["a"] = HostArray{{128, 256}, std::vector<float>(100)};
  EXPECT_THROW(runKernel(request), InputError);
  request.inputs.clear();
  request.inputs["z"] = ramp(128, 256);
  try {
    runKernel(request);
    FAIL() << "an input the kernel does not have was taken";
  } catch (const InputError &e) {
    EXPECT_NE(std::string(e.what()).find("kernel 'add' has no input 'z' (its inputs: a, b)"), std::string::npos)
        << e.what();
  }
}

TEST(UserApi, IntegerInputsMustBeIntegersTheirDtypeHolds) {
  RunRequest request{.kernel = "test_api_int8_scaling", .target = "trn2"};
  HostArray x{{128, 64}, std::vector<float>(128 * 64)};
  for (size_t i = 0; i < x.values.size(); ++i) x.values[i] = float(int(i % 256) - 128); // -128 to 127
  request.inputs["x"] = x;
  const RunReport report = runKernel(request);
  EXPECT_TRUE(report.ok);
  EXPECT_EQ(report.reference, "golden+reference");
  HostArray expected = x;
  for (float &v : expected.values) v = std::clamp(std::nearbyint(v * 2.5f), -128.0f, 127.0f);
  EXPECT_EQ(expected.values[129], 2.0f); // x = 1: 2.5 rounds to even
  EXPECT_EQ(expected.values[131], 8.0f); // x = 3: 7.5 rounds to even
  EXPECT_TRUE(outputMatches(report, "y", expected));
  for (const auto &[value, message] : {std::pair{128.0f, "input 'x' holds 128, outside the i8 range [-128, 127]"},
                                       std::pair{-129.0f, "input 'x' holds -129, outside the i8 range [-128, 127]"},
                                       std::pair{0.5f, "input 'x' holds 0.5, not an integer, for the i8 tensor"}}) {
    request.inputs["x"].values[7] = value;
    try {
      runKernel(request);
      ADD_FAILURE() << value << " was taken for an i8 input";
    } catch (const InputError &e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  }
}

TEST(UserApi, ATargetChangedInCodeIsTheOneSimulated) {
  RunRequest request{.kernel = "add", .target = "trn2", .shape = {{"M", 256}, {"N", 2048}}};
  const double stock = runKernel(request).timeUs();
  tessera::isa::Target slow = loadTarget("trn2");
  slow.dma.bytesPerNsPerEngine /= 4;
  slow.dma.hbmGBps /= 4;
  request.machine = slow;
  request.target = "no-such-target"; // not read when a machine is given
  const RunReport report = runKernel(request);
  EXPECT_TRUE(report.ok);
  EXPECT_GT(report.timeUs(), 1.5 * stock) << "add is DMA-bound: a quarter of the bandwidth must show";
}

TEST(KernelTestHelper, PassesWhenTheKernelMatchesItsReferences) {
  EXPECT_TESSERA_MATCHES_REFERENCE("add", "trn2");
  EXPECT_TESSERA_MATCHES_REFERENCE("add", "tpu-v5e", {{"M", 128}, {"N", 512}});
  EXPECT_TESSERA_MATCHES_REFERENCE("matmul_blocked", "trn2", {{"M", 512}, {"N", 1024}, {"K", 256}},
                                   {{"bm", 256}, {"bn", 512}});
  const testing::AssertionResult ok = matchesReference("add", "trn2");
  EXPECT_NE(std::string(ok.message()).find("add on trn2 (shape M=256,N=1024) matches golden+reference"),
            std::string::npos)
      << ok.message();
}

TEST(KernelTestHelper, FailsSayingWhichOutputDiffersFromWhich) {
  const testing::AssertionResult r = matchesReference("test_api_wrong_reference", "trn2");
  EXPECT_FALSE(r);
  const std::string message = r.message();
  EXPECT_NE(message.find("does not match golden+reference"), std::string::npos) << message;
  EXPECT_NE(message.find("output y DIFFERS"), std::string::npos) << message;
  EXPECT_NE(message.find("vs golden     max rel err 0,"), std::string::npos) << message; // the kernel is right
  EXPECT_NE(message.find("vs reference  max rel err 1,"), std::string::npos) << message; // 2x against x
}

TEST(KernelTestHelper, TheMacrosFailTheTestWithTheHelpersMessage) {
  EXPECT_NONFATAL_FAILURE(EXPECT_TESSERA_MATCHES_REFERENCE("test_api_wrong_reference", "trn2"), "output y DIFFERS");
  EXPECT_FATAL_FAILURE(ASSERT_TESSERA_MATCHES_REFERENCE("bug_race", "trn2", {}), "found a kernel bug");
}

TEST(KernelTestHelper, FailsOnAKernelBugAnErrorOrNothingToCheck) {
  const testing::AssertionResult bug = matchesReference("bug_race", "trn2");
  EXPECT_FALSE(bug);
  EXPECT_NE(std::string(bug.message()).find("the simulator found a kernel bug"), std::string::npos) << bug.message();
  EXPECT_NE(std::string(bug.message()).find("race"), std::string::npos) << bug.message();

  const testing::AssertionResult unknown = matchesReference("no_such_kernel", "trn2");
  EXPECT_FALSE(unknown);
  EXPECT_NE(std::string(unknown.message()).find("unknown kernel 'no_such_kernel'"), std::string::npos);

  const testing::AssertionResult badShape = matchesReference("add", "trn2", {{"M", 100}});
  EXPECT_FALSE(badShape);
  EXPECT_NE(std::string(badShape.message()).find("M must be a multiple of 128"), std::string::npos)
      << badShape.message();

  RunRequest timingOnly{.kernel = "add", .target = "trn2", .timingOnly = true};
  const testing::AssertionResult unchecked = matchesReference(timingOnly);
  EXPECT_FALSE(unchecked);
  EXPECT_NE(std::string(unchecked.message()).find("a timing-only run checks no outputs"), std::string::npos);
}

} // namespace
