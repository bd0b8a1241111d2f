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
  I32,    ///< 32-bit signed integer (indices, iota); engines compute on it in FP32, exact up to 2^24
  U32,    ///< 32-bit unsigned integer (nc_find_index8 results, local_gather indices)
  U8,     ///< 8-bit unsigned integer (predicate masks)
  I8,     ///< 8-bit signed integer (quantized weights)
  I16,    ///< 16-bit signed integer
  U16,    ///< 16-bit unsigned integer
};

/// Whether `t` is an integer type: converting a float to it rounds to nearest (ties to even) and saturates,
/// and NaN becomes 0 (an assumption: the NKI documentation does not say how engines round to integers).
constexpr bool isInteger(DType t) {
  return t == DType::I32 || t == DType::U32 || t == DType::U8 || t == DType::I8 || t == DType::I16 ||
         t == DType::U16;
}

/// Whether `t` is an integer type with a sign.
constexpr bool isSignedInteger(DType t) { return t == DType::I32 || t == DType::I16 || t == DType::I8; }

/// Whether `t` is one of the 8-bit floating-point types.
constexpr bool isFp8(DType t) { return t == DType::F8E4M3 || t == DType::F8E5M2; }

/// Bytes one element occupies.
constexpr unsigned byteSize(DType t) {
  switch (t) {
  case DType::F32:
  case DType::I32:
  case DType::U32: return 4;
  case DType::BF16:
  case DType::F16:
  case DType::I16:
  case DType::U16: return 2;
  case DType::F8E4M3:
  case DType::F8E5M2:
  case DType::U8:
  case DType::I8: return 1;
  }
  return 0;
}

/// The name used in DSL code, MLIR text, target files and reports: "f32", "bf16", "f16", "f8e4m3", "f8e5m2", "i32",
/// "u32", "u8", "i8", "i16", "u16".
std::string_view name(DType t);
/// The inverse of name(); nullopt for an unknown name.
std::optional<DType> parseDType(std::string_view name);

/// Unit roundoff of the type (2^-(mantissa bits + 1)): the relative error of one rounding to nearest; 0 for
/// the integer types, whose results are compared exactly.
double unitRoundoff(DType t);

} // namespace tessera::isa
