#include "tessera/systolic/scalesim/EstimatingReadBuffer.h"

#include "tessera/systolic/Mapping.h"

#include "tessera/isa/Error.h"

#include <algorithm>
#include <limits>

namespace tessera::systolic::scalesim {

EstimatingReadBuffer::EstimatingReadBuffer(int64_t sizeWords, int64_t first, int64_t end, int64_t distinct,
                                           int64_t reads)
    : perSet_(sizeWords / 100), first_(first), distinct_(distinct) {
  if (perSet_ < 1) throw Error("an SRAM of CALC mode needs at least 100 words (SCALE-Sim's sets are 1% of it)");
  if (reads < kActiveSets * perSet_) {
    // The window can never fill, so it never moves: each distinct address is added once, and the DRAM reads and
    // their cycles (complete()) depend only on how many.
    added_ = distinct_;
    currentSet_ = distinct_ / perSet_, inCurrentSet_ = distinct_ % perSet_;
    return;
  }
  lastSet_.assign(size_t(std::max<int64_t>(0, end - first)), -1);
}

void EstimatingReadBuffer::add(int32_t &last, int64_t cycle) {
  // The operand's first read is a miss (nothing is in a set yet): the active buffer's prefetch ends before it.
  if (!seenRequest_) firstRequestCycle_ = cycle, seenRequest_ = true;
  added_ += last == -1;
  last = int32_t(currentSet_);
  if (++inCurrentSet_ < perSet_) return;
  inCurrentSet_ = 0;
  if (++currentSet_ == std::numeric_limits<int32_t>::max())
    throw Error("the CALC read buffer filled 2^31 address sets", {}, "a larger SRAM, or a smaller layer");
  if (currentSet_ != windowEnd_ + 1) return;
  // The active window is full: the prefetch of what it holds happened over the cycles since the last one.
  if (!activePrefetched_) {
    prefetchEnd_ = firstRequestCycle_ - 2; // a cycle before the first read, less the DRAM port's latency
    prefetchStart_ = prefetchEnd_ - ceilDiv(kPrefetchSets * perSet_, kFirstBandwidth) + 1;
    prefetch(kActiveSets * perSet_);
    nextPrefetchSet_ = windowEnd_ + 1;
    activePrefetched_ = true;
  } else {
    prefetch(kPrefetchSets * perSet_);
    nextPrefetchSet_ += kPrefetchSets;
  }
  windowStart_ += kPrefetchSets;
  windowEnd_ += kPrefetchSets;
  prefetchStart_ = prefetchEnd_ + 1;
  prefetchEnd_ = cycle;
}

void EstimatingReadBuffer::prefetch(int64_t words) {
  dramReads_ += words;
  const int64_t cycles = prefetchEnd_ - prefetchStart_ + 1;
  if (cycles < 0 || (cycles == 0 && words > 0))
    throw Error("SCALE-Sim's CALC-mode prefetcher has no cycles for a prefetch here (SCALE-Sim itself fails)", {},
                "a larger SRAM avoids it");
  if (cycles == 0) return;
  // The DRAM trace's rows are the prefetch's cycles plus the port's latency of one.
  if (!traced_) dramStart_ = prefetchStart_ + 1, traced_ = true;
  dramStop_ = prefetchEnd_ + 1;
}

void EstimatingReadBuffer::complete() {
  // The set being filled counts if it has anything in it; the sets before it are full.
  int64_t lastSet = currentSet_, lastSize = inCurrentSet_;
  if (lastSize == 0) --lastSet, lastSize = perSet_;
  const int64_t from = activePrefetched_ ? nextPrefetchSet_ : 0;
  const int64_t words = lastSet < from ? 0 : (lastSet - from) * perSet_ + lastSize;
  if (!activePrefetched_) {
    // Everything fitted the active buffer: one prefetch at 10 words per cycle, ending before cycle 0.
    prefetchEnd_ = -2;
    prefetchStart_ = prefetchEnd_ - ceilDiv((lastSet + 1) * perSet_, kFirstBandwidth) + 1;
    activePrefetched_ = true;
  }
  prefetch(words);
}

} // namespace tessera::systolic::scalesim
