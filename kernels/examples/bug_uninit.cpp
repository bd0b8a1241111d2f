// bug_uninit: deliberately broken. It adds a bias tile that nothing ever wrote: tsr::ndarray (NKI's nl.ndarray)
// gives a tile storage, not values. The simulator stops at the add with an uninitialised read naming the
// instruction, the SBUF bytes it read and this file's line.
// The fix: give the tile values before reading it (tsr::zeros<tsr::f32>, or load it from HBM).
//
// The "[bug_uninit: ...]" comments mark the lines the report names (tests/unit/e2e/BugExamplesTest.cpp).

#include "tessera/dsl/tsr.h"

namespace {

using namespace tsr;

const Registration registration{{
    .name = "bug_uninit",
    .summary = "deliberately broken: adds a tile nothing wrote (tsr::ndarray)",
    .params = {{"N", 512}},
    .signature =
        [](const Params &p) {
          return std::vector<TensorSpec>{input("x", {128, p["N"]}, f32), output("y", {128, p["N"]}, f32)};
        },
    .body = body([](Hbm x, Hbm y) {
      const int64_t n = x.dim(1);
      Tile bias = ndarray<f32>({128, n}); // storage only: the kernel forgets to fill it
      Tile t = load(x.tile(0, 0, {128, n}));
      Tile shifted = t + bias; // [bug_uninit: reader] reads bias, which nothing wrote
      store(y.tile(0, 0, {128, n}), shifted);
    }),
    .reference = // what the kernel meant, with a zero bias
    [](const Params &, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) { out[0] = in[0]; },
}};

} // namespace
