//===- InsertSemaphores.cpp - synchronise the engines from data dependencies ----------------------------===//
//
// Engines run their streams concurrently and in order; the only ordering between streams is what semaphores
// give. Walking the instructions in program order, each one depends on the last writer of every byte range it
// reads (RAW), and a write also on the last writer (WAW) and every reader since (WAR) of the bytes it writes.
// A dependency on an instruction of the same stream needs nothing (streams are in order). Across streams:
// every producer with a consumer on stream S signals the semaphore of the pair (producer stream, S) once, so
// the k-th such signal means "the first k producers for S are done"; the consumer waits until the semaphore
// reaches the producer's ordinal. A dependency already implied (by the stream's order, or transitively by a chain
// of earlier waits, tracked with a vector clock per stream) gets no wait, so removing any wait this pass inserts
// leaves some dependency unordered.
// Instructions marked nc.manual (a tsr::isa::manual_sync scope) get no waits for each other: the kernel's own
// semaphores order them. Across the scope's edge the pass still synchronises: a manual instruction waits for
// the automatic instructions it depends on (data produced before the scope), and automatic instructions wait
// for the manual ones (which may gain signals). The kernel's own waits are not used to prove a dependency
// implied (at worst a redundant wait). The pass numbers its semaphores after the highest one the kernel's
// instructions already use.
// The same on a tpu module (Machine.h says what each instruction is, whichever dialect): its streams are the MXU,
// the VPU, the scalar core and the DMA queues. The TensorCore issues MXU, VPU and scalar-core instructions in
// program order, but issuing in order does not wait for the previous instruction to finish, so dependencies
// between those streams need semaphores too. A VMEM operand is its exact rows (each `pitch` apart): the padding
// of a tile and the columns outside a window of it are not part of the dependency.
// Test: compiler/test/Transforms/insert-semaphores.mlir, insert-semaphores-tpu.mlir
//
//===------------------------------------------------------------------------------------------------------===//

#include "Dependencies.h"
#include "tessera/compiler/Dialect/Machine.h"
#include "tessera/compiler/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <map>
#include <set>

using namespace mlir;

namespace tessera::compiler {
namespace {

struct InsertSemaphoresPass : PassWrapper<InsertSemaphoresPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(InsertSemaphoresPass)
  StringRef getName() const override { return "InsertSemaphores"; }
  StringRef getArgument() const override { return "nc-insert-semaphores"; }
  StringRef getDescription() const override { return "Synchronise engines with semaphores from data dependencies"; }

  void runOnOperation() override {
    for (auto fn : getOperation().getOps<func::FuncOp>()) synchronise(fn);
  }

  void synchronise(func::FuncOp fn) {
    llvm::SmallVector<Operation *> insts;
    for (Operation &op : fn.getBody().front())
      if (isMachineInstruction(&op)) insts.push_back(&op);

    // 0. The kernel's own semaphores (manual_sync scopes) keep their numbers; ours come after them.
    int64_t firstSemaphore = 0;
    for (Operation *op : insts) {
      if (auto waits = op->getAttrOfType<DenseI64ArrayAttr>("waits"))
        for (int64_t k = 0; k < waits.size(); k += 2) firstSemaphore = std::max(firstSemaphore, waits[k] + 1);
      if (auto signals = op->getAttrOfType<DenseI64ArrayAttr>("signals"))
        for (int64_t sem : signals.asArrayRef()) firstSemaphore = std::max(firstSemaphore, sem + 1);
    }

    // 1. Dependencies between streams, from overlapping accesses in program order.
    AccessTracker tracker(AccessTracker::Readers::LastPerStream);
    std::vector<unsigned> stream(insts.size());
    std::vector<llvm::SmallVector<int64_t, 4>> producers(insts.size());
    for (auto [i, op] : llvm::enumerate(insts)) {
      stream[i] = streamOf(op);
      llvm::SmallVector<int64_t, 8> deps;
      tracker.visit(op, stream[i], i, deps);
      const bool manual = isManualInstruction(op);
      std::set<int64_t> unique(deps.begin(), deps.end());
      for (int64_t d : unique) {
        if (stream[d] == stream[i]) continue;
        if (manual && isManualInstruction(insts[d])) continue; // the kernel's own semaphores order the two
        producers[i].push_back(d);
      }
    }

    // 2. Which dependencies need a wait: walk in program order with a vector clock per stream (how far into each
    //    other stream it is known to be ordered after). A dependency on an instruction the clock already covers
    //    is implied, through this stream's order or through a chain of earlier waits, and needs no wait.
    std::map<unsigned, size_t> streamIndex;
    for (unsigned s : stream) streamIndex.try_emplace(s, streamIndex.size());
    const size_t streams = streamIndex.size();
    std::vector<int64_t> position(insts.size()); // 1-based position of each instruction in its stream
    std::vector<int64_t> issued(streams, 0);
    std::vector<char> isProducer(insts.size(), 0);
    for (size_t i = 0; i < insts.size(); ++i) {
      position[i] = ++issued[streamIndex[stream[i]]];
      for (int64_t p : producers[i]) isProducer[p] = 1;
    }
    std::vector<std::vector<int64_t>> known(streams, std::vector<int64_t>(streams, 0));
    std::map<int64_t, std::vector<int64_t>> clockOf; // producer -> the clock of its stream when it completes
    std::vector<llvm::SmallVector<int64_t, 2>> waitedFor(insts.size());
    for (size_t i = 0; i < insts.size(); ++i) {
      std::vector<int64_t> &clock = known[streamIndex[stream[i]]];
      auto covered = [&](int64_t p) { return clock[streamIndex[stream[p]]] >= position[p]; };
      llvm::SmallVector<int64_t, 4> pending(producers[i].begin(), producers[i].end());
      // Later producers tend to know more: wait for the latest first, then drop what that implies.
      llvm::sort(pending, std::greater<>());
      for (int64_t p : pending) {
        if (covered(p)) continue;
        waitedFor[i].push_back(p);
        const std::vector<int64_t> &theirs = clockOf.at(p);
        for (size_t t = 0; t < streams; ++t) clock[t] = std::max(clock[t], theirs[t]);
      }
      clock[streamIndex[stream[i]]] = position[i];
      if (isProducer[i]) clockOf.emplace(static_cast<int64_t>(i), clock);
    }

    // 3. The producers waited for signal the semaphore of (their stream, the consumer's stream); the consumer
    //    waits until it has been signalled as many times as the producer's ordinal on it.
    std::map<std::pair<unsigned, unsigned>, int64_t> semaphoreOf; // (from, to) -> id
    std::map<std::pair<int64_t, unsigned>, int64_t> ordinal;      // (producer, consumer stream) -> k
    std::map<int64_t, int64_t> signalled;                         // semaphore -> signals so far
    std::vector<std::set<unsigned>> consumers(insts.size());
    for (size_t i = 0; i < insts.size(); ++i)
      for (int64_t p : waitedFor[i]) consumers[p].insert(stream[i]);
    Builder b(fn.getContext());
    for (size_t p = 0; p < insts.size(); ++p) {
      llvm::SmallVector<int64_t, 2> signals;
      for (unsigned to : consumers[p]) {
        auto [it, _] =
            semaphoreOf.try_emplace({stream[p], to}, firstSemaphore + static_cast<int64_t>(semaphoreOf.size()));
        ordinal[{static_cast<int64_t>(p), to}] = ++signalled[it->second];
        signals.push_back(it->second);
      }
      if (signals.empty()) continue;
      if (auto own = insts[p]->getAttrOfType<DenseI64ArrayAttr>("signals"))
        signals.insert(signals.begin(), own.asArrayRef().begin(), own.asArrayRef().end());
      insts[p]->setAttr("signals", b.getDenseI64ArrayAttr(signals));
    }
    for (auto [i, op] : llvm::enumerate(insts)) {
      std::map<int64_t, int64_t> need; // semaphore -> count
      for (int64_t p : waitedFor[i]) {
        int64_t sem = semaphoreOf.at({stream[p], stream[i]});
        need[sem] = std::max(need[sem], ordinal.at({p, stream[i]}));
      }
      llvm::SmallVector<int64_t> waits;
      for (auto [sem, count] : need) waits.append({sem, count});
      if (waits.empty()) continue;
      if (auto own = op->getAttrOfType<DenseI64ArrayAttr>("waits"))
        waits.insert(waits.begin(), own.asArrayRef().begin(), own.asArrayRef().end());
      op->setAttr("waits", b.getDenseI64ArrayAttr(waits));
    }
  }
};

} // namespace

std::unique_ptr<Pass> createInsertSemaphoresPass() { return std::make_unique<InsertSemaphoresPass>(); }

} // namespace tessera::compiler
