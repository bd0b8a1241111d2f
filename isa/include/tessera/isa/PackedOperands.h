#pragma once
/// \file
/// The moving operands of recent matmuls, decoded to FP32 and packed for the tile GEMM (Gemm.h) with their ranges,
/// kept while no instruction writes their bytes. In a matmul loop one moving tile meets every stationary tile of
/// its block: matmul bf16 2048^3 on trn2 decoded, scanned and packed each moving tile 16 times.
///
/// isa::execute keeps the set current when Memories::packedOperands points at one (the simulator's functional
/// runs): a matmul looks its moving operand up by access pattern and shape, and every instruction drops the entries
/// whose bytes it writes (on SBUF and PSUM by partitions x bytes of a partition, in a flat memory by the bytes from
/// its first to its last element). Past a budget of packed bytes the oldest entries go first. An entry holds exactly
/// what decoding the bytes would give now, so results are the same bits with or without it.

#include "tessera/isa/Gemm.h"
#include "tessera/isa/Program.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tessera::isa {

class PackedOperands {
public:
  /// Packed FP32 the set keeps at most: 8 MiB, half the last-level cache of a small server part. A bigger working
  /// set (the 16 MiB of a K = 8192 moving block) would come from memory anyway, where the bf16 it decodes from is
  /// half as large.
  static constexpr size_t kDefaultBudgetBytes = size_t{8} << 20;

  explicit PackedOperands(size_t budgetBytes = kDefaultBudgetBytes) : budgetBytes_(budgetBytes) {}

  struct Entry {
    AccessPattern operand;
    PackedOperand packed; ///< the operand as [packed.k, packed.n]
    OperandRange range;
  };

  /// The entry of `operand` read as [k, n], or null.
  const Entry *find(const AccessPattern &operand, int64_t k, int64_t n) const;
  /// A new entry for `operand` (the oldest ones dropped past the budget), for the caller to fill; it stays valid
  /// until the next call of insert() or written().
  Entry &insert(const AccessPattern &operand);
  /// Drops every entry some byte of which `written` (an operand an instruction wrote) touches.
  void written(const AccessPattern &written);

private:
  size_t budgetBytes_;
  std::vector<Entry> entries_; ///< oldest first
  std::vector<float> spare_;   ///< a dropped entry's storage, for the next insert
};

} // namespace tessera::isa
