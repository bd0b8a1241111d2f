//===- VerifyTarget.cpp - check a tile module against the target's limits ---------------------------------===//
//
// The DSL checks NKI's language-level limits at trace time; this pass checks the actual target (which a user
// may have changed: a 64x64 array, a smaller PSUM). Test: compiler/test/Transforms/verify-target.mlir
//
//===------------------------------------------------------------------------------------------------------===//

#include "tessera/compiler/Dialect/Tile/TileDialect.h"
#include "tessera/compiler/Passes.h"

#include "mlir/IR/BuiltinOps.h"

#include <algorithm>

using namespace mlir;

namespace tessera::compiler {
namespace {

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

struct VerifyTargetPass : PassWrapper<VerifyTargetPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(VerifyTargetPass)
  StringRef getName() const override { return "VerifyTarget"; }
  StringRef getArgument() const override { return "tile-verify-target"; }
  StringRef getDescription() const override { return "Check tiles and matmuls against the target's limits"; }

  void runOnOperation() override {
    const isa::Target *target = targetOf(getOperation());
    if (!target) return signalPassFailure();
    WalkResult r = getOperation().walk([&](Operation *op) {
      if (auto a = dyn_cast<tile::AllocOp>(op); a && failed(verifyAlloc(a, *target))) return WalkResult::interrupt();
      if (auto m = dyn_cast<tile::MatmulOp>(op); m && failed(verifyMatmul(m, *target))) return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (r.wasInterrupted()) signalPassFailure();
  }
};

} // namespace

std::unique_ptr<Pass> createVerifyTargetPass() { return std::make_unique<VerifyTargetPass>(); }

} // namespace tessera::compiler
