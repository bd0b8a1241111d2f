#include "tessera/systolic/scalesim/WriteBuffer.h"

#include "tessera/systolic/Mapping.h"

#include <algorithm>

namespace tessera::systolic::scalesim {

WriteBuffer::WriteBuffer(int64_t sizeWords, int64_t bandwidth)
    : bandwidth_(bandwidth), totalWords_(sizeWords), activeWords_(ceilDiv(sizeWords, 2)),
      drainWords_(sizeWords - activeWords_), freeWords_(sizeWords) {}

void WriteBuffer::closeLine() {
  if (inLine_ == 0) return;
  lineFill_.push_back(int32_t(inLine_));
  inLine_ = 0;
}

void WriteBuffer::store(int64_t words) {
  inLine_ += words;
  for (; inLine_ >= bandwidth_; inLine_ -= bandwidth_) lineFill_.push_back(int32_t(bandwidth_));
  freeWords_ -= words;
}

int64_t WriteBuffer::serve(size_t n, int64_t cycle) {
  int64_t now = cycle;
  for (int64_t left = int64_t(n); left > 0;) {
    // Writes that change nothing but the fill go in at once: while a drain is under way, those that leave a word
    // free; otherwise those that keep the SRAM at or under its drain half.
    const int64_t quiet = std::min(left, std::max<int64_t>(0, now < drainEnd_ ? freeWords_ - 1
                                                                                 : freeWords_ - activeWords_));
    store(quiet);
    left -= quiet;
    if (left == 0) break;
    store(1);
    --left;
    if (now < drainEnd_) {
      if (freeWords_ <= 0) now = drainEnd_; // full: wait for the drain under way
    } else if (freeWords_ < activeWords_) {
      closeLine();
      drainEnd_ = drain(now);
    }
  }
  return now;
}

int64_t WriteBuffer::drain(int64_t cycle) {
  const size_t end = std::min(lineFill_.size(), nextToDrain_ + size_t(ceilDiv(drainWords_, bandwidth_)));
  const int64_t lines = int64_t(end - nextToDrain_);
  // Every line counts in full but the chunk's last, which counts its words.
  const int64_t words = lines == 0 ? 0 : (lines - 1) * bandwidth_ + lineFill_[end - 1];
  dramWrites_ += words;
  freeWords_ += words;
  nextToDrain_ = end;
  // Drained lines are never looked at again: drop them now and then, so the buffer holds what is pending only.
  if (nextToDrain_ > 4096 && 2 * nextToDrain_ > lineFill_.size()) {
    lineFill_.erase(lineFill_.begin(), lineFill_.begin() + std::ptrdiff_t(nextToDrain_));
    nextToDrain_ = 0;
  }
  if (!drained_) dramStart_ = cycle, drained_ = true;
  const int64_t last = cycle + std::max<int64_t>(lines, 1) - 1;
  dramStop_ = std::max(dramStop_, last);
  return last;
}

void WriteBuffer::drainAll(int64_t cycle) {
  closeLine();
  while (nextToDrain_ < lineFill_.size()) cycle = drain(cycle) + 1;
}

} // namespace tessera::systolic::scalesim
