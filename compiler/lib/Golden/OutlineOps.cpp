#include "OutlineOps.h"

#include "tessera/compiler/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <string>
#include <vector>

using namespace mlir;

namespace tessera::compiler::golden {

namespace {

/// `t` with a strided layout's static offset made dynamic, so that windows of one shape at different offsets share
/// a parameter type (a memref.cast converts them); other types as they are.
Type general(Type t) {
  auto memref = llvm::dyn_cast<MemRefType>(t);
  if (!memref) return t;
  auto strided = llvm::dyn_cast<StridedLayoutAttr>(memref.getLayout());
  if (!strided || ShapedType::isDynamic(strided.getOffset())) return t;
  return MemRefType::get(memref.getShape(), memref.getElementType(),
                         StridedLayoutAttr::get(t.getContext(), ShapedType::kDynamic, strided.getStrides()),
                         memref.getMemorySpace());
}

/// The values `op` uses that are defined outside it: its operands, then those its regions use, in order.
llvm::SetVector<Value> usedFromOutside(Operation *op) {
  llvm::SetVector<Value> values(op->operand_begin(), op->operand_end());
  getUsedValuesDefinedAbove(op->getRegions(), values);
  return values;
}

/// Whether `v` is defined inside `op` (a block argument of one of its regions, or a result of an op in them).
bool definedInside(Value v, Operation *op) {
  Operation *owner = llvm::isa<BlockArgument>(v) ? llvm::cast<BlockArgument>(v).getOwner()->getParentOp()
                                                 : v.getDefiningOp();
  return owner && op->isAncestor(owner) && owner != op;
}

/// An outlined function and the op inside it that its callers are compared with.
struct Outlined {
  func::FuncOp fn;
  Operation *prototype;
};

class Outliner {
public:
  explicit Outliner(ModuleOp module) : module_(module), b_(module.getContext()) {}

  size_t run() {
    std::vector<Operation *> ops;
    // Outermost first, and nothing inside an op already taken (a generic's body has no linalg op either).
    module_.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (!llvm::isa<linalg::LinalgOp>(op) && !op->hasAttr(kOutlineAttr)) return WalkResult::advance();
      op->removeAttr(kOutlineAttr);
      ops.push_back(op);
      return WalkResult::skip();
    });
    for (Operation *op : ops) outline(op);
    return ops.size();
  }

private:
  void outline(Operation *op) {
    // Its operands at their general types first (MLIR's equivalence compares operand types).
    b_.setInsertionPoint(op);
    for (OpOperand &operand : op->getOpOperands())
      if (Type t = general(operand.get().getType()); t != operand.get().getType())
        operand.set(b_.create<memref::CastOp>(op->getLoc(), t, operand.get()));
    const llvm::SetVector<Value> used = usedFromOutside(op);
    std::string key;
    llvm::raw_string_ostream os(key);
    os << op->getName() << '(';
    for (Value v : used) os << general(v.getType()) << ',';
    std::vector<Outlined> &candidates = byKey_[os.str()];
    for (const Outlined &o : candidates)
      if (std::optional<llvm::SmallVector<Value>> args = argumentsFor(o, op)) return call(op, o.fn, *args);
    candidates.push_back(outlineNew(op, used));
    call(op, candidates.back().fn, llvm::SmallVector<Value>(used.begin(), used.end()));
  }

  /// The arguments of `o.fn` that make it do what `op` does (each of op's outside values where the prototype uses
  /// the parameter), or nullopt when the two differ in more than their outside values.
  std::optional<llvm::SmallVector<Value>> argumentsFor(const Outlined &o, Operation *op) {
    llvm::DenseMap<Value, Value> inside, outside; // prototype value -> op value
    auto check = [&](Value p, Value v) -> LogicalResult {
      if (auto it = inside.find(p); it != inside.end()) return success(it->second == v);
      if (definedInside(p, o.prototype) || definedInside(v, op) || p.getType() != general(v.getType()))
        return failure();
      auto [it, fresh] = outside.try_emplace(p, v);
      return success(it->second == v);
    };
    auto mark = [&](Value p, Value v) { inside[p] = v; };
    if (!OperationEquivalence::isEquivalentTo(o.prototype, op, check, mark, OperationEquivalence::IgnoreLocations))
      return std::nullopt;
    llvm::SmallVector<Value> args;
    func::FuncOp fn = o.fn;
    for (BlockArgument p : fn.getArguments()) {
      auto it = outside.find(p);
      if (it == outside.end()) return std::nullopt;
      args.push_back(it->second);
    }
    return args;
  }

  Outlined outlineNew(Operation *op, const llvm::SetVector<Value> &used) {
    llvm::SmallVector<Type> types;
    for (Value v : used) types.push_back(general(v.getType()));
    OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPointToEnd(module_.getBody());
    auto fn = b_.create<func::FuncOp>(op->getLoc(), kOutlinedPrefix + std::to_string(count_++),
                                      b_.getFunctionType(types, {}));
    fn.setPrivate();
    Block *body = fn.addEntryBlock();
    b_.setInsertionPointToStart(body);
    IRMapping map;
    for (auto [v, arg] : llvm::zip(used, body->getArguments())) map.map(v, arg);
    Operation *prototype = b_.clone(*op, map);
    b_.create<func::ReturnOp>(op->getLoc());
    return {fn, prototype};
  }

  /// Replaces `op` by a call of `fn` with `args`, each cast to its parameter's type.
  void call(Operation *op, func::FuncOp fn, llvm::ArrayRef<Value> args) {
    b_.setInsertionPoint(op);
    llvm::SmallVector<Value> operands;
    for (auto [v, type] : llvm::zip(args, fn.getArgumentTypes()))
      operands.push_back(v.getType() == type ? v : b_.create<memref::CastOp>(op->getLoc(), type, v).getResult());
    b_.create<func::CallOp>(op->getLoc(), fn, operands);
    op->erase();
  }

  ModuleOp module_;
  OpBuilder b_;
  std::map<std::string, std::vector<Outlined>> byKey_;
  unsigned count_ = 0;
};

} // namespace

size_t outlineStructuredOps(ModuleOp module) { return Outliner(module).run(); }

namespace {

struct GoldenOutlineOpsPass : PassWrapper<GoldenOutlineOpsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(GoldenOutlineOpsPass)
  StringRef getArgument() const override { return "golden-outline-ops"; }
  StringRef getDescription() const override {
    return "Each linalg op into a private function, shared by the ops that differ only in their operands (the golden "
           "model)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<func::FuncDialect, linalg::LinalgDialect, memref::MemRefDialect>();
  }
  void runOnOperation() override { outlineStructuredOps(getOperation()); }
};

} // namespace

} // namespace tessera::compiler::golden

namespace tessera::compiler {
std::unique_ptr<mlir::Pass> createGoldenOutlineOpsPass() { return std::make_unique<golden::GoldenOutlineOpsPass>(); }
void registerGoldenDialects(DialectRegistry &registry) { registry.insert<linalg::LinalgDialect>(); }
} // namespace tessera::compiler
