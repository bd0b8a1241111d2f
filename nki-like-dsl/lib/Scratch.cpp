#include "tessera/dsl/Scratch.h"

#include "Tracer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace tsr {

Hbm shared_hbm(DType dtype, Shape shape, std::string name, std::source_location loc) {
  detail::Tracer &tracer = detail::Tracer::current(loc);
  graph::KernelGraph &g = tracer.graph();
  if (tracer.inKernelLoop())
    throw tessera::Error("shared_hbm: an HBM scratch tensor is made inside a loop", detail::toLoc(loc),
                         "make it at the kernel's top level, before the loops that write and read it: it lives for "
                         "the whole kernel");
  int scratch = 0;
  for (const graph::TensorArg &t : g.tensors) scratch += t.isScratch;
  if (name.empty()) name = fmt::format("scratch{}", scratch);
  for (const graph::TensorArg &t : g.tensors)
    if (t.name == name)
      throw tessera::Error(fmt::format("shared_hbm: kernel '{}' already has a tensor '{}'", g.name, name),
                           detail::toLoc(loc), "give the scratch tensor a name of its own");
  if (shape.size() < 2 || shape.size() > static_cast<size_t>(kMaxHbmRank))
    throw tessera::Error(fmt::format("shared_hbm: '{}' is [{}]; HBM tensors have 2 to {} dimensions, the last two "
                                     "[rows, columns]",
                                     name, fmt::join(shape, ", "), kMaxHbmRank),
                         detail::toLoc(loc), "give a vector as one row, [1, N]; merge leading dimensions beyond five");
  for (int64_t d : shape)
    if (d < 1)
      throw tessera::Error(fmt::format("shared_hbm: '{}' is [{}]; each dimension must be at least 1", name,
                                       fmt::join(shape, ", ")),
                           detail::toLoc(loc));
  g.tensors.push_back({std::move(name), std::move(shape), dtype, false, true});
  return Hbm(static_cast<int>(g.tensors.size()) - 1);
}

} // namespace tsr
