// plugin_index_division: loop indices divided by constants, as NKI kernels write `t // 2` and `t % 2`. One loop of
// 2 R / 128 iterations walks x [R, C] in [128, C / 2] tiles: iteration t reads row block t / 2, column half t % 2,
// and writes twice it into the other half of y's row block (column half 1 - t % 2):
//   y[r, c] = 2 x[r, (c + C / 2) mod C]
// The offsets are not affine in the loop, so the simulator, the golden model and both backends must agree on
// floor division. Run, deployed and compiled for both families (tests/compiler.cmake, tests/backends.cmake).

#include "tessera/dsl/tsr.h"

namespace {

using namespace tsr;

constexpr int64_t kRows = 128;

const Registration registration{{
    .name = "plugin_index_division",
    .summary = "loop indices divided by constants, t / 2 and t % 2 (a test plugin's kernel)",
    .params = {{"R", 256}, {"C", 512}},
    .signature =
        [](const Params &p) {
          require(p["R"] % kRows == 0 && p["C"] % 256 == 0,
                  "plugin_index_division: R must be a multiple of 128 and C of 256");
          return std::vector<TensorSpec>{input("x", {p["R"], p["C"]}, f32), output("y", {p["R"], p["C"]}, f32)};
        },
    .body = body([](Hbm x, Hbm y) {
      const int64_t half = x.dim(1) / 2;
      for (auto t : affine_range(2 * x.dim(0) / kRows)) {
        Tile xt = load(x.tile(t / 2, t % 2, {kRows, half}));
        store(y.tile(t / 2, 1 - t % 2, {kRows, half}), xt * 2.0f);
      }
    }),
    .reference =
        [](const Params &p, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
          const int64_t columns = p["C"], half = columns / 2;
          for (int64_t r = 0; r < p["R"]; ++r)
            for (int64_t c = 0; c < columns; ++c)
              out[0][r * columns + c] = 2 * in[0][r * columns + (c + half) % columns];
        },
}};

} // namespace
