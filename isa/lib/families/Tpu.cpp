/// \file
/// The TPU family (v4, v5e, v5p, v6e, 7x): one TensorCore's MXUs, VPU and scalar core with DMA queues; flat VMEM
/// and SMEM.

#include "Families.h"

#include <fmt/format.h>

namespace tessera::isa::builtin {
namespace {

class Tpu final : public Family {
public:
  std::string_view name() const override { return "tpu"; }
  std::string_view title() const override { return "TPU"; }
  std::string generationLabel(std::string_view generation) const override {
    return fmt::format("TPU {}", generation);
  }

  EngineSet engines() const override { return {Engine::Mxu, Engine::Vpu, Engine::ScalarUnit, Engine::Dma}; }
  std::string_view engineWord() const override { return "unit"; }
  bool gridSteps() const override { return true; }
  std::vector<FamilyMemory> memories(const Target &t) const override {
    return {{MemSpace::Vmem, 1, t.tpu.vmemBytes}, {MemSpace::Smem, 1, t.tpu.smemBytes}};
  }
  bool computeReaches(MemSpace space) const override { return space == MemSpace::Vmem; }
  std::string_view reachHint() const override { return "the TensorCore's compute units reach only VMEM"; }
  std::string_view programHint() const override {
    return "a TPU program runs on the mxu, vpu and scalar units and DMA queues";
  }
  std::string_view memoryHint() const override { return "a TPU program keeps its tiles in VMEM (and scalars in SMEM)"; }

  /// Every VMEM operand lies inside the target's VMEM (tpu.vmemBytes).
  std::string checkOperands(const Instruction &inst, const Target &target) const override {
    std::string problem;
    forEachOperand(inst, [&](const char *slot, const AccessPattern &ap, bool) {
      if (!problem.empty() || ap.space != MemSpace::Vmem) return;
      const auto [first, last] = ap.byteExtent();
      if (first < 0 || static_cast<uint64_t>(last) > target.tpu.vmemBytes)
        problem = fmt::format("{} covers VMEM bytes [{}, {}), outside the {} bytes of VMEM on {}", slot, first, last,
                              target.tpu.vmemBytes, target.name);
    });
    return problem;
  }
  std::string checkFigures(const Target &t) const override {
    const TpuSpec &tpu = t.tpu;
    const TpuCostModel &cost = t.tpuCost;
    if (tpu.mxus == 0 || t.tensor.rows == 0 || t.tensor.cols == 0 || tpu.sublanes == 0 || tpu.lanes == 0 ||
        tpu.vmemBytes == 0 || tpu.smemBytes == 0 || cost.mxuRowsPerCycle == 0 || cost.vpuLoadSlots == 0 ||
        cost.vpuStoreSlots == 0)
      return fmt::format("{} MXUs of {} x {}, vregs of {} sublanes x {} lanes, {} bytes of VMEM and {} of SMEM, {} MXU "
                         "rows per cycle, {} vreg loads and {} stores per cycle: a TPU target needs positive MXU "
                         "count and size, vreg shape, VMEM and SMEM sizes, and the per-cycle rates its cost formulas "
                         "divide by",
                         tpu.mxus, t.tensor.rows, t.tensor.cols, tpu.sublanes, tpu.lanes, tpu.vmemBytes, tpu.smemBytes,
                         cost.mxuRowsPerCycle, cost.vpuLoadSlots, cost.vpuStoreSlots);
    return {};
  }
  bool stridedDmaPenalty() const override { return false; }

  std::string_view matrixUnit() const override { return "MXUs"; }
  std::string_view matrixUnitKey() const override { return "mxu"; }
  /// The scalar core only does the grid loop's bookkeeping.
  bool isBookkeeping(Engine engine) const override { return engine == Engine::ScalarUnit; }
  uint32_t coresPerChip(const Target &t) const override { return t.tpu.tensorCoresPerChip; }
  std::string_view deviceBackend() const override { return "pallas"; }
  std::string_view vendorApi() const override { return "Pallas / Mosaic"; }
  std::string_view stage() const override { return "tpu"; }
  std::vector<std::string> defaultCalibration() const override {
    return {"dma.fixed_latency_ns", "dma.efficiency_knee_bytes", "cost.grid_step_cycles",
            "cost.mxu_weight_load_cycles"};
  }
  /// One TensorCore: peak per TensorCore, its share of HBM, VMEM, the MXUs.
  std::string summary(const Target &t) const override {
    return fmt::format("{:<8} {:<10} {:<4} {:>6.1f} TFLOP/s bf16  {:>6.1f} B/ns HBM  {} MiB VMEM  {} MXUs {}x{} at {} "
                       "GHz, {} TensorCore{}/chip  {}",
                       t.name, t.family, t.generation, t.tensor.peakBf16Tflops, t.dma.hbmGBps, t.tpu.vmemBytes >> 20,
                       t.tpu.mxus, t.tensor.rows, t.tensor.cols, t.tensor.clockGhz, t.tpu.tensorCoresPerChip,
                       t.tpu.tensorCoresPerChip == 1 ? "" : "s", t.description);
  }
  /// One TensorCore: its MXUs (each rows x cols), one clock, VMEM/SMEM; peaks per TensorCore.
  void describe(const Target &t, FigureWriter &out) const override {
    out.beginGroup("tensor_core");
    out.count("tensor_cores_per_chip", t.tpu.tensorCoresPerChip);
    out.figure("clock_ghz", t.tensor.clockGhz);
    out.count("mxus", t.tpu.mxus);
    out.count("mxu_rows", t.tensor.rows);
    out.count("mxu_cols", t.tensor.cols);
    out.figure("peak_bf16_tflops", t.tensor.peakBf16Tflops);
    out.figure("peak_fp32_tflops", t.tensor.peakFp32Tflops);
    out.figure("peak_fp8_tflops", t.tensor.peakFp8Tflops);
    out.figure("peak_int8_tops", t.tpu.peakInt8Tops);
    out.count("sublanes", t.tpu.sublanes);
    out.count("lanes", t.tpu.lanes);
    out.count("vregs", t.tpu.vregs);
    out.count("vmem_bytes", t.tpu.vmemBytes);
    out.count("smem_bytes", t.tpu.smemBytes);
    out.endGroup();
  }
};

} // namespace

const Family &tpu() {
  static const Tpu family;
  return family;
}

} // namespace tessera::isa::builtin
