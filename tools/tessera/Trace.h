#pragma once
/// \file
/// `tessera run KERNEL --trace FILE.json` (and `tessera sim FILE.mlir --trace ...`): a run's timeline in the
/// Chrome trace-event format, which ui.perfetto.dev and chrome://tracing open. One track per engine and per DMA
/// queue; one slice per instruction (its operands, source line, cycles or bytes); a slice per semaphore wait; and
/// counters of the SBUF and PSUM bytes holding live data and of the HBM bandwidth the DMA queues use.
/// tests/unit/e2e/TraceTest.cpp checks a trace against the format's rules; compiler/test/Tools/trace.test checks
/// the command line.

#include "tessera/Driver.h"

#include <nlohmann/json.hpp>

#include <string>

namespace tessera::driver {

/// The trace of a run that recorded its timeline (RunRequest::recordTimeline; needs report.program):
/// `{"traceEvents": [...], "displayTimeUnit": "ns"}`, times in microseconds. Without a timeline it holds the
/// tracks and no slices.
nlohmann::ordered_json toTrace(const RunReport &report);

/// The text of `trace`: one event per line (readable, diff- and grep-friendly). Write it with an AtomicFile.
std::string traceText(const nlohmann::ordered_json &trace);

} // namespace tessera::driver
