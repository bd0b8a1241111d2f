// Which signal ended each semaphore wait, and the waits summed by who waited for whom.

#include "tessera/StallAnalysis.h"

#include <algorithm>
#include <map>
#include <utility>

namespace tessera::driver {

std::vector<int32_t> bindingProducers(const isa::Program &program, const std::vector<sim::InstructionEvent> &events) {
  // The completion time and stream of every signal of every semaphore, in time order: the k-th entry is what a
  // wait for count k waited for.
  std::vector<std::vector<std::pair<double, uint32_t>>> signalled(program.semaphores);
  for (const sim::InstructionEvent &e : events) {
    const isa::Instruction &inst = program.streams[e.stream].instructions[e.index];
    for (uint32_t sem : program.signalsOf(inst))
      if (sem < signalled.size()) signalled[sem].emplace_back(e.endNs, e.stream);
  }
  for (auto &list : signalled) std::stable_sort(list.begin(), list.end());
  std::vector<int32_t> producer(events.size(), -1);
  for (size_t i = 0; i < events.size(); ++i) {
    const sim::InstructionEvent &e = events[i];
    if (e.startNs <= e.issueNs) continue;
    const isa::Instruction &inst = program.streams[e.stream].instructions[e.index];
    double latest = -1;
    for (const isa::SemWait &w : program.waitsOf(inst)) {
      if (w.sem >= signalled.size() || w.count == 0 || w.count > signalled[w.sem].size()) continue;
      const auto &[when, stream] = signalled[w.sem][w.count - 1];
      if (when > latest) latest = when, producer[i] = static_cast<int32_t>(stream);
    }
  }
  return producer;
}

std::vector<Stall> stallReasons(const isa::Program &program, const sim::SimResult &result) {
  const std::vector<int32_t> producers = bindingProducers(program, result.timeline);
  std::map<std::pair<uint32_t, int32_t>, double> waited;
  for (size_t i = 0; i < result.timeline.size(); ++i) {
    const sim::InstructionEvent &e = result.timeline[i];
    if (e.startNs > e.issueNs) waited[{e.stream, producers[i]}] += e.startNs - e.issueNs;
  }
  std::vector<Stall> stalls;
  for (auto &[key, ns] : waited) stalls.push_back({key.first, key.second, ns});
  std::stable_sort(stalls.begin(), stalls.end(), [](const Stall &a, const Stall &b) { return a.waitNs > b.waitNs; });
  return stalls;
}

LeadWait leadWait(const isa::Program &program, const sim::SimResult &result, const std::vector<Stall> &stalls) {
  LeadWait w;
  if (result.timeNs <= 0) return w;
  for (size_t s = 0; s < result.streams.size() && s < program.streams.size(); ++s)
    if (program.streams[s].engine != isa::Engine::Dma &&
        (w.lead < 0 || result.streams[s].busyNs > result.streams[w.lead].busyNs))
      w.lead = static_cast<int32_t>(s);
  if (w.lead < 0) return w;
  w.leadBusyShare = result.streams[w.lead].busyNs / result.timeNs;
  std::map<std::string, double> waitedFor; // "DMA" or an engine's stream name
  for (const Stall &s : stalls)
    if (s.waiter == static_cast<uint32_t>(w.lead) && s.producer >= 0)
      waitedFor[program.streams[s.producer].engine == isa::Engine::Dma ? "DMA" : result.streams[s.producer].name] +=
          s.waitNs;
  const auto longest = std::max_element(waitedFor.begin(), waitedFor.end(),
                                        [](const auto &a, const auto &b) { return a.second < b.second; });
  if (longest == waitedFor.end()) return w;
  w.waitedFor = longest->first;
  w.waitShare = longest->second / result.timeNs;
  return w;
}

} // namespace tessera::driver
