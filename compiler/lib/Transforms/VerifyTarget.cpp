//===- VerifyTarget.cpp - check a tile module against the target's limits ---------------------------------===//
//
// The DSL checks NKI's language-level limits at trace time; this pass checks the actual target (which a user
// may have changed: a 64x64 array, a smaller PSUM). On a TPU none of the NeuronCore's limits apply (Mosaic tiles
// a matmul or a tile of any shape, and allocate-memory checks VMEM); what the TPU checks is the MXU's element
// types (mxu_matmul's definition). Test: compiler/test/Transforms/verify-target.mlir, verify-target-tpu.mlir
//
//===------------------------------------------------------------------------------------------------------===//

#include "tessera/compiler/Dialect/Nc/NcDialect.h"
#include "tessera/compiler/Dialect/Tile/TileDialect.h"
#include "tessera/compiler/Passes.h"
#include "tessera/isa/InstructionSet.h"

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

/// The MXU's rules, its element types above all, from mxu_matmul's definition: the matmul's tiles as if in VMEM.
LogicalResult verifyMxuMatmul(tile::MatmulOp op, const isa::Target &t) {
  auto pattern = [](Value tile) {
    auto type = llvm::cast<MemRefType>(tile.getType());
    return isa::AccessPattern::dense(isa::MemSpace::Vmem, *nc::toIsa(type.getElementType()), 0,
                                     static_cast<uint32_t>(type.getDimSize(0)), 0, type.getDimSize(1));
  };
  isa::Instruction i;
  i.op = isa::Opcode::MxuMatmul;
  i.accumulate = op.getAccumulate();
  i.src0 = pattern(op.getStationary());
  i.src1 = pattern(op.getMoving());
  i.dst = pattern(op.getAcc());
  if (std::string problem = isa::verifyInstruction(i, isa::Engine::Mxu, &t); !problem.empty())
    return op.emitError() << "matmul on " << t.name << ": " << problem;
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
      if (target->isTpu()) {
        auto m = dyn_cast<tile::MatmulOp>(op);
        return m && failed(verifyMxuMatmul(m, *target)) ? WalkResult::interrupt() : WalkResult::advance();
      }
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
