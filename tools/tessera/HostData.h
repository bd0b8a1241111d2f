#pragma once
/// \file
/// Host-side tensor data for a run: random inputs in each tensor's dtype, the same values as FP32 for the
/// reference, and the comparison of outputs with the reference.

#include "tessera/dsl/Kernel.h"
#include "tessera/isa/Program.h"
#include "tessera/InputDistribution.h"
#include "tessera/sim/Simulator.h"

#include <cstdint>
#include <optional>
#include <span>
#include <functional>
#include <string>
#include <vector>

namespace tessera::driver {

/// A tensor's values on the host: FP32, row-major, with the tensor's shape. How a program of your own gives a
/// kernel its inputs (RunRequest::inputs) and gets its outputs back (RunReport::outputs).
struct HostArray {
  std::vector<int64_t> shape;
  std::vector<float> values;
};

/// HBM contents for every tensor of `program`: inputs drawn from `dist` (uniform in [-1, 1) by default) with
/// `seed`, rounded to their dtype; outputs (and scratch) filled with NaN, so an element the kernel never writes shows up
/// (unwrittenElements). A distribution whose draws a float input's dtype cannot hold (InputDistribution::
/// largestMagnitude past isa::largestFinite) is an InputError naming the input. `checkpoint`, if given, is called
/// before each million elements: it may throw to stop (the deadline of --timeout).
sim::HbmImage makeInputs(const isa::Program &program, uint64_t seed, const InputDistribution &dist = {},
                         const std::function<void()> &checkpoint = nullptr);
/// The same for the tensors `tensors` (a program's, or a traced kernel's before it compiles: InputDrawing.h).
sim::HbmImage makeInputs(std::span<const isa::TensorInfo> tensors, uint64_t seed, const InputDistribution &dist = {},
                         const std::function<void()> &checkpoint = nullptr);

/// Replaces input `name`'s random values in `hbm` with the array in the .npy file `path`. Its shape must be the
/// tensor's; a float array (float16/32/64) is rounded to the tensor's dtype, an integer array must fit it, and a
/// bf16 or fp8 tensor also takes its raw bits (uint16 / uint8, or NumPy's void dtype for ml_dtypes arrays). An
/// unknown name, another shape or an unsuitable dtype is an InputError naming the file.
void loadInputFile(const isa::Program &program, sim::HbmImage &hbm, const std::string &name,
                   const std::string &path);

/// Replaces input `name`'s random values in `hbm` with `array`'s, rounded to the tensor's dtype (as a float32
/// .npy file is). Its shape must be the tensor's and it must hold that many values; an integer tensor takes only
/// integers. An unknown name, another shape or a non-integer for an integer tensor is an InputError.
void loadInputArray(const isa::Program &program, sim::HbmImage &hbm, const std::string &name, const HostArray &array);

/// Writes every output tensor of `hbm` to `dir`/NAME.npy: float32 for bf16 and fp8 outputs (exactly their values),
/// the tensor's own dtype otherwise, each file whole or not at all (an older one survives a failed write). Creates
/// `dir`; an InputError when it cannot.
void writeOutputFiles(const isa::Program &program, const sim::HbmImage &hbm, const std::string &dir);
/// Creates `dir` and checks that files can be made in it: `--output-dir`'s check before a run, so that a bad
/// folder costs no simulation. An InputError naming it when not.
void prepareOutputDir(const std::string &dir);

/// Tensor `index` of `hbm` decoded to FP32.
tsr::HostTensor decodeTensor(const isa::Program &program, const sim::HbmImage &hbm, size_t index);

/// A rectangle of a tensor's elements: rows and columns [first, last], a tensor of more than two dimensions counting
/// all but its last as rows.
struct ElementRegion {
  int64_t firstRow = 0, lastRow = 0, firstColumn = 0, lastColumn = 0;
  bool operator==(const ElementRegion &) const = default;
};

/// The elements of an output that the kernel never wrote: they still hold the NaN every output starts with
/// (makeInputs), byte for byte. `rows` and `columns` bound them: [first, last] of each, a tensor of more than two
/// dimensions counting all but its last as rows. `regions` covers them exactly with rectangles, each as tall as the
/// rows its column range runs through unchanged (a missing store of a tile is one), the first kMaxRegions of
/// `regionCount`, in row order.
struct UnwrittenElements {
  static constexpr size_t kMaxRegions = 8;
  int64_t count = 0, elements = 0; ///< never written, of all the tensor's
  int64_t firstRow = 0, lastRow = 0, firstColumn = 0, lastColumn = 0;
  std::vector<ElementRegion> regions;
  size_t regionCount = 0;
};

/// The elements of output `t` whose bytes in `bytes` (the tensor after the run) are still the fill's; nullopt when
/// there are none, or when `t`'s dtype has no NaN (an integer output starts with the fill's rounding, which a
/// kernel may write).
std::optional<UnwrittenElements> unwrittenElements(const isa::TensorInfo &t, const std::vector<std::byte> &bytes);
/// "rows 128..255, columns 0..511 (65536 of 196608 elements still hold the NaN an output starts with): a store is
/// missing or too small", the regions separated by "; ".
std::string describe(const UnwrittenElements &u);

/// How one output compares with the reference.
struct TensorCheck {
  std::string name;
  double maxAbsErr = 0;   ///< max |out - ref|
  double maxRelErr = 0;   ///< max |out - ref| / max(|ref|, rms(ref)): relative, but not blown up near zero
  double tolerance = 0;   ///< the largest maxRelErr accepted (tolerance(): the dtype's, or the kernel's)
  bool ok = false;

  /// The same numbers against each of the two references a run can have. Above: the larger maxAbsErr, and the
  /// maxRelErr and tolerance of the check whose error is the larger share of its tolerance (the two may differ:
  /// KernelInfo::referenceTolerance); `ok` needs both to pass.
  struct Against {
    double maxAbsErr = 0, maxRelErr = 0, tolerance = 0;
    bool ok = false;
  };
  std::optional<Against> vsGolden;    ///< the golden model (the kernel JIT-compiled for the CPU), when it ran
  std::optional<Against> vsReference; ///< the kernel's hand-written reference, when it has one
  std::optional<UnwrittenElements> unwritten; ///< elements no instruction wrote (then `ok` is false)
};

/// The largest relative error (TensorCheck::maxRelErr) an output of `dtype` may have: four roundings of the dtype
/// plus room for FP32 accumulation order, or `kernelTolerance` (tsr::KernelInfo::referenceTolerance) if larger.
double tolerance(isa::DType dtype, double kernelTolerance = 0);

/// Compares `out` with `ref` within tolerance(dtype, kernelTolerance); NaN or Inf where the reference is finite
/// fails.
TensorCheck compare(const std::string &name, isa::DType dtype, const tsr::HostTensor &out,
                    const tsr::HostTensor &ref, double kernelTolerance = 0);

/// One output checked against the golden model's values and/or the hand-written reference's (at least one):
/// the worst error of the two, ok when every one present is ok. `referenceTolerance` (the kernel's
/// KernelInfo::referenceTolerance) widens the reference's check only: the golden model computes in the DSL's order.
TensorCheck compareWithBoth(const std::string &name, isa::DType dtype, const tsr::HostTensor &out,
                            const tsr::HostTensor *golden, const tsr::HostTensor *reference,
                            double referenceTolerance = 0);

} // namespace tessera::driver
