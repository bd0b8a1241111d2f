#include "engines/MxuTiming.h"

namespace tessera::sim {

uint64_t exposedWeightLoadCycles(const isa::Instruction &inst, const isa::Target &target) {
  if (inst.op != isa::Opcode::MxuMatmul)
    return 0;
  const bool fp32 = inst.src0.dtype == isa::DType::F32 || inst.src1.dtype == isa::DType::F32;
  return uint64_t{target.tpuCost.mxuWeightLoadCycles} * (fp32 ? target.tpuCost.mxuFp32Passes : 1);
}

} // namespace tessera::sim
