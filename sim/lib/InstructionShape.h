#pragma once
/// \file
/// An instruction's shape: its work (opcode, settings, operands) with the operands' offsets left out. A DMA queue's
/// transfers each move another tile, but of a few shapes, and what a transfer costs (isa::dmaTransferCost) and
/// which of its checks pass apart from its operands' bounds depend on its shape alone: ProgramChecks checks each
/// shape once, DmaQueue costs each once.

#include "tessera/isa/Program.h"

#include <cstddef>
#include <cstdint>

namespace tessera::sim {

/// The bytes of an Instruction that hold its work: everything before its waits, signals, location and step.
inline constexpr size_t kWorkBytes = offsetof(isa::Instruction, waitBegin);

/// The operands of an instruction, in Instruction's order.
inline constexpr isa::AccessPattern isa::Instruction::*kOperands[] = {
    &isa::Instruction::dst, &isa::Instruction::dst2, &isa::Instruction::src0, &isa::Instruction::src1,
    &isa::Instruction::src2};

/// Whether two instructions have the same shape: equal work bytes except their operands' offsets.
bool sameShape(const isa::Instruction &a, const isa::Instruction &b);

/// A hash of what instructions of one shape share; equal shapes hash alike.
uint64_t hashOfShape(const isa::Instruction &inst);

} // namespace tessera::sim
