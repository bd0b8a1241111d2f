#pragma once
/// \file
/// SCALE-Sim v3's read buffer in USER mode (`scalesim/memory/read_buffer.py`): a double-buffered SRAM in front of
/// a DRAM interface of `bandwidth` words per cycle. The operand's prefetch order (FoldPlan::prefetchOrder) is cut
/// into sets of ceil(words / 100) addresses; half the SRAM (the active buffer) holds a window of sets, the other
/// half is the next ones' prefetch. A read that is not in the window slides it on by a prefetch buffer's worth of
/// sets, which costs ceil(prefetch words / bandwidth) + 1 cycles after the previous prefetch ended, and stalls the
/// array until then. The rules below are SCALE-Sim's to the letter, its arithmetic included (a late prefetch
/// adds its lateness twice; an early one takes the offset back to the prefetch's end): the point is to give
/// SCALE-Sim's numbers.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tessera::systolic::scalesim {

class PrefetchReadBuffer {
public:
  /// `order`: the prefetch order with SCALE-Sim's empty slots (-1).
  PrefetchReadBuffer(int64_t sizeWords, int64_t bandwidth, const std::vector<int64_t> &order);

  /// Serves one cycle's reads (`n` addresses) arriving at `cycle`; returns the cycle they are served, which is
  /// cycle + 1 when none stalls.
  int64_t serve(const int64_t *addrs, size_t n, int64_t cycle);

  int64_t dramReads() const { return dramReads_; }
  int64_t dramStartCycle() const { return dramStart_; }
  int64_t dramStopCycle() const { return lastPrefetchCycle_; }

private:
  bool inActiveWindow(int64_t addr) const;
  void prefetchActiveBuffer(int64_t startCycle);
  void prefetchNext();

  int64_t bandwidth_, activeWords_, prefetchWords_;
  int64_t fetchLines_ = 0; ///< lines of `bandwidth` words the prefetch order fills
  int64_t sets_ = 0, activeSets_ = 0, prefetchSets_ = 0;
  int64_t windowStart_ = 0, windowEnd_ = 0;
  int64_t first_ = 0; ///< the lowest address of the order
  /// For address first + i, the sets it is in: setIds_[setBegin_[i] .. setBegin_[i + 1]), ascending.
  std::vector<int64_t> setBegin_;
  std::vector<int32_t> setIds_;
  bool primed_ = false;
  int64_t lastPrefetchCycle_ = -1, dramStart_ = 0, dramReads_ = 0;
};

} // namespace tessera::systolic::scalesim
