/// \file
/// The documented NeuronCore instruction costs (docs/targets.md "Documented instruction costs"): each
/// instruction's formula is in its definition (isa/lib/instructions/), with every coefficient read from the
/// target's [cost] table; what they share is here. No cycle count is written in code.

#include "tessera/isa/Cost.h"

#include "tessera/isa/Modes.h"

#include "instructions/Common.h"

#include "tessera/isa/AccessRules.h"

#include <algorithm>

namespace tessera::isa {

namespace instructions {

uint64_t streamingInstructionCycles(const Instruction &inst, uint64_t streaming, Engine engine,
                                    const Target &target) {
  const CostModel &cost = target.cost;
  const uint64_t startup = engine == Engine::GpSimd ? cost.gpsimdStartupCycles : 0;
  const uint64_t strided = streaming * stridedAccessFactor(inst, target);
  return startup + cost.accessOverheadCycles + std::max<uint64_t>(cost.minInitiationCycles, strided);
}

} // namespace instructions

uint64_t engineCycles(const Instruction &inst, Engine engine, const Target &target) {
  // A DMA transfer's time depends on the bandwidth the queues share at that moment, which the simulator models
  // from Target::dma; it has no engine-cycle cost.
  if (engine == Engine::Dma)
    return 0;
  return definition(inst.op).cycles(inst, engine, target);
}

uint64_t stridedAccessFactor(const Instruction &inst, const Target &target) {
  bool strided = false;
  forEachOperand(inst, [&](const char *, const AccessPattern &ap, bool) { strided |= isStridedAccess(ap, target); });
  return strided ? target.cost.stridedAccessFactor : 1;
}

double clockGhz(Engine engine, const Target &target) {
  switch (engine) {
  case Engine::Tensor: return target.tensor.clockGhz;
  case Engine::Vector: return target.vector.clockGhz;
  case Engine::Scalar: return target.scalar.clockGhz;
  case Engine::GpSimd: return target.gpsimd.clockGhz;
  case Engine::Mxu: return target.tensor.clockGhz;
  case Engine::Vpu: return target.vector.clockGhz;
  case Engine::ScalarUnit: return target.scalar.clockGhz;
  case Engine::Dma: return 1.0; // DMA costs are in nanoseconds
  }
  return 1.0;
}

uint64_t flops(const Instruction &inst) { return definition(inst.op).flops(inst); }

PeakDtype peakDtypeOf(const Instruction &inst) {
  if (definition(inst.op).category != Category::Matmul) return PeakDtype::Bf16;
  // The moving (streamed) operand sets the matmul's rate; a transpose has only src0.
  const DType dtype = inst.src1.partitions > 0 ? inst.src1.dtype : inst.src0.dtype;
  if (dtype == DType::F8E4M3 || dtype == DType::F8E5M2) return PeakDtype::Fp8;
  if (dtype == DType::F32) return PeakDtype::Fp32;
  return PeakDtype::Bf16;
}

double peakTflops(PeakDtype dtype, const Target &target) {
  const TensorEngineSpec &unit = target.tensor;
  const double peak = dtype == PeakDtype::Fp8    ? unit.peakFp8Tflops
                      : dtype == PeakDtype::Fp32 ? unit.peakFp32Tflops
                                                 : unit.peakBf16Tflops;
  return peak > 0 ? peak : unit.peakBf16Tflops;
}

uint64_t hbmBytes(const Instruction &inst) {
  if (inst.op != Opcode::DmaCopy && inst.op != Opcode::DmaTranspose && inst.op != Opcode::TpuDma)
    return 0;
  // Each HBM side is traffic: a read from HBM, a write to HBM, or both for an HBM-to-HBM copy.
  uint64_t bytes = 0;
  if (inst.src0.space == MemSpace::Hbm)
    bytes += static_cast<uint64_t>(inst.src0.bytes());
  if (inst.dst.space == MemSpace::Hbm)
    bytes += static_cast<uint64_t>(inst.dst.bytes());
  return bytes;
}

bool isTranscendental(ActFunc f) {
  return f != ActFunc::Identity && f != ActFunc::Relu && f != ActFunc::Square;
}

uint64_t transcendentals(const Instruction &inst) {
  const auto settings = definition(inst.op).settings;
  const bool appliesFunc = std::any_of(settings.begin(), settings.end(),
                                       [](const SettingDef &s) { return s.setting == Setting::Func; });
  if (!appliesFunc || !isTranscendental(inst.func) || inst.dst.partitions == 0)
    return 0;
  return static_cast<uint64_t>(inst.dst.partitions) * instructions::elementsPerPartition(inst.dst);
}

} // namespace tessera::isa
