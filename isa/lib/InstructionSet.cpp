/// \file
/// The instruction set assembled from the definitions in instructions/, and the checks every instruction shares.

#include "tessera/isa/InstructionSet.h"

#include "instructions/Common.h"
#include "tessera/isa/Error.h"
#include "tessera/isa/Family.h"

#include <fmt/format.h>

#include <array>
#include <cstdlib>
#include <cstdio>
#include <limits>
#include <type_traits>
#include <vector>

namespace tessera::isa {
namespace {

/// Every definition, indexed by opcode: the built-in ones, then those registered (registerInstruction). Built
/// once; a repeated opcode is a programming error caught at the first use, and InstructionSetTest checks that every
/// opcode has a definition.
struct Table {
  std::vector<InstructionDef> defs = std::vector<InstructionDef>(kOpcodeCount);
  std::vector<uint8_t> seen = std::vector<uint8_t>(kOpcodeCount); ///< bytes, not bits: definition() is hot
  std::vector<uint32_t> settingMasks = std::vector<uint32_t>(kOpcodeCount); ///< settings each opcode reads, a bit each
  std::vector<InstructionDef> defined; ///< every definition, in opcode order (instructionSet())

  Table() {
    // Room for every opcode there can be, so that registering one never moves the definitions that
    // definition() and instructionSet() handed out.
    constexpr size_t kMostOpcodes = size_t{std::numeric_limits<std::underlying_type_t<Opcode>>::max()} + 1;
    defs.reserve(kMostOpcodes);
    defined.reserve(kMostOpcodes);
    for (auto group : {instructions::dataMovementInstructions(), instructions::tensorEngineInstructions(),
                       instructions::elementwiseInstructions(), instructions::activationInstructions(),
                       instructions::reductionInstructions(), instructions::gatherInstructions(),
                       instructions::shuffleInstructions(),
                       instructions::tpuVectorInstructions(), instructions::tpuCoreInstructions()})
      for (const InstructionDef &def : group) {
        const auto index = static_cast<unsigned>(def.op);
        if (seen[index])
          die(fmt::format("opcode {} is defined twice", index));
        seen[index] = true;
        defs[index] = def;
        for (const SettingDef &setting : def.settings)
          settingMasks[index] |= bit(setting.setting);
      }
    for (unsigned i = 0; i < kOpcodeCount; ++i)
      if (seen[i])
        defined.push_back(defs[i]);
  }

  static constexpr uint32_t bit(Setting s) { return uint32_t{1} << static_cast<unsigned>(s); }

  [[noreturn]] static void die(const std::string &what) {
    std::fprintf(stderr, "tessera: internal error in the instruction set: %s\n", what.c_str());
    std::abort();
  }
};

[[gnu::always_inline]] inline Table &table() {
  static Table t;
  return t;
}

/// The number of a generation: "v3" -> 3, "v5e" -> 5, "7x" -> 7 (TPU7x has no "v"); 0 when there is none.
int generationNumber(std::string_view generation) {
  if (generation.starts_with('v'))
    generation.remove_prefix(1);
  int number = 0; // the leading digits, without allocating: the simulator asks for every instruction it checks
  for (char c : generation) {
    if (c < '0' || c > '9')
      break;
    number = number * 10 + (c - '0');
  }
  return number;
}

bool isDma(Opcode op) { return op == Opcode::DmaCopy || op == Opcode::DmaTranspose || op == Opcode::TpuDma; }

/// The family whose memories the operands of `def` must be in: its own; for an instruction of any family, the
/// target's (`targetFamily`), else the engine's; null when nothing says.
const Family *memoryFamily(const InstructionDef &def, std::optional<Engine> engine, const Family *targetFamily) {
  if (def.family != kAnyFamily)
    return findFamily(def.family);
  if (targetFamily)
    return targetFamily;
  if (!engine)
    return nullptr;
  for (const Family *family : families())
    if (*engine != Engine::Dma && family->engines().contains(*engine))
      return family;
  return nullptr;
}

std::string_view upperName(MemSpace space) {
  switch (space) {
  case MemSpace::Hbm: return "HBM";
  case MemSpace::Sbuf: return "SBUF";
  case MemSpace::Psum: return "PSUM";
  case MemSpace::Vmem: return "VMEM";
  case MemSpace::Smem: return "SMEM";
  }
  return "?";
}

/// The first operand slot `use` needs that `inst` lacks (no partitions), or null.
const char *missingOperand(const Instruction &inst, const OperandUse &use) {
  if (use.src0 && inst.src0.partitions == 0) return "src0";
  if (use.src1 && inst.src1.partitions == 0) return "src1";
  if (use.src2 && inst.src2.partitions == 0) return "src2";
  if ((use.writesDst || use.readsDst) && inst.dst.partitions == 0) return "dst";
  if (use.writesDst2 && inst.dst2.partitions == 0) return "dst2";
  return nullptr;
}

/// "" when every operand of compute instruction `inst` is in a memory `family`'s compute units reach.
std::string requireReachable(const Instruction &inst, const Family &family) {
  std::string problem;
  forEachOperand(inst, [&](const char *slot, const AccessPattern &ap, bool) {
    if (problem.empty() && !family.computeReaches(ap.space))
      problem = fmt::format("operand {} is in {}; {}", slot, upperName(ap.space), family.reachHint());
  });
  return problem;
}

/// "alu, alu1, operand0": the settings `def` reads.
std::string settingList(const InstructionDef &def) {
  std::string list;
  for (const SettingDef &setting : def.settings)
    list += fmt::format("{}{}", list.empty() ? "" : ", ", key(setting.setting));
  return list;
}

/// "" when every setting `inst` changed is one its definition reads.
std::string requireReadSettings(const Instruction &inst, const InstructionDef &def) {
  const uint32_t unread = changedSettings(inst) & ~table().settingMasks[static_cast<unsigned>(def.op)];
  if (unread == 0) [[likely]]
    return {};
  for (Setting s : allSettings())
    if (unread & Table::bit(s))
      return fmt::format("takes no setting '{}' (it is {}; {} reads {})", key(s), formatSetting(inst, s), def.name,
                         def.settings.empty() ? std::string("none") : settingList(def));
  return {};
}

} // namespace

uint32_t changedSettings(const Instruction &inst) {
  static const Instruction d;
  auto bit = [](Setting s, bool changed) { return changed ? Table::bit(s) : 0u; };
  // Field by field (not through Settings.h's variants): the simulator checks every instruction it runs.
  return bit(Setting::Alu, inst.alu != d.alu) | bit(Setting::Alu1, inst.alu1 != d.alu1) |
         bit(Setting::Func, inst.func != d.func) | bit(Setting::Accumulate, inst.accumulate != d.accumulate) |
         bit(Setting::Reverse0, inst.reverse0 != d.reverse0) | bit(Setting::Reverse1, inst.reverse1 != d.reverse1) |
         bit(Setting::Negate, inst.negate != d.negate) | bit(Setting::Mode, inst.mode != d.mode) |
         bit(Setting::Scale, !sameBits(inst.scale, d.scale)) | bit(Setting::Bias, !sameBits(inst.bias, d.bias)) |
         bit(Setting::Value, !sameBits(inst.value, d.value)) |
         bit(Setting::OnFalse, !sameBits(inst.onFalse, d.onFalse)) |
         bit(Setting::Operand0, !sameBits(inst.operand0, d.operand0)) |
         bit(Setting::Operand1, !sameBits(inst.operand1, d.operand1)) |
         bit(Setting::Initial, !sameBits(inst.initial, d.initial)) |
         bit(Setting::ElementsPerIndex, inst.elementsPerIndex != d.elementsPerIndex) |
         bit(Setting::ValidIndices, inst.validIndices != d.validIndices) |
         bit(Setting::Pattern, !(inst.pattern == d.pattern)) | bit(Setting::Preserve, inst.preserve != d.preserve) |
         bit(Setting::ShuffleMask, inst.shuffleMask != d.shuffleMask);
}

bool readsSetting(const InstructionDef &def, Setting s) {
  return (table().settingMasks[static_cast<unsigned>(def.op)] & Table::bit(s)) != 0;
}

std::string_view name(Category c) {
  switch (c) {
  case Category::Matmul: return "matmul";
  case Category::Elementwise: return "elementwise";
  case Category::Activation: return "activation";
  case Category::Reduction: return "reduction";
  case Category::Copy: return "copy";
  case Category::Fill: return "fill";
  case Category::Dma: return "dma";
  case Category::Print: return "print";
  case Category::Control: return "control";
  }
  return "?";
}

bool runsOnFamily(const InstructionDef &def, std::string_view family) {
  return def.family == kAnyFamily || def.family == family;
}

const InstructionDef &definition(Opcode op) {
  const auto index = static_cast<unsigned>(op);
  const Table &t = table();
  if (index >= t.seen.size() || !t.seen[index]) [[unlikely]]
    Table::die(fmt::format("opcode {} has no definition", index));
  return t.defs[index];
}

std::span<const InstructionDef> instructionSet() { return table().defined; }

Opcode registerInstruction(InstructionDef def) {
  Table &t = table();
  if (def.name.empty() || parseOpcode(def.name))
    throw Error(fmt::format("registerInstruction: '{}' {}", def.name,
                            def.name.empty() ? "has no name" : "is already an instruction"));
  if (t.defs.size() == t.defs.capacity())
    throw Error("registerInstruction: no opcode is left");
  const auto op = static_cast<Opcode>(t.defs.size());
  def.op = op;
  uint32_t mask = 0;
  for (const SettingDef &setting : def.settings)
    mask |= Table::bit(setting.setting);
  t.defs.push_back(def);
  t.seen.push_back(true);
  t.settingMasks.push_back(mask);
  t.defined.push_back(def);
  return op;
}

std::string generationLabel(std::string_view family, std::string_view generation) {
  if (const Family *f = findFamily(family))
    return f->generationLabel(generation);
  return fmt::format("{} {}", family, generation);
}

bool generationAtLeast(const Target &target, std::string_view since) {
  return generationNumber(target.generation) >= generationNumber(since);
}

std::string verifyInstruction(const Instruction &inst, std::optional<Engine> engine, const Target *target) {
  const InstructionDef &def = definition(inst.op);
  if (engine && !def.engines.contains(*engine))
    return fmt::format("cannot run on the {} engine", name(*engine));
  if (target && !runsOnFamily(def, target->family))
    return fmt::format("is an instruction of the {} family; target {} is of the {} family (use a {} target)",
                       def.family, target->name, target->family, def.family);
  if (target && !generationAtLeast(*target, def.since))
    return fmt::format("exists from {} on; target {} is {}{}", generationLabel(target->family, def.since),
                       target->name, generationLabel(target->family, target->generation),
                       def.sinceSource.empty() ? "" : fmt::format(" [rule {}.generation: {}]", def.name, def.sinceSource));
  if (const char *missing = missingOperand(inst, def.use(inst))) [[unlikely]]
    return fmt::format("needs operand {}", missing);
  const Family *targetFamily = target ? &familyOf(*target) : nullptr;
  if (const Family *family = memoryFamily(def, engine, targetFamily); family && !isDma(def.op))
    if (std::string problem = requireReachable(inst, *family); !problem.empty())
      return problem;
  if (targetFamily)
    if (std::string problem = targetFamily->checkOperands(inst, *target); !problem.empty())
      return problem;
  if (engine == Engine::GpSimd) {
    std::string psum;
    forEachOperand(inst, [&](const char *slot, const AccessPattern &ap, bool) {
      if (psum.empty() && ap.space == MemSpace::Psum)
        psum = fmt::format("operand {} is in PSUM, which the GpSimd engine cannot reach", slot);
    });
    if (!psum.empty())
      return psum;
  }
  if (std::string own = def.verify(inst, target); !own.empty())
    return own;
  // After def.verify, which rejects a mode the instruction does not define.
  if (engine && def.modeEngine && def.modeEngine(inst) != *engine)
    return fmt::format("mode {} is the {} engine's form, but the instruction is on the {} engine", inst.mode,
                       name(def.modeEngine(inst)), name(*engine));
  if (std::string unread = requireReadSettings(inst, def); !unread.empty())
    return unread;
  // With no engine named, the rules hold for the one the compiler would pick.
  for (const Rule &rule : def.rules)
    if (std::string broken = rule.check(inst, engine.value_or(def.preferredEngine), target); !broken.empty())
      [[unlikely]] return fmt::format("{} [rule {}: {}]", broken, rule.id, rule.source);
  return {};
}

namespace instructions {

std::string requireOnChip(const char *slot, const AccessPattern &ap) {
  if (ap.space == MemSpace::Hbm)
    return fmt::format("{} must be on chip (SBUF or PSUM; on a TPU, VMEM), not in HBM", slot);
  return {};
}

std::string requireSameShape(const char *a, const AccessPattern &x, const char *b, const AccessPattern &y) {
  if (x.partitions != y.partitions || x.freeElements() != y.freeElements())
    return fmt::format("{} is [{}, {}] but {} is [{}, {}]; they must match", a, x.partitions, x.freeElements(), b,
                       y.partitions, y.freeElements());
  return {};
}

std::string requirePerPartition(const char *slot, const AccessPattern &ap, uint32_t rows) {
  if (ap.partitions != rows || ap.freeElements() != 1)
    return fmt::format("{} must be a [{}, 1] tile (one value per partition), not [{}, {}]", slot, rows,
                       ap.partitions, ap.freeElements());
  return {};
}

OperandUse readsPresentSources(const Instruction &inst) {
  return {.src0 = present(inst.src0), .src1 = present(inst.src1), .src2 = present(inst.src2)};
}

} // namespace instructions
} // namespace tessera::isa
