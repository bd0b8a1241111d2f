#include "tessera/InputDrawing.h"

#include "tessera/HostData.h"

#include <algorithm>
#include <tuple>

namespace tessera::driver {

namespace {

bool sameTensors(std::span<const isa::TensorInfo> a, std::span<const isa::TensorInfo> b) {
  const auto key = [](const isa::TensorInfo &t) { return std::tie(t.name, t.shape, t.dtype, t.isOutput, t.isScratch); };
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [&](const isa::TensorInfo &x, const isa::TensorInfo &y) { return key(x) == key(y); });
}

} // namespace

std::vector<isa::TensorInfo> InputDrawing::tensorsOf(const tsr::graph::KernelGraph &graph) {
  std::vector<isa::TensorInfo> tensors;
  for (const tsr::graph::TensorArg &t : graph.tensors)
    tensors.push_back(
        {.name = t.name, .shape = t.shape, .dtype = t.dtype, .isOutput = t.isOutput, .isScratch = t.isScratch});
  return tensors;
}

InputDrawing::InputDrawing(const tsr::graph::KernelGraph &graph, uint64_t seed, const InputDistribution &dist,
                           Deadline deadline)
    : tensors_(tensorsOf(graph)), seed_(seed), dist_(dist) {
  // On a thread of its own, or in take() should none start.
  drawn_ = std::async(std::launch::async | std::launch::deferred, [this, deadline] {
    return makeInputs(tensors_, seed_, dist_, [this, deadline] {
      if (stop_ || (deadline && std::chrono::steady_clock::now() >= *deadline)) throw Stopped{};
    });
  });
}

InputDrawing::~InputDrawing() {
  stop_ = true;
  if (drawn_.valid()) drawn_.wait();
}

std::optional<sim::HbmImage> InputDrawing::take(const isa::Program &program,
                                                const std::function<void()> &checkpoint) {
  sim::HbmImage hbm;
  try {
    hbm = drawn_.get();
  } catch (const Stopped &) {
    return std::nullopt;
  }
  if (sameTensors(tensors_, program.tensors)) return hbm;
  hbm = {}; // not two images at once
  drewAgain_ = true;
  return makeInputs(program, seed_, dist_, checkpoint);
}

} // namespace tessera::driver
