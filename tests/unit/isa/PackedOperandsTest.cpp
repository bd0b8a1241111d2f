/// \file
/// Matmuls that reuse their moving operand through isa::PackedOperands give the bits of matmuls that decode it every
/// time, and an instruction that writes any byte of a kept operand (and only such an instruction) makes the next
/// matmul decode it again.

#include "InstructionTestSupport.h"

#include "tessera/isa/PackedOperands.h"
#include "tessera/isa/Semantics.h"

#include <gtest/gtest.h>

#include <cstring>

namespace tessera::isa {
namespace {

using testing::sbuf;
using testing::TestMemory;
using testing::tile;

/// psum[0:128, 0:512] (+)= stationary[128 x 128] at SBUF byte 0 ^T @ moving[128 x 512] at SBUF byte 4096 (bf16).
Instruction matmulInto(bool accumulate) {
  Instruction inst;
  inst.op = Opcode::Matmul;
  inst.accumulate = accumulate;
  inst.src0 = sbuf(DType::BF16, 0, 128, 0, 128);
  inst.src1 = sbuf(DType::BF16, 0, 128, 4096, 512);
  inst.dst = tile(MemSpace::Psum, DType::F32, 0, 128, 0, 512);
  return inst;
}

/// An instruction writing `dst` with `value` (a memset).
Instruction memset(const AccessPattern &dst, float value) {
  Instruction inst;
  inst.op = Opcode::Memset;
  inst.dst = dst;
  inst.value = value;
  return inst;
}

/// Runs `program` on two memories filled alike, one with a PackedOperands, and requires the same PSUM bytes.
void expectSameBitsWithAndWithoutKeeping(const std::vector<Instruction> &program) {
  TestMemory plain, kept;
  for (TestMemory *mem : {&plain, &kept}) {
    mem->fillRandom(sbuf(DType::BF16, 0, 128, 0, 128), 1);
    mem->fillRandom(sbuf(DType::BF16, 0, 128, 4096, 512), 2);
  }
  PackedOperands operands;
  Memories withKept = kept.memories();
  withKept.packedOperands = &operands;
  for (const Instruction &inst : program) {
    execute(inst, plain.memories());
    execute(inst, withKept);
  }
  EXPECT_EQ(std::memcmp(plain.psum.data(), kept.psum.data(), plain.psum.size()), 0);
}

TEST(PackedOperands, RepeatedMatmulsGiveTheSameBits) {
  expectSameBitsWithAndWithoutKeeping({matmulInto(false), matmulInto(true), matmulInto(true)});
}

TEST(PackedOperands, AWriteToTheMovingOperandIsSeenByTheNextMatmul) {
  // One element of one partition of the moving tile, then a whole partition of it: each must reach the next matmul.
  expectSameBitsWithAndWithoutKeeping({matmulInto(false), memset(sbuf(DType::BF16, 77, 1, 4096 + 2 * 300, 1), 3.0f),
                                       matmulInto(true), memset(sbuf(DType::BF16, 5, 1, 4096, 512), -1.0f),
                                       matmulInto(true)});
}

TEST(PackedOperands, OnlyWritesThatTouchAnEntryDropIt) {
  PackedOperands operands;
  const AccessPattern moving = sbuf(DType::BF16, 0, 64, 4096, 512); // partitions [0, 64), bytes [4096, 5120)
  operands.insert(moving).packed = {.k = 64, .n = 512};
  operands.written(sbuf(DType::BF16, 64, 64, 4096, 512)); // other partitions
  operands.written(sbuf(DType::BF16, 0, 64, 5120, 16));   // other bytes of the same partitions
  operands.written(tile(MemSpace::Psum, DType::F32, 0, 64, 4096, 512)); // another memory
  ASSERT_NE(operands.find(moving, 64, 512), nullptr);
  EXPECT_EQ(operands.find(moving, 512, 64), nullptr); // read as another shape: another entry
  operands.written(sbuf(DType::BF16, 63, 1, 5118, 1)); // its last byte
  EXPECT_EQ(operands.find(moving, 64, 512), nullptr);
}

TEST(PackedOperands, TheOldestEntriesGoPastTheBudget) {
  PackedOperands operands(/*budgetBytes=*/3 * 1024 * sizeof(float));
  for (int64_t i = 0; i < 4; ++i) {
    PackedOperands::Entry &entry = operands.insert(sbuf(DType::BF16, 0, 1, 1024 * i, 1024));
    entry.packed = {.k = 1, .n = 1024, .panels = std::vector<float>(1024)};
  }
  EXPECT_EQ(operands.find(sbuf(DType::BF16, 0, 1, 0, 1024), 1, 1024), nullptr);
  for (int64_t i = 1; i < 4; ++i)
    EXPECT_NE(operands.find(sbuf(DType::BF16, 0, 1, 1024 * i, 1024), 1, 1024), nullptr) << i;
}

} // namespace
} // namespace tessera::isa
