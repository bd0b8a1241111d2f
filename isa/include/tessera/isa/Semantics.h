#pragma once
/// \file
/// What each instruction computes: one reference implementation per opcode, used by the simulator. Every
/// instruction decodes its inputs to FP32, computes in FP32 and encodes on the way out, as the NeuronCore
/// engines and the TPU's VPU do; PSUM (and the TPU's MXU) accumulation is FP32.

#include "tessera/isa/Program.h"

#include <cstddef>
#include <span>
#include <vector>

namespace tessera::isa {

class PackedOperands;

/// The memories an instruction can touch.
struct Memories {
  std::byte *sbuf = nullptr;
  uint64_t sbufPartitionBytes = 0;
  std::byte *psum = nullptr;
  uint64_t psumPartitionBytes = 0;
  std::span<std::byte *const> hbm; ///< one base pointer per Program::tensors entry
  std::byte *vmem = nullptr;       ///< TPU: the core's VMEM, byte 0
  uint64_t vmemBytes = 0;
  std::byte *smem = nullptr;       ///< TPU: the core's SMEM, byte 0
  uint64_t smemBytes = 0;
  /// How many contiguous SBUF partitions each GpSimd core reaches (the target's gpsimd_engine.partitions_per_core):
  /// local_gather gathers within such groups.
  uint32_t gpsimdPartitionsPerCore = 0;
  /// When set, matmuls reuse the moving operands kept there, and execute() drops those an instruction writes
  /// (PackedOperands.h); the same bits either way.
  PackedOperands *packedOperands = nullptr;
};

/// Performs `inst` on `mem`. Operands are assumed in bounds (the simulator checks before calling). A Print
/// changes nothing: the simulator reads its values with readValues().
void execute(const Instruction &inst, const Memories &mem);

/// The values of every element of `ap` decoded to FP32, partition by partition, each partition's free
/// dimensions row-major: `ap.partitions * ap.freeElements()` floats. `ap` must lie in bounds.
std::vector<float> readValues(const AccessPattern &ap, const Memories &mem);

} // namespace tessera::isa
