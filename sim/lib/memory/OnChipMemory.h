#pragma once
/// \file
/// On-chip storage: SBUF and PSUM (NeuronCore) are each `partitions` rows of `bytesPerPartition` bytes; VMEM and
/// SMEM (TPU) are flat, one row of all their bytes. Element addresses are computed by isa::execute from the base
/// pointer and the row size.

#include "memory/ZeroedPages.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace tessera::sim {

/// One on-chip memory. Contents start at zero: the storage is ZeroedPages, so the pages of a large memory
/// (128 MiB of VMEM) cost nothing until a kernel touches them. Timing-only runs never touch values, so they build
/// it without storage.
class OnChipMemory {
public:
  OnChipMemory(std::string name, uint32_t partitions, uint64_t bytesPerPartition, bool withStorage);

  const std::string &name() const { return name_; }
  uint32_t partitions() const { return partitions_; }
  uint64_t bytesPerPartition() const { return bytesPerPartition_; }
  /// Partition 0, byte 0; null when built without storage.
  std::byte *data() const { return bytes_.data(); }

private:
  std::string name_;
  uint32_t partitions_ = 0;
  uint64_t bytesPerPartition_ = 0;
  ZeroedPages bytes_;
};

} // namespace tessera::sim
