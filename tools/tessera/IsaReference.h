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

/// Every instruction of `target`'s family (NeuronCore or TPU): name, NKI (or Pallas / Mosaic) name, engines, whether
/// the target's generation has it, operands, limits and cost formula, then the target's [cost] coefficients.
/// Without a target, both families' instructions, grouped by family. `only` (a name) limits it to one instruction
/// (an InputError when `target`'s family does not have it).
std::string isaReferenceText(const isa::Target *target, const std::string &only = {});
nlohmann::json isaReferenceJson(const isa::Target *target, const std::string &only = {});
/// The whole reference as Markdown, family by family: a table of the instructions and the targets that have them,
/// one section per instruction, and a table of every target's cost coefficients. docs/isa/README.md is this text
/// for the built-in targets.
std::string isaReferenceMarkdown(const std::vector<isa::Target> &targets);

} // namespace tessera::driver
