/// \file
/// The language-level operations the kernel library brought in, as traced: transposes (tsr::transpose), activations
/// with a bias and row sums (tsr::activation), fills by position (tsr::fill), copies into existing tiles
/// (tsr::assign, tsr::load into a slice, *=), the linear scan (tsr::scan) and strided HBM windows. Each records the
/// op the compiler reads, and each misuse is an error at the offending line with what was expected.

#include "DslTesting.h"

#include "tessera/dsl/tsr.h"

#include <gtest/gtest.h>

#include <variant>
#include <vector>

namespace tsr {
namespace {

using dsltest::expectAt;
using dsltest::kernelOf;
using dsltest::traceError;

/// The ops of `g`'s top level (the tests' kernels have no loops), in order.
std::vector<graph::Op> opsOf(const graph::KernelGraph &g) {
  std::vector<graph::Op> ops;
  for (const graph::Stmt &s : g.body.stmts)
    if (auto *op = std::get_if<graph::Op>(&s)) ops.push_back(*op);
  return ops;
}

/// The last op of `kind` in `g`.
graph::Op lastOf(const graph::KernelGraph &g, graph::OpKind kind) {
  std::vector<graph::Op> ops = opsOf(g);
  for (auto it = ops.rbegin(); it != ops.rend(); ++it)
    if (it->kind == kind) return *it;
  ADD_FAILURE() << "no op of the kind asked for";
  return {};
}

// ---- broadcast_to ---------------------------------------------------------------------------------------------

TEST(LanguageOps, BroadcastToRecordsANewSbufTileOfTheShapeAndDtypeAsked) {
  auto k = kernelOf({input("g", {1, 512}, f32), input("s", {128, 1}, f32)}, [](Hbm g, Hbm s) {
    Tile row = load(g.tile(0, 0, {1, 512}));
    Tile rows = row.broadcast_to({128, 512}); // NKI's tile method, in the row's dtype
    EXPECT_EQ(rows.shape(), (Shape{128, 512}));
    EXPECT_EQ(rows.dtype(), f32);
    EXPECT_EQ(rows.space(), tessera::isa::MemSpace::Sbuf);
    Tile cols = broadcast_to(load(s.tile(0, 0, {128, 1})), {128, 256}, bf16);
    EXPECT_EQ(cols.dtype(), bf16);
    EXPECT_EQ(broadcast_to(row, {1, 512}).buffer(), row.buffer()); // the same shape and dtype: the tile itself
    Tile converted = broadcast_to(row, {1, 512}, bf16);             // the same shape, another dtype: a copy
    EXPECT_NE(converted.buffer(), row.buffer());
    EXPECT_EQ(converted.dtype(), bf16);
  });
  graph::KernelGraph g = trace(k, {});
  std::vector<graph::Op> broadcasts;
  for (const graph::Op &op : opsOf(g))
    if (op.kind == graph::OpKind::Broadcast) broadcasts.push_back(op);
  ASSERT_EQ(broadcasts.size(), 2u);
  EXPECT_EQ(g.buffers[broadcasts[1].dst].dtype, bf16);
  const graph::Op last = opsOf(g).back();
  EXPECT_EQ(last.kind, graph::OpKind::Copy);
  EXPECT_EQ(g.buffers[last.dst].dtype, bf16);
}

TEST(LanguageOps, BroadcastToMisuseIsNamedAtItsLine) {
  int rankLine = 0, dimLine = 0;
  auto rank = kernelOf({input("g", {1, 512}, f32)}, [&](Hbm g) {
    Tile row = load(g.tile(0, 0, {1, 512}));
    rankLine = __LINE__ + 1;
    (void)broadcast_to(row, {512});
  });
  tessera::Error e = traceError(rank);
  EXPECT_EQ(e.message(), "broadcast_to: the shape [512] has 1 dimensions but the tile [1, 512] has 2");
  expectAt(e, rankLine);

  auto dim = kernelOf({input("x", {2, 512}, f32)}, [&](Hbm x) {
    Tile two = load(x.tile(0, 0, {2, 512}));
    dimLine = __LINE__ + 1;
    (void)two.broadcast_to({128, 512});
  });
  e = traceError(dim);
  EXPECT_EQ(e.message(), "broadcast_to: cannot broadcast [2, 512] to [128, 512]: dimension 0 is 2, not 1 or 128");
  EXPECT_EQ(e.hint(), "only a dimension of size 1 repeats; slice the tile to one row (partition_slice) or one column "
                      "first");
  expectAt(e, dimLine);
}

// ---- transpose -----------------------------------------------------------------------------------------------

TEST(LanguageOps, TransposeMakesAPsumTileOfTheSwappedShapeOrWritesTheOneGiven) {
  auto k = kernelOf({input("a", {128, 64}, bf16)}, [](Hbm a) {
    Tile x = load(a.tile(0, 0, {128, 64}));
    Tile t = transpose(x); // [64, 128] bf16 in PSUM
    EXPECT_EQ(t.shape(), (Shape{64, 128}));
    EXPECT_EQ(t.space(), tessera::isa::MemSpace::Psum);
    EXPECT_EQ(t.dtype(), bf16);
    Tile s = ndarray<bf16>({64, 256});
    transpose(s.slice(128, 128), x); // into SBUF: a DMA transpose
  });
  graph::KernelGraph g = trace(k, {});
  graph::Op last = lastOf(g, graph::OpKind::Transpose);
  EXPECT_EQ(g.buffers[last.dst].viewOf >= 0, true);
  EXPECT_EQ(g.buffers[last.dst].space, tessera::isa::MemSpace::Sbuf);
}

TEST(LanguageOps, TransposeMisuseIsNamedAtItsLine) {
  int psumLine = 0, wideLine = 0, shapeLine = 0, dtypeLine = 0;
  auto fromPsum = kernelOf({input("a", {128, 64}, bf16)}, [&](Hbm) {
    Tile p = ndarray(bf16, {128, 64}, buffer::psum);
    psumLine = __LINE__ + 1;
    (void)transpose(p);
  });
  tessera::Error e = traceError(fromPsum);
  EXPECT_EQ(e.message(), "transpose: the source is in psum; transposes read SBUF");
  expectAt(e, psumLine);

  auto wide = kernelOf({input("a", {128, 256}, bf16)}, [&](Hbm a) {
    Tile x = load(a.tile(0, 0, {128, 256}));
    wideLine = __LINE__ + 1;
    (void)transpose(x);
  });
  e = traceError(wide);
  EXPECT_EQ(e.message(), "transpose: the source [128, 256] has 256 elements per partition, which would become 256 "
                         "partitions (tsr::tile_size::pmax is 128)");
  expectAt(e, wideLine);

  auto shape = kernelOf({input("a", {128, 64}, bf16)}, [&](Hbm a) {
    Tile x = load(a.tile(0, 0, {128, 64}));
    Tile d = ndarray(bf16, {128, 64}, buffer::psum);
    shapeLine = __LINE__ + 1;
    transpose(d, x);
  });
  e = traceError(shape);
  EXPECT_EQ(e.message(), "transpose: the destination is [128, 64] but the transpose of [128, 64] is [64, 128]");
  expectAt(e, shapeLine);

  auto f32IntoSbuf = kernelOf({input("a", {128, 64}, f32)}, [&](Hbm a) {
    Tile x = load(a.tile(0, 0, {128, 64}));
    Tile d = ndarray<f32>({64, 128});
    dtypeLine = __LINE__ + 1;
    transpose(d, x);
  });
  e = traceError(f32IntoSbuf);
  EXPECT_EQ(e.message(), "transpose: the source is f32 and the destination f32; a transpose into SBUF is a DMA "
                         "transpose, which moves 2-byte elements (bf16, f16) unchanged");
  EXPECT_EQ(e.hint(), "transpose into a PSUM tile (the tensor engine) instead");
  expectAt(e, dtypeLine);
}

// ---- numbers as operands -------------------------------------------------------------------------------------

TEST(LanguageOps, ANumberIsAnImmediateOfOneBinaryScalarOp) {
  auto k = kernelOf({input("a", {128, 64}, bf16)}, [](Hbm a) {
    Tile x = load(a.tile(0, 0, {128, 64}));
    Tile y = x * 0.5f;        // x <multiply> 0.5
    Tile z = 1 - y;           // 1 <subtract> y: reversed, an int converted
    Tile w = maximum(z, 0.0); // a double converted
    w *= 2.0f;                // in place
    EXPECT_EQ(y.dtype(), bf16);
    EXPECT_EQ(w.shape(), (Shape{128, 64}));
  });
  graph::KernelGraph g = trace(k, {});
  std::vector<graph::Op> scalars;
  for (const graph::Op &op : opsOf(g))
    if (op.kind == graph::OpKind::BinaryScalar) scalars.push_back(op);
  ASSERT_EQ(scalars.size(), 4u);
  EXPECT_EQ(scalars[0].alu, tessera::isa::AluOp::Multiply);
  EXPECT_EQ(scalars[0].value, 0.5f);
  EXPECT_FALSE(scalars[0].reverse);
  EXPECT_EQ(scalars[1].alu, tessera::isa::AluOp::Subtract);
  EXPECT_EQ(scalars[1].value, 1.0f);
  EXPECT_TRUE(scalars[1].reverse);
  EXPECT_EQ(scalars[1].srcs, std::vector<int>{scalars[0].dst});
  EXPECT_EQ(scalars[2].alu, tessera::isa::AluOp::Max);
  EXPECT_EQ(scalars[3].dst, scalars[2].dst); // *= writes the tile it is given
  EXPECT_EQ(scalars[3].srcs, std::vector<int>{scalars[2].dst});
  // No tile was made for any number: the only buffers are the load's and the three results.
  EXPECT_EQ(g.buffers.size(), 4u);
}

TEST(LanguageOps, ANumberWithAnHbmTensorIsNamedAtItsLine) {
  int line = 0;
  auto k = kernelOf({input("a", {128, 64}, f32)}, [&](Hbm a) {
    line = __LINE__ + 1;
    (void)(a * 2.0f);
  });
  tessera::Error e = traceError(k);
  EXPECT_NE(e.message().find("multiply"), std::string::npos) << e.message();
  expectAt(e, line);
}

// ---- activation with bias and row sums -----------------------------------------------------------------------

TEST(LanguageOps, ActivationRecordsItsBiasScaleAndRowSums) {
  auto k = kernelOf({input("a", {128, 64}, f32)}, [](Hbm a) {
    Tile x = load(a.tile(0, 0, {128, 64}));
    Tile bias = full(f32, {128, 1}, -1.0f);
    Tile sums = ndarray<f32>({128, 1});
    (void)activation(act::exp, x, {.bias = bias, .scale = 0.5f, .sum = sums});
  });
  graph::KernelGraph g = trace(k, {});
  graph::Op a = lastOf(g, graph::OpKind::Activation);
  EXPECT_EQ(a.func, act::exp);
  EXPECT_EQ(a.value, 0.5f);
  ASSERT_EQ(a.srcs.size(), 2u); // the input, then the bias
  EXPECT_EQ(g.buffers[a.srcs[1]].shape, (Shape{128, 1}));
  EXPECT_GE(a.dst2, 0); // the row sums
}

TEST(LanguageOps, ActivationTakesATileOfScalesOnePerRow) {
  int line = 0;
  auto k = kernelOf({input("a", {128, 64}, f32)}, [](Hbm a) {
    Tile x = load(a.tile(0, 0, {128, 64}));
    Tile scales = full(f32, {128, 1}, -2.0f);
    (void)activation(act::exp, x, {.scale = scales});
  });
  graph::KernelGraph g = trace(k, {});
  graph::Op a = lastOf(g, graph::OpKind::Activation);
  ASSERT_GE(a.scaleTile, 0);
  EXPECT_EQ(g.buffers[a.scaleTile].shape, (Shape{128, 1}));
  EXPECT_EQ(a.value, 1.0f); // the tile replaces the number
  EXPECT_EQ(a.srcs.size(), 1u);

  auto wide = kernelOf({input("a", {128, 64}, f32)}, [&](Hbm a) {
    Tile x = load(a.tile(0, 0, {128, 64}));
    Tile scales = full(f32, {128, 64}, 2.0f);
    line = __LINE__ + 1;
    (void)activation(act::exp, x, {.scale = scales});
  });
  tessera::Error e = traceError(wide);
  EXPECT_EQ(e.message(),
            "activation: the scale is [128, 64]; expected [128, 1], one value per row of the input [128, 64]");
  expectAt(e, line);
}

TEST(LanguageOps, ActivationOptionsMustBeColumnsAndTheSumsF32) {
  int biasLine = 0, sumLine = 0;
  auto badBias = kernelOf({input("a", {128, 64}, f32)}, [&](Hbm a) {
    Tile x = load(a.tile(0, 0, {128, 64}));
    Tile bias = full(f32, {128, 2}, 0.0f);
    biasLine = __LINE__ + 1;
    (void)activation(act::exp, x, {.bias = bias});
  });
  tessera::Error e = traceError(badBias);
  EXPECT_EQ(e.message(),
            "activation: the bias is [128, 2]; expected [128, 1], one value per row of the input [128, 64]");
  expectAt(e, biasLine);

  auto bf16Sum = kernelOf({input("a", {128, 64}, f32)}, [&](Hbm a) {
    Tile x = load(a.tile(0, 0, {128, 64}));
    Tile sums = ndarray<bf16>({128, 1});
    sumLine = __LINE__ + 1;
    (void)activation(act::exp, x, {.sum = sums});
  });
  e = traceError(bf16Sum);
  EXPECT_EQ(e.message(), "activation: the sum is bf16; row sums are f32");
  expectAt(e, sumLine);
}

// ---- fill by position ----------------------------------------------------------------------------------------

TEST(LanguageOps, FillRecordsItsPositionTestWithAnyCoefficients) {
  auto k = kernelOf({input("a", {128, 64}, f32)}, [](Hbm) {
    Tile band = full(f32, {128, 64}, 1.0f);
    fill(band, 0.0f, {.partition = 1, .free = -2, .offset = -1, .cmp = op::greater}); // p - 2 f - 1 > 0
  });
  graph::Op f = lastOf(trace(k, {}), graph::OpKind::FillWhere);
  EXPECT_EQ(f.where.partition, 1);
  EXPECT_EQ(f.where.free, -2);
  EXPECT_EQ(f.where.offset.constant, -1);
  EXPECT_EQ(f.where.cmp, op::greater);
  EXPECT_EQ(f.value, 0.0f);
}

TEST(LanguageOps, FillWantsAnSbufTileAndAComparison) {
  int psumLine = 0, cmpLine = 0;
  auto inPsum = kernelOf({input("a", {128, 64}, f32)}, [&](Hbm) {
    Tile p = ndarray(f32, {128, 64}, buffer::psum);
    psumLine = __LINE__ + 1;
    fill(p, 0.0f, {.partition = 1});
  });
  tessera::Error e = traceError(inPsum);
  EXPECT_EQ(e.message(), "fill: a fill by position writes an SBUF tile; this one is in PSUM");
  expectAt(e, psumLine);

  auto notComparison = kernelOf({input("a", {128, 64}, f32)}, [&](Hbm) {
    Tile t = ndarray<f32>({128, 64});
    cmpLine = __LINE__ + 1;
    fill(t, 0.0f, {.partition = 1, .cmp = op::add});
  });
  e = traceError(notComparison);
  EXPECT_NE(e.message().find("fill: add is not a comparison"), std::string::npos) << e.message();
  expectAt(e, cmpLine);
}

// ---- writes into existing tiles ------------------------------------------------------------------------------

TEST(LanguageOps, AssignLoadAndTimesEqualWriteTheTileGiven) {
  auto k = kernelOf({input("a", {128, 512}, f32)}, [](Hbm a) {
    Tile whole = ndarray<f32>({128, 1024});
    load(whole.slice(512, 512), a.tile(0, 0, {128, 512})); // a load into the second half
    Tile half = whole.slice(0, 512);
    assign(half, whole.slice(512, 512));
    Tile column = full(f32, {128, 1}, 2.0f);
    half *= column;
  });
  graph::KernelGraph g = trace(k, {});
  const graph::Op load = lastOf(g, graph::OpKind::Load), copy = lastOf(g, graph::OpKind::Copy),
                  times = lastOf(g, graph::OpKind::Binary);
  EXPECT_GE(g.buffers[load.dst].viewOf, 0);
  EXPECT_EQ(g.buffers[copy.dst].viewOf, g.buffers[copy.srcs[0]].viewOf); // both views of `whole`
  EXPECT_EQ(times.alu, op::multiply);
  EXPECT_EQ(times.dst, times.srcs[0]); // in place
}

TEST(LanguageOps, AssignChecksShapesAndRefusesAccumulators) {
  int shapeLine = 0, accLine = 0;
  auto shapes = kernelOf({input("a", {128, 64}, f32)}, [&](Hbm a) {
    Tile x = load(a.tile(0, 0, {128, 64}));
    Tile d = ndarray<f32>({128, 32});
    shapeLine = __LINE__ + 1;
    assign(d, x);
  });
  tessera::Error e = traceError(shapes);
  EXPECT_EQ(e.message(), "assign: shape mismatch, [128, 64] into [128, 32]");
  expectAt(e, shapeLine);

  auto acc = kernelOf({input("a", {128, 64}, f32)}, [&](Hbm a) {
    Tile x = load(a.tile(0, 0, {128, 64}));
    Tile p = psum<f32>({128, 64});
    accLine = __LINE__ + 1;
    assign(p, x);
  });
  e = traceError(acc);
  EXPECT_EQ(e.message(),
            "assign: the destination is a zero-filled PSUM accumulator (tsr::psum), which only matmuls write");
  expectAt(e, accLine);
}

// ---- scan ----------------------------------------------------------------------------------------------------

TEST(LanguageOps, ScanMakesAnF32TileFromItsOperandsAndInitialState) {
  auto k = kernelOf({input("a", {128, 64}, bf16)}, [](Hbm a) {
    Tile decay = load(a.tile(0, 0, {128, 64}));
    Tile start = full(f32, {128, 1}, 1.0f);
    Tile x = scan(decay, decay, {.initial = start});
    EXPECT_EQ(x.dtype(), f32);
    EXPECT_EQ(x.shape(), (Shape{128, 64}));
    Tile y = ndarray<f32>({128, 128});
    scan(y.slice(64, 64), decay, x); // into a slice, from 0
  });
  graph::KernelGraph g = trace(k, {});
  std::vector<graph::Op> scans;
  for (const graph::Op &op : opsOf(g))
    if (op.kind == graph::OpKind::Scan) scans.push_back(op);
  ASSERT_EQ(scans.size(), 2u);
  EXPECT_EQ(scans[0].srcs.size(), 3u); // a, b, the initial state
  EXPECT_EQ(scans[1].srcs.size(), 2u);
  EXPECT_GE(g.buffers[scans[1].dst].viewOf, 0);
}

TEST(LanguageOps, ScanMisuseIsNamedAtItsLine) {
  int shapeLine = 0, psumLine = 0, initialLine = 0, dstLine = 0;
  auto shapes = kernelOf({input("a", {128, 64}, f32)}, [&](Hbm a) {
    Tile x = load(a.tile(0, 0, {128, 64}));
    Tile y = ndarray<f32>({128, 32});
    shapeLine = __LINE__ + 1;
    (void)scan(x, y);
  });
  tessera::Error e = traceError(shapes);
  EXPECT_EQ(e.message(), "scan: a is [128, 64] but b is [128, 32]; the recurrence pairs their elements");
  expectAt(e, shapeLine);

  auto bothPsum = kernelOf({input("a", {128, 64}, f32)}, [&](Hbm) {
    Tile p = ndarray(f32, {128, 64}, buffer::psum);
    psumLine = __LINE__ + 1;
    (void)scan(p, p);
  });
  e = traceError(bothPsum);
  EXPECT_EQ(e.message(), "scan: a and b are both in PSUM; at most one of them may be");
  expectAt(e, psumLine);

  auto initial = kernelOf({input("a", {128, 64}, f32)}, [&](Hbm a) {
    Tile x = load(a.tile(0, 0, {128, 64}));
    Tile start = ndarray<f32>({64, 1});
    initialLine = __LINE__ + 1;
    (void)scan(x, x, {.initial = start});
  });
  e = traceError(initial);
  EXPECT_EQ(e.message(), "scan: the initial state is [64, 1]; expected [128, 1], one value per row of a [128, 64]");
  expectAt(e, initialLine);

  auto intoPsum = kernelOf({input("a", {128, 64}, f32)}, [&](Hbm a) {
    Tile x = load(a.tile(0, 0, {128, 64}));
    Tile d = ndarray(f32, {128, 64}, buffer::psum);
    dstLine = __LINE__ + 1;
    scan(d, x, x);
  });
  e = traceError(intoPsum);
  EXPECT_EQ(e.message(), "scan: the destination is in PSUM; a scan writes an SBUF tile");
  expectAt(e, dstLine);
}

// ---- strided windows -----------------------------------------------------------------------------------------

TEST(LanguageOps, AStridedWindowRecordsItsSteps) {
  auto k = kernelOf({input("x", {8, 64}, bf16), output("y", {4, 32}, bf16)}, [](Hbm x, Hbm y) {
    // Rows 0, 2, 4, 6 and columns 1, 3, ..., 63: 32 columns at step 2 span 63.
    Tile t = load(x.window(0, 1, {4, 32}, {2, 2}));
    store(y.window(0, 0, {4, 32}), t); // unit steps record none
  });
  graph::KernelGraph g = trace(k, {});
  EXPECT_EQ(lastOf(g, graph::OpKind::Load).hbm.steps, (std::vector<int64_t>{2, 2}));
  EXPECT_TRUE(lastOf(g, graph::OpKind::Store).hbm.steps.empty());
}

TEST(LanguageOps, AStridedWindowMustStayInItsTensorAndStepForward) {
  int boundsLine = 0, stepLine = 0;
  auto past = kernelOf({input("x", {8, 64}, bf16)}, [&](Hbm x) {
    boundsLine = __LINE__ + 1;
    (void)load(x.window(0, 2, {4, 32}, {1, 2})); // from column 2, the 32nd column at step 2 is 64
  });
  tessera::Error e = traceError(past);
  EXPECT_EQ(e.message(),
            "x: window [4, 32] with step 2 at offsets from 2 to 2 along dimension 1 leaves the tensor [8, 64]: its "
            "last element along dimension 1 would be at index 64, past the last index 63");
  expectAt(e, boundsLine);

  auto backwards = kernelOf({input("x", {8, 64}, bf16)}, [&](Hbm x) {
    stepLine = __LINE__ + 1;
    (void)load(x.window(0, 0, {4, 32}, {-1, 1}));
  });
  e = traceError(backwards);
  EXPECT_EQ(e.message(), "x: window steps [-1, 1] must be two numbers (rows, columns), each 0 or more and not both 0");
  expectAt(e, stepLine);

  auto nowhere = kernelOf({input("x", {8, 64}, bf16)}, [&](Hbm x) {
    stepLine = __LINE__ + 1;
    (void)load(x.window(0, 0, {4, 32}, {0, 0}));
  });
  e = traceError(nowhere);
  EXPECT_EQ(e.message(), "x: window steps [0, 0] must be two numbers (rows, columns), each 0 or more and not both 0");
  expectAt(e, stepLine);
}

// ---- broadcast windows ---------------------------------------------------------------------------------------

TEST(LanguageOps, AStepOfZeroRepeatsARowOrAColumnOfTheTensor) {
  auto k = kernelOf({input("g", {1, 64}, f32), input("s", {128, 1}, f32)}, [](Hbm g, Hbm s) {
    Tile rows = load(g.window(0, 0, {128, 64}, {0, 1}));  // g's one row on every partition
    Tile cols = load(s.window(0, 0, {128, 64}, {1, 0}));  // s's one column along every row
    EXPECT_EQ(rows.shape(), (Shape{128, 64}));
    EXPECT_EQ(cols.shape(), (Shape{128, 64}));
  });
  graph::KernelGraph g = trace(k, {});
  std::vector<graph::Op> ops = opsOf(g);
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(ops[0].hbm.steps, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(ops[1].hbm.steps, (std::vector<int64_t>{1, 0}));
}

TEST(LanguageOps, ABroadcastWindowIsNotStoredInto) {
  int line = 0;
  auto k = kernelOf({output("y", {1, 64}, f32)}, [&](Hbm y) {
    Tile t = zeros<f32>({128, 64});
    line = __LINE__ + 1;
    store(y.window(0, 0, {128, 64}, {0, 1}), t);
  });
  tessera::Error e = traceError(k);
  EXPECT_EQ(e.message(), "store: the window repeats one row of the tensor 128 times (step 0): every copy would go to "
                         "the same place");
  EXPECT_EQ(e.hint(), "a window with a step of 0 is a broadcast to load; store into a window of positive steps");
  expectAt(e, line);
}

// ---- transposed windows --------------------------------------------------------------------------------------

TEST(LanguageOps, ATransposedWindowIsTheWindowWithItsShapeSwapped) {
  auto k = kernelOf({input("x", {2, 256, 64}, bf16), output("y", {256, 64}, bf16)}, [](Hbm x, Hbm y) {
    Tile t = load_transpose2d(x[1].window(128, 0, {128, 64}));
    EXPECT_EQ(t.shape(), (Shape{64, 128}));
    EXPECT_EQ(y.window(0, 0, {128, 64}).transposed().shape(), (Shape{64, 128}));
    store(y.window(0, 0, {128, 64}).transposed(), t);
  });
  graph::KernelGraph g = trace(k, {});
  const graph::Op load = lastOf(g, graph::OpKind::Load), store = lastOf(g, graph::OpKind::Store);
  EXPECT_TRUE(load.hbm.transposed);
  EXPECT_EQ(load.hbm.sizes, (std::vector<int64_t>{1, 128, 64})); // the tensor's side keeps its orientation
  EXPECT_TRUE(store.hbm.transposed);
}

TEST(LanguageOps, ATransposedWindowMustFitItsTile) {
  int line = 0;
  auto k = kernelOf({input("x", {256, 64}, bf16)}, [&](Hbm x) {
    Tile t = ndarray<bf16>({128, 64});
    line = __LINE__ + 1;
    load(t, x.window(0, 0, {128, 64}).transposed());
  });
  tessera::Error e = traceError(k);
  EXPECT_EQ(e.message(), "load: shape mismatch, HBM window [64, 128] (the window [128, 64] transposed) into tile "
                         "[128, 64]");
  EXPECT_EQ(e.hint(), "a transposed window's tile is [columns, rows] of the window: take the window as [64, 128], or "
                      "without .transposed()");
  expectAt(e, line);

  auto store = kernelOf({output("y", {256, 64}, bf16)}, [&](Hbm y) {
    Tile t = zeros<bf16>({128, 64});
    line = __LINE__ + 1;
    tsr::store(y.window(0, 0, {128, 64}).transposed(), t);
  });
  e = traceError(store);
  EXPECT_EQ(e.message(), "store: shape mismatch, tile [128, 64] into HBM window [64, 128] (the window [128, 64] "
                         "transposed)");
  expectAt(e, line);
}

TEST(LanguageOps, AWindowIsTransposedOnceAndWithStepsOfOne) {
  int line = 0;
  auto twice = kernelOf({input("x", {256, 64}, bf16)}, [&](Hbm x) {
    line = __LINE__ + 1;
    (void)load(x.window(0, 0, {128, 64}).transposed().transposed());
  });
  tessera::Error e = traceError(twice);
  EXPECT_EQ(e.message(), "x: the window is transposed already");
  EXPECT_EQ(e.hint(), "transposing it again gives the window itself: take the window without .transposed()");
  expectAt(e, line);

  auto strided = kernelOf({input("x", {256, 64}, bf16)}, [&](Hbm x) {
    line = __LINE__ + 1;
    (void)load_transpose2d(x.window(0, 0, {128, 32}, {1, 2}));
  });
  e = traceError(strided);
  EXPECT_EQ(e.message(), "x: a strided window (steps [1, 2]) cannot be transposed");
  expectAt(e, line);

  auto wide = kernelOf({input("x", {256, 256}, bf16)}, [&](Hbm x) {
    line = __LINE__ + 1;
    (void)load_transpose2d(x.window(0, 0, {128, 256}));
  });
  e = traceError(wide);
  EXPECT_EQ(e.message(),
            "x: the window's 256 columns would be the transposed tile's partitions, more than the 128 a tile has");
  EXPECT_EQ(e.hint(), "transpose windows of at most 128 columns, one per block of columns");
  expectAt(e, line);
}

} // namespace
} // namespace tsr
