#pragma once
/// \file
/// What the two simulating commands, `tessera run` and `tessera sim`, share: the files a run writes besides its
/// report (--trace, --report), and the run itself with a progress bar, then the report on stdout.

#include "tessera/AtomicFile.h"
#include "tessera/Driver.h"

#include <boost/program_options.hpp>

#include <functional>
#include <optional>
#include <string>

namespace tessera::driver {

/// What a simulating command writes besides its report on stdout: `--trace` and `--report` files.
struct RunOutputs {
  std::string tracePath, reportPath;
  std::optional<AtomicFile> trace, html;

  void add(boost::program_options::options_description &desc);
  /// Opens the files before the run, so that a path that cannot be written fails at once. Returns whether the
  /// run must record its timeline.
  bool open();
  void write(const RunReport &report);
};

/// Runs `simulate` with a progress bar on a terminal (never with --json), then writes the outputs and prints the
/// report.
RunReport simulateAndReport(RunRequest request, RunOutputs &outputs, bool json,
                            const std::function<RunReport(const RunRequest &)> &simulate);

} // namespace tessera::driver
