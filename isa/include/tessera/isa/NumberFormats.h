#pragma once
/// \file
/// Conversions between float and the narrow number formats, bit-exact with ml_dtypes: round to nearest, ties to
/// even; NaN stays NaN; values beyond the largest finite number become Inf where the format has one, and NaN
/// where it has none (f8e4m3). Subnormals are kept on both sides.

#include "tessera/isa/DType.h"

#include <cstddef>
#include <cstdint>
#include <utility>
#include <span>

namespace tessera::isa {

uint16_t floatToBf16(float f);
float bf16ToFloat(uint16_t bits);
uint16_t floatToF16(float f);
float f16ToFloat(uint16_t bits);
uint8_t floatToF8E4M3(float f);
float f8e4m3ToFloat(uint8_t bits);
uint8_t floatToF8E5M2(float f);
float f8e5m2ToFloat(uint8_t bits);

/// `f` rounded to the nearest value representable in `t` (the value a store then load would give).
float roundTo(DType t, float f);

/// The value integer type `t` holds for `f`: rounded to nearest (ties to even), saturated at the type's limits, 0
/// for NaN (the value roundTo gives, exact where a float is not: 2147483647 for i32, not 2^31).
int64_t integerValue(DType t, float f);
/// The least and greatest values of integer type `t` ([-128, 127] for i8, [0, 4294967295] for u32).
std::pair<int64_t, int64_t> integerRange(DType t);

/// The largest finite value of `t` (448 for f8e4m3, 57344 for f8e5m2, 65504 for f16); beyond about it a float
/// encodes as Inf, or NaN in a format without infinities.
float largestFinite(DType t);

/// Decodes `count` elements of type `t` from `src` into floats.
void decode(DType t, const std::byte *src, float *dst, size_t count);
/// Encodes `count` floats into elements of type `t` at `dst`, rounding to nearest even.
void encode(DType t, const float *src, std::byte *dst, size_t count);
/// Copies `count` elements of type `t` as a decode to FP32 and an encode back would (the path every copy's
/// semantics takes): the same bits for f32, bf16 (its NaNs made canonical, sign kept) and u8 without the round
/// trip; the round trip itself for the other types (f16 and fp8 NaNs, integers past 2^24).
void recode(DType t, const std::byte *src, std::byte *dst, size_t count);

} // namespace tessera::isa
