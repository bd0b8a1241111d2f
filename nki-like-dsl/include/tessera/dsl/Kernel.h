#pragma once
/// \file
/// Kernel registration: a kernel is a name, shape parameters and kernel parameters with defaults, a signature (its
/// HBM tensors as a function of the parameters), a body written in the DSL, and a plain C++ reference. Kernels
/// register themselves at static-initialisation time so the CLI, tests and benchmarks find them by name.

#include "tessera/dsl/Graph.h"
#include "tessera/dsl/Ops.h"
#include "tessera/dsl/Tile.h"

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace tsr {

/// The values of a kernel's parameters: shape parameters (`--shape M=1024,N=512`), which size its tensors, kernel
/// parameters (`--param bm=256`), positive integers the body reads at trace time (block sizes), and scalar
/// parameters (`--param scale=0.125`), real numbers it reads at trace time (scales, eps, a 0/1 flag), as NKI and
/// Pallas kernels take Python scalars.
class Params {
public:
  Params() = default;
  explicit Params(std::map<std::string, int64_t> shape, std::map<std::string, int64_t> kernel = {},
                  std::map<std::string, double> scalars = {})
      : values_(std::move(shape)), kernel_(std::move(kernel)), scalars_(std::move(scalars)) {}
  /// The value of shape or kernel parameter `name`; a tsr::Error if the kernel declared no such parameter.
  int64_t operator[](const std::string &name) const;
  /// The value of scalar parameter `name`; a tsr::Error if the kernel declared no such scalar parameter.
  double scalar(const std::string &name) const;
  /// The scalar parameters.
  const std::map<std::string, double> &scalarValues() const { return scalars_; }
  /// The shape parameters.
  const std::map<std::string, int64_t> &values() const { return values_; }
  /// The kernel parameters.
  const std::map<std::string, int64_t> &kernelValues() const { return kernel_; }
  /// The shape parameters, "K=1024,M=1024,N=1024".
  std::string str() const;
  /// The kernel and scalar parameters, "bk=1024,bm=2048,scale=0.125" (what --param takes back); empty when there
  /// are none.
  std::string kernelStr() const;

private:
  std::map<std::string, int64_t> values_;
  std::map<std::string, int64_t> kernel_;
  std::map<std::string, double> scalars_;
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
  std::vector<std::pair<std::string, int64_t>> params;                    ///< shape parameters: names, defaults
  /// Kernel parameters (`--param`): positive integers the body reads at trace time that do not change the
  /// tensors, such as block sizes; names and defaults, in order. No name may also be a shape parameter.
  std::vector<std::pair<std::string, int64_t>> kernelParams;
  /// Scalar parameters (`--param`): real numbers the body reads at trace time that do not change the tensors, such
  /// as a scale or a 0/1 flag; names and defaults, in order. No name may also be a shape or kernel parameter.
  std::vector<std::pair<std::string, double>> scalarParams;
  /// The tensors, from all the parameters; may throw tsr::Error for bad shapes or kernel parameters (the CLI
  /// reports it as bad usage).
  std::function<std::vector<TensorSpec>(const Params &)> signature;
  std::function<void(std::span<const Hbm>)> body;                        ///< the DSL code, one Hbm per tensor
  /// outputs = f(inputs), in FP32 or better, from the same (already rounded) input values the kernel sees.
  std::function<void(const Params &, const std::vector<HostTensor> &inputs, std::vector<HostTensor> &outputs)>
      reference;
  /// The largest relative error `tessera run` accepts between an output and `reference` (|out - ref| over the
  /// larger of |ref| and the reference's rms), where the kernel's own FP32 arithmetic errs by more than its output
  /// dtype's default allows (four roundings plus 1e-5 for accumulation order): a softmax of long dot products,
  /// whose logits' absolute error exp turns into the outputs' relative error. Say why beside the number. 0 (the
  /// default), or any value below the default, keeps the default; the golden model is held to the default.
  double referenceTolerance = 0;
  /// Let the compiler reorder each engine's instruction stream by list scheduling (nc-schedule-instructions,
  /// NeuronCore): for a loop body that chains several engines, so that one engine's wait does not hold up work
  /// of later iterations that is ready (the effect of software-pipelining the loop by hand). Data dependencies
  /// keep their order. Off by default: the streams keep program order.
  bool scheduleInstructions = false;
  /// The SPMD launch grid (Launch.h), from the parameters: programs along each axis, as NKI's `kernel[2](...)` or a
  /// Pallas grid's parallel dimensions; the body runs once per program and reads its coordinates with
  /// tsr::program_id. Empty (the default), or an empty grid: the kernel is launched once. Each axis must be at
  /// least 1; a tsr::Error otherwise.
  std::function<std::vector<int64_t>(const Params &)> grid;
  tessera::SourceLoc loc;                                                 ///< where it was defined
  /// The plugin it came from (`tessera --plugin PATH`, Registry::PluginScope); empty for a kernel linked in.
  std::string plugin;

  /// The defaults overridden by `shape` (shape parameters), `kernel` (kernel parameters) and `scalars` (scalar
  /// parameters); an unknown name, a shape or kernel parameter below 1 or a scalar that is not finite is a
  /// tsr::Error naming the kernel's parameters.
  Params resolve(const std::map<std::string, int64_t> &shape, const std::map<std::string, int64_t> &kernel = {},
                 const std::map<std::string, double> &scalars = {}) const;
  /// The kernel and scalar parameters with their defaults, "bm=2048, bn=1024, scale=0.125", or "none".
  std::string describeKernelParams() const;
  /// Whether `name` is one of the scalar parameters.
  bool isScalarParam(const std::string &name) const;
};

namespace detail {
/// The parameters of the kernel being traced on this thread; a tsr::Error if none is.
const Params &tracedParams();
template <size_t> using HbmArg = Hbm;
/// Whether `F` takes N tensors, with or without a leading `const Params &`.
template <class F, size_t... I> constexpr bool takesTensors(std::index_sequence<I...>) {
  return std::is_invocable_v<const F &, HbmArg<I>...> || std::is_invocable_v<const F &, const Params &, HbmArg<I>...>;
}
/// The number of tensors `F` takes (1 to 6), or 0.
template <class F, size_t N = 1> constexpr size_t tensorCount() {
  if constexpr (N > 6) return 0;
  else if constexpr (takesTensors<F>(std::make_index_sequence<N>{})) return N;
  else return tensorCount<F, N + 1>();
}
template <class F, size_t... I> void callBody(const F &f, std::span<const Hbm> t, std::index_sequence<I...>) {
  if constexpr (std::is_invocable_v<const F &, const Params &, HbmArg<I>...>) f(tracedParams(), t[I]...);
  else f(t[I]...);
}
} // namespace detail

/// Adapts a lambda taking one `tsr::Hbm` per tensor, `[](Hbm a, Hbm b, Hbm c) {...}`, to a KernelInfo body. A
/// kernel with parameters to read takes them first: `[](const Params &p, Hbm a, Hbm b) { int64_t bm = p["bm"]; }`.
template <class F> std::function<void(std::span<const Hbm>)> body(F f) {
  constexpr size_t n = detail::tensorCount<F>();
  static_assert(n > 0, "a kernel body takes 1 to 6 tsr::Hbm tensors, optionally after a const tsr::Params &");
  return [f](std::span<const Hbm> t) { detail::callBody(f, t, std::make_index_sequence<n>{}); };
}

/// All registered kernels: one registry per process, in libtessera.so, which the CLI, plugins and tests share.
class Registry {
public:
  static Registry &instance();
  /// Adds a kernel; a name already registered, or a parameter both a shape and a kernel parameter, is a
  /// tsr::Error at the kernel's definition.
  void add(KernelInfo info);
  /// The kernel called `name`, or nullptr.
  const KernelInfo *find(const std::string &name) const;
  /// Every kernel, sorted by name.
  std::vector<const KernelInfo *> all() const;

  /// While one is alive, the kernels registered are a plugin's (loaded by tessera::driver::loadPlugin): each is
  /// marked as coming from `plugin` (KernelInfo::plugin), and a Registration that fails records its error here
  /// instead of throwing, since a plugin's static initialisers run inside dlopen, which no exception may cross.
  class PluginScope {
  public:
    explicit PluginScope(std::string plugin);
    ~PluginScope();
    PluginScope(const PluginScope &) = delete;
    PluginScope &operator=(const PluginScope &) = delete;
    /// The names registered in this scope, in order.
    const std::vector<std::string> &added() const { return added_; }
    /// The registrations that failed, in order.
    const std::vector<Error> &errors() const { return errors_; }

  private:
    friend class Registry;
    friend struct Registration;
    std::string plugin_;
    std::vector<std::string> added_;
    std::vector<Error> errors_;
    PluginScope *previous_ = nullptr;
  };

private:
  friend struct Registration;
  std::map<std::string, KernelInfo> kernels_;
  PluginScope *scope_ = nullptr;
};

/// Registers a kernel at static-initialisation time: `static tsr::Registration r{{.name = "add", ...}};`
struct Registration {
  explicit Registration(KernelInfo info, std::source_location loc = std::source_location::current());
};

/// Runs a kernel's body once, symbolically, with `params` (shape and kernel parameters, as resolve() gives them),
/// and returns its graph. Misuse is a tsr::Error at the user's line.
graph::KernelGraph trace(const KernelInfo &kernel, const Params &params);

} // namespace tsr
