#pragma once
/// \file
/// The ISA reference, printed from the instruction definitions (isa/InstructionSet.h) and the targets' cost
/// coefficients: `tessera isa` (text or JSON for one target) and docs/isa/README.md (Markdown for all targets),
/// so the reference cannot drift from what the compiler and simulator do.

#include "tessera/isa/Target.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace tessera::driver {

/// Every instruction on `target`: name, NKI name, engines, whether the target's generation has it, operands,
/// limits and cost formula, then the target's [cost] coefficients. `only` (a name) limits it to one instruction.
std::string isaReferenceText(const isa::Target &target, const std::string &only = {});
nlohmann::json isaReferenceJson(const isa::Target &target, const std::string &only = {});
/// The whole reference as Markdown: one section per instruction with the generations that have it, and a table
/// of every target's cost coefficients. docs/isa/README.md is this text for the built-in targets.
std::string isaReferenceMarkdown(const std::vector<isa::Target> &targets);

} // namespace tessera::driver
