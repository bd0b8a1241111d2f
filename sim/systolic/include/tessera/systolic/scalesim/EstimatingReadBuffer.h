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
  /// Addresses lie in [first, end); `distinct` of them are read, `reads` times in all (or fewer).
  EstimatingReadBuffer(int64_t sizeWords, int64_t first, int64_t end, int64_t distinct, int64_t reads);

  /// One cycle's reads; they are always served at cycle + 1.
  void serve(const int64_t *addrs, size_t n, int64_t cycle) {
    for (size_t i = 0; i < n; ++i) read(addrs[i], cycle);
  }
  /// One read at `cycle`.
  void read(int64_t addr, int64_t cycle) {
    // A hit: the address is in a closed set of the active window [windowStart_, currentSet_), or in the set being
    // filled (currentSet_, never past the window's end): the set it went into last is at windowStart_ or later.
    int32_t &last = lastSet_[size_t(addr - first_)];
    if (last < windowStart_) add(last, cycle);
  }
  /// Whether the reads still to come cannot change anything, so that serve() need not be called: every address is
  /// in a set and no prefetch has moved the active window (only a miss could), or there are too few reads to fill
  /// the active window at all (then every address goes into a set once, in whatever order, and stays).
  bool settled() const { return windowStart_ == 0 && added_ == distinct_; }
  /// Prefetches what is left once the last read is in (SCALE-Sim's complete_all_prefetches).
  void complete();

  int64_t dramReads() const { return dramReads_; }
  int64_t dramStartCycle() const { return dramStart_; }
  int64_t dramStopCycle() const { return dramStop_; }

private:
  /// A miss: the address (its lastSet_ entry) goes into the set being filled.
  void add(int32_t &last, int64_t cycle);
  /// Prefetches `words` addresses over cycles [prefetchStart_, prefetchEnd_].
  void prefetch(int64_t words);

  static constexpr int64_t kActiveSets = 50, kPrefetchSets = 50, kFirstBandwidth = 10;
  int64_t perSet_ = 0, first_ = 0, distinct_ = 0;
  int64_t added_ = 0; ///< distinct addresses put into a set so far
  /// The last set each address went into (-1: none), indexed by address - first.
  std::vector<int32_t> lastSet_;
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
