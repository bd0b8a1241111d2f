#pragma once
/// \file
/// The checks that find bugs in a kernel's synchronisation while it runs (SimOptions::checks):
/// - a race: two instructions of different streams (engines or DMA queues) touch overlapping bytes of SBUF, PSUM,
///   VMEM, SMEM or an HBM tensor, at least one of them writes, and no chain of semaphores orders them
///   (HappensBefore.h; what overlaps: Region.h);
/// - an uninitialised read: an instruction reads SBUF, PSUM, VMEM or SMEM bytes, or bytes of an HBM output tensor,
///   that no instruction has written (WrittenBytes.h);
/// - on NeuronCore targets where it is undefined (tensor_engine.accumulate_onto_non_matmul), a matmul accumulating
///   onto PSUM bytes that a non-matmul instruction wrote last (NonMatmulPsum.h).
/// The first problem stops the run with a KernelBugError naming both instructions (stream, index, opcode, kernel
/// source line), the memory and byte range, and the simulated time. Checks never change simulated time.

#include "checks/AccessHistory.h"
#include "checks/HappensBefore.h"
#include "checks/NonMatmulPsum.h"
#include "checks/WrittenBytes.h"

#include "tessera/isa/Program.h"
#include "tessera/isa/Target.h"

#include <cstddef>
#include <cstdint>
#include <memory>

namespace tessera::sim {

class KernelBugChecks {
public:
  KernelBugChecks(const isa::Program &program, const isa::Target &target);

  /// Stream `s` starts instruction `index` (its semaphore waits satisfied, its operands checked in bounds):
  /// orders it after what its waits acquire, then checks and records each operand's access.
  void start(uint32_t s, size_t index);

  /// Stream `s` signals semaphore `sem` after completing an instruction.
  void signal(uint32_t s, uint32_t sem) { order_.signal(s, sem); }

private:
  /// `preserves`: the read of a read-modify-write (Instruction::preserve), which needs no written bytes.
  void checkRead(uint32_t s, size_t index, const char *operand, const isa::AccessPattern &ap, uint32_t id,
                 bool preserves);
  void checkWrite(uint32_t s, size_t index, const char *operand, const isa::AccessPattern &ap, uint32_t id);
  /// Whether `ap` reads an HBM tensor that no instruction of the program writes: nothing can race with such a read
  /// or find it uninitialised (inputs count as written), so it is not tracked at all.
  bool readsUnwrittenTensor(const isa::AccessPattern &ap) const {
    return ap.space == isa::MemSpace::Hbm && !tensorWritten_[static_cast<size_t>(ap.tensor)];
  }
  /// Checks the access against the last writer (and, for a write, the readers) of entry `other`.
  void checkAgainst(uint32_t s, size_t index, const char *operand, bool writes, uint32_t id, uint32_t other);

  [[noreturn, gnu::cold, gnu::noinline]] void reportRace(uint32_t s, size_t index, const char *operand, bool writes,
                                                         uint32_t id, uint32_t other, Access earlier,
                                                         bool earlierWrites) const;
  [[noreturn, gnu::cold, gnu::noinline]] void reportUninitialised(uint32_t s, size_t index, const char *operand,
                                                                  const isa::AccessPattern &ap,
                                                                  const WrittenBytes::Hole &hole) const;
  [[noreturn, gnu::cold, gnu::noinline]] void reportAccumulation(uint32_t s, size_t index, const Region &region,
                                                                 const NonMatmulPsum::Rectangle &init) const;

  const isa::Program &program_;
  const isa::Target &target_;
  HappensBefore order_;
  AccessHistory history_;
  WrittenBytes written_;
  std::vector<uint8_t> tensorWritten_; ///< per HBM tensor: whether some instruction of the program writes it
  /// Null when the target defines accumulation onto non-matmul PSUM (nothing to check).
  std::unique_ptr<NonMatmulPsum> nonMatmulPsum_;
};

} // namespace tessera::sim
