#pragma once
/// \file
/// The one rule for an HBM tensor's shape, for the signature's tensors (trace) and scratch tensors (shared_hbm).

#include "tessera/dsl/Tile.h"
#include "tessera/isa/Error.h"

#include <string_view>

namespace tsr::detail {

/// Throws unless `shape` has 2 to kMaxHbmRank dimensions, each at least 1. `tensor` names the tensor as the
/// message starts ("kernel 'k': tensor 'x'", "shared_hbm: 'scratch0'"); `where` is where the error points.
void requireHbmShape(std::string_view tensor, const Shape &shape, const tessera::SourceLoc &where);

} // namespace tsr::detail
