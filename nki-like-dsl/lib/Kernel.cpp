#include "tessera/dsl/Kernel.h"

#include "Tracer.h"

#include <fmt/format.h>

namespace tsr {

int64_t Params::operator[](const std::string &name) const {
  auto it = values_.find(name);
  if (it == values_.end()) throw Error(fmt::format("shape parameter '{}' is not defined (have: {})", name, str()));
  return it->second;
}

std::string Params::str() const {
  std::string s;
  for (auto &[k, v] : values_) s += fmt::format("{}{}={}", s.empty() ? "" : ",", k, v);
  return s;
}

Params KernelInfo::resolve(const std::map<std::string, int64_t> &overrides) const {
  std::map<std::string, int64_t> values(params.begin(), params.end());
  for (auto &[k, v] : overrides) {
    if (!values.contains(k)) {
      std::string known;
      for (auto &p : params) known += (known.empty() ? "" : ", ") + p.first;
      throw Error(fmt::format("kernel '{}' has no shape parameter '{}' (it has: {})", name, k,
                              known.empty() ? "none" : known));
    }
    if (v <= 0) throw Error(fmt::format("shape parameter {}={} must be positive", k, v));
    values[k] = v;
  }
  return Params(std::move(values));
}

Registry &Registry::instance() {
  static Registry registry;
  return registry;
}

void Registry::add(KernelInfo info) {
  std::string name = info.name;
  if (kernels_.contains(name))
    throw Error(fmt::format("kernel '{}' is registered twice (first at {})", name, kernels_.at(name).loc.str()),
                info.loc);
  kernels_.emplace(std::move(name), std::move(info));
}

const KernelInfo *Registry::find(const std::string &name) const {
  auto it = kernels_.find(name);
  return it == kernels_.end() ? nullptr : &it->second;
}

std::vector<const KernelInfo *> Registry::all() const {
  std::vector<const KernelInfo *> r;
  for (auto &[_, k] : kernels_) r.push_back(&k);
  return r;
}

Registration::Registration(KernelInfo info, std::source_location loc) {
  info.loc = detail::toLoc(loc);
  Registry::instance().add(std::move(info));
}

graph::KernelGraph trace(const KernelInfo &kernel, const Params &params) {
  graph::KernelGraph g;
  g.name = kernel.name;
  for (TensorSpec &t : kernel.signature(params))
    g.tensors.push_back({std::move(t.name), std::move(t.shape), t.dtype, t.isOutput});
  detail::Tracer tracer(g);
  std::vector<Hbm> args;
  for (size_t i = 0; i < g.tensors.size(); ++i) args.emplace_back(static_cast<int>(i));
  kernel.body(args);
  tracer.finish();
  return g;
}

} // namespace tsr
