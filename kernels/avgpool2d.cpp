// avgpool2d: Y = the k x k average pooling of X at stride k (non-overlapping windows), NCHW, bf16 in and out, FP32
// sums. X [N, C, H, W] is given as x[N * C * H, W] (its memory as it is: one image row per row), Y [N, C, H/k, W/k]
// as y[N * C * H/k, W/k].
//
// On a systolic array the pooling is two matmuls with 0/1 pooling matrices, no strided access and no transpose:
// with a block of image rows on partitions (rows r, columns w),
//   T = X^T P_rows: T[w, q] = sum over the k rows r of window row q of X[r, w]  (contracting over rows: X as the
//                   stationary operand, so T comes out with columns on partitions), and
//   Y = T^T P_cols: Y[q, o] = sum over the k columns w of window column o of T[w, q]  (contracting over columns),
// then Y / k^2. P_rows[r, q] = 1 where k q <= r < k q + k (P_cols likewise) is made once, with two fills by
// position (tsr::fill: a band is two linear tests). The sums are exact: the first matmul's in FP32 in PSUM, T kept
// in FP32 for the second, an FP32 matmul (4 passes of the tensor engine on a NeuronCore, 6 of the MXU on a TPU:
// there the MXU is the busiest unit; splitting T into two bf16 halves would halve that, at three vector
// instructions per block more, which cost a NeuronCore more than it saves).
// A block is up to 128 rows (a multiple of k: every window's rows in one block, since H is a multiple of k) by up
// to 128 columns (a multiple of k): its T is [<= 128, <= 128 / k] and its Y [<= 128 / k, <= 128 / k]. Each block
// of rows is one load of [rows, W] and one store of [rows / k, W / k]; a loop step takes four blocks.
//
// Shapes: H and W multiples of k (PyTorch's floor mode would drop the rest), any N and C, so the rows need not be
// a multiple of 128.

#include "Rows.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace {

using namespace tsr;

constexpr const char *kName = "avgpool2d";

/// The 0/1 matrix P[r, q] = 1 where k q <= r < k q + k: [n, n / k], in `dtype`.
Tile poolingMatrix(DType dtype, int64_t n, int64_t k) {
  Tile p = full(dtype, {n, n / k}, 1.0f);
  fill(p, 0.0f, {.partition = 1, .free = -k, .offset = 0, .cmp = op::less});         // r - k q < 0
  fill(p, 0.0f, {.partition = 1, .free = -k, .offset = -(k - 1), .cmp = op::greater}); // r - k q > k - 1
  return p;
}

/// The pooling matrices of each block size, made once (at most two sizes: the full block and the last one).
class PoolingMatrices {
public:
  PoolingMatrices(DType dtype, int64_t k) : dtype_(dtype), k_(k) {}
  const Tile &of(int64_t n) {
    auto it = matrices_.find(n);
    if (it == matrices_.end()) it = matrices_.emplace(n, poolingMatrix(dtype_, n, k_)).first;
    return it->second;
  }

private:
  DType dtype_;
  int64_t k_;
  std::map<int64_t, Tile> matrices_;
};

const Registration registration{{
    .name = kName,
    .summary = "k x k average pooling at stride k, NCHW as x[N*C*H, W] -> y[N*C*H/k, W/k], bf16, two matmuls with "
               "pooling matrices per block",
    .params = {{"N", 1}, {"C", 64}, {"H", 64}, {"W", 64}},
    .kernelParams = {{"k", 2}},
    .signature =
        [](const Params &p) {
          const int64_t k = p["k"];
          require(k <= tile_size::pmax / 2, fmt::format("{}: k={} must be at most 64", kName, k));
          require(p["H"] % k == 0 && p["W"] % k == 0,
                  fmt::format("{}: H={} and W={} must be multiples of k={}", kName, p["H"], p["W"], k));
          const int64_t rows = p["N"] * p["C"] * p["H"];
          return std::vector<TensorSpec>{input("x", {rows, p["W"]}, bf16),
                                         output("y", {rows / k, p["W"] / k}, bf16)};
        },
    .body = body([](const Params &p, Hbm x, Hbm y) {
      const int64_t k = p["k"], W = x.dim(1);
      // Blocks of whole windows: the most rows (columns) a multiple of k that fit 128 partitions.
      const int64_t blockRows = tile_size::pmax / k * k, blockColumns = blockRows;
      const float scale = 1.0f / static_cast<float>(k * k);
      PoolingMatrices rowsMatrices(bf16, k), columnsMatrices(f32, k);
      // The block of `rows` image rows from r0 = k * q0: output rows from q0.
      auto pool = [&](const Index &r0, const Index &q0, int64_t rows) {
        const Tile &poolRows = rowsMatrices.of(rows);
        const Tile block = load(x.window(r0, 0, {rows, W}));
        Tile out = ndarray<bf16>({rows / k, W / k});
        for (int64_t c0 = 0; c0 < W; c0 += blockColumns) {
          const int64_t cols = std::min(blockColumns, W - c0);
          const Tile columnSums = matmul(block.slice(c0, cols), poolRows); // T: [cols, rows / k], in PSUM
          const Tile sums = copy<f32>(columnSums);
          const Tile pooled = matmul(sums, columnsMatrices.of(cols)); // [rows / k, cols / k]
          activation(out.slice(c0 / k, cols / k), act::copy, pooled, {.scale = scale});
        }
        store(y.window(q0, 0, {rows / k, W / k}), out);
      };
      // Four blocks per iteration: a block's steps form a chain of dependent instructions (load, matmul, copy,
      // matmul, activation, store) of a few microseconds, so with a loop's rotating copies several blocks must be
      // in flight at once to keep the DMA queues busy.
      constexpr int64_t kBlocksPerStep = 4;
      const int64_t R = x.dim(0), step = kBlocksPerStep * blockRows, steps = R / step;
      rowsMatrices.of(blockRows); // made before the loop, once
      for (int64_t c0 = 0; c0 < W; c0 += blockColumns) columnsMatrices.of(std::min(blockColumns, W - c0));
      if (steps > 0)
        for (auto i : affine_range(steps))
          for (int64_t b = 0; b < kBlocksPerStep; ++b)
            pool(i * step + b * blockRows, i * (step / k) + b * (blockRows / k), blockRows);
      for (int64_t r0 = steps * step; r0 < R; r0 += blockRows) {
        const int64_t rows = std::min(blockRows, R - r0);
        tessera::kernels::scoped([&] { pool(r0, r0 / k, rows); });
      }
    }),
    .reference =
        [](const Params &p, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
          // The definition, in double: the mean of each k x k window.
          const int64_t k = p["k"], W = p["W"], OW = W / k, outRows = p["N"] * p["C"] * p["H"] / k;
          for (int64_t q = 0; q < outRows; ++q)
            for (int64_t o = 0; o < OW; ++o) {
              double sum = 0;
              for (int64_t i = 0; i < k; ++i)
                for (int64_t j = 0; j < k; ++j) sum += in[0][(q * k + i) * W + o * k + j];
              out[0][q * OW + o] = static_cast<float>(sum / double(k * k));
            }
        },
}};

} // namespace
