#pragma once
/// \file
/// How much of each on-chip memory (SBUF and PSUM, or VMEM and SMEM) holds live data over a run: what the trace's
/// occupancy counters and the HTML report's memory chart show.

#include "tessera/isa/Program.h"
#include "tessera/isa/Target.h"
#include "tessera/sim/Simulator.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tessera::driver {

/// Bytes (per partition, where the memory has partitions) of one on-chip memory that hold live data, over time.
/// A byte is live from the start of the instruction that writes it to the end of the last instruction that reads
/// that value (a value nothing reads is live while it is written). Counted per address within a partition: a byte
/// live in any partition counts.
struct LiveSeries {
  isa::MemSpace space = isa::MemSpace::Sbuf;
  uint32_t partitions = 1;      ///< the memory's partitions (1: a flat memory)
  uint64_t capacityBytes = 0;   ///< per partition
  /// The core whose memory it is in a program of several cores' streams (an SPMD launch; isa::Stream::core); -1 in
  /// a one-core program.
  int32_t core = -1;
  /// "SBUF", "VMEM", "SBUF, core 1": how reports name the memory.
  std::string title() const;
  /// Steps: from `first` ns on, `second` bytes are live, until the next step. Starts at time 0.
  std::vector<std::pair<double, int64_t>> steps;
  int64_t peak = 0;
};

/// One series per on-chip memory of the target's family (isa::Family::memories), in its order; for a program of
/// several cores, one per core and memory, core by core.
struct LiveBytes {
  std::vector<LiveSeries> memories;

  /// The (first core's) series of `space`; an empty one when the family has no such memory.
  const LiveSeries &of(isa::MemSpace space) const;
};

/// Live bytes of `target`'s on-chip memories over time, from a run's timeline and its program's access patterns.
LiveBytes liveBytesOverTime(const isa::Program &program, const isa::Target &target,
                            const std::vector<sim::InstructionEvent> &timeline);

} // namespace tessera::driver
