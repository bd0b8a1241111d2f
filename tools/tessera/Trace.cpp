// A run's timeline as Chrome trace events (the JSON format of chrome://tracing, which ui.perfetto.dev reads):
//   - "M" metadata: the process ("matmul on trn2") and one named, ordered track (tid) per stream: tensor, vector,
//     scalar, gpsimd, then dma0, dma1, ...;
//   - "X" complete slices: one per instruction, named by its opcode, from its start to its end, with its operands,
//     source line, cycles (DMA: bytes, ns, and the ns it queued for bandwidth) and index as args; before it, on
//     the same track, a "wait sem S >= N" slice from its issue to its start when it waited, naming the semaphore
//     whose signal came last and the instruction that sent it;
//   - "C" counters: SBUF and PSUM bytes per partition holding live data, and the HBM bandwidth the DMA queues use.
// Times are microseconds (the format's unit), rounded to the simulator's picosecond.

#include "tessera/Trace.h"

#include "tessera/LiveMemory.h"
#include "tessera/JsonText.h"

#include "tessera/isa/Cost.h"
#include "tessera/isa/DmaCost.h"
#include "tessera/isa/InstructionSet.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>

namespace tessera::driver {
namespace {

using json = nlohmann::ordered_json; // keys in the order written: name, cat, ph, pid, tid, ts, dur, args

constexpr int kPid = 1;
/// The HBM bandwidth counter averages over about this many windows of the run (a display choice).
constexpr double kBandwidthWindows = 256;

/// Nanoseconds to the picosecond the simulator resolves.
int64_t picoseconds(double ns) { return std::llround(ns * 1000.0); }
/// Picoseconds to the format's microseconds.
double microseconds(int64_t ps) { return static_cast<double>(ps) / 1e6; }

/// An operand is in use when it touches any partition (Memset's src0, Print's dst, a missing bias do not).
bool inUse(const isa::AccessPattern &ap) { return ap.partitions != 0; }

bool rowMajorDense(const isa::AccessPattern &ap) {
  int64_t expected = 1;
  for (int d = ap.freeRank - 1; d >= 0; --d) {
    if (ap.sizes[d] != 1 && ap.strides[d] != expected) return false;
    expected *= ap.sizes[d];
  }
  return true;
}

/// "sbuf[0:128] @1024 128x512 bf16" (partitions, byte address in each, partitions x free sizes, dtype);
/// "vmem @8192 128x512 f32 pitch 512" (byte address, rows x free sizes, dtype, elements between rows);
/// "hbm a_t[256:384, 0:128] bf16" (rows and columns of a matrix); otherwise "hbm x +8192 128x512 bf16 row 1024"
/// (element offset, shape, elements between rows). Strides that are not row-major follow as "strides [..]".
std::string describe(const isa::Program &program, const isa::AccessPattern &ap) {
  std::string sizes = fmt::format("{}", ap.partitions);
  for (unsigned d = 0; d < ap.freeRank; ++d) sizes += fmt::format("x{}", ap.sizes[d]);
  std::string strides;
  if (!rowMajorDense(ap)) {
    strides = " strides [";
    for (unsigned d = 0; d < ap.freeRank; ++d) strides += fmt::format("{}{}", d ? "," : "", ap.strides[d]);
    strides += "]";
  }
  const std::string_view dtype = isa::name(ap.dtype);
  if (ap.space == isa::MemSpace::Vmem || ap.space == isa::MemSpace::Smem)
    return fmt::format("{} @{} {} {} pitch {}{}", isa::name(ap.space), ap.offset, sizes, dtype, ap.partitionStride,
                       strides);
  if (ap.space != isa::MemSpace::Hbm)
    return fmt::format("{}[{}:{}] @{} {} {}{}", isa::name(ap.space), ap.partitionStart,
                       ap.partitionStart + ap.partitions, ap.offset, sizes, dtype, strides);
  const bool known = ap.tensor >= 0 && static_cast<size_t>(ap.tensor) < program.tensors.size();
  const std::string tensor = known ? program.tensors[ap.tensor].name : fmt::format("tensor{}", ap.tensor);
  // A window of the tensor's [rows, columns] matrix (isa/MatrixShape.h) that stays in one matrix of its leading
  // indices: x[b, r:r+n, c:c+m] (x[r:r+n, c:c+m] for a 2-D tensor).
  const std::vector<int64_t> *shape = known ? &program.tensors[ap.tensor].shape : nullptr;
  if (shape && shape->size() >= 2 && ap.partitionStride > 0 && ap.partitionStride == shape->back() &&
      ap.freeRank == 1 && ap.strides[0] == 1) {
    const int64_t rowsPerMatrix = (*shape)[shape->size() - 2];
    int64_t matrix = ap.offset / ap.partitionStride / rowsPerMatrix;
    const int64_t row = ap.offset / ap.partitionStride % rowsPerMatrix, column = ap.offset % ap.partitionStride;
    if (row + ap.partitions <= rowsPerMatrix) {
      std::vector<int64_t> lead(shape->size() - 2);
      for (size_t d = lead.size(); d-- > 0;) {
        lead[d] = matrix % (*shape)[d];
        matrix /= (*shape)[d];
      }
      std::string leading;
      for (int64_t i : lead) leading += fmt::format("{}, ", i);
      return fmt::format("hbm {}[{}{}:{}, {}:{}] {}", tensor, leading, row, row + ap.partitions, column,
                         column + ap.sizes[0], dtype);
    }
  }
  return fmt::format("hbm {} +{} {} {} row {}{}", tensor, ap.offset, sizes, dtype, ap.partitionStride, strides);
}

std::string describeWaits(const isa::Program &program, const isa::Instruction &inst) {
  std::string text;
  for (const isa::SemWait &w : program.waitsOf(inst))
    text += fmt::format("{}sem {} >= {}", text.empty() ? "" : ", ", w.sem, w.count);
  return text;
}

std::string describeSignals(const isa::Program &program, const isa::Instruction &inst) {
  std::string text;
  for (uint32_t sem : program.signalsOf(inst)) text += fmt::format("{}sem {}", text.empty() ? "" : ", ", sem);
  return text;
}

std::string sourceOf(const isa::Program &program, const isa::Instruction &inst) {
  return inst.loc < program.locations.size() ? program.locations[inst.loc].str() : std::string{};
}

const isa::Instruction &instructionOf(const isa::Program &program, const sim::InstructionEvent &e) {
  return program.streams[e.stream].instructions[e.index];
}

/// A counter sample: from `ns` on, the counter holds `value`.
struct Sample {
  double ns = 0;
  double value = 0;
};

/// Live-byte steps as counter samples.
std::vector<Sample> samplesOf(const std::vector<std::pair<double, int64_t>> &steps) {
  std::vector<Sample> samples;
  samples.reserve(steps.size());
  for (auto [ns, bytes] : steps) samples.push_back({ns, static_cast<double>(bytes)});
  return samples;
}

/// The smallest of 1, 2, 5 x 10^k not below `x`.
double roundUpNicely(double x) {
  const double decade = std::pow(10.0, std::floor(std::log10(x)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * decade >= x) return m * decade;
  return 10.0 * decade;
}

/// HBM bytes per ns moved by the DMA queues, averaged over fixed windows (one sample at each window's start, and 0
/// at the end). Each transfer's HBM bytes are counted over the interval the bandwidth model gave it the HBM share
/// (InstructionEvent::hbmFromNs/hbmToNs; sim/lib/memory/Hbm.h).
std::vector<Sample> hbmBandwidth(const isa::Program &program, const isa::Target &target,
                                 const sim::SimResult &sim) {
  std::vector<Sample> samples = {{0, 0}};
  if (sim.timeNs <= 0) return samples;
  const double window = roundUpNicely(sim.timeNs / kBandwidthWindows);
  const auto windows = static_cast<size_t>(std::ceil(sim.timeNs / window));
  std::vector<double> bytes(windows, 0.0);
  for (const sim::InstructionEvent &e : sim.timeline) {
    if (program.streams[e.stream].engine != isa::Engine::Dma) continue;
    // The HBM bytes over the interval the bandwidth model gave them the HBM share: those intervals never overlap,
    // so the counter never passes the share (spreading each transfer over its own streaming time once summed
    // overlapping transfers to 901 B/ns on v5e, whose share is 819).
    const auto moved = static_cast<double>(isa::dmaTransferCost(instructionOf(program, e), target).hbmBytes);
    const double from = e.hbmFromNs, to = e.hbmToNs;
    if (to <= from || moved == 0) continue;
    for (auto w = static_cast<size_t>(from / window); w < windows && w * window < to; ++w) {
      const double overlap = std::min(to, (w + 1) * window) - std::max(from, w * window);
      if (overlap > 0) bytes[w] += moved * overlap / (to - from);
    }
  }
  samples.clear();
  // To 0.01 B/ns: the simulator rounds each transfer to a picosecond, which is no change of rate worth a sample.
  for (size_t w = 0; w < windows; ++w) samples.push_back({w * window, std::round(bytes[w] / window * 100) / 100});
  samples.push_back({sim.timeNs, 0});
  return samples;
}

/// A counter's samples, a sample equal to the one before left out (a counter holds its value until the next),
/// whole values written as integers.
json counterEvents(const std::string &name, const std::string &series, const std::vector<Sample> &samples) {
  json events = json::array();
  for (size_t i = 0; i < samples.size(); ++i) {
    const Sample &s = samples[i];
    if (i > 0 && i + 1 < samples.size() && s.value == samples[i - 1].value) continue;
    json value = s.value;
    if (s.value == std::floor(s.value) && std::abs(s.value) < 1e15) value = static_cast<int64_t>(s.value);
    events.push_back({{"name", name},
                      {"ph", "C"},
                      {"pid", kPid},
                      {"ts", microseconds(picoseconds(s.ns))},
                      {"args", {{series, std::move(value)}}}});
  }
  return events;
}

json completeSlice(std::string name, std::string_view category, int tid, double fromNs, double toNs, json args) {
  const int64_t from = picoseconds(fromNs), to = picoseconds(toNs);
  return {{"name", std::move(name)},
          {"cat", category},
          {"ph", "X"},
          {"pid", kPid},
          {"tid", tid},
          {"ts", microseconds(from)},
          {"dur", microseconds(std::max<int64_t>(to - from, 0))},
          {"args", std::move(args)}};
}

json metadata(std::string_view name, int tid, json args) {
  return {{"name", name}, {"ph", "M"}, {"pid", kPid}, {"tid", tid}, {"args", std::move(args)}};
}

/// The instruction's args: index, source line, operands, what it computes, and its cost.
json instructionArgs(const isa::Program &program, const isa::Target &target, const isa::Stream &stream,
                     const sim::InstructionEvent &e) {
  const isa::Instruction &inst = stream.instructions[e.index];
  json args = {{"index", e.index}};
  if (std::string source = sourceOf(program, inst); !source.empty()) args["source"] = source;
  if (inUse(inst.dst)) args["dst"] = describe(program, inst.dst);
  if (inUse(inst.src0)) args["src0"] = describe(program, inst.src0);
  if (inUse(inst.src1)) args["src1"] = describe(program, inst.src1);
  if (inUse(inst.src2)) args["src2"] = describe(program, inst.src2);
  if (inUse(inst.dst2)) args["dst2"] = describe(program, inst.dst2);
  // The settings its definition reads, by the names Tessera's text gives them.
  for (const isa::SettingDef &setting : isa::definition(inst.op).settings) {
    const isa::SettingValue value = isa::get(inst, setting.setting);
    json &arg = args[std::string(isa::key(setting.setting))];
    switch (isa::kindOf(setting.setting)) {
    case isa::SettingKind::Flag: arg = std::get<bool>(value); break;
    case isa::SettingKind::Real: arg = std::get<float>(value); break;
    case isa::SettingKind::Integer: arg = std::get<int64_t>(value); break;
    default: arg = isa::formatSetting(inst, setting.setting); break;
    }
  }
  if (inst.op == isa::Opcode::Print) args["text"] = program.textOf(inst);
  if (stream.engine == isa::Engine::Dma) {
    // Its time on the queue: its least time (the fixed cost, or descriptors and streaming), and what it waited for
    // the descriptor generator, its DMA engines or the HBM share.
    const isa::DmaTransferCost cost = isa::dmaTransferCost(inst, target);
    const double ns = static_cast<double>(picoseconds(e.endNs) - picoseconds(e.startNs)) / 1000.0;
    args["bytes"] = cost.bytes;
    args["bytes_per_partition"] = cost.bytesPerPartition;
    args["efficiency"] = std::round(cost.efficiency * 1000.0) / 1000.0;
    const unsigned first = cost.engines ? cost.firstEngine : isa::dmaEngineOf(stream.queue, target);
    args["dma_engines"] =
        cost.engines > 1 ? fmt::format("{}-{}", first, first + cost.engines - 1) : fmt::format("{}", first);
    args["ns"] = ns;
    args["queued_ns"] = std::max(0.0, std::round((ns - cost.leastNs) * 1000.0) / 1000.0);
  } else {
    args["cycles"] = isa::engineCycles(inst, stream.engine, target);
    args["clock_ghz"] = isa::clockGhz(stream.engine, target);
  }
  if (inst.waitCount) args["waits"] = describeWaits(program, inst);
  if (inst.signalCount) args["signals"] = describeSignals(program, inst);
  return args;
}


} // namespace

json toTrace(const RunReport &report) {
  if (!report.program) throw Error("internal error: a trace needs the run's program (RunReport::program)");
  const isa::Program &program = *report.program;
  const sim::SimResult &sim = report.sim;
  json events = json::array();
  events.push_back(metadata("process_name", 0, {{"name", fmt::format("{} on {}", report.kernel, report.target.name)}}));

  // Tracks: per core (an SPMD launch's; one otherwise), the compute engines in the ISA's order, then the DMA queues
  // by number; tid = position + 1.
  std::vector<uint32_t> order(program.streams.size());
  std::iota(order.begin(), order.end(), 0u);
  std::ranges::stable_sort(order, [&](uint32_t a, uint32_t b) {
    const isa::Stream &x = program.streams[a], &y = program.streams[b];
    return std::tuple(x.core, x.engine, x.queue) < std::tuple(y.core, y.engine, y.queue);
  });
  std::vector<int> tidOf(program.streams.size());
  for (size_t rank = 0; rank < order.size(); ++rank) {
    const int tid = static_cast<int>(rank) + 1;
    tidOf[order[rank]] = tid;
    events.push_back(metadata("thread_name", tid, {{"name", program.streams[order[rank]].label()}}));
    events.push_back(metadata("thread_sort_index", tid, {{"sort_index", tid}}));
  }

  // Which instruction gave each semaphore its n-th signal: the timeline is in completion order, and an
  // instruction signals as it completes.
  std::vector<std::vector<uint32_t>> signalledBy(program.semaphores);
  for (uint32_t i = 0; i < sim.timeline.size(); ++i)
    for (uint32_t sem : program.signalsOf(instructionOf(program, sim.timeline[i])))
      if (sem < signalledBy.size()) signalledBy[sem].push_back(i);

  // Slices, track by track in program order.
  std::vector<uint32_t> byTrack(sim.timeline.size());
  std::iota(byTrack.begin(), byTrack.end(), 0u);
  std::ranges::sort(byTrack, [&](uint32_t a, uint32_t b) {
    const sim::InstructionEvent &x = sim.timeline[a], &y = sim.timeline[b];
    return std::pair(tidOf[x.stream], x.index) < std::pair(tidOf[y.stream], y.index);
  });
  for (uint32_t i : byTrack) {
    const sim::InstructionEvent &e = sim.timeline[i];
    const isa::Stream &stream = program.streams[e.stream];
    const isa::Instruction &inst = stream.instructions[e.index];
    const int tid = tidOf[e.stream];
    if (picoseconds(e.startNs) > picoseconds(e.issueNs)) {
      // The wait that held it longest: the one whose count was reached last.
      const isa::SemWait *last = nullptr;
      const sim::InstructionEvent *releaser = nullptr;
      for (const isa::SemWait &w : program.waitsOf(inst)) {
        if (w.count == 0 || w.sem >= signalledBy.size() || w.count > signalledBy[w.sem].size()) continue;
        const sim::InstructionEvent &by = sim.timeline[signalledBy[w.sem][w.count - 1]];
        if (!releaser || by.endNs >= releaser->endNs) last = &w, releaser = &by;
      }
      json args = {{"index", e.index}, {"waits", describeWaits(program, inst)}};
      if (releaser) {
        const isa::Stream &from = program.streams[releaser->stream];
        const isa::Instruction &signaller = from.instructions[releaser->index];
        std::string source = sourceOf(program, signaller);
        args["released_by"] = fmt::format("{} #{} {}{}{}", from.label(), releaser->index, isa::name(signaller.op),
                                          source.empty() ? "" : " at ", source);
      }
      events.push_back(completeSlice(last ? fmt::format("wait sem {} >= {}", last->sem, last->count) : "wait",
                                     "wait", tid, e.issueNs, e.startNs, std::move(args)));
    }
    events.push_back(completeSlice(std::string(isa::name(inst.op)), isa::name(stream.engine), tid, e.startNs,
                                   e.endNs, instructionArgs(program, report.target, stream, e)));
  }

  const auto addCounter = [&](const std::string &name, const std::string &series, const std::vector<Sample> &at) {
    for (json &c : counterEvents(name, series, at)) events.push_back(std::move(c));
  };
  for (const LiveSeries &m : liveBytesOverTime(program, report.target, sim.timeline).memories)
    addCounter(m.title() + " live data", m.partitions > 1 ? "bytes/partition" : "bytes", samplesOf(m.steps));
  addCounter("HBM bandwidth", "B/ns", hbmBandwidth(program, report.target, sim));

  return {{"traceEvents", std::move(events)},
          {"displayTimeUnit", "ns"},
          {"otherData",
           {{"kernel", report.kernel},
            {"target", report.target.name},
            {"time_ns", sim.timeNs},
            {"instructions", sim.timeline.size()}}}};
}

std::string traceText(const json &trace) {
  // One event per line: readable, and diff- and grep-friendly.
  std::string text = "{\"traceEvents\": [\n";
  const json &events = trace.at("traceEvents");
  for (size_t i = 0; i < events.size(); ++i) text += jsonText(events[i]) + (i + 1 < events.size() ? ",\n" : "\n");
  text += "]";
  for (const auto &[key, value] : trace.items())
    if (key != "traceEvents") text += fmt::format(",\n{}: {}", jsonText(json(key)), jsonText(value));
  text += "}\n";
  return text;
}

} // namespace tessera::driver
