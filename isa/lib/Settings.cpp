/// \file
/// The settings of isa::Instruction, each tied to its field once here.

#include "tessera/isa/Settings.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>

namespace tessera::isa {
namespace {

struct SettingInfo {
  Setting setting;
  std::string_view key;
  SettingKind kind;
};

constexpr std::array kSettings = {
    SettingInfo{Setting::Alu, "alu", SettingKind::Alu},
    SettingInfo{Setting::Alu1, "alu1", SettingKind::Alu},
    SettingInfo{Setting::Func, "func", SettingKind::Func},
    SettingInfo{Setting::Accumulate, "accumulate", SettingKind::Flag},
    SettingInfo{Setting::Reverse0, "reverse0", SettingKind::Flag},
    SettingInfo{Setting::Reverse1, "reverse1", SettingKind::Flag},
    SettingInfo{Setting::Negate, "negate", SettingKind::Flag},
    SettingInfo{Setting::Mode, "mode", SettingKind::Integer},
    SettingInfo{Setting::Scale, "scale", SettingKind::Real},
    SettingInfo{Setting::Bias, "bias", SettingKind::Real},
    SettingInfo{Setting::Value, "value", SettingKind::Real},
    SettingInfo{Setting::OnFalse, "on_false", SettingKind::Real},
    SettingInfo{Setting::Operand0, "operand0", SettingKind::Real},
    SettingInfo{Setting::Operand1, "operand1", SettingKind::Real},
    SettingInfo{Setting::Initial, "initial", SettingKind::Real},
    SettingInfo{Setting::ElementsPerIndex, "elements_per_index", SettingKind::Integer},
    SettingInfo{Setting::ValidIndices, "valid_indices", SettingKind::Integer},
    SettingInfo{Setting::Pattern, "pattern", SettingKind::Pattern},
    SettingInfo{Setting::Preserve, "preserve", SettingKind::Flag},
    SettingInfo{Setting::ShuffleMask, "shuffle_mask", SettingKind::Mask},
};

constexpr std::array<Setting, kSettings.size()> kAll = [] {
  std::array<Setting, kSettings.size()> all{};
  for (size_t i = 0; i < kSettings.size(); ++i)
    all[i] = kSettings[i].setting;
  return all;
}();

constexpr const SettingInfo &info(Setting s) { return kSettings[static_cast<size_t>(s)]; }

static_assert([] {
  for (size_t i = 0; i < kSettings.size(); ++i)
    if (static_cast<size_t>(kSettings[i].setting) != i)
      return false;
  return true;
}(), "kSettings is indexed by Setting");

/// The field that holds a real-valued setting.
float Instruction::*realField(Setting s) {
  switch (s) {
  case Setting::Scale: return &Instruction::scale;
  case Setting::Bias: return &Instruction::bias;
  case Setting::Value: return &Instruction::value;
  case Setting::OnFalse: return &Instruction::onFalse;
  case Setting::Operand0: return &Instruction::operand0;
  case Setting::Operand1: return &Instruction::operand1;
  default: return &Instruction::initial;
  }
}

bool Instruction::*flagField(Setting s) {
  switch (s) {
  case Setting::Accumulate: return &Instruction::accumulate;
  case Setting::Reverse0: return &Instruction::reverse0;
  case Setting::Reverse1: return &Instruction::reverse1;
  case Setting::Preserve: return &Instruction::preserve;
  default: return &Instruction::negate;
  }
}

} // namespace

std::span<const Setting> allSettings() { return kAll; }

std::string_view key(Setting s) { return info(s).key; }

SettingKind kindOf(Setting s) { return info(s).kind; }

std::optional<Setting> parseSetting(std::string_view key) {
  for (const SettingInfo &i : kSettings)
    if (i.key == key)
      return i.setting;
  return std::nullopt;
}

SettingValue get(const Instruction &inst, Setting s) {
  switch (s) {
  case Setting::Alu: return inst.alu;
  case Setting::Alu1: return inst.alu1;
  case Setting::Func: return inst.func;
  case Setting::Mode: return int64_t{inst.mode};
  case Setting::ElementsPerIndex: return inst.elementsPerIndex;
  case Setting::ValidIndices: return inst.validIndices;
  case Setting::Pattern: return inst.pattern;
  case Setting::ShuffleMask: return inst.shuffleMask;
  default: break;
  }
  if (info(s).kind == SettingKind::Flag)
    return inst.*flagField(s);
  return inst.*realField(s);
}

void set(Instruction &inst, Setting s, const SettingValue &value) {
  switch (s) {
  case Setting::Alu: inst.alu = std::get<AluOp>(value); return;
  case Setting::Alu1: inst.alu1 = std::get<AluOp>(value); return;
  case Setting::Func: inst.func = std::get<ActFunc>(value); return;
  case Setting::Mode: inst.mode = static_cast<uint8_t>(std::get<int64_t>(value)); return;
  case Setting::ElementsPerIndex: inst.elementsPerIndex = std::get<int64_t>(value); return;
  case Setting::ValidIndices: inst.validIndices = std::get<int64_t>(value); return;
  case Setting::Pattern: inst.pattern = std::get<AffinePattern>(value); return;
  case Setting::ShuffleMask: inst.shuffleMask = std::get<ShuffleMask>(value); return;
  default: break;
  }
  if (info(s).kind == SettingKind::Flag)
    inst.*flagField(s) = std::get<bool>(value);
  else
    inst.*realField(s) = std::get<float>(value);
}

bool isDefault(const Instruction &inst, Setting s) {
  static const Instruction defaults;
  if (kindOf(s) == SettingKind::Real)
    return sameBits(std::get<float>(get(inst, s)), std::get<float>(get(defaults, s)));
  return get(inst, s) == get(defaults, s);
}

std::string formatSetting(const Instruction &inst, Setting s) {
  const SettingValue v = get(inst, s);
  switch (kindOf(s)) {
  case SettingKind::Alu: return std::string(name(std::get<AluOp>(v)));
  case SettingKind::Func: return std::string(name(std::get<ActFunc>(v)));
  case SettingKind::Flag: return std::get<bool>(v) ? "true" : "false";
  case SettingKind::Real: return fmt::format("{}", std::get<float>(v));
  case SettingKind::Integer: return fmt::format("{}", std::get<int64_t>(v));
  case SettingKind::Pattern: {
    const AffinePattern &p = std::get<AffinePattern>(v);
    return fmt::format("[{}, {}, {}, {}, {}, {}]", p.base, p.partitionStep, p.steps[0], p.steps[1], p.steps[2],
                       p.steps[3]);
  }
  case SettingKind::Mask: return fmt::format("[{}]", fmt::join(std::get<ShuffleMask>(v), ", "));
  }
  return {};
}

} // namespace tessera::isa
