//===- Pipeline.cpp - the compiler's stages, listed once --------------------------------------------------===//
//
//   DSL kernel graph --import--> tile
//     --the family's legalisation, verify-target, allocate-memory--> tile (placed)
//     --the family's lowering (NeuronCore: lower-tile-to-nc, verify-access, nc-schedule-instructions; TPU:
//       lower-tile-to-tpu)--> the family's dialect --insert-semaphores--> (synchronised)
//   --toProgram--> isa::Program
// The target's family (TargetFamily, lib/Targets/) gives its stages; the tile stages are shared, and read the target.
//
//===------------------------------------------------------------------------------------------------------===//

#include "ErrorCollector.h"
#include "Export/ToTileProgram.h"
#include "tessera/compiler/Dialect/Settings.h"
#include "Import/ForwardReferences.h"
#include "Import/Nesting.h"
#include "Targets/TargetFamily.h"
#include "Transforms/TileUnroller.h"
#include "tessera/compiler/Compiler.h"
#include "tessera/compiler/Dialect/Tile/TileDialect.h"
#include "tessera/compiler/ImportGraph.h"
#include "tessera/compiler/Passes.h"
#include "tessera/compiler/ToProgram.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

#include <map>
#include <mutex>

using namespace mlir;

namespace tessera::compiler {

namespace {

std::string print(ModuleOp module, bool locations = false) {
  std::string text;
  llvm::raw_string_ostream os(text);
  OpPrintingFlags flags;
  if (locations) flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
  module.print(os, flags);
  return text;
}

/// How a module names its target: by name when the name finds this very file, else by path (a user's copy).
std::string targetReference(const isa::Target &target) {
  try {
    if (isa::Target::find(target.name).file == target.file) return target.name;
  } catch (const Error &) {
  }
  return target.file.string();
}


/// The tile stages: from the kernel as imported to tiles placed in memory.
void addTileStages(OpPassManager &pm, const TargetFamily &family, unsigned loopBuffers) {
  family.addLegalization(pm);
  pm.addPass(createVerifyTargetPass());
  pm.addPass(createAllocateMemoryPass(loopBuffers));
}

/// The target stages: from placed tiles to synchronised instructions of the family's dialect.
void addTargetStages(OpPassManager &pm, const TargetFamily &family, const LoweringOptions &options) {
  family.addLowering(pm, options);
  pm.addPass(createInsertSemaphoresPass());
}

/// tessera-pipeline: every stage `tessera compile` runs, for the family of the module's target.
struct WholePipelinePass : PassWrapper<WholePipelinePass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(WholePipelinePass)
  StringRef getName() const override { return "WholePipeline"; }
  StringRef getArgument() const override { return "tessera-pipeline"; }
  StringRef getDescription() const override {
    return "The whole pipeline, tile to synchronised instructions, as `tessera compile` runs it for the module's "
           "target";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    for (const TargetFamily *family : targetFamilies()) family->registerDialects(registry);
  }
  void runOnOperation() override {
    const isa::Target *target = targetOf(getOperation());
    if (!target) return signalPassFailure();
    const TargetFamily &family = targetFamily(*target);
    OpPassManager pm(ModuleOp::getOperationName());
    addTileStages(pm, family, CompileOptions{}.loopBuffers);
    addTargetStages(pm, family, {});
    if (failed(runPipeline(pm, getOperation()))) signalPassFailure();
  }
};

/// The kernel's tiles and tile ops, numbered as the lowering numbers them (numberTileOps), from the placed tile
/// module: the part of Provenance that the lowering's origins point into.
void describeTiles(ModuleOp module, const isa::Target &target, Provenance &out) {
  const TargetFamily &family = targetFamily(target);
  for (auto fn : module.getOps<func::FuncOp>()) {
    Block &body = fn.getBody().front();
    llvm::DenseMap<Operation *, int64_t> numbers = numberTileOps(body);
    out.tileOps.assign(numbers.size(), {});
    llvm::DenseMap<Operation *, int32_t> allocations;
    auto allocationIndex = [&](tile::AllocOp alloc) {
      auto [it, fresh] = allocations.try_emplace(alloc, static_cast<int32_t>(out.allocations.size()));
      if (!fresh) return it->second;
      MemRefType t = alloc.getType();
      TileAllocation a;
      a.name = alloc.getName() ? alloc.getName()->str() : fmt::format("t{}", it->second);
      a.space = family.tileSpace(tile::memorySpaceOf(t));
      a.dtype = compiler::dtypeOf(t.getElementType()).value_or(isa::DType::F32);
      a.rows = t.getDimSize(0);
      a.cols = t.getDimSize(1);
      a.offset = alloc.getOffset().value_or(0);
      a.bufs = alloc.getBufs().value_or(1);
      a.copyBytes = family.tileCopyBytes(t, target);
      a.pitch = family.tilePitch(t, target);
      a.fixed = alloc.getFixed();
      a.loc = sourceOf(alloc.getLoc());
      if (auto loop = alloc->getParentOfType<scf::ForOp>(); loop && numbers.count(loop))
        a.loop = static_cast<int32_t>(numbers.lookup(loop));
      out.allocations.push_back(std::move(a));
      return it->second;
    };
    std::vector<Operation *> ops(numbers.size());
    for (auto [op, number] : numbers) ops[number] = op;
    for (size_t number = 0; number < ops.size(); ++number) { // in order: allocations are numbered as they come
      Operation *op = ops[number];
      TileOpRecord &record = out.tileOps[number];
      record.op = op->getName().getStringRef().str();
      record.loc = sourceOf(op->getLoc());
      if (auto loop = op->getParentOfType<scf::ForOp>(); loop && numbers.count(loop))
        record.loop = static_cast<int32_t>(numbers.lookup(loop));
      if (auto loop = llvm::dyn_cast<scf::ForOp>(op)) {
        auto constant = [](Value v) -> std::optional<int64_t> {
          if (auto c = v.getDefiningOp<arith::ConstantIndexOp>()) return c.value();
          return std::nullopt;
        };
        auto lb = constant(loop.getLowerBound()), ub = constant(loop.getUpperBound()), step = constant(loop.getStep());
        if (lb && ub && step && *step > 0) record.trips = *ub > *lb ? (*ub - *lb + *step - 1) / *step : 0;
        if (auto axis = loop->getAttrOfType<IntegerAttr>(tile::kSpmdAxisAttr)) record.spmdAxis = axis.getInt();
      }
      llvm::SmallVector<Value> tiles(op->getOperands());
      if (auto alloc = llvm::dyn_cast<tile::AllocOp>(op)) tiles.push_back(alloc.getResult());
      for (Value v : tiles)
        if (tile::AllocOp alloc = tile::rootAllocation(v)) {
          const int32_t index = allocationIndex(alloc);
          if (!llvm::is_contained(record.allocations, index)) record.allocations.push_back(index);
        }
    }
  }
}

} // namespace

void registerDialects(DialectRegistry &registry) {
  registry.insert<tile::TileDialect, func::FuncDialect, scf::SCFDialect, arith::ArithDialect, memref::MemRefDialect>();
  for (const TargetFamily *family : targetFamilies()) family->registerDialects(registry);
  registerGoldenDialects(registry);
}

void registerPasses() {
  PassRegistration<Pass>([] { return createVerifyTargetPass(); });
  PassRegistration<Pass>([] { return createAllocateMemoryPass(); });
  PassRegistration<Pass>([] { return createInsertSemaphoresPass(); });
  PassRegistration<Pass>([] { return createLowerTileToLinalgPass(); }); // the golden model (lib/Golden/)
  PassRegistration<Pass>([] { return createGoldenOutlineOpsPass(); });
  for (const TargetFamily *family : targetFamilies()) family->registerPasses();
  PassRegistration<WholePipelinePass>();
}

const isa::Target *targetOf(Operation *module) {
  static std::mutex mutex;
  static std::map<std::string, isa::Target> cache;
  auto name = module->getAttrOfType<StringAttr>(tile::kTargetAttr);
  if (!name) {
    module->emitError() << "the module names no target: add `attributes {" << tile::kTargetAttr << " = \"trn2\"}`";
    return nullptr;
  }
  std::lock_guard lock(mutex);
  auto it = cache.find(name.str());
  if (it != cache.end()) return &it->second;
  try {
    return &cache.emplace(name.str(), isa::Target::find(name.str())).first->second;
  } catch (const Error &e) {
    module->emitError() << (e.where().known() ? e.where().str() + ": " : "") << e.message();
    return nullptr;
  }
}

/// Imports a kernel and folds the repeated index constants the importer creates (CSE).
static OwningOpRef<ModuleOp> importKernel(MLIRContext &ctx, ErrorCollector &errors,
                                          const tsr::graph::KernelGraph &kernel,
                                          const isa::Target &target) {
  OwningOpRef<ModuleOp> module = importGraph(ctx, kernel, targetReference(target));
  if (failed(mlir::verify(*module))) errors.raise("import");
  PassManager pm(&ctx);
  pm.addPass(mlir::createCSEPass());
  if (failed(pm.run(*module))) errors.raise("import");
  return module;
}

std::string importToText(const tsr::graph::KernelGraph &kernel, const isa::Target &target) {
  MLIRContext ctx;
  ctx.disableMultithreading();
  ErrorCollector errors(ctx, "the compiler");
  return print(*importKernel(ctx, errors, kernel, target));
}

/// Runs the passes from the tile stage on (`fromTile`) or only the checks of a target-level module read from a
/// file, keeping what `options` asks for.
static CompileResult runStages(MLIRContext &ctx, ErrorCollector &errors, ModuleOp module, bool fromTile,
                               const CompileOptions &options) {
  CompileResult result;
  const isa::Target *target = targetOf(module);
  if (!target) errors.raise("target");
  const TargetFamily &family = targetFamily(*target);
  PassManager tilePm(&ctx);
  addTileStages(tilePm, family, options.loopBuffers);
  PassManager targetPm(&ctx);
  const bool provenance = options.recordProvenance && fromTile;
  const bool schedule = options.scheduleInstructions || module->hasAttr(tile::kScheduleAttr);
  addTargetStages(targetPm, family,
                  {.maxInstructions = options.maxInstructions, .recordOrigins = provenance, .schedule = schedule});
  // The target stages unroll the kernel: a module of one op per instruction (134,144 for matmul 8192^3 on trn2),
  // which MLIR's verifier, run after every pass, took a third of the compile time to walk. A release build runs it
  // once, after the last of them (each pass's own output is verified by its lit tests, and by the sanitizer
  // build's run of the suite: TESSERA_VERIFY_EACH_PASS).
#ifndef TESSERA_VERIFY_EACH_PASS
  targetPm.enableVerifier(false);
#endif
  PassManager checkPm(&ctx); // a module read from a file: its instructions are checked as written
  family.addChecks(checkPm);
  if (options.printIrAfterAll)
    for (PassManager *pm : {&tilePm, &targetPm})
      pm->enableIRPrinting([](Pass *, Operation *) { return false; }, [](Pass *, Operation *) { return true; },
                           /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/false);
  if (fromTile) {
    if (failed(tilePm.run(module))) errors.raise("tile");
    if (options.keepTileIr) result.tileIr = print(module, options.printLocations);
    if (provenance) describeTiles(module, *target, result.provenance);
    PassManager planPm(&ctx);
    OwningOpRef<ModuleOp> planned; // the placed module, for the device backend's plan once lowering succeeded
    if (provenance && family.addDeviceCodePlanning(planPm, options.launchGrid)) planned = module.clone();
    if (failed(targetPm.run(module)) || failed(mlir::verify(module)))
      errors.raise(std::string(family.family().stage()).c_str());
    if (planned) {
      if (failed(planPm.run(*planned))) errors.raise("plan");
      for (auto fn : planned->getOps<func::FuncOp>()) result.tileProgram = toTileProgram(fn);
      result.tileProgram.launchGrid = options.launchGrid;
    }
  } else if (failed(checkPm.run(module))) {
    errors.raise(std::string(family.family().stage()).c_str());
  }
  if (options.keepNcIr) result.ncIr = print(module, options.printLocations);
  for (auto fn : module.getOps<func::FuncOp>()) {
    if (auto peak = fn->getAttrOfType<IntegerAttr>("tile.sbuf_peak")) result.sbufPeakBytes = peak.getInt();
    if (auto peak = fn->getAttrOfType<IntegerAttr>("tile.psum_peak")) result.psumPeakBytes = peak.getInt();
    if (auto peak = fn->getAttrOfType<IntegerAttr>("tile.vmem_peak")) result.vmemPeakBytes = peak.getInt();
  }
  result.notes = errors.notes();
  result.program = toProgram(module, provenance ? &result.provenance.order : nullptr);
  return result;
}

CompileResult compile(const tsr::graph::KernelGraph &kernel, const isa::Target &target,
                      const CompileOptions &options) {
  MLIRContext ctx;
  ctx.disableMultithreading(); // one kernel at a time; 2-core CI machines gain nothing from threads here
  ErrorCollector errors(ctx, "the compiler");
  OwningOpRef<ModuleOp> module = importKernel(ctx, errors, kernel, target);
  return runStages(ctx, errors, *module, /*fromTile=*/true, options);
}

CompileResult compileFile(const std::string &path, const CompileOptions &options) {
  DialectRegistry registry;
  registerDialects(registry);
  MLIRContext ctx(registry);
  ctx.disableMultithreading();
  ErrorCollector errors(ctx, "the compiler");
  llvm::SourceMgr sources;
  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(path);
  if (!buffer) throw Error(fmt::format("cannot read '{}': {}", path, buffer.getError().message()));
  if (std::optional<DeepNesting> deep = findDeepNesting((*buffer)->getBuffer()))
    throw Error(fmt::format("brackets nest more than {} levels deep", kMaxNesting),
                SourceLoc{path, deep->line, deep->column},
                "a Tessera module nests a few dozen levels at most: check that the file is the module you meant");
  if (std::optional<ForwardReference> early = findForwardReference((*buffer)->getBuffer()))
    throw Error(fmt::format("{} is used before it is defined", early->name), SourceLoc{path, early->line, early->column},
                "define every value above its uses: a Tessera module has one block per region");
  sources.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sources, &ctx);
  if (!module) errors.raise("parse");
  if (!targetOf(*module)) errors.raise("target");
  bool tileLevel = false;
  module->walk([&](Operation *op) {
    if (op->getDialect() && llvm::isa<tile::TileDialect>(op->getDialect())) tileLevel = true;
  });
  return runStages(ctx, errors, *module, tileLevel, options);
}

} // namespace tessera::compiler
