/// \file
/// What tracing builds: the kernel graph's loops, index expressions, buffers and ops; and the kernel registry.

#include "DslTesting.h"

#include "tessera/dsl/tsr.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <variant>
#include <vector>

namespace tsr {
namespace {

using dsltest::kernelOf;
using graph::OpKind;
using tessera::isa::MemSpace;

// ---- Reading a graph -------------------------------------------------------------------------------------------

/// The statements of a block, by kind, for compact structural checks: "alloc", "loop" or the op's kind.
std::string kindOf(const graph::Stmt &s) {
  if (std::holds_alternative<graph::Alloc>(s)) return "alloc";
  if (std::holds_alternative<graph::Loop>(s)) return "loop";
  switch (std::get<graph::Op>(s).kind) {
  case OpKind::Load: return "load";
  case OpKind::Store: return "store";
  case OpKind::Matmul: return "matmul";
  case OpKind::Binary: return "binary";
  case OpKind::Activation: return "activation";
  case OpKind::Reduce: return "reduce";
  case OpKind::Copy: return "copy";
  case OpKind::Memset: return "memset";
  case OpKind::Print: return "print";
  case OpKind::Wait: return "wait";
  case OpKind::Signal: return "signal";
  case OpKind::Instruction: return "instruction";
  }
  return "?";
}

std::vector<std::string> kinds(const graph::Block &b) {
  std::vector<std::string> r;
  for (const graph::Stmt &s : b.stmts) r.push_back(kindOf(s));
  return r;
}

using Kinds = std::vector<std::string>;

const graph::Loop &loopAt(const graph::Block &b, size_t i) {
  if (i >= b.stmts.size() || !std::holds_alternative<graph::Loop>(b.stmts[i]))
    throw std::runtime_error("statement " + std::to_string(i) + " is not a loop");
  return std::get<graph::Loop>(b.stmts[i]);
}

const graph::Op &opAt(const graph::Block &b, size_t i) {
  if (i >= b.stmts.size() || !std::holds_alternative<graph::Op>(b.stmts[i]))
    throw std::runtime_error("statement " + std::to_string(i) + " is not an op");
  return std::get<graph::Op>(b.stmts[i]);
}

int allocAt(const graph::Block &b, size_t i) {
  if (i >= b.stmts.size() || !std::holds_alternative<graph::Alloc>(b.stmts[i]))
    throw std::runtime_error("statement " + std::to_string(i) + " is not an alloc");
  return std::get<graph::Alloc>(b.stmts[i]).buffer;
}

/// Every op of a block and of the loops in it, in program order.
void collectOps(const graph::Block &b, std::vector<const graph::Op *> &out) {
  for (const graph::Stmt &s : b.stmts) {
    if (auto *op = std::get_if<graph::Op>(&s)) out.push_back(op);
    if (auto *loop = std::get_if<graph::Loop>(&s)) collectOps(loop->body, out);
  }
}

std::vector<const graph::Op *> opsOf(const graph::KernelGraph &g, OpKind kind) {
  std::vector<const graph::Op *> all, r;
  collectOps(g.body, all);
  for (const graph::Op *op : all)
    if (op->kind == kind) r.push_back(op);
  return r;
}

/// The ops of a straight-line kernel (no loops), in order.
std::vector<const graph::Op *> allOps(const graph::KernelGraph &g) {
  std::vector<const graph::Op *> r;
  collectOps(g.body, r);
  return r;
}

/// An index expression written out: "128*L2 + 64" (terms in the order stored, then the constant).
std::string str(const graph::IndexExpr &e) {
  std::string s;
  for (auto [loop, coeff] : e.terms) s += (s.empty() ? "" : " + ") + std::to_string(coeff) + "*L" + std::to_string(loop);
  if (e.constant != 0 || s.empty()) s += (s.empty() ? "" : " + ") + std::to_string(e.constant);
  return s;
}

Index loopVar(int loop) { return Index(graph::IndexExpr{{{loop, 1}}, 0}); }

// ---- Loops -----------------------------------------------------------------------------------------------------

/// The classic tiled matmul: three nested affine_ranges, traced once each, with one matmul in the innermost.
TEST(TraceLoops, MatmulNestIsThreeNestedLoopsAroundOneMatmul) {
  int bodyRuns = 0, lineM = 0, lineN = 0, lineK = 0, lineMatmul = 0, lineStore = 0;
  // a_t [K, M], b [K, N], c [M, N] with M = 256, N = 1024, K = 384: 2 x 2 x 3 tiles.
  auto k = kernelOf({input("a_t", {384, 256}, bf16), input("b", {384, 1024}, bf16), output("c", {256, 1024}, bf16)},
                    [&](Hbm a_t, Hbm b, Hbm c) {
                      lineM = __LINE__ + 1;
                      for (auto m : affine_range(a_t.dim(1) / 128)) {
                        lineN = __LINE__ + 1;
                        for (auto n : affine_range(b.dim(1) / 512)) {
                          Tile acc = psum<f32>({128, 512});
                          lineK = __LINE__ + 1;
                          for (auto kk : affine_range(a_t.dim(0) / 128)) {
                            ++bodyRuns;
                            Tile s = load(a_t.tile(kk, m, {128, 128}));
                            Tile mv = load(b.tile(kk, n, {128, 512}));
                            lineMatmul = __LINE__ + 1;
                            acc += matmul(s, mv);
                          }
                          lineStore = __LINE__ + 1;
                          store(c.tile(m, n, {128, 512}), copy<bf16>(acc));
                        }
                      }
                    });
  graph::KernelGraph g = trace(k, {});
  EXPECT_EQ(bodyRuns, 1);
  EXPECT_EQ(g.loops, 3);

  ASSERT_EQ(kinds(g.body), (Kinds{"loop"}));
  const graph::Loop &lm = loopAt(g.body, 0);
  EXPECT_EQ(lm.id, 0);
  EXPECT_EQ(lm.tripCount, 2);
  EXPECT_EQ(lm.loc.line, static_cast<uint32_t>(lineM));

  ASSERT_EQ(kinds(lm.body), (Kinds{"loop"}));
  const graph::Loop &ln = loopAt(lm.body, 0);
  EXPECT_EQ(ln.id, 1);
  EXPECT_EQ(ln.tripCount, 2);
  EXPECT_EQ(ln.loc.line, static_cast<uint32_t>(lineN));

  ASSERT_EQ(kinds(ln.body), (Kinds{"alloc", "memset", "loop", "alloc", "copy", "store"}));
  const int acc = allocAt(ln.body, 0);
  const graph::Loop &lk = loopAt(ln.body, 2);
  EXPECT_EQ(lk.id, 2);
  EXPECT_EQ(lk.tripCount, 3);
  EXPECT_EQ(lk.loc.line, static_cast<uint32_t>(lineK));

  ASSERT_EQ(kinds(lk.body), (Kinds{"alloc", "load", "alloc", "load", "matmul"}));
  const int s = allocAt(lk.body, 0), mv = allocAt(lk.body, 2);
  const graph::Op &mm = opAt(lk.body, 4);
  EXPECT_EQ(mm.dst, acc);
  EXPECT_EQ(mm.srcs, (std::vector<int>{s, mv}));
  EXPECT_TRUE(mm.accumulate);
  EXPECT_EQ(mm.loc.line, static_cast<uint32_t>(lineMatmul));
  EXPECT_EQ(opsOf(g, OpKind::Matmul).size(), 1u);

  // Tile offsets are the block indices times the tile size, in the loops' ids.
  const graph::Op &loadS = opAt(lk.body, 1), &loadM = opAt(lk.body, 3);
  EXPECT_EQ(loadS.dst, s);
  EXPECT_EQ(loadS.hbm.tensor, 0);
  EXPECT_EQ(str(loadS.hbm.offsets[0]), "128*L2");
  EXPECT_EQ(str(loadS.hbm.offsets[1]), "128*L0");
  EXPECT_EQ(loadS.hbm.sizes, (Shape{128, 128}));
  EXPECT_EQ(loadM.hbm.tensor, 1);
  EXPECT_EQ(str(loadM.hbm.offsets[0]), "128*L2");
  EXPECT_EQ(str(loadM.hbm.offsets[1]), "512*L1");
  EXPECT_EQ(loadM.hbm.sizes, (Shape{128, 512}));

  const graph::Op &st = opAt(ln.body, 5);
  EXPECT_EQ(st.dst, -1);
  EXPECT_EQ(st.srcs, (std::vector<int>{allocAt(ln.body, 3)}));
  EXPECT_EQ(st.hbm.tensor, 2);
  EXPECT_EQ(str(st.hbm.offsets[0]), "128*L0");
  EXPECT_EQ(str(st.hbm.offsets[1]), "512*L1");
  EXPECT_EQ(st.loc.line, static_cast<uint32_t>(lineStore));
}

TEST(TraceLoops, SiblingLoopsGetSuccessiveIds) {
  auto k = kernelOf({input("a", {256, 64}, f32)}, [](Hbm a) {
    for (auto i : affine_range(2)) (void)load(a.tile(i, 0, {128, 64}));
    for (auto j : affine_range(4)) (void)load(a.tile(j, 0, {64, 64}));
  });
  graph::KernelGraph g = trace(k, {});
  EXPECT_EQ(g.loops, 2);
  ASSERT_EQ(kinds(g.body), (Kinds{"loop", "loop"}));
  EXPECT_EQ(loopAt(g.body, 0).id, 0);
  EXPECT_EQ(loopAt(g.body, 0).tripCount, 2);
  EXPECT_EQ(loopAt(g.body, 1).id, 1);
  EXPECT_EQ(loopAt(g.body, 1).tripCount, 4);
  EXPECT_EQ(str(opAt(loopAt(g.body, 1).body, 1).hbm.offsets[0]), "64*L1");
}

/// Leaving a body with `break` skips the iterator's increment, which would close the loop; the range's destructor
/// closes it instead, so what follows the loop lands outside it.
TEST(TraceLoops, BreakStillClosesTheLoop) {
  auto k = kernelOf({input("a", {512, 64}, f32)}, [](Hbm a) {
    for (auto i : affine_range(4)) {
      for (auto j : affine_range(2)) {
        (void)load(a.window(i * 128 + j * 64, 0, {64, 64}));
        break;
      }
      (void)zeros<f32>({128, 1});
      break;
    }
    (void)psum<f32>({128, 512});
  });
  graph::KernelGraph g = trace(k, {});
  EXPECT_EQ(g.loops, 2);
  ASSERT_EQ(kinds(g.body), (Kinds{"loop", "alloc", "memset"}));
  const graph::Loop &outer = loopAt(g.body, 0);
  ASSERT_EQ(kinds(outer.body), (Kinds{"loop", "alloc", "memset"}));
  EXPECT_EQ(kinds(loopAt(outer.body, 0).body), (Kinds{"alloc", "load"}));
  EXPECT_EQ(g.buffers[allocAt(g.body, 1)].space, MemSpace::Psum);
}

TEST(TraceLoops, ContinueAndEarlyReturnCloseLoopsToo) {
  auto k = kernelOf({input("a", {256, 64}, f32)}, [](Hbm a) {
    for (auto i : affine_range(2)) {
      (void)load(a.tile(i, 0, {128, 64}));
      continue;
    }
    for (auto i : affine_range(2))
      for (auto j : affine_range(3)) {
        (void)load(a.window(i * 128 + j, 0, {64, 64}));
        return;
      }
  });
  graph::KernelGraph g = trace(k, {});
  EXPECT_EQ(g.loops, 3);
  ASSERT_EQ(kinds(g.body), (Kinds{"loop", "loop"}));
  EXPECT_EQ(kinds(loopAt(g.body, 0).body), (Kinds{"alloc", "load"}));
  ASSERT_EQ(kinds(loopAt(g.body, 1).body), (Kinds{"loop"}));
  EXPECT_EQ(loopAt(loopAt(g.body, 1).body, 0).tripCount, 3);
  // The tracer is gone once trace() returns, even though the body returned from inside two loops.
  EXPECT_THROW((void)psum<f32>({128, 512}), tessera::Error);
}

// ---- Index expressions -----------------------------------------------------------------------------------------

TEST(TraceIndices, AffineRangeWithStartOffsetsTheIndex) {
  auto k = kernelOf({input("a", {768, 64}, f32)}, [](Hbm a) {
    for (auto i : affine_range(2, 6)) (void)load(a.tile(i, 0, {128, 64}));
  });
  graph::KernelGraph g = trace(k, {});
  const graph::Loop &l = loopAt(g.body, 0);
  EXPECT_EQ(l.tripCount, 4);
  const graph::Op &ld = opAt(l.body, 1);
  // i = L0 + 2, so the row offset is 128 * (L0 + 2).
  EXPECT_EQ(str(ld.hbm.offsets[0]), "128*L0 + 256");
  EXPECT_EQ(str(ld.hbm.offsets[1]), "0");
}

TEST(TraceIndices, TileIndexIsScaledByTheTileSize) {
  auto k = kernelOf({input("a", {512, 256}, f32)}, [](Hbm a) {
    for (auto i : affine_range(4))
      for (auto j : affine_range(2)) {
        (void)load(a.tile(i, j, {128, 128}));
        (void)load(a.window(i * 128, j * 128, {128, 128}));
      }
  });
  graph::KernelGraph g = trace(k, {});
  const graph::Block &inner = loopAt(loopAt(g.body, 0).body, 0).body;
  const graph::Op &byTile = opAt(inner, 1), &byWindow = opAt(inner, 3);
  for (const graph::Op *op : {&byTile, &byWindow}) {
    EXPECT_EQ(str(op->hbm.offsets[0]), "128*L0");
    EXPECT_EQ(str(op->hbm.offsets[1]), "128*L1");
    EXPECT_EQ(op->hbm.sizes, (Shape{128, 128}));
  }
}

TEST(TraceIndices, MixedExpressionsInAWindow) {
  auto k = kernelOf({input("a", {512, 64}, f32)}, [](Hbm a) {
    for (auto i : affine_range(3))
      for (auto j : affine_range(2)) (void)load(a.window(i * 128 + 64 - j * 32, j * 32, {64, 32}));
  });
  graph::KernelGraph g = trace(k, {});
  const graph::Op &ld = opAt(loopAt(loopAt(g.body, 0).body, 0).body, 1);
  EXPECT_EQ(str(ld.hbm.offsets[0]), "128*L0 + -32*L1 + 64");
  EXPECT_EQ(str(ld.hbm.offsets[1]), "32*L1");
}

TEST(TraceIndices, IndexArithmeticCombinesAndDropsTerms) {
  const Index i = loopVar(0), j = loopVar(1);
  EXPECT_EQ(str((i + j * 3 + 5).expr()), "1*L0 + 3*L1 + 5");
  EXPECT_EQ(str((2 * (i + 4)).expr()), "2*L0 + 8");
  EXPECT_EQ(str((i + j + i).expr()), "2*L0 + 1*L1");
  EXPECT_EQ(str((i + j - i).expr()), "1*L1");
  EXPECT_TRUE((i + j - i - j + 7).isConstant());
  EXPECT_EQ((i + j - i - j + 7).expr().constant, 7);
  EXPECT_TRUE((i * 0).isConstant());
  EXPECT_FALSE(i.isConstant());
  EXPECT_TRUE(Index(12).isConstant());
  EXPECT_EQ(Index(12).expr().constant, 12);
}

// ---- Buffers ---------------------------------------------------------------------------------------------------

TEST(TraceBuffers, EachOpMakesABufferOfTheRightShapeDtypeAndSpace) {
  int lineLoad = 0;
  auto k = kernelOf({input("x", {128, 512}, bf16)}, [&](Hbm x) {
    lineLoad = __LINE__ + 1;
    Tile t = load(x.tile(0, 0, {128, 512}));    // t0: sbuf bf16
    Tile p = psum<bf16>({128, 512});            // t1: psum bf16 (the engines read PSUM as f32)
    Tile c = copy<bf16>(p);                     // t2: sbuf bf16
    (void)exp(p);                               // t3: sbuf f32, as PSUM is read
    (void)exp(t);                               // t4: sbuf bf16
    (void)add(p, t);                            // t5: sbuf f32, the first operand's (PSUM) type
    (void)add(c, p);                            // t6: sbuf bf16, the first operand's type
    (void)zeros<bf16>({64, 32});                // t7
    (void)full(f16, {32, 8}, 2.5f);             // t8
  });
  graph::KernelGraph g = trace(k, {});
  struct Expected {
    Shape shape;
    DType dtype;
    MemSpace space;
  };
  const Expected expected[] = {
      {{128, 512}, bf16, MemSpace::Sbuf}, {{128, 512}, bf16, MemSpace::Psum}, {{128, 512}, bf16, MemSpace::Sbuf},
      {{128, 512}, f32, MemSpace::Sbuf},  {{128, 512}, bf16, MemSpace::Sbuf}, {{128, 512}, f32, MemSpace::Sbuf},
      {{128, 512}, bf16, MemSpace::Sbuf}, {{64, 32}, bf16, MemSpace::Sbuf},   {{32, 8}, f16, MemSpace::Sbuf},
  };
  ASSERT_EQ(g.buffers.size(), std::size(expected));
  for (size_t i = 0; i < g.buffers.size(); ++i) {
    SCOPED_TRACE("buffer " + std::to_string(i));
    EXPECT_EQ(g.buffers[i].name, "t" + std::to_string(i));
    EXPECT_EQ(g.buffers[i].shape, expected[i].shape);
    EXPECT_EQ(g.buffers[i].dtype, expected[i].dtype);
    EXPECT_EQ(g.buffers[i].space, expected[i].space);
    EXPECT_EQ(g.buffers[i].loc.line, static_cast<uint32_t>(lineLoad + int(i)));
  }

  std::vector<const graph::Op *> ops = allOps(g);
  ASSERT_EQ(ops.size(), 9u);
  EXPECT_EQ(ops[2]->kind, OpKind::Copy);
  EXPECT_EQ(ops[2]->srcs, (std::vector<int>{1}));
  EXPECT_EQ(ops[3]->kind, OpKind::Activation);
  EXPECT_EQ(ops[3]->func, tessera::isa::ActFunc::Exp);
  EXPECT_EQ(ops[3]->value, 1.0f);
  EXPECT_EQ(ops[3]->srcs, (std::vector<int>{1}));
  EXPECT_EQ(ops[5]->kind, OpKind::Binary);
  EXPECT_EQ(ops[5]->alu, tessera::isa::AluOp::Add);
  EXPECT_EQ(ops[5]->srcs, (std::vector<int>{1, 0}));
  EXPECT_EQ(ops[7]->kind, OpKind::Memset);
  EXPECT_EQ(ops[7]->value, 0.0f);
  EXPECT_EQ(ops[8]->kind, OpKind::Memset);
  EXPECT_EQ(ops[8]->value, 2.5f);
  EXPECT_EQ(ops[8]->dst, 8);
}

TEST(TraceBuffers, TensorsComeFromTheSignature) {
  auto k = kernelOf({input("a", {256, 64}, bf16), input("b", {64, 32}, f8e4m3), output("c", {256, 32}, f32)},
                    [](Hbm a, Hbm b, Hbm c) {
                      EXPECT_EQ(a.name(), "a");
                      EXPECT_EQ(b.shape(), (Shape{64, 32}));
                      EXPECT_EQ(c.dtype(), f32);
                      EXPECT_EQ(c.dim(1), 32);
                    });
  graph::KernelGraph g = trace(k, {});
  EXPECT_EQ(g.name, "test");
  ASSERT_EQ(g.tensors.size(), 3u);
  EXPECT_EQ(g.tensors[0].name, "a");
  EXPECT_EQ(g.tensors[0].shape, (Shape{256, 64}));
  EXPECT_EQ(g.tensors[0].dtype, bf16);
  EXPECT_FALSE(g.tensors[0].isOutput);
  EXPECT_EQ(g.tensors[1].dtype, f8e4m3);
  EXPECT_EQ(g.tensors[2].name, "c");
  EXPECT_TRUE(g.tensors[2].isOutput);
  EXPECT_TRUE(g.buffers.empty());
  EXPECT_TRUE(g.body.stmts.empty());
}

TEST(TraceBuffers, PsumIsAllocatedAndZeroed) {
  auto k = kernelOf({input("a", {128, 64}, f32)}, [](Hbm) { (void)psum<f32>({128, 512}); });
  graph::KernelGraph g = trace(k, {});
  ASSERT_EQ(kinds(g.body), (Kinds{"alloc", "memset"}));
  const int buf = allocAt(g.body, 0);
  EXPECT_EQ(g.buffers[buf].space, MemSpace::Psum);
  EXPECT_EQ(g.buffers[buf].dtype, f32);
  const graph::Op &ms = opAt(g.body, 1);
  EXPECT_EQ(ms.kind, OpKind::Memset);
  EXPECT_EQ(ms.dst, buf);
  EXPECT_TRUE(ms.srcs.empty());
  EXPECT_EQ(ms.value, 0.0f);
}

// ---- Vector-engine ops -----------------------------------------------------------------------------------------

TEST(TraceVector, ReductionsGivePartitionsByOneInF32) {
  auto k = kernelOf({input("x", {64, 300}, bf16)}, [](Hbm x) {
    Tile t = load(x.tile(0, 0, {64, 300}));
    (void)sum(t);
    (void)max(t);
  });
  graph::KernelGraph g = trace(k, {});
  std::vector<const graph::Op *> reduces = opsOf(g, OpKind::Reduce);
  ASSERT_EQ(reduces.size(), 2u);
  EXPECT_EQ(reduces[0]->alu, tessera::isa::AluOp::Add);
  EXPECT_EQ(reduces[1]->alu, tessera::isa::AluOp::Max);
  for (const graph::Op *r : reduces) {
    EXPECT_EQ(r->srcs, (std::vector<int>{0}));
    const graph::Buffer &b = g.buffers[r->dst];
    EXPECT_EQ(b.shape, (Shape{64, 1}));
    EXPECT_EQ(b.dtype, f32);
    EXPECT_EQ(b.space, MemSpace::Sbuf);
  }
}

TEST(TraceVector, ColumnOperandsBroadcastOnEitherSide) {
  auto k = kernelOf({input("x", {128, 64}, f32)}, [](Hbm x) {
    Tile t = load(x.tile(0, 0, {128, 64})); // t0
    Tile m = max(t);                         // t1 [128, 1]
    (void)(t - m);                           // t2: column on the right
    (void)(m * t);                           // t3: column on the left
    (void)divide(t, sum(t));                 // t4 = sum, t5
    (void)maximum(m, m);                     // t6: two columns stay a column
  });
  graph::KernelGraph g = trace(k, {});
  std::vector<const graph::Op *> bins = opsOf(g, OpKind::Binary);
  ASSERT_EQ(bins.size(), 4u);
  const tessera::isa::AluOp alus[] = {tessera::isa::AluOp::Subtract, tessera::isa::AluOp::Multiply,
                                      tessera::isa::AluOp::Divide, tessera::isa::AluOp::Max};
  const std::vector<int> srcs[] = {{0, 1}, {1, 0}, {0, 4}, {1, 1}};
  const Shape shapes[] = {{128, 64}, {128, 64}, {128, 64}, {128, 1}};
  for (size_t i = 0; i < bins.size(); ++i) {
    SCOPED_TRACE("binary op " + std::to_string(i));
    EXPECT_EQ(bins[i]->alu, alus[i]);
    EXPECT_EQ(bins[i]->srcs, srcs[i]);
    EXPECT_EQ(g.buffers[bins[i]->dst].shape, shapes[i]);
    EXPECT_EQ(g.buffers[bins[i]->dst].space, MemSpace::Sbuf);
  }
}

TEST(TraceVector, OperatorsRecordTheUsersLine) {
  int line = 0;
  auto k = kernelOf({input("x", {128, 64}, f32)}, [&](Hbm x) {
    Tile t = load(x.tile(0, 0, {128, 64}));
    line = __LINE__ + 1;
    (void)(t + t);
  });
  graph::KernelGraph g = trace(k, {});
  std::vector<const graph::Op *> bins = opsOf(g, OpKind::Binary);
  ASSERT_EQ(bins.size(), 1u);
  EXPECT_EQ(bins[0]->loc.line, static_cast<uint32_t>(line));
  EXPECT_EQ(g.buffers[bins[0]->dst].loc.line, static_cast<uint32_t>(line));
}

// ---- Matmul ----------------------------------------------------------------------------------------------------

TEST(TraceMatmul, KeepingTheResultMakesAFreshPsumTile) {
  auto k = kernelOf({input("a_t", {128, 64}, bf16), input("b", {128, 256}, bf16)}, [](Hbm a_t, Hbm b) {
    Tile s = load(a_t.tile(0, 0, {128, 64}));
    Tile m = load(b.tile(0, 0, {128, 256}));
    Tile r = matmul(s, m);
    (void)r;
  });
  graph::KernelGraph g = trace(k, {});
  ASSERT_EQ(kinds(g.body), (Kinds{"alloc", "load", "alloc", "load", "alloc", "matmul"}));
  const int r = allocAt(g.body, 4);
  EXPECT_EQ(g.buffers[r].shape, (Shape{64, 256}));
  EXPECT_EQ(g.buffers[r].dtype, f32);
  EXPECT_EQ(g.buffers[r].space, MemSpace::Psum);
  const graph::Op &mm = opAt(g.body, 5);
  EXPECT_EQ(mm.dst, r);
  EXPECT_EQ(mm.srcs, (std::vector<int>{allocAt(g.body, 0), allocAt(g.body, 2)}));
  EXPECT_FALSE(mm.accumulate);
  EXPECT_TRUE(opsOf(g, OpKind::Memset).empty()); // a fresh result is written, not accumulated: nothing to zero
}

TEST(TraceMatmul, AccumulatingAddsIntoTheGivenTile) {
  auto k = kernelOf({input("a_t", {256, 128}, bf16), input("b", {256, 512}, bf16)}, [](Hbm a_t, Hbm b) {
    Tile acc = psum<f32>({128, 512});
    Tile s0 = load(a_t.tile(0, 0, {128, 128})), m0 = load(b.tile(0, 0, {128, 512}));
    Tile s1 = load(a_t.tile(1, 0, {128, 128})), m1 = load(b.tile(1, 0, {128, 512}));
    acc += matmul(s0, m0);
    acc += matmul(s1, m1);
  });
  graph::KernelGraph g = trace(k, {});
  std::vector<const graph::Op *> mms = opsOf(g, OpKind::Matmul);
  ASSERT_EQ(mms.size(), 2u);
  EXPECT_EQ(g.buffers.size(), 5u); // acc and four loads: accumulating allocates nothing
  for (const graph::Op *mm : mms) {
    EXPECT_EQ(mm->dst, 0);
    EXPECT_TRUE(mm->accumulate);
  }
  EXPECT_EQ(mms[0]->srcs, (std::vector<int>{1, 2}));
  EXPECT_EQ(mms[1]->srcs, (std::vector<int>{3, 4}));
}

// ---- The registry and shape parameters --------------------------------------------------------------------------

TEST(TraceRegistry, FindsTheBuiltInKernels) {
  for (const char *name : {"add", "matmul", "softmax"}) {
    SCOPED_TRACE(name);
    const KernelInfo *k = Registry::instance().find(name);
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->name, name);
    EXPECT_FALSE(k->summary.empty());
    EXPECT_TRUE(k->signature);
    EXPECT_TRUE(k->body);
    EXPECT_TRUE(k->reference);
    // Registration records where the kernel was defined.
    const std::string file = "kernels/" + std::string(name) + ".cpp";
    EXPECT_TRUE(k->loc.file.ends_with(file)) << k->loc.file;
    EXPECT_GT(k->loc.line, 0u);
  }
  EXPECT_EQ(Registry::instance().find("no-such-kernel"), nullptr);
  EXPECT_EQ(Registry::instance().find("Add"), nullptr);
}

TEST(TraceRegistry, AllIsSortedByName) {
  std::vector<const KernelInfo *> all = Registry::instance().all();
  std::vector<std::string> names;
  for (const KernelInfo *k : all) names.push_back(k->name);
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  for (const char *name : {"add", "matmul", "softmax"})
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
}

TEST(TraceRegistry, ParamsResolveAndPrint) {
  const KernelInfo *mm = Registry::instance().find("matmul");
  ASSERT_NE(mm, nullptr);
  Params defaults = mm->resolve({});
  EXPECT_EQ(defaults.str(), "K=512,M=512,N=512");
  Params p = mm->resolve({{"N", 1024}, {"K", 128}});
  EXPECT_EQ(p.str(), "K=128,M=512,N=1024");
  EXPECT_EQ(p["N"], 1024);
  EXPECT_EQ(p["M"], 512);
  EXPECT_EQ(p.values().size(), 3u);
  EXPECT_EQ(Params().str(), "");
  EXPECT_EQ(Params({{"R", 1}}).str(), "R=1");
}

TEST(TraceRegistry, BuiltInMatmulTiledTracesToItsLoopNest) {
  const KernelInfo *mm = Registry::instance().find("matmul_tiled");
  ASSERT_NE(mm, nullptr);
  graph::KernelGraph g = trace(*mm, mm->resolve({{"M", 256}, {"N", 1024}, {"K", 384}}));
  EXPECT_EQ(g.name, "matmul_tiled");
  ASSERT_EQ(g.tensors.size(), 3u);
  EXPECT_EQ(g.tensors[0].shape, (Shape{384, 256}));
  EXPECT_EQ(g.tensors[1].shape, (Shape{384, 1024}));
  EXPECT_EQ(g.tensors[2].shape, (Shape{256, 1024}));
  EXPECT_TRUE(g.tensors[2].isOutput);
  EXPECT_EQ(g.loops, 3);
  const graph::Loop &m = loopAt(g.body, 0);
  const graph::Loop &n = loopAt(m.body, 0);
  const graph::Loop &k = loopAt(n.body, 2);
  EXPECT_EQ(m.tripCount, 2);
  EXPECT_EQ(n.tripCount, 2);
  EXPECT_EQ(k.tripCount, 3);
  std::vector<const graph::Op *> mms = opsOf(g, OpKind::Matmul);
  ASSERT_EQ(mms.size(), 1u);
  EXPECT_TRUE(mms[0]->accumulate);
  EXPECT_EQ(kinds(k.body).back(), "matmul");
}

// matmul unrolls its k loops at trace time (plain C++ loops): one n loop, one m loop inside it, and K/128
// B-tile loads before the m loop, K/128 accumulating matmuls inside it.
TEST(TraceRegistry, BuiltInMatmulReusesItsMovingTiles) {
  const KernelInfo *mm = Registry::instance().find("matmul");
  ASSERT_NE(mm, nullptr);
  graph::KernelGraph g = trace(*mm, mm->resolve({{"M", 256}, {"N", 1024}, {"K", 384}}));
  EXPECT_EQ(g.loops, 2);
  const graph::Loop &n = loopAt(g.body, 0);
  EXPECT_EQ(n.tripCount, 2);
  std::vector<const graph::Op *> mms = opsOf(g, OpKind::Matmul);
  ASSERT_EQ(mms.size(), 3u);
  std::vector<const graph::Op *> loads = opsOf(g, OpKind::Load);
  EXPECT_EQ(loads.size(), 6u); // 3 moving tiles per n, 3 stationary tiles per m
  for (const graph::Op *op : mms) EXPECT_TRUE(op->accumulate);
}

TEST(TraceRegistry, BuiltInAddAndSoftmaxTrace) {
  const KernelInfo *add = Registry::instance().find("add");
  ASSERT_NE(add, nullptr);
  graph::KernelGraph ga = trace(*add, add->resolve({}));
  ASSERT_EQ(ga.tensors.size(), 3u);
  EXPECT_EQ(ga.tensors[0].shape, (Shape{256, 1024}));
  EXPECT_EQ(ga.loops, 2);
  EXPECT_EQ(loopAt(ga.body, 0).tripCount, 2);
  EXPECT_EQ(loopAt(loopAt(ga.body, 0).body, 0).tripCount, 1);
  EXPECT_EQ(opsOf(ga, OpKind::Load).size(), 2u);
  EXPECT_EQ(opsOf(ga, OpKind::Binary).size(), 1u);
  EXPECT_EQ(opsOf(ga, OpKind::Store).size(), 1u);

  const KernelInfo *sm = Registry::instance().find("softmax");
  ASSERT_NE(sm, nullptr);
  graph::KernelGraph gs = trace(*sm, sm->resolve({{"R", 384}, {"C", 64}}));
  EXPECT_EQ(gs.loops, 1);
  EXPECT_EQ(loopAt(gs.body, 0).tripCount, 3);
  EXPECT_EQ(opsOf(gs, OpKind::Reduce).size(), 2u);
  EXPECT_EQ(opsOf(gs, OpKind::Activation).size(), 1u);
  EXPECT_EQ(opsOf(gs, OpKind::Binary).size(), 2u);
}

TEST(TraceRegistry, TracingTwiceGivesTheSameGraph) {
  const KernelInfo *mm = Registry::instance().find("matmul");
  ASSERT_NE(mm, nullptr);
  graph::KernelGraph a = trace(*mm, mm->resolve({})), b = trace(*mm, mm->resolve({}));
  EXPECT_EQ(a.loops, b.loops);
  ASSERT_EQ(a.buffers.size(), b.buffers.size());
  for (size_t i = 0; i < a.buffers.size(); ++i) {
    EXPECT_EQ(a.buffers[i].name, b.buffers[i].name);
    EXPECT_EQ(a.buffers[i].shape, b.buffers[i].shape);
  }
  EXPECT_EQ(loopAt(a.body, 0).id, 0);
  EXPECT_EQ(loopAt(b.body, 0).id, 0);
}

} // namespace
} // namespace tsr
