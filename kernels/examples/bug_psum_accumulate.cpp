// bug_psum_accumulate: deliberately broken. Written at the tsr::isa level, it zero-fills a PSUM accumulator
// with a memset and then accumulates matmuls onto it (nc_matmul with accumulate = true from the first one).
// On NeuronCore v2/v3 (trn1, trn2) the first write of an accumulation group must be a matmul that overwrites:
// accumulating onto PSUM that memset or a copy wrote is undefined (target files:
// tensor_engine.accumulate_onto_non_matmul). The simulator stops at the first matmul naming it, the memset,
// the PSUM range and both lines of this file.
// The fix: drop the memset and start the group with isa::nc_matmul(acc, ..., k > 0), or write it at the
// language level (`acc += tsr::matmul(...)` onto tsr::psum), where the compiler does that.
//
// The "[bug_psum_accumulate: ...]" comments mark the lines the report names (BugExamplesTest.cpp).

#include "../Matmul.h"

namespace {

using namespace tsr;

const Registration registration{{
    .name = "bug_psum_accumulate",
    .summary = "deliberately broken: matmuls accumulate onto a memset PSUM tile (undefined on trn1/trn2)",
    .params = {{"M", 128}, {"N", 512}, {"K", 256}},
    .signature = [](const Params &p) { return tessera::kernels::matmulSignature("bug_psum_accumulate", p); },
    .body = body([](Hbm a_t, Hbm b, Hbm c) {
      const int64_t K = a_t.dim(0), M = a_t.dim(1), N = b.dim(1);
      const int64_t tm = tile_size::gemm_stationary_fmax, tk = tile_size::pmax;
      const int64_t tn = std::min(N, tile_size::gemm_moving_fmax);
      for (auto m : affine_range(M / tm))
        for (auto n : affine_range(N / tn)) {
          Tile acc = ndarray(f32, {tm, tn}, MemSpace::Psum);
          isa::memset(acc, 0.0f); // [bug_psum_accumulate: memset] a non-matmul write to the accumulator
          for (int64_t k = 0; k < K / tk; ++k) {
            Tile stationary = load(a_t.tile(k, m, {tk, tm})), moving = load(b.tile(k, n, {tk, tn}));
            isa::nc_matmul(acc, stationary, moving, /*accumulate=*/true); // [bug_psum_accumulate: matmul]
          }
          store(c.tile(m, n, {tm, tn}), copy<bf16>(acc));
        }
    }),
    .reference = tessera::kernels::matmulReference,
}};

} // namespace
