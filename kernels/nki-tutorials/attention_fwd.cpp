// tut_attention_v1, v2, v4, v5, v6: the attention forward kernels of NKI's attention performance tutorial, ported to
// the tsr:: DSL.
//   Tutorial: https://awsdocs-neuron.readthedocs-hosted.com/en/v2.33.0/nki/guides/tutorials/attention_fwd_performance.html
//   Source:   github.com/aws-neuron/nki-samples, src/nki_samples/tutorials/attention_fwd_performance/
//             attention_kernels.py (attn_fwd_v1 ... attn_fwd_v6) and attention_kernel_utils.py (softmax_isa)
// out[seqlen, d_head] = softmax(q^T k) v^T for one head, q, k, v given as [d_head, seqlen] (d_head = 128 on the
// partitions), FP32 throughout (the tutorial's test), no scale (as the tutorial's NumPy reference).
//   v1  seqlen 128: nl.matmul, nl.max/exp/sum/reciprocal, nl.transpose, with nisa.tensor_copy and tensor_scalar
//   v2  seqlen 128: the same with nki.isa only (nc_matmul, softmax_isa, nc_transpose)
//   v3  seqlen a multiple of 512: each step (q k^T, row maxima, subtract, exp, row sums, scores, v^T, scores^T,
//       scores @ v^T) a loop of its own, what one step makes for the next in nl.shared_hbm scratch tensors
//   v4  seqlen a multiple of 512: per 128-query tile, q k^T in 512-column PSUM tiles, the softmax across them, the
//       scores transposed 128 x 128 and multiplied by v^T (transposed once, before the loop): loop fusion
//   v5  v4 with the division by the row sums delayed to the [128, d_head] output
//   v6  v5 with exp(x - max) and its row sums in one activation_reduce per 512 columns
//
// What differs from the tutorial, and why:
//  - v3's nl.shared_hbm scratch tensors are tsr::shared_hbm tensors of the tutorial's shapes (qk [S/128, S/512,
//    128, 512], indexed qk[i_tile_q][i_tile_kv]); its nl.load / nl.store of them are tsr::load / tsr::store, and
//    its 128 x 128 transposes through PSUM the transposeThroughPsum below. v7 and later (bf16 downcasts, ...) are
//    not ported yet.
//  - The tutorial's 3-D SBUF tiles (v_sbuf_t and scores_sbuf_t [128, n, 128]) are 2-D tiles with tile i at free
//    offset i * 128; the qk_tiles Python list of PSUM tiles is a C++ vector, its loops static as in the tutorial.
//  - nl.zeros PSUM accumulators that nisa.nc_matmul accumulates into (attn_out_psum) are tsr::psum tiles with
//    `+= tsr::matmul(...)`: the same nc_matmul instructions (tsr::isa::nc_matmul needs its accumulate flag at trace
//    time, which an affine_range index cannot give); a single nc_matmul into a fresh PSUM tile (v2, the qk tiles)
//    is tsr::isa::nc_matmul.
//  - This tutorial is written in the newer `nki` API: nisa.dma_copy (HBM to SBUF and back) is tsr::load and
//    tsr::store, nl.load / nl.store likewise.
//  - All five are NeuronCore only, as the tutorial's nisa calls (tensor_copy and tensor_scalar already in v1): a
//    TPU target refuses them at the first one.

#include "../DenseReference.h"
#include "tessera/dsl/tsr.h"

#include <fmt/format.h>

#include <cmath>
#include <string>
#include <vector>

namespace {

using namespace tsr;

constexpr int64_t PMAX = tile_size::pmax;                           // 128, also d_head
constexpr int64_t FMAX_STATIONARY = tile_size::gemm_stationary_fmax; // 128
constexpr int64_t FMAX_MOVING = tile_size::gemm_moving_fmax;         // 512

/// q, k, v [d_head = 128, seqlen] -> kernel_out [seqlen, 128], FP32; seqlen 128 (v1, v2) or a multiple of 512.
std::vector<TensorSpec> attentionSignature(const std::string &name, const Params &p, bool toy) {
  const int64_t S = p["seqlen"];
  if (toy)
    require(S == PMAX, fmt::format("{}: seqlen={} must be 128 (the tutorial's toy version)", name, S));
  else
    require(S % FMAX_MOVING == 0, fmt::format("{}: seqlen={} must be a multiple of 512", name, S));
  return {input("q", {PMAX, S}, f32), input("k", {PMAX, S}, f32), input("v", {PMAX, S}, f32),
          output("kernel_out", {S, PMAX}, f32)};
}

/// The tutorial's numpy_attention in double: softmax(q^T k) (v^T).
void reference(const Params &p, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
  using tessera::kernels::DenseMatrix;
  const int64_t S = p["seqlen"];
  const DenseMatrix q = tessera::kernels::denseRows(in[0], S, 0, PMAX), k = tessera::kernels::denseRows(in[1], S, 0, PMAX),
                    v = tessera::kernels::denseRows(in[2], S, 0, PMAX);
  DenseMatrix scores(S, S), o(S, PMAX);
  tessera::kernels::gemm(q, true, k, false, scores);
  tessera::kernels::softmaxRows(scores);
  tessera::kernels::gemm(scores, false, v, true, o);
  for (int64_t r = 0; r < S; ++r)
    for (int64_t c = 0; c < PMAX; ++c) out[0][r * PMAX + c] = static_cast<float>(o.at(r, c));
}

/// The largest relative error accepted against the reference (KernelInfo::referenceTolerance). The reference is
/// exact (double); the kernel computes in FP32, and its logits q.k, dot products of d_head = 128 terms, err in
/// absolute terms by about sqrt(128) roundings of their sum; exp carries that into each score's relative error, and
/// the outputs, weighted averages of v near 0 at the default uniform [-1, 1) inputs, have a small rms to divide by.
/// Measured on trn2: max rel err up to 1.68e-5 (v3 and v6, seqlen 512 and 1024, seeds 0 to 31), past FP32's default
/// of 1.02e-5 at a third of the seeds (v1 at seqlen 128: 9.2e-6). The tutorial's own test (nki-samples,
/// test_attention_accuracy) accepts np.allclose(atol=1e-2) on the same inputs; this stays a hundred times tighter
/// than that on outputs of rms ~0.1.
constexpr double kAttentionTolerance = 1e-4;

/// dst = the transpose of data [128, 128] through a PSUM tile: nisa.nc_transpose, then nisa.tensor_copy.
void transposeThroughPsum(const Tile &dst, const Tile &data) {
  Tile psum_t = ndarray(f32, {data.shape()[1], data.partitions()}, buffer::psum);
  isa::nc_transpose(psum_t, data);
  isa::tensor_copy(dst, psum_t);
}

const Registration v1{{
    .name = "tut_attention_v1",
    .summary = "NKI tutorial 'attention forward' v1: seqlen 128, nki.language ops, FP32 (NeuronCore only)",
    .params = {{"seqlen", 128}},
    .signature = [](const Params &p) { return attentionSignature("tut_attention_v1", p, true); },
    .body = body([](Hbm q, Hbm k, Hbm v, Hbm kernel_out) {
      const int64_t S = q.dim(1), d_head = q.dim(0);
      Tile q_sbuf = load(q.tile(0, 0, {d_head, S})), k_sbuf = load(k.tile(0, 0, {d_head, S})),
           v_sbuf = load(v.tile(0, 0, {d_head, S}));
      Tile qk_psum = matmul(q_sbuf, k_sbuf); // Q @ K, contracting d_head
      Tile qk = ndarray<f32>({S, S});
      isa::tensor_copy(qk, qk_psum);
      Tile row_max = max(qk);
      Tile norm_row = ndarray<f32>({S, S});
      isa::tensor_scalar(norm_row, qk, op::subtract, row_max);
      Tile exp_row = exp(norm_row);
      Tile sum_row = sum(exp_row);
      Tile inverse_sum_row = reciprocal(sum_row);
      Tile scores = ndarray<f32>({S, S});
      isa::tensor_scalar(scores, exp_row, op::multiply, inverse_sum_row);
      Tile v_psum_t = transpose(v_sbuf); // v has the wrong layout
      Tile v_sbuf_t = ndarray<f32>({S, d_head});
      isa::tensor_copy(v_sbuf_t, v_psum_t);
      Tile scores_t_psum = transpose(scores);
      Tile scores_t = ndarray<f32>({S, S});
      isa::tensor_copy(scores_t, scores_t_psum);
      Tile attn_out = matmul(scores_t, v_sbuf_t); // scores @ V, contracting seqlen_kv
      Tile attn_out_sbuf = ndarray<f32>({S, d_head});
      isa::tensor_copy(attn_out_sbuf, attn_out);
      store(kernel_out.tile(0, 0, {S, d_head}), attn_out_sbuf);
    }),
    .reference = reference,
    .referenceTolerance = kAttentionTolerance,
}};

/// attention_kernel_utils.softmax_isa along the free dimension of data (SBUF, FP32).
Tile softmax_isa(const Tile &data) {
  const Shape reduced{data.partitions(), 1};
  Tile row_max = ndarray(f32, reduced);
  isa::tensor_reduce(row_max, op::maximum, data);
  Tile norm = ndarray(f32, data.shape());
  isa::tensor_scalar(norm, data, op::subtract, row_max);
  Tile exp_vals = ndarray(f32, data.shape());
  isa::activation(exp_vals, act::exp, norm);
  Tile row_sum = ndarray(f32, reduced);
  isa::tensor_reduce(row_sum, op::add, exp_vals);
  Tile inv_sum = ndarray(f32, reduced);
  isa::reciprocal(inv_sum, row_sum);
  Tile result = ndarray(f32, data.shape());
  isa::tensor_scalar(result, exp_vals, op::multiply, inv_sum);
  return result;
}

const Registration v2{{
    .name = "tut_attention_v2",
    .summary = "NKI tutorial 'attention forward' v2: seqlen 128, nki.isa ops only, FP32 (NeuronCore only)",
    .params = {{"seqlen", 128}},
    .signature = [](const Params &p) { return attentionSignature("tut_attention_v2", p, true); },
    .body = body([](Hbm q, Hbm k, Hbm v, Hbm kernel_out) {
      const int64_t S = q.dim(1), d_head = q.dim(0);
      Tile q_sbuf = load(q.tile(0, 0, {d_head, S})), k_sbuf = load(k.tile(0, 0, {d_head, S})),
           v_sbuf = load(v.tile(0, 0, {d_head, S}));
      Tile qk = ndarray(f32, {S, S}, buffer::psum); // Q^T @ K -> PSUM -> SBUF
      isa::nc_matmul(qk, q_sbuf, k_sbuf, false);
      Tile qk_sbuf = ndarray<f32>({S, S});
      isa::tensor_copy(qk_sbuf, qk);
      Tile scores = softmax_isa(qk_sbuf);
      Tile scores_t = ndarray<f32>({S, S}); // transpose scores and v for the matmul
      transposeThroughPsum(scores_t, scores);
      Tile v_t = ndarray<f32>({S, d_head});
      transposeThroughPsum(v_t, v_sbuf);
      Tile attn_out = ndarray(f32, {S, d_head}, buffer::psum); // scores @ V^T
      isa::nc_matmul(attn_out, scores_t, v_t, false);
      Tile attn_out_sbuf = ndarray<f32>({S, d_head});
      isa::tensor_copy(attn_out_sbuf, attn_out);
      store(kernel_out.tile(0, 0, {S, d_head}), attn_out_sbuf);
    }),
    .reference = reference,
    .referenceTolerance = kAttentionTolerance,
}};

/// v3: large sequence length with tiling. Each step is a loop of its own over 128-query tiles, and what a step
/// makes for the next goes to nl.shared_hbm scratch tensors (tsr::shared_hbm): q k^T, the rows less their maxima, the
/// exponentials, the scores, v^T and the scores transposed. The row maxima, row sums and their reciprocals stay in
/// SBUF, one column per query tile.
void attentionTiled(Hbm q, Hbm k, Hbm v, Hbm kernel_out) {
  const int64_t S = q.dim(1), d_head = q.dim(0), nq = S / PMAX, nkv = S / FMAX_MOVING;
  Tile q_sbuf = load(q.tile(0, 0, {d_head, S})), k_sbuf = load(k.tile(0, 0, {d_head, S})),
       v_sbuf = load(v.tile(0, 0, {d_head, S}));
  // Q @ K, contract along d_head, one [128, 512] block at a time into qk [nq, nkv, 128, 512].
  Hbm qk = shared_hbm(f32, {nq, nkv, PMAX, FMAX_MOVING}, "qk");
  for (auto i_tile_q : affine_range(S / FMAX_STATIONARY))
    for (auto i_tile_kv : affine_range(nkv)) {
      Tile qk_psum = ndarray(f32, {PMAX, FMAX_MOVING}, buffer::psum);
      isa::nc_matmul(qk_psum, q_sbuf.slice(i_tile_q * FMAX_STATIONARY, FMAX_STATIONARY),
                     k_sbuf.slice(i_tile_kv * FMAX_MOVING, FMAX_MOVING), false);
      Tile qk_sbuf = ndarray<f32>({PMAX, FMAX_MOVING});
      isa::tensor_copy(qk_sbuf, qk_psum);
      store(qk[i_tile_q][i_tile_kv].tile(0, 0, {PMAX, FMAX_MOVING}), qk_sbuf);
    }
  // Softmax: reduce max along seqlen_k, a column of row_max per query tile.
  Tile row_max = ndarray<f32>({PMAX, nq});
  for (auto i_tile_q : affine_range(nq)) {
    Tile row_max_kv = ndarray<f32>({PMAX, nkv});
    for (auto i_tile_kv : affine_range(nkv)) {
      Tile qk_tile = load(qk[i_tile_q][i_tile_kv].tile(0, 0, {PMAX, FMAX_MOVING}));
      isa::tensor_reduce(row_max_kv.slice(i_tile_kv, 1), op::maximum, qk_tile);
    }
    isa::tensor_reduce(row_max.slice(i_tile_q, 1), op::maximum, row_max_kv);
  }
  // Subtract max from row.
  Hbm norm_row = shared_hbm(f32, {nq, PMAX, S}, "norm_row");
  for (auto i_tile_q : affine_range(nq)) {
    Tile norm_buf = ndarray<f32>({PMAX, S});
    for (auto i_tile_kv : affine_range(nkv)) {
      Tile qk_tile_sub = load(qk[i_tile_q][i_tile_kv].tile(0, 0, {PMAX, FMAX_MOVING}));
      isa::tensor_scalar(norm_buf.slice(i_tile_kv * FMAX_MOVING, FMAX_MOVING), qk_tile_sub, op::subtract,
                         row_max.slice(i_tile_q, 1));
    }
    store(norm_row[i_tile_q].tile(0, 0, {PMAX, S}), norm_buf);
  }
  // Exponentiation.
  Hbm exp_row = shared_hbm(f32, {nq, PMAX, S}, "exp_row");
  for (auto i_tile_q : affine_range(nq)) {
    Tile exp_buf = ndarray<f32>({PMAX, S});
    Tile norm_buf = load(norm_row[i_tile_q].tile(0, 0, {PMAX, S}));
    isa::activation(exp_buf, act::exp, norm_buf);
    store(exp_row[i_tile_q].tile(0, 0, {PMAX, S}), exp_buf);
  }
  // Sum of the exponentials, and its reciprocal ([PMAX, nq]: a column per query tile).
  Tile sum_row = ndarray<f32>({PMAX, nq});
  for (auto i_tile_q : affine_range(nq)) {
    Tile exp_buf = load(exp_row[i_tile_q].tile(0, 0, {PMAX, S}));
    isa::tensor_reduce(sum_row.slice(i_tile_q, 1), op::add, exp_buf);
  }
  Tile inverse_sum_row = ndarray<f32>({PMAX, nq});
  isa::reciprocal(inverse_sum_row, sum_row);
  Hbm scores = shared_hbm(f32, {nq, PMAX, S}, "scores");
  for (auto i_tile_q : affine_range(nq)) {
    Tile scores_buf = ndarray<f32>({PMAX, S});
    Tile exp_buf = load(exp_row[i_tile_q].tile(0, 0, {PMAX, S}));
    isa::tensor_scalar(scores_buf, exp_buf, op::multiply, inverse_sum_row.slice(i_tile_q, 1));
    store(scores[i_tile_q].tile(0, 0, {PMAX, S}), scores_buf);
  }
  // v has the wrong layout.
  Hbm v_t = shared_hbm(f32, {S / PMAX, PMAX, d_head}, "v_t");
  for (auto i_tile_kv : affine_range(S / PMAX)) {
    Tile v_sbuf_t = ndarray<f32>({PMAX, d_head});
    transposeThroughPsum(v_sbuf_t, v_sbuf.slice(i_tile_kv * PMAX, PMAX));
    store(v_t[i_tile_kv].tile(0, 0, {PMAX, d_head}), v_sbuf_t);
  }
  // scores has the wrong layout: 128 x 128 blocks, each transposed into scores_t [nkv', nq, 128, 128].
  Hbm scores_t = shared_hbm(f32, {S / PMAX, nq, PMAX, PMAX}, "scores_t");
  for (auto i_tile_q : affine_range(nq))
    for (auto i_tile_kv : affine_range(S / PMAX)) {
      Tile scores_buf = load(scores[i_tile_q].window(0, i_tile_kv * PMAX, {PMAX, PMAX}));
      Tile scores_sbuf_t = ndarray<f32>({PMAX, PMAX});
      transposeThroughPsum(scores_sbuf_t, scores_buf);
      store(scores_t[i_tile_kv][i_tile_q].tile(0, 0, {PMAX, PMAX}), scores_sbuf_t);
    }
  // scores @ V, contract along seqlen_kv (d_head == PMAX: no tiling there).
  for (auto i_tile_q : affine_range(nq)) {
    Tile attn_out_psum = psum<f32>({PMAX, PMAX});
    Tile attn_out = ndarray<f32>({PMAX, d_head});
    for (auto i_tile_kv : affine_range(S / PMAX)) {
      Tile scores_sbuf_t = load(scores_t[i_tile_kv][i_tile_q].tile(0, 0, {PMAX, PMAX}));
      Tile v_sbuf_t = load(v_t[i_tile_kv].tile(0, 0, {PMAX, d_head}));
      attn_out_psum += matmul(scores_sbuf_t, v_sbuf_t);
    }
    isa::tensor_copy(attn_out, attn_out_psum);
    store(kernel_out.window(i_tile_q * PMAX, 0, {PMAX, d_head}), attn_out);
  }
}

const Registration v3{{
    .name = "tut_attention_v3",
    .summary = "NKI tutorial 'attention forward' v3: each step a loop of its own, intermediates in HBM scratch "
               "tensors, FP32 (NeuronCore only)",
    .params = {{"seqlen", 512}},
    .signature = [](const Params &p) { return attentionSignature("tut_attention_v3", p, false); },
    .body = body([](Hbm q, Hbm k, Hbm v, Hbm kernel_out) { attentionTiled(q, k, v, kernel_out); }),
    .reference = reference,
    .referenceTolerance = kAttentionTolerance,
}};

/// How v4, v5 and v6 end the softmax and use it, in the tutorial's words.
enum class Fused {
  LoopFusion,     ///< v4: exp, row sums, reciprocal, scores = exp * 1/sum, scores transposed, scores @ v
  DelayDivision,  ///< v5: as v4, but exp transposed and multiplied by v, then the output times 1/sum
  ActivationReduce ///< v6: as v5, with exp(x - max) and its row sums from one activation_reduce per 512 columns
};

/// The fused kernels v4, v5, v6, one loop over 128-query tiles.
void attentionFused(Hbm q, Hbm k, Hbm v, Hbm kernel_out, Fused version) {
  const int64_t S = q.dim(1), d_head = q.dim(0);
  Tile q_sbuf = load(q.tile(0, 0, {d_head, S})), k_sbuf = load(k.tile(0, 0, {d_head, S})),
       v_sbuf = load(v.tile(0, 0, {d_head, S}));
  // v has the wrong layout: v_sbuf_t[:, i_tile_kv, :] is the slice i_tile_kv * 128.
  Tile v_sbuf_t = ndarray<f32>({PMAX, S / PMAX * PMAX});
  for (auto i_tile_kv : affine_range(S / PMAX))
    transposeThroughPsum(v_sbuf_t.slice(i_tile_kv * PMAX, PMAX), v_sbuf.slice(i_tile_kv * PMAX, PMAX));
  const int64_t num_kv_tiles = S / FMAX_MOVING;
  for (auto i_tile_q : affine_range(S / FMAX_STATIONARY)) {
    std::vector<Tile> qk_tiles; // fresh PSUM tiles each iteration
    for (int64_t i = 0; i < num_kv_tiles; ++i) qk_tiles.push_back(ndarray(f32, {PMAX, FMAX_MOVING}, buffer::psum));
    for (int64_t i_tile_kv = 0; i_tile_kv < num_kv_tiles; ++i_tile_kv) // Q @ K, contracting d_head
      isa::nc_matmul(qk_tiles[i_tile_kv], q_sbuf.slice(i_tile_q * FMAX_STATIONARY, FMAX_STATIONARY),
                     k_sbuf.slice(i_tile_kv * FMAX_MOVING, FMAX_MOVING), false);
    // Softmax: the row maxima, per 512 columns then across them (v6: negated, as the activation's bias).
    Tile row_max = ndarray<f32>({PMAX, 1});
    Tile row_max_kv = ndarray<f32>({PMAX, num_kv_tiles});
    for (int64_t i_tile_kv = 0; i_tile_kv < num_kv_tiles; ++i_tile_kv)
      isa::tensor_reduce(row_max_kv.slice(i_tile_kv, 1), op::maximum, qk_tiles[i_tile_kv]);
    isa::tensor_reduce(row_max, op::maximum, row_max_kv, version == Fused::ActivationReduce);
    Tile exp_row = ndarray<f32>({PMAX, S});
    Tile sum_row = ndarray<f32>({PMAX, 1});
    if (version == Fused::ActivationReduce) {
      Tile sum_row_tiles = ndarray<f32>({PMAX, num_kv_tiles});
      for (int64_t i_tile_kv = 0; i_tile_kv < num_kv_tiles; ++i_tile_kv)
        isa::activation_reduce(exp_row.slice(i_tile_kv * FMAX_MOVING, FMAX_MOVING), act::exp, qk_tiles[i_tile_kv],
                               op::add, sum_row_tiles.slice(i_tile_kv, 1), row_max);
      isa::tensor_reduce(sum_row, op::add, sum_row_tiles);
    } else {
      Tile norm_row = ndarray<f32>({PMAX, S}); // subtract max from row
      for (int64_t i_tile_kv = 0; i_tile_kv < num_kv_tiles; ++i_tile_kv)
        isa::tensor_scalar(norm_row.slice(i_tile_kv * FMAX_MOVING, FMAX_MOVING), qk_tiles[i_tile_kv], op::subtract,
                           row_max);
      for (auto i_tile_kv : affine_range(num_kv_tiles))
        isa::activation(exp_row.slice(i_tile_kv * FMAX_MOVING, FMAX_MOVING), act::exp,
                        norm_row.slice(i_tile_kv * FMAX_MOVING, FMAX_MOVING));
      Tile sum_row_kv = ndarray<f32>({PMAX, num_kv_tiles});
      for (auto i_tile_kv : affine_range(num_kv_tiles))
        isa::tensor_reduce(sum_row_kv.slice(i_tile_kv, 1), op::add, exp_row.slice(i_tile_kv * FMAX_MOVING, FMAX_MOVING));
      isa::tensor_reduce(sum_row, op::add, sum_row_kv);
    }
    Tile inverse_sum_row = ndarray<f32>({PMAX, 1});
    isa::reciprocal(inverse_sum_row, sum_row);
    // v4 divides before the transposes; v5 and v6 transpose the exponentials and divide the output.
    Tile scores = exp_row;
    if (version == Fused::LoopFusion) {
      scores = ndarray<f32>({PMAX, S});
      for (auto i_tile_kv : affine_range(num_kv_tiles))
        isa::tensor_scalar(scores.slice(i_tile_kv * FMAX_MOVING, FMAX_MOVING),
                           exp_row.slice(i_tile_kv * FMAX_MOVING, FMAX_MOVING), op::multiply, inverse_sum_row);
    }
    Tile scores_sbuf_t = ndarray<f32>({PMAX, S / PMAX * PMAX}); // scores has the wrong layout
    for (auto i_tile_kv : affine_range(S / PMAX))
      transposeThroughPsum(scores_sbuf_t.slice(i_tile_kv * PMAX, PMAX), scores.slice(i_tile_kv * PMAX, PMAX));
    Tile attn_out = ndarray<f32>({PMAX, PMAX});
    Tile attn_out_psum = psum<f32>({PMAX, PMAX}); // scores @ V, contracting seqlen_kv
    for (auto i_tile_kv : affine_range(S / PMAX))
      attn_out_psum += matmul(scores_sbuf_t.slice(i_tile_kv * PMAX, PMAX), v_sbuf_t.slice(i_tile_kv * PMAX, PMAX));
    if (version == Fused::LoopFusion)
      isa::tensor_copy(attn_out, attn_out_psum);
    else // the division on the output: one [128, 128] multiply per query tile
      isa::tensor_scalar(attn_out, attn_out_psum, op::multiply, inverse_sum_row);
    store(kernel_out.window(i_tile_q * PMAX, 0, {PMAX, d_head}), attn_out);
  }
}

/// The registration of a fused version: seqlen a multiple of 512, default 512.
KernelInfo fusedKernel(const char *name, const char *summary, Fused version) {
  return {.name = name,
          .summary = summary,
          .params = {{"seqlen", 512}},
          .signature = [name](const Params &p) { return attentionSignature(name, p, false); },
          .body = body([version](Hbm q, Hbm k, Hbm v, Hbm out) { attentionFused(q, k, v, out, version); }),
          .reference = reference,
          .referenceTolerance = kAttentionTolerance};
}

const Registration v4{fusedKernel(
    "tut_attention_v4", "NKI tutorial 'attention forward' v4: loop fusion per 128-query tile, FP32 (NeuronCore only)",
    Fused::LoopFusion)};
const Registration v5{fusedKernel("tut_attention_v5",
                                  "NKI tutorial 'attention forward' v5: v4 with the softmax division delayed to the "
                                  "output, FP32 (NeuronCore only)",
                                  Fused::DelayDivision)};
const Registration v6{fusedKernel("tut_attention_v6",
                                  "NKI tutorial 'attention forward' v6: v5 with exp and row sums in one "
                                  "activation_reduce, FP32 (NeuronCore only)",
                                  Fused::ActivationReduce)};

} // namespace
