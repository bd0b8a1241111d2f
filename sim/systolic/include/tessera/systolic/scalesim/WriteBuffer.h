#pragma once
/// \file
/// SCALE-Sim v3's ofmap write buffer (`scalesim/memory/write_buffer.py`): a double-buffered SRAM that drains to
/// DRAM in lines of `bandwidth` words, one line per cycle. Writes are packed into lines as they come; once the
/// SRAM holds more than its drain half, the partly filled line is closed and ceil(drain words / bandwidth) lines
/// go out, the last line's empty slots not counted (an earlier line's are: the padding docs/systolic.md
/// describes). A write that finds the SRAM full while a drain is under way waits for it, stalling the array.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tessera::systolic::scalesim {

class WriteBuffer {
public:
  WriteBuffer(int64_t sizeWords, int64_t bandwidth);

  /// One cycle's writes (`n` of them, addresses do not matter) arriving at `cycle`; returns the cycle they are
  /// done (later than `cycle` when the SRAM was full).
  int64_t serve(size_t n, int64_t cycle);
  /// Drains everything left, starting at `cycle`.
  void drainAll(int64_t cycle);

  int64_t dramWrites() const { return dramWrites_; }
  int64_t dramStartCycle() const { return dramStart_; }
  int64_t dramStopCycle() const { return dramStop_; }

private:
  void closeLine();
  /// Packs `words` writes into lines.
  void store(int64_t words);
  /// Drains up to one drain buffer's lines from `cycle`; returns the cycle of the last.
  int64_t drain(int64_t cycle);

  int64_t bandwidth_, totalWords_, activeWords_, drainWords_;
  int64_t freeWords_;
  std::vector<int32_t> lineFill_; ///< words in each closed line, in order
  int64_t inLine_ = 0;           ///< words in the line being filled
  size_t nextToDrain_ = 0;
  int64_t drainEnd_ = 0;
  int64_t dramWrites_ = 0, dramStart_ = 0, dramStop_ = 0;
  bool drained_ = false;
};

} // namespace tessera::systolic::scalesim
