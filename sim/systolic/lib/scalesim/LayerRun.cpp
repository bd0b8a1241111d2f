#include "tessera/systolic/scalesim/LayerRun.h"

#include "tessera/systolic/Mapping.h"

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

/// The array's demand on one operand's read buffer in one fold line: how many addresses, and the cycle they are
/// served. CALC mode's buffer never stalls and takes the addresses as they are made; once every read hits it is
/// not asked at all (only whether there were any matters).
int64_t demand(const Stream &s, int64_t line, EstimatingReadBuffer &buffer, int64_t cycle,
               std::vector<int64_t> &, int64_t &served) {
  served = cycle + 1;
  if (buffer.settled()) return s.matrix ? int64_t(s.any(line)) : s.count(line);
  return s.forEach(line, [&](int64_t a) { buffer.read(a, cycle); });
}
/// USER mode's buffer serves a line's addresses together, stalling while it prefetches.
int64_t demand(const Stream &s, int64_t line, PrefetchReadBuffer &buffer, int64_t cycle, std::vector<int64_t> &scratch,
               int64_t &served) {
  const int64_t n = s.line(line, scratch.data());
  served = buffer.serve(scratch.data(), size_t(n), cycle);
  return n;
}

void complete(EstimatingReadBuffer &buffer) { buffer.complete(); }
void complete(PrefetchReadBuffer &) {}

template <typename ReadBuffer>
void run(const FoldPlan &plan, ReadBuffer &ifmapBuffer, ReadBuffer &filterBuffer, WriteBuffer &writes,
         LayerReport &r, SramTraces *traces) {
  std::vector<int64_t> a(size_t(plan.fold(0).streams[kIfmap].width)), b(size_t(plan.fold(0).streams[kFilter].width));
  SpanTracker ifmapSpan, filterSpan, ofmapSpan;
  int64_t stalls = 0, line = 0, maxServed = 0, lastServed = 0;
  for (int64_t f = 0; f < plan.foldCount(); ++f) {
    const Fold fold = plan.fold(f);
    for (int64_t l = 0; l < plan.foldLines(); ++l, ++line) {
      const int64_t cycle = line + stalls;
      int64_t ifmapServed = 0, filterServed = 0;
      const int64_t na = demand(fold.streams[kIfmap], l, ifmapBuffer, cycle, a, ifmapServed);
      const int64_t nb = demand(fold.streams[kFilter], l, filterBuffer, cycle, b, filterServed);
      const int64_t nc = fold.streams[kOfmap].count(l); // the write buffer needs no addresses
      const int64_t ofmapServed = writes.serve(size_t(nc), cycle);
      ifmapSpan.note(na > 0, ifmapServed);
      filterSpan.note(nb > 0, filterServed);
      ofmapSpan.note(nc > 0, ofmapServed);
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
  complete(ifmapBuffer);
  complete(filterBuffer);
  writes.drainAll(lastServed);

  r.totalCycles = maxServed;
  r.stallCycles = stalls;
  r.ifmapSram = {ifmapSpan.first.value_or(0), ifmapSpan.last, plan.sramRequests(kIfmap)};
  r.filterSram = {filterSpan.first.value_or(0), filterSpan.last, plan.sramRequests(kFilter)};
  r.ofmapSram = {ofmapSpan.first.value_or(0), ofmapSpan.last, plan.sramRequests(kOfmap)};
  r.ifmapDram = {ifmapBuffer.dramStartCycle(), ifmapBuffer.dramStopCycle(), ifmapBuffer.dramReads()};
  r.filterDram = {filterBuffer.dramStartCycle(), filterBuffer.dramStopCycle(), filterBuffer.dramReads()};
  r.ofmapDram = {writes.dramStartCycle(), writes.dramStopCycle(), writes.dramWrites()};
}

double perCycle(int64_t count, int64_t cycles) { return double(count) / double(cycles); }

} // namespace

int64_t memoryBytes(const Config &config, const Layer &layer) {
  const int64_t m = layer.gemmM(), n = layer.gemmN(), k = layer.gemmK(), R = config.rows, C = config.cols;
  const int64_t ifmapWords = layer.ifmapHeight * layer.ifmapWidth * layer.channels;
  int64_t bytes = ifmapNeedsTable(layer) ? 8 * m * k + ifmapWords : 0;
  if (config.bandwidthMode == BandwidthMode::Calc) return bytes + 4 * (ifmapWords + k * n);
  // USER: each prefetch order (8 bytes an entry, the folds' blocks padded to the array) and its sets (4 bytes an
  // entry, 8 an address).
  auto blocks = [](int64_t extent, int64_t size) { return ceilDiv(extent, size) * size; };
  int64_t ifmapOrder = 0, filterOrder = 0;
  switch (config.dataflow) {
  case Dataflow::WeightStationary: ifmapOrder = m * blocks(k, R), filterOrder = k * blocks(n, C); break;
  case Dataflow::OutputStationary: ifmapOrder = k * blocks(m, R), filterOrder = k * blocks(n, C); break;
  case Dataflow::InputStationary: ifmapOrder = k * blocks(m, C), filterOrder = n * blocks(k, R); break;
  }
  return bytes + 12 * (ifmapOrder + filterOrder) + 8 * (ifmapWords + k * n);
}

int64_t demandLines(const Config &config, const Layer &layer) {
  return mapGemm(config.array(), {layer.gemmM(), layer.gemmN(), layer.gemmK()}).computeCycles();
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
    EstimatingReadBuffer ifmap(ifmapWords, mats.ifmapFirst, mats.ifmapEnd, mats.ifmapDistinct,
                               plan.sramRequests(kIfmap));
    EstimatingReadBuffer filter(filterWords, mats.filterFirst, mats.filterEnd, mats.filterDistinct,
                                plan.sramRequests(kFilter));
    WriteBuffer writes(ofmapWords, config.cols);
    run(plan, ifmap, filter, writes, r, traces);
  } else {
    PrefetchReadBuffer ifmap(ifmapWords, config.ifmapBandwidth, plan.prefetchOrder(kIfmap));
    PrefetchReadBuffer filter(filterWords, config.filterBandwidth, plan.prefetchOrder(kFilter));
    WriteBuffer writes(ofmapWords, config.ofmapBandwidth);
    run(plan, ifmap, filter, writes, r, traces);
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
