#include "tessera/dsl/Scan.h"

#include "Recording.h"
#include "Tracer.h"

#include <fmt/format.h>

namespace tsr {

using detail::fail;
using detail::shapeStr;
using tessera::isa::MemSpace;

namespace {

/// a and b as tiles checked for a scan: one shape, not both in PSUM.
std::pair<Tile, Tile> operands(const Operand &a, const Operand &b, const Loc &loc) {
  Tile x = a.tile("scan", "decay (a)"), y = b.tile("scan", "input (b)");
  if (x.shape() != y.shape())
    fail(loc, fmt::format("scan: a is {} but b is {}; the recurrence pairs their elements", shapeStr(x.shape()),
                          shapeStr(y.shape())));
  if (x.space() == MemSpace::Psum && y.space() == MemSpace::Psum)
    fail(loc, "scan: a and b are both in PSUM; at most one of them may be", "copy one of them to SBUF first");
  return {x, y};
}

void record(const Tile &dst, const Tile &a, const Tile &b, const ScanOptions &options, const Loc &loc) {
  graph::Op o = detail::makeOp(graph::OpKind::Scan, dst.buffer(), {a.buffer(), b.buffer()});
  if (options.initial) {
    Tile start = options.initial->tile("scan", "initial");
    if (start.shape() != Shape{a.shape()[0], 1})
      fail(loc, fmt::format("scan: the initial state is {}; expected [{}, 1], one value per row of a {}",
                            shapeStr(start.shape()), a.shape()[0], shapeStr(a.shape())));
    o.srcs.push_back(start.buffer());
  }
  detail::record(std::move(o), loc);
}

} // namespace

Tile scan(const Operand &a, const Operand &b, const ScanOptions &options, Loc loc) {
  auto [x, y] = operands(a, b, loc);
  Tile dst = detail::newTile("scan", x.shape(), DType::F32, MemSpace::Sbuf, loc);
  record(dst, x, y, options, loc);
  return dst;
}

void scan(const Tile &dst, const Operand &a, const Operand &b, const ScanOptions &options, Loc loc) {
  auto [x, y] = operands(a, b, loc);
  detail::Tracer::current(loc).checkAlive(dst.buffer(), loc);
  if (dst.shape() != x.shape())
    fail(loc, fmt::format("scan: the destination is {} but a is {}", shapeStr(dst.shape()), shapeStr(x.shape())));
  if (dst.space() != MemSpace::Sbuf) fail(loc, "scan: the destination is in PSUM; a scan writes an SBUF tile");
  record(dst, x, y, options, loc);
}

} // namespace tsr
