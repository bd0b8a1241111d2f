#include "tessera/dsl/Activation.h"

#include "Recording.h"
#include "Tracer.h"

#include <fmt/format.h>

namespace tsr {

using detail::fail;
using detail::shapeStr;
using tessera::isa::MemSpace;

namespace {

/// A [P, 1] tile for row p of x ([P, F]); `what` names it in errors.
void requireColumn(const Tile &t, const Tile &x, const char *what, const Loc &loc) {
  if (t.shape() != Shape{x.shape()[0], 1})
    fail(loc, fmt::format("activation: the {} is {}; expected [{}, 1], one value per row of the input {}", what,
                          shapeStr(t.shape()), x.shape()[0], shapeStr(x.shape())));
}

void record(const Tile &dst, tessera::isa::ActFunc func, const Tile &x, const ActivationOptions &options,
            const Loc &loc) {
  graph::Op o = detail::makeOp(graph::OpKind::Activation, dst.buffer(), {x.buffer()});
  o.func = func;
  o.value = options.scale.value();
  if (options.scale.tile()) {
    Tile scale = options.scale.tile()->tile("activation", "scale");
    requireColumn(scale, x, "scale", loc);
    o.value = 1.0f;
    o.scaleTile = scale.buffer();
  }
  if (options.bias) {
    Tile bias = options.bias->tile("activation", "bias");
    requireColumn(bias, x, "bias", loc);
    o.srcs.push_back(bias.buffer());
  }
  if (options.sum) {
    detail::Tracer::current(loc).checkAlive(options.sum->buffer(), loc);
    requireColumn(*options.sum, x, "sum", loc);
    if (options.sum->dtype() != DType::F32)
      fail(loc, fmt::format("activation: the sum is {}; row sums are f32", tessera::isa::name(options.sum->dtype())));
    o.dst2 = options.sum->buffer();
  }
  detail::record(std::move(o), loc);
}

} // namespace

Tile activation(tessera::isa::ActFunc func, const Operand &x, const ActivationOptions &options, Loc loc) {
  Tile src = x.tile("activation", "input", Patterns::Read);
  DType dtype = src.space() == MemSpace::Psum ? DType::F32 : src.dtype();
  Tile dst = detail::newTile("activation", src.shape(), dtype, MemSpace::Sbuf, loc);
  record(dst, func, src, options, loc);
  return dst;
}

void activation(const Tile &dst, tessera::isa::ActFunc func, const Operand &x, const ActivationOptions &options,
                Loc loc) {
  Tile src = x.tile("activation", "input", Patterns::Read);
  detail::Tracer::current(loc).checkAlive(dst.buffer(), loc);
  detail::requireNotPatternDestination("activation", dst, loc);
  if (dst.shape() != src.shape())
    fail(loc, fmt::format("activation: the destination is {} but the input is {}", shapeStr(dst.shape()),
                          shapeStr(src.shape())));
  if (dst.space() != MemSpace::Sbuf)
    fail(loc, "activation: the destination is in PSUM; activations write SBUF tiles");
  record(dst, func, src, options, loc);
}

} // namespace tsr
