/// \file
/// The rules several NeuronCore instructions share.

#include "Rules.h"

#include <fmt/format.h>

namespace tessera::isa::instructions {

std::string obeysAluTable(const Instruction &inst, Engine engine, const Target *target) {
  for (AluOp op : {inst.alu, inst.alu1}) {
    if (op == AluOp::Divide)
      return "divide is not an ALU operation of NeuronCore engines; multiply by a reciprocal (nki.isa.reciprocal, "
             "or activation reciprocal) instead";
    if (op == AluOp::Power && engine != Engine::GpSimd)
      return fmt::format("power runs on the GpSimd engine only, not the {} engine", name(engine));
    if (op == AluOp::AbsMax && target && !generationAtLeast(*target, "v4"))
      return fmt::format("abs_max exists from NeuronCore-v4 on; target {} is {}", target->name,
                         generationLabel(target->family, target->generation));
  }
  return {};
}

std::string avoidsPsum(const Instruction &inst, Engine, const Target *) {
  std::string problem;
  forEachOperand(inst, [&](const char *slot, const AccessPattern &ap, bool) {
    if (problem.empty() && ap.space == MemSpace::Psum)
      problem = fmt::format("{} is in PSUM, which DMA cannot read or write; copy the tile to SBUF first", slot);
  });
  return problem;
}

std::string inputsNotBothInPsum(const AccessPattern &first, const AccessPattern &second, const char *firstName,
                                const char *secondName) {
  if (first.space == MemSpace::Psum && second.space == MemSpace::Psum)
    return fmt::format("{} and {} are both in PSUM; at most one input may be", firstName, secondName);
  return {};
}

} // namespace tessera::isa::instructions
