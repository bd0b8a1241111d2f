#include "tessera/LaunchRun.h"

#include <fmt/format.h>

#include <algorithm>

namespace tessera::driver {

sim::SimResult simulateLaunch(std::span<const isa::Program> cores, const isa::Target &target, sim::HbmImage &hbm,
                              const sim::SimOptions &options, std::vector<CoreRun> *perCore) {
  if (cores.size() == 1) return sim::simulate(cores.front(), target, hbm, options);
  sim::ChipResult chip = sim::simulateChip(cores, target, hbm, options);
  sim::SimResult merged;
  merged.timeNs = chip.timeNs;
  merged.hostSeconds = chip.hostSeconds;
  uint32_t streamBase = 0;
  for (size_t c = 0; c < chip.cores.size(); ++c) {
    sim::SimResult &core = chip.cores[c];
    merged.instructions += core.instructions;
    merged.flops += core.flops;
    merged.hbmBytes += core.hbmBytes;
    for (unsigned d = 0; d < isa::kPeakDtypeCount; ++d) merged.flopsByPeak[d] += core.flopsByPeak[d];
    for (size_t s = 0; s < core.streams.size(); ++s) {
      const isa::Stream &stream = cores[c].streams[s]; // named as mergeCores names it, its instructions not copied
      const isa::Stream named{.engine = stream.engine, .queue = stream.queue, .core = static_cast<int32_t>(c)};
      merged.streams.push_back(std::move(core.streams[s]));
      merged.streams.back().name = named.label();
    }
    for (sim::InstructionEvent event : core.timeline) {
      event.stream += streamBase;
      merged.timeline.push_back(event);
    }
    for (sim::DevicePrint &print : core.prints) {
      print.stream = fmt::format("core{}.{}", c, print.stream); // as Stream::label names a core's stream
      merged.prints.push_back(std::move(print));
    }
    if (perCore && c < perCore->size()) {
      CoreRun &run = (*perCore)[c];
      run.timeNs = core.timeNs, run.instructions = core.instructions, run.hbmBytes = core.hbmBytes;
    }
    streamBase += static_cast<uint32_t>(core.streams.size());
  }
  std::ranges::stable_sort(merged.timeline, {}, &sim::InstructionEvent::endNs);
  std::ranges::stable_sort(merged.prints, {}, &sim::DevicePrint::timeNs);
  return merged;
}

} // namespace tessera::driver
