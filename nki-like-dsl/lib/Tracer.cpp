#include "Tracer.h"

#include <algorithm>
#include <cassert>

namespace tsr::detail {

namespace {
thread_local Tracer *currentTracer = nullptr;
}

tessera::SourceLoc toLoc(const std::source_location &loc) {
  return {loc.file_name(), static_cast<uint32_t>(loc.line()), static_cast<uint32_t>(loc.column())};
}

Tracer::Tracer(graph::KernelGraph &graph) : graph_(graph), previous_(currentTracer) {
  blocks_.push_back(&graph_.body);
  currentTracer = this;
}

Tracer::~Tracer() { currentTracer = previous_; }

Tracer &Tracer::current(const std::source_location &loc) {
  if (!currentTracer)
    throw tessera::Error("a tsr:: operation was called outside a kernel body", toLoc(loc),
                         "DSL operations run only while a kernel registered with tsr::Registration is traced");
  return *currentTracer;
}

int Tracer::allocate(graph::Buffer buffer) {
  int id = static_cast<int>(graph_.buffers.size());
  if (buffer.name.empty()) buffer.name = "t" + std::to_string(id);
  graph_.buffers.push_back(std::move(buffer));
  bufferLoop_.push_back(openLoops_.empty() ? -1 : openLoops_.back());
  accumulators_.push_back(0);
  blocks_.back()->stmts.emplace_back(graph::Alloc{id});
  return id;
}

void Tracer::append(graph::Op op) {
  op.manual = manualDepth_ > 0;
  blocks_.back()->stmts.emplace_back(std::move(op));
}

int Tracer::openLoop(int64_t tripCount, const std::source_location &loc) {
  int id = graph_.loops++;
  tripCounts_.push_back(tripCount);
  graph::Loop loop;
  loop.id = id;
  loop.tripCount = tripCount;
  loop.loc = toLoc(loc);
  auto &stmts = blocks_.back()->stmts;
  stmts.emplace_back(std::move(loop));
  blocks_.push_back(&std::get<graph::Loop>(stmts.back()).body);
  openLoops_.push_back(id);
  return id;
}

void Tracer::openGrid(const std::vector<int64_t> &grid, const tessera::SourceLoc &loc) {
  graph_.grid = grid;
  for (size_t axis = 0; axis < grid.size(); ++axis) {
    const int id = openLoop(grid[axis], std::source_location::current());
    gridLoops_.push_back(id);
    auto &loop = std::get<graph::Loop>(blocks_[blocks_.size() - 2]->stmts.back());
    loop.spmdAxis = static_cast<int>(axis);
    loop.loc = loc;
  }
}

void Tracer::closeGrid() {
  for (auto it = gridLoops_.rbegin(); it != gridLoops_.rend(); ++it) closeLoop(*it);
}

void Tracer::closeLoop(int id) {
  assert(!openLoops_.empty() && openLoops_.back() == id && "loops close innermost first");
  openLoops_.pop_back();
  blocks_.pop_back();
}

void Tracer::checkAlive(int buffer, const std::source_location &loc) const {
  if (buffer < 0 || buffer >= static_cast<int>(bufferLoop_.size()))
    throw tessera::Error("a tile from another kernel is used here", toLoc(loc));
  int loop = bufferLoop_[buffer];
  if (loop < 0 || isOpen(loop)) return;
  throw tessera::Error("tile '" + graph_.buffers[buffer].name + "' (created at " + graph_.buffers[buffer].loc.str() +
                           ") is used after the loop that created it has ended",
                       toLoc(loc),
                       "a tile lives only within the affine_range body that created it: create it before the loop "
                       "(e.g. a psum accumulator), or store it to HBM inside the loop");
}

bool Tracer::isOpen(int id) const { return std::find(openLoops_.begin(), openLoops_.end(), id) != openLoops_.end(); }

void Tracer::defer(tessera::Error error) { deferred_.push_back(std::move(error)); }

void Tracer::finish() {
  if (!deferred_.empty()) throw deferred_.front();
}

} // namespace tsr::detail
