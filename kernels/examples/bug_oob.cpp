// bug_oob: deliberately broken. It places a scratch tile by hand (tsr::isa::sbuf_tile_at) in the top 8 KiB of
// a 224 KiB SBUF partition: trn2's physical size (28 MiB / 128). But kernels may use only the first 212984 bytes
// of each partition on trn2 (180224 on trn1); the rest is reserved. The DSL and the compiler take a hand-placed
// tile as given, so the simulator finds the instruction that touches it outside SBUF and stops the run naming
// it, the byte range, and this file's line.
// The fix: let the compiler place the tile (tsr::zeros), or pick an offset below the target's SBUF size.
//
// The "[bug_oob: ...]" comments mark the lines the report names (tests/unit/e2e/BugExamplesTest.cpp).

#include "tessera/dsl/tsr.h"

namespace {

using namespace tsr;

constexpr int64_t kPhysicalPartitionBytes = 224 * 1024; // trn2: 28 MiB of SBUF over 128 partitions

const Registration registration{{
    .name = "bug_oob",
    .summary = "deliberately broken: a hand-placed tile past the end of SBUF (tsr::isa::sbuf_tile_at)",
    .params = {{"N", 512}},
    .signature =
        [](const Params &p) {
          return std::vector<TensorSpec>{input("x", {128, p["N"]}, f32), output("y", {128, p["N"]}, f32)};
        },
    .body = body([](Hbm x, Hbm y) {
      const int64_t n = x.dim(1);
      Tile scratch = isa::sbuf_tile_at<f32>(kPhysicalPartitionBytes - 8 * 1024, {128, n});
      isa::memset(scratch, 1.0f); // [bug_oob: access] writes bytes the kernel may not use
      Tile t = load(x.tile(0, 0, {128, n}));
      store(y.tile(0, 0, {128, n}), t * scratch);
    }),
    .reference = [](const Params &, const std::vector<HostTensor> &in,
                    std::vector<HostTensor> &out) { out[0] = in[0]; },
}};

} // namespace
