#pragma once
/// \file
/// How a tsr::isa call records one instruction of the instruction set (internal to the DSL library). Each
/// tsr::isa function fills a Call with NKI's arguments and hands it to recordInstruction(), which checks it against the
/// instruction's definition (isa/InstructionSet.h), reporting misuse at the kernel's line, and records it.

#include "tessera/dsl/Tile.h"
#include "tessera/isa/Program.h"

#include <optional>
#include <source_location>

namespace tsr::detail {

/// One tsr::isa call: the instruction's opcode and settings, the engine the kernel chose, and its operand tiles.
struct IsaCall {
  tessera::isa::Instruction settings;          ///< opcode and parameters; operand patterns come from the tiles
  std::optional<tessera::isa::Engine> engine;  ///< NKI's engine= argument; else the definition's preferred one
  std::optional<Tile> dst, dst2;
  std::optional<Operand> src0, src1, src2;
};

/// Checks `call` (operands on chip and alive, shapes, spaces and dtypes by the instruction's own rules) and
/// records it as one instruction. `call.settings.op` names the instruction in errors ("tsr::isa::iota: ...").
void recordInstruction(const IsaCall &call, const std::source_location &loc);

} // namespace tsr::detail
