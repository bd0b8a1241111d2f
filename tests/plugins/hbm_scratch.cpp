// plugin_hbm_scratch: an HBM tensor the kernel makes for its own intermediates (tsr::shared_hbm; NKI's nl.ndarray
// in nl.shared_hbm that the kernel does not return), written by one loop and read back by a later one. x and y are
// [R, C]; the first loop stores 2 x into the scratch tensor block by block, the second loads the blocks in reverse
// order and stores each plus 1 into y:  y[block b] = 2 x[block nb - 1 - b] + 1. The simulator must order every load
// of the second loop after the store that wrote its bytes, as NKI's and Pallas' own dependency tracking do.
// Run, deployed and compiled for both families (tests/compiler.cmake, tests/backends.cmake).

#include "tessera/dsl/tsr.h"

namespace {

using namespace tsr;

constexpr int64_t kRows = 128;

const Registration registration{{
    .name = "plugin_hbm_scratch",
    .summary = "an HBM scratch tensor written by one loop and read back by the next (a test plugin's kernel)",
    .params = {{"R", 384}, {"C", 512}},
    .signature =
        [](const Params &p) {
          require(p["R"] % kRows == 0, "plugin_hbm_scratch: R must be a multiple of 128");
          return std::vector<TensorSpec>{input("x", {p["R"], p["C"]}, f32), output("y", {p["R"], p["C"]}, f32)};
        },
    .body = body([](Hbm x, Hbm y) {
      const int64_t blocks = x.dim(0) / kRows, columns = x.dim(1);
      Hbm doubled = shared_hbm(f32, {x.dim(0), columns}, "doubled");
      for (auto b : affine_range(blocks))
        store(doubled.tile(b, 0, {kRows, columns}), load(x.tile(b, 0, {kRows, columns})) * 2.0f);
      for (auto b : affine_range(blocks))
        store(y.tile(b, 0, {kRows, columns}), load(doubled.tile(blocks - 1 - b, 0, {kRows, columns})) + 1.0f);
    }),
    .reference =
        [](const Params &p, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
          const int64_t blocks = p["R"] / kRows, columns = p["C"];
          for (int64_t r = 0; r < p["R"]; ++r) {
            const int64_t from = (blocks - 1 - r / kRows) * kRows + r % kRows;
            for (int64_t c = 0; c < columns; ++c) out[0][r * columns + c] = 2 * in[0][from * columns + c] + 1;
          }
        },
}};

} // namespace
