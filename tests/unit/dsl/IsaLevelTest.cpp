/// \file
/// What tracing records for device_print, ndarray and the tsr::isa level (ops as written, hand-placed tiles,
/// manual_sync scopes with semaphores), and the errors each reports at the user's line.

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
using graph::OpKind;

/// Every op of the kernel's top-level block and its loops, in program order.
void collect(const graph::Block &b, std::vector<graph::Op> &out) {
  for (const graph::Stmt &s : b.stmts) {
    if (auto *op = std::get_if<graph::Op>(&s)) out.push_back(*op);
    if (auto *loop = std::get_if<graph::Loop>(&s)) collect(loop->body, out);
  }
}
std::vector<graph::Op> opsOf(const graph::KernelGraph &g) {
  std::vector<graph::Op> ops;
  collect(g.body, ops);
  return ops;
}

TEST(DevicePrint, RecordsAReaderWithItsNameAndLine) {
  int line = 0;
  auto k = kernelOf({input("x", {128, 64}, f32)}, [&](Hbm x) {
    Tile t = load(x.tile(0, 0, {128, 64}));
    line = __LINE__ + 1;
    device_print("x tile", t);
  });
  graph::KernelGraph g = trace(k, {});
  std::vector<graph::Op> ops = opsOf(g);
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(ops[1].kind, OpKind::Print);
  EXPECT_EQ(ops[1].text, "x tile");
  EXPECT_EQ(ops[1].dst, -1);
  EXPECT_EQ(ops[1].srcs, std::vector<int>{ops[0].dst});
  EXPECT_EQ(ops[1].loc.line, static_cast<uint32_t>(line));
}

TEST(DevicePrint, OfAnHbmTensorIsAnError) {
  int line = 0;
  auto k = kernelOf({input("x", {128, 64}, f32)}, [&](Hbm x) {
    line = __LINE__ + 1;
    device_print("x", x);
  });
  tessera::Error e = traceError(k);
  EXPECT_EQ(e.message(), "device_print: the tile operand is in HBM; engines read only SBUF and PSUM");
  expectAt(e, line);
}

TEST(Ndarray, AllocatesWithoutWriting) {
  auto k = kernelOf({input("x", {128, 64}, f32)}, [](Hbm) {
    Tile s = ndarray<bf16>({128, 64});
    Tile p = ndarray(f32, {128, 512}, MemSpace::Psum);
    EXPECT_EQ(s.space(), MemSpace::Sbuf);
    EXPECT_EQ(s.dtype(), bf16);
    EXPECT_EQ(p.space(), MemSpace::Psum);
  });
  graph::KernelGraph g = trace(k, {});
  EXPECT_EQ(g.buffers.size(), 2u);
  EXPECT_TRUE(opsOf(g).empty());
  EXPECT_EQ(g.buffers[0].offset, -1) << "placed by the compiler";
}

TEST(Ndarray, InHbmOrBeyondAPsumBankIsAnError) {
  int hbmLine = 0, bankLine = 0;
  tessera::Error hbm = traceError(kernelOf({input("x", {128, 64}, f32)}, [&](Hbm) {
    hbmLine = __LINE__ + 1;
    (void)ndarray(f32, {128, 64}, MemSpace::Hbm);
  }));
  expectAt(hbm, hbmLine);
  tessera::Error bank = traceError(kernelOf({input("x", {128, 64}, f32)}, [&](Hbm) {
    bankLine = __LINE__ + 1;
    (void)ndarray(f32, {128, 1024}, MemSpace::Psum);
  }));
  EXPECT_NE(bank.message().find("more than one PSUM bank"), std::string::npos) << bank.message();
  expectAt(bank, bankLine);
}

TEST(IsaLevel, MemsetAndNcMatmulAreRecordedAsWritten) {
  auto k = kernelOf({input("a", {128, 128}, bf16), input("b", {128, 512}, bf16)}, [](Hbm a, Hbm b) {
    Tile acc = ndarray(f32, {128, 512}, MemSpace::Psum);
    isa::memset(acc, 0.0f);
    isa::nc_matmul(acc, load(a.tile(0, 0, {128, 128})), load(b.tile(0, 0, {128, 512})), true);
    isa::nc_matmul(acc, load(a.tile(0, 0, {128, 128})), load(b.tile(0, 0, {128, 512})), false);
  });
  std::vector<graph::Op> ops = opsOf(trace(k, {}));
  ASSERT_EQ(ops.size(), 7u);
  EXPECT_EQ(ops[0].kind, OpKind::Memset);
  EXPECT_TRUE(ops[0].isaLevel);
  EXPECT_EQ(ops[3].kind, OpKind::Matmul);
  EXPECT_TRUE(ops[3].isaLevel);
  EXPECT_TRUE(ops[3].accumulate);
  EXPECT_FALSE(ops[6].accumulate);
  EXPECT_FALSE(ops[1].isaLevel) << "a load is a language-level op";
  for (const graph::Op &op : ops) EXPECT_FALSE(op.manual);
}

TEST(IsaLevel, NcMatmulChecksItsOperandsAndAccumulator) {
  int line = 0;
  tessera::Error e = traceError(kernelOf({input("a", {128, 128}, bf16)}, [&](Hbm a) {
    Tile s = load(a.tile(0, 0, {128, 128}));
    Tile notPsum = ndarray<f32>({128, 128});
    line = __LINE__ + 1;
    isa::nc_matmul(notPsum, s, s, false);
  }));
  EXPECT_EQ(e.message(), "matmul: accumulates into a f32 sbuf tile; expected an f32 PSUM tile");
  expectAt(e, line);
}

TEST(IsaLevel, SbufTileAtKeepsItsOffset) {
  auto k = kernelOf({input("x", {128, 64}, f32)}, [](Hbm) {
    Tile t = isa::sbuf_tile_at<f32>(1 << 20, {128, 64}); // far past any SBUF: the simulator's to report
    EXPECT_EQ(t.space(), MemSpace::Sbuf);
  });
  graph::KernelGraph g = trace(k, {});
  ASSERT_EQ(g.buffers.size(), 1u);
  EXPECT_EQ(g.buffers[0].offset, 1 << 20);
}

TEST(IsaLevel, SbufTileAtNeedsAnAlignedNonNegativeOffset) {
  int line = 0;
  tessera::Error e = traceError(kernelOf({input("x", {128, 64}, f32)}, [&](Hbm) {
    line = __LINE__ + 1;
    (void)isa::sbuf_tile_at<f32>(6, {128, 64});
  }));
  EXPECT_EQ(e.message(), "sbuf_tile_at: offset 6 must be a non-negative multiple of 4 bytes");
  expectAt(e, line);
}

TEST(ManualSync, MarksTheOpsOfItsScopeAndRecordsSemaphores) {
  auto k = kernelOf({input("x", {256, 64}, f32), output("y", {256, 64}, f32)}, [](Hbm x, Hbm y) {
    Tile before = load(x.tile(0, 0, {128, 64}));
    {
      isa::manual_sync sync;
      isa::Semaphore loaded, done;
      EXPECT_EQ(loaded.id(), 0);
      EXPECT_EQ(done.id(), 1);
      for (auto i : affine_range(2)) {
        Tile t = load(x.tile(i, 0, {128, 64}));
        isa::signal(loaded);
        isa::wait(loaded, i + 1);
        store(y.tile(i, 0, {128, 64}), t);
      }
    }
    (void)exp(before);
  });
  graph::KernelGraph g = trace(k, {});
  EXPECT_EQ(g.semaphores, 2);
  std::vector<graph::Op> ops = opsOf(g);
  ASSERT_EQ(ops.size(), 6u);
  EXPECT_FALSE(ops[0].manual);
  for (size_t i = 1; i <= 4; ++i) EXPECT_TRUE(ops[i].manual) << i;
  EXPECT_FALSE(ops[5].manual) << "the scope ended";
  EXPECT_EQ(ops[2].kind, OpKind::Signal);
  EXPECT_EQ(ops[2].semaphore, 0);
  EXPECT_EQ(ops[3].kind, OpKind::Wait);
  EXPECT_EQ(ops[3].semaphore, 0);
  EXPECT_EQ(ops[3].count.constant, 1);
  ASSERT_EQ(ops[3].count.terms.size(), 1u);
  EXPECT_EQ(ops[3].count.terms[0].second, 1);
}

TEST(ManualSync, SignalAndWaitOutsideAScopeAreErrors) {
  int signalLine = 0, waitLine = 0;
  tessera::Error s = traceError(kernelOf({input("x", {128, 64}, f32)}, [&](Hbm) {
    isa::Semaphore sem;
    signalLine = __LINE__ + 1;
    isa::signal(sem);
  }));
  EXPECT_EQ(s.message(), "tsr::isa::signal outside a tsr::isa::manual_sync scope");
  EXPECT_FALSE(s.hint().empty());
  expectAt(s, signalLine);
  tessera::Error w = traceError(kernelOf({input("x", {128, 64}, f32)}, [&](Hbm) {
    isa::Semaphore sem;
    { isa::manual_sync sync; }
    waitLine = __LINE__ + 1;
    isa::wait(sem, 1);
  }));
  EXPECT_EQ(w.message(), "tsr::isa::wait outside a tsr::isa::manual_sync scope");
  expectAt(w, waitLine);
}

TEST(ManualSync, AWaitForLessThanOneSignalIsAnError) {
  int line = 0;
  tessera::Error e = traceError(kernelOf({input("x", {128, 64}, f32)}, [&](Hbm) {
    isa::manual_sync sync;
    isa::Semaphore sem;
    for (auto i : affine_range(3)) {
      line = __LINE__ + 1;
      isa::wait(sem, 2 - i);
    }
  }));
  EXPECT_EQ(e.message(), "tsr::isa::wait: the count can be 0; a wait is for a count of at least 1");
  expectAt(e, line);
}

} // namespace
} // namespace tsr
