#include "tessera/dsl/Isa.h"

#include "IsaCall.h"
#include "Recording.h"
#include "Tracer.h"

#include <fmt/format.h>

namespace tsr::isa {

using detail::fail;
using detail::Tracer;
using tessera::isa::MemSpace;

void tensor_copy(const Tile &dst, const Operand &src, std::optional<Engine> engine, Loc loc) {
  tsr::detail::IsaCall call{.engine = engine, .dst = dst, .src0 = src};
  call.settings.op = tessera::isa::Opcode::TensorCopy;
  tsr::detail::recordInstruction(call, loc);
}

void tensor_tensor(const Tile &dst, const Operand &data1, const Operand &data2, tessera::isa::AluOp op, Loc loc) {
  tsr::detail::IsaCall call{.dst = dst, .src0 = data1, .src1 = data2};
  call.settings.op = tessera::isa::Opcode::TensorTensor;
  call.settings.alu = op;
  tsr::detail::recordInstruction(call, loc);
}

void activation(const Tile &dst, tessera::isa::ActFunc func, const Operand &data, const std::optional<Operand> &bias,
                const Scalar &scale, Loc loc) {
  tsr::detail::IsaCall call{.dst = dst, .src0 = data, .src1 = bias, .src2 = scale.tile()};
  call.settings.op = tessera::isa::Opcode::Activation;
  call.settings.func = func;
  call.settings.scale = scale.tile() ? 1.0f : scale.value();
  tsr::detail::recordInstruction(call, loc);
}

void tensor_reduce(const Tile &dst, tessera::isa::AluOp op, const Operand &data, bool negate, Loc loc) {
  tsr::detail::IsaCall call{.dst = dst, .src0 = data};
  call.settings.op = tessera::isa::Opcode::TensorReduce;
  call.settings.alu = op;
  call.settings.negate = negate;
  tsr::detail::recordInstruction(call, loc);
}

void memset(const Tile &dst, float value, Loc loc) {
  Tracer::current(loc).checkAlive(dst.buffer(), loc);
  graph::Op o = detail::makeOp(graph::OpKind::Memset, dst.buffer(), {});
  o.value = value;
  o.isaLevel = true;
  detail::record(std::move(o), loc);
}

void nc_matmul(const Tile &dst, const Operand &stationary, const Operand &moving, bool accumulate, Loc loc) {
  MatmulExpr m = tsr::matmul(stationary, moving, loc);
  m.record(dst, accumulate, /*isaLevel=*/true);
}

Tile sbuf_tile_at(DType dtype, int64_t offset, Shape shape, Loc loc) {
  if (offset < 0 || offset % 4 != 0)
    fail(loc, fmt::format("sbuf_tile_at: offset {} must be a non-negative multiple of 4 bytes", offset));
  return detail::newTile("sbuf_tile_at", std::move(shape), dtype, MemSpace::Sbuf, loc, offset);
}

manual_sync::manual_sync(Loc loc) : loc_(loc) { Tracer::current(loc).enterManual(); }

manual_sync::~manual_sync() { Tracer::current(loc_).leaveManual(); }

Semaphore::Semaphore(Loc loc) : id_(Tracer::current(loc).newSemaphore()) {}

namespace {

/// A semaphore op, which only a manual_sync scope may hold.
graph::Op semaphoreOp(const char *call, graph::OpKind kind, const Semaphore &semaphore, const Loc &loc) {
  Tracer &tracer = Tracer::current(loc);
  if (!tracer.inManualScope())
    fail(loc, fmt::format("tsr::isa::{} outside a tsr::isa::manual_sync scope", call),
         "the compiler synchronises the engines itself; open a `tsr::isa::manual_sync sync;` scope to do it by hand");
  if (semaphore.id() < 0 || semaphore.id() >= tracer.graph().semaphores)
    fail(loc, fmt::format("tsr::isa::{}: a semaphore from another kernel", call));
  graph::Op o = detail::makeOp(kind, -1, {});
  o.semaphore = semaphore.id();
  return o;
}

} // namespace

void signal(const Semaphore &semaphore, Loc loc) {
  detail::record(semaphoreOp("signal", graph::OpKind::Signal, semaphore, loc), loc);
}

void wait(const Semaphore &semaphore, const Index &count, Loc loc) {
  graph::Op o = semaphoreOp("wait", graph::OpKind::Wait, semaphore, loc);
  Tracer &tracer = Tracer::current(loc);
  for (auto [loop, coeff] : count.expr().terms)
    if (!tracer.isOpen(loop)) fail(loc, "tsr::isa::wait: the count uses the index of a loop that has ended");
  const int64_t lowest = tracer.range(count.expr(), loc).first;
  if (lowest < 1)
    fail(loc, fmt::format("tsr::isa::wait: the count can be {}; a wait is for a count of at least 1", lowest),
         "semaphores start at 0 and each signal adds 1: wait for the number of signals that must have happened");
  o.count = count.expr();
  detail::record(std::move(o), loc);
}

} // namespace tsr::isa
