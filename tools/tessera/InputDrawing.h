#pragma once
/// \file
/// A run's random inputs, drawn on a thread of their own while the kernel compiles: they depend only on the
/// kernel's HBM tensors, which tracing knows, and the seed. On a 2-core host, drawing took about a seventh of the whole
/// run of matmul_blocked 2048^3 on tpu-v5e (0.1 of 0.7 s), compiling a twentieth (docs/performance.md, section 6).

#include "tessera/InputDistribution.h"
#include "tessera/dsl/Graph.h"
#include "tessera/isa/Program.h"
#include "tessera/sim/Simulator.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <optional>
#include <vector>

namespace tessera::driver {

/// The inputs of one run, drawn from the start of its compilation (above).
class InputDrawing {
public:
  using Deadline = std::optional<std::chrono::steady_clock::time_point>;
  /// Starts drawing the inputs of `graph`'s tensors as makeInputs would for its compiled program. Past `deadline`
  /// the thread stops (take() then says so).
  InputDrawing(const tsr::graph::KernelGraph &graph, uint64_t seed, const InputDistribution &dist,
               Deadline deadline);
  /// Stops the thread if take() was not called (the compiler refused the kernel) and waits for it.
  ~InputDrawing();
  InputDrawing(const InputDrawing &) = delete;
  InputDrawing &operator=(const InputDrawing &) = delete;

  /// The HBM image of `program`, byte for byte makeInputs(program, seed, dist): the thread's, or drawn again here
  /// should the compiled program's tensors differ from the traced ones. nullopt when the deadline stopped the
  /// thread. Rethrows makeInputs' InputError (a distribution an input's dtype cannot hold). `checkpoint` is
  /// makeInputs' should it draw again.
  std::optional<sim::HbmImage> take(const isa::Program &program, const std::function<void()> &checkpoint);
  /// Whether take() had to draw again (the overlap lost): for the tests.
  bool drewAgain() const { return drewAgain_; }

  /// The program's HBM tensors as the compiler lists them (Export/ToProgram.cpp): the graph's, in its order.
  static std::vector<isa::TensorInfo> tensorsOf(const tsr::graph::KernelGraph &graph);

private:
  struct Stopped {};
  std::vector<isa::TensorInfo> tensors_;
  uint64_t seed_;
  InputDistribution dist_;
  std::atomic<bool> stop_ = false;
  bool drewAgain_ = false;
  std::future<sim::HbmImage> drawn_;
};

} // namespace tessera::driver
