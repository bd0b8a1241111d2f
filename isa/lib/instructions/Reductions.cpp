/// \file
/// Reductions and statistics: tensor_reduce.

#include "Common.h"

#include <fmt/format.h>

namespace tessera::isa::instructions {
namespace {

/// Folds a row left to right with `op`, in FP32.
float reduceRow(AluOp op, const float *row, int64_t n) {
  if (n == 0)
    return 0.0f;
  float acc = row[0];
  for (int64_t i = 1; i < n; ++i)
    acc = apply(op, acc, row[i]);
  return acc;
}

// ---- tensor_reduce ----------------------------------------------------------------------------------------

constexpr OperandDef kTensorReduceOperands[] = {
    {"dst", "dst", "SBUF or PSUM, [P, 1]"},
    {"src0", "data", "SBUF or PSUM, [P, F]"},
};

void tensorReduce(const Instruction &inst, const Memories &mem) {
  const ResolvedPattern src = resolve(inst.src0, mem), dst = resolve(inst.dst, mem);
  Scratch &s = scratch();
  const float *x = rowsOf(s.a, src, true);
  float *out = rowsOf(s.b, dst, false);
  for (uint32_t row = 0; row < src.rows; ++row) {
    const float r = reduceRow(inst.alu, x + static_cast<size_t>(row) * src.rowElements, src.rowElements);
    out[row] = inst.negate ? -r : r;
  }
  scatter(dst, out);
}

OperandUse readsSrc0(const Instruction &) { return {.src0 = true}; }

std::string verifyTensorReduce(const Instruction &inst, const Target *) {
  return requirePerPartition("dst", inst.dst, inst.src0.partitions);
}

uint64_t tensorReduceCycles(const Instruction &inst, Engine engine, const Target &target) {
  const uint64_t n = elementsPerPartition(inst.src0);
  const bool fastReduce = inst.src0.dtype == DType::BF16 && (inst.alu == AluOp::Add || inst.alu == AluOp::Max);
  return streamingInstructionCycles(inst, fastReduce ? half(n) : n, engine, target);
}

const InstructionDef kDefinitions[] = {
    {.op = Opcode::TensorReduce,
     .name = "tensor_reduce",
     .nki = "nki.isa.tensor_reduce",
     .summary = "dst[p, 0] = reduce_op(data[p, :]) over the free dimensions (negated with negate)",
     .engines = {Engine::Vector, Engine::GpSimd},
     .preferredEngine = Engine::Vector,
     .since = "v2",
     .operands = kTensorReduceOperands,
     .limits = "dst is [P, 1]",
     .cost = "access_overhead_cycles + max(min_initiation_cycles, N), N/2 for BF16 add/max",
     .use = readsSrc0,
     .verify = verifyTensorReduce,
     .execute = tensorReduce,
     .cycles = tensorReduceCycles},
};

} // namespace

std::span<const InstructionDef> reductionInstructions() { return kDefinitions; }

} // namespace tessera::isa::instructions
