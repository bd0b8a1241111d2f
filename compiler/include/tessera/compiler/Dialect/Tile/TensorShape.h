#pragma once
/// \file
/// How the tile dialect keeps an N-D HBM tensor: its argument's type is the tensor's [rows, columns] matrix
/// ([B * S, D] for [B, S, D], isa/MatrixShape.h), which every tile op addresses (compiler/FlatWindow.h), and this
/// argument attribute holds the tensor's own shape for what users see (signatures, reports, emitted device code).

#include "llvm/ADT/StringRef.h"

namespace tessera::tile {

/// The N-D shape of a tensor of other than 2 dimensions (a dense i64 array); absent on a 2-D tensor.
inline constexpr llvm::StringLiteral kTensorShapeAttr = "tile.shape";

} // namespace tessera::tile
