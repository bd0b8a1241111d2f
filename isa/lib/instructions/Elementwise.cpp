/// \file
/// Elementwise instructions of the Vector and GpSimd engines: tensor_tensor.

#include "Common.h"

#include <fmt/format.h>

namespace tessera::isa::instructions {
namespace {

/// Whether the innermost free dimension is walked with unit stride (TARGETS.md: the BF16 tensor_tensor fast
/// path needs contiguous operands).
bool contiguous(const AccessPattern &pattern) {
  return pattern.freeRank == 0 || pattern.strides[pattern.freeRank - 1] == 1;
}

template <typename F>
void elementwise(float *__restrict dst, const float *__restrict a, const float *__restrict b, size_t n, F f) {
  for (size_t i = 0; i < n; ++i)
    dst[i] = f(a[i], b[i]);
}

/// dst[i] = a[i] <op> b[i]; the common operations get their own loops so that they vectorise.
void applyAlu(AluOp op, float *__restrict dst, const float *__restrict a, const float *__restrict b, size_t n) {
  switch (op) {
  case AluOp::Add: return elementwise(dst, a, b, n, [](float x, float y) { return x + y; });
  case AluOp::Subtract: return elementwise(dst, a, b, n, [](float x, float y) { return x - y; });
  case AluOp::Multiply: return elementwise(dst, a, b, n, [](float x, float y) { return x * y; });
  case AluOp::Divide: return elementwise(dst, a, b, n, [](float x, float y) { return x / y; });
  default: return elementwise(dst, a, b, n, [op](float x, float y) { return apply(op, x, y); });
  }
}

// ---- tensor_tensor ----------------------------------------------------------------------------------------

constexpr OperandDef kTensorTensorOperands[] = {
    {"dst", "dst", "SBUF or PSUM, same shape as data1"},
    {"src0", "data1", "SBUF or PSUM"},
    {"src1", "data2", "SBUF or PSUM, same shape as data1"},
};

void tensorTensor(const Instruction &inst, const Memories &mem) {
  const ResolvedPattern lhs = resolve(inst.src0, mem), rhs = resolve(inst.src1, mem), dst = resolve(inst.dst, mem);
  Scratch &s = scratch();
  const float *a = rowsOf(s.a, lhs, true);
  const float *b = rowsOf(s.b, rhs, true);
  float *result = rowsOf(s.c, dst, false);
  applyAlu(inst.alu, result, a, b, static_cast<size_t>(dst.rows) * dst.rowElements);
  scatter(dst, result);
}

OperandUse twoSources(const Instruction &) { return {.src0 = true, .src1 = true}; }

std::string verifyTensorTensor(const Instruction &inst, const Target *) {
  if (auto problem = requireSameShape("data1", inst.src0, "data2", inst.src1); !problem.empty())
    return problem;
  return requireSameShape("dst", inst.dst, "data1", inst.src0);
}

/// Per-element cycles of tensor_tensor: N when one operand is in PSUM and the other in SBUF, or when both are
/// contiguous BF16 with add/subtract/multiply; otherwise two_input_factor x N.
uint64_t tensorTensorFactor(const Instruction &inst, const CostModel &cost) {
  const bool psumAndSbuf = (inst.src0.space == MemSpace::Psum && inst.src1.space == MemSpace::Sbuf) ||
                           (inst.src0.space == MemSpace::Sbuf && inst.src1.space == MemSpace::Psum);
  if (psumAndSbuf)
    return 1;
  const bool bothBf16 = inst.src0.dtype == DType::BF16 && inst.src1.dtype == DType::BF16;
  const bool fastAlu = inst.alu == AluOp::Add || inst.alu == AluOp::Subtract || inst.alu == AluOp::Multiply;
  if (bothBf16 && fastAlu && contiguous(inst.src0) && contiguous(inst.src1))
    return 1;
  return cost.twoInputFactor;
}

uint64_t tensorTensorCycles(const Instruction &inst, Engine engine, const Target &target) {
  const uint64_t streaming = elementsPerPartition(inst.src0) * tensorTensorFactor(inst, target.cost);
  return streamingInstructionCycles(inst, streaming, engine, target);
}

const InstructionDef kDefinitions[] = {
    {.op = Opcode::TensorTensor,
     .name = "tensor_tensor",
     .nki = "nki.isa.tensor_tensor",
     .summary = "dst = data1 <op> data2, elementwise",
     .engines = {Engine::Vector, Engine::GpSimd},
     .preferredEngine = Engine::Vector,
     .since = "v2",
     .operands = kTensorTensorOperands,
     .limits = "all three the same shape (a [P, 1] operand may be broadcast with a zero stride)",
     .cost = "access_overhead_cycles + max(min_initiation_cycles, N x f): f = 1 with one operand in PSUM and one in "
             "SBUF, or both contiguous BF16 with add/subtract/multiply; else f = two_input_factor",
     .use = twoSources,
     .verify = verifyTensorTensor,
     .execute = tensorTensor,
     .cycles = tensorTensorCycles},
};

} // namespace

std::span<const InstructionDef> elementwiseInstructions() { return kDefinitions; }

} // namespace tessera::isa::instructions
