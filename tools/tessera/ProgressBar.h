#pragma once
/// \file
/// The progress bar a long simulation shows on a terminal: simulated time and instructions retired, then, if the
/// golden model and the reference are still computing, how long the run has waited for them. Nothing is drawn when
/// the output is not a terminal, with --json, or for runs shorter than the delay.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

namespace tessera::driver {

class ProgressBar {
public:
  /// Draws on `out` (when `enabled`) once `delay` has passed since construction, at most every 100 ms.
  ProgressBar(std::FILE *out, bool enabled, std::chrono::milliseconds delay = std::chrono::seconds(1));
  /// Clears the bar's line if it was drawn, so the report starts on a clean line.
  ~ProgressBar();
  ProgressBar(const ProgressBar &) = delete;
  ProgressBar &operator=(const ProgressBar &) = delete;

  /// For SimOptions::progress; empty when the bar is disabled (so the simulator pays nothing).
  std::function<void(double, uint64_t, uint64_t)> callback();
  /// For RunRequest::waiting; empty when the bar is disabled.
  std::function<void(const std::string &, double)> waitingCallback();

  /// Whether `stream` is a terminal.
  static bool isTerminal(std::FILE *stream);

private:
  void update(double simulatedNs, uint64_t retired, uint64_t total);
  void wait(const std::string &what, double seconds);

  std::FILE *out_;
  bool enabled_;
  std::chrono::steady_clock::time_point start_, lastDraw_;
  std::chrono::milliseconds delay_;
  bool drawn_ = false;
};

} // namespace tessera::driver
