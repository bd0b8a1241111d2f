// rmsnorm: Y[r, :] = X[r, :] / sqrt(mean(X[r, :]^2) + eps) * gamma, FP32, rows on partitions (NKI's RMSNorm
// tutorial, plus the eps it leaves out). Per block of up to 128 rows, moved in column chunks of 512 (Rows.h): the
// chunks' squares and row sums, added, divided by C, plus eps (numbers, as NKI writes them), rsqrt; then each
// chunk multiplied by that [rows, 1] reciprocal (broadcast along the row) and by its columns of gamma. gamma[1, C]
// is broadcast to every partition once per block height, before the loop (broadcast_to: on a NeuronCore a load
// that repeats the row on every partition; on a TPU a VPU copy). R need not be a multiple
// of 128 (the last R % 128 rows are one smaller block after the loop), nor C of 512 (the last chunk is narrower).
// The chunks pay on a NeuronCore, where one DMA runs on one of 16 engines: at R=2048, C=4096 trn2 takes 756 us
// instead of 982 with one DMA per row block; tpu-v5e, whose DMAs each stream at HBM's full rate, 95 us instead of
// 84 (it issues more VPU instructions).
// Scalar parameter eps (default 1e-6, Llama's). Input and output are FP32, as softmax's: kernel parameters must not change the tensors (KernelInfo), and the language's
// elementwise ops compute in their input's dtype, so bf16 tensors would need a conversion each way around the
// same FP32 arithmetic.

#include "Rows.h"

#include <cmath>
#include <vector>

namespace {

using namespace tsr;
using tessera::kernels::forEachBlock;
using tessera::kernels::kChunkColumns;
using tessera::kernels::loadChunks;
using tessera::kernels::rowSum;
using tessera::kernels::storeChunks;

const Registration registration{{
    .name = "rmsnorm",
    .summary = "row-wise RMSNorm of X[R, C] scaled by gamma[1, C], FP32",
    .params = {{"R", 512}, {"C", 1024}},
    .scalarParams = {{"eps", 1e-6}},
    .signature =
        [](const Params &p) {
          require(p.scalar("eps") > 0, "rmsnorm: eps must be positive");
          return std::vector<TensorSpec>{input("x", {p["R"], p["C"]}, f32), input("gamma", {1, p["C"]}, f32),
                                         output("y", {p["R"], p["C"]}, f32)};
        },
    .body = body([](const Params &p, Hbm x, Hbm gamma, Hbm y) {
      const int64_t cols = x.dim(1);
      const float eps = static_cast<float>(p.scalar("eps"));
      Tile gammaRow = load(gamma.tile(0, 0, {1, cols}));
      forEachBlock(
          x.dim(0), tile_size::pmax,
          // gamma on every row, once per block height
          [&](int64_t rows) { return gammaRow.broadcast_to({rows, cols}); },
          [&](const Index &row, int64_t rows, const Tile &gammaRows) {
            const std::vector<Tile> chunks = loadChunks(x, row, 0, rows, cols);
            std::vector<Tile> squares;
            for (const Tile &chunk : chunks) squares.push_back(square(chunk));
            Tile scale = rsqrt(rowSum(squares) / float(cols) + eps);
            std::vector<Tile> out;
            for (size_t j = 0; j < chunks.size(); ++j)
              out.push_back(chunks[j] * scale * gammaRows.slice(int64_t(j) * kChunkColumns, chunks[j].shape()[1]));
            storeChunks(y, row, 0, out);
          });
    }),
    .reference =
        [](const Params &p, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
          const int64_t R = p["R"], C = p["C"];
          const float *gamma = in[1].data();
          for (int64_t r = 0; r < R; ++r) {
            const float *x = &in[0][r * C];
            double squares = 0;
            for (int64_t c = 0; c < C; ++c) squares += double(x[c]) * x[c];
            // eps as the kernel uses it: rounded to FP32.
            const double eps = static_cast<float>(p.scalar("eps"));
            const double scale = 1.0 / std::sqrt(squares / double(C) + eps);
            for (int64_t c = 0; c < C; ++c) out[0][r * C + c] = static_cast<float>(x[c] * scale * gamma[c]);
          }
        },
}};

} // namespace
