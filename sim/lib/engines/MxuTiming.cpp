#include "engines/MxuTiming.h"

namespace tessera::sim {

uint64_t pipelineFillCycles(const isa::Instruction &inst, const isa::Target &target) {
  if (inst.op != isa::Opcode::MxuMatmul)
    return 0;
  const isa::TpuCostModel &cost = target.tpuCost;
  const bool fp32 = inst.src0.dtype == isa::DType::F32 || inst.src1.dtype == isa::DType::F32;
  return uint64_t{cost.mxuWeightLoadCycles} * (fp32 ? cost.mxuFp32Passes : 1) + cost.mxuLatencyCycles;
}

} // namespace tessera::sim
