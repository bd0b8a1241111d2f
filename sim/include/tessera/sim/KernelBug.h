#pragma once
/// \file
/// A bug in a kernel that the simulator found while running it: what kind, at what simulated time, which
/// instructions (stream, engine, index, opcode, kernel source line) and which memory. The simulator throws it as
/// a KernelBugError: a tessera::Error whose message says the same in words, with the fields for tools and tests.

#include "tessera/isa/Error.h"
#include "tessera/isa/Program.h"
#include "tessera/sim/DevicePrint.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tessera::sim {

enum class BugKind : uint8_t {
  Race,                    ///< two streams touch the same bytes, one writes, and no semaphore orders them
  UninitialisedRead,       ///< a read of on-chip (SBUF, PSUM, VMEM, SMEM) or HBM-output bytes nothing has written
  OutOfBounds,             ///< an operand outside its memory (SBUF/PSUM partitions or bytes, VMEM/SMEM bytes, an
                           ///< HBM tensor)
  Deadlock,                ///< streams wait for semaphores that no remaining instruction signals
  AccumulateOntoNonMatmul, ///< a matmul accumulates onto PSUM a non-matmul instruction wrote (undefined on v2/v3)
};

/// "race", "uninitialised read", "out of bounds", "deadlock", "accumulate onto non-matmul data".
inline std::string_view name(BugKind kind) {
  switch (kind) {
  case BugKind::Race: return "race";
  case BugKind::UninitialisedRead: return "uninitialised read";
  case BugKind::OutOfBounds: return "out of bounds";
  case BugKind::Deadlock: return "deadlock";
  case BugKind::AccumulateOntoNonMatmul: return "accumulate onto non-matmul data";
  }
  return "unknown";
}

/// One instruction a report names.
struct BugInstruction {
  std::string stream;                    ///< "tensor", "vector", ..., "dma3"
  uint32_t core = 0;                     ///< the core whose stream it is (simulateChip's index; 0 for simulate())
  isa::Engine engine = isa::Engine::Tensor;
  uint32_t index = 0;                    ///< in its stream
  isa::Opcode op = isa::Opcode::TensorCopy;
  SourceLoc loc;                         ///< the kernel source line (unknown when the program carries none)
  /// What it did: "reads" / "writes" (with the operand: "reads src1"), or for a deadlock "waits for semaphore 3
  /// to reach 1 (it stands at 0)".
  std::string action = {};
};

/// A range of one memory: partitions [p0, p1) x bytes [b0, b1) of each (SBUF/PSUM), bytes [b0, b1) of an HBM
/// tensor, or in VMEM/SMEM rows [p0, p1) of bytes [b0, b1) + r x rowPitch (row r; one row when rowPitch is 0).
/// `memory` is "sbuf", "psum", "vmem", "smem" or "hbm" ("" when the bug has no memory range, as a deadlock).
struct BugRegion {
  std::string memory = {};
  std::string tensor = {};  ///< HBM: the tensor's name
  uint32_t p0 = 0, p1 = 0;
  int64_t b0 = 0, b1 = 0;
  int64_t rowPitch = 0;     ///< VMEM/SMEM: bytes from one row to the next; 0: partitions, or one row
  bool known() const { return !memory.empty(); }
};

/// What a report holds.
struct KernelBug {
  BugKind kind = BugKind::Race;
  std::string detail = {};  ///< race: "read after write", "write after read" or "write after write"; else ""
  double timeNs = 0;   ///< when the simulator found it
  /// The instruction that found it first; then, for a race or an accumulation, the earlier instruction it
  /// conflicts with; for a deadlock, every blocked stream's instruction.
  std::vector<BugInstruction> instructions = {};
  BugRegion region = {};    ///< where the two overlap (race), the bytes read (uninitialised), the bytes outside
                       ///< (out of bounds), the PSUM accumulated onto
  std::vector<DevicePrint> prints = {}; ///< what device_print logged before the bug stopped the run
};

/// The Error the simulator throws for a kernel bug.
class KernelBugError : public Error {
public:
  KernelBugError(KernelBug bug, std::string message, SourceLoc where, std::string hint)
      : Error(std::move(message), std::move(where), std::move(hint)), bug_(std::move(bug)) {}
  const KernelBug &bug() const { return bug_; }
  KernelBug &bug() { return bug_; }

private:
  KernelBug bug_;
};

} // namespace tessera::sim
