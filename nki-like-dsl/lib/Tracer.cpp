#include "Tracer.h"

#include <algorithm>
#include <cassert>
#include <limits>

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

std::pair<int64_t, int64_t> Tracer::range(const graph::IndexExpr &e, const std::source_location &loc) const {
  const auto affine = [&](const std::vector<std::pair<int, int64_t>> &terms, int64_t constant) {
    int64_t lo = constant, hi = constant;
    for (auto [loop, coeff] : terms) {
      if (!isOpen(loop))
        throw tessera::Error("an index of a loop that has ended is used outside it", toLoc(loc),
                             "use loop indices only inside their affine_range body");
      const int64_t last = coeff * (tripCount(loop) - 1);
      lo += std::min<int64_t>(0, last);
      hi += std::max<int64_t>(0, last);
    }
    return std::pair(lo, hi);
  };
  auto [lo, hi] = affine(e.terms, e.constant);
  if (e.floors.empty()) return {lo, hi};
  for (const graph::FloorTerm &f : e.floors) (void)affine(f.terms, f.constant); // every loop still open
  // With divisions, the terms are not independent (i - 2 * (i / 2) is 0 or 1, where bounding each term gives -2
  // to 3): every iteration of the loops it uses is evaluated, up to a limit, past which each term is bounded alone.
  std::vector<int> loops;
  const auto use = [&](int loop) {
    if (std::find(loops.begin(), loops.end(), loop) == loops.end()) loops.push_back(loop);
  };
  for (auto [loop, coeff] : e.terms) use(loop);
  for (const graph::FloorTerm &f : e.floors)
    for (auto [loop, coeff] : f.terms) use(loop);
  constexpr int64_t kMaxIterations = int64_t{1} << 20;
  int64_t iterations = 1;
  for (int loop : loops) iterations = std::min(kMaxIterations + 1, iterations * tripCount(loop));
  if (iterations > kMaxIterations) {
    for (const graph::FloorTerm &f : e.floors) {
      const auto [dividendLo, dividendHi] = affine(f.terms, f.constant);
      const int64_t a = f.coefficient * floorDiv(dividendLo, f.divisor);
      const int64_t b = f.coefficient * floorDiv(dividendHi, f.divisor);
      lo += std::min(a, b);
      hi += std::max(a, b);
    }
    return {lo, hi};
  }
  std::vector<int64_t> at(loops.size(), 0); // the iteration of each loop, as an odometer
  const auto valueOf = [&](int loop) { return at[std::find(loops.begin(), loops.end(), loop) - loops.begin()]; };
  lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
  for (int64_t n = 0; n < iterations; ++n) {
    int64_t v = e.constant;
    for (auto [loop, coeff] : e.terms) v += coeff * valueOf(loop);
    for (const graph::FloorTerm &f : e.floors) {
      int64_t dividend = f.constant;
      for (auto [loop, coeff] : f.terms) dividend += coeff * valueOf(loop);
      v += f.coefficient * floorDiv(dividend, f.divisor);
    }
    lo = std::min(lo, v), hi = std::max(hi, v);
    for (size_t d = 0; d < at.size() && ++at[d] == tripCount(loops[d]); ++d) at[d] = 0;
  }
  return {lo, hi};
}

bool Tracer::isOpen(int id) const { return std::find(openLoops_.begin(), openLoops_.end(), id) != openLoops_.end(); }

void Tracer::defer(tessera::Error error) { deferred_.push_back(std::move(error)); }

void Tracer::finish() {
  if (!deferred_.empty()) throw deferred_.front();
}

} // namespace tsr::detail
