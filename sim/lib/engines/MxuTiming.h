#pragma once
/// \file
/// What the TPU's MXU time depends on beyond one instruction's cycles (isa::engineCycles): the pipeline fill. An
/// MxuMatmul's cycles are its occupancy only: every weight-tile load but the first hides behind the rows streaming
/// through the previous tile (the next weights load while the current rows stream), and its results drain while
/// the next matmul's rows stream in, as back-to-back matmuls pipeline. When the MXU starts an instruction after
/// being idle (its first instruction, or a start later than the previous one's completion), nothing in flight hid
/// the first weight load or the pipeline's latency, and the ComputeEngine adds these cycles.

#include "tessera/isa/Program.h"
#include "tessera/isa/Target.h"

#include <cstdint>

namespace tessera::sim {

/// The cycles an MXU instruction that starts on an idle MXU adds: for a matmul, tpuCost.mxuWeightLoadCycles
/// (times tpuCost.mxuFp32Passes when an operand is FP32: each pass loads its weights) plus
/// tpuCost.mxuLatencyCycles (from the last row pushed to the last result popped); 0 for anything else.
uint64_t pipelineFillCycles(const isa::Instruction &inst, const isa::Target &target);

} // namespace tessera::sim
