// mamba_scan: the selective scan of a Mamba block (NKI's "fused Mamba" tutorial; Mamba's selective_scan with
// delta_softplus), per batch element, channel d and state s:
//   delta = softplus(delta_in), A = -exp(A_log)                      (Mamba's parameterisation: A < 0, delta > 0)
//   x[d, s, l] = exp(delta[d, l] A[d, s]) x[d, s, l - 1] + delta[d, l] B[s, l] u[d, l],   x[d, s, -1] = 0
//   y[d, l] = sum over s of C[s, l] x[d, s, l]
// bf16 in and out, FP32 inside. Tensors as 2-D: delta_in, u and y [N * D, L] (batch-major rows of channels),
// A_log [D, S], B and C [N * S, L]. Mamba's skip term D u and its gate silu(z) are outside the scan, as in NKI's
// tutorial.
//
// As in the tutorial, channels go to partitions (128 at a time) and the sequence to the free dimension, in chunks
// of up to 512 positions; the state of every (channel, s) carries from one chunk to the next. Per chunk and state s:
//   dA = exp(delta * A[:, s]), A = -exp(A_log)              one activation, its scale the [P, 1] column of A
//   B_s, C_s broadcast to all partitions                   a matmul of B's [S, chunk] rows with a 0/1 selector
//                                                          that picks row s into every column (the tensor engine's
//                                                          partition broadcast), read from PSUM
//   x = scan(dA, delta u B_s, from the carried state)      tsr::scan: one instruction on a NeuronCore
//   y += x C_s
// so each chunk's states are a loop of S iterations over the same tiles (the loop index picks A's column, the
// selector's block and the state's column).
// The selector is this kernel's choice, not NKI's: the tutorial loads B[s] and C[s] as [1, chunk] rows and
// broadcast_to's them, which here (tried, 6 December 2026, the default shape) takes 128.4 us on trn1 instead of
// 102.6 (a NeuronCore's broadcast of a loaded row is a DMA of 128 copies of it: 4 MiB per chunk), 78.3 on trn2
// instead of 83.7, and 100.5 on tpu-v5e instead of 95.8; the tensor engine is otherwise idle in this kernel.
//
// Shapes: any N, D (channels beyond a multiple of 128 are a smaller block), S <= 128, L (the last chunk is
// shorter).

#include "Rows.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace {

using namespace tsr;
using tessera::kernels::forEachBlock;

constexpr const char *kName = "mamba_scan";
/// Sequence positions per chunk: one PSUM bank of FP32 for the broadcasts, a matmul's largest moving operand.
constexpr int64_t kChunk = tile_size::psum_fmax;
constexpr int64_t kChannels = tile_size::pmax;

/// The selectors: [S, S * 128] bf16, block s (columns [128 s, 128 s + 128)) all ones in row s, zeros elsewhere, so
/// that selector block s as the stationary operand broadcasts row s of the moving one to every output partition.
Tile selectors(int64_t S) {
  Tile sel = full(bf16, {S, S * kChannels}, 1.0f);
  fill(sel, 0.0f, {.partition = kChannels, .free = -1, .offset = 0, .cmp = op::greater});           // f < 128 p
  fill(sel, 0.0f, {.partition = kChannels, .free = -1, .offset = kChannels - 1, .cmp = op::less}); // f > 128 p + 127
  return sel;
}

const Registration registration{{
    .name = kName,
    .summary = "Mamba selective scan: x = exp(softplus(delta) A) x + softplus(delta) B u, y = C x, A = -exp(A_log); "
               "delta_in/u/y [N*D, L], A_log [D, S], B/C [N*S, L], bf16, FP32 state",
    .params = {{"N", 1}, {"D", 256}, {"S", 16}, {"L", 512}},
    .signature =
        [](const Params &p) {
          const int64_t N = p["N"], D = p["D"], S = p["S"], L = p["L"];
          require(S <= tile_size::pmax, fmt::format("{}: S={} states must be at most 128 (the selectors' partitions)",
                                                    kName, S));
          return std::vector<TensorSpec>{input("delta_in", {N * D, L}, bf16), input("u", {N * D, L}, bf16),
                                         input("A_log", {D, S}, bf16),       input("B", {N * S, L}, bf16),
                                         input("C", {N * S, L}, bf16),       output("y", {N * D, L}, bf16)};
        },
    .body = body([](Hbm delta_in, Hbm u, Hbm A_log, Hbm B, Hbm C, Hbm y) {
      const int64_t S = A_log.dim(1), D = A_log.dim(0), N = delta_in.dim(0) / D, L = delta_in.dim(1);
      const Tile sel = selectors(S);
      for (auto n : affine_range(N)) {
        forEachBlock(D, kChannels, [&](const Index &d0, int64_t cb) {
          // -A = exp(A_log), [cb, S]. Intermediate results go to FP32 tiles: an operation's result has its
          // (first) input's dtype, and the inputs are bf16.
          Tile decayRate = ndarray<f32>({cb, S});
          activation(decayRate, act::exp, load(A_log.window(d0, 0, {cb, S})));
          const Tile negRate = decayRate * -1.0f; // A, each state's column a [cb, 1] scale below
          const Tile one = full(f32, {cb, 1}, 1.0f);
          Tile state = zeros<f32>({cb, S});
          forEachBlock(L, kChunk, [&](const Index &l0, int64_t lc) {
            const Tile dIn = load(delta_in.window(n * D + d0, l0, {cb, lc}));
            const Tile uIn = load(u.window(n * D + d0, l0, {cb, lc}));
            const Tile bRows = load(B.window(n * S, l0, {S, lc})), cRows = load(C.window(n * S, l0, {S, lc}));
            // softplus(x) = log(1 + exp(x)).
            Tile delta = ndarray<f32>({cb, lc});
            activation(delta, act::exp, dIn);
            activation(delta, act::log, delta, {.bias = one});
            const Tile deltaU = delta * uIn;
            Tile out = zeros<f32>({cb, lc});
            for (auto s : affine_range(S)) {
              const Tile decay = activation(act::exp, delta, {.scale = negRate.slice(s, 1)}); // exp(delta * A)
              const Tile selector = sel.slice(s * kChannels, cb);
              const Tile bS = matmul(selector, bRows), cS = matmul(selector, cRows); // [cb, lc], in PSUM
              Tile carried = state.slice(s, 1);
              const Tile x = scan(decay, deltaU * bS, {.initial = carried});
              assign(carried, x.slice(lc - 1, 1));
              out += x * cS;
            }
            store(y.window(n * D + d0, l0, {cb, lc}), copy<bf16>(out));
          });
        });
      }
    }),
    .reference =
        [](const Params &p, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
          // The recurrence as written, in double, position by position.
          const int64_t N = p["N"], D = p["D"], S = p["S"], L = p["L"];
          const HostTensor &deltaIn = in[0], &u = in[1], &aLog = in[2], &b = in[3], &c = in[4];
          std::vector<double> x(static_cast<size_t>(S));
          for (int64_t n = 0; n < N; ++n)
            for (int64_t d = 0; d < D; ++d) {
              std::fill(x.begin(), x.end(), 0.0);
              for (int64_t l = 0; l < L; ++l) {
                const double delta = std::log1p(std::exp(double(deltaIn[(n * D + d) * L + l])));
                double yl = 0;
                for (int64_t s = 0; s < S; ++s) {
                  const double a = -std::exp(double(aLog[d * S + s]));
                  x[s] = std::exp(delta * a) * x[s] + delta * b[(n * S + s) * L + l] * u[(n * D + d) * L + l];
                  yl += c[(n * S + s) * L + l] * x[s];
                }
                out[0][(n * D + d) * L + l] = static_cast<float>(yl);
              }
            }
        },
    .scheduleInstructions = true,
}};

} // namespace
