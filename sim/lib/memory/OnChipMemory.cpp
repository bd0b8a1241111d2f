#include "memory/OnChipMemory.h"

namespace tessera::sim {

OnChipMemory::OnChipMemory(std::string name, uint32_t partitions, uint64_t bytesPerPartition, bool withStorage)
    : name_(std::move(name)), partitions_(partitions), bytesPerPartition_(bytesPerPartition) {
  const size_t bytes = static_cast<size_t>(partitions) * bytesPerPartition;
  if (!withStorage || bytes == 0)
    return;
  bytes_ = ZeroedPages(bytes);
}

} // namespace tessera::sim
