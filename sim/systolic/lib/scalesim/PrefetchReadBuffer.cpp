#include "tessera/systolic/scalesim/PrefetchReadBuffer.h"

#include "tessera/systolic/Mapping.h"

#include "tessera/isa/Error.h"

#include <algorithm>

namespace tessera::systolic::scalesim {

PrefetchReadBuffer::PrefetchReadBuffer(int64_t sizeWords, int64_t bandwidth, const std::vector<int64_t> &order)
    : bandwidth_(bandwidth), activeWords_(ceilDiv(sizeWords, 2)), prefetchWords_(sizeWords - activeWords_) {
  fetchLines_ = ceilDiv(int64_t(order.size()), bandwidth_);
  const int64_t perSet = ceilDiv(sizeWords, 100);
  // Set s holds the s-th perSet addresses of the order (empty slots skipped); a last, possibly empty, set follows.
  int64_t last = -1;
  first_ = -1;
  for (int64_t a : order) {
    if (a == -1) continue;
    first_ = first_ == -1 ? a : std::min(first_, a);
    last = std::max(last, a);
  }
  const int64_t span = first_ == -1 ? 0 : last - first_ + 1;
  setBegin_.assign(size_t(span + 1), 0);
  int64_t valid = 0;
  for (int64_t a : order)
    if (a != -1) ++setBegin_[size_t(a - first_ + 1)], ++valid;
  for (size_t i = 1; i < setBegin_.size(); ++i) setBegin_[i] += setBegin_[i - 1];
  setIds_.resize(size_t(valid));
  std::vector<int64_t> fill(setBegin_.begin(), setBegin_.end() - 1);
  int64_t k = 0;
  for (int64_t a : order) {
    if (a == -1) continue;
    setIds_[size_t(fill[size_t(a - first_)]++)] = int32_t(k / perSet);
    ++k;
  }
  sets_ = valid / perSet + 1;
  activeSets_ = std::min(ceilDiv(activeWords_, perSet), sets_);
  prefetchSets_ = std::min(ceilDiv(prefetchWords_, perSet), sets_ - activeSets_);
}

bool PrefetchReadBuffer::inActiveWindow(int64_t addr) const {
  const int64_t i = addr - first_;
  if (i < 0 || i + 1 >= int64_t(setBegin_.size())) return false;
  const int32_t *lo = setIds_.data() + setBegin_[size_t(i)], *hi = setIds_.data() + setBegin_[size_t(i + 1)];
  auto anyIn = [&](int64_t from, int64_t to) { // a set id in [from, to)
    const int32_t *p = std::lower_bound(lo, hi, int32_t(from));
    return p != hi && *p < to;
  };
  if (windowStart_ < windowEnd_) return anyIn(windowStart_, windowEnd_);
  return anyIn(windowStart_, sets_) || anyIn(0, windowEnd_);
}

void PrefetchReadBuffer::prefetchActiveBuffer(int64_t startCycle) {
  // The active buffer's lines arrive in the cycles just before the first read.
  const int64_t lines = std::min(ceilDiv(activeWords_, bandwidth_), fetchLines_);
  dramReads_ += lines * bandwidth_;
  dramStart_ = startCycle - lines;
  lastPrefetchCycle_ = startCycle - 1;
  windowStart_ = 0, windowEnd_ = activeSets_;
}

void PrefetchReadBuffer::prefetchNext() {
  windowStart_ = (windowStart_ + prefetchSets_) % sets_;
  windowEnd_ = (windowStart_ + activeSets_) % sets_;
  const int64_t lines = ceilDiv(prefetchWords_, bandwidth_);
  dramReads_ += lines * bandwidth_;
  lastPrefetchCycle_ += lines + 1;
}

int64_t PrefetchReadBuffer::serve(const int64_t *addrs, size_t n, int64_t cycle) {
  if (!primed_) {
    prefetchActiveBuffer(cycle);
    primed_ = true;
  }
  int64_t offset = 1; // the hit latency
  for (size_t i = 0; i < n; ++i) {
    int64_t slides = 0;
    while (!inActiveWindow(addrs[i])) {
      if (++slides > sets_ + 1)
        throw Error("internal: a read that is in no prefetch set (the prefetch order misses an address)");
      prefetchNext();
      const int64_t late = lastPrefetchCycle_ - (cycle + offset);
      offset += late;
      if (late > 0) offset += late;
    }
  }
  return cycle + offset;
}

} // namespace tessera::systolic::scalesim
