/// \file
/// stream_shuffle (nki.isa.nc_stream_shuffle): the quadrant semantics against a direct reading of NKI's words
/// (partition i of each dst quadrant copies partition mask[i] of the same src quadrant, 255 keeps it), a broadcast
/// of one partition, an in-place reversal, verify's rules (each with an input that breaks it), and the cost.

#include "TensorTestSupport.h"

#include "tessera/isa/Cost.h"
#include "tessera/isa/InstructionSet.h"

#include <gtest/gtest.h>

#include <string>

namespace tessera::isa {
namespace {

using tensortest::sameValue;
using tensortest::TestMemory;
using tensortest::tile;

const Target &trn2() {
  static const Target t = Target::find("trn2");
  return t;
}

/// A shuffle of src [srcParts, n] at SBUF byte 0 (from partition srcStart) into dst [dstParts, n] at byte 8192
/// (from partition dstStart), f32.
Instruction shuffle(uint32_t srcStart, uint32_t srcParts, uint32_t dstStart, uint32_t dstParts, int64_t n,
                    const ShuffleMask &mask) {
  Instruction inst;
  inst.op = Opcode::StreamShuffle;
  inst.shuffleMask = mask;
  inst.src0 = tile(MemSpace::Sbuf, DType::F32, srcStart, srcParts, 0, n);
  inst.dst = tile(MemSpace::Sbuf, DType::F32, dstStart, dstParts, 8192, n);
  return inst;
}

ShuffleMask reversed() {
  ShuffleMask m{};
  for (size_t i = 0; i < m.size(); ++i) m[i] = static_cast<uint8_t>(kShuffleMaskSize - 1 - i);
  return m;
}

/// Runs `inst` on random src and dst values and compares every element of dst with NKI's rule.
void expectShuffled(const Instruction &inst) {
  const Target &t = trn2();
  ASSERT_EQ(verifyInstruction(inst, Engine::Vector, &t), "");
  TestMemory mem(t);
  const std::vector<float> src = mem.fillRandom(inst.src0, 1, -10.0f, 10.0f);
  const std::vector<float> before = mem.fillRandom(inst.dst, 2, 20.0f, 30.0f);
  execute(inst, mem.memories());
  const int64_t n = inst.dst.freeElements();
  for (uint32_t p = 0; p < inst.dst.partitions; ++p) {
    const uint8_t from = inst.shuffleMask[p % 32];
    for (int64_t i = 0; i < n; ++i) {
      const float expected = from == kShuffleKeep ? before[p * n + i] : src[(p / 32 * 32 + from) * n + i];
      ASSERT_TRUE(sameValue(mem.read(inst.dst, p, i), expected)) << "dst[" << p << ", " << i << "]";
    }
  }
}

TEST(StreamShuffle, ReversesEachQuadrantWithOneMask) { expectShuffled(shuffle(0, 128, 0, 128, 40, reversed())); }

TEST(StreamShuffle, BroadcastsOnePartitionOntoAQuadrantElsewhere) {
  expectShuffled(shuffle(0, 1, 96, 32, 64, ShuffleMask{})); // partition 0 onto 96..127
  expectShuffled(shuffle(64, 1, 0, 32, 64, ShuffleMask{})); // partition 64 onto 0..31
}

TEST(StreamShuffle, KeepLeavesThosePartitionsOfDst) {
  ShuffleMask evens = reversed();
  for (size_t i = 0; i < evens.size(); i += 2) evens[i] = kShuffleKeep;
  expectShuffled(shuffle(0, 64, 64, 64, 16, evens));
}

TEST(StreamShuffle, InPlaceReadsTheWholeSourceFirst) {
  const Target &t = trn2();
  TestMemory mem(t);
  Instruction inst = shuffle(0, 32, 0, 32, 8, reversed());
  inst.dst = inst.src0;
  const std::vector<float> src = mem.fillRandom(inst.src0, 3, -1.0f, 1.0f);
  execute(inst, mem.memories());
  for (uint32_t p = 0; p < 32; ++p)
    for (int64_t i = 0; i < 8; ++i) ASSERT_TRUE(sameValue(mem.read(inst.dst, p, i), src[(31 - p) * 8 + i]));
}

TEST(StreamShuffle, VerifyRules) {
  const Target &t = trn2();
  ASSERT_EQ(verifyInstruction(shuffle(0, 128, 0, 128, 64, reversed()), Engine::Vector, &t), "");
  struct Case {
    std::string label;
    Instruction inst;
    std::string expected;
  };
  Instruction converts = shuffle(0, 32, 0, 32, 64, ShuffleMask{});
  converts.dst.dtype = DType::BF16;
  Instruction longer = shuffle(0, 32, 0, 32, 64, ShuffleMask{});
  longer.dst = tile(MemSpace::Sbuf, DType::F32, 0, 32, 8192, 65);
  ShuffleMask outside{};
  outside[3] = 32;
  Instruction hbm = shuffle(0, 32, 0, 32, 64, ShuffleMask{});
  hbm.src0.space = MemSpace::Hbm;
  const Case cases[] = {
      {"dtype", converts, "dst is bf16 but src is f32: nc_stream_shuffle does not convert"},
      {"elements", longer, "dst has 65 elements per partition but src has 64"},
      {"mask entry", shuffle(0, 32, 0, 32, 64, outside), "shuffle_mask[3] is 32: each entry is a partition"},
      {"64 active at 32", shuffle(32, 32, 0, 64, 64, ShuffleMask{}),
       "src starts at partition 32; with 64 active partitions"},
      {"96 active at 32", shuffle(0, 96, 32, 96, 64, ShuffleMask{}),
       "dst starts at partition 32; with 96 active partitions (the larger of src and dst, in whole quadrants of 32) "
       "it must start at 0"},
      {"one partition onto 128", shuffle(0, 1, 0, 128, 64, ShuffleMask{}),
       "partition 32 of dst copies partition 32 of src (shuffle_mask[0] = 0 in quadrant 1), but src has 1 "
       "partition"},
      {"from HBM", hbm, "src"},
  };
  for (const Case &c : cases) {
    const std::string message = verifyInstruction(c.inst, Engine::Vector, &t);
    EXPECT_NE(message.find(c.expected), std::string::npos) << c.label << ": " << message;
  }
  // Only the Vector engine runs it.
  EXPECT_NE(verifyInstruction(shuffle(0, 32, 0, 32, 64, ShuffleMask{}), Engine::GpSimd, &t)
                .find("cannot run on the gpsimd engine"),
            std::string::npos);
}

TEST(StreamShuffle, CostsMaxOfMinimumInitiationAndElementsOnVector) {
  const Target &t = trn2();
  const CostModel &c = t.cost;
  for (int64_t n : {1, 64, 512, 2048}) {
    const uint64_t expected = c.accessOverheadCycles + std::max<uint64_t>(c.minInitiationCycles, uint64_t(n));
    EXPECT_EQ(engineCycles(shuffle(0, 128, 0, 128, n, reversed()), Engine::Vector, t), expected) << n;
  }
}

} // namespace
} // namespace tessera::isa
