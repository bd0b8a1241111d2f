#include "tessera/compiler/Launch.h"

#include <algorithm>
#include <cassert>
#include <variant>

namespace tessera::compiler {

namespace {

using tsr::graph::Block;
using tsr::graph::IndexExpr;
using tsr::graph::Loop;
using tsr::graph::Op;

/// Adds `shift` to loop `loop`'s index in `e`: the index i becomes i + shift.
void shiftLoop(IndexExpr &e, int loop, int64_t shift) {
  for (const auto &[id, coefficient] : e.terms)
    if (id == loop) e.constant += coefficient * shift;
  for (tsr::graph::FloorTerm &f : e.floors)
    for (const auto &[id, coefficient] : f.terms)
      if (id == loop) f.constant += coefficient * shift;
}

void shiftLoop(Op &op, int loop, int64_t shift) {
  for (IndexExpr &offset : op.hbm.offsets) shiftLoop(offset, loop, shift);
  shiftLoop(op.where.offset, loop, shift);
  shiftLoop(op.count, loop, shift);
}

void shiftLoop(Block &block, int loop, int64_t shift) {
  for (tsr::graph::Stmt &stmt : block.stmts) {
    if (Op *op = std::get_if<Op>(&stmt)) shiftLoop(*op, loop, shift);
    else if (Loop *inner = std::get_if<Loop>(&stmt)) shiftLoop(inner->body, loop, shift);
  }
}

/// The loop of launch-grid axis 0: the first loop of the kernel's body.
Loop *axisZero(tsr::graph::KernelGraph &kernel) {
  for (tsr::graph::Stmt &stmt : kernel.body.stmts)
    if (Loop *loop = std::get_if<Loop>(&stmt); loop && loop->spmdAxis == 0) return loop;
  return nullptr;
}

} // namespace

unsigned launchCores(const tsr::graph::KernelGraph &kernel, const isa::Target &target) {
  if (kernel.grid.empty()) return 1;
  return static_cast<unsigned>(std::clamp<int64_t>(kernel.grid.front(), 1, std::max(1u, target.hbm.launchCores)));
}

tsr::graph::KernelGraph coreShare(const tsr::graph::KernelGraph &kernel, unsigned core, unsigned cores) {
  assert(core < cores && "a core of the launch");
  tsr::graph::KernelGraph share = kernel;
  Loop *programs = axisZero(share);
  if (cores <= 1 || !programs) return share;
  const CoreBlock block = coreBlock(programs->tripCount, core, cores);
  programs->tripCount = block.programs();
  shiftLoop(programs->body, programs->id, block.first);
  for (tsr::graph::Buffer &buffer : share.buffers) shiftLoop(buffer.viewOffset, programs->id, block.first);
  return share;
}

CoreBlock coreBlock(int64_t programs, unsigned core, unsigned cores) {
  return {.first = static_cast<int64_t>(core) * programs / cores,
          .end = static_cast<int64_t>(core + 1) * programs / cores};
}

} // namespace tessera::compiler
