#include "IsaCall.h"

#include "Recording.h"
#include "Tracer.h"

#include "tessera/isa/FreePattern.h"
#include "tessera/isa/InstructionSet.h"

#include <fmt/format.h>

namespace tsr::detail {

namespace {

/// The call's name as the kernel wrote it: "tsr::isa::tensor_scalar".
std::string callName(tessera::isa::Opcode op) {
  std::string_view nki = tessera::isa::definition(op).nki;
  const size_t dot = nki.rfind('.');
  return fmt::format("tsr::isa::{}", dot == std::string_view::npos ? nki : nki.substr(dot + 1));
}

/// The whole tile (or its access pattern, Tile::ap) at address 0: what the instruction's rules look at (shapes,
/// spaces, dtypes, free dimensions); the compiler places it later.
tessera::isa::AccessPattern wholeTile(const Tile &t, const graph::Buffer &buffer) {
  tessera::isa::AccessPattern ap = tessera::isa::AccessPattern::dense(
      t.space(), t.dtype(), 0, static_cast<uint32_t>(t.shape()[0]), 0, t.shape()[1]);
  if (!buffer.viewPattern.empty()) tessera::isa::setFreePattern(ap, buffer.viewPattern);
  return ap;
}

} // namespace

void recordInstruction(const IsaCall &call, const std::source_location &loc) {
  const std::string name = callName(call.settings.op);
  Tracer &tracer = Tracer::current(loc);
  tessera::isa::Instruction inst = call.settings;
  graph::Op op = makeOp(graph::OpKind::Instruction, -1, {-1, -1, -1});
  if (call.dst) {
    tracer.checkAlive(call.dst->buffer(), loc);
    op.dst = call.dst->buffer();
    inst.dst = wholeTile(*call.dst, tracer.graph().buffers[op.dst]);
  }
  if (call.dst2) {
    tracer.checkAlive(call.dst2->buffer(), loc);
    op.dst2 = call.dst2->buffer();
    inst.dst2 = wholeTile(*call.dst2, tracer.graph().buffers[op.dst2]);
  }
  const std::optional<Operand> *sources[] = {&call.src0, &call.src1, &call.src2};
  tessera::isa::AccessPattern *slots[] = {&inst.src0, &inst.src1, &inst.src2};
  static constexpr const char *kRoles[] = {"first", "second", "third"};
  for (size_t i = 0; i < 3; ++i) {
    if (!*sources[i])
      continue;
    const Tile tile = (*sources[i])->tile(name.c_str(), kRoles[i], Patterns::Read);
    op.srcs[i] = tile.buffer();
    *slots[i] = wholeTile(tile, tracer.graph().buffers[tile.buffer()]);
  }
  if (std::string problem = tessera::isa::verifyInstruction(inst, call.engine, nullptr); !problem.empty())
    fail(loc, fmt::format("{}: {}", name, problem));
  op.settings = call.settings;
  op.engine = call.engine;
  op.isaLevel = true;
  record(std::move(op), loc);
}

} // namespace tsr::detail
