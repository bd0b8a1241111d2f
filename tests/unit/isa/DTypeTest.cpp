/// \file
/// DType names, sizes and unit roundoff.

#include "tessera/isa/DType.h"
#include "tessera/isa/NumberFormats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace tessera::isa {
namespace {

constexpr DType kAllDTypes[] = {DType::F32, DType::BF16, DType::F16, DType::F8E4M3, DType::F8E5M2};

TEST(DType, NamesAreTheOnesUsedInTextFormats) {
  EXPECT_EQ(name(DType::F32), "f32");
  EXPECT_EQ(name(DType::BF16), "bf16");
  EXPECT_EQ(name(DType::F16), "f16");
  EXPECT_EQ(name(DType::F8E4M3), "f8e4m3");
  EXPECT_EQ(name(DType::F8E5M2), "f8e5m2");
}

TEST(DType, ParseInvertsName) {
  for (DType t : kAllDTypes) {
    const std::optional<DType> parsed = parseDType(name(t));
    ASSERT_TRUE(parsed.has_value()) << name(t);
    EXPECT_EQ(*parsed, t);
  }
}

TEST(DType, ParseRejectsUnknownNames) {
  for (std::string_view bad : {"", "F32", "float32", "bf16 ", "f8", "fp8e4m3", "i8"})
    EXPECT_FALSE(parseDType(bad).has_value()) << '"' << bad << '"';
}

TEST(DType, ByteSizes) {
  EXPECT_EQ(byteSize(DType::F32), 4u);
  EXPECT_EQ(byteSize(DType::BF16), 2u);
  EXPECT_EQ(byteSize(DType::F16), 2u);
  EXPECT_EQ(byteSize(DType::F8E4M3), 1u);
  EXPECT_EQ(byteSize(DType::F8E5M2), 1u);
}

TEST(DType, UnitRoundoffValues) {
  EXPECT_EQ(unitRoundoff(DType::F32), std::ldexp(1.0, -24));
  EXPECT_EQ(unitRoundoff(DType::BF16), std::ldexp(1.0, -8));
  EXPECT_EQ(unitRoundoff(DType::F16), std::ldexp(1.0, -11));
  EXPECT_EQ(unitRoundoff(DType::F8E4M3), std::ldexp(1.0, -4));
  EXPECT_EQ(unitRoundoff(DType::F8E5M2), std::ldexp(1.0, -3));
}

/// The unit roundoff u is half the spacing above 1: 1+u is a tie that rounds down to 1 (ties to even), anything
/// above it rounds up, and the relative error of rounding any normal value is at most u.
TEST(DType, UnitRoundoffAgreesWithRounding) {
  for (DType t : kAllDTypes) {
    if (t == DType::F32)
      continue; // roundTo(F32) is the identity
    const float u = float(unitRoundoff(t));
    EXPECT_EQ(roundTo(t, 1.0f + u), 1.0f) << name(t);
    EXPECT_EQ(roundTo(t, std::nextafter(1.0f + u, 2.0f)), 1.0f + 2 * u) << name(t);
    for (float x = 1.0f; x < 8.0f; x += 0.0078125f) {
      const double relativeError = std::abs(double(roundTo(t, x)) - x) / x;
      ASSERT_LE(relativeError, u) << name(t) << " at " << x;
    }
  }
}

} // namespace
} // namespace tessera::isa
