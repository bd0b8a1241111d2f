#pragma once
/// \file
/// Differential testing: random valid kernels, each run on the simulator and on the golden model (the kernel's
/// tile IR JIT-compiled for the CPU) from the same inputs, their outputs compared within the dtype's tolerance.
///
/// A kernel is described by a KernelSpec, a small value-numbered program generated from a seed: its tensors, its
/// loop nest and a straight-line sequence of tile ops. The spec (not the seed) is what runs, so a failing kernel
/// can be shrunk (minimise()) and the small spec saved as a regression test (DifferentialTest.cpp).

#include "tessera/Driver.h"
#include "tessera/dsl/tsr.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tessera::difftest {

/// One op of a kernel's body. Operands are value numbers: values 0.. are what the loop body starts with (the
/// loaded input tiles; for a matmul kernel, value 0 is the PSUM accumulator and the rest the loaded inputs), and
/// each op that yields a tile appends one value.
struct OpSpec {
  enum Kind { Add, Subtract, Multiply, Maximum, Exp, Sum, Max, Copy, Full, Print } kind = Add;
  int a = -1, b = -1;           ///< operands (b: binary ops only)
  tsr::DType dtype = tsr::f32;  ///< Copy's and Full's element type
  float value = 0;              ///< Full's value
  bool column = false;          ///< Full: a [P, 1] tile
};

/// A random kernel.
struct KernelSpec {
  uint64_t seed = 0;
  /// Matmul kernel: c[M, N] = a_t[K, M]^T @ b[K, N] (then the ops), tiles [kb, pb] x [kb, fb], k blocks summed
  /// in one PSUM tile. Otherwise an elementwise kernel over [rows, cols] tensors in [pb, fb] tiles.
  bool matmul = false;
  int64_t pb = 128, fb = 128, kb = 128; ///< tile sizes: partition, free, contraction
  int rowBlocks = 1, colBlocks = 1, kBlocks = 1;
  bool rowLoop = true, colLoop = true, kLoop = true; ///< loops written as affine_range (else unrolled by hand)
  bool colsOuter = false;                            ///< the column loop encloses the row loop
  /// When > 0 (and rowLoop), the row loop is written as two loops, affine_range(0, rowSplit) and
  /// affine_range(rowSplit, rowBlocks).
  int rowSplit = 0;
  unsigned loopBuffers = 4;           ///< compiler::CompileOptions::loopBuffers (rotating copies per loop tile)
  tsr::DType aDtype = tsr::f32, bDtype = tsr::f32; ///< a matmul kernel's a_t and b
  std::vector<tsr::DType> inputs;     ///< dtypes of the elementwise inputs, [rows, cols] each
  tsr::DType outDtype = tsr::f32;     ///< the main output's dtype
  std::vector<OpSpec> ops;
  int result = 0;                     ///< the value stored to the main output (a full [pb, fb] tile)
  int columnResult = -1;              ///< a [pb, 1] value stored to a second output [rows, colBlocks], or -1
  tsr::DType columnDtype = tsr::f32;

  int64_t rows() const { return pb * rowBlocks; }
  int64_t cols() const { return fb * colBlocks; }
  /// Values the body starts with.
  int initialValues() const { return int(inputs.size()) + (matmul ? 1 : 0); }
  /// True when operand shapes agree and every reference is to an earlier value.
  bool valid() const;
  /// The kernel as DSL-like C++ text, for a failure's message and a saved regression test.
  std::string str() const;
  /// The spec as C++ that rebuilds it (for saving a minimised failing seed as a regression test).
  std::string cpp() const;
};

/// A random valid kernel from `seed`: shapes within the target's limits, 1-3 inputs, loops, 1-12 ops.
KernelSpec generate(uint64_t seed);

/// The spec as a KernelInfo (named "diff_<seed>", not registered), ready for tsr::trace.
tsr::KernelInfo kernelOf(const KernelSpec &spec);

/// What one differential run found.
struct Outcome {
  bool ok = false;
  std::string message;   ///< why not (an exception, or each output out of tolerance)
  size_t ops = 0;        ///< tile ops in the traced graph
  size_t instructions = 0;
  bool bitExact = true;  ///< every output equal to the golden model's to the bit
};

/// Traces, compiles and simulates `spec` on `target`, runs the golden model from the same inputs, compares.
Outcome run(const KernelSpec &spec, const std::string &target = "trn2", uint64_t dataSeed = 1);

/// A smaller spec that still fails (fewer ops, blocks, loops and smaller tiles), by greedy shrinking.
KernelSpec minimise(const KernelSpec &failing, const std::string &target = "trn2");
/// The same shrinking, with `fails` deciding what counts as still failing.
KernelSpec minimise(const KernelSpec &failing, const std::function<bool(const KernelSpec &)> &fails);

/// Totals over a batch of seeds.
struct BatchResult {
  int kernels = 0, failures = 0, bitExact = 0;
  size_t ops = 0, instructions = 0;
  std::vector<std::string> failureReports; ///< per failing seed: the message and the minimised kernel
};

/// Runs seeds [first, last] (inclusive); `minimiseFailures` shrinks each failing kernel for the report.
BatchResult runSeeds(uint64_t first, uint64_t last, const std::string &target = "trn2",
                     bool minimiseFailures = true);

} // namespace tessera::difftest
