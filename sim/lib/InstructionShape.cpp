#include "InstructionShape.h"

#include <array>
#include <cstring>

namespace tessera::sim {

using isa::AccessPattern;
using isa::Instruction;

namespace {

constexpr size_t kWords = kWorkBytes / 8;

/// Per 8-byte word of the work bytes: all ones, or zero for an operand's offset.
constexpr std::array<uint64_t, kWords> shapeMask() {
  std::array<uint64_t, kWords> mask{};
  mask.fill(~uint64_t{0});
  const size_t operands[] = {offsetof(Instruction, dst), offsetof(Instruction, dst2), offsetof(Instruction, src0),
                             offsetof(Instruction, src1), offsetof(Instruction, src2)};
  for (size_t operand : operands)
    mask[(operand + offsetof(AccessPattern, offset)) / 8] = 0;
  return mask;
}

constexpr std::array<uint64_t, kWords> kShapeMask = shapeMask();

} // namespace

bool sameShape(const Instruction &a, const Instruction &b) {
  static_assert(offsetof(Instruction, src2) + sizeof(AccessPattern) <= kWorkBytes,
                "the operands lie in the work bytes");
  static_assert(offsetof(AccessPattern, offset) % 8 == 0 && alignof(Instruction) >= 8 &&
                    (offsetof(Instruction, dst) | offsetof(Instruction, dst2) | offsetof(Instruction, src0) |
                     offsetof(Instruction, src1) | offsetof(Instruction, src2)) % 8 == 0,
                "each operand's offset is a whole aligned word");
  uint64_t wa[kWords], wb[kWords];
  std::memcpy(wa, &a, sizeof wa); // whole words, which the compiler compares in vector registers
  std::memcpy(wb, &b, sizeof wb);
  uint64_t differ = 0;
  for (size_t w = 0; w < kWords; ++w)
    differ |= (wa[w] ^ wb[w]) & kShapeMask[w];
  if (differ != 0)
    return false;
  const auto *pa = reinterpret_cast<const unsigned char *>(&a), *pb = reinterpret_cast<const unsigned char *>(&b);
  return std::memcmp(pa + kWords * 8, pb + kWords * 8, kWorkBytes - kWords * 8) == 0;
}

uint64_t hashOfShape(const Instruction &inst) {
  uint64_t head;
  std::memcpy(&head, &inst, sizeof head); // op, alu, alu1, func and the first flags
  uint64_t h = (head ^ 0x9e3779b97f4a7c15ull) * 0xff51afd7ed558ccdull;
  for (const AccessPattern Instruction::*operand : kOperands) {
    const AccessPattern &ap = inst.*operand;
    h = (h ^ (uint64_t{ap.partitions} << 44) ^ (uint64_t{ap.partitionStart} << 32) ^
         static_cast<uint64_t>(static_cast<uint32_t>(ap.tensor)) ^ (static_cast<uint64_t>(ap.sizes[0]) << 12)) *
        0xff51afd7ed558ccdull;
  }
  return h ^ (h >> 32);
}

} // namespace tessera::sim
