// tut_avgpool2d: NKI's AveragePool2D tutorial kernel, ported to the tsr:: DSL.
//   Tutorial: https://awsdocs-neuron.readthedocs-hosted.com/en/v2.29.0/nki/guides/tutorials/average_pool2d.html
//   Source:   github.com/aws-neuron/nki-samples, src/nki_samples/tutorials/average_pool2d/
//             average_pool2d_nki_kernels.py (tensor_avgpool_kernel, the version with NkiTensor.ap)
// k x k average pooling at stride k of in_tensor[C, H, W] into out_tensor[C, H / k, W / k], bf16 (the tutorial's
// PyTorch test), channels on partitions (at most 128, as the tutorial's single tile), each channel's H x W image
// along the free dimension.
//
// As the tutorial: one load of the whole input, then one 5-D access pattern over the tile, [C, Hout, Wout, k, k]
// with the pool dimensions last (`in_tile.ap(...)`, the tutorial's pool_view), summed over axes 3 and 4 in one
// tsr::sum (nl.sum: one tensor_reduce), scaled by 1 / k^2 with isa::tensor_scalar into the output tile and stored
// with one DMA. What differs, and why:
//  - in_tensor is 3-D [C, H, W] there; here in_tensor[C, H * W] and out_tensor[C, Hout * Wout], the same memory (a
//    DSL tile is 2-D, [partitions, free], and a window takes the last two dimensions of a tensor).
//  - nl.sum keeps the input's dtype; tsr::sum's result is FP32, which tensor_scalar then rounds into the bf16
//    output tile (the tutorial's out_tile has the sum's dtype, the input's): one rounding instead of two.
//  - pool_size is the kernel parameter k; H and W must be multiples of k (the tutorial's floor division would
//    drop the rest).
//  - A NeuronCore kernel: tsr::isa::tensor_scalar is a NeuronCore instruction (its access pattern alone would be
//    a relayout of each row on a TPU).

#include "tessera/dsl/tsr.h"

#include <fmt/format.h>

namespace {

using namespace tsr;

const Registration registration{{
    .name = "tut_avgpool2d",
    .summary = "NKI tutorial 'AveragePool2D': k x k pooling at stride k of x[C, H*W] -> y[C, H/k*W/k], bf16, "
               "through one access pattern",
    .params = {{"C", 128}, {"H", 16}, {"W", 16}},
    .kernelParams = {{"k", 2}},
    .signature =
        [](const Params &p) {
          const int64_t k = p["k"];
          require(p["C"] <= tile_size::pmax, fmt::format("tut_avgpool2d: C={} must be at most 128", p["C"]));
          require(p["H"] % k == 0 && p["W"] % k == 0,
                  fmt::format("tut_avgpool2d: H={} and W={} must be multiples of k={}", p["H"], p["W"], k));
          return std::vector<TensorSpec>{input("in_tensor", {p["C"], p["H"] * p["W"]}, bf16),
                                         output("out_tensor", {p["C"], p["H"] / k * (p["W"] / k)}, bf16)};
        },
    .body = body([](const Params &p, Hbm in_tensor, Hbm out_tensor) {
      const int64_t sz_pool = p["k"], sz_p = in_tensor.dim(0), sz_hin = p["H"], sz_win = p["W"];
      const int64_t sz_hout = sz_hin / sz_pool, sz_wout = sz_win / sz_pool;
      Tile in_tile = load(in_tensor.tile(0, 0, {sz_p, sz_hin * sz_win}));
      // [sz_p, sz_hout, sz_wout, sz_pool, sz_pool]: the pool dimensions last, to reduce over them.
      Tile pool_view = in_tile.ap({{sz_hin * sz_win, sz_p},   // partitions
                                   {sz_pool * sz_win, sz_hout}, // outer row stride
                                   {sz_pool, sz_wout},          // outer column stride
                                   {sz_win, sz_pool},           // row within the pool window
                                   {1, sz_pool}});              // column within the pool window
      Tile sum_tile = sum(pool_view, {3, 4});
      Tile out_tile = ndarray<bf16>({sz_p, sz_hout * sz_wout});
      isa::tensor_scalar(out_tile, sum_tile, op::multiply, 1.0f / float(sz_pool * sz_pool));
      store(out_tensor.tile(0, 0, {sz_p, sz_hout * sz_wout}), out_tile);
    }),
    .reference =
        [](const Params &p, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
          const int64_t C = p["C"], H = p["H"], W = p["W"], k = p["k"], HO = H / k, WO = W / k;
          for (int64_t c = 0; c < C; ++c)
            for (int64_t ho = 0; ho < HO; ++ho)
              for (int64_t wo = 0; wo < WO; ++wo) {
                double sum = 0;
                for (int64_t i = 0; i < k; ++i)
                  for (int64_t j = 0; j < k; ++j) sum += in[0][c * H * W + (ho * k + i) * W + wo * k + j];
                out[0][c * HO * WO + ho * WO + wo] = static_cast<float>(sum / double(k * k));
              }
        },
}};

} // namespace
