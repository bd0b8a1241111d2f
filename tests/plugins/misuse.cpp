// Kernels with their author's mistakes in them, for the tests of what a user is told (compiler/test/Tools/):
// - plugin_misuse misuses the DSL (a tile of 256 partitions, where a tile has at most 128): bad input, exit 2,
//   naming this file's line (exit-status.test);
// - plugin_psum_full keeps nine [128, 512] f32 accumulators live at once, where PSUM holds eight (messages.test);
// - plugin_forgotten_store never stores the second row block of its output (messages.test).
// The messages name lines of this file: messages.test checks them, so keep the lines where they are or update it.

#include "tessera/dsl/tsr.h"

#include <vector>

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

const Registration psumFull{{
    .name = "plugin_psum_full",
    .summary = "n [128, 512] f32 accumulators live at once: PSUM holds eight (a test plugin's kernel)",
    .kernelParams = {{"n", 9}},
    .signature = [](const Params &) {
      return std::vector<TensorSpec>{input("a", {128, 128}, bf16), input("b", {128, 512}, bf16),
                                     output("c", {128, 512}, f32)};
    },
    .body = body([](const Params &p, Hbm a, Hbm b, Hbm c) {
      Tile lhs = load(a.tile(0, 0, {128, 128}));
      Tile rhs = load(b.tile(0, 0, {128, 512}));
      std::vector<Tile> acc;
      for (int64_t i = 0; i < p["n"]; ++i) acc.push_back(psum<f32>({128, 512})); // line 40: the accumulators
      for (Tile &t : acc) t += matmul(lhs, rhs);
      store(c.tile(0, 0, {128, 512}), copy<f32>(acc[0]));
    }),
}};

const Registration forgottenStore{{
    .name = "plugin_forgotten_store",
    .summary = "copies x [384, 512] to y, forgetting rows 128..255 and the right half of rows 256..383",
    .signature = [](const Params &) {
      return std::vector<TensorSpec>{input("x", {384, 512}, f32), output("y", {384, 512}, f32)};
    },
    .body = body([](Hbm x, Hbm y) {
      store(y.tile(0, 0, {128, 512}), load(x.tile(0, 0, {128, 512})));
      store(y.window(256, 0, {128, 256}), load(x.window(256, 0, {128, 256})));
    }),
    .reference = [](const Params &, const std::vector<HostTensor> &in, std::vector<HostTensor> &out) {
      out[0] = in[0];
    },
}};

// plugin_unaligned_broadcast broadcasts row 8 of a tile onto partitions, which a NeuronCore's stream shuffle cannot
// read from there (messages.test: the message names the tsr:: call, not the compiler's op).
const Registration unalignedBroadcast{{
    .name = "plugin_unaligned_broadcast",
    .summary = "broadcasts row 8 of a [16, 512] tile onto 32 partitions (a test plugin's kernel)",
    .signature = [](const Params &) {
      return std::vector<TensorSpec>{input("x", {16, 512}, f32), output("y", {32, 512}, f32)};
    },
    .body = body([](Hbm x, Hbm y) {
      Tile t = load(x.tile(0, 0, {16, 512}));
      store(y.tile(0, 0, {32, 512}), t.partition_slice(8, 1).broadcast_to({32, 512}));
    }),
}};

// plugin_ap_misuse: access patterns (Tile::ap) used as NKI does not allow, one case per `--param case=N`
// (messages.test: each message at the kernel's line, in the kernel's terms). 1: an access pattern transposed;
// 2: a first pair whose step is not the tile's free size; 3: a pattern of a slice; 4: a pattern past the end of the
// partition; 5: a reduction over axes that are not the last ones.
const Registration apMisuse{{
    .name = "plugin_ap_misuse",
    .summary = "access patterns misused, one way per --param case (a test plugin's kernel)",
    .kernelParams = {{"case", 1}},
    .signature = [](const Params &) {
      return std::vector<TensorSpec>{input("x", {64, 96}, f32), output("y", {64, 48}, f32)};
    },
    .body = body([](const Params &p, Hbm x, Hbm y) {
      Tile t = load(x.tile(0, 0, {64, 96}));
      Tile out = ndarray<f32>({64, 48});
      switch (p["case"]) {
      case 1: assign(out, transpose(t.ap({{96, 64}, {2, 48}}))); break;
      case 2: assign(out, t.ap({{48, 64}, {2, 48}})); break;
      case 3: assign(out, t.slice(0, 48).ap({{48, 64}, {1, 48}})); break;
      case 4: assign(out, t.ap({{96, 64}, {2, 48}}, 4)); break;
      default: assign(out.slice(0, 1), sum(t.ap({{96, 64}, {2, 48}, {1, 2}}), {1})); break;
      }
      store(y.tile(0, 0, {64, 48}), out);
    }),
}};

// plugin_ap_elementwise_misuse: elementwise ops reading access patterns where they cannot, one case per
// `--param case=N` (messages.test): 1: `t += t.ap(...)`, a pattern over the tile it writes (a NeuronCore engine
// would read elements it has already written); 2: a one-element pattern broadcast along a row; 3: a pattern as the
// destination of `*=`; 4: exp of a pattern of steps 12, 5, 1, not a reshape of the row: a TPU refuses it (--target).
const Registration apElementwiseMisuse{{
    .name = "plugin_ap_elementwise_misuse",
    .summary = "elementwise ops misusing access patterns, one way per --param case (a test plugin's kernel)",
    .kernelParams = {{"case", 1}},
    .signature = [](const Params &) {
      return std::vector<TensorSpec>{input("x", {64, 96}, f32), output("y", {64, 96}, f32)};
    },
    .body = body([](const Params &p, Hbm x, Hbm y) {
      Tile t = load(x.tile(0, 0, {64, 96}));
      switch (p["case"]) {
      case 1: t += t.ap({{96, 64}, {1, 8}, {8, 12}}); break;
      case 2: t = t + t.ap({{96, 64}, {1, 1}}); break;
      case 3: t.ap({{96, 64}, {1, 8}, {8, 12}}) *= 2.0f; break;
      default: t = exp(t.ap({{96, 64}, {12, 8}, {5, 2}, {1, 6}})); break;
      }
      store(y.tile(0, 0, {64, 96}), t);
    }),
}};

// plugin_ap_tpu_misuse: access patterns a TPU target refuses (its walk is a relayout of the row there), one case
// per `--param case=N` (messages.test; every case runs on a NeuronCore): 1: a copy into every other element, which
// is not a whole window of the row in another order; 2: every other element from a loop offset i in [0, 3), whose
// last iteration reaches into the next pair.
const Registration apTpuMisuse{{
    .name = "plugin_ap_tpu_misuse",
    .summary = "access patterns a TPU cannot relayout, one way per --param case (a test plugin's kernel)",
    .kernelParams = {{"case", 1}},
    .signature = [](const Params &) {
      return std::vector<TensorSpec>{input("x", {64, 96}, f32), output("y", {64, 96}, f32)};
    },
    .body = body([](const Params &p, Hbm x, Hbm y) {
      Tile t = load(x.tile(0, 0, {64, 96}));
      Tile out = zeros<f32>({64, 96});
      if (p["case"] == 1) {
        assign(out.ap({{96, 64}, {2, 48}}), t.slice(0, 48));
      } else {
        for (auto i : affine_range(3)) assign(out.slice(i * 32, 32), t.ap({{96, 64}, {2, 32}}, i));
      }
      store(y.tile(0, 0, {64, 96}), out);
    }),
}};

// plugin_ap_spmd_misuse: every other element from program_id(0), on a TPU (messages.test): a program id is traced in
// Pallas, and it would move the relayout's inner index, which must be static.
const Registration apSpmdMisuse{{
    .name = "plugin_ap_spmd_misuse",
    .summary = "an access pattern whose offset moves with a program id (a test plugin's kernel)",
    .signature = [](const Params &) {
      return std::vector<TensorSpec>{input("x", {64, 256}, f32), output("y", {64, 256}, f32)};
    },
    .body = body([](Hbm x, Hbm y) {
      const Index i = program_id(0);
      Tile in = load(x.tile(0, 0, {64, 256}));
      store(y.tile(0, i, {64, 128}), copy(in.ap({{256, 64}, {2, 128}}, i), f32));
    }),
    .grid = [](const Params &) { return std::vector<int64_t>{2}; },
}};

} // namespace
