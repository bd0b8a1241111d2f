#pragma once
/// \file
/// A window of an N-D HBM tensor as the same window of the tensor's matrix (isa/MatrixShape.h): the tile dialect
/// keeps every HBM tensor as that 2-D matrix (its N-D shape an attribute of the argument, tile.shape), so a window
/// whose leading dimensions are fixed (size 1) is one 2-D, possibly strided, window of it. Test:
/// tests/unit/compiler/FlatWindowTest.cpp.

#include "tessera/dsl/Graph.h"

#include <cstdint>
#include <vector>

namespace tessera::compiler {

/// `w`, a window of a tensor of `shape` (2 to 5 dimensions, every leading size 1), as a window of its matrix:
/// row = sum of each leading offset times the rows below it + the row offset; columns and steps of the last two.
/// A 2-D window is returned as it is.
tsr::graph::HbmWindow flatWindow(const tsr::graph::HbmWindow &w, const std::vector<int64_t> &shape);

} // namespace tessera::compiler
