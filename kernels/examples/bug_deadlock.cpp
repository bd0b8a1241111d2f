// bug_deadlock: deliberately broken. With explicit synchronisation (tsr::isa::manual_sync), the exp waits for
// the wrong semaphore: `computed`, which only the exp itself signals, instead of `loaded`. Nothing can ever
// signal it, the store waits for the exp, and the simulator reports a deadlock listing each blocked engine, the
// semaphore and count it waits for, and the lines of this file. The tile printed before (tsr::device_print)
// shows with the report: what ran before the kernel got stuck.
// The fix: isa::wait(loaded, 1) before the exp.
//
// The "[bug_deadlock: ...]" comments mark the lines the report names (tests/unit/e2e/BugExamplesTest.cpp).

#include "tessera/dsl/tsr.h"

#include <cmath>

namespace {

using namespace tsr;

const Registration registration{{
    .name = "bug_deadlock",
    .summary = "deliberately broken: manual synchronisation that waits on a semaphore nothing signals",
    .params = {{"N", 512}},
    .signature =
        [](const Params &p) {
          return std::vector<TensorSpec>{input("x", {128, p["N"]}, f32), output("y", {128, p["N"]}, f32)};
        },
    .body = body([](Hbm x, Hbm y) {
      const int64_t n = x.dim(1);
      isa::manual_sync sync;
      isa::Semaphore loaded, computed;
      Tile t = load(x.tile(0, 0, {128, n}));
      isa::signal(loaded);
      isa::wait(loaded, 1);
      device_print("t", t);   // [bug_deadlock: print] the load arrived: this runs, the exp never does
      isa::wait(computed, 1); // BUG: should be isa::wait(loaded, 1)
      Tile e = exp(t);        // [bug_deadlock: exp] waits for `computed`, which only it signals
      isa::signal(computed);
      isa::wait(computed, 1);
      store(y.tile(0, 0, {128, n}), e); // [bug_deadlock: store] waits for the exp
    }),
    .reference =
        [](const Params &, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
          for (size_t i = 0; i < out[0].size(); ++i) out[0][i] = std::exp(in[0][i]);
        },
}};

} // namespace
