#pragma once
/// \file
/// Pallas deploy bundles of random kernels, for the check against Pallas interpret mode
/// (hw-backends/check/pallas_differential.py): each seed's kernel runs through the driver on a TPU target, and the
/// bundle `tessera deploy` writes is written once per Pallas style into DIR/<seed>-<style>/, with the inputs and
/// the simulator's outputs. A style that cannot write a kernel (the grid style, for a kernel that is not a grid)
/// refuses it; the refusal and its reason are recorded, and are not a mismatch.

#include "RandomKernel.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace tessera::difftest {

/// What became of one Pallas style of one seed.
struct StyleBundle {
  std::string style;
  std::string bundle;  ///< the bundle's folder, relative to DIR ("17-grid"); empty when refused
  std::string refusal; ///< why the style cannot write the kernel (the emitter's message); empty when written
};

/// One seed's run on the target and its bundles.
struct SeedBundles {
  uint64_t seed = 0;
  /// Why the run failed (it threw, or the simulator's outputs are off the golden model's): no bundles then.
  std::string failure;
  std::vector<StyleBundle> styles;
};

/// Runs `spec` through the driver on `target` (simulated, checked against the golden model) and writes its bundle
/// in each of `styles` into dir/<seed>-<style>/.
SeedBundles writePallasBundles(const KernelSpec &spec, const std::string &target,
                               const std::vector<std::string> &styles, const std::filesystem::path &dir);

/// A refusal's reason with the kernel's own names and numbers taken out, to count refusals by kind:
/// "a block of 'x0' is 100 elements along dimension 1: ..." becomes "a block of '*' is N elements along dimension
/// N: ...".
std::string refusalKind(const std::string &refusal);

/// Totals over a batch of seeds.
struct PallasBatch {
  int kernels = 0, bundles = 0, failures = 0;
  std::map<std::string, std::map<std::string, int>> refusals; ///< style -> refusalKind -> count
  std::vector<std::string> failureReports;                     ///< per failing seed: why, and its kernel
};

/// Seeds [first, last] (inclusive): every seed's bundles, and DIR/difftest.json, which lists each seed's styles with
/// their bundle or refusal (pallas_differential.py reads it). DIR is created if missing; an unwritable DIR is a
/// driver::InputError.
PallasBatch writePallasBatch(uint64_t first, uint64_t last, const std::string &target,
                             const std::vector<std::string> &styles, const std::filesystem::path &dir);

} // namespace tessera::difftest
