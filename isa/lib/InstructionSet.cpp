/// \file
/// The instruction set assembled from the definitions in instructions/, and the checks every instruction shares.

#include "tessera/isa/InstructionSet.h"

#include "instructions/Common.h"

#include <fmt/format.h>

#include <array>
#include <cstdlib>
#include <cstdio>
#include <vector>

namespace tessera::isa {
namespace {

/// Every definition, indexed by opcode. Built once; a repeated opcode is a programming error caught at the first
/// use, and InstructionSetTest checks that every opcode has a definition.
struct Table {
  std::array<InstructionDef, kOpcodeCount> defs{};
  std::array<bool, kOpcodeCount> seen{};

  Table() {
    for (auto group : {instructions::dataMovementInstructions(), instructions::tensorEngineInstructions(),
                       instructions::elementwiseInstructions(), instructions::activationInstructions(),
                       instructions::reductionInstructions(), instructions::gatherInstructions()})
      for (const InstructionDef &def : group) {
        const auto index = static_cast<unsigned>(def.op);
        if (seen[index])
          die(fmt::format("opcode {} is defined twice", index));
        seen[index] = true;
        defs[index] = def;
      }
  }

  [[noreturn]] static void die(const std::string &what) {
    std::fprintf(stderr, "tessera: internal error in the instruction set: %s\n", what.c_str());
    std::abort();
  }
};

const Table &table() {
  static const Table t;
  return t;
}

int generationNumber(std::string_view generation) {
  if (generation.size() < 2 || generation[0] != 'v')
    return 0;
  return std::atoi(std::string(generation.substr(1)).c_str());
}

} // namespace

const InstructionDef &definition(Opcode op) {
  const auto index = static_cast<unsigned>(op);
  if (!table().seen[index])
    Table::die(fmt::format("opcode {} has no definition", index));
  return table().defs[index];
}

std::span<const InstructionDef> instructionSet() {
  static const std::vector<InstructionDef> defined = [] {
    std::vector<InstructionDef> all;
    for (unsigned i = 0; i < kOpcodeCount; ++i)
      if (table().seen[i])
        all.push_back(table().defs[i]);
    return all;
  }();
  return defined;
}

bool generationAtLeast(const Target &target, std::string_view since) {
  return generationNumber(target.generation) >= generationNumber(since);
}

std::string verifyInstruction(const Instruction &inst, std::optional<Engine> engine, const Target *target) {
  const InstructionDef &def = definition(inst.op);
  if (engine && !def.engines.contains(*engine))
    return fmt::format("cannot run on the {} engine", name(*engine));
  if (target && target->family != def.family)
    return fmt::format("is a {} instruction; target {} is a {}", def.family, target->name, target->family);
  if (target && !generationAtLeast(*target, def.since))
    return fmt::format("exists from NeuronCore-{} on; target {} is NeuronCore-{}", def.since, target->name,
                       target->generation);
  const OperandUse use = def.use(inst);
  auto requirePresent = [&](bool used, const char *slot, const AccessPattern &ap) -> std::string {
    if (used && ap.partitions == 0)
      return fmt::format("needs operand {}", slot);
    return {};
  };
  for (const std::string &problem :
       {requirePresent(use.src0, "src0", inst.src0), requirePresent(use.src1, "src1", inst.src1),
        requirePresent(use.src2, "src2", inst.src2), requirePresent(use.writesDst || use.readsDst, "dst", inst.dst),
        requirePresent(use.writesDst2, "dst2", inst.dst2)})
    if (!problem.empty())
      return problem;
  if (def.op != Opcode::DmaCopy && def.op != Opcode::DmaTranspose) {
    std::string hbm;
    forEachOperand(inst, [&](const char *slot, const AccessPattern &ap, bool) {
      if (hbm.empty() && ap.space == MemSpace::Hbm)
        hbm = fmt::format("operand {} is in HBM; compute engines reach only SBUF and PSUM", slot);
    });
    if (!hbm.empty())
      return hbm;
  }
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
  return {};
}

namespace instructions {

std::string requireOnChip(const char *slot, const AccessPattern &ap) {
  if (ap.space == MemSpace::Hbm)
    return fmt::format("{} must be in SBUF or PSUM", slot);
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
