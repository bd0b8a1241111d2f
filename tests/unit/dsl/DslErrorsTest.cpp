/// \file
/// Misuse of the DSL is a tessera::Error at trace time, with a message that says what is wrong and the line of the
/// offending call in the user's file (here, this test file): `int line = __LINE__ + 1;` sits right above each call.

#include "DslTesting.h"

#include "tessera/dsl/tsr.h"

#include <gtest/gtest.h>

#include <string>

namespace tsr {
namespace {

using dsltest::errorOf;
using dsltest::expectAt;
using dsltest::kernelOf;
using dsltest::traceError;

// ---- Tile limits ---------------------------------------------------------------------------------------------

TEST(DslErrors, LoadOfMoreThan128PartitionsIsRejected) {
  int line = 0;
  auto k = kernelOf({input("a", {256, 64}, f32)}, [&](Hbm a) {
    line = __LINE__ + 1;
    (void)load(a.tile(0, 0, {256, 64}));
  });
  tessera::Error e = traceError(k);
  EXPECT_EQ(e.message(), "load: partition dimension 256 exceeds tsr::tile_size::pmax (128)");
  EXPECT_EQ(e.hint(), "split the first dimension into tiles of at most 128 rows");
  expectAt(e, line);
}

TEST(DslErrors, PsumOfMoreThan128PartitionsIsRejected) {
  int line = 0;
  auto k = kernelOf({input("a", {128, 64}, f32)}, [&](Hbm) {
    line = __LINE__ + 1;
    (void)psum<f32>({256, 512});
  });
  tessera::Error e = traceError(k);
  EXPECT_EQ(e.message(), "psum: partition dimension 256 exceeds tsr::tile_size::pmax (128)");
  expectAt(e, line);
}

TEST(DslErrors, ExactlyPmaxPartitionsIsAllowed) {
  auto k = kernelOf({input("a", {128, 64}, f32)}, [](Hbm a) {
    (void)load(a.tile(0, 0, {tile_size::pmax, 64}));
    (void)psum<f32>({tile_size::pmax, 512});
  });
  EXPECT_NO_THROW((void)trace(k, {}));
}

TEST(DslErrors, TensorsOfTheSignatureHaveTwoToFiveDimensions) {
  // Refused before the body runs, naming the kernel and the tensor, at the kernel's definition.
  KernelInfo k1d = kernelOf({input("x", {64}, f32), output("y", {128, 64}, f32)}, [](Hbm, Hbm) {});
  k1d.loc = {"mykernel.cpp", 12};
  tessera::Error e = traceError(k1d);
  EXPECT_EQ(e.message(), "kernel 'test': tensor 'x' is [64]; HBM tensors have 2 to 5 dimensions, the last two "
                         "[rows, columns]");
  EXPECT_EQ(e.hint(), "give a vector as one row, [1, N] (or one column, [N, 1])");
  EXPECT_EQ(e.where().file, "mykernel.cpp");
  EXPECT_EQ(e.where().line, 12u);
  KernelInfo k6d = kernelOf({input("x", {2, 2, 2, 2, 8, 8}, f32)}, [](Hbm) {});
  e = traceError(k6d);
  EXPECT_EQ(e.message(), "kernel 'test': tensor 'x' is [2, 2, 2, 2, 8, 8]; HBM tensors have 2 to 5 dimensions, the "
                         "last two [rows, columns]");
  EXPECT_EQ(e.hint(), "merge leading dimensions into one ([A, B, C, ...] as [A * B, C, ...]) to have at most 5");
  KernelInfo k5d = kernelOf({input("x", {2, 2, 2, 8, 8}, f32)}, [](Hbm) {});
  EXPECT_NO_THROW((void)trace(k5d, {}));
  KernelInfo empty = kernelOf({input("x", {128, 0}, f32)}, [](Hbm) {});
  EXPECT_EQ(traceError(empty).message(), "kernel 'test': tensor 'x' is [128, 0]; each dimension must be at least 1");
}

TEST(DslErrors, WindowsOfAnNdTensorNeedItsLeadingIndices) {
  int line = 0;
  auto k = kernelOf({input("x", {4, 256, 64}, f32)}, [&](Hbm x) {
    line = __LINE__ + 1;
    (void)load(x.tile(0, 0, {128, 64}));
  });
  tessera::Error e = traceError(k);
  EXPECT_EQ(e.message(), "x.tile: x is [4, 256, 64]; a window is 2-D [rows, columns] of the last two dimensions: fix "
                         "the 1 leading dimension first");
  EXPECT_EQ(e.hint(), "index them as NKI does: x[b].tile(...) for x[b, rows, columns]");
  expectAt(e, line);

  auto k4 = kernelOf({input("q", {2, 4, 256, 64}, f32)}, [&](Hbm q) {
    line = __LINE__ + 1;
    (void)load(q[1].window(0, 0, {128, 64}));
  });
  e = traceError(k4);
  EXPECT_EQ(e.message(), "q[.].window: q[.] is [4, 256, 64]; a window is 2-D [rows, columns] of the last two "
                         "dimensions: fix the 1 leading dimension first");
  expectAt(e, line);

  auto k5 = kernelOf({input("r", {2, 2, 2, 128, 64}, f32)}, [&](Hbm r) {
    line = __LINE__ + 1;
    (void)load(r.tile(0, 0, {128, 64}));
  });
  e = traceError(k5);
  EXPECT_EQ(e.message(), "r.tile: r is [2, 2, 2, 128, 64]; a window is 2-D [rows, columns] of the last two "
                         "dimensions: fix the 3 leading dimensions first");
  EXPECT_EQ(e.hint(), "index them as NKI does: r[b][h][k].tile(...) for r[b, h, k, rows, columns]");
  expectAt(e, line);
}

TEST(DslErrors, LeadingIndexOutsideItsDimension) {
  // Every value the loop index takes must lie in the dimension: b + 1 reaches 4 in a dimension of 4.
  int line = 0;
  auto k = kernelOf({input("x", {4, 256, 64}, f32)}, [&](Hbm x) {
    for (auto b : affine_range(4)) {
      line = __LINE__ + 1;
      (void)load(x[b + 1].tile(0, 0, {128, 64}));
    }
  });
  tessera::Error e = traceError(k);
  EXPECT_EQ(e.message(), "x[...]: index from 1 to 4 along dimension 0 leaves the tensor [4, 256, 64]: its last would "
                         "be 4, past the last index 3");
  EXPECT_EQ(e.hint(), "a leading index lies inside its dimension for every value of its loop indices");
  expectAt(e, line);

  auto k4 = kernelOf({input("q", {2, 3, 256, 64}, f32)}, [&](Hbm q) {
    line = __LINE__ + 1;
    (void)load(q[0][-1].tile(0, 0, {128, 64}));
  });
  e = traceError(k4);
  EXPECT_EQ(e.message(), "q[.][...]: index from -1 to -1 along dimension 1 leaves the tensor [2, 3, 256, 64]: its "
                         "first would be -1, before index 0");
  expectAt(e, line);
}

TEST(DslErrors, NoLeadingIndexToFixOnAMatrix) {
  int line = 0;
  auto k = kernelOf({input("x", {4, 256, 64}, f32)}, [&](Hbm x) {
    line = __LINE__ + 1;
    (void)x[0][1];
  });
  tessera::Error e = traceError(k);
  EXPECT_EQ(e.message(), "x[.][...]: x[.] is [256, 64] here, its rows and columns: it has no leading dimension left "
                         "to fix");
  EXPECT_EQ(e.hint(), "take a window of the last two dimensions with .tile(i, j, size) or .window");
  expectAt(e, line);
}

TEST(DslErrors, WindowsOfAViewStayInsideItsMatrix) {
  int line = 0;
  auto k = kernelOf({input("x", {4, 256, 64}, f32)}, [&](Hbm x) {
    line = __LINE__ + 1;
    (void)load(x[3].tile(2, 0, {128, 64}));
  });
  tessera::Error e = traceError(k);
  EXPECT_EQ(e.message(), "x: window [128, 64] at offsets from 256 to 256 along dimension 1 leaves the tensor "
                         "[4, 256, 64]: its last element along dimension 1 would be at index 383, past the last index "
                         "255");
  expectAt(e, line);
}

TEST(DslErrors, AViewHasTheRemainingDimensions) {
  auto k = kernelOf({input("x", {2, 3, 256, 64}, f32)}, [&](Hbm x) {
    EXPECT_EQ(x.shape(), (Shape{2, 3, 256, 64}));
    EXPECT_EQ(x[1].shape(), (Shape{3, 256, 64}));
    EXPECT_EQ(x[1][2].dim(0), 256);
    EXPECT_EQ(x[1][2].dim(1), 64);
    for (auto b : affine_range(2)) {
      const HbmTile t = x[b][2].window(8, 0, {64, 32}, {2, 2});
      EXPECT_EQ(t.shape(), (Shape{64, 32}));
      EXPECT_EQ(t.window().sizes, (std::vector<int64_t>{1, 1, 64, 32}));
      EXPECT_EQ(t.window().steps, (std::vector<int64_t>{1, 1, 2, 2}));
      EXPECT_EQ(t.window().offsets[1].constant, 2);
      EXPECT_EQ(t.window().offsets[0].terms.size(), 1u);
    }
  });
  EXPECT_NO_THROW((void)trace(k, {}));
}

TEST(DslErrors, TilesAreTwoDimensionalWithPositiveSizes) {
  int line3d = 0, lineZero = 0;
  auto k3d = kernelOf({input("a", {128, 64}, f32)}, [&](Hbm) {
    line3d = __LINE__ + 1;
    (void)psum<f32>({2, 64, 64});
  });
  tessera::Error e = traceError(k3d);
  EXPECT_EQ(e.message(), "psum: tiles are 2-D [partition, free], got [2, 64, 64]");
  expectAt(e, line3d);

  auto kZero = kernelOf({input("a", {128, 64}, f32)}, [&](Hbm) {
    lineZero = __LINE__ + 1;
    (void)zeros<f32>({128, 0});
  });
  e = traceError(kZero);
  EXPECT_EQ(e.message(), "full: tile shape [128, 0] must be positive");
  expectAt(e, lineZero);
}

TEST(DslErrors, PsumTileOverTwoKiBPerPartitionIsRejected) {
  int line = 0;
  auto k = kernelOf({input("a", {128, 64}, f32)}, [&](Hbm) {
    line = __LINE__ + 1;
    (void)psum<f32>({128, 1024});
  });
  tessera::Error e = traceError(k);
  EXPECT_EQ(e.message(),
            "psum: PSUM tile [128, 1024] of f32 takes 4096 bytes per partition, more than one PSUM bank (2048 bytes)");
  EXPECT_EQ(e.hint(), "keep PSUM tiles within 2 KiB per partition (512 FP32 elements)");
  expectAt(e, line);
}

TEST(DslErrors, PsumLimitIsInBytesNotElements) {
  // 1024 bf16 elements are 2 KiB: one bank, allowed; 513 f32 elements are not.
  auto fits = kernelOf({input("a", {128, 64}, f32)}, [](Hbm) { (void)psum<bf16>({128, 1024}); });
  EXPECT_NO_THROW((void)trace(fits, {}));
  int line = 0;
  auto over = kernelOf({input("a", {128, 64}, f32)}, [&](Hbm) {
    line = __LINE__ + 1;
    (void)psum<f32>({128, tile_size::psum_fmax + 1});
  });
  tessera::Error e = traceError(over);
  EXPECT_EQ(e.message(),
            "psum: PSUM tile [128, 513] of f32 takes 2052 bytes per partition, more than one PSUM bank (2048 bytes)");
  expectAt(e, line);
}

// ---- Matmul --------------------------------------------------------------------------------------------------

TEST(DslErrors, MatmulMovingFreeSizeOver512IsRejected) {
  int line = 0;
  auto k = kernelOf({input("a_t", {128, 128}, bf16), input("b", {128, 1024}, bf16)}, [&](Hbm a_t, Hbm b) {
    Tile s = load(a_t.tile(0, 0, {128, 128}));
    Tile m = load(b.tile(0, 0, {128, 1024}));
    line = __LINE__ + 1;
    [[maybe_unused]] Tile r = matmul(s, m);
  });
  tessera::Error e = traceError(k);
  EXPECT_EQ(e.message(), "matmul: moving free size 1024 exceeds tsr::tile_size::gemm_moving_fmax (512)");
  EXPECT_EQ(e.hint(), "split the moving tile's free dimension into tiles of at most 512");
  expectAt(e, line);
}

TEST(DslErrors, MatmulStationaryFreeSizeOver128IsRejected) {
  int line = 0;
  auto k = kernelOf({input("a_t", {128, 256}, bf16), input("b", {128, 512}, bf16)}, [&](Hbm a_t, Hbm b) {
    Tile s = load(a_t.tile(0, 0, {128, 256}));
    Tile m = load(b.tile(0, 0, {128, 512}));
    line = __LINE__ + 1;
    [[maybe_unused]] Tile r = matmul(s, m);
  });
  tessera::Error e = traceError(k);
  EXPECT_EQ(e.message(), "matmul: stationary free size 256 exceeds tsr::tile_size::gemm_stationary_fmax (128)");
  expectAt(e, line);
}

TEST(DslErrors, MatmulContractionMismatchIsRejected) {
  int line = 0;
  auto k = kernelOf({input("a_t", {128, 128}, bf16), input("b", {64, 512}, bf16)}, [&](Hbm a_t, Hbm b) {
    Tile s = load(a_t.tile(0, 0, {128, 128}));
    Tile m = load(b.tile(0, 0, {64, 512}));
    line = __LINE__ + 1;
    [[maybe_unused]] Tile r = matmul(s, m);
  });
  tessera::Error e = traceError(k);
  EXPECT_EQ(e.message(), "matmul: shape mismatch, stationary [128, 128] and moving [64, 512] must share the "
                         "contraction (partition) dimension");
  EXPECT_EQ(e.hint(), "matmul(a_t, b) computes a_t.T @ b: both operands are [K, ...]");
  expectAt(e, line);
}

TEST(DslErrors, MatmulIntoAccumulatorOfWrongShapeIsRejected) {
  int line = 0;
  auto k = kernelOf({input("a_t", {128, 128}, bf16), input("b", {128, 512}, bf16)}, [&](Hbm a_t, Hbm b) {
    Tile acc = psum<f32>({128, 256});
    Tile s = load(a_t.tile(0, 0, {128, 128}));
    Tile m = load(b.tile(0, 0, {128, 512}));
    line = __LINE__ + 1;
    acc += matmul(s, m);
  });
  tessera::Error e = traceError(k);
  EXPECT_EQ(e.message(), "matmul: shape mismatch, the result is [128, 512] but the accumulator is [128, 256]");
  expectAt(e, line);
}

TEST(DslErrors, MatmulOperandInHbmIsRejected) {
  // A window of an HBM tensor as the stationary operand.
  int lineWindow = 0;
  auto kWindow = kernelOf({input("a_t", {128, 128}, bf16), input("b", {128, 512}, bf16)}, [&](Hbm a_t, Hbm b) {
    Tile m = load(b.tile(0, 0, {128, 512}));
    lineWindow = __LINE__ + 1;
    [[maybe_unused]] Tile r = matmul(a_t.tile(0, 0, {128, 128}), m);
  });
  tessera::Error e = traceError(kWindow);
  EXPECT_EQ(e.message(), "matmul: the stationary operand is in HBM; engines read only SBUF and PSUM");
  EXPECT_EQ(e.hint(), "load it into SBUF first with tsr::load");
  expectAt(e, lineWindow);

  // A whole HBM tensor as the moving operand.
  int lineTensor = 0;
  auto kTensor = kernelOf({input("a_t", {128, 128}, bf16), input("b", {128, 512}, bf16)}, [&](Hbm a_t, Hbm b) {
    Tile s = load(a_t.tile(0, 0, {128, 128}));
    lineTensor = __LINE__ + 1;
    [[maybe_unused]] Tile r = matmul(s, b);
  });
  e = traceError(kTensor);
  EXPECT_EQ(e.message(), "matmul: the moving operand is in HBM; engines read only SBUF and PSUM");
  expectAt(e, lineTensor);
}

TEST(DslErrors, MatmulOperandInPsumIsRejected) {
  int line = 0;
  auto k = kernelOf({input("b", {128, 512}, bf16)}, [&](Hbm b) {
    Tile p = psum<f32>({128, 128});
    Tile m = load(b.tile(0, 0, {128, 512}));
    line = __LINE__ + 1;
    [[maybe_unused]] Tile r = matmul(p, m);
  });
  tessera::Error e = traceError(k);
  EXPECT_EQ(e.message(), "matmul: the stationary operand is in psum; the tensor engine reads SBUF");
  EXPECT_EQ(e.hint(), "copy it to SBUF first with tsr::copy");
  expectAt(e, line);
}

TEST(DslErrors, UnusedMatmulResultIsReported) {
  int line = 0;
  auto k = kernelOf({input("a_t", {128, 128}, bf16), input("b", {128, 512}, bf16)}, [&](Hbm a_t, Hbm b) {
    Tile s = load(a_t.tile(0, 0, {128, 128}));
    Tile m = load(b.tile(0, 0, {128, 512}));
    line = __LINE__ + 1;
    (void)matmul(s, m);
  });
  tessera::Error e = traceError(k);
  EXPECT_EQ(e.message(), "matmul: the result is never used");
  EXPECT_EQ(e.hint(), "accumulate it with `acc += tsr::matmul(...)` or keep it: `Tile t = ...`");
  expectAt(e, line);
}

TEST(DslErrors, MatmulKeptInAVariableButNeverConsumedIsReported) {
  int line = 0;
  auto k = kernelOf({input("a_t", {128, 128}, bf16), input("b", {128, 512}, bf16)}, [&](Hbm a_t, Hbm b) {
    Tile s = load(a_t.tile(0, 0, {128, 128}));
    Tile m = load(b.tile(0, 0, {128, 512}));
    line = __LINE__ + 1;
    MatmulExpr pending = matmul(s, m);
    MatmulExpr moved = std::move(pending); // moving hands the duty on; one report, at the matmul's line
  });
  tessera::Error e = traceError(k);
  EXPECT_EQ(e.message(), "matmul: the result is never used");
  expectAt(e, line);
}

TEST(DslErrors, AccumulatingIntoSbufTileIsRejected) {
  int line = 0;
  auto k = kernelOf({input("a_t", {128, 128}, bf16), input("b", {128, 512}, bf16)}, [&](Hbm a_t, Hbm b) {
    Tile acc = zeros<f32>({128, 512});
    Tile s = load(a_t.tile(0, 0, {128, 128}));
    Tile m = load(b.tile(0, 0, {128, 512}));
    line = __LINE__ + 1;
    acc += matmul(s, m);
  });
  tessera::Error e = traceError(k);
  EXPECT_EQ(e.message(), "matmul: accumulates into a f32 sbuf tile; expected an f32 PSUM tile");
  EXPECT_EQ(e.hint(), "create the accumulator with tsr::psum<tsr::f32>({M, N})");
  expectAt(e, line);
}

TEST(DslErrors, AccumulatingIntoBf16PsumTileIsRejected) {
  int line = 0;
  auto k = kernelOf({input("a_t", {128, 128}, bf16), input("b", {128, 512}, bf16)}, [&](Hbm a_t, Hbm b) {
    Tile acc = psum<bf16>({128, 512});
    Tile s = load(a_t.tile(0, 0, {128, 128}));
    Tile m = load(b.tile(0, 0, {128, 512}));
    line = __LINE__ + 1;
    acc += matmul(s, m);
  });
  tessera::Error e = traceError(k);
  EXPECT_EQ(e.message(), "matmul: accumulates into a bf16 psum tile; expected an f32 PSUM tile");
  expectAt(e, line);
}

// ---- Elementwise operations ------------------------------------------------------------------------------------

TEST(DslErrors, AddOfMismatchedShapesIsRejected) {
  int line = 0;
  auto k = kernelOf({input("a", {128, 64}, f32), input("b", {128, 32}, f32)}, [&](Hbm a, Hbm b) {
    Tile x = load(a.tile(0, 0, {128, 64}));
    Tile y = load(b.tile(0, 0, {128, 32}));
    line = __LINE__ + 1;
    (void)add(x, y);
  });
  tessera::Error e = traceError(k);
  EXPECT_EQ(e.message(), "add: shape mismatch, [128, 64] and [128, 32]");
  EXPECT_EQ(e.hint(), "operands must have the same shape, or one may be [P, 1] (broadcast along the free dimension)");
  expectAt(e, line);
}

TEST(DslErrors, BroadcastNeedsTheSamePartitionCount) {
  int line = 0;
  auto k = kernelOf({input("a", {128, 64}, f32)}, [&](Hbm a) {
    Tile x = load(a.tile(0, 0, {128, 64}));
    Tile col = zeros<f32>({64, 1});
    line = __LINE__ + 1;
    (void)multiply(x, col);
  });
  tessera::Error e = traceError(k);
  EXPECT_EQ(e.message(), "multiply: shape mismatch, [128, 64] and [64, 1]");
  expectAt(e, line);
}

/// The operators have no source_location parameter of their own: the line comes from the implicit conversion of
/// the left operand to tsr::Operand, which is the user's line.
TEST(DslErrors, OperatorFormsReportTheUsersLine) {
  struct Case {
    const char *name;
    Tile (*apply)(const Tile &, const Tile &);
    int line;
  };
  // Each lambda's body is on the line it reports.
  Case cases[] = {
      {"add", [](const Tile &x, const Tile &y) { return x + y; }, __LINE__},
      {"subtract", [](const Tile &x, const Tile &y) { return x - y; }, __LINE__},
      {"multiply", [](const Tile &x, const Tile &y) { return x * y; }, __LINE__},
      {"divide", [](const Tile &x, const Tile &y) { return x / y; }, __LINE__},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.name);
    auto k = kernelOf({input("a", {128, 64}, f32), input("b", {128, 32}, f32)}, [&](Hbm a, Hbm b) {
      Tile x = load(a.tile(0, 0, {128, 64}));
      Tile y = load(b.tile(0, 0, {128, 32}));
      (void)c.apply(x, y);
    });
    tessera::Error e = traceError(k);
    EXPECT_EQ(e.message(), std::string(c.name) + ": shape mismatch, [128, 64] and [128, 32]");
    expectAt(e, c.line);
  }
}

TEST(DslErrors, OperatorInsideAStoreReportsTheUsersLine) {
  int line = 0;
  auto k = kernelOf({input("a", {128, 64}, f32), input("b", {128, 32}, f32), output("c", {128, 64}, f32)},
                    [&](Hbm a, Hbm b, Hbm c) {
                      Tile x = load(a.tile(0, 0, {128, 64}));
                      Tile y = load(b.tile(0, 0, {128, 32}));
                      line = __LINE__ + 1;
                      store(c.tile(0, 0, {128, 64}), x + y);
                    });
  tessera::Error e = traceError(k);
  EXPECT_EQ(e.message(), "add: shape mismatch, [128, 64] and [128, 32]");
  expectAt(e, line);
}

TEST(DslErrors, OperatorWithAnHbmOperandReportsTheUsersLine) {
  int line = 0;
  auto k = kernelOf({input("a", {128, 64}, f32), input("b", {128, 64}, f32)}, [&](Hbm a, Hbm b) {
    Tile x = load(a.tile(0, 0, {128, 64}));
    line = __LINE__ + 1;
    (void)(x + b.tile(0, 0, {128, 64}));
  });
  tessera::Error e = traceError(k);
  EXPECT_EQ(e.message(), "add: the second operand is in HBM; engines read only SBUF and PSUM");
  expectAt(e, line);
}

TEST(DslErrors, ActivationAndReductionOfHbmAreRejected) {
  int lineExp = 0, lineSum = 0;
  auto kExp = kernelOf({input("a", {128, 64}, f32)}, [&](Hbm a) {
    lineExp = __LINE__ + 1;
    (void)exp(a);
  });
  tessera::Error e = traceError(kExp);
  EXPECT_EQ(e.message(), "exp: the input operand is in HBM; engines read only SBUF and PSUM");
  expectAt(e, lineExp);

  auto kSum = kernelOf({input("a", {128, 64}, f32)}, [&](Hbm a) {
    lineSum = __LINE__ + 1;
    (void)sum(a.tile(0, 0, {128, 64}));
  });
  e = traceError(kSum);
  EXPECT_EQ(e.message(), "sum: the input operand is in HBM; engines read only SBUF and PSUM");
  expectAt(e, lineSum);
}

// ---- Stores ----------------------------------------------------------------------------------------------------

TEST(DslErrors, StoreOfWrongShapedTileIsRejected) {
  int line = 0;
  auto k = kernelOf({input("a", {128, 32}, f32), output("c", {128, 64}, f32)}, [&](Hbm a, Hbm c) {
    Tile t = load(a.tile(0, 0, {128, 32}));
    line = __LINE__ + 1;
    store(c.tile(0, 0, {128, 64}), t);
  });
  tessera::Error e = traceError(k);
  EXPECT_EQ(e.message(), "store: shape mismatch, tile [128, 32] into HBM window [128, 64]");
  expectAt(e, line);
}

TEST(DslErrors, StoreOfWrongDtypeIsRejected) {
  int line = 0;
  auto k = kernelOf({input("a", {128, 64}, f32), output("c", {128, 64}, bf16)}, [&](Hbm a, Hbm c) {
    Tile t = load(a.tile(0, 0, {128, 64}));
    line = __LINE__ + 1;
    store(c.tile(0, 0, {128, 64}), t);
  });
  tessera::Error e = traceError(k);
  EXPECT_EQ(e.message(), "store: the tile is f32 but the tensor is bf16");
  EXPECT_EQ(e.hint(), "DMA does not convert: cast first, tsr::copy<tsr::bf16>(tile)");
  expectAt(e, line);
}

TEST(DslErrors, StoreFromHbmIsRejected) {
  int line = 0;
  auto k = kernelOf({input("a", {128, 64}, f32), output("c", {128, 64}, f32)}, [&](Hbm a, Hbm c) {
    line = __LINE__ + 1;
    store(c.tile(0, 0, {128, 64}), a.tile(0, 0, {128, 64}));
  });
  tessera::Error e = traceError(k);
  EXPECT_EQ(e.message(), "store: the source operand is in HBM; engines read only SBUF and PSUM");
  expectAt(e, line);
}

// ---- HBM windows -----------------------------------------------------------------------------------------------

TEST(DslErrors, HbmWindowPastTheEndIsRejected) {
  int line = 0;
  auto k = kernelOf({input("a", {256, 64}, f32)}, [&](Hbm a) {
    line = __LINE__ + 1;
    (void)a.tile(2, 0, {128, 64});
  });
  tessera::Error e = traceError(k);
  EXPECT_EQ(e.message(),
            "a: window [128, 64] at offsets from 256 to 256 along dimension 0 leaves the tensor [256, 64]: its last "
            "element along dimension 0 would be at index 383, past the last index 255");
  EXPECT_NE(e.hint().find("handle the last, smaller block apart"), std::string::npos) << e.hint();
  expectAt(e, line);
}

TEST(DslErrors, HbmWindowOutOfBoundsInTheFreeDimensionIsRejected) {
  int line = 0;
  auto k = kernelOf({input("a", {128, 100}, f32)}, [&](Hbm a) {
    line = __LINE__ + 1;
    (void)a.window(0, 50, {128, 64});
  });
  tessera::Error e = traceError(k);
  EXPECT_EQ(e.message(),
            "a: window [128, 64] at offsets from 50 to 50 along dimension 1 leaves the tensor [128, 100]: its last "
            "element along dimension 1 would be at index 113, past the last index 99");
  expectAt(e, line);
}

TEST(DslErrors, HbmWindowAtNegativeOffsetIsRejected) {
  int line = 0;
  auto k = kernelOf({input("a", {256, 64}, f32)}, [&](Hbm a) {
    line = __LINE__ + 1;
    (void)a.window(-1, 0, {128, 64});
  });
  tessera::Error e = traceError(k);
  EXPECT_EQ(e.message(),
            "a: window [128, 64] at offsets from -1 to -1 along dimension 0 leaves the tensor [256, 64]: its first "
            "element along dimension 0 would be at index -1, before index 0");
  expectAt(e, line);
}

/// The bounds check covers every iteration of the enclosing loops, not just the traced one: three blocks of 128
/// rows do not fit in 256 (offsets 0, 128, 256).
TEST(DslErrors, HbmWindowOutOfBoundsOnALaterIterationIsRejected) {
  int line = 0;
  auto k = kernelOf({input("a", {256, 64}, f32)}, [&](Hbm a) {
    for (auto i : affine_range(3)) {
      line = __LINE__ + 1;
      (void)load(a.tile(i, 0, {128, 64}));
    }
  });
  tessera::Error e = traceError(k);
  EXPECT_EQ(e.message(),
            "a: window [128, 64] at offsets from 0 to 256 along dimension 0 leaves the tensor [256, 64]: its last "
            "element along dimension 0 would be at index 383, past the last index 255");
  expectAt(e, line);
}

TEST(DslErrors, HbmWindowOutOfBoundsWithAShiftedRangeIsRejected) {
  // affine_range(1, 3) yields 1 and 2: rows 128..255 and 256..383 of a 256-row tensor.
  int line = 0;
  auto k = kernelOf({input("a", {256, 64}, f32)}, [&](Hbm a) {
    for (auto i : affine_range(1, 3)) {
      line = __LINE__ + 1;
      (void)load(a.tile(i, 0, {128, 64}));
    }
  });
  tessera::Error e = traceError(k);
  EXPECT_EQ(e.message(),
            "a: window [128, 64] at offsets from 128 to 256 along dimension 0 leaves the tensor [256, 64]: its last "
            "element along dimension 0 would be at index 383, past the last index 255");
  expectAt(e, line);
}

TEST(DslErrors, HbmWindowWithNonPositiveSizeIsRejected) {
  int line = 0;
  auto k = kernelOf({input("a", {256, 64}, f32)}, [&](Hbm a) {
    line = __LINE__ + 1;
    (void)a.window(0, 0, {0, 64});
  });
  tessera::Error e = traceError(k);
  EXPECT_EQ(e.message(), "a: window size [0, 64] must be positive");
  expectAt(e, line);
}

TEST(DslErrors, HbmTileNeedsATwoDimensionalSize) {
  int line = 0;
  auto k = kernelOf({input("a", {256, 64}, f32)}, [&](Hbm a) {
    line = __LINE__ + 1;
    (void)a.tile(0, 0, {128});
  });
  tessera::Error e = traceError(k);
  EXPECT_EQ(e.message(), "a.tile: expected a 2-D tile size, got [128]");
  expectAt(e, line);
}

TEST(DslErrors, DimOutOfRangeIsRejected) {
  int line = 0;
  auto k = kernelOf({input("a", {256, 64}, f32)}, [&](Hbm a) {
    line = __LINE__ + 1;
    (void)a.dim(2);
  });
  tessera::Error e = traceError(k);
  EXPECT_EQ(e.message(), "a.dim(2): the tensor has 2 dimensions");
  expectAt(e, line);
}

// ---- Loops and indices -----------------------------------------------------------------------------------------

TEST(DslErrors, IndexUsedAfterItsLoopIsRejected) {
  int line = 0;
  auto k = kernelOf({input("a", {256, 64}, f32)}, [&](Hbm a) {
    Index saved;
    for (auto i : affine_range(2)) saved = i;
    line = __LINE__ + 1;
    (void)load(a.tile(saved, 0, {128, 64}));
  });
  tessera::Error e = traceError(k);
  EXPECT_EQ(e.message(), "an index of a loop that has ended is used outside it");
  EXPECT_EQ(e.hint(), "use loop indices only inside their affine_range body");
  expectAt(e, line);
}

TEST(DslErrors, IndexUsedInASiblingLoopIsRejected) {
  int line = 0;
  auto k = kernelOf({input("a", {256, 64}, f32)}, [&](Hbm a) {
    Index saved;
    for (auto i : affine_range(2)) saved = i;
    for (auto j : affine_range(2)) {
      line = __LINE__ + 1;
      (void)load(a.window(saved * 128 + j * 0, 0, {128, 64}));
    }
  });
  tessera::Error e = traceError(k);
  EXPECT_EQ(e.message(), "an index of a loop that has ended is used outside it");
  expectAt(e, line);
}

TEST(DslErrors, AffineRangeWithoutIterationsIsRejected) {
  struct Case {
    int64_t start, stop;
    const char *message;
  };
  for (Case c : {Case{0, 0, "affine_range(0, 0) has no iterations"}, Case{4, 4, "affine_range(4, 4) has no iterations"},
                 Case{5, 2, "affine_range(5, 2) has no iterations"}, Case{0, -3, "affine_range(0, -3) has no iterations"}}) {
    SCOPED_TRACE(c.message);
    int line = 0;
    auto k = kernelOf({input("a", {128, 64}, f32)}, [&](Hbm) {
      line = __LINE__ + 1;
      for (auto i : affine_range(c.start, c.stop)) (void)i;
    });
    tessera::Error e = traceError(k);
    EXPECT_EQ(e.message(), c.message);
    EXPECT_EQ(e.hint(), "a loop over a dimension smaller than its tile; check the shape parameters");
    expectAt(e, line);
  }
}

TEST(DslErrors, AffineRangeOfZeroIsRejected) {
  int line = 0;
  auto k = kernelOf({input("a", {64, 64}, f32)}, [&](Hbm a) {
    line = __LINE__ + 1;
    for (auto i : affine_range(a.dim(0) / 128)) (void)i;
  });
  tessera::Error e = traceError(k);
  EXPECT_EQ(e.message(), "affine_range(0, 0) has no iterations");
  expectAt(e, line);
}

// ---- Outside a kernel ------------------------------------------------------------------------------------------

TEST(DslErrors, DslCallOutsideAKernelIsRejected) {
  int linePsum = 0, lineZeros = 0, lineLoop = 0;
  tessera::Error e = errorOf([&] {
    linePsum = __LINE__ + 1;
    (void)psum<f32>({128, 512});
  });
  EXPECT_EQ(e.message(), "a tsr:: operation was called outside a kernel body");
  EXPECT_EQ(e.hint(), "DSL operations run only while a kernel registered with tsr::Registration is traced");
  expectAt(e, linePsum);

  e = errorOf([&] {
    lineZeros = __LINE__ + 1;
    (void)zeros<bf16>({128, 64});
  });
  EXPECT_EQ(e.message(), "a tsr:: operation was called outside a kernel body");
  expectAt(e, lineZeros);

  e = errorOf([&] {
    lineLoop = __LINE__ + 1;
    for (auto i : affine_range(4)) (void)i;
  });
  EXPECT_EQ(e.message(), "a tsr:: operation was called outside a kernel body");
  expectAt(e, lineLoop);
}

/// Hbm::tile, window and dim take the caller's location, and report there too when no kernel is being traced.
TEST(DslErrors, HbmAccessOutsideAKernelIsRejected) {
  int lineTile = 0, lineDim = 0;
  tessera::Error e = errorOf([&] {
    Hbm a(0);
    lineTile = __LINE__ + 1;
    (void)a.tile(0, 0, {128, 64});
  });
  EXPECT_EQ(e.message(), "a tsr:: operation was called outside a kernel body");
  expectAt(e, lineTile);

  e = errorOf([&] {
    Hbm a(0);
    lineDim = __LINE__ + 1;
    (void)a.dim(0);
  });
  EXPECT_EQ(e.message(), "a tsr:: operation was called outside a kernel body");
  expectAt(e, lineDim);
}

/// A failed trace leaves no tracer behind: the next DSL call outside a kernel is reported as such, and the next
/// trace starts from scratch.
TEST(DslErrors, AFailedTraceLeavesNoStateBehind) {
  auto bad = kernelOf({input("a", {256, 64}, f32)}, [](Hbm a) {
    for (auto i : affine_range(2))
      for (auto j : affine_range(2)) (void)load(a.tile(i + j, 0, {256, 64}));
  });
  (void)traceError(bad);
  tessera::Error e = errorOf([] { (void)psum<f32>({128, 512}); });
  EXPECT_EQ(e.message(), "a tsr:: operation was called outside a kernel body");

  auto good = kernelOf({input("a", {256, 64}, f32)}, [](Hbm a) {
    for (auto i : affine_range(2)) (void)load(a.tile(i, 0, {128, 64}));
  });
  graph::KernelGraph g = trace(good, {});
  EXPECT_EQ(g.loops, 1);
  ASSERT_EQ(g.body.stmts.size(), 1u);
  EXPECT_TRUE(std::holds_alternative<graph::Loop>(g.body.stmts[0]));
}

// ---- Shape parameters and registration -------------------------------------------------------------------------

/// A kernel with a name and shape parameters, and nothing else yet.
KernelInfo named(std::string name, std::vector<std::pair<std::string, int64_t>> params) {
  KernelInfo k;
  k.name = std::move(name);
  k.params = std::move(params);
  return k;
}

TEST(DslErrors, UnknownShapeParameterIsRejectedByResolve) {
  KernelInfo k = named("mine", {{"M", 128}, {"N", 64}});
  tessera::Error e = errorOf([&] { (void)k.resolve({{"Q", 1}}); });
  EXPECT_EQ(e.message(), "kernel 'mine' has no shape parameter 'Q' (it has: M, N)");

  KernelInfo none = named("fixed", {});
  e = errorOf([&] { (void)none.resolve({{"M", 1}}); });
  EXPECT_EQ(e.message(), "kernel 'fixed' has no shape parameter 'M' (it has: none)");
}

TEST(DslErrors, NonPositiveShapeParameterIsRejectedByResolve) {
  KernelInfo k = named("mine", {{"M", 128}, {"N", 64}});
  tessera::Error e = errorOf([&] { (void)k.resolve({{"M", 0}}); });
  EXPECT_EQ(e.message(), "shape parameter M=0 must be positive");
  e = errorOf([&] { (void)k.resolve({{"N", -128}}); });
  EXPECT_EQ(e.message(), "shape parameter N=-128 must be positive");
}

TEST(DslErrors, ReadingAnUndeclaredParameterIsRejected) {
  Params p({{"M", 128}, {"N", 64}});
  tessera::Error e = errorOf([&] { (void)p["K"]; });
  EXPECT_EQ(e.message(), "parameter 'K' is not defined (have: M=128,N=64)");
}

TEST(DslErrors, RequireInASignatureReportsItsLine) {
  int line = 0;
  KernelInfo k = named("picky", {{"M", 100}});
  k.signature = [&](const Params &p) {
    line = __LINE__ + 1;
    require(p["M"] % 128 == 0, "picky: M must be a multiple of 128");
    return std::vector<TensorSpec>{input("a", {p["M"], 64}, f32)};
  };
  k.body = body([](Hbm) {});
  tessera::Error e = traceError(k, k.resolve({}));
  EXPECT_EQ(e.message(), "picky: M must be a multiple of 128");
  expectAt(e, line);
  EXPECT_NO_THROW((void)trace(k, k.resolve({{"M", 256}})));
}

TEST(DslErrors, RegisteringANameTwiceIsRejected) {
  ASSERT_NE(Registry::instance().find("add"), nullptr);
  int line = 0;
  tessera::Error e = errorOf([&] {
    line = __LINE__ + 1;
    Registration again{named("add", {})};
  });
  EXPECT_EQ(e.message().rfind("kernel 'add' is registered twice (first at ", 0), 0u) << e.message();
  EXPECT_NE(e.message().find("kernels/add.cpp:"), std::string::npos) << e.message();
  expectAt(e, line);
  EXPECT_EQ(Registry::instance().find("add")->summary, "C = A + B elementwise, FP32");
}

} // namespace
} // namespace tsr

namespace {

// A tile created inside a loop and used after the loop ended is reported at the use, not deep in the compiler.
TEST(DslErrors, TileUsedAfterItsLoopEnded) {
  int line = 0;
  auto kernel = tsr::KernelInfo{
      .name = "escape",
      .summary = "keeps a tile after its loop",
      .signature = [](const tsr::Params &) {
        return std::vector<tsr::TensorSpec>{tsr::input("x", {256, 64}, tsr::f32), tsr::output("y", {128, 64}, tsr::f32)};
      },
      .body = tsr::body([&](tsr::Hbm x, tsr::Hbm y) {
        tsr::Tile t = tsr::zeros<tsr::f32>({128, 64});
        for (auto i : tsr::affine_range(2)) t = tsr::load(x.tile(i, 0, {128, 64}));
        line = __LINE__ + 1;
        tsr::store(y.tile(0, 0, {128, 64}), t);
      }),
  };
  try {
    tsr::trace(kernel, tsr::Params());
    FAIL() << "expected an error";
  } catch (const tessera::Error &e) {
    EXPECT_NE(e.message().find("is used after the loop that created it has ended"), std::string::npos) << e.message();
    EXPECT_EQ(e.where().line, static_cast<uint32_t>(line));
    EXPECT_NE(e.where().file.find("DslErrorsTest.cpp"), std::string::npos);
  }
}

} // namespace

// ---- SPMD launches -----------------------------------------------------------------------------------------------

namespace tsr {
namespace {

TEST(DslErrors, ProgramIdWithoutALaunchGridIsRejected) {
  int line = 0;
  auto k = dsltest::kernelOf({input("a", {128, 64}, f32)}, [&](Hbm a) {
    line = __LINE__ + 1;
    (void)load(a.tile(program_id(0), 0, {128, 64}));
  });
  tessera::Error e = dsltest::traceError(k);
  EXPECT_EQ(e.message(), "program_id(0) in a kernel without a launch grid");
  EXPECT_NE(e.hint().find(".grid = "), std::string::npos) << e.hint();
  dsltest::expectAt(e, line);
}

TEST(DslErrors, ProgramIdOfAnAxisTheGridLacksIsRejected) {
  int line = 0;
  auto k = dsltest::kernelOf({input("a", {256, 64}, f32)}, [&](Hbm) {
    line = __LINE__ + 1;
    (void)num_programs(1);
  });
  k.grid = [](const Params &) { return std::vector<int64_t>{2}; };
  tessera::Error e = dsltest::traceError(k);
  EXPECT_EQ(e.message(), "num_programs(1): the launch grid has 1 axis (0 to 0)");
  dsltest::expectAt(e, line);
}

TEST(DslErrors, AnEmptyGridAxisIsRejected) {
  auto k = dsltest::kernelOf({input("a", {256, 64}, f32)}, [](Hbm) {});
  k.grid = [](const Params &) { return std::vector<int64_t>{2, 0}; };
  tessera::Error e = dsltest::traceError(k);
  EXPECT_EQ(e.message(), "kernel 'test': its launch grid is [2, 0]; each axis needs at least one program");
}

TEST(DslErrors, LaunchGridAxesAreTheOutermostLoops) {
  auto k = dsltest::kernelOf({input("a", {256, 64}, f32), output("b", {256, 64}, f32)}, [](Hbm a, Hbm b) {
    EXPECT_EQ(num_programs(0), 2);
    store(b.tile(program_id(0), 0, {128, 64}), load(a.tile(program_id(0), 0, {128, 64})));
  });
  k.grid = [](const Params &) { return std::vector<int64_t>{2}; };
  const graph::KernelGraph g = trace(k, {});
  EXPECT_EQ(g.grid, std::vector<int64_t>{2});
  ASSERT_EQ(g.body.stmts.size(), 1u);
  const auto &loop = std::get<graph::Loop>(g.body.stmts.front());
  EXPECT_EQ(loop.spmdAxis, 0);
  EXPECT_EQ(loop.tripCount, 2);
}

} // namespace
} // namespace tsr

// ---- Integer division of indices (NKI's // and %) --------------------------------------------------------------

namespace tsr {
namespace {

TEST(DslErrors, IndexDivisionByZeroIsRejected) {
  int line = 0;
  auto k = dsltest::kernelOf({input("a", {512, 64}, f32)}, [&](Hbm a) {
    for (auto i : affine_range(4)) {
      line = __LINE__ + 1;
      (void)load(a.tile(i / 0, 0, {128, 64}));
    }
  });
  tessera::Error e = dsltest::traceError(k);
  EXPECT_EQ(e.message(), "index / 0: the divisor must be positive");
  dsltest::expectAt(e, line);
}

TEST(DslErrors, ADivisionInsideASumCannotBeDividedAgain) {
  int line = 0;
  auto k = dsltest::kernelOf({input("a", {512, 64}, f32)}, [&](Hbm a) {
    for (auto i : affine_range(8)) {
      line = __LINE__ + 1;
      (void)load(a.tile((i / 2 + 1) / 4, 0, {128, 64}));
    }
  });
  tessera::Error e = dsltest::traceError(k);
  EXPECT_EQ(e.message(), "index / 4: the index already holds a division (/ or %), and only a division alone can be "
                         "divided again");
  dsltest::expectAt(e, line);
}

TEST(DslErrors, IndexDivisionsFoldWhereTheyCan) {
  auto k = dsltest::kernelOf({input("a", {512, 64}, f32)}, [](Hbm) {
    for (auto i : affine_range(8)) {
      const graph::IndexExpr twice = (i / 2 / 4).expr(), once = (i / 8).expr();
      EXPECT_EQ(twice.floors, once.floors);
      EXPECT_TRUE((i * 4 / 2).expr().floors.empty()) << "an exact division stays affine";
      EXPECT_EQ((i * 4 / 2).expr().terms.front().second, 2);
      EXPECT_TRUE((Index(7) / 2).isConstant());
      EXPECT_EQ((Index(-7) / 2).expr().constant, -4) << "floor division, as Python's //";
      EXPECT_EQ((Index(-7) % 2).expr().constant, 1) << "a remainder in [0, k), as Python's %";
      EXPECT_EQ((i % 2).expr().floors.size(), 1u);
    }
  });
  (void)trace(k, {});
}

TEST(DslErrors, AWindowOfADividedIndexIsBoundsChecked) {
  int line = 0;
  auto k = dsltest::kernelOf({input("a", {256, 64}, f32)}, [&](Hbm a) {
    for (auto i : affine_range(6)) {
      line = __LINE__ + 1;
      (void)load(a.tile(i / 2, 0, {128, 64})); // i / 2 reaches 2: rows 256..383 of 256
    }
  });
  tessera::Error e = dsltest::traceError(k);
  EXPECT_NE(e.message().find("256"), std::string::npos) << e.message();
  dsltest::expectAt(e, line);
}

} // namespace
} // namespace tsr
