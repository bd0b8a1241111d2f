/// \file
/// The documented NeuronCore instruction costs ("Documented instruction costs" in shared/TARGETS.md), with
/// every coefficient read from the target's [cost] table: no cycle count is written here.

#include "tessera/isa/Cost.h"

#include "tessera/isa/AccessRules.h"

#include <algorithm>

namespace tessera::isa {

namespace {

/// Elements per partition, as an unsigned count (an empty pattern costs nothing beyond the floors).
uint64_t elementsPerPartition(const AccessPattern &pattern) {
  return static_cast<uint64_t>(std::max<int64_t>(pattern.freeElements(), 0));
}

/// Half of `n`, rounded up: the BF16 fast paths process two elements per cycle.
uint64_t half(uint64_t n) { return (n + 1) / 2; }

/// Whether the innermost free dimension is walked with unit stride (TARGETS.md: the BF16 tensor_tensor fast
/// path needs contiguous operands).
bool contiguous(const AccessPattern &pattern) {
  return pattern.freeRank == 0 || pattern.strides[pattern.freeRank - 1] == 1;
}

/// MultiplyMoving's initiation interval: max(N_moving, matmul_min_cycles), times matmul_fp32_factor when either
/// operand is FP32. LoadStationary is not charged: it is assumed hidden behind the previous MultiplyMoving
/// (TARGETS.md: "the next LoadStationary can overlap the current multiply", and it is up to 4x faster).
uint64_t matmulCycles(const Instruction &inst, const CostModel &cost) {
  const uint64_t moving = elementsPerPartition(inst.src1);
  const uint64_t interval = std::max<uint64_t>(moving, cost.matmulMinCycles);
  const bool fp32 = inst.src0.dtype == DType::F32 || inst.src1.dtype == DType::F32;
  return fp32 ? interval * cost.matmulFp32Factor : interval;
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

/// Streaming cycles of a Vector/Scalar/GpSimd instruction, before the access overhead and the II floor.
uint64_t streamingCycles(const Instruction &inst, const CostModel &cost) {
  switch (inst.op) {
  case Opcode::TensorTensor: return elementsPerPartition(inst.src0) * tensorTensorFactor(inst, cost);
  case Opcode::Activation:
  case Opcode::TensorCopy: return elementsPerPartition(inst.src0);
  case Opcode::TensorReduce: {
    const uint64_t n = elementsPerPartition(inst.src0);
    const bool fastReduce = inst.src0.dtype == DType::BF16 && (inst.alu == AluOp::Add || inst.alu == AluOp::Max);
    return fastReduce ? half(n) : n;
  }
  case Opcode::Memset: {
    const uint64_t n = elementsPerPartition(inst.dst);
    const bool zeroIntoBf16 = inst.imm == 0.0f && inst.dst.dtype == DType::BF16;
    return zeroIntoBf16 ? half(n) : n;
  }
  case Opcode::DmaCopy:
  case Opcode::Matmul:
  case Opcode::Print: break;
  }
  return 0;
}

} // namespace

uint64_t engineCycles(const Instruction &inst, Engine engine, const Target &target) {
  // A DMA transfer's time depends on the bandwidth the queues share at that moment, which the simulator
  // models from Target::dma; it has no engine-cycle cost.
  if (engine == Engine::Dma || inst.op == Opcode::DmaCopy)
    return 0;
  // A device print is a debugging aid, not part of the kernel: it costs nothing, so that adding one changes
  // the kernel's time only through the semaphore waits that order it after the tile's producer.
  if (inst.op == Opcode::Print)
    return 0;
  const CostModel &cost = target.cost;
  const uint64_t startup = engine == Engine::GpSimd ? cost.gpsimdStartupCycles : 0;
  if (inst.op == Opcode::Matmul)
    return startup + matmulCycles(inst, cost);
  const uint64_t streaming =
      std::max<uint64_t>(cost.minInitiationCycles, streamingCycles(inst, cost) * stridedAccessFactor(inst, target));
  return startup + cost.accessOverheadCycles + streaming;
}

uint64_t stridedAccessFactor(const Instruction &inst, const Target &target) {
  const OperandUse use = operandUse(inst);
  const bool strided = ((use.writesDst || use.readsDst) && isStridedAccess(inst.dst, target)) ||
                       (use.src0 && isStridedAccess(inst.src0, target)) ||
                       (use.src1 && isStridedAccess(inst.src1, target));
  return strided ? target.cost.stridedAccessFactor : 1;
}

double clockGhz(Engine engine, const Target &target) {
  switch (engine) {
  case Engine::Tensor: return target.tensor.clockGhz;
  case Engine::Vector: return target.vector.clockGhz;
  case Engine::Scalar: return target.scalar.clockGhz;
  case Engine::GpSimd: return target.gpsimd.clockGhz;
  case Engine::Dma: return 1.0; // DMA costs are in nanoseconds
  }
  return 1.0;
}

uint64_t flops(const Instruction &inst) {
  switch (inst.op) {
  case Opcode::Matmul: {
    const uint64_t contraction = inst.src0.partitions;
    const uint64_t stationaryFree = elementsPerPartition(inst.src0);
    const uint64_t movingFree = elementsPerPartition(inst.src1);
    return 2 * contraction * stationaryFree * movingFree; // one multiply and one add per (k, m, n)
  }
  case Opcode::TensorTensor:
  case Opcode::Activation:
  case Opcode::TensorReduce: return uint64_t{inst.src0.partitions} * elementsPerPartition(inst.src0);
  case Opcode::DmaCopy:
  case Opcode::TensorCopy:
  case Opcode::Memset:
  case Opcode::Print: break;
  }
  return 0;
}

uint64_t hbmBytes(const Instruction &inst) {
  if (inst.op != Opcode::DmaCopy)
    return 0;
  // Each HBM side is traffic: a read from HBM, a write to HBM, or both for an HBM-to-HBM copy.
  uint64_t bytes = 0;
  if (inst.src0.space == MemSpace::Hbm)
    bytes += static_cast<uint64_t>(inst.src0.bytes());
  if (inst.dst.space == MemSpace::Hbm)
    bytes += static_cast<uint64_t>(inst.dst.bytes());
  return bytes;
}

} // namespace tessera::isa
