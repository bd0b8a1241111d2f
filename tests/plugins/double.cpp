// plugin_double: y = x + x, FP32, for the plugin tests (tests/plugins/CMakeLists.txt). Built into a plugin with
// tessera_add_kernels, as a user's kernels are.

#include "tessera/dsl/tsr.h"

namespace {

using namespace tsr;

const Registration registration{{
    .name = "plugin_double",
    .summary = "y = x + x, FP32 (a test plugin's kernel)",
    .params = {{"R", 128}, {"C", 256}},
    .kernelParams = {{"bc", 128}},
    .signature =
        [](const Params &p) {
          require(p["R"] % tile_size::pmax == 0, "plugin_double: R must be a multiple of 128");
          require(p["C"] % p["bc"] == 0, "plugin_double: bc must divide C");
          return std::vector<TensorSpec>{input("x", {p["R"], p["C"]}, f32), output("y", {p["R"], p["C"]}, f32)};
        },
    .body = body([](const Params &p, Hbm x, Hbm y) {
      const int64_t rows = tile_size::pmax, cols = p["bc"];
      for (auto i : affine_range(x.dim(0) / rows))
        for (auto j : affine_range(x.dim(1) / cols)) {
          Tile t = load(x.tile(i, j, {rows, cols}));
          store(y.tile(i, j, {rows, cols}), t + t);
        }
    }),
    .reference =
        [](const Params &, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
          for (size_t i = 0; i < out[0].size(); ++i) out[0][i] = 2 * in[0][i];
        },
}};

} // namespace
