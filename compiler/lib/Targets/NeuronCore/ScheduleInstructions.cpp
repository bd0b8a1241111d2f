//===- ScheduleInstructions.cpp - list scheduling of the NeuronCore's engine streams ---------------------===//
//
// The unrolled kernel reaches the engines in program order, and each engine runs its own stream in order: an
// instruction that waits for its inputs holds up everything behind it on its engine, even work that is ready.
// A kernel whose loop body chains several engines (matmul -> reduce -> activation -> transpose -> matmul, as
// flash attention does) then keeps each engine waiting for the others, iteration after iteration, unless its
// author software-pipelines the loop by hand. This pass does what an instruction scheduler does instead: it keeps
// every dependency (the instructions that touch the same bytes, one of them writing, stay in program order) and
// otherwise reorders the streams by list scheduling. It estimates each instruction's time from the target's cost
// model (isa::engineCycles at the engine's clock with the overheads of isa/InstructionOverhead.h; a DMA transfer's
// streaming time at its efficiency, on the DMA engine its queue shares, plus the fixed latency), and repeatedly
// takes the ready instruction that can start earliest (once its dependencies have finished and its stream is
// free; ties go to the longest chain of work after it, then to an earlier place in program order or an earlier
// finish: the same instruction on another of its engines, or a later one that ends sooner). An instruction the
// lowering put on the least busy of several engines (marked nc.flexible) may move to whichever of them can start
// it first.
// The new order is a topological order of the dependencies, so the program computes the same values; the
// semaphores are inserted afterwards, from this order.
// The pipeline runs it only for a kernel that asks for it (the module's tile.schedule_instructions, from
// tsr::KernelInfo::scheduleInstructions) or when CompileOptions::scheduleInstructions forces it, on NeuronCore
// modules before insert-semaphores. A function with instructions of a manual_sync scope is left as written: their semaphores
// are the kernel's own. TPU modules are left alone: the TensorCore's grid steps already order the units.
// Test: compiler/test/Transforms/schedule-instructions.mlir
//
//===------------------------------------------------------------------------------------------------------===//

#include "Transforms/Dependencies.h"
#include "tessera/compiler/Dialect/Machine.h"
#include "tessera/compiler/Passes.h"
#include "Targets/TargetFamily.h"
#include "NeuronCore/Passes.h"
#include "tessera/isa/Cost.h"
#include "tessera/isa/DmaCost.h"
#include "tessera/isa/InstructionOverhead.h"
#include "tessera/isa/InstructionSet.h"
#include "NeuronCore/NcDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <algorithm>
#include <map>
#include <limits>
#include <set>

using namespace mlir;

namespace tessera::compiler {
namespace {

/// An instruction's estimated time on its stream, in ns, after `previous` on the same stream (null: none): its
/// engine cycles, and the static overhead and commit wait the simulator adds for a tiny or back-to-back dependent
/// instruction (isa/InstructionOverhead.h); a DMA transfer's streaming time and fixed latency.
double durationNs(const isa::Instruction &inst, const isa::Instruction *previous, isa::Engine engine,
                  const isa::Target &target) {
  if (engine == isa::Engine::Dma) {
    const isa::DmaTransferCost cost = isa::dmaTransferCost(inst, target);
    return cost.streamingNs + target.dma.fixedLatencyNs;
  }
  const uint64_t cycles = isa::engineCycles(inst, engine, target) +
                          isa::staticOverheadCycles(inst, previous, engine, target) +
                          isa::dependencyCommitCycles(inst, previous, engine, target);
  return double(cycles) / isa::clockGhz(engine, target);
}

/// The engines instruction `op` may run on: the compute engines of its definition on which `target` accepts it
/// (isa::verifyInstruction: GpSimd reaches no PSUM, and the vendor's engine rules) when the lowering marked it
/// nc.flexible, else the one it has.
llvm::SmallVector<isa::Engine, 3> candidateEngines(Operation *op, const isa::Instruction &inst,
                                                   const isa::Target &target) {
  const isa::Engine current = *machineEngineOf(op);
  if (!op->hasAttr(nc::kFlexibleAttr)) return {current};
  llvm::SmallVector<isa::Engine, 3> engines;
  for (isa::Engine e : {isa::Engine::Vector, isa::Engine::Scalar, isa::Engine::GpSimd})
    if (isa::definition(inst.op).engines.contains(e) && isa::verifyInstruction(inst, e, &target).empty())
      engines.push_back(e);
  if (!llvm::is_contained(engines, current)) engines.insert(engines.begin(), current);
  return engines;
}

struct ScheduleInstructionsPass : PassWrapper<ScheduleInstructionsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ScheduleInstructionsPass)
  StringRef getName() const override { return "ScheduleInstructions"; }
  StringRef getArgument() const override { return "nc-schedule-instructions"; }
  StringRef getDescription() const override {
    return "Reorder each engine's stream by list scheduling, keeping every data dependency";
  }

  void runOnOperation() override {
    const isa::Target *target = targetOf(getOperation());
    if (!target) return signalPassFailure();
    if (&targetFamily(*target) != &neuronCoreFamily()) return; // another family's instructions: nothing to do
    for (auto fn : getOperation().getOps<func::FuncOp>())
      if (failed(schedule(fn, *target))) return signalPassFailure();
  }

  LogicalResult schedule(func::FuncOp fn, const isa::Target &target) {
    Block &body = fn.getBody().front();
    llvm::SmallVector<Operation *> insts;
    for (Operation &op : body) {
      if (!isMachineInstruction(&op)) continue;
      if (isManualInstruction(&op)) return success(); // the kernel's own semaphores order it
      if (op.hasAttr("waits") || op.hasAttr("signals"))
        return op.emitOpError("is already synchronised: schedule the instructions before insert-semaphores");
      insts.push_back(&op);
    }
    const size_t n = insts.size();
    if (n < 2) return success();

    // 1. Every dependency, same stream included: the stream will be reordered too. An instruction the lowering
    //    put on the least busy of several engines (nc.flexible) may move to another of them.
    AccessTracker tracker(AccessTracker::Readers::All);
    std::vector<llvm::SmallVector<isa::Engine, 3>> engines(n);
    std::vector<isa::Instruction> instruction(n);
    std::vector<unsigned> queue(n);
    std::vector<llvm::SmallVector<int64_t, 4>> successors(n);
    std::vector<int64_t> unplacedDeps(n, 0);
    for (auto [i, op] : llvm::enumerate(insts)) {
      instruction[i] = machineInstructionOf(op);
      queue[i] = machineQueueOf(op);
      engines[i] = candidateEngines(op, instruction[i], target);
      llvm::SmallVector<int64_t, 8> deps;
      tracker.visit(op, streamOf(op), i, deps);
      llvm::sort(deps);
      deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
      for (int64_t d : deps) {
        if (d == static_cast<int64_t>(i)) continue;
        successors[d].push_back(static_cast<int64_t>(i));
        ++unplacedDeps[i];
      }
    }
    /// The stream instruction i runs on, on `engine`.
    auto streamOn = [&](size_t i, isa::Engine engine) {
      return engine == isa::Engine::Dma ? static_cast<unsigned>(isa::Engine::Dma) + queue[i]
                                        : static_cast<unsigned>(engine);
    };
    std::map<unsigned, int64_t> lastOn; // per stream: the instruction placed last
    auto durationOn = [&](size_t i, isa::Engine engine) {
      auto last = lastOn.find(streamOn(i, engine));
      return durationNs(instruction[i], last == lastOn.end() ? nullptr : &instruction[last->second], engine, target);
    };

    // 2. Each instruction's priority: the longest chain of estimated time from its start to the end of the
    //    kernel through its successors (its bottom level): the instructions the rest of the kernel waits on.
    std::vector<double> priority(n, 0.0);
    for (size_t k = n; k-- > 0;) {
      double after = 0;
      for (int64_t s : successors[k]) after = std::max(after, priority[s]);
      priority[k] = durationOn(k, engines[k].front()) + after;
    }

    // 3. List scheduling: of the ready instructions (every dependency placed), on any of their engines, the one
    //    that can start first (ties: the higher priority, then program order), until all are placed.
    std::map<unsigned, double> streamFree, dmaEngineFree;
    std::vector<int64_t> ready;
    std::vector<double> readyAt(n, 0.0), finish(n, 0.0);
    std::vector<isa::Engine> chosen(n);
    for (size_t i = 0; i < n; ++i)
      if (unplacedDeps[i] == 0) ready.push_back(static_cast<int64_t>(i));
    std::vector<int64_t> order;
    order.reserve(n);
    while (!ready.empty()) {
      size_t pick = 0;
      isa::Engine pickEngine = isa::Engine::Tensor;
      double pickStart = std::numeric_limits<double>::infinity(), pickFinish = pickStart;
      for (size_t k = 0; k < ready.size(); ++k) {
        const int64_t i = ready[k];
        for (isa::Engine e : engines[i]) {
          double start = std::max(readyAt[i], streamFree[streamOn(i, e)]);
          if (e == isa::Engine::Dma) start = std::max(start, dmaEngineFree[isa::dmaEngineOf(queue[i], target)]);
          const double end = start + durationOn(i, e);
          const int64_t best = ready[pick];
          const bool better = start < pickStart ||
                              (start == pickStart && (priority[i] > priority[best] ||
                                                      (priority[i] == priority[best] && (i < best || end < pickFinish))));
          if (!better) continue;
          pick = k;
          pickEngine = e;
          pickStart = start;
          pickFinish = end;
        }
      }
      const int64_t i = ready[pick];
      ready.erase(ready.begin() + static_cast<std::ptrdiff_t>(pick));
      order.push_back(i);
      chosen[i] = pickEngine;
      finish[i] = pickFinish;
      streamFree[streamOn(i, pickEngine)] = pickFinish;
      if (pickEngine == isa::Engine::Dma) // a DMA engine streams one transfer at a time, for its queues
        dmaEngineFree[isa::dmaEngineOf(queue[i], target)] =
            pickStart + isa::dmaTransferCost(instruction[i], target).streamingNs;
      lastOn[streamOn(i, pickEngine)] = i;
      for (int64_t s : successors[i]) {
        readyAt[s] = std::max(readyAt[s], finish[i]);
        if (--unplacedDeps[s] == 0) ready.push_back(s);
      }
    }
    assert(order.size() == n && "the dependencies of a program order are acyclic");
    for (size_t i = 0; i < n; ++i) {
      insts[i]->removeAttr(nc::kFlexibleAttr);
      if (chosen[i] != *machineEngineOf(insts[i]))
        insts[i]->setAttr("engine", StringAttr::get(fn.getContext(), isa::name(chosen[i])));
    }

    // 4. The instructions in the new order, where the first of them was: each placed after the one before it,
    //    the first after whatever preceded the old first (or at the block's start).
    Block *block = insts.front()->getBlock();
    Operation *previous = insts.front()->getPrevNode();
    for (int64_t i : order) {
      if (previous) insts[i]->moveAfter(previous);
      else insts[i]->moveBefore(block, block->begin());
      previous = insts[i];
    }
    return success();
  }
};

} // namespace

std::unique_ptr<Pass> createScheduleInstructionsPass() { return std::make_unique<ScheduleInstructionsPass>(); }

} // namespace tessera::compiler
