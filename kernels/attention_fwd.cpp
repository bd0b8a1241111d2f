// attention_fwd: O = softmax(scale * Q K^T) V per head, bf16 in and out, FP32 statistics (flash attention's forward
// pass, as NKI's flash_fwd and the Neuron library's attention kernel compute it). H heads (batch x heads), S
// tokens, head dimension D <= 128. The layout is NKI's: q_t and k_t hold each head's Q and K transposed ([D, S]
// at rows h * D), v and o each head's [S, D] at rows h * S, so that the scores matmul contracts over D on the
// partitions with no transpose of its inputs.
//
// Per head, Q^T, K^T and V stay in SBUF (loaded once, in 512-column chunks side by side). Per query tile of 128
// rows and per section of `bk` keys (the online softmax's block):
//  1. the scores S = Q K^T, 512 keys per matmul (one PSUM bank), each copied to SBUF (FP32), so the tensor engine
//     can go on while the row statistics are taken from SBUF (the Vector, Scalar or GpSimd engine);
//  2. the row maximum m over the section (a running maximum across sections), then
//     P = exp(scale * S - scale * m) with its row sums, one activation per 1024 keys (tsr::activation with a bias
//     and row sums: one Scalar-engine instruction on a NeuronCore);
//  3. P's 128 x 128 blocks transposed, so the keys land on partitions for the second matmul: `te` of every 8 on the
//     tensor engine (side by side into one PSUM bank, then one copy to SBUF), the rest as DMA transposes straight
//     into SBUF, which frees the copy's engines and the tensor engine for the matmuls;
//  4. O += P V, the whole section accumulating in one PSUM bank; with several sections, the running O and the row
//     sums l are rescaled by exp(scale * (m_old - m_new)) as flash attention does;
//  5. O / l, rounded to bf16 and stored.
// The causal mask (scalar parameter causal=1) sets the scores of keys after their query to -inf in SBUF (a fill by
// position), block by block, and the sections wholly after a query tile's queries are skipped: the query tiles are
// grouped by the section their queries fall in, group j a loop over bk / 128 query tiles that sees sections 0..j
// and loads only the keys and values of those (loops have constant trip counts, so the groups are unrolled, as
// sibling loops that reuse each other's bytes). With bk = S there is one section and nothing to skip; with
// bk = S / n the work is (n + 1) / 2n of the full attention's (bk=1024 at S=4096: 62.5%). The instruction streams
// are list-scheduled (KernelInfo::scheduleInstructions): steps of different query tiles and sections overlap
// without hand software-pipelining.
//
// Shapes: S a multiple of 512, bk (kernel parameter, capped at S) a multiple of 512 that divides S, D <= 128.
// Scalar parameter scale: 0 (the default) means 1 / sqrt(D).

#include "DenseReference.h"
#include "tessera/dsl/tsr.h"
#include "tessera/isa/NumberFormats.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace {

using namespace tsr;
using tessera::isa::roundTo;
using tessera::kernels::DenseMatrix;
using tessera::kernels::denseRows;
using tessera::kernels::gemm;

constexpr const char *kName = "attention_fwd";
/// Keys per scores matmul: one PSUM bank of FP32.
constexpr int64_t kScoreKeys = tile_size::psum_fmax;
/// Keys per exponential and per group of transposes (8 blocks of 128, one PSUM bank of bf16).
constexpr int64_t kGroupKeys = 1024;
constexpr int64_t kBlock = tile_size::pmax;

/// The softmax scale: the scalar parameter, or 1 / sqrt(D) when it is 0.
float scaleOf(const Params &p) {
  const double scale = p.scalar("scale");
  return scale == 0.0 ? static_cast<float>(1.0 / std::sqrt(double(p["D"]))) : static_cast<float>(scale);
}

/// Keys per section of the online softmax: the kernel parameter, capped at S.
int64_t sectionOf(const Params &p) { return std::min(p["bk"], p["S"]); }

const Registration registration{{
    .name = kName,
    .summary = "flash-attention forward, softmax(scale Q K^T) V per head, q_t/k_t [H*D, S], v/o [H*S, D], bf16, "
               "FP32 statistics; causal=1 masks later keys; te=transposes of 8 on the tensor engine (NeuronCore)",
    .params = {{"H", 1}, {"S", 512}, {"D", 128}},
    .kernelParams = {{"bk", 4096}, {"te", 5}},
    .scalarParams = {{"causal", 0.0}, {"scale", 0.0}},
    .signature =
        [](const Params &p) {
          const int64_t H = p["H"], S = p["S"], D = p["D"], bk = sectionOf(p);
          require(S % kScoreKeys == 0, fmt::format("{}: S={} must be a multiple of 512", kName, S));
          require(D <= tile_size::pmax, fmt::format("{}: head dimension D={} must be at most 128", kName, D));
          require(bk % kScoreKeys == 0 && S % bk == 0,
                  fmt::format("{}: block bk={} must be a multiple of 512 that divides S={}", kName, bk, S));
          require(p["te"] <= 8, fmt::format("{}: te={} counts transposes of every 8: 1 to 8", kName, p["te"]));
          const double causal = p.scalar("causal");
          require(causal == 0.0 || causal == 1.0, fmt::format("{}: causal must be 0 or 1, not {}", kName, causal));
          return std::vector<TensorSpec>{input("q_t", {H * D, S}, bf16), input("k_t", {H * D, S}, bf16),
                                         input("v", {H * S, D}, bf16), output("o", {H * S, D}, bf16)};
        },
    .body = body([](const Params &p, Hbm q_t, Hbm k_t, Hbm v, Hbm o) {
      const int64_t S = q_t.dim(1), D = v.dim(1), H = v.dim(0) / S, bk = sectionOf(p);
      // Keys per exponential and group of transposes: 1024, or 512 when the section is not a multiple of 1024.
      const int64_t group = bk % kGroupKeys == 0 ? kGroupKeys : kScoreKeys, groups = bk / group,
                    blocks = group / kBlock;
      const int64_t tensorTransposes = p["te"], sections = S / bk;
      const bool causal = p.scalar("causal") == 1.0;
      const float scale = scaleOf(p);
      const Tile negScale = full(f32, {kBlock, 1}, -scale);
      const int64_t tilesPerSection = bk / kBlock;
      // Query tiles [first, first + tiles) of every head against the first `live` sections of keys. The head's Q^T,
      // K^T and V stay in SBUF, what those tiles read of them loaded once, in 512-column chunks: V's 128-key block c
      // is vs's columns [c * D, (c + 1) * D).
      auto attend = [&](int64_t first, int64_t tiles, int64_t live) {
        const int64_t keys = live * bk, queries = tiles * kBlock;
        for (auto h : affine_range(H)) {
          Tile qs = ndarray<bf16>({D, S}), ks = ndarray<bf16>({D, S}), vs = ndarray<bf16>({kBlock, S / kBlock * D});
          for (auto c : affine_range(keys / kScoreKeys))
            load(ks.slice(c * kScoreKeys, kScoreKeys), k_t.window(h * D, c * kScoreKeys, {D, kScoreKeys}));
          for (auto c : affine_range(queries / kScoreKeys)) {
            const Index column = first * kBlock + c * kScoreKeys;
            load(qs.slice(column, kScoreKeys), q_t.window(h * D, column, {D, kScoreKeys}));
          }
          for (auto c : affine_range(keys / kBlock))
            load(vs.slice(c * D, D), v.window(h * S + c * kBlock, 0, {kBlock, D}));
          for (auto q : affine_range(tiles)) {
            const Index qi = first + q;
            const Tile qT = qs.slice(qi * kBlock, kBlock);
            // The running statistics across sections: the row maximum (raw scores), the row sums, and O. With one
            // section there is nothing to rescale: the section's own statistics are the result's.
            const bool online = live > 1;
            Tile m = full(f32, {kBlock, 1}, -std::numeric_limits<float>::infinity());
            Tile l = zeros<f32>({kBlock, 1});
            Tile acc = online ? zeros<f32>({kBlock, D}) : m;
            // Section sec of the keys; `masked`: it holds keys after some of the tile's queries (the diagonal one).
            auto section = [&](const Index &sec, bool masked) {
              // 1. Scores, copied to SBUF (FP32), masked in the diagonal section.
              Tile scores = ndarray<f32>({kBlock, bk});
              for (auto kb : affine_range(bk / kScoreKeys)) {
                Tile s = psum<f32>({kBlock, kScoreKeys});
                s += matmul(qT, ks.slice(sec * bk + kb * kScoreKeys, kScoreKeys));
                Tile chunk = scores.slice(kb * kScoreKeys, kScoreKeys);
                assign(chunk, s);
                // key (sec * bk + kb * 512 + f) after query (qi * 128 + p): f - p + offset > 0.
                if (masked)
                  fill(chunk, -std::numeric_limits<float>::infinity(),
                       {.partition = -1, .free = 1, .offset = sec * bk + kb * kScoreKeys - qi * kBlock,
                        .cmp = op::greater});
              }
              // 2. The running maximum and the exponentials with their row sums.
              Tile mNew = online ? maximum(m, max(scores)) : max(scores);
              Tile bias = mNew * negScale; // -scale * max
              // exp(scale (m_old - m_new))
              Tile alpha = online ? activation(act::exp, m, {.bias = bias, .scale = scale}) : m;
              if (online) assign(m, mNew);
              Tile probs = ndarray<bf16>({kBlock, bk});
              // P^T, block by block: the section's tile (not a group's), so that the DMA transposes of four sections
              // can be in flight at once (a loop's tiles rotate through four copies).
              Tile probsTAll = ndarray<bf16>({kBlock, bk});
              Tile sums = ndarray<f32>({kBlock, groups});
              // 3. The transposes of P's 128 x 128 blocks (keys on partitions) and 4. O += P V in one PSUM bank.
              Tile pv = psum<f32>({kBlock, D});
              for (auto g : affine_range(groups)) {
                activation(probs.slice(g * group, group), act::exp, scores.slice(g * group, group),
                           {.bias = bias, .scale = scale, .sum = sums.slice(g, 1)});
                Tile viaTensor = ndarray(bf16, {kBlock, group}, buffer::psum);
                Tile probsT = probsTAll.slice(g * group, group);
                const int64_t onTensor = std::min(tensorTransposes, blocks);
                for (int64_t b = 0; b < blocks; ++b) {
                  const Tile block = probs.slice(g * group + b * kBlock, kBlock);
                  if (b < onTensor) transpose(viaTensor.slice(b * kBlock, kBlock), block);
                  else transpose(probsT.slice(b * kBlock, kBlock), block);
                }
                assign(probsT.slice(0, onTensor * kBlock), viaTensor.slice(0, onTensor * kBlock));
                for (int64_t b = 0; b < blocks; ++b)
                  pv += matmul(probsT.slice(b * kBlock, kBlock),
                               vs.slice((sec * (bk / kBlock) + g * blocks + b) * D, D));
              }
              if (!online) { // 5. O / l, from the one section
                store(o.window(h * S + qi * kBlock, 0, {kBlock, D}), copy<bf16>(pv / sum(sums)));
                return;
              }
              // The section's contribution, with the old statistics rescaled.
              l *= alpha;
              l += sum(sums);
              acc *= alpha;
              acc += pv;
            };
            if (!causal) {
              for (auto sec : affine_range(live)) section(sec, false);
            } else { // the sections before the diagonal one hold no key after any of the tile's queries
              if (live > 1)
                for (auto sec : affine_range(live - 1)) section(sec, false);
              for (auto diagonal : affine_range(1)) section(diagonal + (live - 1), true);
            }
            // 5. O / l.
            if (online) store(o.window(h * S + qi * kBlock, 0, {kBlock, D}), copy<bf16>(acc / l));
          }
        }
      };
      if (!causal) {
        attend(0, S / kBlock, sections);
        return;
      }
      // Causal: group j, the query tiles whose queries fall in section j, sees sections 0..j.
      for (int64_t j = 0; j < sections; ++j) attend(j * tilesPerSection, tilesPerSection, j + 1);
    }),
    .reference =
        [](const Params &p, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
          // Naive attention in double: every score, the row's softmax, then P V. The one rounding it shares with the
          // kernel is P's to bf16, the second matmul's operand (as mlp's reference rounds its hidden activations):
          // without it, a short causal row (a few keys, each weighing much) differs from the exact result by up to
          // 2% in this input range, above the bf16 output's tolerance; the row sums are of the unrounded P, as the
          // kernel's are.
          // Per head, a block of query rows at a time (a [rows, S] block of scores, not all S x S of them).
          const int64_t H = p["H"], S = p["S"], D = p["D"];
          const bool causal = p.scalar("causal") == 1.0;
          const double scale = scaleOf(p);
          constexpr int64_t kRowsPerBlock = 256;
          for (int64_t h = 0; h < H; ++h) {
            const DenseMatrix qT = denseRows(in[0], S, h * D, D), kT = denseRows(in[1], S, h * D, D),
                              v = denseRows(in[2], D, h * S, S);
            for (int64_t i0 = 0; i0 < S; i0 += kRowsPerBlock) {
              const int64_t rows = std::min(kRowsPerBlock, S - i0);
              DenseMatrix q(D, rows), scores(rows, S), o(rows, D);
              for (int64_t d = 0; d < D; ++d)
                for (int64_t i = 0; i < rows; ++i) q.at(d, i) = qT.at(d, i0 + i);
              gemm(q, /*transposeA=*/true, kT, false, scores, scale); // scale Q K^T
              std::vector<double> total(rows, 0.0);
              for (int64_t i = 0; i < rows; ++i) {
                const int64_t keys = causal ? i0 + i + 1 : S;
                double mx = -std::numeric_limits<double>::infinity();
                for (int64_t j = 0; j < keys; ++j) mx = std::max(mx, scores.at(i, j));
                for (int64_t j = 0; j < S; ++j) {
                  const double e = j < keys ? std::exp(scores.at(i, j) - mx) : 0.0;
                  total[i] += e;
                  scores.at(i, j) = roundTo(bf16, static_cast<float>(e));
                }
              }
              gemm(scores, false, v, false, o); // P V
              for (int64_t i = 0; i < rows; ++i)
                for (int64_t d = 0; d < D; ++d)
                  out[0][(h * S + i0 + i) * D + d] = static_cast<float>(o.at(i, d) / total[i]);
            }
          }
        },
    .scheduleInstructions = true,
}};

} // namespace
