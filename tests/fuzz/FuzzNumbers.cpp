/// \file
/// libFuzzer target: the number-format conversions (isa/NumberFormats.h). The input is read as fp32 values and
/// as narrow bit patterns; every property below must hold for every input, else the target aborts:
///  - decode(encode(x)) is roundTo(x), and roundTo is idempotent, odd (roundTo(-x) == -roundTo(x)) and monotonic;
///  - roundTo(x) is a nearest representable value: no neighbouring pattern is closer to x;
///  - NaN stays NaN; a finite x that rounds within range stays finite;
///  - every non-NaN narrow pattern (and every f16 pattern, NaNs included) survives decode then encode bit for bit;
///  - the bulk encode/decode at any alignment give the same bits as the scalar functions.

#include "tessera/isa/DType.h"
#include "tessera/isa/NumberFormats.h"

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

using namespace tessera::isa;

namespace {

constexpr DType kNarrow[] = {DType::BF16, DType::F16, DType::F8E4M3, DType::F8E5M2};

void fail(const char *what, DType t, float x) {
  std::fprintf(stderr, "fuzz-numbers: %s for %.*s, x = %a (bits 0x%08x)\n", what, int(name(t).size()),
               name(t).data(), double(x), std::bit_cast<uint32_t>(x));
  std::abort();
}

bool sameValue(float a, float b) { return (std::isnan(a) && std::isnan(b)) || std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b); }

uint32_t encodeOne(DType t, float x) {
  switch (t) {
  case DType::BF16: return floatToBf16(x);
  case DType::F16: return floatToF16(x);
  case DType::F8E4M3: return floatToF8E4M3(x);
  case DType::F8E5M2: return floatToF8E5M2(x);
  default: break; // F32 and the integer types are not narrow float formats
  }
  return std::bit_cast<uint32_t>(x);
}

float decodeOne(DType t, uint32_t bits) {
  switch (t) {
  case DType::BF16: return bf16ToFloat(uint16_t(bits));
  case DType::F16: return f16ToFloat(uint16_t(bits));
  case DType::F8E4M3: return f8e4m3ToFloat(uint8_t(bits));
  case DType::F8E5M2: return f8e5m2ToFloat(uint8_t(bits));
  default: break;
  }
  return std::bit_cast<float>(bits);
}

uint32_t signBit(DType t) { return 1u << (byteSize(t) * 8 - 1); }

/// The properties of one value in one format.
void checkValue(DType t, float x) {
  const uint32_t bits = encodeOne(t, x);
  const float r = decodeOne(t, bits);
  if (!sameValue(r, roundTo(t, x))) fail("decode(encode(x)) != roundTo(x)", t, x);
  if (!sameValue(roundTo(t, r), r)) fail("roundTo is not idempotent", t, x);
  if (!sameValue(roundTo(t, -x), -r)) fail("roundTo(-x) != -roundTo(x)", t, x);
  if (std::isnan(x) && !std::isnan(r)) fail("NaN became a number", t, x);
  // Only f8e4m3, which has no infinities, turns a number into NaN: one beyond its largest finite value, 448.
  if (!std::isnan(x) && std::isnan(r) && !(t == DType::F8E4M3 && std::fabs(x) > 448.0f))
    fail("a number became NaN", t, x);
  if (std::isnan(x) || std::isnan(r)) return;
  if (std::isfinite(r) && std::fabs(r - x) > std::fabs(x)) fail("rounding error larger than |x|", t, x);
  // No pattern next to the result (same sign) is strictly closer to x.
  const uint32_t magnitude = bits & (signBit(t) - 1);
  for (const int64_t step : {-1, 1}) {
    const int64_t next = int64_t(magnitude) + step;
    if (next < 0 || next >= int64_t(signBit(t))) continue;
    const float neighbour = decodeOne(t, uint32_t(next) | (bits & signBit(t)));
    if (std::isnan(neighbour) || std::isinf(neighbour)) continue;
    if (!std::isfinite(r)) {
      // Overflow: x must be at least halfway past the largest finite value.
      if (std::fabs(double(x)) < std::fabs(double(neighbour))) fail("overflowed below the largest finite value", t, x);
      continue;
    }
    if (std::fabs(double(neighbour) - double(x)) < std::fabs(double(r) - double(x)))
      fail("a neighbouring value is closer than roundTo(x)", t, x);
  }
}

void checkMonotonic(DType t, float x, float y) {
  if (std::isnan(x) || std::isnan(y)) return;
  if (x > y) std::swap(x, y);
  const float rx = roundTo(t, x), ry = roundTo(t, y);
  if (std::isnan(rx) || std::isnan(ry)) return; // f8e4m3 overflow
  if (rx > ry) fail("roundTo is not monotonic", t, y);
}

/// Every non-NaN pattern survives decode then encode (f16 keeps NaN payloads too).
void checkPattern(DType t, uint32_t bits) {
  bits &= (signBit(t) << 1) - 1;
  const float value = decodeOne(t, bits);
  if (std::isnan(value) && t != DType::F16) return;
  if (encodeOne(t, value) != bits) fail("encode(decode(bits)) != bits", t, value);
}

void checkBulk(DType t, const uint8_t *data, size_t size, size_t misalign) {
  const size_t width = byteSize(t);
  const size_t count = size / width;
  if (count == 0) return;
  std::vector<std::byte> raw(count * width + misalign), encoded(count * width + misalign);
  std::memcpy(raw.data() + misalign, data, count * width);
  std::vector<float> decoded(count);
  decode(t, raw.data() + misalign, decoded.data(), count);
  encode(t, decoded.data(), encoded.data() + misalign, count);
  for (size_t i = 0; i < count; ++i) {
    uint32_t bits = 0;
    std::memcpy(&bits, raw.data() + misalign + i * width, width);
    if (!sameValue(decoded[i], decodeOne(t, bits))) fail("bulk decode != scalar decode", t, decoded[i]);
    uint32_t again = 0;
    std::memcpy(&again, encoded.data() + misalign + i * width, width);
    if (again != encodeOne(t, decoded[i])) fail("bulk encode != scalar encode", t, decoded[i]);
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::vector<float> values(size / 4);
  if (!values.empty()) std::memcpy(values.data(), data, values.size() * 4);
  for (const DType t : kNarrow) {
    for (size_t i = 0; i < values.size(); ++i) {
      checkValue(t, values[i]);
      if (i + 1 < values.size()) checkMonotonic(t, values[i], values[i + 1]);
    }
    for (size_t i = 0; i + 1 < size; i += 2) checkPattern(t, uint32_t(data[i]) | uint32_t(data[i + 1]) << 8);
    checkBulk(t, data, size, size % 4);
  }
  return 0;
}
