// tut_rmsnorm: NKI's RMSNorm tutorial kernel, ported to the tsr:: DSL.
//   Tutorial: https://awsdocs-neuron.readthedocs-hosted.com/en/v2.29.0/nki/guides/tutorials/rmsnorm.html
//   Source:   github.com/aws-neuron/nki-samples, src/nki_samples/tutorials/rmsnorm/rmsnorm_nki_kernels.py
//             (nki_rmsnorm_kernel)
// out = a / sqrt(mean(a^2)) * g along each row, FP32, 128 rows per tile, the whole row in one tile; no eps (the
// tutorial has none).
//
// What differs from the tutorial, and why:
//  - g_tensor is 1-D [C] in the tutorial (reshaped to [1, C] for its load); HBM tensors have at least 2 dimensions
//    here: g is [1, C].
//  - g is loaded once, before the loop, as a [1, C] tile and broadcast to [128, C] in the loop
//    (g_tile.broadcast_to((128, C))), as the tutorial does: on a NeuronCore four nc_stream_shuffles per iteration.
//  - The loop runs ceil(R / 128) times with masks on the last tile's rows (mask=(i * 128 + ix < num_rows)). NKI
//    0.2 deprecated masks for slices bounded by min() (its migration guide, "Deprecation of masking"); here the
//    loop runs over the R / 128 full tiles and the same body runs once more on the last R % 128 rows, a tile of
//    that many partitions, which multiplies by the first partitions of g's broadcast tile (g_bcast[0:rest, :]).
//  - square, sum, / C, rsqrt, multiply, multiply, store: line for line.

#include "../Rows.h"

#include <cmath>

namespace {

using namespace tsr;

const Registration registration{{
    .name = "tut_rmsnorm",
    .summary = "NKI tutorial 'RMSNorm': a[R, C] / rms(row) * g[1, C], FP32, no eps, 128 rows per tile",
    .params = {{"R", 256}, {"C", 512}},
    .signature =
        [](const Params &p) {
          return std::vector<TensorSpec>{input("a_tensor", {p["R"], p["C"]}, f32), input("g_tensor", {1, p["C"]}, f32),
                                         output("out_tensor", {p["R"], p["C"]}, f32)};
        },
    .body = body([](Hbm a_tensor, Hbm g_tensor, Hbm out_tensor) {
      const int64_t cols = a_tensor.dim(1);
      Tile g_tile = load(g_tensor.tile(0, 0, {1, cols}));
      // One tile of `rows` rows from row `row`: 128 in the loop, the rest after it.
      tessera::kernels::forEachBlock(a_tensor.dim(0), 128, [&](const Index &row, int64_t rows) {
        Tile a_tile = load(a_tensor.window(row, 0, {rows, cols}));
        Tile in_square = square(a_tile);
        Tile square_sum = sum(in_square);
        Tile mean = square_sum / float(cols);
        Tile rms_reciprocal = rsqrt(mean);
        Tile out_tile = a_tile * rms_reciprocal;
        Tile g_bcast = g_tile.broadcast_to({128, cols});
        out_tile = out_tile * (rows == 128 ? g_bcast : g_bcast.partition_slice(0, rows));
        store(out_tensor.window(row, 0, {rows, cols}), out_tile);
      });
    }),
    .reference =
        [](const Params &p, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
          const int64_t R = p["R"], C = p["C"];
          for (int64_t r = 0; r < R; ++r) {
            const float *a = &in[0][r * C];
            double squares = 0;
            for (int64_t c = 0; c < C; ++c) squares += double(a[c]) * a[c];
            const double scale = 1.0 / std::sqrt(squares / double(C));
            for (int64_t c = 0; c < C; ++c) out[0][r * C + c] = static_cast<float>(a[c] * scale * in[1][c]);
          }
        },
}};

} // namespace
