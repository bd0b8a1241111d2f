// What decides a run's verdict, on values that are easy to get wrong: outputs compared as IEEE values (equal
// infinities agree, `--input a=inf.npy` on add once FAILED; NaN agrees with nothing, not even NaN).

#include "tessera/HostData.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace {

using namespace tessera;
using namespace tessera::driver;

constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(OutputChecks, EqualInfinitiesAgree) {
  const tsr::HostTensor out = {kInf, -kInf, 1.0f}, ref = {kInf, -kInf, 1.0f};
  const TensorCheck c = compare("c", isa::DType::F32, out, ref);
  EXPECT_TRUE(c.ok);
  EXPECT_EQ(c.maxAbsErr, 0.0);
}

TEST(OutputChecks, InfinitiesOfOtherSignsOrAgainstNumbersDisagree) {
  EXPECT_FALSE(compare("c", isa::DType::F32, {kInf}, {-kInf}).ok);
  EXPECT_FALSE(compare("c", isa::DType::F32, {kInf}, {1.0f}).ok);
  EXPECT_FALSE(compare("c", isa::DType::F32, {1.0f}, {kInf}).ok);
}

// An infinity in the reference once made its rms infinite and every other element's relative error 0: a wrong
// value beside an infinity passed. The rms is over the finite values.
TEST(OutputChecks, AnInfinityDoesNotHideAnErrorElsewhere) {
  const TensorCheck c = compare("c", isa::DType::F32, {kInf, 2.0f, 1.0f}, {kInf, 1.0f, 1.0f});
  EXPECT_FALSE(c.ok);
  EXPECT_DOUBLE_EQ(c.maxRelErr, 1.0);
}

TEST(OutputChecks, NanAgreesWithNothing) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(compare("c", isa::DType::F32, {nan}, {nan}).ok);
  EXPECT_FALSE(compare("c", isa::DType::F32, {nan}, {0.0f}).ok);
}

} // namespace
