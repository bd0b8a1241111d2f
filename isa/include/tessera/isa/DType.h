#pragma once
/// \file
/// The element types tiles and tensors hold.

#include <cstdint>
#include <optional>
#include <string_view>

namespace tessera::isa {

enum class DType : uint8_t {
  F32,
  BF16,
  F16,
  F8E4M3, ///< fp8 e4m3 with no infinities (ml_dtypes float8_e4m3fn): max 448, NaN = S.1111.111
  F8E5M2, ///< fp8 e5m2, IEEE-like (ml_dtypes float8_e5m2): max 57344, has Inf and NaN
};

/// Bytes one element occupies.
constexpr unsigned byteSize(DType t) {
  switch (t) {
  case DType::F32: return 4;
  case DType::BF16:
  case DType::F16: return 2;
  case DType::F8E4M3:
  case DType::F8E5M2: return 1;
  }
  return 0;
}

/// The name used in DSL code, MLIR text, target files and reports: "f32", "bf16", "f16", "f8e4m3", "f8e5m2".
std::string_view name(DType t);
/// The inverse of name(); nullopt for an unknown name.
std::optional<DType> parseDType(std::string_view name);

/// Unit roundoff of the type (2^-(mantissa bits + 1)): the relative error of one rounding to nearest.
double unitRoundoff(DType t);

} // namespace tessera::isa
