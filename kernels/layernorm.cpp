// layernorm: Y[r, :] = (X[r, :] - mean) / sqrt(var + eps) * gamma + beta, mean and (biased) variance over the
// row, FP32, rows on partitions (NKI's LayerNorm tutorial). Per block of up to 128 rows, moved in column chunks of
// 512 as rmsnorm's (Rows.h). gamma and beta [1, C] are broadcast to every partition once per block height, before
// the loop (broadcast_to: on a NeuronCore, loads that repeat the row on every partition). R need not be a multiple
// of 128 (the last R % 128 rows are one smaller block after the loop), nor C of 512. Scalar parameter eps (default
// 1e-5, PyTorch's). FP32 in and out, as rmsnorm (see there for why).
//
// Kernel parameter form picks how the statistics are taken:
//  - form=1 (the default; the tutorial's first version): language ops only, so it runs on every target. The
//    chunks' row sums, added and divided by C, are the mean; the centred chunks' squares, summed and divided, the
//    variance (two passes: no cancellation); rsqrt(var + eps); then each centred chunk is multiplied by it
//    (broadcast along the row) and by its columns of gamma, and beta added.
//  - form=2 (the tutorial's second version, NeuronCore only): tsr::isa::bn_stats on each chunk of at most 512
//    columns, written side by side into one [rows, 6 x chunks] tile, and tsr::isa::bn_aggr of that tile for the
//    mean and variance: one vector-engine pass over X for both; then one tsr::isa::tensor_scalar per chunk
//    ((x - mean) * rsqrt(var + eps), the [P, 1] statistics as operands) before gamma and beta. These are
//    NeuronCore instructions: on a TPU the compiler rejects them at their line.

#include "Rows.h"

#include <fmt/format.h>

#include <vector>

namespace {

using namespace tsr;
using tessera::kernels::forEachBlock;
using tessera::kernels::kChunkColumns;
using tessera::kernels::loadChunks;
using tessera::kernels::rowSum;
using tessera::kernels::storeChunks;

constexpr const char *kName = "layernorm";
constexpr int64_t kLanguageForm = 1, kBatchNormStatsForm = 2;
/// bn_stats' (count, mean, M2) triples per chunk: one for the even elements, one for the odd (isa/Reductions).
constexpr int64_t kStatsPerChunk = 6;

/// What every block of `rows` rows reads, made once per block height: gamma and beta on every row.
struct RowConstants {
  Tile gamma, beta;
};

const Registration registration{{
    .name = kName,
    .summary = "row-wise LayerNorm of X[R, C] with gamma, beta [1, C], FP32; form=1 language ops, form=2 "
               "bn_stats/bn_aggr (NeuronCore)",
    .params = {{"R", 512}, {"C", 1024}},
    .kernelParams = {{"form", kLanguageForm}},
    .scalarParams = {{"eps", 1e-5}},
    .signature =
        [](const Params &p) {
          require(p["form"] == kLanguageForm || p["form"] == kBatchNormStatsForm,
                  fmt::format("{}: form must be 1 (language ops) or 2 (bn_stats/bn_aggr), not {}", kName, p["form"]));
          require(p.scalar("eps") > 0, fmt::format("{}: eps must be positive", kName));
          return std::vector<TensorSpec>{input("x", {p["R"], p["C"]}, f32), input("gamma", {1, p["C"]}, f32),
                                         input("beta", {1, p["C"]}, f32), output("y", {p["R"], p["C"]}, f32)};
        },
    .body = body([](const Params &p, Hbm x, Hbm gamma, Hbm beta, Hbm y) {
      const int64_t cols = x.dim(1);
      const bool bnStats = p["form"] == kBatchNormStatsForm;
      const float eps = static_cast<float>(p.scalar("eps"));
      Tile gammaRow = load(gamma.tile(0, 0, {1, cols}));
      Tile betaRow = load(beta.tile(0, 0, {1, cols}));
      forEachBlock(
          x.dim(0), tile_size::pmax,
          [&](int64_t rows) {
            return RowConstants{gammaRow.broadcast_to({rows, cols}), betaRow.broadcast_to({rows, cols})};
          },
          [&](const Index &row, int64_t rows, const RowConstants &k) {
            const std::vector<Tile> chunks = loadChunks(x, row, 0, rows, cols);
            std::vector<Tile> normalised;
            if (bnStats) {
              // Mean and variance in one pass: bn_stats per chunk, bn_aggr over all of them.
              Tile stats = ndarray<f32>({rows, kStatsPerChunk * int64_t(chunks.size())});
              for (size_t j = 0; j < chunks.size(); ++j)
                isa::bn_stats(stats.slice(kStatsPerChunk * int64_t(j), kStatsPerChunk), chunks[j]);
              Tile meanVar = ndarray<f32>({rows, 2});
              isa::bn_aggr(meanVar, stats);
              const Tile mean = meanVar.slice(0, 1);
              const Tile scale = rsqrt(meanVar.slice(1, 1) + eps);
              for (const Tile &chunk : chunks) {
                Tile n = ndarray<f32>(chunk.shape());
                isa::tensor_scalar(n, chunk, op::subtract, mean, false, op::multiply, scale);
                normalised.push_back(n);
              }
            } else {
              Tile mean = rowSum(chunks) / float(cols);
              std::vector<Tile> centred, squares;
              for (const Tile &chunk : chunks) {
                centred.push_back(chunk - mean);
                squares.push_back(square(centred.back()));
              }
              Tile scale = rsqrt(rowSum(squares) / float(cols) + eps);
              for (const Tile &c : centred) normalised.push_back(c * scale);
            }
            std::vector<Tile> out;
            for (size_t j = 0; j < normalised.size(); ++j) {
              const int64_t start = int64_t(j) * kChunkColumns, size = normalised[j].shape()[1];
              out.push_back(normalised[j] * k.gamma.slice(start, size) + k.beta.slice(start, size));
            }
            storeChunks(y, row, 0, out);
          });
    }),
    .reference = tessera::kernels::layerNormReference,
}};

} // namespace
