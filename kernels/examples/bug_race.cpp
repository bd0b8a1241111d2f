// bug_race: deliberately broken. Written at the tsr::isa level with explicit synchronisation: inside a
// tsr::isa::manual_sync scope the compiler inserts no semaphore waits, and the kernel orders its engines with
// semaphores of its own. Each load signals its semaphore when its DMA completes, but the add waits only for
// the first: it forgets `isa::wait(y_loaded, 1)`, so it can read y while y's DMA is still writing it. The
// simulator's race check stops the run naming both instructions (the add on the vector engine, the DMA on
// its queue), the SBUF bytes they share and both lines of this file.
// The fix: add the missing wait before the add.
//
// The "[bug_race: ...]" comments mark the lines the report names (tests/unit/e2e/BugExamplesTest.cpp).

#include "tessera/dsl/tsr.h"

namespace {

using namespace tsr;

const Registration registration{{
    .name = "bug_race",
    .summary = "deliberately broken: manual synchronisation that forgets one wait (a race)",
    .params = {{"N", 512}},
    .signature =
        [](const Params &p) {
          return std::vector<TensorSpec>{input("a", {128, p["N"]}, f32), input("b", {128, p["N"]}, f32),
                                         output("c", {128, p["N"]}, f32)};
        },
    .body = body([](Hbm a, Hbm b, Hbm c) {
      const int64_t n = a.dim(1);
      isa::manual_sync sync; // until the end of the body the kernel synchronises the engines itself
      isa::Semaphore x_loaded, y_loaded, added;
      Tile x = load(a.tile(0, 0, {128, n}));
      isa::signal(x_loaded);
      Tile y = load(b.tile(0, 0, {128, n})); // [bug_race: writer] the DMA that writes y
      isa::signal(y_loaded);
      isa::wait(x_loaded, 1); // BUG: and isa::wait(y_loaded, 1) is missing
      Tile z = x + y;         // [bug_race: reader] reads y, ordered after x's DMA only
      isa::signal(added);
      isa::wait(added, 1);
      store(c.tile(0, 0, {128, n}), z);
    }),
    .reference =
        [](const Params &, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
          for (size_t i = 0; i < out[0].size(); ++i) out[0][i] = in[0][i] + in[1][i];
        },
}};

} // namespace
