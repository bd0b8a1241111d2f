#pragma once
/// \file
/// Which instructions of other streams happen before what a stream runs now: a vector clock per stream, carried
/// from stream to stream by semaphores (like the race detector of Pallas interpret mode, or ThreadSanitizer).
///
/// Each stream's own component is the number of its instructions started so far, so instruction `index` of
/// stream `t` happens before what stream `s` runs now exactly when clock[s][t] > index. A signal publishes the
/// signaller's clock; a wait for `count >= k` joins the clocks of the first k signals of that semaphore (with the
/// compiler's scheme one stream signals each semaphore, and its k-th clock already holds the earlier ones; when
/// several streams signal one, joining all k keeps the detector from missing what the wait does order).
///
/// No allocation while running: a wait joins a snapshot taken when its semaphore reached the count it waits for,
/// and only the counts some wait of the program names get a snapshot, all sized before the run starts.

#include "tessera/isa/Program.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tessera::sim {

class HappensBefore {
public:
  explicit HappensBefore(const isa::Program &program);

  /// Host bytes the checks keep per semaphore id of `program` (its published clock, one entry per stream, and its
  /// counters), for memory estimates.
  static uint64_t hostBytesPerSemaphore(const isa::Program &program) {
    return sizeof(uint32_t) * (program.streams.size() + 3);
  }

  /// Stream `s` starts instruction `index`, the waits of `inst` all satisfied: joins what each wait acquires and
  /// advances the stream's own clock past the instruction.
  void start(uint32_t s, size_t index, const isa::Instruction &inst) {
    const uint32_t end = inst.waitBegin + inst.waitCount;
    for (uint32_t w = inst.waitBegin; w < end; ++w)
      if (program_.waits[w].count != 0)
        join(clockOf(s), &snapshots_[size_t{slotOfWait_[w]} * streams_]);
    clockOf(s)[s] = static_cast<uint32_t>(index + 1);
  }

  /// Stream `s` signals `sem` (once): publishes its clock.
  void signal(uint32_t s, uint32_t sem);

  /// Whether instruction `index` of stream `t` happens before what stream `s` runs now.
  bool ordered(uint32_t t, uint32_t index, uint32_t s) const {
    return t == s || clocks_[size_t{s} * streams_ + t] > index;
  }

private:
  uint32_t *clockOf(uint32_t s) { return &clocks_[size_t{s} * streams_]; }
  /// `into` = the element-wise maximum of `into` and `from` (two distinct clocks; restrict, so it vectorises).
  void join(uint32_t *__restrict into, const uint32_t *__restrict from) const {
    const uint32_t streams = streams_;
    for (uint32_t t = 0; t < streams; ++t)
      into[t] = into[t] < from[t] ? from[t] : into[t];
  }

  static constexpr uint32_t kNoSlot = ~uint32_t{0};

  const isa::Program &program_;
  uint32_t streams_ = 0;
  std::vector<uint32_t> clocks_;       ///< streams x streams
  std::vector<uint32_t> published_;    ///< per semaphore: the join of every signal so far (x streams)
  std::vector<uint32_t> signalled_;    ///< per semaphore: signals so far
  std::vector<uint32_t> firstSignal_;  ///< per semaphore + 1: its range of slotOfSignal_ (one per static signal)
  std::vector<uint32_t> slotOfSignal_; ///< per signal: the snapshot slot of the count it brings, if some wait names it
  std::vector<uint32_t> slotOfWait_;   ///< per Program::waits entry: its snapshot slot
  std::vector<uint32_t> snapshots_;    ///< per slot: published_ when the semaphore reached that count (x streams)
};

} // namespace tessera::sim
