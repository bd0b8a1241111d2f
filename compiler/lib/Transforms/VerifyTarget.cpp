//===- VerifyTarget.cpp - check a tile module against the target's limits ---------------------------------===//
//
// The DSL checks NKI's language-level limits at trace time; this pass checks the actual target (which a user
// may have changed: a 64x64 array, a smaller PSUM), op by op, with the limits its family knows
// (TargetFamily::verifyTileOp: NeuronCore partitions, PSUM banks and tensor-engine sizes; TPU the MXU's element
// types). Test: compiler/test/Transforms/verify-target.mlir, verify-target-tpu.mlir
//
//===------------------------------------------------------------------------------------------------------===//

#include "Targets/TargetFamily.h"
#include "tessera/compiler/Dialect/Settings.h"
#include "tessera/compiler/Dialect/Tile/TileDialect.h"
#include "tessera/compiler/Passes.h"
#include "tessera/isa/InstructionSet.h"

#include "mlir/IR/BuiltinOps.h"

#include <algorithm>

using namespace mlir;

namespace tessera::compiler {
namespace {

struct VerifyTargetPass : PassWrapper<VerifyTargetPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(VerifyTargetPass)
  StringRef getName() const override { return "VerifyTarget"; }
  StringRef getArgument() const override { return "tile-verify-target"; }
  StringRef getDescription() const override { return "Check tiles and matmuls against the target's limits"; }

  void runOnOperation() override {
    const isa::Target *target = targetOf(getOperation());
    if (!target) return signalPassFailure();
    const TargetFamily &family = targetFamily(*target);
    WalkResult r = getOperation().walk([&](Operation *op) {
      return failed(family.verifyTileOp(op, *target)) ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (r.wasInterrupted()) signalPassFailure();
  }
};

} // namespace

std::unique_ptr<Pass> createVerifyTargetPass() { return std::make_unique<VerifyTargetPass>(); }

} // namespace tessera::compiler
