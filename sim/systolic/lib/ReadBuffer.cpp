#include "tessera/systolic/ReadBuffer.h"

#include <cassert>
#include <cstddef>

namespace tessera::systolic {

using std::size_t;

int64_t epochFetches(int64_t kib) {
  // SCALE-Sim: sets of floor(words / 100) addresses; the active half of the buffer is 50 sets.
  int64_t words = kib * 1024;
  return 50 * (words / 100);
}

ReadBuffer::ReadBuffer(int64_t addressCount, int64_t epochFetches)
    : epochOf_(size_t(addressCount), 0), epochFetches_(epochFetches) {}

bool ReadBuffer::read(int64_t address) {
  assert(address >= 0 && size_t(address) < epochOf_.size());
  uint32_t &seen = epochOf_[size_t(address)];
  if (seen == epoch_) return false;
  seen = epoch_;
  ++dramReads_;
  if (epochFetches_ > 0 && ++fetchesThisEpoch_ == epochFetches_) {
    ++epoch_;
    fetchesThisEpoch_ = 0;
  }
  return true;
}

int64_t dramReadsOfRounds(int64_t size, int64_t rounds, int64_t epochFetches) {
  // Once the whole operand fits one epoch, later rounds hit. Otherwise every read misses: an address comes back
  // `size` reads later, and an epoch of only misses spans no more than epochFetches <= size reads.
  if (rounds <= 1 || epochFetches == 0 || size < epochFetches) return size;
  return size * rounds;
}

int64_t dramReadsOfRepeatedBlocks(const std::vector<int64_t> &blockSizes, int64_t repeats, int64_t epochFetches) {
  int64_t total = 0;
  int64_t fetched = 0; // fetches in the current epoch so far
  for (int64_t n : blockSizes) {
    if (epochFetches == 0) {
      total += n;
      continue;
    }
    if (repeats <= 1) {
      total += n;
      fetched = (fetched + n) % epochFetches;
    } else if (n >= epochFetches) {
      // The block never fits an epoch: each pass fetches it all again.
      total += n * repeats;
      fetched = (fetched + n * repeats % epochFetches) % epochFetches;
    } else if (fetched + n < epochFetches) {
      // Fetched once; the later passes hit.
      total += n;
      fetched += n;
    } else {
      // An epoch ends during the first pass: its last `tail` addresses are in the new epoch, the rest are
      // fetched again in the second pass, which ends with the whole block in one epoch.
      int64_t tail = fetched + n - epochFetches;
      total += n + (n - tail);
      fetched = n;
    }
  }
  return total;
}

} // namespace tessera::systolic
