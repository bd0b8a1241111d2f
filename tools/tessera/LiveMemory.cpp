#include "tessera/LiveMemory.h"

#include "tessera/isa/Family.h"

#include <algorithm>
#include <cctype>

namespace tessera::driver {

using isa::MemSpace;

std::string LiveSeries::title() const {
  std::string t(isa::name(space));
  for (char &c : t) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return core >= 0 ? t + ", core " + std::to_string(core) : t;
}

const LiveSeries &LiveBytes::of(isa::MemSpace space) const {
  static const LiveSeries none;
  for (const LiveSeries &m : memories)
    if (m.space == space) return m;
  return none;
}

LiveBytes liveBytesOverTime(const isa::Program &program, const isa::Target &target,
                            const std::vector<sim::InstructionEvent> &timeline) {
  LiveBytes out;
  // Per memory: the address segments that no access boundary splits, so each is live or not as a whole.
  struct Memory {
    std::vector<int64_t> cuts;                 // segment boundaries, sorted
    std::vector<double> born, lastUse;         // per segment: current value's write start (-1: none), last use end
    std::vector<uint64_t> readBy;              // per segment: the event (1-based) that last read it
    std::vector<std::pair<double, int64_t>> deltas;
  };
  std::vector<Memory> mems;
  int32_t lastCore = -1; // each core of an SPMD launch has memories of its own
  for (const isa::Stream &stream : program.streams) lastCore = std::max(lastCore, stream.core);
  for (int32_t core = lastCore < 0 ? -1 : 0; core <= lastCore; ++core)
    for (const isa::FamilyMemory &m : isa::familyOf(target).memories(target)) {
      out.memories.push_back(
          {.space = m.space, .partitions = m.partitions, .capacityBytes = m.bytesPerPartition, .core = core});
      mems.emplace_back();
    }
  auto memOf = [&](MemSpace s, int32_t core) -> Memory * {
    for (size_t i = 0; i < out.memories.size(); ++i)
      if (out.memories[i].space == s && out.memories[i].core == core) return &mems[i];
    return nullptr;
  };
  auto operands = [](const isa::Instruction &inst, auto &&visit) {
    isa::forEachOperand(inst, [&](const char *, const isa::AccessPattern &ap, bool write) { visit(ap, write); });
  };
  for (const sim::InstructionEvent &e : timeline)
    operands(program.streams[e.stream].instructions[e.index], [&](const isa::AccessPattern &ap, bool) {
      if (Memory *m = memOf(ap.space, program.streams[e.stream].core); m && ap.partitions > 0) {
        auto [lo, hi] = ap.byteExtent();
        m->cuts.push_back(lo), m->cuts.push_back(hi);
      }
    });
  for (Memory &m : mems) {
    std::sort(m.cuts.begin(), m.cuts.end());
    m.cuts.erase(std::unique(m.cuts.begin(), m.cuts.end()), m.cuts.end());
    const size_t segments = m.cuts.empty() ? 0 : m.cuts.size() - 1;
    m.born.assign(segments, -1), m.lastUse.assign(segments, 0), m.readBy.assign(segments, 0);
  }
  auto close = [](Memory &m, size_t seg) {
    if (m.born[seg] < 0) return;
    const int64_t size = m.cuts[seg + 1] - m.cuts[seg];
    m.deltas.emplace_back(m.born[seg], size), m.deltas.emplace_back(std::max(m.lastUse[seg], m.born[seg]), -size);
    m.born[seg] = -1;
  };

  // Walk instructions in start order: a value's readers start after its writer (semaphores order them), and its
  // next writer starts after they end.
  std::vector<size_t> order(timeline.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return timeline[a].startNs < timeline[b].startNs; });
  for (size_t k = 0; k < order.size(); ++k) {
    const sim::InstructionEvent &e = timeline[order[k]];
    const isa::Instruction &inst = program.streams[e.stream].instructions[e.index];
    const uint64_t serial = k + 1;
    operands(inst, [&](const isa::AccessPattern &ap, bool write) {
      Memory *m = memOf(ap.space, program.streams[e.stream].core);
      if (!m || ap.partitions == 0) return;
      auto [lo, hi] = ap.byteExtent();
      const size_t first = std::lower_bound(m->cuts.begin(), m->cuts.end(), lo) - m->cuts.begin();
      const size_t last = std::lower_bound(m->cuts.begin(), m->cuts.end(), hi) - m->cuts.begin();
      for (size_t seg = first; seg < last; ++seg) {
        if (!write) {
          m->readBy[seg] = serial;
          if (m->born[seg] >= 0) m->lastUse[seg] = std::max(m->lastUse[seg], e.endNs);
          continue;
        }
        // Writing what this instruction also reads (in place, or a matmul accumulating) keeps the value alive.
        if (m->readBy[seg] == serial && m->born[seg] >= 0) {
          m->lastUse[seg] = std::max(m->lastUse[seg], e.endNs);
          continue;
        }
        close(*m, seg);
        m->born[seg] = e.startNs, m->lastUse[seg] = e.endNs;
      }
    });
  }
  for (size_t i = 0; i < mems.size(); ++i) {
    Memory &m = mems[i];
    for (size_t seg = 0; seg < m.born.size(); ++seg) close(m, seg);
    // Frees before allocations at the same instant, so a buffer handed over does not count twice.
    std::sort(m.deltas.begin(), m.deltas.end());
    auto &steps = out.memories[i].steps;
    int64_t &peak = out.memories[i].peak;
    int64_t level = 0;
    steps.emplace_back(0.0, 0);
    for (const auto &[t, d] : m.deltas) {
      level += d;
      if (steps.back().first == t) steps.back().second = level;
      else steps.emplace_back(t, level);
      peak = std::max(peak, level);
    }
  }
  return out;
}

} // namespace tessera::driver
