#pragma once
/// \file
/// SCALE-Sim v3's read buffer in CALC mode (`scalesim/memory/read_buffer_estimate_bw.py`): no bandwidth limit,
/// so reads never stall; it counts the DRAM reads a double-buffered SRAM would make and when. Addresses are
/// collected, in the order the array first asks for them, into sets of floor(words / 100); the active buffer is
/// 50 sets. When 50 more sets have filled, the next 50 are "prefetched" over the cycles since the last prefetch
/// (the first one at 10 words per cycle before the first read), and a read hits only in the 50 sets of the
/// active window. This is the model docs/systolic.md describes in closed form (epochs of 50 sets).

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tessera::systolic::scalesim {

class EstimatingReadBuffer {
public:
  /// Addresses lie in [first, end).
  EstimatingReadBuffer(int64_t sizeWords, int64_t first, int64_t end);

  /// One cycle's reads; they are always served at cycle + 1.
  void serve(const int64_t *addrs, size_t n, int64_t cycle);
  /// Prefetches what is left once the last read is in (SCALE-Sim's complete_all_prefetches).
  void complete();

  int64_t dramReads() const { return dramReads_; }
  int64_t dramStartCycle() const { return dramStart_; }
  int64_t dramStopCycle() const { return dramStop_; }

private:
  void add(int64_t addr, int64_t cycle);
  /// Prefetches `words` addresses over cycles [prefetchStart_, prefetchEnd_].
  void prefetch(int64_t words);

  static constexpr int64_t kActiveSets = 50, kPrefetchSets = 50, kFirstBandwidth = 10;
  int64_t perSet_ = 0, first_ = 0;
  /// The last set each address went into (-1: none), indexed by address - first.
  std::vector<int64_t> lastSet_;
  int64_t currentSet_ = 0, inCurrentSet_ = 0;
  int64_t windowStart_ = 0, windowEnd_ = kActiveSets - 1; ///< sets the active buffer holds, inclusive
  int64_t nextPrefetchSet_ = 0;
  bool activePrefetched_ = false, seenRequest_ = false;
  int64_t firstRequestCycle_ = 0;
  int64_t prefetchStart_ = -2, prefetchEnd_ = -1;
  int64_t dramReads_ = 0, dramStart_ = 0, dramStop_ = 0;
  bool traced_ = false;
};

} // namespace tessera::systolic::scalesim
