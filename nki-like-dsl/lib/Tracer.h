#pragma once
/// \file
/// The state of the kernel being traced (internal to the DSL library). One tracer per thread at a time.

#include "tessera/dsl/Graph.h"

#include <source_location>
#include <string>
#include <vector>

namespace tsr::detail {

/// floor(n / d) for d > 0, as Python's // (an index's division, tsr::Index's / and %).
inline int64_t floorDiv(int64_t n, int64_t d) { return n / d - (n % d != 0 && n < 0 ? 1 : 0); }

/// Turns a std::source_location into a tessera::SourceLoc.
tessera::SourceLoc toLoc(const std::source_location &loc);

/// Builds a KernelGraph as the body runs.
class Tracer {
public:
  explicit Tracer(graph::KernelGraph &graph);
  ~Tracer();

  /// The tracer of the kernel being traced on this thread, or a tsr::Error at `loc` if none is.
  static Tracer &current(const std::source_location &loc);

  graph::KernelGraph &graph() { return graph_; }
  /// Creates a buffer in the current block.
  int allocate(graph::Buffer buffer);
  /// Appends an op to the current block (marked manual inside a manual_sync scope).
  void append(graph::Op op);
  /// A tsr::isa::manual_sync scope opens and closes; scopes nest.
  void enterManual() { ++manualDepth_; }
  void leaveManual() { --manualDepth_; }
  bool inManualScope() const { return manualDepth_ > 0; }
  /// A new semaphore id (tsr::isa::Semaphore).
  int newSemaphore() { return graph_.semaphores++; }
  /// Opens a loop in the current block; the following ops go into its body.
  int openLoop(int64_t tripCount, const std::source_location &loc);
  /// Opens one loop per axis of the launch grid `grid` (KernelGraph::grid), outermost first, each marked with its
  /// axis and at `loc` (the kernel's definition); closeGrid closes them.
  void openGrid(const std::vector<int64_t> &grid, const tessera::SourceLoc &loc);
  void closeGrid();
  /// The loop of launch-grid axis `axis`, or -1 when the kernel has no such axis.
  int gridLoop(int axis) const {
    return axis >= 0 && axis < static_cast<int>(gridLoops_.size()) ? gridLoops_[axis] : -1;
  }
  /// Closes the innermost loop, which must be `id`.
  void closeLoop(int id);
  /// True when loop `id` is open (its index may be used).
  bool isOpen(int id) const;
  /// An Error at `loc` unless `buffer` is still alive: a tile lives only within the loop body that created it.
  void checkAlive(int buffer, const std::source_location &loc) const;
  /// Marks `buffer` as a zero-filled PSUM accumulator (tsr::psum), which matmuls accumulate into whole.
  void markAccumulator(int buffer) { accumulators_.at(buffer) = 1; }
  bool isAccumulator(int buffer) const { return accumulators_.at(buffer) != 0; }
  /// The smallest and largest value `e` takes over the iterations of the open loops (each division's bounds from
  /// its dividend's); an Error at `loc` if it uses the index of a loop that has ended.
  std::pair<int64_t, int64_t> range(const graph::IndexExpr &e, const std::source_location &loc) const;
  /// Whether a loop of the kernel's own is open (the launch grid's loops do not count).
  bool inKernelLoop() const { return openLoops_.size() > gridLoops_.size(); }
  /// Trip count of loop `id`.
  int64_t tripCount(int id) const { return tripCounts_[id]; }

  /// Records a problem found where no exception may be thrown (a destructor); `finish` reports the first.
  void defer(tessera::Error error);
  void finish();

private:
  graph::KernelGraph &graph_;
  Tracer *previous_;
  std::vector<graph::Block *> blocks_;
  std::vector<int> openLoops_;
  std::vector<int> gridLoops_; ///< the launch grid's loops, by axis
  std::vector<int64_t> tripCounts_;
  std::vector<int> bufferLoop_; ///< per buffer: the innermost loop open when it was created, or -1
  std::vector<char> accumulators_; ///< per buffer: made by tsr::psum
  std::vector<tessera::Error> deferred_;
  int manualDepth_ = 0;
};

} // namespace tsr::detail
