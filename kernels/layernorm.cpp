// layernorm: Y[r, :] = (X[r, :] - mean) / sqrt(var + eps) * gamma + beta, mean and (biased) variance over the
// row, FP32, rows on partitions (NKI's LayerNorm tutorial, first version: language ops only). Per block of up to
// 128 rows, moved in column chunks of 512 as rmsnorm's (Rows.h): the chunks' row sums, added and scaled by 1/C,
// are the mean; the centred chunks' squares, summed and scaled, the variance (two passes: no cancellation);
// rsqrt(var + eps); then each centred chunk is multiplied by it (broadcast along the row) and by its columns of
// gamma, and beta added. gamma and beta [1, C] are broadcast to every partition once, before the loop (Rows.h).
// R need not be a multiple of 128 (the last R % 128 rows are one smaller block after the loop), nor C of 512.
// eps is fixed at 1e-5 (PyTorch's default): kernel parameters are positive integers. FP32 in and out, as rmsnorm
// (see there for why).
//
// Written with tsr:: language ops, so it runs on every target. A NeuronCore-only variant (the tutorial's second
// version) would take the statistics with tsr::isa::bn_stats on each chunk of at most 512 columns of a row block,
// written side by side into one [rows, 6 x chunks] tile, and tsr::isa::bn_aggr of that tile for the mean and
// variance (one vector-engine pass over X instead of two); then rsqrt(var + eps) on the scalar engine and one
// tsr::isa::tensor_scalar (subtract the mean, multiply by the reciprocal) before gamma and beta. Those are
// NeuronCore instructions: on a TPU the compiler rejects them.

#include "Rows.h"

#include <cmath>
#include <vector>

namespace {

using namespace tsr;
using tessera::kernels::broadcastRows;
using tessera::kernels::forEachBlock;
using tessera::kernels::kChunkColumns;
using tessera::kernels::loadChunks;
using tessera::kernels::rowSum;
using tessera::kernels::storeChunks;

constexpr float kEps = 1e-5f;

/// What every block of `rows` rows reads, made once per block height: gamma and beta on every row, 1/C, eps.
struct RowConstants {
  Tile gamma, beta, invCols, eps;
};

const Registration registration{{
    .name = "layernorm",
    .summary = "row-wise LayerNorm of X[R, C] with gamma, beta [1, C], eps 1e-5, FP32",
    .params = {{"R", 512}, {"C", 1024}},
    .signature =
        [](const Params &p) {
          return std::vector<TensorSpec>{input("x", {p["R"], p["C"]}, f32), input("gamma", {1, p["C"]}, f32),
                                         input("beta", {1, p["C"]}, f32), output("y", {p["R"], p["C"]}, f32)};
        },
    .body = body([](Hbm x, Hbm gamma, Hbm beta, Hbm y) {
      const int64_t cols = x.dim(1);
      Tile gammaRow = load(gamma.tile(0, 0, {1, cols}));
      Tile betaRow = load(beta.tile(0, 0, {1, cols}));
      forEachBlock(
          x.dim(0), tile_size::pmax,
          [&](int64_t rows) {
            return RowConstants{broadcastRows(gammaRow, rows), broadcastRows(betaRow, rows),
                                full(f32, {rows, 1}, 1.0f / float(cols)), full(f32, {rows, 1}, kEps)};
          },
          [&](const Index &row, int64_t rows, const RowConstants &k) {
            const std::vector<Tile> chunks = loadChunks(x, row, 0, rows, cols);
            Tile mean = rowSum(chunks) * k.invCols;
            std::vector<Tile> centred, squares;
            for (const Tile &chunk : chunks) {
              centred.push_back(chunk - mean);
              squares.push_back(square(centred.back()));
            }
            Tile scale = rsqrt(rowSum(squares) * k.invCols + k.eps);
            std::vector<Tile> out;
            for (size_t j = 0; j < centred.size(); ++j) {
              const int64_t start = int64_t(j) * kChunkColumns, size = centred[j].shape()[1];
              out.push_back(centred[j] * scale * k.gamma.slice(start, size) + k.beta.slice(start, size));
            }
            storeChunks(y, row, 0, out);
          });
    }),
    .reference =
        [](const Params &p, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
          const int64_t R = p["R"], C = p["C"];
          const float *gamma = in[1].data(), *beta = in[2].data();
          for (int64_t r = 0; r < R; ++r) {
            const float *x = &in[0][r * C];
            double mean = 0, var = 0;
            for (int64_t c = 0; c < C; ++c) mean += x[c];
            mean /= double(C);
            for (int64_t c = 0; c < C; ++c) var += (x[c] - mean) * (x[c] - mean);
            const double scale = 1.0 / std::sqrt(var / double(C) + double(kEps));
            for (int64_t c = 0; c < C; ++c)
              out[0][r * C + c] = static_cast<float>((x[c] - mean) * scale * gamma[c] + beta[c]);
          }
        },
}};

} // namespace
