/// \file
/// Float <-> narrow-format conversions, bit-exact with ml_dtypes (bfloat16, float8_e4m3fn, float8_e5m2) and
/// numpy (float16).
///
/// All narrow formats are handled by one generic "minifloat" encoder and decoder, parameterised by the number of
/// exponent and mantissa bits, whether the format has infinities, and how it treats NaN payloads. The routines
/// are branch-free selects on 32-bit integers, so the bulk loops vectorise. bf16 has a shorter fast path: it is
/// the top half of an fp32, so encoding is one rounding add and decoding one shift.
///
/// NaN payloads follow the reference libraries exactly:
///  - ml_dtypes (bf16, f8e4m3, f8e5m2) encodes every NaN as the format's canonical quiet NaN with the input's
///    sign; it decodes fp8 NaNs to the canonical fp32 quiet NaN (0x7fc00000 | sign) and bf16 by widening.
///  - numpy (f16) keeps the top 10 payload bits (bumping an all-zero result to 1 so it stays a NaN), and widens
///    on decode. A quiet NaN therefore stays quiet, and every f16 pattern round-trips bit for bit.

#include "tessera/isa/NumberFormats.h"

#include <array>
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace tessera::isa {
namespace {

constexpr uint32_t kF32SignMask = 0x8000'0000u;
constexpr uint32_t kF32AbsMask = 0x7fff'ffffu;
constexpr uint32_t kF32Inf = 0x7f80'0000u;
constexpr uint32_t kF32QuietNan = 0x7fc0'0000u;
constexpr int kF32MantissaBits = 23;
constexpr int kF32Bias = 127;

/// `condition ? ifTrue : ifFalse` as bit masks: GCC if-converts ternaries in these loops only partly, and
/// leftover branches stop vectorisation.
constexpr uint32_t select(bool condition, uint32_t ifTrue, uint32_t ifFalse) {
  const uint32_t mask = 0u - uint32_t(condition);
  return (ifTrue & mask) | (ifFalse & ~mask);
}

/// A binary floating-point format narrower than fp32 (sign, exponent, mantissa; IEEE-style bias).
struct MinifloatFormat {
  int exponentBits;
  int mantissaBits;
  /// False for the "fn" formats (f8e4m3): the top exponent holds ordinary numbers, only all-ones is NaN, and
  /// overflow gives NaN.
  bool hasInfinity;
  /// True (numpy float16): a NaN keeps the top mantissa bits of its payload. False (ml_dtypes): canonical NaN.
  bool keepsNanPayload;

  constexpr int bias() const { return (1 << (exponentBits - 1)) - 1; }
  constexpr int totalBits() const { return 1 + exponentBits + mantissaBits; }
  constexpr uint32_t signBit() const { return 1u << (exponentBits + mantissaBits); }
  constexpr uint32_t magnitudeMask() const { return signBit() - 1; }
  constexpr uint32_t mantissaMask() const { return (1u << mantissaBits) - 1; }
  /// Pattern of +Inf (for formats without infinities: the first pattern of the top exponent).
  constexpr uint32_t topExponentBits() const { return ((1u << exponentBits) - 1) << mantissaBits; }
  constexpr uint32_t maxFiniteBits() const { return hasInfinity ? topExponentBits() - 1 : magnitudeMask() - 1; }
  /// The positive NaN an encoder produces when it does not keep a payload.
  constexpr uint32_t canonicalNanBits() const {
    return hasInfinity ? topExponentBits() | (1u << (mantissaBits - 1)) : magnitudeMask();
  }
  /// What a value beyond the largest finite number becomes: +Inf, or NaN where there is no Inf.
  constexpr uint32_t overflowBits() const { return hasInfinity ? topExponentBits() : canonicalNanBits(); }
  /// Bits to drop from an fp32 mantissa.
  constexpr int droppedBits() const { return kF32MantissaBits - mantissaBits; }
  /// The fp32 pattern of the smallest normal number of this format.
  constexpr uint32_t minNormalAsF32() const { return uint32_t(kF32Bias - bias() + 1) << kF32MantissaBits; }
  /// The fp32 pattern of 2^k whose ulp equals this format's smallest subnormal: adding a small value to it lets
  /// the FPU round to the subnormal grid (round to nearest even), and the sum's low bits are the result.
  constexpr uint32_t subnormalMagicAsF32() const {
    return uint32_t(kF32Bias - bias() + droppedBits() + 1) << kF32MantissaBits;
  }
};

constexpr MinifloatFormat kBf16Format{8, 7, true, false};
constexpr MinifloatFormat kF16Format{5, 10, true, true};
constexpr MinifloatFormat kF8E4M3Format{4, 3, false, false};
constexpr MinifloatFormat kF8E5M2Format{5, 2, true, false};

/// Rounds `f` to the nearest value of `Fmt` (ties to even) and returns its bit pattern.
template <MinifloatFormat Fmt>
constexpr uint32_t encodeMinifloat(float f) {
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  const uint32_t magnitude = bits & kF32AbsMask;
  const uint32_t sign = (bits >> 31) << (Fmt.totalBits() - 1);
  constexpr int dropped = Fmt.droppedBits();

  // Normal results: rebias the exponent, then round the mantissa to nearest even; a carry out of the mantissa
  // correctly bumps the exponent.
  const uint32_t lsb = (magnitude >> dropped) & 1u;
  constexpr uint32_t rebias = uint32_t(kF32Bias - Fmt.bias()) << kF32MantissaBits;
  const uint32_t normal = (magnitude - rebias + ((1u << (dropped - 1)) - 1) + lsb) >> dropped;

  // Subnormal results (inputs below the smallest normal): let the FPU round onto the subnormal grid. The sum is
  // a normal fp32, so flush-to-zero modes cannot change it (an fp32 subnormal input rounds to 0 here anyway).
  constexpr uint32_t magic = Fmt.subnormalMagicAsF32();
  const float sum = std::bit_cast<float>(magnitude) + std::bit_cast<float>(magic);
  const uint32_t subnormal = std::bit_cast<uint32_t>(sum) - magic;

  uint32_t result = select(magnitude < Fmt.minNormalAsF32(), subnormal, normal);
  result = select(result > Fmt.maxFiniteBits(), Fmt.overflowBits(), result);

  uint32_t nan = Fmt.canonicalNanBits();
  if constexpr (Fmt.keepsNanPayload) {
    const uint32_t payload = (magnitude & 0x007f'ffffu) >> dropped;
    nan = Fmt.topExponentBits() | payload | uint32_t(payload == 0);
  }
  result = select(magnitude > kF32Inf, nan, result);
  return result | sign;
}

/// The fp32 value of the `Fmt` pattern `bits` (exact: every narrow value is an fp32 value).
template <MinifloatFormat Fmt>
constexpr float decodeMinifloat(uint32_t bits) {
  static_assert(kF32Bias + 1 - Fmt.bias() - Fmt.mantissaBits > 0,
                "the format's smallest subnormal must be a normal fp32 (bf16 has its own decoder)");
  const uint32_t sign = (bits & Fmt.signBit()) << (31 - (Fmt.totalBits() - 1));
  const uint32_t magnitude = bits & Fmt.magnitudeMask();
  const uint32_t exponent = magnitude >> Fmt.mantissaBits;
  constexpr uint32_t rebias = uint32_t(kF32Bias - Fmt.bias()) << kF32MantissaBits;

  const uint32_t normal = (magnitude << Fmt.droppedBits()) + rebias;
  // A subnormal is mantissa * 2^(1 - bias - mantissaBits); the int->float conversion and the power-of-two scale
  // are both exact.
  constexpr float subnormalUnit =
      std::bit_cast<float>(uint32_t(kF32Bias + 1 - Fmt.bias() - Fmt.mantissaBits) << kF32MantissaBits);
  const uint32_t subnormal = std::bit_cast<uint32_t>(float(int32_t(magnitude)) * subnormalUnit);

  uint32_t result = select(exponent == 0, subnormal, normal);
  if constexpr (Fmt.hasInfinity) {
    const uint32_t mantissa = magnitude & Fmt.mantissaMask();
    uint32_t nan = kF32QuietNan;
    if constexpr (Fmt.keepsNanPayload)
      nan = kF32Inf | (mantissa << Fmt.droppedBits());
    const uint32_t special = select(mantissa == 0, kF32Inf, nan);
    result = select(magnitude >= Fmt.topExponentBits(), special, result);
  } else {
    result = select(magnitude == Fmt.magnitudeMask(), kF32QuietNan, result);
  }
  return std::bit_cast<float>(result | sign);
}

/// bf16 fast path: the top half of the fp32, rounded to nearest even; every NaN becomes the quiet NaN.
constexpr uint16_t encodeBf16(float f) {
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  const uint32_t rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
  const uint32_t nan = ((bits & kF32SignMask) >> 16) | kBf16Format.canonicalNanBits();
  return uint16_t(select((bits & kF32AbsMask) > kF32Inf, nan, rounded));
}

constexpr float decodeBf16(uint16_t bits) { return std::bit_cast<float>(uint32_t(bits) << 16); }

/// All 256 fp32 values of an 8-bit format, built at compile time from the generic decoder.
template <MinifloatFormat Fmt>
constexpr std::array<float, 256> makeDecodeTable() {
  static_assert(Fmt.totalBits() == 8);
  std::array<float, 256> table{};
  for (uint32_t bits = 0; bits < 256; ++bits)
    table[bits] = decodeMinifloat<Fmt>(bits);
  return table;
}

constexpr std::array<float, 256> kF8E4M3Values = makeDecodeTable<kF8E4M3Format>();
constexpr std::array<float, 256> kF8E5M2Values = makeDecodeTable<kF8E5M2Format>();

// The generic routines against the fast path and known values, checked by the compiler.
static_assert(encodeMinifloat<kBf16Format>(1.0f) == encodeBf16(1.0f));
static_assert(encodeMinifloat<kF8E4M3Format>(448.0f) == 0x7e && encodeMinifloat<kF8E4M3Format>(1e6f) == 0x7f);
static_assert(encodeMinifloat<kF8E5M2Format>(57344.0f) == 0x7b && encodeMinifloat<kF8E5M2Format>(1e6f) == 0x7c);
static_assert(decodeMinifloat<kF16Format>(0x0001) == 0x1p-24f && decodeMinifloat<kF16Format>(0x7bff) == 65504.0f);

// Bulk loops: the source and destination may be unaligned, so elements go through memcpy, which compiles to
// plain (vectorisable) loads and stores.

template <typename Bits, typename Encoder>
void encodeLoop(const float *src, std::byte *dst, size_t count, Encoder encodeOne) {
  for (size_t i = 0; i < count; ++i) {
    const Bits bits = Bits(encodeOne(src[i]));
    std::memcpy(dst + i * sizeof(Bits), &bits, sizeof(Bits));
  }
}

template <typename Bits, typename Decoder>
void decodeLoop(const std::byte *src, float *dst, size_t count, Decoder decodeOne) {
  for (size_t i = 0; i < count; ++i) {
    Bits bits;
    std::memcpy(&bits, src + i * sizeof(Bits), sizeof(Bits));
    dst[i] = decodeOne(bits);
  }
}

} // namespace

uint16_t floatToBf16(float f) { return encodeBf16(f); }
float bf16ToFloat(uint16_t bits) { return decodeBf16(bits); }
uint16_t floatToF16(float f) { return uint16_t(encodeMinifloat<kF16Format>(f)); }
float f16ToFloat(uint16_t bits) { return decodeMinifloat<kF16Format>(bits); }
uint8_t floatToF8E4M3(float f) { return uint8_t(encodeMinifloat<kF8E4M3Format>(f)); }
float f8e4m3ToFloat(uint8_t bits) { return kF8E4M3Values[bits]; }
uint8_t floatToF8E5M2(float f) { return uint8_t(encodeMinifloat<kF8E5M2Format>(f)); }
float f8e5m2ToFloat(uint8_t bits) { return kF8E5M2Values[bits]; }

namespace {

/// `f` rounded to the nearest integer (ties to even) and clamped to [lo, hi]; NaN gives 0.
template <typename Int> Int toInteger(float f) {
  if (std::isnan(f))
    return 0;
  const double lo = static_cast<double>(std::numeric_limits<Int>::min());
  const double hi = static_cast<double>(std::numeric_limits<Int>::max());
  const double rounded = std::nearbyint(static_cast<double>(f)); // the default rounding mode: to nearest even
  return static_cast<Int>(std::clamp(rounded, lo, hi));
}

template <typename Int> void decodeIntegers(const std::byte *src, float *dst, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    Int value;
    std::memcpy(&value, src + i * sizeof(Int), sizeof(Int));
    dst[i] = static_cast<float>(value);
  }
}

template <typename Int> void encodeIntegers(const float *src, std::byte *dst, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    const Int value = toInteger<Int>(src[i]);
    std::memcpy(dst + i * sizeof(Int), &value, sizeof(Int));
  }
}

} // namespace

float roundTo(DType t, float f) {
  switch (t) {
  case DType::I32:
  case DType::U32:
  case DType::U8:
  case DType::I8:
  case DType::I16:
  case DType::U16: return static_cast<float>(integerValue(t, f));
  case DType::F32: return f;
  case DType::BF16: return bf16ToFloat(floatToBf16(f));
  case DType::F16: return f16ToFloat(floatToF16(f));
  case DType::F8E4M3: return f8e4m3ToFloat(floatToF8E4M3(f));
  case DType::F8E5M2: return f8e5m2ToFloat(floatToF8E5M2(f));
  }
  return f;
}

int64_t integerValue(DType t, float f) {
  switch (t) {
  case DType::I32: return toInteger<int32_t>(f);
  case DType::U32: return toInteger<uint32_t>(f);
  case DType::U8: return toInteger<uint8_t>(f);
  case DType::I8: return toInteger<int8_t>(f);
  case DType::I16: return toInteger<int16_t>(f);
  case DType::U16: return toInteger<uint16_t>(f);
  case DType::F32:
  case DType::BF16:
  case DType::F16:
  case DType::F8E4M3:
  case DType::F8E5M2: break;
  }
  return static_cast<int64_t>(roundTo(t, f)); // a float type: callers pass integers
}

std::pair<int64_t, int64_t> integerRange(DType t) {
  const float inf = std::numeric_limits<float>::infinity();
  return {integerValue(t, -inf), integerValue(t, inf)};
}

float largestFinite(DType t) {
  switch (t) {
  case DType::I32:
  case DType::U32:
  case DType::U8:
  case DType::I8:
  case DType::I16:
  case DType::U16: return static_cast<float>(integerRange(t).second);
  case DType::F32: return std::numeric_limits<float>::max();
  case DType::BF16: return decodeBf16(uint16_t(kBf16Format.maxFiniteBits()));
  case DType::F16: return decodeMinifloat<kF16Format>(kF16Format.maxFiniteBits());
  case DType::F8E4M3: return kF8E4M3Values[kF8E4M3Format.maxFiniteBits()];
  case DType::F8E5M2: return kF8E5M2Values[kF8E5M2Format.maxFiniteBits()];
  }
  return std::numeric_limits<float>::max();
}

// The bulk conversions run on every operand of every instruction: built for AVX-512 and AVX2 as well as the
// baseline, picked at load time (the same integer and float operations, so the same bits: NumberFormatsTest).
[[gnu::target_clones("avx512f", "avx2", "default")]] void decode(DType t, const std::byte *src, float *dst,
                                                                size_t count) {
  if (count == 0)
    return;
  switch (t) {
  case DType::F32: std::memcpy(dst, src, count * sizeof(float)); return;
  case DType::BF16: decodeLoop<uint16_t>(src, dst, count, decodeBf16); return;
  case DType::F16: decodeLoop<uint16_t>(src, dst, count, decodeMinifloat<kF16Format>); return;
  case DType::F8E4M3: decodeLoop<uint8_t>(src, dst, count, [](uint8_t b) { return kF8E4M3Values[b]; }); return;
  case DType::F8E5M2: decodeLoop<uint8_t>(src, dst, count, [](uint8_t b) { return kF8E5M2Values[b]; }); return;
  case DType::I32: return decodeIntegers<int32_t>(src, dst, count);
  case DType::U32: return decodeIntegers<uint32_t>(src, dst, count);
  case DType::U8: return decodeIntegers<uint8_t>(src, dst, count);
  case DType::I8: return decodeIntegers<int8_t>(src, dst, count);
  case DType::I16: return decodeIntegers<int16_t>(src, dst, count);
  case DType::U16: return decodeIntegers<uint16_t>(src, dst, count);
  }
}

namespace {

/// bf16 -> bf16 through FP32: a NaN becomes the canonical NaN of its sign, anything else keeps its bits.
constexpr uint16_t recodeBf16(uint16_t bits) {
  const uint16_t nan = uint16_t((bits & 0x8000u) | kBf16Format.canonicalNanBits());
  return (bits & 0x7fffu) > 0x7f80u ? nan : bits;
}
static_assert(recodeBf16(0x7f81) == encodeBf16(decodeBf16(0x7f81)) && recodeBf16(0xffc1) == 0xffc0 &&
              recodeBf16(0x3f80) == 0x3f80 && recodeBf16(0x7f80) == 0x7f80);

} // namespace

[[gnu::target_clones("avx512f", "avx2", "default")]] void recode(DType t, const std::byte *src, std::byte *dst,
                                                                size_t count) {
  switch (t) {
  case DType::F32:
  case DType::U8:
  case DType::I8:
  case DType::I16:
  case DType::U16: std::memcpy(dst, src, count * byteSize(t)); return; // every value decodes exactly
  case DType::BF16:
    for (size_t i = 0; i < count; ++i) {
      uint16_t bits;
      std::memcpy(&bits, src + 2 * i, 2);
      bits = recodeBf16(bits);
      std::memcpy(dst + 2 * i, &bits, 2);
    }
    return;
  default: {
    float values[256]; // the round trip, a block at a time
    for (size_t done = 0; done < count; done += std::size(values)) {
      const size_t n = std::min(count - done, std::size(values));
      decode(t, src + done * byteSize(t), values, n);
      encode(t, values, dst + done * byteSize(t), n);
    }
  }
  }
}

[[gnu::target_clones("avx512f", "avx2", "default")]] void encode(DType t, const float *src, std::byte *dst,
                                                                size_t count) {
  if (count == 0)
    return;
  switch (t) {
  case DType::F32: std::memcpy(dst, src, count * sizeof(float)); return;
  case DType::BF16: encodeLoop<uint16_t>(src, dst, count, encodeBf16); return;
  case DType::F16: encodeLoop<uint16_t>(src, dst, count, encodeMinifloat<kF16Format>); return;
  case DType::F8E4M3: encodeLoop<uint8_t>(src, dst, count, encodeMinifloat<kF8E4M3Format>); return;
  case DType::F8E5M2: encodeLoop<uint8_t>(src, dst, count, encodeMinifloat<kF8E5M2Format>); return;
  case DType::I32: return encodeIntegers<int32_t>(src, dst, count);
  case DType::U32: return encodeIntegers<uint32_t>(src, dst, count);
  case DType::U8: return encodeIntegers<uint8_t>(src, dst, count);
  case DType::I8: return encodeIntegers<int8_t>(src, dst, count);
  case DType::I16: return encodeIntegers<int16_t>(src, dst, count);
  case DType::U16: return encodeIntegers<uint16_t>(src, dst, count);
  }
}

} // namespace tessera::isa
