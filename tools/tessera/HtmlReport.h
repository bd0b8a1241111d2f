#pragma once
/// \file
/// `tessera run KERNEL --report FILE.html`: one self-contained HTML page (inline CSS and SVG, no scripts, fonts or
/// images from anywhere) with the run's summary, engine use, a timeline of every instruction, a roofline plot,
/// on-chip memory holding live data over time, and what each engine waited for. docs/report.md shows it;
/// tests/unit/e2e/HtmlReportTest.cpp checks it, down to a headless-Chromium screenshot.

#include "tessera/Driver.h"

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tessera::driver {

/// Bytes per partition of SBUF and PSUM that hold live data, over time. A byte is live from the start of the
/// instruction that writes it to the end of the last instruction that reads that value (a value nothing reads
/// is live while it is written). Counted per address within a partition: a byte live in any partition counts.
struct LiveBytes {
  /// Steps: from `first` ns on, `second` bytes are live, until the next step. Starts at time 0.
  std::vector<std::pair<double, int64_t>> sbuf, psum;
  int64_t sbufPeak = 0, psumPeak = 0;
};

/// Live SBUF and PSUM bytes over time, from a run's timeline and its program's access patterns.
LiveBytes liveBytesOverTime(const isa::Program &program, const std::vector<sim::InstructionEvent> &timeline);

/// Time one stream spent waiting for the signal of another.
struct Stall {
  uint32_t waiter = 0;    ///< stream index (Program::streams)
  int32_t producer = -1;  ///< the stream whose signal ended the wait; -1 when no signal explains it
  double waitNs = 0;
};

/// For each waiting stream, its semaphore wait time attributed to the stream it waited for, largest first. An
/// instruction's wait (InstructionEvent issueNs to startNs) goes to the producer of the semaphore signal that
/// arrived last among those it waited for: that signal is what let it start.
std::vector<Stall> stallReasons(const isa::Program &program, const sim::SimResult &result);

/// The HTML report of a run. Needs `report.program`; the timeline, memory and stall sections need the run to
/// have recorded its timeline (RunRequest::recordTimeline) and say so when it did not.
std::string toHtml(const RunReport &report);

/// A file that appears whole or not at all. The constructor creates `path`.tmp (so an unwritable path fails
/// before any work, as an InputError naming it); commit() writes the text and renames it over `path`. Destroyed
/// without commit() (the run failed), it removes the .tmp.
class AtomicFile {
public:
  explicit AtomicFile(std::filesystem::path path);
  ~AtomicFile();
  AtomicFile(const AtomicFile &) = delete;
  AtomicFile &operator=(const AtomicFile &) = delete;

  void commit(std::string_view text);
  const std::filesystem::path &path() const { return path_; }

private:
  std::filesystem::path path_, tmp_;
  std::FILE *file_ = nullptr;
};

} // namespace tessera::driver
