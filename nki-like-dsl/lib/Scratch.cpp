#include "tessera/dsl/Scratch.h"

#include "HbmShape.h"
#include "Tracer.h"

#include <fmt/format.h>

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
  detail::requireHbmShape(fmt::format("shared_hbm: '{}'", name), shape, detail::toLoc(loc));
  g.tensors.push_back({std::move(name), std::move(shape), dtype, false, true});
  return Hbm(static_cast<int>(g.tensors.size()) - 1);
}

} // namespace tsr
