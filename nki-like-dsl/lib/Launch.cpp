#include "tessera/dsl/Launch.h"

#include "Tracer.h"

#include <fmt/format.h>

namespace tsr {

namespace {

/// The loop of launch-grid axis `axis` of the kernel being traced; a tsr::Error at `loc` when there is none.
int gridLoopOf(const char *function, int axis, const std::source_location &loc) {
  detail::Tracer &tracer = detail::Tracer::current(loc);
  const int loop = tracer.gridLoop(axis);
  if (loop >= 0) return loop;
  const size_t axes = tracer.graph().grid.size();
  if (axes == 0)
    throw tessera::Error(fmt::format("{}({}) in a kernel without a launch grid", function, axis), detail::toLoc(loc),
                "give the kernel's registration a grid (`.grid = [](const tsr::Params &) { return "
                "std::vector<int64_t>{2}; }`) to launch it as SPMD programs");
  throw tessera::Error(fmt::format("{}({}): the launch grid has {} ax{} (0 to {})", function, axis, axes,
                          axes == 1 ? "is" : "es", axes - 1),
              detail::toLoc(loc));
}

} // namespace

Index program_id(int axis, std::source_location loc) {
  graph::IndexExpr e;
  e.terms.emplace_back(gridLoopOf("program_id", axis, loc), 1);
  return Index(std::move(e));
}

int64_t num_programs(int axis, std::source_location loc) {
  return detail::Tracer::current(loc).tripCount(gridLoopOf("num_programs", axis, loc));
}

} // namespace tsr
