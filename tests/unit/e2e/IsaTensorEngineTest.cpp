// The tensor engine's tsr::isa calls and the transposes (tessera/dsl/isa/TensorEngine.h), end to end: nc_matmul
// in row tiles and in FP8 double row mode, nc_transpose on both engines, and dma_transpose between SBUF tiles.
// Each has a registered kernel with a plain C++ reference, run on trn1 and trn2; what NeuronCore-v2 lacks (4 row
// tiles, double row) must be refused on trn1 at the kernel's line; misuse is reported at the kernel's line.

#include "../dsl/DslTesting.h"

#include "tessera/Driver.h"
#include "tessera/Report.h"
#include "tessera/compiler/Compiler.h"
#include "tessera/dsl/tsr.h"
#include "tessera/isa/Modes.h"

#include <gtest/gtest.h>

namespace {

using namespace tessera;
using tsr::dsltest::expectAt;
using tsr::dsltest::kernelOf;
using tsr::dsltest::traceError;

void expectRunsOn(const char *kernel, const char *target) {
  driver::RunReport r = driver::runKernel({.kernel = kernel, .target = target});
  EXPECT_TRUE(r.ok) << kernel << " on " << target << "\n" << driver::toText(r);
  EXPECT_EQ(r.reference, "reference") << kernel << " on " << target;
}

/// Expects running `kernel` on `target` to stop with an error containing `text` at line `line` of this file.
void expectRefused(const char *kernel, const char *target, int line, const std::string &text) {
  try {
    (void)driver::runKernel({.kernel = kernel, .target = target});
    ADD_FAILURE() << kernel << " ran on " << target << "; expected: " << text;
  } catch (const tessera::Error &e) {
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << "expected: " << text << "\n got: " << e.what();
    EXPECT_EQ(e.where().line, static_cast<uint32_t>(line)) << e.what();
    EXPECT_NE(e.where().file.find("IsaTensorEngineTest.cpp"), std::string::npos) << e.what();
  }
}

/// out[m, n] = sum_k a[k, m] * b[k, n] for a [K, M], b [K, N], in double.
void matmulReference(const tsr::HostTensor &a, const tsr::HostTensor &b, tsr::HostTensor &out, int64_t k, int64_t m,
                     int64_t n) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t r = 0; r < k; ++r) sum += double(a[r * m + i]) * double(b[r * n + j]);
      out[i * n + j] = static_cast<float>(sum);
    }
}

// ---- nc_matmul: row tiling --------------------------------------------------------------------------------

// y = a.T @ b over K = 128, as two 64-row matmuls in the two row tiles of the PE array, summed.
const tsr::Registration rowHalvesKernel{{
    .name = "test_isa_nc_matmul_row_halves",
    .summary = "tsr::isa::nc_matmul in the two 64-row tiles (tile_position / tile_size)",
    .params = {{"M", 32}, {"N", 48}},
    .signature =
        [](const tsr::Params &p) {
          return std::vector<tsr::TensorSpec>{tsr::input("a", {128, p["M"]}, tsr::f32),
                                              tsr::input("b", {128, p["N"]}, tsr::f32),
                                              tsr::output("y", {p["M"], p["N"]}, tsr::f32)};
        },
    .body = tsr::body([](tsr::Hbm a, tsr::Hbm b, tsr::Hbm y) {
      const int64_t M = a.dim(1), N = b.dim(1);
      tsr::Tile top = tsr::ndarray(tsr::f32, {M, N}, isa::MemSpace::Psum);
      tsr::Tile bottom = tsr::ndarray(tsr::f32, {M, N}, isa::MemSpace::Psum);
      tsr::isa::nc_matmul(top, tsr::load(a.tile(0, 0, {64, M})), tsr::load(b.tile(0, 0, {64, N})), false, {0, 0},
                          {64, 128});
      tsr::isa::nc_matmul(bottom, tsr::load(a.tile(1, 0, {64, M})), tsr::load(b.tile(1, 0, {64, N})), false,
                          {64, 0}, {64, 128});
      // tensor_tensor takes at most one input from PSUM: the bottom half is copied to SBUF first.
      tsr::Tile lower = tsr::ndarray<tsr::f32>({M, N});
      tsr::isa::tensor_copy(lower, bottom);
      tsr::Tile sum = tsr::ndarray<tsr::f32>({M, N});
      tsr::isa::tensor_tensor(sum, top, lower, tsr::op::add);
      tsr::store(y.tile(0, 0, {M, N}), sum);
    }),
    .reference = [](const tsr::Params &p, const std::vector<tsr::HostTensor> &in,
                    std::vector<tsr::HostTensor> &out) { matmulReference(in[0], in[1], out[0], 128, p["M"], p["N"]); },
}};

TEST(IsaTensorEngine, MatmulInRowHalvesMatchesItsReference) {
  expectRunsOn("test_isa_nc_matmul_row_halves", "trn1");
  expectRunsOn("test_isa_nc_matmul_row_halves", "trn2");
}

int quartersLine = 0; // the first row-tiled nc_matmul of the kernel below, set while it is traced

// y = a.T @ b over K = 128, as four 32-row matmuls, one per row tile (NeuronCore-v3 on), summed.
const tsr::Registration rowQuartersKernel{{
    .name = "test_isa_nc_matmul_row_quarters",
    .summary = "tsr::isa::nc_matmul in the four 32-row tiles",
    .params = {{"M", 16}, {"N", 24}},
    .signature =
        [](const tsr::Params &p) {
          return std::vector<tsr::TensorSpec>{tsr::input("a", {128, p["M"]}, tsr::f32),
                                              tsr::input("b", {128, p["N"]}, tsr::f32),
                                              tsr::output("y", {p["M"], p["N"]}, tsr::f32)};
        },
    .body = tsr::body([](tsr::Hbm a, tsr::Hbm b, tsr::Hbm y) {
      const int64_t M = a.dim(1), N = b.dim(1);
      std::vector<tsr::Tile> parts;
      for (int64_t quarter = 0; quarter < 4; ++quarter) {
        parts.push_back(tsr::ndarray(tsr::f32, {M, N}, isa::MemSpace::Psum));
        if (quarter == 0) quartersLine = __LINE__ + 1;
        tsr::isa::nc_matmul(parts.back(), tsr::load(a.tile(quarter, 0, {32, M})), tsr::load(b.tile(quarter, 0, {32, N})),
                            false, {32 * quarter, 0}, {32, 128});
      }
      tsr::Tile sum = tsr::ndarray<tsr::f32>({M, N});
      tsr::isa::tensor_copy(sum, parts[0]); // tensor_tensor takes at most one input from PSUM
      tsr::isa::tensor_tensor(sum, sum, parts[1], tsr::op::add);
      tsr::isa::tensor_tensor(sum, sum, parts[2], tsr::op::add);
      tsr::isa::tensor_tensor(sum, sum, parts[3], tsr::op::add);
      tsr::store(y.tile(0, 0, {M, N}), sum);
    }),
    .reference = [](const tsr::Params &p, const std::vector<tsr::HostTensor> &in,
                    std::vector<tsr::HostTensor> &out) { matmulReference(in[0], in[1], out[0], 128, p["M"], p["N"]); },
}};

TEST(IsaTensorEngine, MatmulInRowQuartersMatchesItsReferenceOnTrn2AndIsRefusedOnTrn1) {
  expectRunsOn("test_isa_nc_matmul_row_quarters", "trn2");
  expectRefused("test_isa_nc_matmul_row_quarters", "trn1", quartersLine,
                "row tiling into 4 tiles does not exist on trn1 (NeuronCore-v2 splits the PE rows into at most 2)");
}

// ---- nc_matmul: FP8 double row ----------------------------------------------------------------------------

int doubleRowLine = 0; // the kernel's first double-row nc_matmul, set while it is traced

// a [K, 2*M] and b [K, 2*N] in f8e4m3 hold rows (k, 0) and (k, 1) side by side: y = sum over k, j of
// a[k, j*M + m] * b[k, j*N + n], once in the whole array (y1) and once in the upper 64-row tile (y2).
const tsr::Registration doubleRowKernel{{
    .name = "test_isa_nc_matmul_double_row",
    .summary = "tsr::isa::nc_matmul in FP8 double row mode, alone and in a row tile",
    .params = {{"K", 32}, {"M", 16}, {"N", 24}},
    .signature =
        [](const tsr::Params &p) {
          return std::vector<tsr::TensorSpec>{tsr::input("a", {p["K"], 2 * p["M"]}, tsr::f8e4m3),
                                              tsr::input("b", {p["K"], 2 * p["N"]}, tsr::f8e4m3),
                                              tsr::output("y1", {p["M"], p["N"]}, tsr::f32),
                                              tsr::output("y2", {p["M"], p["N"]}, tsr::f32)};
        },
    .body = tsr::body([](tsr::Hbm a, tsr::Hbm b, tsr::Hbm y1, tsr::Hbm y2) {
      const int64_t K = a.dim(0), M = a.dim(1) / 2, N = b.dim(1) / 2;
      tsr::Tile stationary = tsr::load(a.tile(0, 0, {K, 2 * M}));
      tsr::Tile moving = tsr::load(b.tile(0, 0, {K, 2 * N}));
      tsr::Tile whole = tsr::ndarray(tsr::f32, {M, N}, isa::MemSpace::Psum);
      doubleRowLine = __LINE__ + 1;
      tsr::isa::nc_matmul(whole, stationary, moving, false, {}, {}, tsr::isa::matmul_perf_mode::double_row);
      tsr::Tile tiled = tsr::ndarray(tsr::f32, {M, N}, isa::MemSpace::Psum);
      tsr::isa::nc_matmul(tiled, stationary, moving, false, {64, 0}, {64, 128},
                          tsr::isa::matmul_perf_mode::double_row);
      tsr::Tile out1 = tsr::ndarray<tsr::f32>({M, N});
      tsr::isa::tensor_copy(out1, whole);
      tsr::Tile out2 = tsr::ndarray<tsr::f32>({M, N});
      tsr::isa::tensor_copy(out2, tiled);
      tsr::store(y1.tile(0, 0, {M, N}), out1);
      tsr::store(y2.tile(0, 0, {M, N}), out2);
    }),
    .reference =
        [](const tsr::Params &p, const std::vector<tsr::HostTensor> &in, std::vector<tsr::HostTensor> &out) {
          const int64_t K = p["K"], M = p["M"], N = p["N"];
          for (int64_t m = 0; m < M; ++m)
            for (int64_t n = 0; n < N; ++n) {
              double sum = 0;
              for (int64_t k = 0; k < K; ++k)
                for (int64_t j = 0; j < 2; ++j)
                  sum += double(in[0][k * 2 * M + j * M + m]) * double(in[1][k * 2 * N + j * N + n]);
              out[0][m * N + n] = out[1][m * N + n] = static_cast<float>(sum);
            }
        },
}};

TEST(IsaTensorEngine, MatmulInDoubleRowModeMatchesItsReferenceOnTrn2AndIsRefusedOnTrn1) {
  expectRunsOn("test_isa_nc_matmul_double_row", "trn2");
  expectRefused("test_isa_nc_matmul_double_row", "trn1", doubleRowLine,
                "FP8 double row mode does not exist on trn1 (NeuronCore-v2)");
}

TEST(IsaTensorEngine, MatmulModesReachTheProgram) {
  tsr::Params params;
  tsr::graph::KernelGraph graph =
      driver::traceKernel(driver::findKernel("test_isa_nc_matmul_double_row"), {}, params);
  compiler::CompileResult c = compiler::compile(graph, isa::Target::find("trn2"));
  std::vector<isa::MatmulMode> modes;
  for (const isa::Stream &stream : c.program.streams)
    for (const isa::Instruction &inst : stream.instructions)
      if (inst.op == isa::Opcode::Matmul) modes.push_back(isa::MatmulMode::decode(inst.mode));
  ASSERT_EQ(modes.size(), 2u);
  EXPECT_TRUE(modes[0].doubleRow && !modes[0].tiled());
  EXPECT_TRUE(modes[1].doubleRow);
  EXPECT_EQ(modes[1].rowTiles(), 2u);
  EXPECT_EQ(modes[1].rowTile, 1);
}

// ---- nc_transpose -----------------------------------------------------------------------------------------

// y1 = a.T on the tensor engine (SBUF -> PSUM, chosen by the operands' spaces); y2 = a[0:32, 0:32].T on the
// vector engine (asked for).
const tsr::Registration transposeKernel{{
    .name = "test_isa_nc_transpose",
    .summary = "tsr::isa::nc_transpose on the tensor engine and on the vector engine",
    .params = {{"P", 64}, {"F", 32}},
    .signature =
        [](const tsr::Params &p) {
          return std::vector<tsr::TensorSpec>{tsr::input("a", {p["P"], p["F"]}, tsr::f32),
                                              tsr::output("y1", {p["F"], p["P"]}, tsr::f32),
                                              tsr::output("y2", {32, 32}, tsr::f32)};
        },
    .body = tsr::body([](tsr::Hbm a, tsr::Hbm y1, tsr::Hbm y2) {
      const int64_t P = a.dim(0), F = a.dim(1);
      tsr::Tile data = tsr::load(a.tile(0, 0, {P, F}));
      tsr::Tile transposed = tsr::ndarray(tsr::f32, {F, P}, isa::MemSpace::Psum);
      tsr::isa::nc_transpose(transposed, data);
      tsr::Tile out1 = tsr::ndarray<tsr::f32>({F, P});
      tsr::isa::tensor_copy(out1, transposed);
      tsr::Tile block = tsr::load(a.tile(0, 0, {32, 32}));
      tsr::Tile out2 = tsr::ndarray<tsr::f32>({32, 32});
      tsr::isa::nc_transpose(out2, block, tsr::isa::vector_engine);
      tsr::store(y1.tile(0, 0, {F, P}), out1);
      tsr::store(y2.tile(0, 0, {32, 32}), out2);
    }),
    .reference = [](const tsr::Params &p, const std::vector<tsr::HostTensor> &in,
                    std::vector<tsr::HostTensor> &out) {
      const int64_t P = p["P"], F = p["F"];
      for (int64_t r = 0; r < P; ++r)
        for (int64_t c = 0; c < F; ++c) out[0][c * P + r] = in[0][r * F + c];
      for (int64_t r = 0; r < 32; ++r)
        for (int64_t c = 0; c < 32; ++c) out[1][c * 32 + r] = in[0][r * F + c];
    },
}};

TEST(IsaTensorEngine, TransposeMatchesItsReference) {
  expectRunsOn("test_isa_nc_transpose", "trn1");
  expectRunsOn("test_isa_nc_transpose", "trn2");
}

TEST(IsaTensorEngine, TransposeRunsOnTheEngineOfItsForm) {
  tsr::Params params;
  tsr::graph::KernelGraph graph = driver::traceKernel(driver::findKernel("test_isa_nc_transpose"), {}, params);
  compiler::CompileResult c = compiler::compile(graph, isa::Target::find("trn2"));
  std::vector<std::pair<isa::Engine, uint8_t>> transposes;
  for (const isa::Stream &stream : c.program.streams)
    for (const isa::Instruction &inst : stream.instructions)
      if (inst.op == isa::Opcode::Transpose) transposes.emplace_back(stream.engine, inst.mode);
  ASSERT_EQ(transposes.size(), 2u);
  EXPECT_EQ(transposes[0], std::pair(isa::Engine::Tensor, static_cast<uint8_t>(isa::TransposeForm::Tensor)));
  EXPECT_EQ(transposes[1], std::pair(isa::Engine::Vector, static_cast<uint8_t>(isa::TransposeForm::Vector)));
}

// ---- dma_transpose ----------------------------------------------------------------------------------------

int dmaTransposeLine = 0; // the kernel's dma_transpose, set while it is traced

const tsr::Registration dmaTransposeKernel{{
    .name = "test_isa_dma_transpose",
    .summary = "tsr::isa::dma_transpose between two SBUF tiles (bf16)",
    .params = {{"P", 32}, {"F", 64}},
    .signature =
        [](const tsr::Params &p) {
          return std::vector<tsr::TensorSpec>{tsr::input("a", {p["P"], p["F"]}, tsr::bf16),
                                              tsr::output("y", {p["F"], p["P"]}, tsr::bf16)};
        },
    .body = tsr::body([](tsr::Hbm a, tsr::Hbm y) {
      const int64_t P = a.dim(0), F = a.dim(1);
      tsr::Tile data = tsr::load(a.tile(0, 0, {P, F}));
      tsr::Tile transposed = tsr::ndarray<tsr::bf16>({F, P});
      dmaTransposeLine = __LINE__ + 1;
      tsr::isa::dma_transpose(transposed, data);
      tsr::store(y.tile(0, 0, {F, P}), transposed);
    }),
    .reference = [](const tsr::Params &p, const std::vector<tsr::HostTensor> &in,
                    std::vector<tsr::HostTensor> &out) {
      const int64_t P = p["P"], F = p["F"];
      for (int64_t r = 0; r < P; ++r)
        for (int64_t c = 0; c < F; ++c) out[0][c * P + r] = in[0][r * F + c];
    },
}};

TEST(IsaTensorEngine, DmaTransposeMatchesItsReferenceOnTrn2AndIsRefusedOnTrn1) {
  expectRunsOn("test_isa_dma_transpose", "trn2");
  expectRunsOn("test_isa_dma_transpose", "trn3");
  // A Trainium2 DMA feature: NeuronCore-v2 has none, and the message cites where NKI says so.
  expectRefused("test_isa_dma_transpose", "trn1", dmaTransposeLine,
                "exists from NeuronCore-v3 on; target trn1 is NeuronCore-v2 [rule dma_transpose.generation: NKI "
                "Trainium2 architecture guide");
}

// ---- misuse -----------------------------------------------------------------------------------------------

/// The error tracing `kernel` throws, expected at `line` (read after the trace: the kernel sets it) and to contain
/// `text`.
void expectTraceError(const tsr::KernelInfo &kernel, const int &line, const std::string &text) {
  tessera::Error e = traceError(kernel);
  expectAt(e, line);
  EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << "expected: " << text << "\n got: " << e.what();
}

/// A kernel with one [K, M] stationary and one [K, N] moving tile whose body is `call(dst, stationary, moving)`.
template <class Call> tsr::KernelInfo matmulKernel(int64_t k, int64_t m, int64_t n, tsr::DType dtype, Call call) {
  return kernelOf({tsr::input("a", {k, m}, dtype), tsr::input("b", {k, n}, dtype)}, [=](tsr::Hbm a, tsr::Hbm b) {
    tsr::Tile stationary = tsr::load(a.tile(0, 0, {k, m}));
    tsr::Tile moving = tsr::load(b.tile(0, 0, {k, n}));
    tsr::Tile dst = tsr::ndarray(tsr::f32, {m, n}, isa::MemSpace::Psum);
    call(dst, stationary, moving);
  });
}

TEST(IsaTensorEngineMisuse, MatmulTiling) {
  int line = 0;
  expectTraceError(matmulKernel(64, 32, 32, tsr::bf16,
                                [&](tsr::Tile d, tsr::Tile s, tsr::Tile m) {
                                  line = __LINE__ + 1;
                                  tsr::isa::nc_matmul(d, s, m, false, {0, 0}, {48, 128});
                                }),
                   line, "tsr::isa::nc_matmul: tile_size row 48 is not a row tile; the 128 PE rows split into tiles "
                         "of 128, 64 or 32 rows");
  expectTraceError(matmulKernel(64, 32, 32, tsr::bf16,
                                [&](tsr::Tile d, tsr::Tile s, tsr::Tile m) {
                                  line = __LINE__ + 1;
                                  tsr::isa::nc_matmul(d, s, m, false, {32, 0}, {64, 128});
                                }),
                   line, "tsr::isa::nc_matmul: tile_position row 32 does not start a 64-row tile");
  expectTraceError(matmulKernel(128, 32, 32, tsr::bf16,
                                [&](tsr::Tile d, tsr::Tile s, tsr::Tile m) {
                                  line = __LINE__ + 1;
                                  tsr::isa::nc_matmul(d, s, m, false, {64, 0}, {64, 128});
                                }),
                   line, "the contraction (partition) dimension is 128, more than the 64 rows of the row tile");
  expectTraceError(matmulKernel(64, 32, 32, tsr::bf16,
                                [&](tsr::Tile d, tsr::Tile s, tsr::Tile m) {
                                  line = __LINE__ + 1;
                                  tsr::isa::nc_matmul(d, s, m, false, {0, 64}, {64, 64});
                                }),
                   line, "column tiling (tile_position column 64, tile_size column 64) is not modelled");
  expectTraceError(matmulKernel(64, 32, 32, tsr::bf16,
                                [&](tsr::Tile d, tsr::Tile s, tsr::Tile m) {
                                  line = __LINE__ + 1;
                                  tsr::isa::nc_matmul(d, s, m, false, {64, 0}, {});
                                }),
                   line, "tsr::isa::nc_matmul: tile_position without tile_size");
}

TEST(IsaTensorEngineMisuse, MatmulOperands) {
  int line = 0;
  expectTraceError(matmulKernel(32, 32, 32, tsr::bf16,
                                [&](tsr::Tile d, tsr::Tile s, tsr::Tile m) {
                                  line = __LINE__ + 1;
                                  tsr::isa::nc_matmul(d, s, m, false, {}, {}, tsr::isa::matmul_perf_mode::double_row);
                                }),
                   line, "tsr::isa::nc_matmul: FP8 double row mode needs f8e4m3 or f8e5m2 stationary and moving, not "
                         "bf16 and bf16");
  expectTraceError(matmulKernel(32, 32, 48, tsr::bf16,
                                [&](tsr::Tile, tsr::Tile s, tsr::Tile m) {
                                  tsr::Tile wrong = tsr::ndarray(tsr::f32, {32, 32}, isa::MemSpace::Psum);
                                  line = __LINE__ + 1;
                                  tsr::isa::nc_matmul(wrong, s, m, false, {0, 0}, {32, 128});
                                }),
                   line, "tsr::isa::nc_matmul: dst must be [stationary free, moving free] = [32, 48], not [32, 32]");
  expectTraceError(matmulKernel(32, 32, 48, tsr::bf16,
                                [&](tsr::Tile, tsr::Tile s, tsr::Tile m) {
                                  tsr::Tile inSbuf = tsr::ndarray<tsr::f32>({32, 48});
                                  line = __LINE__ + 1;
                                  tsr::isa::nc_matmul(inSbuf, s, m, false, {0, 0}, {32, 128});
                                }),
                   line, "tsr::isa::nc_matmul: dst must be an f32 tile in PSUM");
}

TEST(IsaTensorEngineMisuse, Transposes) {
  int line = 0;
  auto wrongShape = kernelOf({tsr::input("a", {64, 32}, tsr::f32)}, [&](tsr::Hbm a) {
    tsr::Tile data = tsr::load(a.tile(0, 0, {64, 32}));
    tsr::Tile dst = tsr::ndarray(tsr::f32, {64, 32}, isa::MemSpace::Psum);
    line = __LINE__ + 1;
    tsr::isa::nc_transpose(dst, data);
  });
  expectTraceError(wrongShape, line, "tsr::isa::nc_transpose: dst must be data's transpose [32, 64], not [64, 32]");

  auto onScalarEngine = kernelOf({tsr::input("a", {32, 32}, tsr::f32)}, [&](tsr::Hbm a) {
    tsr::Tile data = tsr::load(a.tile(0, 0, {32, 32}));
    tsr::Tile dst = tsr::ndarray<tsr::f32>({32, 32});
    line = __LINE__ + 1;
    tsr::isa::nc_transpose(dst, data, tsr::isa::scalar_engine);
  });
  expectTraceError(onScalarEngine, line, "tsr::isa::nc_transpose: cannot run on the scalar engine");

  auto tensorIntoSbuf = kernelOf({tsr::input("a", {32, 32}, tsr::f32)}, [&](tsr::Hbm a) {
    tsr::Tile data = tsr::load(a.tile(0, 0, {32, 32}));
    tsr::Tile dst = tsr::ndarray<tsr::f32>({32, 32});
    line = __LINE__ + 1;
    tsr::isa::nc_transpose(dst, data, tsr::isa::tensor_engine);
  });
  expectTraceError(tensorIntoSbuf, line, "on the tensor engine data must be in SBUF and dst in PSUM");

  // The vector engine's block size is the target's (vector_engine.transpose_block): the compiler refuses it.
  auto bigOnVector = kernelOf({tsr::input("a", {64, 32}, tsr::f32)}, [&](tsr::Hbm a) {
    tsr::Tile data = tsr::load(a.tile(0, 0, {64, 32}));
    tsr::Tile dst = tsr::ndarray<tsr::f32>({32, 64});
    line = __LINE__ + 1;
    tsr::isa::nc_transpose(dst, data, tsr::isa::vector_engine);
  });
  tsr::graph::KernelGraph graph = tsr::trace(bigOnVector, {});
  try {
    (void)compiler::compile(graph, isa::Target::find("trn2"));
    ADD_FAILURE() << "a [64, 32] vector-engine transpose compiled";
  } catch (const tessera::Error &e) {
    expectAt(e, line);
    EXPECT_NE(std::string(e.what()).find("data [64, 32] exceeds the vector engine's [32, 32] on trn2"),
              std::string::npos)
        << e.what();
  }

  auto fourByteDma = kernelOf({tsr::input("a", {32, 64}, tsr::f32)}, [&](tsr::Hbm a) {
    tsr::Tile data = tsr::load(a.tile(0, 0, {32, 64}));
    tsr::Tile dst = tsr::ndarray<tsr::f32>({64, 32});
    line = __LINE__ + 1;
    tsr::isa::dma_transpose(dst, data);
  });
  expectTraceError(fourByteDma, line, "tsr::isa::dma_transpose: src must have a 2-byte dtype (bf16, f16), not f32");

  auto dmaFromPsum = kernelOf({tsr::input("a", {32, 64}, tsr::bf16)}, [&](tsr::Hbm) {
    tsr::Tile data = tsr::ndarray(tsr::bf16, {32, 64}, isa::MemSpace::Psum);
    tsr::Tile dst = tsr::ndarray<tsr::bf16>({64, 32});
    line = __LINE__ + 1;
    tsr::isa::dma_transpose(dst, data);
  });
  expectTraceError(dmaFromPsum, line, "tsr::isa::dma_transpose: src and dst must be in HBM or SBUF, not PSUM");
}

} // namespace
