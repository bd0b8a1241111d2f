/// \file
/// The TPU TensorCore's other units: the MXUs' mxu_matmul, the DMA queues' dma (HBM <-> VMEM) and the scalar
/// core's grid_step. Operands in VMEM are rows x free elements at a padded row pitch (AccessPattern).

#include "Common.h"

#include "tessera/isa/TpuDtypes.h"

#include <fmt/format.h>

#include <cstring>

namespace tessera::isa::instructions {
namespace {

// ---- mxu_matmul ---------------------------------------------------------------------------------------------

constexpr OperandDef kMatmulOperands[] = {
    {"dst", "acc", "VMEM, f32, [M, N]: the FP32 accumulator (a PSUM tile of the DSL)"},
    {"src0", "lhs^T", "VMEM, [K, M]: its M columns stream through the MXU as LHS rows"},
    {"src1", "rhs", "VMEM, [K, N]: held in the MXUs as weights, tensor.rows x tensor.cols per tile"},
};

OperandUse matmulUse(const Instruction &inst) { return {.src0 = true, .src1 = true, .readsDst = inst.accumulate}; }

/// The MXU's input types (mxuTakes): bf16 and f32 (in mxu_fp32_passes bf16 passes) everywhere, fp8 where the
/// target publishes an FP8 peak.
std::string requireMxuType(const char *slot, DType t, const Target *target) {
  if (mxuTakes(t, target))
    return {};
  if (isFp8(t))
    return fmt::format("{} is {}, but the MXU of {} (TPU {}) has no FP8: use bf16", slot, name(t), target->name,
                       target->generation);
  return fmt::format("{} is {}; the MXU takes bf16 or f32 (fp8 where the target has it)", slot, name(t));
}

std::string verifyMatmul(const Instruction &inst, const Target *target) {
  if (inst.mode != 0)
    return fmt::format("mode {} means nothing to mxu_matmul: it has no modes (0)", inst.mode);
  if (inst.dst.dtype != DType::F32)
    return fmt::format("acc must be an f32 accumulator, not {}", name(inst.dst.dtype));
  if (inst.src0.partitions != inst.src1.partitions)
    return fmt::format("lhs^T [K, M] and rhs [K, N] must share the contraction K (rows), not {} and {}",
                       inst.src0.partitions, inst.src1.partitions);
  const int64_t m = inst.src0.freeElements(), n = inst.src1.freeElements();
  if (int64_t{inst.dst.partitions} != m || inst.dst.freeElements() != n)
    return fmt::format("acc must be [lhs^T free, rhs free] = [{}, {}], not [{}, {}]", m, n, inst.dst.partitions,
                       inst.dst.freeElements());
  return firstProblem(
      {requireMxuType("lhs^T", inst.src0.dtype, target), requireMxuType("rhs", inst.src1.dtype, target)});
}

/// The weight tiles of rhs, ceil(K / tensor.rows) x ceil(N / tensor.cols), each stream the M LHS rows (padded to
/// sublanes) through an MXU at mxu_rows_per_cycle while the next tile's weights load, so a tile takes
/// max(rows / mxu_rows_per_cycle, mxu_weight_load_cycles) MXU-cycles, x mxu_fp32_passes with an FP32 operand. The
/// tpu.mxus MXUs share the tiles: the instruction occupies the matrix unit for its tiles' MXU-cycles / mxus. A
/// matmul with fewer tiles than MXUs leaves some idle for its own part, which the next matmul's tiles fill: Mosaic
/// schedules consecutive dots over all MXUs, as JAX's docs describe large dots tiled "over the MXUs" (an
/// assumption for small ones: a lone matmul of one tile is charged a quarter of its time on four MXUs). Popping the
/// results into VMEM takes one VPU slot per accumulator vreg, overlapped with the stream. The cycles are the MXU's
/// occupancy only: back-to-back matmuls pipeline, and the simulator adds the pipeline fill (the first weight load
/// and mxu_latency_cycles) when the MXU starts after being idle (sim/lib/engines/MxuTiming.h).
uint64_t matmulCycles(const Instruction &inst, Engine, const Target &target) {
  const TpuSpec &tpu = target.tpu;
  const TpuCostModel &cost = target.tpuCost;
  const uint64_t k = inst.src0.partitions, m = elementsPerPartition(inst.src0), n = elementsPerPartition(inst.src1);
  const uint64_t weightTiles = ceilDiv(k, target.tensor.rows) * ceilDiv(n, target.tensor.cols);
  const uint64_t paddedRows = ceilDiv(m, tpu.sublanes) * std::max(1u, tpu.sublanes);
  const uint64_t perTile = std::max<uint64_t>(ceilDiv(paddedRows, cost.mxuRowsPerCycle), cost.mxuWeightLoadCycles);
  const bool fp32 = inst.src0.dtype == DType::F32 || inst.src1.dtype == DType::F32;
  const uint64_t stream = ceilDiv(weightTiles * perTile * (fp32 ? cost.mxuFp32Passes : 1), tpu.mxus);
  const uint64_t resultVregs = ceilDiv(m, tpu.sublanes) * ceilDiv(n, tpu.lanes);
  return std::max(stream, resultVregs);
}

// ---- dma ----------------------------------------------------------------------------------------------------

constexpr OperandDef kDmaOperands[] = {
    {"dst", "dst_ref", "VMEM or HBM, src's shape and dtype"},
    {"src0", "src_ref", "HBM or VMEM: one side HBM, the other VMEM"},
};

/// dst <- src, the bytes unchanged (both sides share a dtype): row by row where both rows are contiguous, else
/// element by element.
void dma(const Instruction &inst, const Memories &mem) {
  const ResolvedPattern src = resolve(inst.src0, mem), dst = resolve(inst.dst, mem);
  const unsigned bytes = byteSize(dst.dtype);
  const auto contiguousRows = [](const ResolvedPattern &r) { return r.outerRank == 0 && r.runIsContiguous(); };
  if (contiguousRows(src) && contiguousRows(dst) && src.rows == dst.rows && src.rowElements == dst.rowElements) {
    for (uint32_t row = 0; row < dst.rows; ++row)
      std::memcpy(dst.origin + row * dst.rowStride, src.origin + row * src.rowStride,
                  static_cast<size_t>(dst.rowElements) * bytes);
    return;
  }
  const std::vector<std::byte *> &from = elementAddresses(src);
  forEachElement(dst, [&](std::byte *element, uint32_t row, int64_t index) {
    std::memcpy(element, from[static_cast<size_t>(row) * dst.rowElements + index], bytes);
  });
}

OperandUse readsSrc0(const Instruction &) { return {.src0 = true}; }

std::string verifyDma(const Instruction &inst, const Target *) {
  const bool load = inst.src0.space == MemSpace::Hbm && inst.dst.space == MemSpace::Vmem;
  const bool store = inst.src0.space == MemSpace::Vmem && inst.dst.space == MemSpace::Hbm;
  if (!load && !store)
    return fmt::format("copies between HBM and VMEM, one side each; src_ref is in {} and dst_ref in {}",
                       name(inst.src0.space), name(inst.dst.space));
  if (inst.dst.dtype != inst.src0.dtype)
    return fmt::format("src_ref is {} but dst_ref is {}; a DMA moves bytes and keeps the dtype (convert in VMEM "
                       "with vpu_convert)",
                       name(inst.src0.dtype), name(inst.dst.dtype));
  const AccessPattern &hbm = load ? inst.src0 : inst.dst;
  if (hbm.tensor < 0)
    return "the HBM side names no tensor (AccessPattern::tensor)";
  return requireSameShape("dst_ref", inst.dst, "src_ref", inst.src0);
}

/// A DMA transfer's time depends on the bandwidth the queues share, which the simulator models from Target::dma.
uint64_t noEngineCycles(const Instruction &, Engine, const Target &) { return 0; }

// ---- grid_step ----------------------------------------------------------------------------------------------

OperandUse noOperands(const Instruction &) { return {.writesDst = false}; }

void noEffect(const Instruction &, const Memories &) {}

std::string verifyGridStep(const Instruction &inst, const Target *) {
  for (const AccessPattern *ap : {&inst.dst, &inst.dst2, &inst.src0, &inst.src1, &inst.src2})
    if (present(*ap))
      return "grid_step takes no operands";
  return {};
}

uint64_t gridStepCycles(const Instruction &, Engine, const Target &target) { return target.tpuCost.gridStepCycles; }

constexpr SettingDef kMatmulSettings[] = {{Setting::Accumulate, "acc += (else acc =)"}};
/// preserve: the read half of an unaligned store's read-modify-write (tile-legalize-for-tpu); Pallas has no
/// spelling for it, it is a plain copy there.
constexpr SettingDef kDmaSettings[] = {{Setting::Preserve, "none in Pallas: the read of a read-modify-write"}};

const InstructionDef kDefinitions[] = {
    {.op = Opcode::MxuMatmul,
     .name = "mxu_matmul",
     .nki = "jnp.dot / tpu.matmul",
     .summary = "acc[M, N] (+)= lhs^T[K, M].T @ rhs[K, N] on the MXUs, accumulated in FP32 in VMEM (accumulate: add "
                "to acc, else overwrite it)",
     .engines = {Engine::Mxu},
     .preferredEngine = Engine::Mxu,
     .since = "v4",
     .operands = kMatmulOperands,
     .limits = "operands in VMEM; acc f32 [M, N]; K, M, N any size (rhs is tiled into tensor.rows x tensor.cols "
               "weight tiles); lhs^T and rhs bf16 or f32 (fp8 where tensor.peak_fp8_tflops > 0); mode 0",
     .cost = "weight tiles = ceil(K / tensor.rows) x ceil(N / tensor.cols); stream = ceil(tiles x max(M padded to "
             "sublanes / mxu_rows_per_cycle, mxu_weight_load_cycles) / tpu.mxus) (the MXUs share consecutive "
             "matmuls' tiles), x mxu_fp32_passes "
             "with an FP32 operand; cycles = max(stream, ceil(M / sublanes) x ceil(N / lanes)), the MXU's occupancy "
             "(back-to-back matmuls pipeline); the simulator adds the pipeline fill, mxu_weight_load_cycles (x "
             "mxu_fp32_passes) + mxu_latency_cycles, when the MXU starts after being idle",
     .use = matmulUse,
     .verify = verifyMatmul,
     .execute = matmul,
     .cycles = matmulCycles,
     .family = "tpu",
     .settings = kMatmulSettings,
     .category = Category::Matmul,
     .flops = matmulFlops},
    {.op = Opcode::TpuDma,
     .name = "dma",
     .nki = "pltpu.make_async_copy(...).start() / tpu.enqueue_dma",
     .summary = "dst_ref <- src_ref between HBM and VMEM, bytes unchanged; an async copy that signals its DMA "
                "semaphore when done",
     .engines = {Engine::Dma},
     .preferredEngine = Engine::Dma,
     .since = "v4",
     .operands = kDmaOperands,
     .limits = "one side HBM, the other VMEM; the same dtype and shape on both sides",
     .cost = "a DMA transfer, timed by the simulator's DMA queue from the [dma] table: max(fixed_latency_ns, the "
             "bytes at its engine's bandwidth), engines shared with the other queues and capped by the core's HBM "
             "share; no engine cycles",
     .use = readsSrc0,
     .verify = verifyDma,
     .execute = dma,
     .cycles = noEngineCycles,
     .family = "tpu",
     .settings = kDmaSettings,
     .category = Category::Dma,
     .flops = noFlops},
    {.op = Opcode::GridStep,
     .name = "grid_step",
     .nki = "pl.pallas_call grid iteration / the pipeline's per-step scalar work",
     .summary = "the scalar core's bookkeeping at the start of a grid step (block indices, DMA issue, semaphores): "
                "Pallas' per-step overhead",
     .engines = {Engine::ScalarUnit},
     .preferredEngine = Engine::ScalarUnit,
     .since = "v4",
     .operands = {},
     .limits = "no operands; one at the kernel's entry and one per iteration of a loop that loads or stores",
     .cost = "grid_step_cycles; it starts once every instruction of the previous grid step has completed, and the "
             "MXU, VPU and scalar-unit instructions of its own step start once it has",
     .use = noOperands,
     .verify = verifyGridStep,
     .execute = noEffect,
     .cycles = gridStepCycles,
     .family = "tpu",
     .category = Category::Control,
     .flops = noFlops},
};

} // namespace

std::span<const InstructionDef> tpuCoreInstructions() { return kDefinitions; }

} // namespace tessera::isa::instructions
