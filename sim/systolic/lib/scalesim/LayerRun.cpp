#include "tessera/systolic/scalesim/LayerRun.h"

#include "tessera/systolic/scalesim/EstimatingReadBuffer.h"
#include "tessera/systolic/scalesim/FoldPlan.h"
#include "tessera/systolic/scalesim/OperandMatrices.h"
#include "tessera/systolic/scalesim/PrefetchReadBuffer.h"
#include "tessera/systolic/scalesim/WriteBuffer.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

namespace tessera::systolic::scalesim {

namespace {

/// Where an operand's SRAM accesses start and stop: the served cycle of the first and last line with any.
struct SpanTracker {
  std::optional<int64_t> first;
  int64_t last = 0;
  void note(bool any, int64_t cycle) {
    if (!any) return;
    if (!first) first = cycle;
    last = cycle;
  }
};

/// Appends one trace line: the cycle, then the operand's slots of this fold line.
void traceLine(std::string &out, int64_t cycle, const Stream &s, int64_t line) {
  out += fmt::format("{}", cycle);
  for (int64_t c = 0; c < s.width; ++c) out += fmt::format(",{}", s.at(line, c));
  out += '\n';
}

/// The ifmap and filter read buffers of one bandwidth mode.
struct CalcReads {
  EstimatingReadBuffer ifmap, filter;
  int64_t serveIfmap(const std::vector<int64_t> &a, int64_t cycle) {
    ifmap.serve(a.data(), a.size(), cycle);
    return cycle + 1; // never stalls
  }
  int64_t serveFilter(const std::vector<int64_t> &a, int64_t cycle) {
    filter.serve(a.data(), a.size(), cycle);
    return cycle + 1;
  }
  void complete() {
    ifmap.complete();
    filter.complete();
  }
};
struct UserReads {
  PrefetchReadBuffer ifmap, filter;
  int64_t serveIfmap(const std::vector<int64_t> &a, int64_t cycle) { return ifmap.serve(a.data(), a.size(), cycle); }
  int64_t serveFilter(const std::vector<int64_t> &a, int64_t cycle) {
    return filter.serve(a.data(), a.size(), cycle);
  }
  void complete() {}
};

template <typename Reads>
void run(const FoldPlan &plan, Reads &reads, WriteBuffer &writes, LayerReport &r,
         SramTraces *traces) {
  std::vector<int64_t> a, b, c;
  SpanTracker ifmapSpan, filterSpan, ofmapSpan;
  int64_t stalls = 0, line = 0, maxServed = 0, lastServed = 0;
  for (int64_t f = 0; f < plan.foldCount(); ++f) {
    const Fold fold = plan.fold(f);
    for (int64_t l = 0; l < plan.foldLines(); ++l, ++line) {
      const int64_t cycle = line + stalls;
      a.clear(), b.clear(), c.clear();
      fold.streams[kIfmap].appendLine(l, a);
      fold.streams[kFilter].appendLine(l, b);
      fold.streams[kOfmap].appendLine(l, c);
      const int64_t ifmapServed = reads.serveIfmap(a, cycle);
      const int64_t filterServed = reads.serveFilter(b, cycle);
      const int64_t ofmapServed = writes.serve(c.size(), cycle);
      ifmapSpan.note(!a.empty(), ifmapServed);
      filterSpan.note(!b.empty(), filterServed);
      ofmapSpan.note(!c.empty(), ofmapServed);
      if (traces) {
        traceLine(traces->ifmap, ifmapServed, fold.streams[kIfmap], l);
        traceLine(traces->filter, filterServed, fold.streams[kFilter], l);
        traceLine(traces->ofmap, ofmapServed, fold.streams[kOfmap], l);
      }
      // A read served later than the hit latency of one, or a write later than at once, stalls the array.
      stalls += std::max({ifmapServed - cycle - 1, filterServed - cycle - 1, ofmapServed - cycle});
      maxServed = std::max(maxServed, ofmapServed);
      lastServed = ofmapServed;
    }
  }
  reads.complete();
  writes.drainAll(lastServed);

  r.totalCycles = maxServed;
  r.stallCycles = stalls;
  r.ifmapSram = {ifmapSpan.first.value_or(0), ifmapSpan.last, plan.sramRequests(kIfmap)};
  r.filterSram = {filterSpan.first.value_or(0), filterSpan.last, plan.sramRequests(kFilter)};
  r.ofmapSram = {ofmapSpan.first.value_or(0), ofmapSpan.last, plan.sramRequests(kOfmap)};
  r.ifmapDram = {reads.ifmap.dramStartCycle(), reads.ifmap.dramStopCycle(), reads.ifmap.dramReads()};
  r.filterDram = {reads.filter.dramStartCycle(), reads.filter.dramStopCycle(), reads.filter.dramReads()};
  r.ofmapDram = {writes.dramStartCycle(), writes.dramStopCycle(), writes.dramWrites()};
}

double perCycle(int64_t count, int64_t cycles) { return double(count) / double(cycles); }

} // namespace

int64_t operandWords(const Layer &layer) {
  return layer.gemmM() * layer.gemmK() + layer.gemmK() * layer.gemmN() + layer.gemmM() * layer.gemmN();
}

LayerReport simulateLayer(const Config &config, const Layer &layer, SramTraces *traces) {
  const OperandMatrices mats = buildOperandMatrices(layer, config);
  const FoldPlan plan(config, mats);
  LayerReport r;
  r.name = layer.name;
  r.m = mats.m, r.n = mats.n, r.k = mats.k, r.folds = plan.foldCount(), r.macs = layer.macs();
  const int64_t ifmapWords = config.ifmapKiB * 1024, filterWords = config.filterKiB * 1024;
  const int64_t ofmapWords = config.ofmapKiB * 1024;
  if (config.bandwidthMode == BandwidthMode::Calc) {
    // SCALE-Sim's CALC mode drains the ofmap a row of the array's width per cycle.
    CalcReads reads{EstimatingReadBuffer(ifmapWords, mats.ifmapFirst, mats.ifmapEnd),
                    EstimatingReadBuffer(filterWords, mats.filterFirst, mats.filterEnd)};
    WriteBuffer writes(ofmapWords, config.cols);
    run(plan, reads, writes, r, traces);
  } else {
    UserReads reads{PrefetchReadBuffer(ifmapWords, config.ifmapBandwidth, plan.prefetchOrder(kIfmap)),
                    PrefetchReadBuffer(filterWords, config.filterBandwidth, plan.prefetchOrder(kFilter))};
    WriteBuffer writes(ofmapWords, config.ofmapBandwidth);
    run(plan, reads, writes, r, traces);
  }
  r.totalCyclesWithPrefetch = r.ofmapDram.stop - std::min(r.ifmapDram.start, r.filterDram.start);
  r.overallUtilPct = double(r.macs * 100) / double(r.totalCycles * config.rows * config.cols);
  r.mappingEfficiencyPct = plan.mappingEfficiency() * 100;
  r.computeUtilPct = plan.computeUtilization() * 100;
  r.avgIfmapSramBw = perCycle(r.ifmapSram.count, r.totalCycles);
  r.avgFilterSramBw = perCycle(r.filterSram.count, r.totalCycles);
  r.avgOfmapSramBw = perCycle(r.ofmapSram.count, r.totalCycles);
  r.avgIfmapDramBw = perCycle(r.ifmapDram.count, r.ifmapDram.stop - r.ifmapDram.start + 1);
  r.avgFilterDramBw = perCycle(r.filterDram.count, r.filterDram.stop - r.filterDram.start + 1);
  r.avgOfmapDramBw = perCycle(r.ofmapDram.count, r.ofmapDram.stop - r.ofmapDram.start + 1);
  return r;
}

} // namespace tessera::systolic::scalesim
