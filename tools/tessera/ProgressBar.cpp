#include "tessera/ProgressBar.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <unistd.h>

namespace tessera::driver {

namespace {
constexpr int kBarWidth = 30;
constexpr auto kRedrawInterval = std::chrono::milliseconds(100);
} // namespace

ProgressBar::ProgressBar(std::FILE *out, bool enabled, std::chrono::milliseconds delay)
    : out_(out), enabled_(enabled), start_(std::chrono::steady_clock::now()), lastDraw_(start_), delay_(delay) {}

ProgressBar::~ProgressBar() {
  if (!drawn_) return;
  fmt::print(out_, "\r\033[K");
  std::fflush(out_);
}

bool ProgressBar::isTerminal(std::FILE *stream) { return ::isatty(::fileno(stream)) == 1; }

std::function<void(double, uint64_t, uint64_t)> ProgressBar::callback() {
  if (!enabled_) return {};
  return [this](double ns, uint64_t retired, uint64_t total) { update(ns, retired, total); };
}

std::function<void(const std::string &, double)> ProgressBar::waitingCallback() {
  if (!enabled_) return {};
  return [this](const std::string &what, double seconds) { wait(what, seconds); };
}

void ProgressBar::wait(const std::string &what, double seconds) {
  const auto now = std::chrono::steady_clock::now();
  if (now - start_ < delay_ || (drawn_ && now - lastDraw_ < kRedrawInterval)) return;
  lastDraw_ = now;
  drawn_ = true;
  fmt::print(out_, "\r  simulation done; waiting for the {} to check the outputs: {:.1f} s\033[K", what, seconds);
  std::fflush(out_);
}

void ProgressBar::update(double simulatedNs, uint64_t retired, uint64_t total) {
  const auto now = std::chrono::steady_clock::now();
  if (now - start_ < delay_ || (drawn_ && now - lastDraw_ < kRedrawInterval)) return;
  lastDraw_ = now;
  drawn_ = true;
  const double share = total ? std::min(1.0, double(retired) / double(total)) : 0.0;
  const int filled = static_cast<int>(share * kBarWidth + 0.5);
  fmt::print(out_, "\r  simulating [{}{}] {:3.0f}%  {:.3f} us simulated, {} of {} instructions\033[K",
             std::string(filled, '#'), std::string(kBarWidth - filled, '.'), 100 * share, simulatedNs / 1000.0,
             retired, total);
  std::fflush(out_);
}

} // namespace tessera::driver
