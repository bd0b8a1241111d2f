// softmax: Y[r, :] = exp(X[r, :] - max X[r, :]) / sum exp(X[r, :] - max X[r, :]), FP32, rows on partitions.
// Each block of 128 rows is one tile: a row max on the vector engine, the shifted exponential on the scalar
// engine, a row sum, and a broadcast divide.

#include "Rows.h"

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
    .reference = tessera::kernels::softmaxReference,
}};

} // namespace
