// tut_layernorm_v1, tut_layernorm_v2: NKI's LayerNorm tutorial kernels, ported to the tsr:: DSL.
//   Tutorial: https://awsdocs-neuron.readthedocs-hosted.com/en/v2.29.0/nki/guides/tutorials/layernorm.html
//   Source:   github.com/aws-neuron/nki-samples, src/nki_samples/tutorials/layernorm/layernorm_nki_kernel.py
//             (nki_layernorm_kernel_v1, nki_layernorm_kernel_v2)
// out = (x - mean) / sqrt(var + epsilon) * gamma + beta along each row, FP32, 128 rows per tile, the whole row in
// one tile. v1 uses language ops only (mean and var = mean(x^2) - mean^2, as the tutorial); v2 takes mean and var
// with nisa.bn_stats per 512-column chunk and nisa.bn_aggr, and shifts and scales with one nisa.tensor_scalar.
//
// What differs from the tutorial, and why:
//  - gamma_vector and beta_vector are 1-D [C] in the tutorial; HBM tensors have at least 2 dimensions here: [1, C].
//  - gamma and beta are loaded once as [1, C] tiles and broadcast to [128, C] on chip (broadcast_to) before the
//    loop, as the tutorial does.
//  - The loop runs ceil(R / 128) times with masks on the last tile's rows, and v2 masks the last bn_stats chunk
//    when C is not a multiple of 512. NKI 0.2 deprecated masks for slices bounded by min() (its migration guide,
//    "Deprecation of masking"); here the loop runs over the R / 128 full tiles and the same body runs once more on
//    the last R % 128 rows, a tile of that many partitions, with the first partitions of gamma's and beta's
//    broadcast tiles. v2's C must be a multiple of 512 (its bn_stats chunks).
//  - nl.mean -> tsr::sum / C (the DSL has no mean).
//  - v2's stats_results[i_p, j * 6 + i_f] = bn_stats(input_sb[i_p, j * 512 + i_f]) in an affine_range over j:
//    slices of the two tiles at offsets affine in j, the same loop.
//  - epsilon is the kernel's scalar parameter eps (the tutorial's argument, 1e-5 in its test).
//  - v2 is tsr::isa (NeuronCore) calls, as the tutorial's nisa ones: a TPU target refuses it at bn_stats.

#include "../Rows.h"

#include <string>

namespace {

using namespace tsr;

/// nl.tile_size.bn_stats_fmax: the most elements per partition of one bn_stats.
constexpr int64_t kBnStatsFmax = 512;

std::vector<TensorSpec> signature(const std::string &name, const Params &p, int64_t columnMultiple) {
  require(p["C"] % columnMultiple == 0, name + ": C must be a multiple of " + std::to_string(columnMultiple));
  require(p.scalar("eps") > 0, name + ": eps must be positive");
  return {input("input_tensor", {p["R"], p["C"]}, f32), input("gamma_vector", {1, p["C"]}, f32),
          input("beta_vector", {1, p["C"]}, f32), output("output_tensor", {p["R"], p["C"]}, f32)};
}

/// The frame v1 and v2 share, as the tutorial writes it in both: gamma and beta loaded and broadcast once, before the
/// loop; per 128-row tile the load, the version's own `shiftScale(input_sb, cols, epsilon)` ((x - mean) *
/// rsqrt(var + epsilon)), times gamma plus beta, and the store.
template <class ShiftScale>
void layerNorm(const Params &p, Hbm input_tensor, Hbm gamma_vector, Hbm beta_vector, Hbm output_tensor,
               ShiftScale shiftScale) {
  const int64_t cols = input_tensor.dim(1);
  const float epsilon = static_cast<float>(p.scalar("eps"));
  Tile gamma_sb_bcast = load(gamma_vector.tile(0, 0, {1, cols})).broadcast_to({128, cols});
  Tile beta_sb_bcast = load(beta_vector.tile(0, 0, {1, cols})).broadcast_to({128, cols});
  // One tile of `rows` rows from row `row`: 128 in the loop, the rest after it.
  tessera::kernels::forEachBlock(input_tensor.dim(0), 128, [&](const Index &row, int64_t rows) {
    Tile input_sb = load(input_tensor.window(row, 0, {rows, cols}));
    Tile shift_scale_tensor = shiftScale(input_sb, cols, epsilon);
    auto first = [&](const Tile &t) { return rows == 128 ? t : t.partition_slice(0, rows); };
    Tile output_sb = shift_scale_tensor * first(gamma_sb_bcast) + first(beta_sb_bcast);
    store(output_tensor.window(row, 0, {rows, cols}), output_sb);
  });
}

const Registration v1{{
    .name = "tut_layernorm_v1",
    .summary = "NKI tutorial 'LayerNorm' v1: language ops, var = mean(x^2) - mean^2, FP32, 128 rows per tile",
    .params = {{"R", 256}, {"C", 512}},
    .scalarParams = {{"eps", 1e-5}},
    .signature = [](const Params &p) { return signature("tut_layernorm_v1", p, 1); },
    .body = body([](const Params &p, Hbm input_tensor, Hbm gamma_vector, Hbm beta_vector, Hbm output_tensor) {
      layerNorm(p, input_tensor, gamma_vector, beta_vector, output_tensor,
                [](const Tile &input_sb, int64_t cols, float epsilon) {
                  Tile mean = sum(input_sb) / float(cols);
                  Tile var = sum(square(input_sb)) / float(cols) - mean * mean;
                  return (input_sb - mean) * rsqrt(var + epsilon);
                });
    }),
    .reference = tessera::kernels::layerNormReference, // the library layernorm's
}};

const Registration v2{{
    .name = "tut_layernorm_v2",
    .summary = "NKI tutorial 'LayerNorm' v2: isa bn_stats/bn_aggr and one tensor_scalar, FP32 (NeuronCore only)",
    .params = {{"R", 256}, {"C", 512}},
    .scalarParams = {{"eps", 1e-5}},
    .signature = [](const Params &p) { return signature("tut_layernorm_v2", p, kBnStatsFmax); },
    .body = body([](const Params &p, Hbm input_tensor, Hbm gamma_vector, Hbm beta_vector, Hbm output_tensor) {
      layerNorm(p, input_tensor, gamma_vector, beta_vector, output_tensor,
                [](const Tile &input_sb, int64_t cols, float epsilon) {
                  const int64_t num_bn_stats = cols / kBnStatsFmax;
                  const int64_t rows = input_sb.partitions();
                  Tile stats_results = ndarray<f32>({rows, 6 * num_bn_stats});
                  for (auto j : affine_range(num_bn_stats))
                    isa::bn_stats(stats_results.slice(j * 6, 6), input_sb.slice(j * kBnStatsFmax, kBnStatsFmax));
                  Tile mean_var = ndarray<f32>({rows, 2});
                  isa::bn_aggr(mean_var, stats_results);
                  Tile mean = mean_var.slice(0, 1), var = mean_var.slice(1, 1);
                  Tile scale_var = rsqrt(var + epsilon);
                  Tile shift_scale_tensor = ndarray<f32>({rows, cols});
                  isa::tensor_scalar(shift_scale_tensor, input_sb, op::subtract, mean, false, op::multiply, scale_var);
                  return shift_scale_tensor;
                });
    }),
    .reference = tessera::kernels::layerNormReference, // the library layernorm's
}};

} // namespace
