//===- NeuronCoreFamily.cpp - the NeuronCore family's side of the compiler --------------------------------===//
//
// Tiles in SBUF or PSUM by partition; the tile limits verify-target checks (partitions, a PSUM tile within the
// banks one matmul writes, matmul sizes against the tensor engine); the stages tile-legalize-for-neuroncore before
// allocation, then lower-tile-to-nc, verify-access and (for kernels that ask) nc-schedule-instructions.
// Test: compiler/test/Transforms/verify-target.mlir, allocate-memory.mlir, and each pass's own.
//
//===------------------------------------------------------------------------------------------------------===//

#include "NeuronCore/NcDialect.h"
#include "NeuronCore/Passes.h"
#include "TargetFamily.h"

#include "mlir/Pass/PassRegistry.h"

#include <algorithm>

using namespace mlir;

namespace tessera::compiler {
namespace {

/// The largest element size we store; SBUF offsets are kept aligned to it so every element is aligned.
constexpr int64_t kSbufAlignment = 4;

int64_t bytesPerPartition(MemRefType t) {
  return t.getDimSize(1) * static_cast<int64_t>(t.getElementTypeBitWidth() / 8);
}

/// " (tile 't3')" when the alloc carries the kernel's tile name.
std::string named(tile::AllocOp op) { return op.getName() ? " (tile '" + op.getName()->str() + "')" : ""; }

LogicalResult verifyAlloc(tile::AllocOp op, const isa::Target &t) {
  MemRefType type = op.getType();
  if (type.getDimSize(0) > t.partitions)
    return op.emitError() << "tile " << type << " has " << type.getDimSize(0) << " partitions; " << t.name
                          << " has " << t.partitions << named(op);
  int64_t bytes = bytesPerPartition(type);
  // A PSUM tile is one bank, or as many whole banks as one matmul may write (all 8 on NeuronCore-v4).
  const auto psumTileBytes = static_cast<int64_t>(std::max<uint64_t>(t.psumBankBytes(), t.tensor.maxMovingFree * 4));
  if (tile::memorySpaceOf(type) == tile::MemorySpace::psum && bytes > psumTileBytes) {
    if (psumTileBytes == static_cast<int64_t>(t.psumBankBytes()))
      return op.emitError() << "PSUM tile " << type << " takes " << bytes << " bytes per partition; a PSUM bank of "
                            << t.name << " holds " << t.psumBankBytes() << named(op);
    return op.emitError() << "PSUM tile " << type << " takes " << bytes << " bytes per partition; a PSUM tile of "
                          << t.name << " spans at most the " << psumTileBytes
                          << " bytes one matmul writes (tensor_engine.max_moving_free FP32)" << named(op);
  }
  if (tile::memorySpaceOf(type) == tile::MemorySpace::sbuf && bytes > static_cast<int64_t>(t.sbufBytesPerPartition))
    return op.emitError() << "SBUF tile " << type << " takes " << bytes << " bytes per partition; " << t.name
                          << " has " << t.sbufBytesPerPartition << named(op);
  return success();
}

LogicalResult verifyMatmul(tile::MatmulOp op, const isa::Target &t) {
  auto s = llvm::cast<MemRefType>(op.getStationary().getType());
  auto m = llvm::cast<MemRefType>(op.getMoving().getType());
  const isa::TensorEngineSpec &te = t.tensor;
  if (s.getDimSize(0) > te.maxContraction)
    return op.emitError() << "matmul contracts over " << s.getDimSize(0) << " partitions; the " << t.name
                          << " tensor engine takes at most " << te.maxContraction;
  if (s.getDimSize(1) > te.maxStationaryFree)
    return op.emitError() << "matmul stationary free size " << s.getDimSize(1) << " exceeds " << te.maxStationaryFree
                          << " on " << t.name;
  if (m.getDimSize(1) > te.maxMovingFree)
    return op.emitError() << "matmul moving free size " << m.getDimSize(1) << " exceeds " << te.maxMovingFree << " on "
                          << t.name;
  return success();
}

class NeuronCoreTargetFamily final : public TargetFamily {
public:
  const isa::Family &family() const override { return *isa::findFamily("neuroncore"); }
  void registerDialects(DialectRegistry &registry) const override { registry.insert<nc::NcDialect>(); }
  void registerPasses() const override {
    PassRegistration<Pass>([] { return createLegalizeForNeuronCorePass(); });
    PassRegistration<Pass>([] { return createLowerTileToNcPass(); });
    PassRegistration<Pass>([] { return createVerifyAccessPass(); });
    PassRegistration<Pass>([] { return createScheduleInstructionsPass(); });
  }

  void addLegalization(OpPassManager &pm) const override { pm.addPass(createLegalizeForNeuronCorePass()); }
  llvm::StringRef loweringPass() const override { return "lower-tile-to-nc"; }
  void addLowering(OpPassManager &pm, const LoweringOptions &o) const override {
    pm.addPass(createLowerTileToNcPass(o.maxInstructions, o.recordOrigins, /*markFlexible=*/o.schedule));
    pm.addPass(createVerifyAccessPass());
    if (o.schedule) pm.addPass(createScheduleInstructionsPass());
  }
  void addChecks(OpPassManager &pm) const override { pm.addPass(createVerifyAccessPass()); }

  isa::MemSpace tileSpace(tile::MemorySpace space) const override {
    return space == tile::MemorySpace::psum ? isa::MemSpace::Psum : isa::MemSpace::Sbuf;
  }
  /// Per partition: a PSUM tile takes whole banks (an accumulation group lives in one, nki.isa.nc_matmul), an
  /// SBUF tile is rounded up to keep every element aligned.
  int64_t tileCopyBytes(MemRefType t, const isa::Target &target) const override {
    const int64_t bytes = bytesPerPartition(t);
    if (tile::memorySpaceOf(t) == tile::MemorySpace::psum)
      return roundUp(bytes, static_cast<int64_t>(target.psumBankBytes()));
    return roundUp(bytes, kSbufAlignment);
  }
  int64_t tilePitch(MemRefType, const isa::Target &) const override { return 0; }
  TileBudget tileBudget(const isa::FamilyMemory &m, const isa::Target &) const override {
    return {.bytes = static_cast<int64_t>(m.bytesPerPartition)};
  }
  int64_t loopBuffers(int64_t requested) const override { return requested; }
  LogicalResult verifyTileOp(Operation *op, const isa::Target &target) const override {
    if (auto a = dyn_cast<tile::AllocOp>(op)) return verifyAlloc(a, target);
    if (auto m = dyn_cast<tile::MatmulOp>(op)) return verifyMatmul(m, target);
    return success();
  }
  void noteAllocation(func::FuncOp, const isa::Target &) const override {}
};

} // namespace

const TargetFamily &neuronCoreFamily() {
  static const NeuronCoreTargetFamily family;
  return family;
}

} // namespace tessera::compiler
