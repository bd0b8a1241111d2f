#pragma once
/// \file
/// A TPU target built in code for the TPU instruction tests, so that their cost checks do not depend on the target
/// files. The figures are v5e-like (tpu-v5e.toml, sources in docs/targets.md: one TensorCore, 4 MXUs of 128x128,
/// 8 x 128 vregs, 128 MiB VMEM, 1 MiB SMEM, 1.5 GHz); the cost coefficients are TEST VALUES, chosen distinct from
/// each other so that a formula that reads the wrong one fails, not published figures.

#include "tessera/isa/Target.h"

namespace tessera::isa::testing {

inline Target tpuTestTarget() {
  Target t;
  t.name = "test-v5e";
  t.family = "tpu";
  t.generation = "v5e";
  t.description = "v5e-like TPU built in code for the tests (cost coefficients are test values)";

  t.tensor.clockGhz = 1.5;
  t.tensor.rows = 128;
  t.tensor.cols = 128;
  t.tensor.peakBf16Tflops = 197;
  t.vector.clockGhz = 1.5;
  t.vector.lanes = 128;
  t.scalar.clockGhz = 1.5;

  t.tpu.tensorCoresPerChip = 1;
  t.tpu.mxus = 4;
  t.tpu.sublanes = 8;
  t.tpu.lanes = 128;
  t.tpu.vregs = 32;
  t.tpu.scalarRegisters = 32;
  t.tpu.vmemBytes = uint64_t{128} << 20;
  t.tpu.smemBytes = uint64_t{1} << 20;
  t.tpu.vmemAlignment = 8 * 128 * 4;

  t.hbm.bytes = uint64_t{16} << 30;
  t.hbm.chipGBps = 819;
  t.hbm.coresPerChip = 1;

  // Test values.
  t.tpuCost.mxuRowsPerCycle = 1;
  t.tpuCost.mxuWeightLoadCycles = 96;
  t.tpuCost.mxuFp32Passes = 3;
  t.tpuCost.mxuLatencyCycles = 37;
  t.tpuCost.vpuLatencyCycles = 5;
  t.tpuCost.vpuLoadSlots = 3;
  t.tpuCost.vpuStoreSlots = 2;
  t.tpuCost.eupCyclesPerVreg = 4;
  t.tpuCost.xluReduceCycles = 11;
  t.tpuCost.xluRelayoutCyclesPerVreg = 2.5;
  t.tpuCost.gridStepCycles = 525;
  return t;
}

} // namespace tessera::isa::testing
