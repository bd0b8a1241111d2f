// plugin_batched and plugin_batched_heads: 3-D and 4-D HBM tensors indexed as NKI kernels index one, its leading (batch) dimension fixed by a loop
// index and its last two tiled: out[b] = x[b] * 2 + y[b] over [B, S, D], in [128, D] tiles of each batch's
// [S, D] matrix (NKI: x[b, i * 128:(i + 1) * 128, 0:D]); and over [B, H, S, D], out[b][h] = x[b][h] - y[b][h] in
// [128, D / 2] tiles. Run on both families, their NKI and Pallas modules checked (tests/compiler.cmake,
// tests/backends.cmake).

#include "tessera/dsl/tsr.h"

namespace {

using namespace tsr;

const Registration registration{{
    .name = "plugin_batched",
    .summary = "out[b] = x[b] * 2 + y[b] over 3-D [B, S, D] tensors, the batch a loop index (a test plugin's kernel)",
    .params = {{"B", 3}, {"S", 256}, {"D", 256}},
    .signature =
        [](const Params &p) {
          require(p["S"] % tile_size::pmax == 0, "plugin_batched: S must be a multiple of 128");
          const Shape shape{p["B"], p["S"], p["D"]};
          return std::vector<TensorSpec>{input("x", shape, f32), input("y", shape, f32), output("out", shape, f32)};
        },
    .body = body([](Hbm x, Hbm y, Hbm out) {
      for (auto b : affine_range(x.dim(0)))
        for (auto i : affine_range(x.dim(1) / tile_size::pmax)) {
          const Shape size{tile_size::pmax, x.dim(2)};
          Tile xt = load(x[b].tile(i, 0, size));
          Tile yt = load(y[b].tile(i, 0, size));
          store(out[b].tile(i, 0, size), xt * 2.0f + yt);
        }
    }),
    .reference =
        [](const Params &p, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
          const int64_t elements = p["B"] * p["S"] * p["D"];
          for (int64_t e = 0; e < elements; ++e) out[0][e] = in[0][e] * 2 + in[1][e];
        },
}};

const Registration heads{{
    .name = "plugin_batched_heads",
    .summary = "out[b][h] = x[b][h] - y[b][h] over 4-D [B, H, S, D] tensors, both leading indices loop indices (a "
               "test plugin's kernel)",
    .params = {{"B", 2}, {"H", 3}, {"S", 256}, {"D", 256}},
    .signature =
        [](const Params &p) {
          require(p["S"] % tile_size::pmax == 0 && p["D"] % 2 == 0,
                  "plugin_batched_heads: S must be a multiple of 128 and D even");
          const Shape shape{p["B"], p["H"], p["S"], p["D"]};
          return std::vector<TensorSpec>{input("x", shape, f32), input("y", shape, f32), output("out", shape, f32)};
        },
    .body = body([](Hbm x, Hbm y, Hbm out) {
      const Shape size{tile_size::pmax, x.dim(3) / 2};
      for (auto b : affine_range(x.dim(0)))
        for (auto h : affine_range(x.dim(1)))
          for (auto i : affine_range(x.dim(2) / tile_size::pmax))
            for (auto j : affine_range(2)) {
              Tile xt = load(x[b][h].tile(i, j, size));
              Tile yt = load(y[b][h].tile(i, j, size));
              store(out[b][h].tile(i, j, size), xt - yt);
            }
    }),
    .reference =
        [](const Params &p, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
          const int64_t elements = p["B"] * p["H"] * p["S"] * p["D"];
          for (int64_t e = 0; e < elements; ++e) out[0][e] = in[0][e] - in[1][e];
        },
}};

} // namespace
