#include "tessera/IsaReference.h"

#include "tessera/Driver.h"
#include "tessera/isa/Family.h"
#include "tessera/isa/InstructionSet.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

namespace tessera::driver {
namespace {

constexpr isa::Engine kEngines[] = {isa::Engine::Tensor, isa::Engine::Vector, isa::Engine::Scalar,
                                    isa::Engine::GpSimd, isa::Engine::Mxu,    isa::Engine::Vpu,
                                    isa::Engine::ScalarUnit, isa::Engine::Dma};

/// The families in the order the reference lists them, then print (of any family) in its own group.
std::vector<std::string_view> referenceGroups() {
  std::vector<std::string_view> groups;
  for (const isa::Family *family : isa::families()) groups.push_back(family->name());
  groups.push_back(isa::kAnyFamily);
  return groups;
}

std::string_view familyTitle(std::string_view family) {
  if (const isa::Family *f = isa::findFamily(family)) return f->title();
  return "Both families";
}

std::vector<std::string> enginesOf(const isa::InstructionDef &def) {
  std::vector<std::string> names;
  for (isa::Engine e : kEngines)
    if (def.engines.contains(e)) names.emplace_back(isa::name(e));
  return names;
}

/// Where the generations of `def` start: "NeuronCore-v2"; for an instruction of any family, each family's: the
/// generation it names is the first family's, and every generation of the others.
std::string sinceLabel(const isa::InstructionDef &def) {
  if (def.family != isa::kAnyFamily) return isa::generationLabel(def.family, def.since);
  std::string label = isa::families().front()->generationLabel(def.since);
  for (const isa::Family *family : isa::families().subspan(1)) label += fmt::format("; every {}", family->title());
  return label;
}

/// The definitions to print: those `target`'s family runs (all without a target), or the one named `only` (an
/// InputError when there is none, or when it is another family's).
std::vector<const isa::InstructionDef *> selected(const isa::Target *target, const std::string &only) {
  std::vector<const isa::InstructionDef *> defs;
  for (const isa::InstructionDef &def : isa::instructionSet()) {
    if (!only.empty() && def.name != only && !def.nki.ends_with("." + only)) continue;
    if (!target || isa::runsOnFamily(def, target->family)) {
      defs.push_back(&def);
      continue;
    }
    if (def.name == only)
      throw InputError(fmt::format("{} is an instruction of the {} family; target {} is of the {} family", only,
                                   def.family, target->name, target->family));
  }
  if (defs.empty()) throw InputError(fmt::format("no instruction is named '{}' (`tessera isa` lists them)", only));
  return defs;
}

std::string coefficientValue(double v) { return v == static_cast<int64_t>(v) ? fmt::format("{}", int64_t(v)) : fmt::format("{}", v); }

/// "alu (op0), operand0 (operand0)": the settings `def` reads, with the vendor's names.
std::string settingsOf(const isa::InstructionDef &def) {
  std::vector<std::string> items;
  for (const isa::SettingDef &setting : def.settings)
    items.push_back(fmt::format("{} ({})", isa::key(setting.setting), setting.vendorName));
  return fmt::format("{}", fmt::join(items, ", "));
}

/// The rules of `def`, including the generation it exists from when a vendor page says so.
std::vector<std::pair<std::string, std::string>> rulesOf(const isa::InstructionDef &def) {
  std::vector<std::pair<std::string, std::string>> rules;
  if (!def.sinceSource.empty()) rules.emplace_back(fmt::format("{}.generation", def.name), std::string(def.sinceSource));
  for (const isa::Rule &rule : def.rules) rules.emplace_back(std::string(rule.id), std::string(rule.source));
  return rules;
}

std::string instructionText(const isa::InstructionDef &def, const isa::Target *target) {
  const bool available = !target || isa::generationAtLeast(*target, def.since);
  const std::string since =
      target ? isa::generationLabel(target->family, def.since) : sinceLabel(def);
  std::string out = fmt::format("{}  ({}){}\n  {}\n  engines: {}   since {}\n", def.name, def.nki,
                                available ? "" : fmt::format("  -- not on {}", target->name), def.summary,
                                fmt::join(enginesOf(def), ", "), since);
  for (const isa::OperandDef &operand : def.operands)
    out += fmt::format("    {:<5} {:<11} {}\n", operand.slot, operand.nkiName, operand.doc);
  if (!def.settings.empty()) out += fmt::format("  settings: {}\n", settingsOf(def));
  out += fmt::format("  limits: {}\n  cost:   {}\n", def.limits, def.cost);
  for (const auto &[id, source] : rulesOf(def)) out += fmt::format("  rule {}: {}\n", id, source);
  return out + "\n";
}

} // namespace

std::string isaReferenceText(const isa::Target *target, const std::string &only) {
  const std::vector<const isa::InstructionDef *> defs = selected(target, only);
  if (!target) {
    std::string out = "Instruction sets of both families; costs in engine cycles, their coefficients in each target "
                      "file (--target T shows one target's)\n";
    for (std::string_view family : referenceGroups()) {
      std::string group;
      for (const isa::InstructionDef *def : defs)
        if (def->family == family) group += instructionText(*def, nullptr);
      if (!group.empty()) out += fmt::format("\n== {} ==\n\n{}", familyTitle(family), group);
    }
    return out;
  }
  std::string out = fmt::format("Instruction set of {} ({}); costs in engine cycles, coefficients from {}\n\n",
                                target->name, isa::generationLabel(target->family, target->generation),
                                target->file.string());
  for (const isa::InstructionDef *def : defs) out += instructionText(*def, target);
  out += fmt::format("[cost] coefficients of {}:\n", target->name);
  for (const auto &[key, value] : target->costCoefficients)
    out += fmt::format("  {:<28} {}\n", key, coefficientValue(value));
  return out;
}

nlohmann::json isaReferenceJson(const isa::Target *target, const std::string &only) {
  nlohmann::json instructions = nlohmann::json::array();
  for (const isa::InstructionDef *def : selected(target, only)) {
    nlohmann::json operands = nlohmann::json::array();
    for (const isa::OperandDef &operand : def->operands)
      operands.push_back({{"slot", operand.slot}, {"nki_name", operand.nkiName}, {"doc", operand.doc}});
    nlohmann::json entry = {{"name", def->name},         {"nki", def->nki},         {"summary", def->summary},
                            {"family", def->family},     {"engines", enginesOf(*def)}, {"since", def->since},
                            {"operands", operands},      {"limits", def->limits},   {"cost", def->cost}};
    nlohmann::json settings = nlohmann::json::array();
    for (const isa::SettingDef &setting : def->settings)
      settings.push_back({{"name", isa::key(setting.setting)}, {"vendor_name", setting.vendorName}});
    nlohmann::json rules = nlohmann::json::array();
    for (const auto &[id, source] : rulesOf(*def)) rules.push_back({{"id", id}, {"source", source}});
    entry["settings"] = settings;
    entry["category"] = isa::name(def->category);
    entry["rules"] = rules;
    if (target) entry["available"] = isa::generationAtLeast(*target, def->since);
    instructions.push_back(std::move(entry));
  }
  if (!target) return {{"instructions", instructions}};
  nlohmann::json coefficients = nlohmann::json::object();
  for (const auto &[key, value] : target->costCoefficients) coefficients[key] = value;
  return {{"target", target->name},
          {"family", target->family},
          {"generation", target->generation},
          {"instructions", instructions},
          {"cost_coefficients", coefficients}};
}

namespace {

/// The rows "| [name](#name) | `nki` | engines | yes | - |" of a family's table, one column per target.
std::string summaryTable(std::string_view family, const std::vector<const isa::Target *> &targets) {
  std::string out = fmt::format("| instruction | {} | engines |", isa::findFamily(family)->vendorApi());
  for (const isa::Target *t : targets) out += fmt::format(" {} |", t->name);
  out += "\n|---|---|---|";
  for (size_t i = 0; i < targets.size(); ++i) out += "---|";
  out += "\n";
  for (const isa::InstructionDef &def : isa::instructionSet()) {
    if (!isa::runsOnFamily(def, family)) continue;
    out += fmt::format("| [{}](#{}) | `{}` | {} |", def.name, def.name, def.nki, fmt::join(enginesOf(def), ", "));
    for (const isa::Target *t : targets) out += isa::generationAtLeast(*t, def.since) ? " yes |" : " - |";
    out += "\n";
  }
  return out;
}

std::string instructionMarkdown(const isa::InstructionDef &def) {
  std::string out = fmt::format("\n### {}\n\n`{}`: {}\n\n- engines: {}; from {}\n", def.name, def.nki, def.summary,
                                fmt::join(enginesOf(def), ", "), sinceLabel(def));
  for (const isa::OperandDef &operand : def.operands)
    out += fmt::format("- `{}` ({}): {}\n", operand.slot, operand.nkiName, operand.doc);
  if (!def.settings.empty()) out += fmt::format("- settings: {}\n", settingsOf(def));
  out += fmt::format("- limits: {}\n- cost: {}\n", def.limits, def.cost);
  for (const auto &[id, source] : rulesOf(def)) out += fmt::format("- rule `{}`: {}\n", id, source);
  return out;
}

/// Every [cost] key of `targets`, in order of first appearance, with each target's value.
std::string coefficientTable(const std::vector<const isa::Target *> &targets) {
  std::string out = "| coefficient |";
  for (const isa::Target *t : targets) out += fmt::format(" {} |", t->name);
  out += "\n|---|";
  for (size_t i = 0; i < targets.size(); ++i) out += "---|";
  out += "\n";
  std::vector<std::string> keys;
  for (const isa::Target *t : targets)
    for (const auto &[key, value] : t->costCoefficients)
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  for (const std::string &key : keys) {
    out += fmt::format("| `{}` |", key);
    for (const isa::Target *t : targets) {
      std::string cell = "-";
      for (const auto &[k, v] : t->costCoefficients)
        if (k == key) cell = coefficientValue(v);
      out += fmt::format(" {} |", cell);
    }
    out += "\n";
  }
  return out;
}

} // namespace

std::string isaReferenceMarkdown(const std::vector<isa::Target> &targets) {
  std::string out = "# Instruction sets\n\n"
                    "Generated by `tessera isa --markdown` from the instruction definitions (isa/lib/instructions/) "
                    "and the target files (isa/targets/); a test checks that this file is up to date. Each family "
                    "has its own instructions (a target runs only its family's, and `print`, the simulator's device "
                    "print, on both). Costs are in cycles of the engine that runs the instruction; each formula names "
                    "the target file's [cost] coefficients, whose values and sources are in the target files.\n";
  std::string coefficients = "\n## Cost coefficients\n";
  for (std::string_view family : referenceGroups()) {
    std::vector<const isa::Target *> ofFamily;
    for (const isa::Target &t : targets)
      if (t.family == family) ofFamily.push_back(&t);
    if (family != isa::kAnyFamily) {
      out += fmt::format("\n## {} (family `{}`)\n\n{}", familyTitle(family), family, summaryTable(family, ofFamily));
      if (!ofFamily.empty()) coefficients += fmt::format("\n### {}\n\n{}", familyTitle(family), coefficientTable(ofFamily));
    } else {
      out += fmt::format("\n## {}\n", familyTitle(family));
    }
    for (const isa::InstructionDef &def : isa::instructionSet())
      if (def.family == family) out += instructionMarkdown(def);
  }
  return out + coefficients;
}

} // namespace tessera::driver
