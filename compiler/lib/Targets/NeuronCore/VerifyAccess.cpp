//===- VerifyAccess.cpp - engine access patterns against the target's access rules -----------------------===//
//
// Every SBUF/PSUM operand of an engine instruction (not a DMA: DMA descriptors have their own rules) must keep
// the target's [access] rules: its partitions start at an aligned quadrant, and it has at most max_free_dims
// free dimensions, uint16 sizes, int16 strides and the elements per partition SBUF or PSUM allow. The rules are
// isa::accessRuleViolation, which the simulator's program checks ask too; here a broken rule is an error at the
// instruction's location, the kernel source line it came from.
// Test: compiler/test/Transforms/verify-access.mlir
//
//===------------------------------------------------------------------------------------------------------===//

#include "NeuronCore/NcDialect.h"
#include "tessera/compiler/Passes.h"
#include "Targets/TargetFamily.h"
#include "NeuronCore/Passes.h"
#include "tessera/isa/AccessRules.h"

#include "mlir/IR/BuiltinOps.h"

using namespace mlir;

namespace tessera::compiler {
namespace {

/// Checks one operand; emits the error and returns failure when it breaks a rule.
LogicalResult verifyOperand(Operation *op, isa::Engine engine, const char *operand, const isa::AccessPattern &ap,
                            const isa::Target &target) {
  if (ap.partitions == 0 || !isa::accessRulesApply(engine, ap)) return success();
  std::optional<std::string> broken = isa::accessRuleViolation(ap, target);
  if (!broken) return success();
  return op->emitError() << "operand " << operand << " (" << isa::name(ap.space) << " partitions ["
                         << ap.partitionStart << ", " << ap.partitionStart + ap.partitions
                         << ")) breaks the access rules of " << target.name << ": it " << *broken;
}

LogicalResult verifyInstruction(Operation *op, const isa::Target &target) {
  std::optional<isa::Engine> engine = nc::engineOf(op);
  if (!engine) return success();
  const isa::Instruction inst = nc::toInstruction(op);
  LogicalResult result = success();
  isa::forEachOperand(inst, [&](const char *role, const isa::AccessPattern &ap, bool) {
    if (succeeded(result)) result = verifyOperand(op, *engine, role, ap, target);
  });
  return result;
}

struct VerifyAccessPass : PassWrapper<VerifyAccessPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(VerifyAccessPass)
  StringRef getName() const override { return "VerifyAccess"; }
  StringRef getArgument() const override { return "nc-verify-access"; }
  StringRef getDescription() const override {
    return "Check engine instructions' SBUF/PSUM access patterns against the target's access rules";
  }

  void runOnOperation() override {
    const isa::Target *target = targetOf(getOperation());
    if (!target) return signalPassFailure();
    bool failedAny = false;
    getOperation().walk([&](Operation *op) {
      if (op->getDialect() && llvm::isa<nc::NcDialect>(op->getDialect()) && failed(verifyInstruction(op, *target)))
        failedAny = true;
    });
    if (failedAny) signalPassFailure();
  }
};

} // namespace

std::unique_ptr<Pass> createVerifyAccessPass() { return std::make_unique<VerifyAccessPass>(); }

} // namespace tessera::compiler
