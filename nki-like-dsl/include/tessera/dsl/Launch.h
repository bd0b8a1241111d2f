#pragma once
/// \file
/// SPMD launches, as NKI's `kernel[2](a, b)` and Pallas' parallel grid: a kernel whose KernelInfo::grid is not
/// empty runs once per program of its launch grid, and each program reads its coordinates with program_id. The
/// programs are spread over the cores a launch uses on the target (trn2/trn3: the two physical cores of a logical
/// NeuronCore; TPU v4/v5p: the two TensorCores of a megacore), each core taking a contiguous block of axis 0.

#include "tessera/dsl/Index.h"

#include <cstdint>
#include <source_location>

namespace tsr {

/// This program's index along `axis` of the launch grid (nl.program_id, pl.program_id): a symbolic index, as a loop
/// index is. A tsr::Error at the caller's line when the kernel has no launch grid or no such axis.
Index program_id(int axis = 0, std::source_location loc = std::source_location::current());

/// The number of programs along `axis` of the launch grid (nl.num_programs, pl.num_programs). A tsr::Error at the
/// caller's line when the kernel has no launch grid or no such axis.
int64_t num_programs(int axis = 0, std::source_location loc = std::source_location::current());

} // namespace tsr
