#pragma once
/// \file
/// The [rows, columns] matrix an HBM tensor of 2 to 5 dimensions is stored as: row-major, its leading dimensions
/// merged into the rows ([B, S, D] as [B * S, D]). The compiler, the simulator and the backends address a tensor
/// through this matrix; its own shape is kept for what users see (signatures, reports, files).

#include <array>
#include <cstdint>
#include <vector>

namespace tessera::isa {

/// `shape`'s matrix: {product of all but the last dimension, the last}; {1, n} for a 1-D shape, {1, 1} for none.
inline std::array<int64_t, 2> matrixShape(const std::vector<int64_t> &shape) {
  if (shape.empty()) return {1, 1};
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < shape.size(); ++d) rows *= shape[d];
  return {rows, shape.back()};
}

} // namespace tessera::isa
