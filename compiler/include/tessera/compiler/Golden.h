#pragma once
/// \file
/// The golden model: a kernel's tile module, as imported (before allocation), lowered to host code
/// (tile-to-linalg, then linalg -> loops -> LLVM) and JIT-compiled with MLIR's ExecutionEngine. It shares nothing
/// with the NeuronCore lowering or the simulator beyond the traced kernel graph, so `tessera run` checks every
/// kernel against it without a hand-written reference. No MLIR type appears here.
///
/// Numerics are the DSL's: every op reads its operands into f32, computes in f32, and rounds to nearest even when
/// it stores into a narrower type; matmuls accumulate each product in k order without fused multiply-adds; max and
/// min propagate NaN. The simulator follows the same rules and calls the same libm expf, so on one host the two
/// agree to the bit (tests/unit/e2e/GoldenTest.cpp checks it).

#include "tessera/dsl/Graph.h"
#include "tessera/isa/Error.h"

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tessera::compiler {

/// The golden model has no host lowering for something in this kernel (an element type): callers fall back to
/// the kernel's hand-written reference and say so.
class GoldenUnsupported : public Error {
public:
  using Error::Error;
};

/// What the golden model compiled for a kernel, counted the way LLVM's code generation scales: an optimised
/// function costs more than linear time in its size (one function of a kernel's 1,026 ops took 71 s, issue 21),
/// while the glue, the kernel's own function (calls, addresses, its loops), is compiled without optimisation
/// (FastISel), in time linear in its size. So the work is linear in the kernel's ops as long as the optimised
/// functions do not grow with them and the glue grows at most linearly (GoldenTest checks both).
struct GoldenWork {
  size_t outlinedOps = 0;  ///< the ops that became calls of an optimised function (OutlineOps.h)
  size_t functions = 0;    ///< optimised functions: one per set of ops that differ only in their operands
  size_t optimizedOps = 0; ///< LLVM-dialect ops in those functions
  size_t glueOps = 0;      ///< LLVM-dialect ops compiled without optimisation
};

/// Told as each stage of the golden model begins: "lowering 1026 ops to host code", "compiling for the host",
/// "running" (a progress line shows it while a run waits).
using GoldenStageCallback = std::function<void(const std::string &stage)>;

/// A kernel's golden model, lowered and JIT-compiled for the host, ready to run on any tensors of the kernel's
/// shapes. Compiling needs only the traced kernel, so it can overlap the kernel's own compilation (the driver
/// does); running it needs the inputs. It owns its MLIR context and JIT; run it on one thread at a time.
class GoldenModel {
public:
  virtual ~GoldenModel() = default;
  /// Runs the kernel on the host CPU. `tensors` holds one buffer per kernel tensor, in the kernel's order: the
  /// tensor's elements, row-major, in its dtype (as the simulator's HBM image holds them). Inputs are only read;
  /// outputs are written in place. Throws tessera::Error when the buffers do not fit the kernel's tensors.
  virtual void run(std::vector<std::vector<std::byte>> &tensors) const = 0;
};

/// Lowers and compiles `kernel`'s golden model. `stage`, when set, hears of each stage as it begins (an exception
/// it throws stops the compilation); `work`, when given, receives what was compiled. Throws GoldenUnsupported
/// (see above), or tessera::Error at the kernel's line (a tile window that leaves its tensor).
std::unique_ptr<GoldenModel> compileGolden(const tsr::graph::KernelGraph &kernel,
                                           const GoldenStageCallback &stage = {}, GoldenWork *work = nullptr);

/// Compiles `kernel`'s golden model and runs it on `tensors` (compileGolden, then run; `stage` also hears
/// "running").
void runGolden(const tsr::graph::KernelGraph &kernel, std::vector<std::vector<std::byte>> &tensors,
               const GoldenStageCallback &stage = {}, GoldenWork *work = nullptr);

/// The stages of the golden model's lowering that can be printed.
enum class GoldenStage {
  Linalg, ///< after tile-to-linalg: linalg.generic, memref, arith, math, scf
  Llvm,   ///< the LLVM dialect module that is JIT-compiled
};

/// The kernel's golden-model module at `stage`, as MLIR text.
std::string goldenToText(const tsr::graph::KernelGraph &kernel, GoldenStage stage);

} // namespace tessera::compiler
