#include "tessera/isa/PackedOperands.h"

#include <algorithm>
#include <utility>

namespace tessera::isa {
namespace {

/// Whether two operands may share a byte: the same memory (the same tensor in HBM) and, on SBUF and PSUM, common
/// partitions, and overlapping byte extents.
bool mayOverlap(const AccessPattern &x, const AccessPattern &y) {
  if (x.space != y.space || (x.space == MemSpace::Hbm && x.tensor != y.tensor))
    return false;
  if (!x.flat() && (x.partitionStart >= y.partitionStart + y.partitions ||
                    y.partitionStart >= x.partitionStart + x.partitions))
    return false;
  const auto [xFirst, xLast] = x.byteExtent();
  const auto [yFirst, yLast] = y.byteExtent();
  return xFirst < yLast && yFirst < xLast;
}

} // namespace

const PackedOperands::Entry *PackedOperands::find(const AccessPattern &operand, int64_t k, int64_t n) const {
  for (const Entry &entry : entries_)
    if (entry.packed.k == k && entry.packed.n == n && entry.operand == operand)
      return &entry;
  return nullptr;
}

PackedOperands::Entry &PackedOperands::insert(const AccessPattern &operand) {
  size_t bytes = 0;
  for (const Entry &entry : entries_)
    bytes += entry.packed.panels.size() * sizeof(float);
  // The oldest go while the rest would not leave room for one more of the newest's size.
  const size_t newest = entries_.empty() ? 0 : entries_.back().packed.panels.size() * sizeof(float);
  size_t dropped = 0;
  while (dropped < entries_.size() && bytes + newest > budgetBytes_) {
    bytes -= entries_[dropped].packed.panels.size() * sizeof(float);
    spare_ = std::move(entries_[dropped].packed.panels);
    ++dropped;
  }
  entries_.erase(entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(dropped));
  Entry &entry = entries_.emplace_back();
  entry.operand = operand;
  entry.packed.panels = std::move(spare_);
  spare_ = {};
  return entry;
}

void PackedOperands::written(const AccessPattern &written) {
  for (size_t i = 0; i < entries_.size();)
    if (mayOverlap(entries_[i].operand, written)) {
      spare_ = std::move(entries_[i].packed.panels);
      entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      ++i;
    }
}

} // namespace tessera::isa
