/// \file
/// Instructions that move or fill data: dma_copy, tensor_copy, memset, and the simulator's device print.

#include "Common.h"

#include <fmt/format.h>

namespace tessera::isa::instructions {
namespace {

// ---- shared ---------------------------------------------------------------------------------------------

/// dst <- src0 with dtype conversion (dma_copy, tensor_copy).
void copy(const Instruction &inst, const Memories &mem) {
  const ResolvedPattern src = resolve(inst.src0, mem), dst = resolve(inst.dst, mem);
  assert(static_cast<int64_t>(src.rows) * src.rowElements == static_cast<int64_t>(dst.rows) * dst.rowElements);
  float *values = rowsOf(scratch().a, src, /*load=*/true);
  scatter(dst, values);
}

std::string sameElementCount(const Instruction &inst, const Target *) {
  if (int64_t{inst.src0.partitions} * inst.src0.freeElements() != int64_t{inst.dst.partitions} * inst.dst.freeElements())
    return "source and destination hold different numbers of elements";
  return {};
}

OperandUse readsSrc0(const Instruction &) { return {.src0 = true}; }

/// A DMA transfer's time depends on the bandwidth the queues share at that moment, which the simulator models
/// from Target::dma; it has no engine-cycle cost.
uint64_t noEngineCycles(const Instruction &, Engine, const Target &) { return 0; }

// ---- dma_copy ---------------------------------------------------------------------------------------------

constexpr OperandDef kDmaCopyOperands[] = {
    {"dst", "dst", "HBM, SBUF or PSUM; same element count as src"},
    {"src0", "src", "HBM, SBUF or PSUM"},
};

// ---- tensor_copy ------------------------------------------------------------------------------------------

constexpr OperandDef kTensorCopyOperands[] = {
    {"dst", "dst", "SBUF or PSUM, same shape as src; any dtype (converted on the way out)"},
    {"src0", "src", "SBUF or PSUM"},
};

std::string verifyTensorCopy(const Instruction &inst, const Target *) {
  return requireSameShape("dst", inst.dst, "src", inst.src0);
}

uint64_t tensorCopyCycles(const Instruction &inst, Engine engine, const Target &target) {
  return streamingInstructionCycles(inst, elementsPerPartition(inst.src0), engine, target);
}

// ---- memset -----------------------------------------------------------------------------------------------

constexpr OperandDef kMemsetOperands[] = {{"dst", "dst", "SBUF or PSUM; value in imm"}};

void memset(const Instruction &inst, const Memories &mem) {
  const ResolvedPattern dst = resolve(inst.dst, mem);
  float *values = rowsOf(scratch().a, dst, false);
  std::fill_n(values, static_cast<size_t>(dst.rows) * dst.rowElements, inst.imm);
  scatter(dst, values);
}

OperandUse writesOnly(const Instruction &) { return {}; }

std::string verifyNothing(const Instruction &, const Target *) { return {}; }

uint64_t memsetCycles(const Instruction &inst, Engine engine, const Target &target) {
  const uint64_t n = elementsPerPartition(inst.dst);
  const bool zeroIntoBf16 = inst.imm == 0.0f && inst.dst.dtype == DType::BF16;
  return streamingInstructionCycles(inst, zeroIntoBf16 ? half(n) : n, engine, target);
}

// ---- print ------------------------------------------------------------------------------------------------

constexpr OperandDef kPrintOperands[] = {{"src0", "tile", "SBUF or PSUM"}};

void print(const Instruction &, const Memories &) {} // the simulator logs the values (readValues)

OperandUse printUse(const Instruction &) { return {.src0 = true, .writesDst = false}; }

/// A device print is a debugging aid, not part of the kernel: it costs nothing, so that adding one changes the
/// kernel's time only through the semaphore waits that order it after the tile's producer.
uint64_t printCycles(const Instruction &, Engine, const Target &) { return 0; }

std::string verifyPrint(const Instruction &inst, const Target *) { return requireOnChip("the printed tile", inst.src0); }

constexpr EngineSet kComputeEngines{Engine::Vector, Engine::Scalar, Engine::GpSimd};

const InstructionDef kDefinitions[] = {
    {.op = Opcode::DmaCopy,
     .name = "dma_copy",
     .nki = "nki.isa.dma_copy",
     .summary = "copy between HBM, SBUF and PSUM, converting the dtype",
     .engines = {Engine::Dma},
     .preferredEngine = Engine::Dma,
     .since = "v2",
     .operands = kDmaCopyOperands,
     .limits = "both sides hold the same number of elements",
     .cost = "fixed_latency_ns per transfer, then bytes at the bandwidth the DMA queues share ([dma] table)",
     .use = readsSrc0,
     .verify = sameElementCount,
     .execute = copy,
     .cycles = noEngineCycles},
    {.op = Opcode::TensorCopy,
     .name = "tensor_copy",
     .nki = "nki.isa.tensor_copy",
     .summary = "dst = src, converting the dtype",
     .engines = kComputeEngines,
     .preferredEngine = Engine::Vector,
     .since = "v2",
     .operands = kTensorCopyOperands,
     .limits = "dst and src have the same shape",
     .cost = "access_overhead_cycles + max(min_initiation_cycles, N)",
     .use = readsSrc0,
     .verify = verifyTensorCopy,
     .execute = copy,
     .cycles = tensorCopyCycles},
    {.op = Opcode::Memset,
     .name = "memset",
     .nki = "nki.isa.memset",
     .summary = "dst = value",
     .engines = kComputeEngines,
     .preferredEngine = Engine::Vector,
     .since = "v2",
     .operands = kMemsetOperands,
     .limits = "GpSimd cannot write PSUM",
     .cost = "access_overhead_cycles + max(min_initiation_cycles, N), N/2 for zero into BF16",
     .use = writesOnly,
     .verify = verifyNothing,
     .execute = memset,
     .cycles = memsetCycles},
    {.op = Opcode::Print,
     .name = "print",
     .nki = "nki.language.device_print",
     .summary = "log a tile's values with the simulated time (tsr::device_print; not a hardware instruction)",
     .engines = kComputeEngines,
     .preferredEngine = Engine::Vector,
     .since = "v2",
     .operands = kPrintOperands,
     .limits = "on-chip tiles only",
     .cost = "0: a debugging aid that takes no engine time",
     .use = printUse,
     .verify = verifyPrint,
     .execute = print,
     .cycles = printCycles},
};

} // namespace

std::span<const InstructionDef> dataMovementInstructions() { return kDefinitions; }

} // namespace tessera::isa::instructions
