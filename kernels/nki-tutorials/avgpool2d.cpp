// tut_avgpool2d: NKI's AveragePool2D tutorial kernel, ported to the tsr:: DSL.
//   Tutorial: https://awsdocs-neuron.readthedocs-hosted.com/en/v2.29.0/nki/guides/tutorials/average_pool2d.html
//   Source:   github.com/aws-neuron/nki-samples, src/nki_samples/tutorials/average_pool2d/
//             average_pool2d_nki_kernels.py (tensor_avgpool_kernel)
// k x k average pooling at stride k of in_tensor[C, H, W] into out_tensor[C, H / k, W / k], bf16 (the tutorial's
// PyTorch test), channels on partitions (at most 128, as the tutorial's single tile), each channel's H x W image
// along the free dimension.
//
// What differs from the tutorial, and why:
//  - in_tensor is 3-D [C, H, W]; here in_tensor[C, H * W] and out_tensor[C, Hout * Wout] (a window is 2-D, of the
//    last two dimensions, and the tutorial loads all of [C, H, W], channels on partitions, in one), the same memory.
//  - The tutorial loads the whole [C, H, W] tile once, then reads it through a 5-D access pattern
//    [C, Hout, k, Wout, k] (nl.mgrid, or .ap() in newer versions) and sums the two k axes in one nl.sum. The DSL's
//    tiles have no multi-dimensional access patterns (Tile::slice is one contiguous free range); its only strided
//    access is an HBM window with one step per dimension. So the pattern is split: an affine_range over the output
//    rows ho, and in it one strided DMA per (di, dj) of the window, window(0, (ho k + di) W + dj) with step k,
//    [C, Wout] each: the k^2 elements the tutorial's pattern groups for each output, summed as k^2 - 1 adds (in
//    FP32, as nl.sum accumulates) instead of one reduction, then multiplied by 1 / k^2 into the bf16 output row
//    (the tutorial's tensor_scalar multiply, here the scalar engine's scaled copy, which runs on every target).
//    Each output row is stored as it is done instead of the whole tile at the end.
//  - pool_size is the kernel parameter k; H and W must be multiples of k (the tutorial's floor division would
//    drop the rest).

#include "tessera/dsl/tsr.h"

#include <fmt/format.h>

namespace {

using namespace tsr;

const Registration registration{{
    .name = "tut_avgpool2d",
    .summary = "NKI tutorial 'AveragePool2D': k x k pooling at stride k of x[C, H*W] -> y[C, H/k*W/k], bf16",
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
      const int64_t sz_pool = p["k"], sz_p = in_tensor.dim(0);
      const int64_t sz_win = p["W"], sz_hout = p["H"] / sz_pool, sz_wout = sz_win / sz_pool;
      for (auto ho : affine_range(sz_hout)) {
        Tile sum_tile = zeros<f32>({sz_p, sz_wout});
        for (int64_t di = 0; di < sz_pool; ++di)
          for (int64_t dj = 0; dj < sz_pool; ++dj)
            sum_tile += load(in_tensor.window(0, ho * (sz_pool * sz_win) + (di * sz_win + dj), {sz_p, sz_wout},
                                              {1, sz_pool}));
        Tile out_tile = ndarray<bf16>({sz_p, sz_wout});
        activation(out_tile, act::copy, sum_tile, {.scale = 1.0f / float(sz_pool * sz_pool)});
        store(out_tensor.window(0, ho * sz_wout, {sz_p, sz_wout}), out_tile);
      }
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
