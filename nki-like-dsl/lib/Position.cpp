#include "tessera/dsl/Position.h"

#include "Recording.h"
#include "Tracer.h"

#include <fmt/format.h>

namespace tsr {

using detail::fail;
void fill(const Tile &dst, float value, const Position &where, Loc loc) {
  detail::Tracer::current(loc).checkAlive(dst.buffer(), loc);
  if (dst.space() != tessera::isa::MemSpace::Sbuf)
    fail(loc, "fill: a fill by position writes an SBUF tile; this one is in PSUM", "copy it to SBUF first");
  if (!tessera::isa::isComparison(where.cmp))
    fail(loc, fmt::format("fill: {} is not a comparison; use tsr::op::greater, greater_equal, less, less_equal, "
                          "equal or not_equal",
                          tessera::isa::name(where.cmp)));
  graph::Op o = detail::makeOp(graph::OpKind::FillWhere, dst.buffer(), {dst.buffer()});
  o.value = value;
  o.where = {where.partition, where.free, where.offset.expr(), where.cmp};
  detail::record(std::move(o), loc);
}

} // namespace tsr
