#pragma once
/// \file
/// One NKI call as an instruction's definition spells it: the `nki.isa` (or `nki.language`) keyword arguments in the
/// order NKI's signature lists them. Each definition's `nki` function writes its call through this interface, so
/// what NKI names an operand or a setting is said once, beside the instruction's semantics and cost. The NKI emitter
/// implements it (operands become the kernel's buffers and slices); InstructionSetTest implements it to check
/// every definition against the NKI API manifest (hw-backends/nki/).

#include "tessera/isa/Program.h"
#include "tessera/isa/Target.h"

#include <string>
#include <string_view>
#include <vector>

namespace tessera::isa {

/// An operand slot of isa::Instruction.
enum class Slot : uint8_t { Dst, Dst2, Src0, Src1, Src2 };
/// The operand of `inst` in `slot`.
const AccessPattern &operandIn(const Instruction &inst, Slot slot);

class NkiCall {
public:
  virtual ~NkiCall() = default;

  /// `name=` the operand in `slot`, as the kernel names that memory.
  virtual NkiCall &operand(std::string_view name, Slot slot) = 0;
  /// `name=` a Python number.
  virtual NkiCall &real(std::string_view name, float value) = 0;
  virtual NkiCall &integer(std::string_view name, int64_t value) = 0;
  /// `name=` Python source as it is ("nl.add", "(0, 0)", "nisa.matmul_perf_mode.double_row").
  virtual NkiCall &code(std::string_view name, std::string text) = 0;
  /// `name=nisa.engine.X`, X the engine the instruction runs on.
  virtual NkiCall &engine(std::string_view name = "engine") = 0;
  /// `name=` the instruction's text (a print's label), as a Python string.
  virtual NkiCall &label(std::string_view name) = 0;
  /// `name=` the operand in `slot` viewed with shape `shape` (a [K, 2M] tile as NKI's [K, 2, M] operand).
  virtual NkiCall &reshaped(std::string_view name, Slot slot, std::vector<int64_t> shape) = 0;
  /// The machine the call is for (the tensor engine's rows for tile_position).
  virtual const Target &target() const = 0;

  // Spelled through the ones above.
  NkiCall &alu(std::string_view name, AluOp op);         ///< nl.add, nl.maximum...
  NkiCall &func(std::string_view name, ActFunc f);       ///< nl.exp, nl.copy...
  NkiCall &flag(std::string_view name, bool value);      ///< `name=True`, nothing when false
  NkiCall &boolean(std::string_view name, bool value);   ///< `name=True` or `name=False`
  /// The tile in `slot` when the instruction has one there, else the number `value`.
  NkiCall &operandOr(std::string_view name, Slot slot, const Instruction &inst, float value);
};

} // namespace tessera::isa
