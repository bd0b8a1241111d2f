#pragma once
/// \file
/// What the TPU's MXU time depends on beyond one instruction's cycles (isa::engineCycles): the first weight load.
/// An MxuMatmul's cost counts its weight tiles' loads as hidden behind the rows streaming through the previous
/// tile (the next weights load while the current rows stream), except the first. That one is hidden only when the
/// MXU was busy right up to the instruction's start, finishing the instruction before it; when the MXU starts an
/// instruction after being idle (its first instruction, or a start later than the previous one's completion),
/// nothing hid it, and the ComputeEngine adds these cycles.

#include "tessera/isa/Program.h"
#include "tessera/isa/Target.h"

#include <cstdint>

namespace tessera::sim {

/// The cycles an MXU instruction that starts on an idle MXU adds: tpuCost.mxuWeightLoadCycles for a matmul, times
/// tpuCost.mxuFp32Passes when an operand is FP32 (each pass loads its weights); 0 for anything else.
uint64_t exposedWeightLoadCycles(const isa::Instruction &inst, const isa::Target &target);

} // namespace tessera::sim
