/// \file
/// The NkiCall helpers every definition's `nkiCall` uses.

#include "tessera/isa/NkiCall.h"

#include <fmt/format.h>

namespace tessera::isa {

const AccessPattern &operandIn(const Instruction &inst, Slot slot) {
  switch (slot) {
  case Slot::Dst: return inst.dst;
  case Slot::Dst2: return inst.dst2;
  case Slot::Src0: return inst.src0;
  case Slot::Src1: return inst.src1;
  case Slot::Src2: return inst.src2;
  }
  return inst.dst;
}

NkiCall &NkiCall::alu(std::string_view name, AluOp op) { return code(name, fmt::format("nl.{}", nkiName(op))); }

NkiCall &NkiCall::func(std::string_view name, ActFunc f) { return code(name, fmt::format("nl.{}", nkiName(f))); }

NkiCall &NkiCall::flag(std::string_view name, bool value) { return value ? code(name, "True") : *this; }

NkiCall &NkiCall::boolean(std::string_view name, bool value) { return code(name, value ? "True" : "False"); }

NkiCall &NkiCall::operandOr(std::string_view name, Slot slot, const Instruction &inst, float value) {
  return operandIn(inst, slot).partitions != 0 ? operand(name, slot) : real(name, value);
}

} // namespace tessera::isa
