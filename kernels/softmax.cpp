// softmax: Y[r, :] = exp(X[r, :] - max X[r, :]) / sum exp(X[r, :] - max X[r, :]), FP32, rows on partitions.
// Each block of 128 rows is one tile: a row max on the vector engine, the shifted exponential on the scalar
// engine, a row sum, and a broadcast divide.

#include "tessera/dsl/tsr.h"

#include <cmath>

namespace {

using namespace tsr;

const Registration registration{{
    .name = "softmax",
    .summary = "row-wise softmax of X[R, C], FP32",
    .params = {{"R", 256}, {"C", 512}},
    .signature =
        [](const Params &p) {
          require(p["R"] % tile_size::pmax == 0, "softmax: R must be a multiple of 128");
          return std::vector<TensorSpec>{input("x", {p["R"], p["C"]}, f32), output("y", {p["R"], p["C"]}, f32)};
        },
    .body = body([](Hbm x, Hbm y) {
      const int64_t rows = tile_size::pmax, cols = x.dim(1);
      for (auto i : affine_range(x.dim(0) / rows)) {
        Tile t = load(x.tile(i, 0, {rows, cols}));
        Tile e = exp(t - max(t));
        store(y.tile(i, 0, {rows, cols}), e / sum(e));
      }
    }),
    .reference =
        [](const Params &p, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
          const int64_t R = p["R"], C = p["C"];
          for (int64_t r = 0; r < R; ++r) {
            const float *x = &in[0][r * C];
            float *y = &out[0][r * C];
            double m = *std::max_element(x, x + C), s = 0;
            for (int64_t c = 0; c < C; ++c) s += std::exp(double(x[c]) - m);
            for (int64_t c = 0; c < C; ++c) y[c] = static_cast<float>(std::exp(double(x[c]) - m) / s);
          }
        },
}};

} // namespace
