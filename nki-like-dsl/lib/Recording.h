#pragma once
/// \file
/// How DSL calls record operations (internal to the DSL library): shared by the language-level ops (Ops.cpp)
/// and the tsr::isa level (Isa.cpp).

#include "tessera/dsl/Graph.h"
#include "tessera/dsl/Tile.h"

#include <source_location>
#include <string>
#include <vector>

namespace tsr::detail {

/// Throws a tsr::Error at the user's line.
[[noreturn]] void fail(const std::source_location &loc, std::string message, std::string hint = {});
/// "[128, 512]"
std::string shapeStr(const Shape &s);
/// A new tile in the current block, its shape checked against the language's limits (`op` names the call in
/// errors). `offset` >= 0 places it at that byte of each partition (tsr::isa::sbuf_tile_at).
Tile newTile(const char *op, Shape shape, DType dtype, tessera::isa::MemSpace space, const std::source_location &loc,
             int64_t offset = -1);
/// Refuses `dst`, the tile an elementwise op `op` writes, when it is an access pattern (Tile::ap): those ops read
/// patterns, and write tiles.
void requireNotPatternDestination(const char *op, const Tile &dst, const std::source_location &loc);
/// Appends `op` to the kernel being traced, at the user's line.
void record(graph::Op op, const std::source_location &loc);
graph::Op makeOp(graph::OpKind kind, int dst, std::vector<int> srcs);

} // namespace tsr::detail
