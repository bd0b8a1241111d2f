#pragma once
/// \file
/// Kernel registration: a kernel is a name, shape parameters with defaults, a signature (its HBM tensors as a
/// function of the parameters), a body written in the DSL, and a plain C++ reference. Kernels register
/// themselves at static-initialisation time so the CLI, tests and benchmarks find them by name.

#include "tessera/dsl/Graph.h"
#include "tessera/dsl/Ops.h"
#include "tessera/dsl/Tile.h"

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace tsr {

/// Shape parameters (`--shape M=1024,N=512`).
class Params {
public:
  Params() = default;
  explicit Params(std::map<std::string, int64_t> values) : values_(std::move(values)) {}
  /// The value of `name`; a tsr::Error if the kernel declared no such parameter.
  int64_t operator[](const std::string &name) const;
  const std::map<std::string, int64_t> &values() const { return values_; }
  /// "K=1024,M=1024,N=1024"
  std::string str() const;

private:
  std::map<std::string, int64_t> values_;
};

/// One HBM tensor of a kernel's signature.
struct TensorSpec {
  std::string name;
  Shape shape;
  DType dtype = DType::F32;
  bool isOutput = false;
};
inline TensorSpec input(std::string name, Shape shape, DType dtype) { return {std::move(name), std::move(shape), dtype, false}; }
inline TensorSpec output(std::string name, Shape shape, DType dtype) { return {std::move(name), std::move(shape), dtype, true}; }

/// Host data for the reference: one FP32 vector per tensor, row-major.
using HostTensor = std::vector<float>;

/// Everything the registry knows of one kernel.
struct KernelInfo {
  std::string name;
  std::string summary;
  std::vector<std::pair<std::string, int64_t>> params;                    ///< names and defaults, in order
  std::function<std::vector<TensorSpec>(const Params &)> signature;       ///< may throw tsr::Error for bad shapes
  std::function<void(std::span<const Hbm>)> body;                        ///< the DSL code, one Hbm per tensor
  /// outputs = f(inputs), in FP32 or better, from the same (already rounded) input values the kernel sees.
  std::function<void(const Params &, const std::vector<HostTensor> &inputs, std::vector<HostTensor> &outputs)>
      reference;
  tessera::SourceLoc loc;                                                 ///< where it was defined

  /// The defaults overridden by `overrides`; an unknown name is a tsr::Error listing the known ones.
  Params resolve(const std::map<std::string, int64_t> &overrides) const;
};

/// Adapts a lambda taking one `tsr::Hbm` per tensor, `[](Hbm a, Hbm b, Hbm c) {...}`, to a KernelInfo body.
template <class F> std::function<void(std::span<const Hbm>)> body(F f) {
  return [f](std::span<const Hbm> t) {
    if constexpr (std::is_invocable_v<F, Hbm>) f(t[0]);
    else if constexpr (std::is_invocable_v<F, Hbm, Hbm>) f(t[0], t[1]);
    else if constexpr (std::is_invocable_v<F, Hbm, Hbm, Hbm>) f(t[0], t[1], t[2]);
    else if constexpr (std::is_invocable_v<F, Hbm, Hbm, Hbm, Hbm>) f(t[0], t[1], t[2], t[3]);
    else if constexpr (std::is_invocable_v<F, Hbm, Hbm, Hbm, Hbm, Hbm>) f(t[0], t[1], t[2], t[3], t[4]);
    else if constexpr (std::is_invocable_v<F, Hbm, Hbm, Hbm, Hbm, Hbm, Hbm>) f(t[0], t[1], t[2], t[3], t[4], t[5]);
    else static_assert(sizeof(F) == 0, "a kernel body takes 1 to 6 tsr::Hbm tensors");
  };
}

/// All registered kernels.
class Registry {
public:
  static Registry &instance();
  void add(KernelInfo info);
  /// The kernel called `name`, or nullptr.
  const KernelInfo *find(const std::string &name) const;
  /// Every kernel, sorted by name.
  std::vector<const KernelInfo *> all() const;

private:
  std::map<std::string, KernelInfo> kernels_;
};

/// Registers a kernel at static-initialisation time: `static tsr::Registration r{{.name = "add", ...}};`
struct Registration {
  explicit Registration(KernelInfo info, std::source_location loc = std::source_location::current());
};

/// Runs a kernel's body once, symbolically, and returns its graph. Misuse is a tsr::Error at the user's line.
graph::KernelGraph trace(const KernelInfo &kernel, const Params &params);

} // namespace tsr
