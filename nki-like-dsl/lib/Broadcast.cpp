#include "tessera/dsl/Broadcast.h"

#include "Recording.h"

#include <fmt/format.h>

namespace tsr {

using detail::fail;
using detail::shapeStr;
using tessera::isa::MemSpace;

Tile broadcast_to(const Operand &x, Shape shape, DType dtype, Loc loc) {
  Tile src = x.tile("broadcast_to", "source");
  const Shape &from = src.shape();
  if (shape.size() != from.size())
    fail(loc,
         fmt::format("broadcast_to: the shape {} has {} dimensions but the tile {} has {}", shapeStr(shape),
                     shape.size(), shapeStr(from), from.size()),
         "give the shape as [partitions, free], one entry per dimension of the tile");
  for (size_t d = 0; d < from.size(); ++d)
    if (shape[d] != from[d] && from[d] != 1)
      fail(loc,
           fmt::format("broadcast_to: cannot broadcast {} to {}: dimension {} is {}, not 1 or {}", shapeStr(from),
                       shapeStr(shape), d, from[d], shape[d]),
           "only a dimension of size 1 repeats; slice the tile to one row (partition_slice) or one column first");
  if (shape == from) return dtype == src.dtype() ? src : copy(src, dtype, loc); // nothing repeats: a conversion
  Tile dst = detail::newTile("broadcast_to", shape, dtype, MemSpace::Sbuf, loc);
  detail::record(detail::makeOp(graph::OpKind::Broadcast, dst.buffer(), {src.buffer()}), loc);
  return dst;
}

Tile broadcast_to(const Operand &x, Shape shape, Loc loc) {
  return broadcast_to(x, std::move(shape), x.tile("broadcast_to", "source").dtype(), loc);
}

Tile Tile::broadcast_to(Shape shape, std::source_location loc) const {
  return tsr::broadcast_to(*this, std::move(shape), dtype(), loc);
}

} // namespace tsr
