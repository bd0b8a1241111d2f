#include "InstructionShape.h"

#include <cstring>

namespace tessera::sim {

using isa::AccessPattern;
using isa::Instruction;

bool sameShape(const Instruction &a, const Instruction &b) {
  static_assert(offsetof(Instruction, dst) < offsetof(Instruction, dst2) &&
                offsetof(Instruction, dst2) < offsetof(Instruction, src0) &&
                offsetof(Instruction, src0) < offsetof(Instruction, src1) &&
                offsetof(Instruction, src1) < offsetof(Instruction, src2) &&
                offsetof(Instruction, src2) + sizeof(AccessPattern) <= kWorkBytes,
                "the operands lie in the work bytes, in this order");
  const auto *pa = reinterpret_cast<const unsigned char *>(&a), *pb = reinterpret_cast<const unsigned char *>(&b);
  size_t from = 0; // the bytes between two operands' offsets, compared a run at a time
  for (const AccessPattern Instruction::*operand : kOperands) {
    const size_t offset = static_cast<size_t>(reinterpret_cast<const unsigned char *>(&(a.*operand).offset) - pa);
    if (std::memcmp(pa + from, pb + from, offset - from) != 0)
      return false;
    from = offset + sizeof(AccessPattern::offset);
  }
  return std::memcmp(pa + from, pb + from, kWorkBytes - from) == 0;
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
