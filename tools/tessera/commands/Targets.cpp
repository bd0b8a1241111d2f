// `tessera targets`: the machines that can be simulated, with their headline figures.

#include "tessera/commands/Commands.h"

#include "tessera/CommandLine.h"
#include "tessera/Report.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace tessera::driver {

int targetsCommand(const std::vector<std::string> &args) {
  const bool json = parseJsonOption(args, "tessera targets");
  nlohmann::json out = nlohmann::json::array();
  for (const isa::Target &t : isa::Target::all()) {
    if (json) out.push_back(toJson(t));
    else if (t.isTpu()) // one TensorCore: peak per TensorCore, its share of HBM, VMEM, the MXUs
      fmt::print("{:<8} {:<10} {:<4} {:>6.1f} TFLOP/s bf16  {:>6.1f} B/ns HBM  {} MiB VMEM  {} MXUs {}x{} at {} GHz, "
                 "{} TensorCore{}/chip  {}\n",
                 t.name, t.family, t.generation, t.tensor.peakBf16Tflops, t.dma.hbmGBps, t.tpu.vmemBytes >> 20,
                 t.tpu.mxus, t.tensor.rows, t.tensor.cols, t.tensor.clockGhz, t.tpu.tensorCoresPerChip,
                 t.tpu.tensorCoresPerChip == 1 ? "" : "s", t.description);
    else
      fmt::print("{:<8} {:<10} {:<4} {:>6.1f} TFLOP/s bf16  {:>6.1f} B/ns DMA  {} KiB SBUF/partition  {}\n", t.name,
                 t.family, t.generation, t.tensor.peakBf16Tflops, t.dma.bytesPerNs(), t.sbufBytesPerPartition / 1024,
                 t.description);
  }
  if (json) fmt::print("{}\n", out.dump(2));
  return kOk;
}

} // namespace tessera::driver
