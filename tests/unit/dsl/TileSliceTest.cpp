/// \file
/// Tile::slice (a window of an SBUF tile's free dimension that shares its memory) and `acc += x` (an add in place):
/// what tracing records, and misuse reported at the user's line.

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

/// Every op of a block and of the loops in it, in program order.
void collect(const graph::Block &b, std::vector<graph::Op> &out) {
  for (const graph::Stmt &s : b.stmts) {
    if (auto *op = std::get_if<graph::Op>(&s)) out.push_back(*op);
    if (auto *loop = std::get_if<graph::Loop>(&s)) collect(loop->body, out);
  }
}

TEST(TileSlice, RecordsAViewOfTheTilesMemory) {
  int base = -1, view = -1;
  auto k = kernelOf({input("a", {128, 1024}, bf16)}, [&](Hbm a) {
    Tile t = load(a.tile(0, 0, {128, 1024}));
    base = t.buffer();
    for (auto j : affine_range(2)) {
      Tile s = t.slice(j * 512, 512);
      view = s.buffer();
      EXPECT_EQ(s.shape(), (Shape{128, 512}));
      EXPECT_EQ(s.dtype(), bf16);
      EXPECT_EQ(s.space(), MemSpace::Sbuf);
    }
  });
  graph::KernelGraph g = trace(k, {});
  const graph::Buffer &b = g.buffers.at(view);
  EXPECT_EQ(b.viewOf, base);
  ASSERT_EQ(b.viewOffset.terms.size(), 1u);
  EXPECT_EQ(b.viewOffset.terms[0].second, 512);
  EXPECT_EQ(b.viewOffset.constant, 0);
  EXPECT_EQ(g.buffers.at(base).viewOf, -1);
  // The view is created where slice() was called: inside the loop, which it does not outlive.
  const graph::Loop &loop = std::get<graph::Loop>(g.body.stmts.back());
  ASSERT_FALSE(loop.body.stmts.empty());
  EXPECT_EQ(std::get<graph::Alloc>(loop.body.stmts[0]).buffer, view);
}

TEST(TileSlice, ASliceOfASliceViewsTheOriginalTile) {
  int base = -1, inner = -1;
  auto k = kernelOf({input("a", {128, 1024}, f32)}, [&](Hbm a) {
    Tile t = load(a.tile(0, 0, {128, 1024}));
    base = t.buffer();
    inner = t.slice(256, 512).slice(128, 64).buffer();
  });
  graph::KernelGraph g = trace(k, {});
  EXPECT_EQ(g.buffers.at(inner).viewOf, base);
  EXPECT_TRUE(g.buffers.at(inner).viewOffset.terms.empty());
  EXPECT_EQ(g.buffers.at(inner).viewOffset.constant, 384);
  EXPECT_EQ(g.buffers.at(inner).shape, (Shape{128, 64}));
}

TEST(TileSlice, PlusEqualsAddsInPlace) {
  int acc = -1, part = -1;
  auto k = kernelOf({input("a", {128, 512}, f32)}, [&](Hbm a) {
    Tile sum = zeros<f32>({128, 1024});
    Tile x = load(a.tile(0, 0, {128, 512}));
    Tile half = sum.slice(512, 512);
    half += x;
    acc = half.buffer();
    part = x.buffer();
  });
  std::vector<graph::Op> ops;
  collect(trace(k, {}).body, ops);
  ASSERT_EQ(ops.size(), 3u); // memset, load, add
  const graph::Op &add = ops.back();
  EXPECT_EQ(add.kind, graph::OpKind::Binary);
  EXPECT_EQ(add.alu, tessera::isa::AluOp::Add);
  EXPECT_EQ(add.dst, acc);
  EXPECT_EQ(add.srcs, (std::vector<int>{acc, part}));
}

// A zero-filled accumulator is written whole by matmuls (its first one starts the accumulation group), so it has
// no slices; a PSUM tile made with ndarray does (transposes side by side in one bank).
TEST(TileSlice, AccumulatorsCannotBeSlicedOtherPsumTilesCan) {
  int line = 0;
  auto k = kernelOf({input("a", {128, 512}, f32)}, [&](Hbm) {
    Tile p = psum<f32>({128, 512});
    line = __LINE__ + 1;
    (void)p.slice(0, 128);
  });
  tessera::Error e = traceError(k);
  EXPECT_NE(e.message().find("slice: tile 't0' [128, 512] is a zero-filled PSUM accumulator (tsr::psum)"),
            std::string::npos)
      << e.message();
  EXPECT_NE(e.hint().find("tsr::ndarray(dtype, shape, tsr::buffer::psum)"), std::string::npos) << e.hint();
  expectAt(e, line);
  auto sliced = kernelOf({input("a", {128, 512}, f32)}, [&](Hbm) {
    Tile p = ndarray(bf16, {128, 512}, buffer::psum);
    Tile window = p.slice(128, 128);
    EXPECT_EQ(window.space(), tessera::isa::MemSpace::Psum);
    EXPECT_EQ(window.shape(), (Shape{128, 128}));
  });
  tsr::graph::KernelGraph g = tsr::trace(sliced, tsr::Params());
  ASSERT_EQ(g.buffers.size(), 2u);
  EXPECT_EQ(g.buffers[1].viewOf, 0);
}

TEST(TileSlice, ASliceMustStayInsideItsTile) {
  int lineConst = 0, lineLoop = 0, lineSize = 0;
  auto constant = kernelOf({input("a", {128, 512}, f32)}, [&](Hbm a) {
    Tile t = load(a.tile(0, 0, {128, 512}));
    lineConst = __LINE__ + 1;
    (void)t.slice(384, 256);
  });
  tessera::Error e = traceError(constant);
  EXPECT_EQ(e.message(), "slice: 256 elements at offsets from 384 to 384 leave tile 't0' [128, 512]");
  expectAt(e, lineConst);

  // With a loop index, every iteration counts: the last one (j = 3) would leave the tile.
  auto looped = kernelOf({input("a", {128, 512}, f32)}, [&](Hbm a) {
    Tile t = load(a.tile(0, 0, {128, 512}));
    for (auto j : affine_range(4)) {
      lineLoop = __LINE__ + 1;
      (void)t.slice(j * 160, 160);
    }
  });
  e = traceError(looped);
  EXPECT_EQ(e.message(), "slice: 160 elements at offsets from 0 to 480 leave tile 't0' [128, 512]");
  expectAt(e, lineLoop);

  auto empty = kernelOf({input("a", {128, 512}, f32)}, [&](Hbm a) {
    Tile t = load(a.tile(0, 0, {128, 512}));
    lineSize = __LINE__ + 1;
    (void)t.slice(0, 0);
  });
  e = traceError(empty);
  EXPECT_EQ(e.message(), "slice: size 0 of tile 't0' [128, 512] must be positive");
  expectAt(e, lineSize);
}

TEST(TileSlice, ASliceMadeInALoopEndsWithIt) {
  int line = 0;
  auto k = kernelOf({input("a", {128, 512}, f32)}, [&](Hbm a) {
    Tile t = load(a.tile(0, 0, {128, 512}));
    Tile kept = t;
    for (auto j : affine_range(2)) kept = t.slice(j * 256, 256);
    line = __LINE__ + 1;
    (void)copy<bf16>(kept);
  });
  tessera::Error e = traceError(k);
  EXPECT_NE(e.message().find("is used after the loop that created it has ended"), std::string::npos) << e.message();
  expectAt(e, line);
}

TEST(TileSlice, PlusEqualsChecksShapes) {
  int line = 0;
  auto k = kernelOf({input("a", {128, 512}, f32)}, [&](Hbm a) {
    Tile sum = zeros<f32>({128, 1024});
    Tile x = load(a.tile(0, 0, {128, 512}));
    line = __LINE__ + 1;
    sum += x;
  });
  tessera::Error e = traceError(k);
  EXPECT_EQ(e.message(), "+=: shape mismatch, [128, 1024] += [128, 512]");
  expectAt(e, line);
}

} // namespace
} // namespace tsr

namespace tsr {
namespace {

using dsltest::expectAt;
using dsltest::kernelOf;
using dsltest::traceError;

TEST(PartitionSlice, RecordsAViewOfTheTilesPartitions) {
  int base = -1, rows = -1, nested = -1;
  auto k = kernelOf({input("a", {128, 1024}, f32)}, [&](Hbm a) {
    Tile t = load(a.tile(0, 0, {128, 1024}));
    base = t.buffer();
    Tile upper = t.partition_slice(64, 64);
    rows = upper.buffer();
    EXPECT_EQ(upper.shape(), (Shape{64, 1024}));
    // A slice of a slice, either way round, views the original tile at the sum of the offsets.
    nested = upper.slice(512, 256).partition_slice(32, 32).buffer();
  });
  graph::KernelGraph g = trace(k, {});
  EXPECT_EQ(g.buffers.at(rows).viewOf, base);
  EXPECT_EQ(g.buffers.at(rows).viewPartition, 64);
  EXPECT_EQ(g.buffers.at(rows).viewOffset.constant, 0);
  EXPECT_EQ(g.buffers.at(nested).viewOf, base);
  EXPECT_EQ(g.buffers.at(nested).viewPartition, 96);
  EXPECT_EQ(g.buffers.at(nested).viewOffset.constant, 512);
  EXPECT_EQ(g.buffers.at(nested).shape, (Shape{32, 256}));
}

TEST(PartitionSlice, MustStayInsideItsTileAndNotSliceAnAccumulator) {
  int lineOutside = 0, lineEmpty = 0, lineAccumulator = 0;
  auto outside = kernelOf({input("a", {128, 512}, f32)}, [&](Hbm a) {
    Tile t = load(a.tile(0, 0, {96, 512}));
    lineOutside = __LINE__ + 1;
    (void)t.partition_slice(64, 64);
  });
  tessera::Error e = traceError(outside);
  EXPECT_EQ(e.message(), "partition_slice: partitions [64, 128) leave tile 't0' [96, 512], which has 96");
  EXPECT_EQ(e.hint(), "a partition slice must stay within its tile's partitions");
  expectAt(e, lineOutside);

  auto empty = kernelOf({input("a", {128, 512}, f32)}, [&](Hbm a) {
    Tile t = load(a.tile(0, 0, {128, 512}));
    lineEmpty = __LINE__ + 1;
    (void)t.partition_slice(0, 0);
  });
  e = traceError(empty);
  EXPECT_EQ(e.message(), "partition_slice: size 0 of tile 't0' [128, 512] must be positive");
  expectAt(e, lineEmpty);

  auto accumulator = kernelOf({input("a", {128, 512}, f32)}, [&](Hbm) {
    Tile p = psum<f32>({128, 512});
    lineAccumulator = __LINE__ + 1;
    (void)p.partition_slice(0, 64);
  });
  e = traceError(accumulator);
  EXPECT_NE(e.message().find("partition_slice: tile 't0' [128, 512] is a zero-filled PSUM accumulator"),
            std::string::npos)
      << e.message();
  expectAt(e, lineAccumulator);
}

} // namespace
} // namespace tsr
