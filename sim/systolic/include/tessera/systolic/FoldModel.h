#pragma once
/// \file
/// The closed-form fold model: the same counts as the PE model (PeModel.h) from the mapping alone, in
/// microseconds for any size. Per dataflow (Sr, Sc, T from Mapping.h; Fr, Fc row and column folds):
///
///            | ifmap (A) SRAM reads | filter (B) SRAM reads | ofmap (C) SRAM writes
///   os       | Fc * M * K           | Fr * K * N            | M * N
///   ws       | Fc * M * K           | K * N                 | Fr * M * N   (one partial sum per K fold)
///   is       | M * K                | Fc * K * N            | Fr * M * N
///
/// DRAM reads follow SCALE-Sim's CALC read buffer (ReadBuffer.h); every ofmap SRAM write is written to DRAM once.

#include "tessera/systolic/ArrayConfig.h"
#include "tessera/systolic/Result.h"

namespace tessera::systolic {

/// Throws tessera::Error on bad sizes.
Result runFoldModel(const ArrayConfig &config, const Gemm &gemm);

} // namespace tessera::systolic
