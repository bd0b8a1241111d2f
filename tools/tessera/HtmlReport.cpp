// The HTML report: one page, written as a string, every chart an inline SVG drawn here. Sections, top to bottom:
// summary, engine use and stall reasons, timeline, roofline and memory. Long runs are drawn per pixel column
// rather than per instruction, so the file stays small (about 1 MB at most, whatever the instruction count).

#include "tessera/HtmlReport.h"
#include "tessera/isa/Family.h"

#include "tessera/Report.h"
#include "tessera/StallAnalysis.h"
#include "tessera/JsonText.h"
#include "tessera/isa/InstructionSet.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <map>

namespace tessera::driver {

namespace {

using isa::MemSpace;
using isa::Opcode;

// ---------------------------------------------------------------------------------------------------------------
// What each instruction touches, and how it is coloured.

/// Timeline colours: one per instruction category (isa::Category), DMAs split by direction, and semaphore waits.
struct Style {
  const char *label;
  const char *colour;
};
constexpr std::array<Style, 11> kOpStyles = {{{"matmul / transpose", "#4e79a7"},
                                             {"elementwise", "#f28e2b"},
                                             {"activation", "#59a14f"},
                                             {"reductions", "#b07aa1"},
                                             {"copies / gathers", "#76b7b2"},
                                             {"memset / iota", "#edc948"},
                                             {"dma load (HBM to chip)", "#e15759"},
                                             {"dma store (chip to HBM)", "#ff9da7"},
                                             {"dma on chip", "#9c755f"},
                                             {"print", "#bab0ac"},
                                             {"grid steps", "#d3d3d3"}}};
constexpr int kWait = static_cast<int>(kOpStyles.size()); ///< the class of semaphore waits
constexpr int kClasses = kWait + 1;

/// The timeline class of `inst`: its definition's category, a DMA by the direction it moves data.
int classOf(const isa::Instruction &inst) {
  switch (isa::definition(inst.op).category) {
  case isa::Category::Matmul: return 0;
  case isa::Category::Elementwise: return 1;
  case isa::Category::Activation: return 2;
  case isa::Category::Reduction: return 3;
  case isa::Category::Copy: return 4;
  case isa::Category::Fill: return 5;
  case isa::Category::Dma: return inst.src0.space == MemSpace::Hbm ? 6 : inst.dst.space == MemSpace::Hbm ? 7 : 8;
  case isa::Category::Print: return 9;
  case isa::Category::Control: return 10;
  }
  return 4;
}

/// Colours of the streams a wait is attributed to: the compute engines (and units) as their main opcode, DMA queues
/// red, a TPU's scalar core (grid steps) grey.
const char *streamColour(const isa::Stream &s) {
  switch (s.engine) {
  case isa::Engine::Tensor:
  case isa::Engine::Mxu: return "#4e79a7";
  case isa::Engine::Vector:
  case isa::Engine::Vpu: return "#f28e2b";
  case isa::Engine::Scalar: return "#59a14f";
  case isa::Engine::GpSimd: return "#b07aa1";
  case isa::Engine::Dma: return "#e15759";
  case isa::Engine::ScalarUnit: return "#d3d3d3";
  }
  return "#888";
}

/// "dma0 queue", "vector engine", "mxu unit" (a TPU's word, isa::Family::engineWord).
std::string streamTitle(const isa::Stream &s, const isa::Target &target) {
  return s.label() + " " + (s.engine == isa::Engine::Dma ? "queue" : std::string(isa::familyOf(target).engineWord()));
}

// ---------------------------------------------------------------------------------------------------------------
// Text.

std::string esc(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    case '\'': out += "&#39;"; break;
    default: out += c;
    }
  }
  return out;
}

std::string grouped(uint64_t v) {
  std::string digits = std::to_string(v), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string humanBytes(double bytes) {
  const char *units[] = {"B", "KB", "MB", "GB", "TB"};
  int u = 0;
  while (bytes >= 1000 && u < 4) bytes /= 1000, ++u;
  return u == 0 ? fmt::format("{:.0f} B", bytes) : fmt::format("{:.2f} {}", bytes, units[u]);
}

/// A time in the unit that suits `spanNs`.
struct TimeUnit {
  const char *name;
  double ns;
};
TimeUnit unitFor(double spanNs) {
  if (spanNs < 2e3) return {"ns", 1};
  if (spanNs < 2e6) return {"us", 1e3};
  return {"ms", 1e6};
}

/// A round step (1, 2 or 5 times a power of ten) that cuts `span` into about `parts`.
double niceStep(double span, int parts) {
  double raw = span / parts, p = std::pow(10.0, std::floor(std::log10(raw))), f = raw / p;
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

std::string trimNumber(double v) { return fmt::format("{:.6g}", v); }

/// A percentage with the digits that matter: 66, 4.2, 0.14.
std::string percent(double pct) {
  return fmt::format("{:.{}f}", pct, pct >= 10 ? 0 : pct >= 1 ? 1 : 2);
}

/// A power of ten as an axis label: 0.01, 0.1, 1, 10, 100, 1k, 10k, 100k, 1M...
std::string decadeLabel(int k) {
  if (k < 0) return fmt::format("{:.{}f}", std::pow(10.0, k), -k);
  static const char *suffix[] = {"", "k", "M", "G", "T"};
  if (k >= 15) return fmt::format("1e{}", k);
  return fmt::format("{}{}", k % 3 == 0 ? "1" : k % 3 == 1 ? "10" : "100", suffix[k / 3]);
}

template <typename... Args> void put(std::string &out, fmt::format_string<Args...> format, Args &&...args) {
  fmt::format_to(std::back_inserter(out), format, std::forward<Args>(args)...);
}

// ---------------------------------------------------------------------------------------------------------------
// Drawing helpers.

/// Maps [0, endNs] onto [x0, x0 + width] pixels.
struct TimeScale {
  double endNs = 1, x0 = 0, width = 1;
  double x(double ns) const { return x0 + ns / endNs * width; }
};

/// Vertical grid lines and labels of a time axis between y = top and y = bottom; labels below `bottom`.
void timeAxis(std::string &svg, const TimeScale &ts, double top, double bottom, bool labels) {
  const TimeUnit unit = unitFor(ts.endNs);
  const double step = niceStep(ts.endNs / unit.ns, 8);
  for (double t = 0; t <= ts.endNs / unit.ns * (1 + 1e-9); t += step) {
    const double x = ts.x(t * unit.ns);
    put(svg, "<line class=grid x1={:.1f} x2={:.1f} y1={:.1f} y2={:.1f} />", x, x, top, bottom);
    if (labels) put(svg, "<text x={:.1f} y={:.1f} text-anchor=middle>{}</text>", x, bottom + 14, trimNumber(t));
  }
  if (labels)
    put(svg, "<text x={:.1f} y={:.1f} text-anchor=end class=axis>time ({})</text>", ts.x0 + ts.width, bottom + 30,
        unit.name);
}

/// A hatch pattern for semaphore waits.
constexpr const char *kHatch =
    "<defs><pattern id=hatch width=6 height=6 patternUnits=userSpaceOnUse patternTransform='rotate(45)'>"
    "<rect width=6 height=6 fill='#eceef1' /><rect width=2.2 height=6 fill='#9aa3ad' /></pattern></defs>";

// ---------------------------------------------------------------------------------------------------------------
// Sections.

struct Page {
  const RunReport &r;
  const isa::Program &program;
  std::vector<int32_t> producers; ///< per timeline event
  std::vector<Stall> stalls;      ///< stallReasons: the stall section's and the bound card's
  double endNs;
  std::string html;
};

std::string verdictClass(const RunReport &r) {
  if (r.timingOnly || r.checks.empty()) return "neutral";
  return r.ok ? "ok" : "bad";
}

std::string verdictText(const RunReport &r) {
  if (r.timingOnly) return "timing only: no values computed, nothing checked";
  if (r.checks.empty()) return "simulated: no reference to check the outputs against";
  return r.ok ? "ok" : "FAILED: " + std::string(failureReason(r));
}

void header(Page &p) {
  const RunReport &r = p.r;
  const char *badge = r.timingOnly ? "timing only" : r.checks.empty() ? "simulated" : r.ok ? "ok" : "FAILED";
  put(p.html, "<header><div><h1>{} <span class=muted>on</span> {}</h1><div class=muted>{}</div>"
              "<div class=muted>shape {}{}</div></div><div class='badge {}' id=verdict>{}</div></header>\n",
      esc(r.kernel), esc(r.target.name), esc(r.target.description),
      r.params.values().empty() ? "as saved" : esc(r.params.str()),
      r.params.kernelStr().empty() ? "" : ", params " + esc(r.params.kernelStr()), verdictClass(r), badge);
}

void card(std::string &html, std::string_view title, std::string_view id, double value, std::string_view shown,
          std::string_view detail) {
  put(html, "<div class=card><div class=k>{}</div><div class=v><span id={} data-value='{}'>{}</span></div>"
            "<div class=d>{}</div></div>",
      title, id, value, shown, detail);
}

void summary(Page &p) {
  const RunReport &r = p.r;
  const double peak = r.peakTflops();
  std::string &h = p.html;
  h += "<section id=summary><h2>Summary</h2><div class=cards>";
  card(h, "simulated time", "time-us", r.timeUs(), fmt::format("{:.3f} us", r.timeUs()),
       fmt::format("<span id=cycles data-value='{:.0f}'>{}</span> cycles at {} GHz", r.cycles(),
                   grouped(static_cast<uint64_t>(r.cycles() + 0.5)), r.target.tensor.clockGhz));
  card(h, "compute", "achieved-tflops", r.achievedTflops(), fmt::format("{:.2f} TFLOP/s", r.achievedTflops()),
       fmt::format("{:.1f}% of {:.1f} peak (matrix unit, at its operands' dtypes)<br>{} FLOPs",
                   100 * r.achievedTflops() / peak, peak, grouped(r.sim.flops)));
  card(h, "HBM traffic", "hbm-bytes", double(r.sim.hbmBytes), humanBytes(double(r.sim.hbmBytes)),
       fmt::format("{} B at {:.1f} B/ns<br>arithmetic intensity {:.1f} FLOP/B", grouped(r.sim.hbmBytes),
                   r.target.dma.bytesPerNs(),
                   r.sim.hbmBytes ? double(r.sim.flops) / double(r.sim.hbmBytes) : 0.0));
  // The bound the run had (RunReport::bound(), as --json says), not the larger of the two lower bounds: the
  // README's matmul has the compute bound the larger, yet no resource is busy half the run; what its lead engine
  // waited for says why.
  const double tensorUs = r.tensorBoundUs(), dmaUs = r.dmaBoundUs();
  const RunReport::Bound bound = r.bound();
  const LeadWait wait = leadWait(p.program, r.sim, p.stalls);
  const std::string lead = wait.lead < 0 ? "no engine" : r.sim.streams[wait.lead].name;
  card(h, "bound", "bound-us", std::max(tensorUs, dmaUs), fmt::format("{}-bound", bound.kind),
       fmt::format("{} busy {:.1f}% of the run{}<br>lower bounds: {} {:.3f} us, DMA at full bandwidth {:.3f} us",
                   lead, 100 * wait.leadBusyShare,
                   wait.waitShare > 0 ? fmt::format(", waiting {:.1f}% on {}", 100 * wait.waitShare, wait.waitedFor)
                                      : "",
                   isa::familyOf(r.target).matrixUnit(), tensorUs, dmaUs));
  card(h, "instructions", "instructions", double(r.instructions), grouped(r.instructions),
       fmt::format("{} streams, {} semaphores", p.program.streams.size(), p.program.semaphores));
  if (r.sbufPeakBytes >= 0)
    card(h, "on-chip memory (allocated)", "sbuf-peak", double(r.sbufPeakBytes),
         fmt::format("{:.1f} KiB SBUF", r.sbufPeakBytes / 1024.0),
         fmt::format("of {:.1f} KiB per partition<br>PSUM {:.1f} of {:.1f} KiB", r.target.sbufBytesPerPartition / 1024.0,
                     r.psumPeakBytes / 1024.0, r.target.psumBytesPerPartition / 1024.0));
  if (r.vmemPeakBytes >= 0)
    card(h, "on-chip memory (allocated)", "vmem-peak", double(r.vmemPeakBytes),
         fmt::format("{:.1f} MiB VMEM", r.vmemPeakBytes / 1048576.0),
         fmt::format("of {:.1f} MiB", r.target.tpu.vmemBytes / 1048576.0));
  h += "</div>";

  // Numerics: each output against the golden model and the reference.
  put(h, "<p class=verdict>verdict: <b class='{}'>{}</b>", verdictClass(r), esc(verdictText(r)));
  if (!r.timingOnly && !r.checks.empty())
    put(h, " &middot; checked against {}",
        r.reference == "golden+reference" ? "the golden model and the kernel's reference"
        : r.reference == "golden"         ? "the golden model"
                                          : "the kernel's reference");
  h += "</p>";
  if (!r.checks.empty()) {
    h += "<table class=numerics><tr><th>output</th><th>against</th><th>max abs err</th><th>max rel err</th>"
         "<th>tolerance</th><th></th></tr>";
    for (const TensorCheck &c : r.checks)
      for (auto [what, vs] : {std::pair{"golden model", &c.vsGolden}, std::pair{"reference", &c.vsReference}}) {
        if (!*vs) continue;
        put(h, "<tr><td>{}</td><td>{}</td><td>{:.3g}</td><td>{:.3g}</td><td>{:.3g}</td><td class={}>{}</td></tr>",
            esc(c.name), what, (*vs)->maxAbsErr, (*vs)->maxRelErr, (*vs)->tolerance, (*vs)->ok ? "ok" : "bad",
            (*vs)->ok ? "ok" : "MISMATCH");
      }
    h += "</table>";
    for (const TensorCheck &c : r.checks)
      if (c.unwritten)
        put(h, "<p><b class=bad>output {} never written</b>: {}</p>", esc(c.name), esc(describe(*c.unwritten)));
  }
  if (!r.goldenUnavailable.empty()) put(h, "<p class=muted>golden model unavailable: {}</p>", esc(r.goldenUnavailable));
  h += "</section>\n";
}

/// A bar of busy (solid) and waiting (hatched) shares, in percent.
std::string bar(double busy, double wait, const char *colour) {
  busy = std::clamp(busy, 0.0, 100.0);
  wait = std::clamp(wait, 0.0, 100.0 - busy);
  return fmt::format("<div class=bar><div style='width:{:.2f}%;background:{}'></div><div class=waitfill "
                     "style='width:{:.2f}%'></div></div>",
                     busy, colour, wait);
}

void utilisation(Page &p) {
  const RunReport &r = p.r;
  std::string &h = p.html;
  h += "<section id=utilisation><h2>Engine utilisation</h2><table class=util>";
  const double T = r.sim.timeNs > 0 ? r.sim.timeNs : 1;
  double dmaWait = 0;
  unsigned queues = 0;
  for (size_t s = 0; s < r.sim.streams.size(); ++s) {
    const sim::StreamStats &st = r.sim.streams[s];
    if (st.engine == isa::Engine::Dma) {
      if (st.instructions) dmaWait += st.waitNs, ++queues;
      continue;
    }
    const double busy = 100 * st.busyNs / T, wait = 100 * st.waitNs / T;
    put(h, "<tr><td class=name>{}</td><td class=barcell>{}</td><td class=num id=busy-{} data-value='{}'>{:.1f}%"
           "</td><td class='num muted'>{}</td></tr>",
        esc(st.name), bar(busy, wait, s < p.program.streams.size() ? streamColour(p.program.streams[s]) : "#888"),
        esc(st.name), busy, busy, wait >= 0.05 ? fmt::format("waits {:.1f}%", wait) : "");
  }
  const double dmaBusy = r.busyPercent()["dma"], dmaMeanWait = queues ? 100 * dmaWait / queues / T : 0;
  put(h, "<tr><td class=name>dma</td><td class=barcell>{}</td><td class=num id=busy-dma data-value='{}'>{:.1f}%</td>"
         "<td class='num muted'>{}</td></tr></table>",
      bar(dmaBusy, dmaMeanWait, "#e15759"), dmaBusy, dmaBusy,
      dmaMeanWait >= 0.05 ? fmt::format("waits {:.1f}%", dmaMeanWait) : "");
  put(h, "<p class=note><span class=sw style='background:#4e79a7'></span> busy &nbsp; <span class='sw waitfill'></span> "
         "waiting on a semaphore &nbsp; blank: idle. <b>dma</b>: share of the run the shared DMA bandwidth "
         "({:.1f} B/ns) was moving bytes; its wait is the mean over the {} queues used.</p>",
      r.target.dma.bytesPerNs(), queues);

  h += "<details><summary>every stream</summary><table class=streams><tr><th>stream</th><th>instructions</th>"
       "<th>busy us</th><th>wait us</th></tr>";
  for (const sim::StreamStats &st : r.sim.streams)
    if (st.instructions)
      put(h, "<tr><td>{}</td><td>{}</td><td>{:.3f}</td><td>{:.3f}</td></tr>", esc(st.name), st.instructions,
          st.busyNs / 1000, st.waitNs / 1000);
  h += "</table></details></section>\n";
}

void stalls(Page &p) {
  const RunReport &r = p.r;
  const isa::Program &prog = p.program;
  std::string &h = p.html;
  h += "<section id=stalls><h2>Top stall reasons</h2>";
  if (r.sim.timeline.empty()) {
    h += "<p class=muted>No timeline was recorded for this run.</p></section>\n";
    return;
  }
  const std::vector<Stall> &all = p.stalls;
  const double T = r.sim.timeNs > 0 ? r.sim.timeNs : 1;
  if (all.empty()) {
    h += "<p>No engine waited on a semaphore.</p></section>\n";
    return;
  }
  auto isDma = [&](uint32_t s) { return prog.streams[s].engine == isa::Engine::Dma; };
  auto producerName = [&](int32_t s) { return s < 0 ? std::string("(no signal)") : prog.streams[s].label(); };

  // The largest (waiter, producer) pairs, and each compute engine's largest even when smaller: the engines are
  // what a kernel author tunes for.
  std::vector<const Stall *> top;
  std::vector<bool> engineListed(prog.streams.size(), false);
  for (const Stall &s : all)
    if (top.size() < 5 || (!isDma(s.waiter) && !engineListed[s.waiter] && s.waitNs >= 0.01 * T)) {
      top.push_back(&s);
      engineListed[s.waiter] = true;
    }
  h += "<ol class=reasons>";
  for (const Stall *s : top)
    put(h, "<li class=reason data-waiter='{}' data-producer='{}' data-share='{}'><b>{}</b> waited "
           "<b>{:.1f}%</b> of the run on <b>{}</b> <span class=muted>({:.3f} us)</span></li>",
        esc(prog.streams[s->waiter].label()), esc(producerName(s->producer)), 100 * s->waitNs / T,
        esc(streamTitle(prog.streams[s->waiter], r.target)), 100 * s->waitNs / T, esc(producerName(s->producer)),
        s->waitNs / 1000);
  h += "</ol>";

  // Per compute engine, and for the DMA queues together (their mean): the wait share, split by the stream
  // waited for.
  struct Row {
    std::string name;
    std::map<int32_t, double> byProducer; // share of the run, percent
    double total = 0;
  };
  std::vector<Row> rows;
  std::vector<int> rowOf(prog.streams.size(), -1);
  unsigned queues = 0;
  for (size_t s = 0; s < prog.streams.size(); ++s) {
    if (prog.streams[s].instructions.empty()) continue;
    if (!isDma(s)) {
      rowOf[s] = static_cast<int>(rows.size());
      rows.push_back({prog.streams[s].label()});
    } else ++queues;
  }
  const int dmaRow = queues ? static_cast<int>(rows.size()) : -1;
  if (queues) rows.push_back({"dma"});
  for (const Stall &s : all) {
    const int row = isDma(s.waiter) ? dmaRow : rowOf[s.waiter];
    if (row < 0) continue;
    const double pct = 100 * s.waitNs / T / (isDma(s.waiter) ? queues : 1);
    rows[row].byProducer[s.producer] += pct;
    rows[row].total += pct;
  }
  h += "<table class=util>";
  for (const Row &row : rows) {
    std::vector<std::pair<double, int32_t>> parts;
    for (auto &[producer, pct] : row.byProducer) parts.emplace_back(pct, producer);
    std::sort(parts.rbegin(), parts.rend());
    std::string segments, text;
    for (size_t i = 0; i < parts.size(); ++i) {
      const auto [pct, producer] = parts[i];
      put(segments, "<div title='on {}: {:.1f}%' style='width:{:.2f}%;background:{}'></div>", esc(producerName(producer)),
          pct, pct, producer < 0 ? "#999" : streamColour(prog.streams[producer]));
      if (i < 2 && pct >= 0.05) put(text, "{}{:.0f}% {}", text.empty() ? "" : ", ", pct, esc(producerName(producer)));
    }
    put(h, "<tr><td class=name>{}</td><td class=barcell><div class='bar split'>{}</div></td><td class=num>{:.1f}%"
           "</td><td class='muted small'>{}</td></tr>",
        row.name, segments, row.total, parts.size() > 2 ? text + ", ..." : text);
  }
  put(h, "</table><p class=note>Each bar: the share of the run the stream spent waiting, split by the stream it "
         "waited for (dma: the mean over its {} queues). An instruction's wait counts against the stream whose "
         "signal arrived last among the semaphores it waited for: that signal let it start.</p></section>\n",
      queues);
}

/// The timeline: one lane per stream that ran anything.
void timeline(Page &p) {
  const RunReport &r = p.r;
  std::string &h = p.html;
  h += "<section id=timeline><h2>Timeline</h2>";
  const auto &events = r.sim.timeline;
  if (events.empty()) {
    h += "<p class=muted>No timeline was recorded for this run.</p></section>\n";
    return;
  }
  std::vector<uint32_t> lanes;       // stream indices, in program order
  std::vector<int> laneOf(p.program.streams.size(), -1);
  for (size_t s = 0; s < p.program.streams.size(); ++s)
    if (!p.program.streams[s].instructions.empty()) laneOf[s] = static_cast<int>(lanes.size()), lanes.push_back(s);

  const double W = 1160, labelW = 64, laneH = 17, gap = 5, top = 6;
  const TimeScale ts{p.endNs, labelW, W - labelW - 8};
  const double bottom = top + lanes.size() * (laneH + gap);
  const bool exact = events.size() <= 3000;

  // Legend: only the classes that occur.
  std::array<bool, kClasses> used{};
  for (const auto &e : events) used[classOf(p.program.streams[e.stream].instructions[e.index])] = true;
  for (size_t i = 0; i < events.size(); ++i)
    if (events[i].startNs > events[i].issueNs) used[kWait] = true;
  h += "<div class=legend>";
  for (int c = 0; c < kWait; ++c)
    if (used[c]) put(h, "<span><i class=sw style='background:{}'></i>{}</span>", kOpStyles[c].colour, kOpStyles[c].label);
  if (used[kWait]) h += "<span><i class='sw waitfill'></i>waiting on a semaphore</span>";
  put(h, "<span class=muted>{}</span></div>",
      exact ? fmt::format("{} instructions, one box each (hover for details)", grouped(events.size()))
            : fmt::format("{} instructions, drawn per pixel column: bar height = share of the column busy, colour "
                          "= its busiest opcode; hatched = waiting a quarter of it or more",
                          grouped(events.size())));

  put(h, "<svg class=chart id=timeline-svg viewBox='0 0 {} {}' width='100%' data-mode='{}'>{}", W, bottom + 36,
      exact ? "exact" : "aggregated", kHatch);
  put(h, "<style>{}</style>", [] {
    std::string css;
    for (int c = 0; c < kWait; ++c) css += fmt::format(".c{}{{fill:{}}}", c, kOpStyles[c].colour);
    return css + fmt::format(".c{}{{fill:url(#hatch)}}", kWait);
  }());
  for (size_t l = 0; l < lanes.size(); ++l) {
    const double y = top + l * (laneH + gap);
    put(h, "<rect class=lane x={} y={:.1f} width={:.1f} height={} /><text x={} y={:.1f} text-anchor=end>{}</text>",
        ts.x0, y, ts.width, laneH, labelW - 6, y + laneH - 4, esc(p.program.streams[lanes[l]].label()));
  }
  timeAxis(h, ts, top - 3, bottom, true);

  if (exact) {
    for (size_t i = 0; i < events.size(); ++i) {
      const sim::InstructionEvent &e = events[i];
      const isa::Instruction &inst = p.program.streams[e.stream].instructions[e.index];
      const double y = top + laneOf[e.stream] * (laneH + gap);
      if (e.startNs > e.issueNs) {
        const double x0 = ts.x(e.issueNs), x1 = ts.x(e.startNs);
        put(h, "<rect class=c{} x={:.2f} y={:.1f} width={:.2f} height={}><title>waiting {:.1f} ns for {}</title></rect>",
            kWait, x0, y + 3, std::max(x1 - x0, 0.4), laneH - 6, e.startNs - e.issueNs,
            p.producers[i] >= 0 ? esc(p.program.streams[p.producers[i]].label()) : "a signal");
      }
      const double x0 = ts.x(e.startNs), x1 = ts.x(e.endNs);
      const SourceLoc &loc = inst.loc < p.program.locations.size() ? p.program.locations[inst.loc] : SourceLoc{};
      put(h, "<rect class=c{} x={:.2f} y={:.1f} width={:.2f} height={}><title>{} #{} {} {:.1f}-{:.1f} ns{}{}</title></rect>",
          classOf(inst), x0, y, std::max(x1 - x0, 0.6), laneH, esc(p.program.streams[e.stream].label()), e.index,
          isa::name(inst.op), e.startNs, e.endNs, loc.known() ? "  " : "", esc(loc.str()));
    }
  } else {
    // Per lane and pixel column: the time each class occupied it. A column is hatched when its stream waited for
    // at least a quarter of it, and over that stands a bar as tall as the share of the column the stream was busy
    // (in quarters), coloured by the opcode busiest there. Runs of equal columns become one rect.
    const int columns = static_cast<int>(ts.width);
    const double colNs = p.endNs / columns;
    std::vector<std::array<float, kClasses>> cells(lanes.size() * columns, std::array<float, kClasses>{});
    auto spread = [&](int lane, int cls, double t0, double t1) {
      if (t1 <= t0) return;
      int c0 = std::clamp(static_cast<int>(t0 / colNs), 0, columns - 1);
      int c1 = std::clamp(static_cast<int>(t1 / colNs), 0, columns - 1);
      for (int c = c0; c <= c1; ++c) {
        const double lo = std::max(t0, c * colNs), hi = std::min(t1, (c + 1) * colNs);
        if (hi > lo) cells[lane * columns + c][cls] += static_cast<float>(hi - lo);
      }
    };
    for (const auto &e : events) {
      const int lane = laneOf[e.stream];
      spread(lane, kWait, e.issueNs, e.startNs);
      spread(lane, classOf(p.program.streams[e.stream].instructions[e.index]), e.startNs, e.endNs);
    }
    auto quarters = [&](double ns) { return ns <= 0 ? 0 : std::clamp(int(std::ceil(ns / colNs * 4 - 1e-6)), 1, 4); };
    for (size_t l = 0; l < lanes.size(); ++l) {
      const double y = top + l * (laneH + gap);
      auto x = [&](int column) { return ts.x0 + column * ts.width / columns; };
      // The hatched background: where the stream mostly waited.
      for (int c = 0, runStart = -1; c <= columns; ++c) {
        const bool waiting = c < columns && cells[l * columns + c][kWait] >= 0.25 * colNs;
        if (waiting && runStart < 0) runStart = c;
        if (!waiting && runStart >= 0) {
          put(h, "<rect class=c{} x={:.1f} y={:.1f} width={:.1f} height={} />", kWait, x(runStart), y + 3,
              x(c) - x(runStart), laneH - 6);
          runStart = -1;
        }
      }
      // The busy bars.
      int runStart = 0, runClass = -1, runLevel = 0;
      for (int c = 0; c <= columns; ++c) {
        int cls = -1, level = 0;
        if (c < columns) {
          const auto &cell = cells[l * columns + c];
          float busy = 0, best = 0;
          for (int k = 0; k < kWait; ++k) {
            busy += cell[k];
            if (cell[k] > best) best = cell[k], cls = k;
          }
          level = quarters(busy);
        }
        if (c < columns && cls == runClass && level == runLevel) continue;
        if (runClass >= 0 && runLevel > 0) {
          const double height = laneH * runLevel / 4.0;
          put(h, "<rect class=c{} x={:.1f} y={:.1f} width={:.1f} height={:.2f} />", runClass, x(runStart),
              y + laneH - height, x(c) - x(runStart), height);
        }
        runStart = c, runClass = cls, runLevel = level;
      }
    }
  }
  h += "</svg></section>\n";
}

/// Log-log roofline: the tensor engine's peak, the DMA bandwidth, the ridge, and this kernel.
void roofline(Page &p) {
  const RunReport &r = p.r;
  std::string &h = p.html;
  const double peak = r.peakTflops();  // TFLOP/s
  const double bw = r.target.dma.bytesPerNs();           // B/ns = GB/s
  const double ridge = peak * 1000 / bw;                 // FLOP/B where the roofs meet
  const bool hasPoint = r.sim.hbmBytes > 0 && r.sim.flops > 0 && r.sim.timeNs > 0;
  const double ai = hasPoint ? double(r.sim.flops) / double(r.sim.hbmBytes) : 0;
  const double achieved = r.achievedTflops();

  const double lo = hasPoint ? std::min(ai, ridge) : ridge, hi = hasPoint ? std::max(ai, ridge) : ridge;
  const int xd0 = static_cast<int>(std::floor(std::log10(lo))) - 1, xd1 = static_cast<int>(std::ceil(std::log10(hi))) + 1;
  const int yd1 = static_cast<int>(std::ceil(std::log10(peak * 1.5)));
  int yd0 = yd1 - 4;
  if (hasPoint) yd0 = std::min(yd0, static_cast<int>(std::floor(std::log10(achieved))) - 1);
  yd0 = std::max(yd0, static_cast<int>(std::floor(std::log10(std::pow(10.0, xd0) * bw / 1000))));

  const double W = 560, H = 380, L = 62, R = 18, T = 14, B = 48;
  auto X = [&](double v) { return L + (std::log10(v) - xd0) / (xd1 - xd0) * (W - L - R); };
  auto Y = [&](double v) { return T + (yd1 - std::log10(v)) / (yd1 - yd0) * (H - T - B); };

  put(h, "<section id=roofline><h2>Roofline</h2><svg class=chart id=roofline-svg viewBox='0 0 {} {}' width='100%' "
         "data-peak-tflops='{}' data-bytes-per-ns='{}' data-ridge='{}'>",
      W, H, peak, bw, ridge);
  for (int d = xd0; d <= xd1; ++d) {
    put(h, "<line class=grid x1={:.1f} x2={:.1f} y1={} y2={} />", X(std::pow(10.0, d)), X(std::pow(10.0, d)), T, H - B);
    put(h, "<text x={:.1f} y={} text-anchor=middle>{}</text>", X(std::pow(10.0, d)), H - B + 15, decadeLabel(d));
  }
  for (int d = yd0; d <= yd1; ++d) {
    put(h, "<line class=grid x1={} x2={} y1={:.1f} y2={:.1f} />", L, W - R, Y(std::pow(10.0, d)), Y(std::pow(10.0, d)));
    put(h, "<text x={} y={:.1f} text-anchor=end>{}</text>", L - 6, Y(std::pow(10.0, d)) + 4, decadeLabel(d));
  }
  put(h, "<rect class=frame x={} y={} width={} height={} />", L, T, W - L - R, H - T - B);
  put(h, "<text class=axis x={:.1f} y={} text-anchor=middle>arithmetic intensity (FLOP per HBM byte)</text>",
      (L + W - R) / 2, H - 10);
  put(h, "<text class=axis transform='translate(16 {:.1f}) rotate(-90)' text-anchor=middle>TFLOP/s</text>",
      (T + H - B) / 2);

  // Roofs: bandwidth from the left edge (or where it enters the plot) to the ridge, then compute.
  const double xMin = std::pow(10.0, xd0), xMax = std::pow(10.0, xd1), yMin = std::pow(10.0, yd0);
  const double bwStart = std::max(xMin, yMin * 1000 / bw);
  put(h, "<polyline class=roof points='{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}' />", X(bwStart),
      Y(bwStart * bw / 1000), X(ridge), Y(peak), X(xMax), Y(peak));
  put(h, "<text class=roofl x={:.1f} y={:.1f} text-anchor=end>compute roof {:.1f} TFLOP/s ({}, bf16)</text>",
      W - R - 6, Y(peak) - 7, peak, isa::familyOf(r.target).matrixUnit());
  {
    // The bandwidth label along its roof, a third of the way (in log space) from where it enters to the ridge.
    const double xm = bwStart * std::pow(ridge / bwStart, 0.35), angle = -std::atan2(Y(bwStart * bw / 1000) - Y(peak), X(ridge) - X(bwStart)) * 180 / M_PI;
    put(h, "<text class=roofl transform='translate({:.1f} {:.1f}) rotate({:.1f})' text-anchor=middle>DMA roof "
           "{:.1f} GB/s</text>",
        X(xm) - 4, Y(xm * bw / 1000) - 7, angle, bw);
  }
  put(h, "<line class=ridge x1={0:.1f} x2={0:.1f} y1={1:.1f} y2={2} /><circle class=ridgept cx={0:.1f} cy={1:.1f} r=3.5 />"
         "<text class=ridgel x={3:.1f} y={4} >ridge {5:.0f} FLOP/B</text>",
      X(ridge), Y(peak), H - B, X(ridge) + 5, H - B - 8, ridge);
  if (hasPoint) {
    const double px = X(ai), py = Y(achieved);
    put(h, "<circle id=kernel-point class=kpt cx={:.1f} cy={:.1f} r=6 data-intensity='{}' data-tflops='{}'>"
           "<title>{}: {:.2f} FLOP/B, {:.2f} TFLOP/s</title></circle>",
        px, py, ai, achieved, esc(r.kernel), ai, achieved);
    // Three short lines beside the point: right of it when they fit, else left.
    const bool right = px + 215 < W - R;
    put(h, "<text class=kptl x={0:.1f} y={1:.1f} text-anchor={2}>{3}<tspan class=kptd x={0:.1f} dy=15>{4:.1f} FLOP/B, "
           "{5:.2f} TFLOP/s</tspan><tspan class=kptd x={0:.1f} dy=15>{6}% of peak</tspan></text>",
        right ? px + 12 : px - 12, std::min(py + 4, H - B - 36), right ? "start" : "end", esc(r.kernel), ai, achieved,
        percent(100 * achieved / peak));
  }
  h += "</svg>";
  if (!hasPoint) h += "<p class=muted>No FLOPs or no HBM traffic: the kernel has no point on this plot.</p>";
  else
    put(h, "<p class=note>{} attainable at this intensity: {:.2f} TFLOP/s ({}-bound side of the ridge).</p>",
        esc(r.kernel), std::min(peak, ai * bw / 1000), ai < ridge ? "bandwidth" : "compute");
  h += "</section>\n";
}

/// The compiler's allocation peak in `space` (bytes per partition), or -1 where it records none.
int64_t allocatedIn(const RunReport &r, MemSpace space) {
  switch (space) {
  case MemSpace::Sbuf: return r.sbufPeakBytes;
  case MemSpace::Psum: return r.psumPeakBytes;
  case MemSpace::Vmem: return r.vmemPeakBytes;
  default: return -1;
  }
}

/// Live bytes over time in each on-chip memory the kernel uses (SBUF and PSUM, or VMEM), one panel each, scaled to
/// what the kernel uses of it.
void memory(Page &p) {
  const RunReport &r = p.r;
  std::string &h = p.html;
  h += "<section id=memory><h2>On-chip memory holding live data</h2>";
  if (r.sim.timeline.empty()) {
    h += "<p class=muted>No timeline was recorded for this run.</p></section>\n";
    return;
  }
  const LiveBytes live = liveBytesOverTime(p.program, r.target, r.sim.timeline);
  std::vector<const LiveSeries *> panels; // the memories the kernel holds data in, or the compiler allocated
  for (const LiveSeries &m : live.memories)
    if (m.peak > 0 || allocatedIn(r, m.space) > 0) panels.push_back(&m);
  const bool partitioned = std::any_of(panels.begin(), panels.end(), [](const LiveSeries *m) { return m->partitions > 1; });
  constexpr const char *kColours[] = {"#4e79a7", "#59a14f", "#f28e2b", "#b07aa1"};
  const double W = 560, panelH = 128, L = 70, R = 18;
  const TimeScale ts{p.endNs, L, W - L - R};
  const size_t n = panels.size();
  std::string peaks;
  for (const LiveSeries *m : panels) {
    std::string key(isa::name(m->space));
    if (m->core > 0) key += fmt::format("-core{}", m->core); // an SPMD launch's other cores
    peaks += fmt::format(" data-{}-peak='{}'", key, m->peak);
  }
  put(h, "<svg class=chart id=memory-svg viewBox='0 0 {} {}' width='100%'{}>", W,
      double(n) * panelH + double(n > 0 ? n - 1 : 0) * 22 + 40, peaks);
  for (size_t i = 0; i < n; ++i) {
    const LiveSeries &pn = *panels[i];
    const char *colour = kColours[i % std::size(kColours)];
    const int64_t allocated = allocatedIn(r, pn.space);
    const double top = 22 + double(i) * (panelH + 22), bottom = top + panelH - 22;
    // Scaled to what the kernel uses (the allocation, or the live peak), not the capacity, so its shape shows.
    const double usedKiB = std::max(1.0, 1.1 * double(std::max(pn.peak, allocated)) / 1024);
    const double stepKiB = niceStep(usedKiB, 2), cap = std::ceil(usedKiB / stepKiB) * stepKiB * 1024;
    auto Y = [&](double bytes) { return bottom - std::min(bytes / cap, 1.0) * (bottom - top); };
    put(h, "<text class=paneltitle x={} y={:.1f}>{} <tspan class=muted>peak {:.1f} KiB live{} &middot; capacity {:.0f} KiB"
           "</tspan></text>",
        L, top - 6, pn.title(), pn.peak / 1024.0,
        allocated >= 0 ? fmt::format(", {:.1f} allocated", allocated / 1024.0) : "", pn.capacityBytes / 1024.0);
    timeAxis(h, ts, top, bottom, i + 1 == n);
    for (double kib = 0; kib * 1024 <= cap * (1 + 1e-9); kib += stepKiB)
      put(h, "<line class=grid x1={} x2={} y1={:.1f} y2={:.1f} /><text x={} y={:.1f} text-anchor=end>{}</text>", L,
          W - R, Y(kib * 1024), Y(kib * 1024), L - 6, Y(kib * 1024) + 4, trimNumber(kib));
    // The step function, at most two points per pixel column (the column's maximum).
    const int columns = static_cast<int>(ts.width);
    std::vector<int64_t> colMax(columns, 0);
    for (size_t k = 0; k < pn.steps.size(); ++k) {
      const double t0 = pn.steps[k].first, t1 = k + 1 < pn.steps.size() ? pn.steps[k + 1].first : p.endNs;
      const int c0 = std::clamp(int(t0 / p.endNs * columns), 0, columns - 1);
      const int c1 = std::clamp(int(std::max(t0, t1 - 1e-9) / p.endNs * columns), 0, columns - 1);
      for (int c = c0; c <= c1; ++c) colMax[c] = std::max(colMax[c], pn.steps[k].second);
    }
    std::string path = fmt::format("M{:.1f},{:.1f}", ts.x0, bottom);
    for (int c = 0; c < columns; ++c)
      if (c == 0 || colMax[c] != colMax[c - 1])
        put(path, "L{:.1f},{:.1f}L{:.1f},{:.1f}", ts.x0 + c, c == 0 ? bottom : Y(double(colMax[c - 1])), ts.x0 + c,
            Y(double(colMax[c])));
    put(path, "L{:.1f},{:.1f}L{:.1f},{:.1f}Z", ts.x0 + columns, Y(double(colMax[columns - 1])), ts.x0 + columns, bottom);
    put(h, "<path d='{}' fill='{}' fill-opacity=0.35 stroke='{}' stroke-width=1.2 />", path, colour, colour);
    if (allocated >= 0)
      put(h, "<line class=alloc x1={} x2={} y1={:.1f} y2={:.1f} />", L, W - R, Y(double(allocated)),
          Y(double(allocated)));
    put(h, "<rect class=frame x={} y={:.1f} width={:.1f} height={:.1f} />", L, top, W - L - R, bottom - top);
  }
  put(h, "<text class=axis transform='translate(16 {:.1f}) rotate(-90)' text-anchor=middle>{}</text>",
      22 + double(n) * panelH / 2, partitioned ? "KiB per partition" : "KiB");
  h += "</svg><p class=note>A byte is live from the start of the instruction that writes it to the end of the last "
       "instruction that reads that value. Dashed: the compiler's allocation peak.</p></section>\n";
}

constexpr const char *kCss = R"(
:root{--fg:#1f2328;--muted:#656d76;--line:#d8dee4;--soft:#f6f8fa}
*{box-sizing:border-box}
body{margin:0;background:#fff;color:var(--fg);font:14px/1.45 system-ui,-apple-system,"Segoe UI","DejaVu Sans",Arial,sans-serif}
main{max-width:1240px;margin:0 auto;padding:22px 32px 30px}
header{display:flex;justify-content:space-between;align-items:flex-start;gap:20px;border-bottom:2px solid var(--line);padding-bottom:12px}
h1{font-size:26px;margin:0 0 2px}
h2{font-size:16px;margin:0 0 10px;padding-bottom:4px;border-bottom:1px solid var(--line)}
section{margin-top:22px}
.muted{color:var(--muted)}
.small{font-size:12px}
.badge{font-weight:700;font-size:15px;padding:6px 16px;border-radius:16px;white-space:nowrap}
.badge.ok{background:#dafbe1;color:#116329}.badge.bad{background:#ffebe9;color:#a40e26}.badge.neutral{background:#eaeef2;color:#424a53}
b.ok,td.ok{color:#116329}b.bad,td.bad{color:#a40e26;font-weight:700}b.neutral{color:#424a53}
.cards{display:grid;grid-template-columns:repeat(3,1fr);gap:10px}
.card{border:1px solid var(--line);border-radius:8px;background:var(--soft);padding:9px 14px}
.card .k{color:var(--muted);font-size:12px;text-transform:uppercase;letter-spacing:.04em}
.card .v{font-size:22px;font-weight:650;margin:1px 0}
.card .d{color:var(--muted);font-size:12.5px}
.verdict{margin:12px 0 6px}
table{border-collapse:collapse}
.numerics td,.numerics th,.streams td,.streams th{padding:3px 12px 3px 0;text-align:left;font-variant-numeric:tabular-nums}
.numerics th,.streams th{color:var(--muted);font-weight:500;font-size:12.5px;border-bottom:1px solid var(--line)}
.cols{display:grid;grid-template-columns:1fr 1fr;gap:32px}
.util{width:100%}
.util td{padding:4px 8px 4px 0;vertical-align:middle;white-space:nowrap}
.util td.name{width:64px;font-weight:600}
.util td.num{width:58px;text-align:right;font-variant-numeric:tabular-nums}
.util td.barcell{width:100%}
.bar{display:flex;height:16px;background:#f0f2f4;border-radius:3px;overflow:hidden}
.bar.split div{border-right:1px solid #fff}
.waitfill{background:repeating-linear-gradient(45deg,#9aa3ad 0 2px,#eceef1 2px 5px)}
.sw{display:inline-block;width:12px;height:12px;border-radius:2px;vertical-align:-1px;margin-right:5px}
.note{color:var(--muted);font-size:12.5px;margin:8px 0 0}
details{margin-top:8px;font-size:13px}summary{cursor:pointer;color:var(--muted)}
.reasons{margin:4px 0 10px;padding-left:22px}.reasons li{margin:2px 0}
.legend{display:flex;flex-wrap:wrap;gap:6px 16px;margin-bottom:6px;font-size:12.5px}
.chart{display:block;overflow:visible}
.chart text{font-size:11px;fill:#57606a}
.chart text.axis{font-size:12px;fill:#1f2328}
.chart .grid{stroke:#e6e9ec;stroke-width:1}
.chart .lane{fill:#f6f8fa}
.chart .frame{fill:none;stroke:#aab2bb}
.chart .roof{fill:none;stroke:#1f2328;stroke-width:2.2}
.chart .roofl{font-size:12px;fill:#1f2328}
.chart .ridge{stroke:#8c959f;stroke-dasharray:4 3}
.chart .ridgept{fill:#1f2328}
.chart .ridgel{fill:#57606a}
.chart .kpt{fill:#e15759;stroke:#fff;stroke-width:2}
.chart .kptl{font-size:12.5px;font-weight:700;fill:#a40e26}
.chart .kptd{font-weight:500}
.chart .muted{fill:#57606a;font-weight:400}
.chart .paneltitle{font-size:12px;fill:#1f2328;font-weight:600}
.chart .alloc{stroke:#1f2328;stroke-dasharray:5 3;stroke-width:1}
footer{margin-top:26px;color:var(--muted);font-size:12px;border-top:1px solid var(--line);padding-top:8px}
)";

} // namespace

// -------------------------------------------------------------------------------------------------------------------

std::string toHtml(const RunReport &report) {
  if (!report.program) throw Error("the HTML report needs the simulated program (RunReport::program)");
  Page p{report, *report.program, bindingProducers(*report.program, report.sim.timeline),
         stallReasons(*report.program, report.sim), report.sim.timeNs > 0 ? report.sim.timeNs : 1, {}};
  std::string &h = p.html;
  h.reserve(1 << 16);
  put(h, "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8><meta name=viewport "
         "content='width=device-width,initial-scale=1'><title>{} on {}: tessera report</title><style>{}</style>"
         "</head><body><main>\n",
      esc(report.kernel), esc(report.target.name), kCss);
  header(p);
  summary(p);
  h += "<div class=cols>";
  utilisation(p);
  stalls(p);
  h += "</div>\n";
  timeline(p);
  h += "<div class=cols>";
  roofline(p);
  memory(p);
  h += "</div>\n";
  // The numbers `tessera run --json` prints, for programs reading the page. '<' is escaped so no string in it can
  // end the script element.
  std::string json = jsonText(toJson(report));
  std::string safe;
  safe.reserve(json.size());
  for (char c : json) safe += c == '<' ? std::string("\\u003c") : std::string(1, c);
  put(h, "<footer>tessera report &middot; {} instructions simulated on {} &middot; the run as JSON is embedded in "
         "this page (script#tessera-json)</footer>\n<script type='application/json' id=tessera-json>{}</script>\n"
         "</main></body></html>\n",
      grouped(report.instructions), esc(report.target.name), safe);
  return h;
}

// -------------------------------------------------------------------------------------------------------------------

} // namespace tessera::driver
