// plugin_misuse: a kernel that misuses the DSL (a tile of 256 partitions, where a tile has at most 128), for the
// exit-status test (compiler/test/Tools/exit-status.test): DSL misuse is bad input, exit 2, naming this file's line.

#include "tessera/dsl/tsr.h"

namespace {

using namespace tsr;

const Registration registration{{
    .name = "plugin_misuse",
    .summary = "loads a [256 x 128] tile: more partitions than a tile has (a test plugin's kernel)",
    .params = {{"R", 256}},
    .signature = [](const Params &p) {
      return std::vector<TensorSpec>{input("x", {p["R"], 128}, f32), output("y", {p["R"], 128}, f32)};
    },
    .body = body([](Hbm x, Hbm y) {
      Tile t = load(x.tile(0, 0, {256, 128})); // the misuse: 256 partitions
      store(y.tile(0, 0, {256, 128}), t);
    }),
}};

} // namespace
