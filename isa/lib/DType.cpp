/// \file
/// Names and rounding properties of the element types.

#include "tessera/isa/DType.h"

#include <array>
#include <cmath>

namespace tessera::isa {
namespace {

struct DTypeInfo {
  DType type;
  std::string_view name;
  int mantissaBits; ///< stored fraction bits (the significand has one more); -1 for integers
};

constexpr std::array<DTypeInfo, 11> kDTypes = {{
    {DType::F32, "f32", 23},
    {DType::BF16, "bf16", 7},
    {DType::F16, "f16", 10},
    {DType::F8E4M3, "f8e4m3", 3},
    {DType::F8E5M2, "f8e5m2", 2},
    {DType::I32, "i32", -1},
    {DType::U32, "u32", -1},
    {DType::U8, "u8", -1},
    {DType::I8, "i8", -1},
    {DType::I16, "i16", -1},
    {DType::U16, "u16", -1},
}};

const DTypeInfo *find(DType t) {
  for (const DTypeInfo &info : kDTypes)
    if (info.type == t)
      return &info;
  return nullptr;
}

} // namespace

std::string_view name(DType t) {
  const DTypeInfo *info = find(t);
  return info ? info->name : "unknown";
}

std::optional<DType> parseDType(std::string_view name) {
  for (const DTypeInfo &info : kDTypes)
    if (info.name == name)
      return info.type;
  return std::nullopt;
}

double unitRoundoff(DType t) {
  const DTypeInfo *info = find(t);
  return info && info->mantissaBits >= 0 ? std::ldexp(1.0, -(info->mantissaBits + 1)) : 0.0;
}

} // namespace tessera::isa
