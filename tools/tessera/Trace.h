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

/// Fails now, with the InputError writeTrace() would give, when `path` cannot be written (its folder is missing
/// or read-only): so a bad --trace stops before the run rather than after it. Leaves nothing behind.
void checkTraceWritable(const std::string &path);

/// Writes `trace` to `path` atomically: to `path`.tmp, then renamed over `path`. On failure nothing is left at
/// either name and an InputError names the path and the reason.
void writeTrace(const nlohmann::ordered_json &trace, const std::string &path);

} // namespace tessera::driver
