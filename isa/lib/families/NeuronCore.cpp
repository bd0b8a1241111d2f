/// \file
/// The NeuronCore family (trn1, trn2, trn3): four compute engines and DMA queues, SBUF and PSUM in partitions.

#include "Families.h"

#include <fmt/format.h>

namespace tessera::isa::builtin {
namespace {

class NeuronCore final : public Family {
public:
  std::string_view name() const override { return "neuroncore"; }
  std::string_view title() const override { return "NeuronCore"; }
  std::string generationLabel(std::string_view generation) const override {
    return fmt::format("NeuronCore-{}", generation);
  }

  EngineSet engines() const override {
    return {Engine::Tensor, Engine::Vector, Engine::Scalar, Engine::GpSimd, Engine::Dma};
  }
  std::string_view engineWord() const override { return "engine"; }
  bool gridSteps() const override { return false; }
  std::vector<FamilyMemory> memories(const Target &t) const override {
    return {{MemSpace::Sbuf, t.partitions, t.sbufBytesPerPartition},
            {MemSpace::Psum, t.partitions, t.psumBytesPerPartition}};
  }
  bool computeReaches(MemSpace space) const override { return space == MemSpace::Sbuf || space == MemSpace::Psum; }
  std::string_view reachHint() const override { return "compute engines reach only SBUF and PSUM"; }
  std::string_view programHint() const override {
    return "a NeuronCore program runs on the tensor, vector, scalar and gpsimd engines and DMA queues";
  }
  std::string_view memoryHint() const override { return "a NeuronCore program keeps its tiles in SBUF and PSUM"; }
  std::string checkOperands(const Instruction &, const Target &) const override { return {}; }
  std::string checkFigures(const Target &t) const override {
    if (t.partitions == 0) return "it has no partitions: set the memory's partitions in the target file";
    if (t.cost.stridedAccessFactor == 0)
      return "its [cost] strided_access_factor is 0: the DMA cost divides by it (give it 1 for no penalty)";
    return {};
  }
  bool stridedDmaPenalty() const override { return true; }

  std::string_view matrixUnit() const override { return "tensor engine"; }
  std::string_view matrixUnitKey() const override { return "tensor_engine"; }
  bool isBookkeeping(Engine) const override { return false; }
  uint32_t coresPerChip(const Target &t) const override { return t.hbm.coresPerChip; }
  std::string_view deviceBackend() const override { return "nki"; }
  std::string_view vendorApi() const override { return "NKI"; }
  std::string_view stage() const override { return "nc"; }
  std::vector<std::string> defaultCalibration() const override {
    return {"dma.fixed_latency_ns", "dma.descriptor_ns", "cost.static_overhead_cycles", "cost.access_overhead_cycles"};
  }
  std::string summary(const Target &t) const override {
    return fmt::format("{:<8} {:<10} {:<4} {:>6.1f} TFLOP/s bf16  {:>6.1f} B/ns DMA  {} KiB SBUF/partition  {}", t.name,
                       t.family, t.generation, t.tensor.peakBf16Tflops, t.dma.bytesPerNs(),
                       t.sbufBytesPerPartition / 1024, t.description);
  }
  void describe(const Target &t, FigureWriter &out) const override {
    out.beginGroup("");
    out.count("partitions", t.partitions);
    out.count("sbuf_bytes_per_partition", t.sbufBytesPerPartition);
    out.count("psum_bytes_per_partition", t.psumBytesPerPartition);
    out.count("psum_banks", t.psumBanks);
    out.beginGroup("tensor_engine");
    out.count("rows", t.tensor.rows);
    out.count("cols", t.tensor.cols);
    out.figure("clock_ghz", t.tensor.clockGhz);
    out.figure("peak_bf16_tflops", t.tensor.peakBf16Tflops);
    out.figure("peak_fp32_tflops", t.tensor.peakFp32Tflops);
    out.endGroup();
    out.figure("vector_clock_ghz", t.vector.clockGhz);
    out.figure("scalar_clock_ghz", t.scalar.clockGhz);
    out.figure("gpsimd_clock_ghz", t.gpsimd.clockGhz);
    out.endGroup();
  }
};

} // namespace

const Family &neuronCore() {
  static const NeuronCore family;
  return family;
}

} // namespace tessera::isa::builtin
