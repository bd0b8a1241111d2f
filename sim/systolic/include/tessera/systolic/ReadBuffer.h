#pragma once
/// \file
/// DRAM reads behind an operand's SRAM, as SCALE-Sim counts them in its stall-free mode (InterfaceBandwidth CALC,
/// memory/read_buffer_estimate_bw.py). The SRAM is double-buffered, half active; SCALE-Sim tracks the addresses it
/// fetched in sets of 1% of the SRAM's words, and a read hits when its address was fetched since the last time 50
/// sets filled up. So the rule is: fetched addresses are counted in epochs of E = 50 * floor(words / 100)
/// fetches; a read misses (one DRAM read) unless its address was fetched in the current epoch.
///
/// Two ways to count, which the tests hold against each other:
///  - ReadBuffer follows the rule address by address (the PE model feeds it every SRAM read);
///  - the closed forms below give the same count from the shape of the read stream, which for a GEMM is one of
///    three: every block of the operand read once; all blocks read in turn, the whole round repeated; or each
///    block read several times in a row before the next.

#include <cstdint>
#include <vector>

namespace tessera::systolic {

/// E: fetches per epoch for an SRAM of `kib` KiB of one-byte words (0: never ends, for SRAMs under 100 words).
int64_t epochFetches(int64_t kib);

/// The rule, address by address, for addresses in [0, addressCount).
class ReadBuffer {
public:
  ReadBuffer(int64_t addressCount, int64_t epochFetches);
  /// One SRAM read; returns true when it is fetched from DRAM.
  bool read(int64_t address);
  int64_t dramReads() const { return dramReads_; }

private:
  std::vector<uint32_t> epochOf_; ///< the epoch (1-based) in which each address was last fetched; 0: never
  int64_t epochFetches_;
  uint32_t epoch_ = 1;
  int64_t fetchesThisEpoch_ = 0;
  int64_t dramReads_ = 0;
};

/// DRAM reads of a stream that reads `size` distinct addresses, then the same again, `rounds` times in all.
int64_t dramReadsOfRounds(int64_t size, int64_t rounds, int64_t epochFetches);

/// DRAM reads of a stream that reads block 0 (blockSizes[0] distinct addresses) `repeats` times in a row, then
/// block 1 `repeats` times, and so on; blocks share no address.
int64_t dramReadsOfRepeatedBlocks(const std::vector<int64_t> &blockSizes, int64_t repeats, int64_t epochFetches);

} // namespace tessera::systolic
