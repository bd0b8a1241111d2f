#pragma once
/// \file
/// The rules an engine instruction's SBUF/PSUM access pattern must keep (docs/targets.md "Access rules"; each
/// limit is a key of the target's [access] table): where its partitions may start, how many free dimensions it
/// has, the range of each size and stride, and how many elements per partition it touches. The compiler
/// (nc-verify-access) and the simulator's program checks both ask this one definition. DMA transfers are
/// exempt: DMA descriptors, not engine access patterns, describe them.

#include "tessera/isa/Program.h"
#include "tessera/isa/Target.h"

#include <cstdint>
#include <optional>
#include <string>

namespace tessera::isa {

/// The partition alignment an access of `count` partitions needs: the smallest partition_quadrant x 2^k that holds
/// `count` (NeuronCore: 32 or fewer partitions start at a multiple of 32, 33-64 at a multiple of 64, more at 0).
uint32_t partitionAlignment(uint32_t count, const Target &target);

/// Whether the access rules apply to operand `ap` of an instruction on `engine`: an SBUF or PSUM operand of a
/// compute engine.
bool accessRulesApply(Engine engine, const AccessPattern &ap);

/// What `ap` breaks of the target's access rules, in words ("starts at partition 16, but an access of 32 partitions
/// starts at a multiple of 32"), or nothing when it keeps them all. The passing path allocates nothing.
std::optional<std::string> accessRuleViolation(const AccessPattern &ap, const Target &target);

/// The bytes between consecutive elements of `ap`'s innermost free dimension (absolute; 0 for a broadcast).
int64_t minorStrideBytes(const AccessPattern &ap);

/// Whether `ap` walks its innermost free dimension with a stride over cost.strided_access_bytes, which divides its
/// access bandwidth by cost.strided_access_factor (NKI).
bool isStridedAccess(const AccessPattern &ap, const Target &target);

/// Rewrites a one-dimensional free pattern longer than access.max_size as two dimensions walking the same
/// elements in the same order (n = a x b; sizes and the outer stride within the limits). Returns whether it did;
/// it leaves `ap` as it was when it need not or cannot (several free dimensions, or no such factorisation). The
/// lowering uses it so that a tile row of exactly 64K elements still fits the uint16 sizes.
bool splitLongFreeDimension(AccessPattern &ap, const Target &target);

} // namespace tessera::isa
