/// \file
/// dma_transpose through the whole simulator: a DMA queue runs it, it moves the transposed values, and it takes
/// the time of a dma_copy of the same bytes (its definition's cost: no separate transpose throughput is
/// published, so the DMA queue times both the same way).

#include "ProgramBuilder.h"

#include "tessera/sim/Simulator.h"

#include <gtest/gtest.h>

namespace tessera::sim {
namespace {

using isa::DType;
using isa::Engine;
using isa::MemSpace;
using testing::ProgramBuilder;

constexpr int64_t kRows = 128, kCols = 64;

/// One transfer of x [128, 64] (bf16) on dma0: a transpose into y [64, 128], or a plain copy into SBUF.
isa::Program oneTransfer(isa::Opcode op) {
  ProgramBuilder b(op == isa::Opcode::DmaTranspose ? "transpose" : "copy");
  const int32_t x = b.tensor("x", {kRows, kCols}, DType::BF16);
  const int32_t y = b.tensor("y", {kCols, kRows}, DType::BF16, /*isOutput=*/true);
  isa::Instruction inst;
  inst.op = op;
  inst.src0 = testing::hbmTile(x, DType::BF16, kCols, 0, kRows, 0, kCols);
  inst.dst = op == isa::Opcode::DmaTranspose ? testing::hbmTile(y, DType::BF16, kRows, 0, kCols, 0, kRows)
                                             : testing::onChip(MemSpace::Sbuf, DType::BF16, 0, kRows, 0, kCols);
  b.add(Engine::Dma, inst);
  return b.program;
}

TEST(DmaTranspose, MovesTheTransposedTile) {
  const std::vector<float> x = testing::randomValues(kRows * kCols, DType::BF16, 81);
  HbmImage hbm = {testing::encoded(DType::BF16, x), {}};
  const SimResult result = simulate(oneTransfer(isa::Opcode::DmaTranspose), testing::trn2(), hbm);
  std::vector<float> expected(kRows * kCols);
  for (int64_t i = 0; i < kRows; ++i)
    for (int64_t j = 0; j < kCols; ++j)
      expected[j * kRows + i] = x[i * kCols + j];
  EXPECT_EQ(testing::decoded(DType::BF16, hbm[1]), expected);
  EXPECT_EQ(result.instructions, 1u);
  ASSERT_EQ(result.streams.size(), 1u);
  EXPECT_EQ(result.streams[0].engine, Engine::Dma);
}

// A DMA transpose streams at dma.transpose_hbm_efficiency of a copy's rate (0.9 on trn2, NKI Trainium2
// architecture guide): past the fixed latency both pay, it takes a copy's streaming time / 0.9.
TEST(DmaTranspose, StreamsAtTheDocumentedShareOfACopy) {
  for (const char *name : {"trn2", "trn3"}) {
    // Streaming alone: without the fixed costs, which would hide this small transfer's streaming, and with HBM
    // out of the way (the transpose reads and writes HBM, twice the copy's HBM bytes).
    isa::Target target = isa::Target::find(name);
    target.dma.fixedLatencyNs = target.dma.descriptorNs = 0;
    target.dma.hbmGBps = 1e9;
    HbmImage transposeHbm = {testing::encoded(DType::BF16, std::vector<float>(kRows * kCols, 1.0f)), {}};
    HbmImage copyHbm = transposeHbm;
    const SimResult transpose = simulate(oneTransfer(isa::Opcode::DmaTranspose), target, transposeHbm);
    const SimResult copy = simulate(oneTransfer(isa::Opcode::DmaCopy), target, copyHbm);
    EXPECT_GT(transpose.timeNs, copy.timeNs) << name;
    EXPECT_NEAR(transpose.timeNs, copy.timeNs / target.dma.transposeHbmEfficiency, 1.0) << name;
  }
}

} // namespace
} // namespace tessera::sim
