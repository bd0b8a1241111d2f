#pragma once
/// \file
/// tsr::isa::Scalar: an operand that NKI takes either as a number or as a [P, 1] tile holding one value per
/// partition (NKI's `float | NkiTensor`, e.g. tensor_scalar's operand0), broadcast along the free dimension.
///
/// ```cpp
/// tsr::isa::tensor_scalar(dst, x, tsr::op::multiply, 2.0f);     // a number
/// tsr::isa::tensor_scalar(dst, x, tsr::op::subtract, row_max);  // a [P, 1] tile
/// ```

#include "tessera/dsl/Tile.h"

#include <optional>
#include <source_location>
#include <type_traits>

namespace tsr::isa {

/// A number, or a [P, 1] tile with one value per partition.
class Scalar {
public:
  template <typename T>
    requires std::is_arithmetic_v<T>
  Scalar(T value) : value_(static_cast<float>(value)) {} // NOLINT: implicit on purpose, like NKI's number
  Scalar(const Tile &tile, std::source_location loc = std::source_location::current()) // NOLINT: implicit
      : tile_(Operand(tile, loc)) {}
  /// An HBM window is never a valid scalar; accepting it lets the call report it at the kernel's line.
  Scalar(const HbmTile &hbm, std::source_location loc = std::source_location::current()) // NOLINT: implicit
      : tile_(Operand(hbm, loc)) {}

  /// The tile, when the kernel passed one.
  const std::optional<Operand> &tile() const { return tile_; }
  /// The number (0 when the kernel passed a tile).
  float value() const { return value_; }

private:
  float value_ = 0.0f;
  std::optional<Operand> tile_;
};

} // namespace tsr::isa
