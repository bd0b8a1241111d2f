/// \file
/// The Scalar engine's activation instructions: activation, and activation_reduce, which also reduces each
/// partition's activated row into one value.

#include "Common.h"

#include <fmt/format.h>

namespace tessera::isa::instructions {
namespace {

/// Whether an activation takes its bias from a [P, 1] tile (src1) rather than the `bias` immediate.
bool hasBiasTile(const Instruction &inst) { return present(inst.src1); }

/// Whether an activation takes its scale from a [P, 1] tile (src2) rather than the `scale` immediate.
bool hasScaleTile(const Instruction &inst) { return present(inst.src2); }

/// x[row, :] = func(x[row, :] * scale of the row + bias of the row), in place.
template <typename F>
void applyActivation(float *__restrict x, uint32_t rows, int64_t rowElements, const RowValues &scale,
                     const RowValues &bias, F func) {
  for (uint32_t row = 0; row < rows; ++row) {
    const float a = scale.of(row), b = bias.of(row);
    float *__restrict values = x + static_cast<size_t>(row) * rowElements;
    for (int64_t i = 0; i < rowElements; ++i)
      values[i] = func(values[i] * a + b);
  }
}

} // namespace

void activateRows(ActFunc func, float *x, uint32_t rows, int64_t rowElements, const RowValues &scale,
                  const RowValues &bias) {
  switch (func) {
  case ActFunc::Identity:
    applyActivation(x, rows, rowElements, scale, bias, [](float v) { return v; });
    break;
  case ActFunc::Exp:
    applyActivation(x, rows, rowElements, scale, bias, [](float v) { return std::exp(v); });
    break;
  default:
    applyActivation(x, rows, rowElements, scale, bias, [func](float v) { return apply(func, v); });
  }
}

namespace {

/// Computes the activation of src0 into scratch row buffer `a` and returns it (not yet written to dst).
float *activate(const Instruction &inst, const Memories &mem, const ResolvedPattern &src) {
  Scratch &s = scratch();
  float *x = rowsOf(s.a, src, true);
  const float *biasOfRow = hasBiasTile(inst) ? rowsOf(s.b, resolve(inst.src1, mem), true) : nullptr;
  const float *scaleOfRow = hasScaleTile(inst) ? rowsOf(s.c, resolve(inst.src2, mem), true) : nullptr;
  activateRows(inst.func, x, src.rows, src.rowElements, {scaleOfRow, inst.scale}, {biasOfRow, inst.bias});
  return x;
}

// ---- activation -------------------------------------------------------------------------------------------

constexpr OperandDef kActivationOperands[] = {
    {"dst", "dst", "SBUF or PSUM, same shape as data"},
    {"src0", "data", "SBUF or PSUM"},
    {"src1", "bias", "optional [P, 1] tile added after the scale (else the bias immediate)"},
    {"src2", "scale", "optional [P, 1] tile, each row's scale (else the scale immediate)"},
};

void activation(const Instruction &inst, const Memories &mem) {
  const ResolvedPattern src = resolve(inst.src0, mem), dst = resolve(inst.dst, mem);
  scatter(dst, activate(inst, mem, src));
}

std::string verifyActivation(const Instruction &inst, const Target *) {
  if (auto problem = requireSameShape("dst", inst.dst, "data", inst.src0); !problem.empty())
    return problem;
  return firstProblem({hasBiasTile(inst) ? requirePerPartition("bias", inst.src1, inst.src0.partitions) : "",
                       hasScaleTile(inst) ? requirePerPartition("scale", inst.src2, inst.src0.partitions) : ""});
}

uint64_t activationCycles(const Instruction &inst, Engine engine, const Target &target) {
  return streamingInstructionCycles(inst, elementsPerPartition(inst.src0), engine, target);
}

// ---- activation_reduce ------------------------------------------------------------------------------------

constexpr OperandDef kActivationReduceOperands[] = {
    {"dst", "dst", "SBUF or PSUM, same shape as data"},
    {"src0", "data", "SBUF or PSUM"},
    {"src1", "bias", "optional [P, 1] tile added after the scale (else the bias immediate)"},
    {"src2", "scale", "optional [P, 1] tile, each row's scale (else the scale immediate)"},
    {"dst2", "reduce_res", "SBUF or PSUM, [P, 1]: reduce_op over each partition's activated row"},
};

/// Folds each row of `x` with `op` into `out[row]`, in FP32, left to right.
void reduceRows(AluOp op, const float *x, uint32_t rows, int64_t rowElements, float *out) {
  for (uint32_t row = 0; row < rows; ++row) {
    const float *values = x + static_cast<size_t>(row) * rowElements;
    float acc = rowElements > 0 ? values[0] : 0.0f;
    for (int64_t i = 1; i < rowElements; ++i)
      acc = apply(op, acc, values[i]);
    out[row] = acc;
  }
}

/// The reduction reads the engine's FP32 results, before they are rounded to dst's dtype: the Scalar engine
/// accumulates the activated values in its 32-bit reduction registers (NKI: one register per partition).
void activationReduce(const Instruction &inst, const Memories &mem) {
  const ResolvedPattern src = resolve(inst.src0, mem), dst = resolve(inst.dst, mem);
  const ResolvedPattern reduced = resolve(inst.dst2, mem);
  const float *x = activate(inst, mem, src);
  Scratch &s = scratch();
  float *sums = rowsOf(s.c, reduced, false);
  reduceRows(inst.alu, x, src.rows, src.rowElements, sums);
  scatter(dst, x);
  scatter(reduced, sums);
}

OperandUse activationReduceUse(const Instruction &inst) {
  OperandUse use = readsPresentSources(inst);
  use.writesDst2 = true;
  return use;
}

std::string verifyActivationReduce(const Instruction &inst, const Target *target) {
  if (auto problem = verifyActivation(inst, target); !problem.empty())
    return problem;
  if (inst.src0.freeElements() < 1)
    return "data must have at least one element per partition";
  if (!present(inst.dst2))
    return fmt::format("needs reduce_res (dst2), a [{}, 1] tile", inst.src0.partitions);
  return requirePerPartition("reduce_res", inst.dst2, inst.src0.partitions);
}

uint64_t activationReduceCycles(const Instruction &inst, Engine engine, const Target &target) {
  return activationCycles(inst, engine, target) + target.cost.actReadAccumulatorCycles;
}

// ---- NKI calls, settings and rules ----------------------------------------------------------------------

/// bias=, then scale=, as NKI's activations take them: the bias tile or a non-zero immediate, a scale other than 1.
void biasAndScale(const Instruction &inst, NkiCall &c) {
  if (hasBiasTile(inst))
    c.operand("bias", Slot::Src1);
  else if (inst.bias != 0.0f)
    c.real("bias", inst.bias);
  if (hasScaleTile(inst))
    c.operand("scale", Slot::Src2);
  else if (inst.scale != 1.0f)
    c.real("scale", inst.scale);
}

void activationNki(const Instruction &inst, NkiCall &c) {
  c.operand("dst", Slot::Dst).func("op", inst.func).operand("data", Slot::Src0);
  biasAndScale(inst, c);
}

void activationReduceNki(const Instruction &inst, NkiCall &c) {
  c.operand("dst", Slot::Dst).func("op", inst.func).operand("data", Slot::Src0).alu("reduce_op", inst.alu);
  c.operand("reduce_res", Slot::Dst2);
  biasAndScale(inst, c);
}

/// NeuronCore-v2 adds a bias only from an [N, 1] tile, and none at all to a reciprocal.
std::string activationBias(const Instruction &inst, Engine, const Target *target) {
  if (!target || generationAtLeast(*target, "v3"))
    return {};
  if (inst.func == ActFunc::Reciprocal && (hasBiasTile(inst) || inst.bias != 0.0f))
    return fmt::format("the reciprocal activation takes no bias on {} ({})",
                       generationLabel(target->family, target->generation), target->name);
  if (!hasBiasTile(inst) && inst.bias != 0.0f)
    return fmt::format("a bias on {} ({}) must be a [P, 1] tile, not the number {}",
                       generationLabel(target->family, target->generation), target->name, inst.bias);
  return {};
}

/// The Scalar engine's reduction registers only sum.
std::string activationReduceOp(const Instruction &inst, Engine, const Target *) {
  if (inst.alu == AluOp::Add)
    return {};
  return fmt::format("reduce_op must be add, not {}: the scalar engine's reduction registers only sum (reduce with "
                     "tensor_reduce instead)",
                     name(inst.alu));
}

constexpr Rule kActivationBiasRule{
    "activation.bias-v2",
    "NKI ISA reference, nki.isa.activation, Layout: on NeuronCore-v2 the bias must be a vector of shape [N, 1]; "
    "NKI engine selection (nki.api.shared.rst): activation reciprocal takes no bias on NeuronCore-v2",
    activationBias};

constexpr Rule kActivationRules[] = {kActivationBiasRule};

constexpr Rule kActivationReduceRules[] = {
    kActivationBiasRule,
    {"activation_reduce.reduce-op",
     "NKI ISA reference (Neuron 2.33), nki.isa.activation_reduce: reduce_op must be nl.add (the Scalar engine's "
     "reduction registers only sum)",
     activationReduceOp},
};

constexpr SettingDef kActivationSettings[] = {
    {Setting::Func, "op"}, {Setting::Scale, "scale"}, {Setting::Bias, "bias"}};

constexpr SettingDef kActivationReduceSettings[] = {
    {Setting::Func, "op"}, {Setting::Alu, "reduce_op"}, {Setting::Scale, "scale"}, {Setting::Bias, "bias"}};

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
               "sqrt, reciprocal; on NeuronCore-v2 a bias is a [P, 1] tile, and reciprocal takes none",
     .cost = "access_overhead_cycles + max(min_initiation_cycles, N)",
     .use = readsPresentSources,
     .verify = verifyActivation,
     .execute = activation,
     .cycles = activationCycles,
     .settings = kActivationSettings,
     .category = Category::Activation,
     .flops = flopsPerSourceElement,
     .nkiCall = activationNki,
     .rules = kActivationRules},
    {.op = Opcode::ActivationReduce,
     .name = "activation_reduce",
     .nki = "nki.isa.activation_reduce",
     .summary = "dst = func(data * scale + bias); reduce_res[p, 0] = reduce_op(dst[p, :]) over the FP32 results",
     .engines = {Engine::Scalar},
     .preferredEngine = Engine::Scalar,
     .since = "v2",
     .operands = kActivationReduceOperands,
     .limits = "as activation; reduce_res is [P, 1]; reduce_op add",
     .cost = "access_overhead_cycles + max(min_initiation_cycles, N) + act_read_accumulator_cycles",
     .use = activationReduceUse,
     .verify = verifyActivationReduce,
     .execute = activationReduce,
     .cycles = activationReduceCycles,
     .settings = kActivationReduceSettings,
     .category = Category::Activation,
     .flops = flopsPerSourceElement,
     .nkiCall = activationReduceNki,
     .rules = kActivationReduceRules},
};

} // namespace

std::span<const InstructionDef> activationInstructions() { return kDefinitions; }

} // namespace tessera::isa::instructions
