#include "Rows.h"

#include <algorithm>

namespace tessera::kernels {

using namespace tsr;

int64_t columnChunk(int64_t n) {
  for (int64_t c : {2048, 1024, 512, 256, 128})
    if (n % c == 0) return std::min(c, n);
  return n;
}

Tile broadcastRows(const Tile &row, int64_t rows) {
  const int64_t cols = row.shape()[1], width = tile_size::gemm_moving_fmax;
  Tile ones = full(row.dtype(), {1, rows}, 1.0f);
  Tile out = zeros<f32>({rows, cols});
  for (int64_t start = 0; start < cols; start += width) {
    const int64_t size = std::min(width, cols - start);
    Tile part = matmul(ones, row.slice(start, size));
    out.slice(start, size) += part;
  }
  return out;
}

} // namespace tessera::kernels
