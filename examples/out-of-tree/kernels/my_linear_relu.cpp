// my_linear_relu: c = relu(a_t^T @ w), bf16 in and out, FP32 accumulation in PSUM; a_t is [K, M] (the activations,
// transposed, as the tensor engine's stationary operand wants them), w is [K, N].
// Each [128, bn] output tile accumulates K/128 matmuls in one PSUM tile; relu reads PSUM on the scalar engine and
// the result goes back to HBM as bf16. bn, the width of an output tile, is a kernel parameter (--param bn=256).

#include "references.h"

#include "tessera/dsl/tsr.h"

namespace {

using namespace tsr;

const Registration registration{{
    .name = "my_linear_relu",
    .summary = "c = relu(a_t^T @ w), bf16, FP32 accumulation (examples/out-of-tree)",
    .params = {{"M", 256}, {"N", 512}, {"K", 256}},
    .kernelParams = {{"bn", 512}},
    .signature =
        [](const Params &p) {
          require(p["M"] % tile_size::pmax == 0, "my_linear_relu: M must be a multiple of 128");
          require(p["K"] % tile_size::pmax == 0, "my_linear_relu: K must be a multiple of 128");
          require(p["bn"] <= tile_size::gemm_moving_fmax, "my_linear_relu: bn must be at most 512");
          require(p["N"] % p["bn"] == 0, "my_linear_relu: bn must divide N");
          return std::vector<TensorSpec>{input("a_t", {p["K"], p["M"]}, bf16), input("w", {p["K"], p["N"]}, bf16),
                                         output("c", {p["M"], p["N"]}, bf16)};
        },
    .body = body([](const Params &p, Hbm a_t, Hbm w, Hbm c) {
      const int64_t tm = tile_size::pmax, tk = tile_size::pmax, bn = p["bn"];
      for (auto m : affine_range(a_t.dim(1) / tm))
        for (auto n : affine_range(w.dim(1) / bn)) {
          Tile acc = psum<f32>({tm, bn});
          for (auto k : affine_range(a_t.dim(0) / tk))
            acc += matmul(load(a_t.tile(k, m, {tk, tm})), load(w.tile(k, n, {tk, bn})));
          store(c.tile(m, n, {tm, bn}), copy<bf16>(relu(acc)));
        }
    }),
    .reference = my_kernels::linearReluReference,
}};

} // namespace
