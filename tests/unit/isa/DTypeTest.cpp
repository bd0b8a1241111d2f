/// \file
/// DType names, sizes and unit roundoff.

#include "tessera/isa/DType.h"
#include "tessera/isa/NumberFormats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

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
  for (std::string_view bad : {"", "F32", "float32", "bf16 ", "f8", "fp8e4m3", "s8", "int8"})
    EXPECT_FALSE(parseDType(bad).has_value()) << '"' << bad << '"';
}

/// The integer types NKI lists (API reference, "Supported Data Types": int8, int16, int32, uint8, uint16, uint32).
constexpr DType kIntegerDTypes[] = {DType::I8, DType::I16, DType::I32, DType::U8, DType::U16, DType::U32};

TEST(DType, IntegerTypesAreNamedSizedAndParsed) {
  const std::pair<std::string_view, unsigned> expected[] = {{"i8", 1}, {"i16", 2}, {"i32", 4},
                                                            {"u8", 1}, {"u16", 2}, {"u32", 4}};
  for (size_t i = 0; i < std::size(kIntegerDTypes); ++i) {
    const DType t = kIntegerDTypes[i];
    EXPECT_EQ(name(t), expected[i].first);
    EXPECT_EQ(byteSize(t), expected[i].second) << name(t);
    EXPECT_EQ(parseDType(name(t)), t);
    EXPECT_TRUE(isInteger(t)) << name(t);
    EXPECT_EQ(isSignedInteger(t), name(t)[0] == 'i') << name(t);
    EXPECT_EQ(unitRoundoff(t), 0.0) << name(t);
  }
  for (DType t : kAllDTypes) EXPECT_FALSE(isInteger(t)) << name(t);
}

/// Converting to an integer type rounds to nearest (ties to even), saturates at the type's limits and makes NaN 0,
/// and encode/decode round-trip every value the type holds.
TEST(DType, NarrowIntegersRoundAndSaturate) {
  EXPECT_EQ(roundTo(DType::I8, 2.5f), 2.0f);
  EXPECT_EQ(roundTo(DType::I8, -3.5f), -4.0f);
  EXPECT_EQ(roundTo(DType::I8, 200.0f), 127.0f);
  EXPECT_EQ(roundTo(DType::I8, -200.0f), -128.0f);
  EXPECT_EQ(roundTo(DType::I16, 40000.0f), 32767.0f);
  EXPECT_EQ(roundTo(DType::I16, -40000.0f), -32768.0f);
  EXPECT_EQ(roundTo(DType::U16, -1.0f), 0.0f);
  EXPECT_EQ(roundTo(DType::U16, 70000.0f), 65535.0f);
  EXPECT_EQ(roundTo(DType::U16, std::nanf("")), 0.0f);
  EXPECT_EQ(largestFinite(DType::I8), 127.0f);
  EXPECT_EQ(largestFinite(DType::I16), 32767.0f);
  EXPECT_EQ(largestFinite(DType::U16), 65535.0f);
  for (DType t : {DType::I8, DType::I16, DType::U16}) {
    const float lo = roundTo(t, -1e9f), hi = roundTo(t, 1e9f);
    std::vector<float> values;
    for (float v = lo; v <= hi; v += 1) values.push_back(v);
    std::vector<std::byte> bytes(values.size() * byteSize(t));
    encode(t, values.data(), bytes.data(), values.size());
    std::vector<float> back(values.size());
    decode(t, bytes.data(), back.data(), values.size());
    EXPECT_EQ(back, values) << name(t);
  }
  // Exact where a float is not: i32's limits, and u32's.
  EXPECT_EQ(integerValue(DType::I32, 3e9f), 2147483647);
  EXPECT_EQ(integerValue(DType::I32, -3e9f), -2147483648LL);
  EXPECT_EQ(integerValue(DType::U32, 5e9f), 4294967295LL);
  EXPECT_EQ(integerValue(DType::I8, -2.7f), -3);
  EXPECT_EQ(integerValue(DType::I8, 3.5f), 4);
  EXPECT_EQ(integerValue(DType::U16, std::nanf("")), 0);
  EXPECT_EQ(integerRange(DType::I8), (std::pair<int64_t, int64_t>{-128, 127}));
  EXPECT_EQ(integerRange(DType::U32), (std::pair<int64_t, int64_t>{0, 4294967295LL}));
  const float tooBig[] = {300.0f, -300.0f};
  std::byte stored[2];
  encode(DType::I8, tooBig, stored, 2);
  EXPECT_EQ(std::to_integer<int8_t>(stored[0]), 127);
  EXPECT_EQ(std::to_integer<int8_t>(stored[1]), -128);
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
