#include "tessera/systolic/Wavefront.h"

#include "tessera/systolic/Result.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace tessera::systolic {

namespace {

char symbol(PeActivity a) {
  switch (a) {
  case PeActivity::Idle: return '.';
  case PeActivity::Load: return 'w';
  case PeActivity::Mac: return '#';
  case PeActivity::Bubble: return 'o';
  }
  return '?';
}

const char *colour(PeActivity a) {
  switch (a) {
  case PeActivity::Idle: return "#f2f2f2";
  case PeActivity::Load: return "#74add1";
  case PeActivity::Mac: return "#f46d43";
  case PeActivity::Bubble: return "#bdbdbd";
  }
  return "#000000";
}

/// Early (blue) to late (red), for x in [0, 1].
std::string heat(double x) {
  static constexpr std::array<std::array<double, 3>, 4> stops = {
      {{44, 123, 182}, {171, 217, 233}, {253, 174, 97}, {215, 25, 28}}};
  x = std::clamp(x, 0.0, 1.0) * (stops.size() - 1);
  size_t i = std::min(size_t(x), stops.size() - 2);
  double f = x - double(i);
  auto c = [&](int k) { return int(std::lround(stops[i][k] + f * (stops[i + 1][k] - stops[i][k]))); };
  return fmt::format("#{:02x}{:02x}{:02x}", c(0), c(1), c(2));
}

constexpr double kFont = 12, kTitleFont = 15;  // the labels' font sizes: the svg element's, the title's
constexpr size_t kMaxFrames = 4096;            // first-fold snapshots kept
constexpr int64_t kMaxFrameBytes = 1 << 26;    // ... and their memory
constexpr size_t kMaxActivityPoints = 4096;    // the busy-PE curve is averaged into at most this many points

} // namespace

std::string renderFrame(const CycleView &view) {
  std::string out = fmt::format("cycle {}  fold {}/{} (row fold {}, col fold {}) cycle {}: {} MACs, {} SRAM reads, "
                                "{} SRAM writes\n",
                                view.cycle, view.fold + 1, view.folds, view.rowFold + 1, view.colFold + 1,
                                view.foldCycle, view.macs, view.sramReads, view.sramWrites);
  std::string border = "  +" + std::string(size_t(view.cols), '-') + "+\n";
  out += border;
  for (int64_t i = 0; i < view.rows; ++i) {
    out += "  |";
    for (int64_t j = 0; j < view.cols; ++j) out += symbol((*view.activity)[size_t(i * view.cols + j)]);
    out += "|\n";
  }
  out += border;
  return out;
}

void WavefrontRecorder::operator()(const CycleView &view) {
  if (rows_ == 0) {
    rows_ = view.rows, cols_ = view.cols;
    firstMac_.assign(size_t(rows_ * cols_), -1);
  }
  if (view.foldCycle == 0) foldStarts_.push_back(view.cycle);
  if (view.fold == 0) {
    const auto &act = *view.activity;
    for (size_t p = 0; p < act.size(); ++p)
      if (act[p] == PeActivity::Mac && firstMac_[p] < 0) firstMac_[p] = view.foldCycle;
    if (frames_.size() < kMaxFrames && int64_t(frames_.size() + 1) * rows_ * cols_ <= kMaxFrameBytes)
      frames_.push_back(act);
  }
  // Average the busy-PE count over buckets of cycles that double whenever the curve gets too long.
  busySum_ += double(view.macs);
  if (++inBucket_ < bucket_) return;
  busy_.push_back(busySum_ / double(bucket_));
  busySum_ = 0, inBucket_ = 0;
  if (busy_.size() == kMaxActivityPoints) {
    for (size_t i = 0; i < busy_.size() / 2; ++i) busy_[i] = (busy_[2 * i] + busy_[2 * i + 1]) / 2;
    busy_.resize(busy_.size() / 2);
    bucket_ *= 2;
  }
}

double labelWidth(std::string_view text, double fontSize, bool bold) {
  size_t chars = 0;
  for (unsigned char c : text) chars += (c & 0xC0) != 0x80; // UTF-8 continuation bytes are no new character
  return double(chars) * fontSize * (bold ? kLabelBoldCharEm : kLabelCharEm);
}

std::string WavefrontRecorder::svg(const ArrayConfig &config, const Gemm &gemm, const Result &result) const {
  const int64_t R = config.rows, C = config.cols, side = std::max(R, C);
  constexpr double margin = 20, panelGap = 40, lineGap = 4;
  auto labelW = [](const std::string &t, double size = kFont, bool bold = false) {
    return labelWidth(t, size, bold);
  };
  // Baselines: a line's box sits lineGap below the previous one's.
  auto below = [](double baseline, double size, double nextSize) {
    return baseline + kLabelDescentEm * size + lineGap + kLabelAscentEm * nextSize;
  };
  std::string s;
  auto rect = [&](double x, double y, double w, double h, const std::string &fill, const std::string &extra = "") {
    s += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="{:.2f}" height="{:.2f}" fill="{}"{}/>)", x, y, w, h, fill,
                     extra);
    s += '\n';
  };
  auto text = [&](double x, double y, const std::string &body, const std::string &attrs = "") {
    s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}"{}>{}</text>)", x, y, attrs, body);
    s += '\n';
  };

  const std::string title = fmt::format("{}x{} systolic array, {} ({}), GEMM M={} N={} K={}", R, C,
                                        longName(config.dataflow), shortName(config.dataflow), gemm.m, gemm.n, gemm.k);
  const std::string subtitle =
      fmt::format("{} folds of {} cycles = {} cycles; utilization {:.1f}%, mapping efficiency {:.1f}%",
                  result.mapping.folds(), result.mapping.cyclesPerFold, result.computeCycles,
                  100 * result.utilization, 100 * result.mappingEfficiency);
  const double titleY = margin + kLabelAscentEm * kTitleFont, subtitleY = below(titleY, kTitleFont, kFont);
  // Each panel has a two-line heading, then its drawing.
  const double headY = below(subtitleY, kFont, kFont) + 10, head2Y = below(headY, kFont, kFont);
  const double top = head2Y + kLabelDescentEm * kFont + 6;

  // Panel 1: the cycle of each PE's first MAC in fold 1; the skew shows as diagonal bands.
  int64_t firstCycle = -1, lastCycle = -1;
  for (int64_t c : firstMac_)
    if (c >= 0) firstCycle = firstCycle < 0 ? c : std::min(firstCycle, c), lastCycle = std::max(lastCycle, c);
  const std::string mapHead = "fold 1: cycle of each PE's first MAC";
  const std::string mapHead2 = firstCycle < 0 ? std::string("no PE does a MAC")
                                              : fmt::format("{} blue .. {} red", firstCycle, lastCycle);
  const double cell = std::clamp(std::floor(340.0 / double(side)), 1.0, 24.0);
  const double mapLeft = margin, mapTop = top;
  const double mapPanelW = std::max({cell * double(C), labelW(mapHead), labelW(mapHead2)});

  // Panel 2: snapshots of fold 1, three to a row, each wide enough for its caption.
  const int snapshots = int(std::min<size_t>(6, frames_.size()));
  std::vector<size_t> snapFrame(static_cast<size_t>(snapshots));
  double captionW = 0;
  for (int k = 0; k < snapshots; ++k) {
    snapFrame[size_t(k)] = snapshots == 1 ? 0 : size_t(k) * (frames_.size() - 1) / size_t(snapshots - 1);
    captionW = std::max(captionW, labelW(fmt::format("cycle {}", snapFrame[size_t(k)])));
  }
  const std::string snapHead = "fold 1, cycle by cycle";
  const std::string snapHead2 = "blue: loading, red: MAC, grey: bubble, light: idle";
  const double snapCell = std::clamp(std::floor(130.0 / double(side)), 1.0, 12.0);
  const double snapW = snapCell * double(C), snapH = snapCell * double(R);
  const double snapPitchX = std::max(snapW + 24, captionW + 12);
  const double captionDy = 2 + kLabelAscentEm * kFont; // caption baseline below the snapshot's frame
  const double snapPitchY = snapH + captionDy + kLabelDescentEm * kFont + 12;
  const int snapCols = std::min(snapshots, 3), snapRows = (snapshots + 2) / 3;
  const double snapLeft = mapLeft + mapPanelW + panelGap, snapTop = top;
  const double snapsW = snapCols > 0 ? double(snapCols - 1) * snapPitchX + std::max(snapW, captionW) : 0;
  const double snapPanelW = std::max({snapsW, labelW(snapHead), labelW(snapHead2)});

  // Panel 3 below both; the picture as wide as its widest row.
  const double width = std::ceil(std::max({900.0, snapLeft + snapPanelW + margin,
                                           2 * margin + labelW(title, kTitleFont, true),
                                           2 * margin + labelW(subtitle)}));
  const std::string yTop = fmt::format("{}", R * C), xEnd = fmt::format("{} cycles", result.computeCycles);
  const double chartTop = std::max(mapTop + cell * double(R), snapTop + double(snapRows) * snapPitchY) + 40;
  const double chartH = 160, chartLeft = std::max(60.0, margin + labelW(yTop) + 6), chartW = width - chartLeft - 30;
  const double height = chartTop + chartH + 60;

  s += fmt::format(R"(<svg xmlns="http://www.w3.org/2000/svg" width="{:.0f}" height="{:.0f}" )"
                   R"(viewBox="0 0 {:.0f} {:.0f}" font-family="sans-serif" font-size="{:.0f}">)",
                   width, height, width, height, kFont);
  s += "\n";
  rect(0, 0, width, height, "#ffffff");
  text(margin, titleY, title, fmt::format(R"( font-size="{:.0f}" font-weight="bold")", kTitleFont));
  text(margin, subtitleY, subtitle);

  text(mapLeft, headY, mapHead);
  text(mapLeft, head2Y, mapHead2);
  for (int64_t i = 0; i < R; ++i)
    for (int64_t j = 0; j < C; ++j) {
      int64_t c = firstMac_.empty() ? -1 : firstMac_[size_t(i * C + j)];
      double x = lastCycle > firstCycle ? double(c - firstCycle) / double(lastCycle - firstCycle) : 0.0;
      std::string tip = R * C <= 4096 ? fmt::format("><title>PE ({}, {}): {}</title></rect", i, j,
                                                    c < 0 ? std::string("no MAC") : fmt::format("cycle {}", c))
                                      : "";
      if (tip.empty()) rect(mapLeft + double(j) * cell, mapTop + double(i) * cell, cell, cell, c < 0 ? "#eeeeee" : heat(x));
      else {
        s += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="{:.2f}" height="{:.2f}" fill="{}")", mapLeft + double(j) * cell,
                         mapTop + double(i) * cell, cell, cell, c < 0 ? "#eeeeee" : heat(x));
        s += tip + ">\n";
      }
    }

  text(snapLeft, headY, snapHead);
  text(snapLeft, head2Y, snapHead2);
  for (int k = 0; k < snapshots; ++k) {
    size_t f = snapFrame[size_t(k)];
    double x0 = snapLeft + (k % 3) * snapPitchX, y0 = snapTop + (k / 3) * snapPitchY;
    rect(x0 - 1, y0 - 1, snapW + 2, snapH + 2, "#999999");
    for (int64_t i = 0; i < R; ++i)
      for (int64_t j = 0; j < C; ++j)
        rect(x0 + double(j) * snapCell, y0 + double(i) * snapCell, snapCell, snapCell,
             colour(frames_[f][size_t(i * C + j)]));
    text(x0, y0 + snapH + captionDy, fmt::format("cycle {}", f));
  }

  // Panel 3: busy PEs over the whole run, fold boundaries dashed.
  const double cycles = double(std::max<int64_t>(result.computeCycles, 1)), pes = double(R * C);
  text(chartLeft, chartTop - 10,
       fmt::format("PEs doing a MAC, every cycle of the run{}", bucket_ > 1 ? fmt::format(
                                                                    " (mean over {} cycles)", bucket_)
                                                                              : std::string()));
  rect(chartLeft, chartTop, chartW, chartH, "#fafafa", R"( stroke="#999999")");
  if (foldStarts_.size() <= 256)
    for (size_t f = 1; f < foldStarts_.size(); ++f) {
      double x = chartLeft + chartW * double(foldStarts_[f]) / cycles;
      s += fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="#cccccc" stroke-dasharray="4 3"/>)",
                       x, chartTop, x, chartTop + chartH);
      s += '\n';
    }
  std::string points;
  auto point = [&](double cycle, double busy) {
    points += fmt::format("{:.1f},{:.1f} ", chartLeft + chartW * cycle / cycles, chartTop + chartH - chartH * busy / pes);
  };
  for (size_t p = 0; p < busy_.size(); ++p) point((double(p) + 0.5) * double(bucket_), busy_[p]);
  if (inBucket_ > 0) // the last cycles, fewer than a bucket
    point(double(busy_.size()) * double(bucket_) + double(inBucket_) / 2, busySum_ / double(inBucket_));
  s += fmt::format(R"(<polyline fill="none" stroke="#d7191c" stroke-width="1.2" points="{}"/>)", points);
  s += '\n';
  text(chartLeft - 6, chartTop + 4, yTop, R"( text-anchor="end")");
  text(chartLeft - 6, chartTop + chartH, "0", R"( text-anchor="end")");
  text(chartLeft, chartTop + chartH + 16, "0");
  text(chartLeft + chartW, chartTop + chartH + 16, xEnd, R"( text-anchor="end")");
  s += "</svg>\n";
  return s;
}

} // namespace tessera::systolic
