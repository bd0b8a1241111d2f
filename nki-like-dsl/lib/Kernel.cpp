#include "tessera/dsl/Kernel.h"

#include "HbmShape.h"
#include "Tracer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

namespace tsr {

namespace {

thread_local const Params *currentParams = nullptr;

/// Makes `params` what detail::tracedParams() gives while a body runs.
class ParamsScope {
public:
  explicit ParamsScope(const Params &params) : previous_(currentParams) { currentParams = &params; }
  ~ParamsScope() { currentParams = previous_; }
  ParamsScope(const ParamsScope &) = delete;
  ParamsScope &operator=(const ParamsScope &) = delete;

private:
  const Params *previous_;
};

std::string joined(const std::map<std::string, int64_t> &values) {
  std::string s;
  for (auto &[k, v] : values) s += fmt::format("{}{}={}", s.empty() ? "" : ",", k, v);
  return s;
}

/// `v` as the shortest text that reads back as the same double ("0.125", "1e-05").
std::string scalarText(double v) { return fmt::format("{}", v); }

} // namespace

int64_t Params::operator[](const std::string &name) const {
  if (auto it = values_.find(name); it != values_.end()) return it->second;
  if (auto it = kernel_.find(name); it != kernel_.end()) return it->second;
  if (scalars_.contains(name))
    throw Error(fmt::format("parameter '{}' is a scalar parameter: read it with p.scalar(\"{}\")", name, name));
  std::string have = str();
  if (!kernel_.empty()) have += (have.empty() ? "" : ",") + kernelStr();
  throw Error(fmt::format("parameter '{}' is not defined (have: {})", name, have.empty() ? "none" : have));
}

double Params::scalar(const std::string &name) const {
  if (auto it = scalars_.find(name); it != scalars_.end()) return it->second;
  if (values_.contains(name) || kernel_.contains(name))
    throw Error(fmt::format("parameter '{}' is an integer parameter: read it with p[\"{}\"]", name, name));
  std::string have;
  for (auto &[k, v] : scalars_) have += fmt::format("{}{}={}", have.empty() ? "" : ",", k, scalarText(v));
  throw Error(fmt::format("scalar parameter '{}' is not defined (have: {})", name, have.empty() ? "none" : have));
}

std::string Params::str() const { return joined(values_); }
std::string Params::kernelStr() const {
  // One list, sorted by name across both kinds, as --param reads it back.
  std::map<std::string, std::string> all;
  for (auto &[k, v] : kernel_) all[k] = std::to_string(v);
  for (auto &[k, v] : scalars_) all[k] = scalarText(v);
  std::string s;
  for (auto &[k, v] : all) s += fmt::format("{}{}={}", s.empty() ? "" : ",", k, v);
  return s;
}

std::string KernelInfo::describeKernelParams() const {
  std::string s;
  for (auto &[k, v] : kernelParams) s += fmt::format("{}{}={}", s.empty() ? "" : ", ", k, v);
  for (auto &[k, v] : scalarParams) s += fmt::format("{}{}={}", s.empty() ? "" : ", ", k, scalarText(v));
  return s.empty() ? "none" : s;
}

bool KernelInfo::isScalarParam(const std::string &name) const {
  return std::any_of(scalarParams.begin(), scalarParams.end(), [&](const auto &p) { return p.first == name; });
}

Params KernelInfo::resolve(const std::map<std::string, int64_t> &shape, const std::map<std::string, int64_t> &kernel,
                           const std::map<std::string, double> &scalars) const {
  std::map<std::string, int64_t> values(params.begin(), params.end());
  std::map<std::string, int64_t> kernelValues(kernelParams.begin(), kernelParams.end());
  std::map<std::string, double> scalarValues(scalarParams.begin(), scalarParams.end());
  for (auto &[k, v] : shape) {
    if (!values.contains(k)) {
      std::string known;
      for (auto &p : params) known += (known.empty() ? "" : ", ") + p.first;
      throw Error(fmt::format("kernel '{}' has no shape parameter '{}' (it has: {})", name, k,
                              known.empty() ? "none" : known),
                  {}, kernelValues.contains(k) ? fmt::format("'{}' is a kernel parameter: set it with --param", k) : "");
    }
    if (v <= 0) throw Error(fmt::format("shape parameter {}={} must be positive", k, v));
    values[k] = v;
  }
  for (auto &[k, v] : kernel) {
    if (!kernelValues.contains(k))
      throw Error(fmt::format("kernel '{}' has no kernel parameter '{}' (its kernel parameters: {})", name, k,
                              describeKernelParams()),
                  {}, values.contains(k) ? fmt::format("'{}' is a shape parameter: set it with --shape", k) : "");
    if (v <= 0)
      throw Error(fmt::format("kernel parameter {}={} must be positive (kernel '{}' has: {})", k, v, name,
                              describeKernelParams()));
    kernelValues[k] = v;
  }
  for (auto &[k, v] : scalars) {
    if (!scalarValues.contains(k))
      throw Error(fmt::format("kernel '{}' has no scalar parameter '{}' (its kernel parameters: {})", name, k,
                              describeKernelParams()));
    if (!std::isfinite(v))
      throw Error(fmt::format("scalar parameter {}={} must be a finite number (kernel '{}' has: {})", k, v, name,
                              describeKernelParams()));
    scalarValues[k] = v;
  }
  return Params(std::move(values), std::move(kernelValues), std::move(scalarValues));
}

const Params &detail::tracedParams() {
  if (!currentParams) throw Error("kernel parameters are read while no kernel is being traced");
  return *currentParams;
}

Registry &Registry::instance() {
  static Registry registry;
  return registry;
}

void Registry::add(KernelInfo info) {
  std::string name = info.name;
  for (auto &kernelParam : info.kernelParams)
    for (auto &shapeParam : info.params)
      if (kernelParam.first == shapeParam.first)
        throw Error(fmt::format("kernel '{}' declares '{}' both as a shape parameter and as a kernel parameter", name,
                                kernelParam.first),
                    info.loc);
  for (auto &scalar : info.scalarParams) {
    const bool shapeToo = std::any_of(info.params.begin(), info.params.end(),
                                      [&](const auto &p) { return p.first == scalar.first; });
    const bool kernelToo = std::any_of(info.kernelParams.begin(), info.kernelParams.end(),
                                       [&](const auto &p) { return p.first == scalar.first; });
    if (shapeToo || kernelToo)
      throw Error(fmt::format("kernel '{}' declares '{}' both as a scalar parameter and as a {} parameter", name,
                              scalar.first, shapeToo ? "shape" : "kernel"),
                  info.loc);
  }
  if (kernels_.contains(name)) {
    const KernelInfo &first = kernels_.at(name);
    throw Error(fmt::format("kernel '{}' is registered twice (first at {}{})", name, first.loc.str(),
                            first.plugin.empty() ? "" : ", in plugin " + first.plugin),
                info.loc, scope_ ? "rename the plugin's kernel: every kernel name is global" : "");
  }
  if (scope_) {
    info.plugin = scope_->plugin_;
    scope_->added_.push_back(name);
  }
  kernels_.emplace(std::move(name), std::move(info));
}

Registry::PluginScope::PluginScope(std::string plugin) : plugin_(std::move(plugin)) {
  Registry &registry = Registry::instance();
  previous_ = registry.scope_;
  registry.scope_ = this;
}

Registry::PluginScope::~PluginScope() { Registry::instance().scope_ = previous_; }

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
  Registry &registry = Registry::instance();
  if (!registry.scope_) {
    registry.add(std::move(info));
    return;
  }
  try {
    registry.add(std::move(info));
  } catch (const Error &e) {
    registry.scope_->errors_.push_back(e);
  } catch (const std::exception &e) {
    registry.scope_->errors_.emplace_back(e.what(), detail::toLoc(loc));
  }
}

graph::KernelGraph trace(const KernelInfo &kernel, const Params &params) {
  graph::KernelGraph g;
  g.name = kernel.name;
  g.scheduleInstructions = kernel.scheduleInstructions;
  for (TensorSpec &t : kernel.signature(params)) {
    // Checked here, before the body runs, so the message is about the signature and not a later window.
    detail::requireHbmShape(fmt::format("kernel '{}': tensor '{}'", kernel.name, t.name), t.shape, kernel.loc);
    g.tensors.push_back({std::move(t.name), std::move(t.shape), t.dtype, t.isOutput});
  }
  const std::vector<int64_t> grid = kernel.grid ? kernel.grid(params) : std::vector<int64_t>{};
  for (int64_t programs : grid)
    if (programs < 1)
      throw Error(fmt::format("kernel '{}': its launch grid is [{}]; each axis needs at least one program", kernel.name,
                              fmt::join(grid, ", ")),
                  kernel.loc, "check the shape parameters the grid is computed from");
  detail::Tracer tracer(g);
  std::vector<Hbm> args;
  for (size_t i = 0; i < g.tensors.size(); ++i) args.emplace_back(static_cast<int>(i));
  ParamsScope scope(params);
  tracer.openGrid(grid, kernel.loc);
  kernel.body(args);
  tracer.closeGrid();
  tracer.finish();
  return g;
}

} // namespace tsr
