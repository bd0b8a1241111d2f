#include "tessera/dsl/Transpose.h"
#include "tessera/dsl/TileSize.h"

#include "Recording.h"
#include "Tracer.h"

#include <fmt/format.h>

namespace tsr {

using detail::fail;
using detail::shapeStr;
using tessera::isa::MemSpace;

namespace {

/// src as a tile checked for transposing: in SBUF, at most tile_size::pmax along both dimensions.
Tile transposable(const Operand &src, const Loc &loc) {
  Tile s = src.tile("transpose", "source");
  if (s.space() != MemSpace::Sbuf)
    fail(loc, fmt::format("transpose: the source is in {}; transposes read SBUF", tessera::isa::name(s.space())),
         "copy it to SBUF first (tsr::copy or tsr::assign)");
  if (s.shape()[1] > tile_size::pmax)
    fail(loc,
         fmt::format("transpose: the source {} has {} elements per partition, which would become {} partitions "
                     "(tsr::tile_size::pmax is {})",
                     shapeStr(s.shape()), s.shape()[1], s.shape()[1], tile_size::pmax),
         "transpose it in slices of at most 128 columns");
  return s;
}

void record(const Tile &dst, const Tile &src, const Loc &loc) {
  detail::record(detail::makeOp(graph::OpKind::Transpose, dst.buffer(), {src.buffer()}), loc);
}

} // namespace

Tile transpose(const Operand &src, Loc loc) {
  Tile s = transposable(src, loc);
  Tile dst = detail::newTile("transpose", {s.shape()[1], s.shape()[0]}, s.dtype(), MemSpace::Psum, loc);
  record(dst, s, loc);
  return dst;
}

void transpose(const Tile &dst, const Operand &src, Loc loc) {
  Tile s = transposable(src, loc);
  detail::Tracer::current(loc).checkAlive(dst.buffer(), loc);
  const Shape expected{s.shape()[1], s.shape()[0]};
  if (dst.shape() != expected)
    fail(loc, fmt::format("transpose: the destination is {} but the transpose of {} is {}", shapeStr(dst.shape()),
                          shapeStr(s.shape()), shapeStr(expected)));
  const std::string types =
      fmt::format("the source is {} and the destination {}", tessera::isa::name(s.dtype()), tessera::isa::name(dst.dtype()));
  if (dst.space() == MemSpace::Psum) {
    if (dst.dtype() != s.dtype() && dst.dtype() != DType::F32)
      fail(loc, "transpose: " + types + "; into PSUM the result keeps the source's dtype or is f32");
  } else if (tessera::isa::byteSize(s.dtype()) != 2 || dst.dtype() != s.dtype()) {
    fail(loc, "transpose: " + types + "; a transpose into SBUF is a DMA transpose, which moves 2-byte elements (bf16, "
                                      "f16) unchanged",
         "transpose into a PSUM tile (the tensor engine) instead");
  }
  record(dst, s, loc);
}

} // namespace tsr
