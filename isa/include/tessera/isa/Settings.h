#pragma once
/// \file
/// An instruction's settings: every field of isa::Instruction besides its operands, each with one meaning. Which
/// settings an opcode reads is part of its definition (InstructionDef::settings, with NKI's name for each); the
/// rest keep their defaults. This is the one list that the compiler's `params` attributes, the trace and the ISA
/// reference walk, so a field added here is printed, parsed and traced everywhere.

#include "tessera/isa/Program.h"

#include <bit>
#include <cstdint>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

namespace tessera::isa {

enum class Setting : uint8_t {
  Alu, Alu1, Func, Accumulate, Reverse0, Reverse1, Negate, Mode,
  Scale, Bias, Value, OnFalse, Operand0, Operand1, Initial,
  ElementsPerIndex, ValidIndices, Pattern, Preserve, ShuffleMask,
};

/// How a setting's value is written: an ALU operation, an activation function, a flag, a real number, an integer,
/// an affine pattern, or a shuffle mask.
enum class SettingKind : uint8_t { Alu, Func, Flag, Real, Integer, Pattern, Mask };

/// A setting's value, of the type its kind says.
using SettingValue = std::variant<AluOp, ActFunc, bool, float, int64_t, AffinePattern, ShuffleMask>;

/// Every setting, in declaration order.
std::span<const Setting> allSettings();
/// The name Tessera's text gives `s` (the `params` of tile.inst and nc.inst, trace arguments): "alu", "scale",
/// "on_false"...
std::string_view key(Setting s);
/// The inverse of key(); nullopt for an unknown name.
std::optional<Setting> parseSetting(std::string_view key);
SettingKind kindOf(Setting s);

/// Whether two reals have the same bits: -0 is not 0, and a NaN is itself (a setting's value is data, not a number to
/// compare).
inline bool sameBits(float a, float b) { return std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b); }

SettingValue get(const Instruction &inst, Setting s);
/// Sets `s` of `inst` to `value`, which must be of `s`'s kind (a flag may be given as a bool, an integer kind as any
/// int64_t; mode is truncated to its 8 bits).
void set(Instruction &inst, Setting s, const SettingValue &value);
/// Whether `inst`'s `s` is what a default-constructed Instruction has.
bool isDefault(const Instruction &inst, Setting s);
/// `inst`'s `s` as text: "add", "exp", "true", "0.125", "-3", "[0, 1, -1, 0, 0, 0]" (base, partition step, steps),
/// "[31, 30, ..., 0]" (a shuffle mask, 255 for a partition kept).
std::string formatSetting(const Instruction &inst, Setting s);

} // namespace tessera::isa
