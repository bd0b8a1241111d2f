#include "memory/OnChipMemory.h"

namespace tessera::sim {

OnChipMemory::OnChipMemory(std::string name, uint32_t partitions, uint64_t bytesPerPartition, bool withStorage)
    : name_(std::move(name)), partitions_(partitions), bytesPerPartition_(bytesPerPartition) {
  if (withStorage)
    bytes_ = std::make_unique<std::byte[]>(static_cast<size_t>(partitions) * bytesPerPartition);
}

} // namespace tessera::sim
