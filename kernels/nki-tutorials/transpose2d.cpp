// tut_transpose2d: NKI's Transpose2D tutorial kernel, ported to the tsr:: DSL.
//   Tutorial: https://awsdocs-neuron.readthedocs-hosted.com/en/v2.29.0/nki/guides/tutorials/transpose2d.html
//   Source:   github.com/aws-neuron/nki-samples, src/nki_samples/tutorials/transpose2d/transpose2d_nki_kernels.py
//             (tensor_transpose2D_kernel_)
// A transpose between two free-dimension axes: each of the P rows of in_tensor[P, F1 * F2] is a row-major
// [F1, F2] matrix; out_tensor[P, F2 * F1] holds each row's [F2, F1] transpose. P on partitions (at most 128).
//
// What differs from the tutorial: nothing in its structure. It loads the whole [P, F1 * F2] tile, then transposes
// with one SBUF-to-SBUF copy whose destination walks an access pattern, out_tile[p, f2 * F1 + f1] = in_tile[p,
// f1 * F2 + f2] (the tutorial's nl.mgrid indices; here out_tile.ap({{F, P}, {1, F1}, {F1, F2}}), the same walk as
// NKI's NkiTensor.ap writes it: f1 outer, f2 inner), and stores out_tile with one DMA. shape2D = (F1, F2) is the
// kernel parameters f1 and f2; in_tensor's columns must be F1 * F2; int8, as the tutorial's test. On a TPU the
// pattern is a relayout of each row (Pallas: the copied values reshaped to [P, F1, F2], transposed into the row's
// [F2, F1] order).

#include "tessera/dsl/tsr.h"

#include <fmt/format.h>

namespace {

using namespace tsr;

const Registration registration{{
    .name = "tut_transpose2d",
    .summary = "NKI tutorial 'Transpose2D': per-row [F1, F2] -> [F2, F1] free-axis transpose of x[P, F1*F2], int8",
    .params = {{"P", 128}},
    .kernelParams = {{"f1", 8}, {"f2", 16}},
    .signature =
        [](const Params &p) {
          require(p["P"] <= tile_size::pmax, fmt::format("tut_transpose2d: P={} must be at most 128", p["P"]));
          const int64_t F = p["f1"] * p["f2"];
          return std::vector<TensorSpec>{input("in_tensor", {p["P"], F}, i8), output("out_tensor", {p["P"], F}, i8)};
        },
    .body = body([](const Params &p, Hbm in_tensor, Hbm out_tensor) {
      const int64_t sz_p = in_tensor.dim(0), sz_f1 = p["f1"], sz_f2 = p["f2"];
      Tile in_tile = load(in_tensor.tile(0, 0, {sz_p, sz_f1 * sz_f2}));
      // out_tile[i_p0, i_f2 * sz_f1 + i_f1] = nl.copy(in_tile[i_p0, i_f1 * sz_f2 + i_f2])
      Tile out_tile = ndarray<i8>({sz_p, sz_f2 * sz_f1});
      assign(out_tile.ap({{sz_f2 * sz_f1, sz_p}, {1, sz_f1}, {sz_f1, sz_f2}}), in_tile);
      store(out_tensor.tile(0, 0, {sz_p, sz_f2 * sz_f1}), out_tile);
    }),
    .reference =
        [](const Params &p, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
          const int64_t P = p["P"], F1 = p["f1"], F2 = p["f2"];
          for (int64_t r = 0; r < P; ++r)
            for (int64_t i = 0; i < F1; ++i)
              for (int64_t j = 0; j < F2; ++j) out[0][r * F1 * F2 + j * F1 + i] = in[0][r * F1 * F2 + i * F2 + j];
        },
}};

} // namespace
