/// \file
/// The Scalar engine's activation instructions: activation.

#include "Common.h"

#include <fmt/format.h>

namespace tessera::isa::instructions {
namespace {

/// Whether an activation takes its bias from a [P, 1] tile (src1) rather than the `bias` immediate.
bool hasBiasTile(const Instruction &inst) { return present(inst.src1); }

/// x[row, :] = func(x[row, :] * scale + bias of the row), in place.
template <typename F>
void applyActivation(float *__restrict x, uint32_t rows, int64_t rowElements, float scale, const float *biasOfRow,
                     float bias, F func) {
  for (uint32_t row = 0; row < rows; ++row) {
    const float b = biasOfRow ? biasOfRow[row] : bias;
    float *__restrict values = x + static_cast<size_t>(row) * rowElements;
    for (int64_t i = 0; i < rowElements; ++i)
      values[i] = func(values[i] * scale + b);
  }
}

/// Computes the activation of src0 into scratch row buffer `a` and returns it (not yet written to dst).
float *activate(const Instruction &inst, const Memories &mem, const ResolvedPattern &src) {
  Scratch &s = scratch();
  float *x = rowsOf(s.a, src, true);
  const float *biasOfRow = hasBiasTile(inst) ? rowsOf(s.b, resolve(inst.src1, mem), true) : nullptr;
  switch (inst.func) {
  case ActFunc::Identity:
    applyActivation(x, src.rows, src.rowElements, inst.imm, biasOfRow, inst.bias, [](float v) { return v; });
    break;
  case ActFunc::Exp:
    applyActivation(x, src.rows, src.rowElements, inst.imm, biasOfRow, inst.bias, [](float v) { return std::exp(v); });
    break;
  default: {
    const ActFunc func = inst.func;
    applyActivation(x, src.rows, src.rowElements, inst.imm, biasOfRow, inst.bias,
                    [func](float v) { return apply(func, v); });
  }
  }
  return x;
}

// ---- activation -------------------------------------------------------------------------------------------

constexpr OperandDef kActivationOperands[] = {
    {"dst", "dst", "SBUF or PSUM, same shape as data"},
    {"src0", "data", "SBUF or PSUM"},
    {"src1", "bias", "optional [P, 1] tile added after the scale (else the bias immediate)"},
};

void activation(const Instruction &inst, const Memories &mem) {
  const ResolvedPattern src = resolve(inst.src0, mem), dst = resolve(inst.dst, mem);
  scatter(dst, activate(inst, mem, src));
}

std::string verifyActivation(const Instruction &inst, const Target *) {
  if (auto problem = requireSameShape("dst", inst.dst, "data", inst.src0); !problem.empty())
    return problem;
  if (hasBiasTile(inst))
    return requirePerPartition("bias", inst.src1, inst.src0.partitions);
  return {};
}

uint64_t activationCycles(const Instruction &inst, Engine engine, const Target &target) {
  return streamingInstructionCycles(inst, elementsPerPartition(inst.src0), engine, target);
}

const InstructionDef kDefinitions[] = {
    {.op = Opcode::Activation,
     .name = "activation",
     .nki = "nki.isa.activation",
     .summary = "dst = func(data * scale + bias)",
     .engines = {Engine::Scalar},
     .preferredEngine = Engine::Scalar,
     .since = "v2",
     .operands = kActivationOperands,
     .limits = "func one of identity, exp, log, tanh, gelu, gelu_apprx_tanh, silu, sigmoid, relu, rsqrt, square, "
               "sqrt, reciprocal",
     .cost = "access_overhead_cycles + max(min_initiation_cycles, N)",
     .use = readsPresentSources,
     .verify = verifyActivation,
     .execute = activation,
     .cycles = activationCycles},
};

} // namespace

std::span<const InstructionDef> activationInstructions() { return kDefinitions; }

} // namespace tessera::isa::instructions
