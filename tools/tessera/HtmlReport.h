#pragma once
/// \file
/// `tessera run KERNEL --report FILE.html`: one self-contained HTML page (inline CSS and SVG, no scripts, fonts or
/// images from anywhere) with the run's summary, engine use, a timeline of every instruction, a roofline plot,
/// on-chip memory holding live data over time, and what each engine waited for. docs/report.md shows it;
/// tests/unit/e2e/HtmlReportTest.cpp checks it, down to a headless-Chromium screenshot.

#include "tessera/Driver.h"
#include "tessera/LiveMemory.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tessera::driver {

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

} // namespace tessera::driver
