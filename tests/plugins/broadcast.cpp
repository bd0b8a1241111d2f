// plugin_broadcast: the forms NKI kernels write for constants and broadcasts, on every target and backend:
// numbers as operands (x * 0.5 + 1, 1 - t) and windows that repeat one row or one column of an HBM tensor (a step
// of 0: NKI's x[r:r+1, :].broadcast(0, P), Pallas' jnp.broadcast_to). Per block of 256 columns of x [128, C]:
//   y = (1 - (x * 0.5 + 1) * g) + s,   g = gamma[0, block] on every row,   s = scale[row, 0] along the row
// gamma [1, C], scale [128, 1]; y [128, C]. Run, deployed and compiled for both families (tests/compiler.cmake,
// tests/backends.cmake).

#include "tessera/dsl/tsr.h"

namespace {

using namespace tsr;

constexpr int64_t kRows = 128, kBlock = 256;

const Registration registration{{
    .name = "plugin_broadcast",
    .summary = "numbers as operands and broadcast windows of rows and columns (a test plugin's kernel)",
    .params = {{"C", 512}},
    .signature =
        [](const Params &p) {
          require(p["C"] > 0 && p["C"] % kBlock == 0, "plugin_broadcast: C must be a positive multiple of 256");
          return std::vector<TensorSpec>{input("x", {kRows, p["C"]}, f32), input("gamma", {1, p["C"]}, f32),
                                         input("scale", {kRows, 1}, f32), output("y", {kRows, p["C"]}, f32)};
        },
    .body = body([](Hbm x, Hbm gamma, Hbm scale, Hbm y) {
      Tile s = load(scale.window(0, 0, {kRows, kBlock}, {1, 0})); // scale's column repeated along the row
      for (auto j : affine_range(x.dim(1) / kBlock)) {
        Tile xt = load(x.tile(0, j, {kRows, kBlock}));
        Tile g = load(gamma.window(0, j * kBlock, {kRows, kBlock}, {0, 1})); // gamma's row on every partition
        Tile t = (xt * 0.5f + 1) * g;
        store(y.tile(0, j, {kRows, kBlock}), (1 - t) + s);
      }
    }),
    .reference =
        [](const Params &p, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
          const int64_t C = p["C"];
          const float *x = in[0].data(), *gamma = in[1].data(), *scale = in[2].data();
          for (int64_t r = 0; r < kRows; ++r)
            for (int64_t c = 0; c < C; ++c) {
              const double t = (double(x[r * C + c]) * 0.5 + 1) * gamma[c];
              out[0][r * C + c] = static_cast<float>((1 - t) + scale[r]);
            }
        },
}};

} // namespace
