/// \file
/// tsr::shared_hbm (an HBM tensor the kernel makes for its own intermediates): what tracing records, and misuse
/// reported at the user's line.

#include "DslTesting.h"

#include "tessera/dsl/tsr.h"

#include <gtest/gtest.h>

namespace tsr {
namespace {

using dsltest::expectAt;
using dsltest::kernelOf;
using dsltest::traceError;

TEST(SharedHbm, RecordsAScratchTensorAfterTheSignature) {
  auto k = kernelOf({input("x", {128, 64}, f32), output("y", {128, 64}, f32)}, [&](Hbm x, Hbm y) {
    Hbm named = shared_hbm(bf16, {256, 64}, "stage");
    Hbm unnamed = shared_hbm(f32, {128, 64});
    EXPECT_EQ(named.tensor(), 2);
    EXPECT_EQ(unnamed.name(), "scratch1");
    EXPECT_EQ(named.shape(), (Shape{256, 64}));
    store(named.tile(0, 0, {128, 64}), copy<bf16>(load(x.tile(0, 0, {128, 64}))));
    store(y.tile(0, 0, {128, 64}), copy<f32>(load(named.tile(0, 0, {128, 64}))));
  });
  graph::KernelGraph g = trace(k, {});
  ASSERT_EQ(g.tensors.size(), 4u);
  EXPECT_FALSE(g.tensors[0].isScratch);
  EXPECT_FALSE(g.tensors[1].isScratch);
  EXPECT_TRUE(g.tensors[2].isScratch);
  EXPECT_FALSE(g.tensors[2].isOutput);
  EXPECT_EQ(g.tensors[2].name, "stage");
  EXPECT_EQ(g.tensors[2].dtype, bf16);
  EXPECT_EQ(g.tensors[3].name, "scratch1");
}

TEST(SharedHbm, MisuseIsReportedAtTheLine) {
  int lineLoop = 0, lineName = 0, lineShape = 0;
  auto inLoop = kernelOf({input("x", {128, 64}, f32)}, [&](Hbm) {
    for (auto i : affine_range(2)) {
      (void)i;
      lineLoop = __LINE__ + 1;
      (void)shared_hbm(f32, {128, 64});
    }
  });
  tessera::Error e = traceError(inLoop);
  EXPECT_EQ(e.message(), "shared_hbm: an HBM scratch tensor is made inside a loop");
  EXPECT_NE(e.hint().find("make it at the kernel's top level"), std::string::npos) << e.hint();
  expectAt(e, lineLoop);

  auto taken = kernelOf({input("x", {128, 64}, f32)}, [&](Hbm) {
    lineName = __LINE__ + 1;
    (void)shared_hbm(f32, {128, 64}, "x");
  });
  e = traceError(taken);
  EXPECT_EQ(e.message(), "shared_hbm: kernel 'test' already has a tensor 'x'");
  expectAt(e, lineName);

  auto empty = kernelOf({input("x", {128, 64}, f32)}, [&](Hbm) {
    lineShape = __LINE__ + 1;
    (void)shared_hbm(f32, {128, 0});
  });
  e = traceError(empty);
  EXPECT_EQ(e.message(), "shared_hbm: 'scratch0' is [128, 0]; each dimension must be at least 1");
  expectAt(e, lineShape);

  int lineRank = 0;
  auto vector = kernelOf({input("x", {128, 64}, f32)}, [&](Hbm) {
    lineRank = __LINE__ + 1;
    (void)shared_hbm(f32, {128});
  });
  e = traceError(vector);
  EXPECT_EQ(e.message(), "shared_hbm: 'scratch0' is [128]; HBM tensors have 2 to 5 dimensions, the last two [rows, "
                         "columns]");
  expectAt(e, lineRank);
}

// An N-D scratch tensor is indexed as an N-D argument is: qk[i][j] of [nq, nkv, 128, 512] (attention v3's).
TEST(SharedHbm, TakesTheShapesOfArguments) {
  auto k = kernelOf({input("x", {128, 512}, f32), output("y", {128, 512}, f32)}, [&](Hbm x, Hbm y) {
    Hbm qk = shared_hbm(f32, {2, 3, 128, 512}, "qk");
    EXPECT_EQ(qk[1].shape(), (Shape{3, 128, 512}));
    for (auto j : affine_range(3)) store(qk[1][j].tile(0, 0, {128, 512}), load(x.tile(0, 0, {128, 512})));
    store(y.tile(0, 0, {128, 512}), load(qk[1][2].tile(0, 0, {128, 512})));
  });
  graph::KernelGraph g = trace(k, {});
  ASSERT_EQ(g.tensors.size(), 3u);
  EXPECT_EQ(g.tensors[2].shape, (Shape{2, 3, 128, 512}));
  EXPECT_TRUE(g.tensors[2].isScratch);
}

} // namespace
} // namespace tsr
