// plugin_tile_broadcast: tiles broadcast on chip with tsr::broadcast_to (NKI: nl.broadcast_to, t.broadcast_to), on
// every target and backend: a loaded row onto 128 partitions in its own dtype, the same row doubled on chip onto 128
// partitions, the row onto 100 partitions (a last quadrant of 4) converted to bf16, a column along the free dimension,
// and one value everywhere (on a NeuronCore all nc_stream_shuffles and tensor_copies: the row has other readers, so
// its load does not become a broadcast load; compiler/test/Transforms/legalize-for-neuroncore.mlir has that):
//   y[r, c] = x[r, c] * gamma[0, c] + scale[r, 0] + bias[0, 0] + 2 gamma[0, c],   z[r, c] = bf16(gamma[0, c]), r < 100
// x [128, C], gamma [1, C], scale [128, 1], bias [1, 1]. Run, deployed and compiled for both families
// (tests/compiler.cmake, tests/backends.cmake).

#include "tessera/dsl/tsr.h"

namespace {

using namespace tsr;

constexpr int64_t kRows = 128, kShortRows = 100;

const Registration registration{{
    .name = "plugin_tile_broadcast",
    .summary = "rows, columns and a value broadcast on chip with broadcast_to (a test plugin's kernel)",
    .params = {{"C", 512}},
    .signature =
        [](const Params &p) {
          return std::vector<TensorSpec>{input("x", {kRows, p["C"]}, f32),  input("gamma", {1, p["C"]}, f32),
                                         input("scale", {kRows, 1}, f32),    input("bias", {1, 1}, f32),
                                         output("y", {kRows, p["C"]}, f32), output("z", {kShortRows, p["C"]}, bf16)};
        },
    .body = body([](Hbm x, Hbm gamma, Hbm scale, Hbm bias, Hbm y, Hbm z) {
      const int64_t C = x.dim(1);
      Tile g = load(gamma.tile(0, 0, {1, C}));
      Tile rows = g.broadcast_to({kRows, C});                  // [1, C] -> [128, C]
      Tile twice = (g * 2.0f).broadcast_to({kRows, C});        // a row made on chip
      Tile columns = broadcast_to(load(scale.tile(0, 0, {kRows, 1})), {kRows, C}); // [128, 1] -> [128, C]
      Tile value = broadcast_to(load(bias.tile(0, 0, {1, 1})), {kRows, C});     // [1, 1] -> [128, C]
      Tile xt = load(x.tile(0, 0, {kRows, C}));
      store(y.tile(0, 0, {kRows, C}), xt * rows + columns + value + twice);
      store(z.tile(0, 0, {kShortRows, C}), broadcast_to(g, {kShortRows, C}, bf16)); // converted, 100 partitions
    }),
    .reference =
        [](const Params &p, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
          const int64_t C = p["C"];
          const float *x = in[0].data(), *gamma = in[1].data(), *scale = in[2].data(), bias = in[3][0];
          for (int64_t r = 0; r < kRows; ++r)
            for (int64_t c = 0; c < C; ++c) {
              const float t = x[r * C + c] * gamma[c]; // one rounding per op, as the kernel's FP32 engines
              out[0][r * C + c] = ((t + scale[r]) + bias) + 2 * gamma[c];
              if (r < kShortRows) out[1][r * C + c] = gamma[c];
            }
        },
}};

} // namespace
