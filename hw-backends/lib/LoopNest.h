#pragma once
/// \file
/// Internal to the backends: the kernel's loops, rebuilt around the program's instructions, and code for a loop's
/// iterations folded back into loops. The compiler unrolls every loop; each instruction remembers which iteration
/// of each loop around its tile op it came from (ProgramStep::iterations), so the nest can be rebuilt, and
/// iterations whose code differs only in integers that grow by a fixed step per iteration become one `for` loop.

#include "Operands.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tessera::backends {

/// An instruction of the program, or one of the kernel's loops: `loop` is its scf.for record
/// (Provenance::tileOps) and iterations[k] the nodes of its k-th iteration.
struct LoopNode {
  const Step *step = nullptr;
  int32_t loop = -1;
  std::vector<std::vector<LoopNode>> iterations;
};

/// `steps` in the order the kernel as written runs them (its ops in order, each loop's iterations in turn): the
/// program order before the list scheduler interleaved iterations (CompileOptions::scheduleInstructions). The
/// same steps when one has no tile op to place it by.
std::vector<Step> kernelOrder(std::vector<Step> steps, const compiler::Provenance &prov);

/// The loop nest of `steps`, in program order; nullopt when the program order does not follow the kernel's loops
/// (a scheduled kernel interleaves iterations), so that only the unrolled program says what it does.
std::optional<std::vector<LoopNode>> loopNest(const std::vector<Step> &steps, const compiler::Provenance &prov);

/// `line` without the " + 0" terms foldIterations leaves in the expressions it writes (so that an enclosing loop
/// folds them too): apply it to the finished code.
std::string withoutZeroTerms(std::string line);

/// How many loops enclose scf.for record `loop` (0 for an outermost loop).
int loopDepth(const compiler::Provenance &prov, int32_t loop);

/// Code of one iteration: its lines, indented relative to the loop body.
using Lines = std::vector<std::string>;

/// The code of a loop's iterations, in order: each run of two or more consecutive iterations whose lines differ
/// only in integer literals, each growing by a fixed step from one iteration to the next, becomes
/// `for VAR in range(...)` with those literals written in terms of VAR (the iteration number); the others stay as
/// they are. Iterations that would split into several runs but whose literals all follow
/// base + a * (VAR % d) + b * (VAR // d) (a loop index divided in the kernel, tsr::Index's / and %) become one loop. `relax`, when given, rewrites an iteration's lines into a looser form, used for a run where it folds
/// more iterations than the exact lines do (the NKI backend drops engine choices, which NKI then makes itself).
Lines foldIterations(const std::vector<Lines> &iterations, const std::string &var,
                     const std::function<std::string(const std::string &)> &relax = {});

} // namespace tessera::backends
