#pragma once
/// \file
/// `tessera run KERNEL --report FILE.html`: one self-contained HTML page (inline CSS and SVG, no scripts, fonts or
/// images from anywhere) with the run's summary, engine use, a timeline of every instruction, a roofline plot,
/// on-chip memory holding live data over time, and what each engine waited for. docs/report.md shows it;
/// tests/unit/e2e/HtmlReportTest.cpp checks it, down to a headless-Chromium screenshot. The analyses it draws are
/// apart: LiveMemory.h (memory holding live data), StallAnalysis.h (what each engine waited for).

#include "tessera/Driver.h"
#include "tessera/LiveMemory.h"

#include <string>

namespace tessera::driver {

/// The HTML report of a run. Needs `report.program`; the timeline, memory and stall sections need the run to
/// have recorded its timeline (RunRequest::recordTimeline) and say so when it did not.
std::string toHtml(const RunReport &report);

} // namespace tessera::driver
