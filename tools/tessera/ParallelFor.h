#pragma once
/// \file
/// The one worker pool of the CLI's parallel work (`tessera sweep`'s points, `tessera systolic -c`'s layers):
/// indices handed out in rising order to `jobs` threads, the calling thread one of them.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace tessera::driver {

/// Calls body(i) once for each i in [0, n), `jobs` at a time (at least 1, at most n), and returns when all are
/// done. body must not throw: it keeps its own results and errors (and may skip work once one failed).
template <typename Body> void parallelFor(size_t n, unsigned jobs, Body &&body) {
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < n; i = next++) body(i);
  };
  const unsigned threads = std::clamp<unsigned>(jobs, 1, unsigned(std::max<size_t>(n, 1)));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread &t : pool) t.join();
}

} // namespace tessera::driver
