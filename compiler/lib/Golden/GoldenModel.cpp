//===- GoldenModel.cpp - a kernel JIT-compiled for the host CPU: the reference for every kernel ------------===//
//
//   kernel graph --import--> tile --tile-to-linalg--> linalg/memref/arith/math/scf
//     --golden-outline-ops (each linalg op in a shared function, OutlineOps.h)--> calls
//     --linalg -> loops, strided metadata, affine -> arith, scf -> cf, bf16 expansion, * -> llvm,
//       canonicalize (descriptor inserts and extracts folded)--> LLVM dialect
//     --ExecutionEngine (LLVM ORC JIT, host CPU, no IR optimisation; the kernel's own function, glue, without
//       code-generation optimisation either)--> called with memref descriptors of the caller's buffers
// Matmuls call the simulator's tile GEMM (GoldenRuntime.h), a symbol this file gives the JIT.
//
// Linear in the kernel's ops: the outlined functions are as many as the kinds of op, whatever their number; the
// glue grows with the ops, one call each, and is compiled by FastISel (optnone), one pass over it, where
// SelectionDAG's combines on one block of thousands of calls took more than linear time (GoldenWork, GoldenTest).
//
// bf16 conversions become integer code (arith-expand include-bf16: libgcc 12 has no __truncsfbf2); fp8 is
// already integer code after tile-to-linalg. math.exp becomes a call of libm's expf, resolved in this process.
//
//===------------------------------------------------------------------------------------------------------===//

#include "../ErrorCollector.h"
#include "BuildIdentity.h"
#include "GoldenObjectCache.h"
#include "GoldenRuntime.h"
#include "OutlineOps.h"
#include "tessera/compiler/Golden.h"
#include "tessera/isa/MatrixShape.h"

#include "tessera/compiler/Dialect/Tile/TileDialect.h"
#include "tessera/compiler/ImportGraph.h"
#include "tessera/compiler/Passes.h"
#include "tessera/compiler/ToProgram.h"
#include "tessera/isa/InstructionSet.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/RTDyldObjectLinkingLayer.h"
#include "llvm/ExecutionEngine/SectionMemoryManager.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

#include <mutex>
#include <optional>
#include <variant>

using namespace mlir;

namespace mlir {
// Declared in mlir/Dialect/Linalg/Passes.h, which pulls in all of linalg's transforms: about a third of this
// file's compile time on the 2-core CI machine, for one function.
std::unique_ptr<Pass> createConvertLinalgToLoopsPass();
} // namespace mlir

namespace tessera::compiler {
namespace {


/// The first op in `block` (or its loops) recorded as a tile.inst instruction, or null.
const tsr::graph::Op *firstInstruction(const tsr::graph::Block &block) {
  for (const tsr::graph::Stmt &stmt : block.stmts) {
    if (const auto *op = std::get_if<tsr::graph::Op>(&stmt); op && op->kind == tsr::graph::OpKind::Instruction)
      return op;
    if (const auto *loop = std::get_if<tsr::graph::Loop>(&stmt))
      if (const tsr::graph::Op *inner = firstInstruction(loop->body)) return inner;
  }
  return nullptr;
}

/// The model lowers the language-level ops, on every dtype (tile-to-linalg: fp8 as its bits in i8, integers as
/// integers of their width); the engine instructions a kernel records with tsr::isa calls (tile.inst) are checked
/// against their definitions' reference semantics and the kernel's own reference.
void checkSupported(const tsr::graph::KernelGraph &kernel) {
  if (const tsr::graph::Op *op = firstInstruction(kernel.body))
    throw GoldenUnsupported(fmt::format("the golden model does not implement tsr::isa::{} (kernel {}, {})",
                                        isa::definition(op->settings.op).nki.substr(std::string_view("nki.isa.").size()),
                                        kernel.name, op->loc.str()));
}

/// The kernel as imported for the host: everything its golden model's code depends on, besides the lowering's code.
OwningOpRef<ModuleOp> imported(MLIRContext &ctx, ErrorCollector &errors, const tsr::graph::KernelGraph &kernel) {
  checkSupported(kernel);
  OwningOpRef<ModuleOp> module = importGraph(ctx, kernel, "host");
  if (failed(mlir::verify(*module))) errors.raise("import");
  return module;
}

/// An imported kernel lowered by tile-to-linalg, in place.
void toLinalg(MLIRContext &ctx, ErrorCollector &errors, ModuleOp module) {
  PassManager pm(&ctx);
  pm.addPass(createCSEPass());
  pm.addPass(createLowerTileToLinalgPass());
  if (failed(pm.run(module))) errors.raise("tile-to-linalg");
}

/// Whether `fn` holds ops outlined from the kernel's function (OutlineOps.h).
bool isOutlined(LLVM::LLVMFuncOp fn) { return fn.getName().starts_with(golden::kOutlinedPrefix); }

/// linalg -> LLVM dialect, and the kernel function made callable from C with memref descriptors. Returns how many
/// ops became calls of outlined functions.
size_t toLlvm(MLIRContext &ctx, ErrorCollector &errors, ModuleOp module) {
  // The kernel's attributes mean nothing to LLVM; the C interface takes one descriptor pointer per tensor.
  module->removeAttr(tile::kTargetAttr);
  module.walk([&](func::FuncOp fn) {
    for (unsigned i = 0; i < fn.getNumArguments(); ++i) fn.setArgAttrs(i, DictionaryAttr::get(&ctx));
    fn->setAttr("llvm.emit_c_interface", UnitAttr::get(&ctx));
  });
  module.walk([&](memref::AllocOp a) { a->removeAttr(tile::kTensorNameAttr); });

  const size_t outlined = golden::outlineStructuredOps(module);
  PassManager pm(&ctx);
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertSCFToCFPass());
  pm.addPass(arith::createArithExpandOpsPass({.includeBf16 = true}));
  pm.addPass(createConvertMathToLibmPass()); // tanh, erf, pow: calls into the host's libm
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  // Folds the memref descriptors' llvm.insertvalue / extractvalue chains around each call: FastISel (below) does
  // not select aggregates and would leave the glue to SelectionDAG. No region simplification: it compares blocks
  // pairwise.
  GreedyRewriteConfig fold;
  fold.enableRegionSimplification = GreedySimplifyRegionLevel::Disabled;
  pm.addPass(createCanonicalizerPass(fold));
  // A kernel of many ops is one function of as many loop nests, which MLIR's verifier, run after each of these
  // passes, walked for about a sixth of the golden model's time (1,024 column copies: 1.8 s); a release build
  // verifies once, at the end (the sanitizer build after every pass, as the compiler's pipeline does).
#ifndef TESSERA_VERIFY_EACH_PASS
  pm.enableVerifier(false);
#endif
  if (failed(pm.run(module)) || failed(mlir::verify(module))) errors.raise("LLVM lowering");

  // The glue (the kernel's function and its C interface: calls, addresses, loops) is compiled without
  // optimisation, FastISel and the fast register allocator, in time linear in its size; the outlined functions,
  // where the elements are computed, with it.
  module.walk([](LLVM::LLVMFuncOp fn) {
    if (fn.isExternal() || isOutlined(fn)) return;
    fn.setNoInline(true); // LLVM's verifier: optnone needs noinline
    fn.setOptimizeNone(true);
  });
  return outlined;
}

/// The ops of `fn`'s body.
size_t opsIn(LLVM::LLVMFuncOp fn) {
  size_t ops = 0;
  fn.getBody().walk([&](Operation *) { ++ops; });
  return ops;
}

/// What `module` (lowered to the LLVM dialect by toLlvm) asks the JIT to compile.
GoldenWork workOf(ModuleOp module, size_t outlinedOps) {
  GoldenWork work{.outlinedOps = outlinedOps};
  module.walk([&](LLVM::LLVMFuncOp fn) {
    if (fn.isExternal()) return;
    if (fn.getOptimizeNone()) {
      work.glueOps += opsIn(fn);
      return;
    }
    ++work.functions;
    work.optimizedOps += opsIn(fn);
  });
  return work;
}

/// The ops of `block` and its loops, each once.
size_t opsIn(const tsr::graph::Block &block) {
  size_t ops = 0;
  for (const tsr::graph::Stmt &stmt : block.stmts) {
    if (std::holds_alternative<tsr::graph::Op>(stmt)) ++ops;
    if (const auto *loop = std::get_if<tsr::graph::Loop>(&stmt)) ops += opsIn(loop->body);
  }
  return ops;
}

std::string print(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  return text;
}

std::string describe(llvm::Error e) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << e;
  return text;
}

/// A ranked memref descriptor as the C interface takes it: {allocated, aligned, offset, sizes[R], strides[R]}.
std::vector<int64_t> descriptor(std::byte *data, const std::vector<int64_t> &shape) {
  std::vector<int64_t> d{reinterpret_cast<int64_t>(data), reinterpret_cast<int64_t>(data), 0};
  d.insert(d.end(), shape.begin(), shape.end());
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
  d.insert(d.end(), strides.begin(), strides.end());
  return d;
}

} // namespace

/// The golden model as the JIT compiled it.
class JitGoldenModel final : public GoldenModel {
public:
  /// Compiled by `engine` (made in `ctx`), or loaded from the object cache by `loaded`: either holds the code.
  JitGoldenModel(const tsr::graph::KernelGraph &kernel, std::unique_ptr<MLIRContext> ctx,
                 std::unique_ptr<ExecutionEngine> engine, std::unique_ptr<llvm::orc::LLJIT> loaded,
                 void (*entry)(void **))
      : kernel_(kernel.name), tensors_(kernel.tensors), ctx_(std::move(ctx)), engine_(std::move(engine)),
        loaded_(std::move(loaded)), entry_(entry) {}
  void run(std::vector<std::vector<std::byte>> &tensors) const override;

private:
  std::string kernel_;
  std::vector<tsr::graph::TensorArg> tensors_;
  std::unique_ptr<MLIRContext> ctx_; // kept as long as the JIT that was made in it
  std::unique_ptr<ExecutionEngine> engine_;
  std::unique_ptr<llvm::orc::LLJIT> loaded_;
  void (*entry_)(void **); // the kernel's packed C interface, compiled
};

/// The host functions the golden model's code calls (GoldenRuntime.h), under the names the JIT looks up.
llvm::orc::SymbolMap runtimeSymbols(llvm::orc::MangleAndInterner &mangle) {
  const auto symbol = [&](std::string_view name, void *address) {
    return std::pair(mangle(llvm::StringRef(name.data(), name.size())),
                     llvm::orc::ExecutorSymbolDef(llvm::orc::ExecutorAddr::fromPtr(address),
                                                  llvm::JITSymbolFlags::Exported));
  };
  llvm::orc::SymbolMap symbols;
  symbols.insert(symbol(golden::kGoldenMatmulSymbol, golden::goldenMatmulAddress()));
  symbols.insert(symbol(golden::kGoldenCopySymbol, golden::goldenCopyAddress()));
  symbols.insert(symbol(golden::kTruncSfBf2Symbol, reinterpret_cast<void *>(&golden::tessera_truncsfbf2)));
  return symbols;
}

/// The settings of the code generation below, as the object cache's key takes them.
constexpr std::string_view kCodeGeneration = "IR O0 (optnone glue), code generation Less, ExecutionEngine objects";

/// The symbol of the kernel's packed interface (ExecutionEngine::lookupPacked's name for its C interface).
std::string packedEntryName(const std::string &kernel) { return "_mlir__mlir_ciface_" + kernel; }

/// `object` (compiled before from this kernel's module) linked into a JIT of its own as the ExecutionEngine links
/// what it compiles (RuntimeDyld, this process's symbols, the runtime's): an error when it does not link.
llvm::Expected<std::unique_ptr<GoldenModel>> loadObject(const tsr::graph::KernelGraph &kernel,
                                                        std::unique_ptr<llvm::MemoryBuffer> object) {
  auto machineBuilder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!machineBuilder) return machineBuilder.takeError();
  auto jit = llvm::orc::LLJITBuilder()
                 .setJITTargetMachineBuilder(std::move(*machineBuilder))
                 .setObjectLinkingLayerCreator([](llvm::orc::ExecutionSession &session, const llvm::Triple &) {
                   return std::make_unique<llvm::orc::RTDyldObjectLinkingLayer>(
                       session, [] { return std::make_unique<llvm::SectionMemoryManager>(); });
                 })
                 .create();
  if (!jit) return jit.takeError();
  llvm::orc::JITDylib &main = (*jit)->getMainJITDylib();
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!process) return process.takeError();
  main.addGenerator(std::move(*process));
  llvm::orc::MangleAndInterner mangle((*jit)->getExecutionSession(), (*jit)->getDataLayout());
  if (llvm::Error e = main.define(llvm::orc::absoluteSymbols(runtimeSymbols(mangle)))) return std::move(e);
  if (llvm::Error e = (*jit)->addObjectFile(std::move(object))) return std::move(e);
  auto entry = (*jit)->lookup(packedEntryName(kernel.name));
  if (!entry) return entry.takeError();
  auto *function = entry->toPtr<void (*)(void **)>();
  return std::make_unique<JitGoldenModel>(kernel, nullptr, nullptr, std::move(*jit), function);
}

std::unique_ptr<GoldenModel> compileGolden(const tsr::graph::KernelGraph &kernel, const GoldenStageCallback &stage,
                                           GoldenWork *work) {
  const auto begin = [&](const std::string &what) {
    if (stage) stage(what);
  };
  static std::once_flag nativeTarget;
  std::call_once(nativeTarget, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });

  auto context = std::make_unique<MLIRContext>();
  MLIRContext &ctx = *context;
  ctx.disableMultithreading(); // one kernel at a time; 2-core CI machines gain nothing from threads here
  ErrorCollector errors(ctx, "the golden model", "golden model: ");
  OwningOpRef<ModuleOp> module = imported(ctx, errors, kernel);

  // Compiled before on this host: loaded (a few milliseconds) instead of compiled. The key is the module as imported
  // where the lowering's libraries have build IDs (BuildIdentity.h), and a hit skips the lowering too (conv2d at its
  // defaults: 25 ms); else, or when `work` is asked for, the module as lowered.
  const std::optional<golden::GoldenObjectCache> cache = golden::GoldenObjectCache::fromEnvironment();
  const std::optional<std::string> &lowering = golden::loweringIdentity();
  const bool keyedAsImported = cache && lowering && !work;
  std::string key;
  const auto loadCached = [&]() -> std::unique_ptr<GoldenModel> {
    std::optional<std::string> object = cache->load(key);
    if (!object) return nullptr;
    begin("loading its host code, compiled before");
    llvm::Expected<std::unique_ptr<GoldenModel>> loaded =
        loadObject(kernel, llvm::MemoryBuffer::getMemBufferCopy(*object, "golden-model-object"));
    if (loaded) return std::move(*loaded);
    llvm::consumeError(loaded.takeError()); // a damaged entry: compiled again below, and replaced
    return nullptr;
  };
  if (keyedAsImported) {
    key = golden::GoldenObjectCache::keyOf(print(*module), fmt::format("{}; imported, lowered by {}", kCodeGeneration,
                                                                      *lowering));
    if (std::unique_ptr<GoldenModel> model = loadCached()) return model;
  }

  begin(fmt::format("lowering {} ops to host code", opsIn(kernel.body)));
  toLinalg(ctx, errors, *module);
  const size_t outlined = toLlvm(ctx, errors, *module);
  if (work) *work = workOf(*module, outlined);
  registerBuiltinDialectTranslation(ctx);
  registerLLVMDialectTranslation(ctx);
  if (cache && !keyedAsImported) {
    key = golden::GoldenObjectCache::keyOf(print(*module), kCodeGeneration);
    if (std::unique_ptr<GoldenModel> model = loadCached()) return model;
  }

  // For the host CPU, with no IR optimisation and light code generation (-O1): LLVM's loop passes at -O1 and -O2
  // (unrolling, induction variables) grow faster than linearly in a function's loops, and a kernel is one function
  // of a few hundred loop nests. Measured on conv2d at its defaults on trn2: 0.92 s of golden model at -O2, 0.41 s
  // at this level, against 0.03 s of simulation; at N=4, C=F=256, H=W=64, 13.2 s against 2.7 s. The hot loops are
  // the matmuls, which call the tile GEMM (GoldenRuntime.h); elementwise kernels at large shapes lose a little
  // (softmax R=8192, C=2048: 0.23 -> 0.39 s, beside 0.36 s of simulation on another thread).
  auto machineBuilder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!machineBuilder) throw Error("golden model: no host target: " + describe(machineBuilder.takeError()));
  auto machine = machineBuilder->createTargetMachine();
  if (!machine) throw Error("golden model: no host target machine: " + describe(machine.takeError()));
  auto optimize = makeOptimizingTransformer(/*optLevel=*/0, /*sizeLevel=*/0, machine->get());
  ExecutionEngineOptions options;
  options.transformer = optimize;
  options.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Less;
  options.enableGDBNotificationListener = false;
  options.enablePerfNotificationListener = false;
  options.enableObjectDump = cache.has_value(); // keeps the object, for the cache
  begin("compiling for the host");
  auto engine = ExecutionEngine::create(*module, options, std::move(*machine));
  if (!engine) throw Error("golden model: JIT compilation failed: " + describe(engine.takeError()));
  (*engine)->registerSymbols([](llvm::orc::MangleAndInterner mangle) { return runtimeSymbols(mangle); });
  // The JIT compiles the module when the kernel is first looked up: here, so that running is only running.
  auto entry = (*engine)->lookup(packedEntryName(kernel.name));
  if (!entry) throw Error("golden model: calling the kernel failed: " + describe(entry.takeError()));
  if (cache)
    cache->store(key, [&](const std::string &path) {
      (*engine)->dumpToObjectFile(path);
      return true;
    });
  return std::make_unique<JitGoldenModel>(kernel, std::move(context), std::move(*engine), nullptr,
                                          reinterpret_cast<void (*)(void **)>(*entry));
}

void JitGoldenModel::run(std::vector<std::vector<std::byte>> &tensors) const {
  if (tensors.size() != tensors_.size())
    throw Error(fmt::format("golden model: kernel {} has {} tensors, {} buffers given", kernel_, tensors_.size(),
                            tensors.size()));
  for (size_t i = 0; i < tensors.size(); ++i) {
    const tsr::graph::TensorArg &t = tensors_[i];
    int64_t elements = 1;
    for (int64_t d : t.shape) elements *= d;
    if (tensors[i].size() != static_cast<size_t>(elements) * isa::byteSize(t.dtype))
      throw Error(fmt::format("golden model: tensor {} of kernel {} needs {} bytes, {} given", t.name, kernel_,
                              elements * isa::byteSize(t.dtype), tensors[i].size()));
  }
  std::vector<std::vector<int64_t>> descriptors;
  std::vector<void *> descriptorPointers, args;
  for (size_t i = 0; i < tensors.size(); ++i) { // an N-D tensor is its [rows, columns] matrix there (MatrixShape.h)
    const std::array<int64_t, 2> matrix = isa::matrixShape(tensors_[i].shape);
    descriptors.push_back(descriptor(tensors[i].data(), {matrix.begin(), matrix.end()}));
  }
  for (auto &d : descriptors) descriptorPointers.push_back(d.data());
  for (void *&p : descriptorPointers) args.push_back(&p);
  entry_(args.data());
}

void runGolden(const tsr::graph::KernelGraph &kernel, std::vector<std::vector<std::byte>> &tensors,
               const GoldenStageCallback &stage, GoldenWork *work) {
  const std::unique_ptr<GoldenModel> model = compileGolden(kernel, stage, work);
  if (stage) stage("running");
  model->run(tensors);
}

std::string goldenToText(const tsr::graph::KernelGraph &kernel, GoldenStage stage) {
  MLIRContext ctx;
  ctx.disableMultithreading();
  ErrorCollector errors(ctx, "the golden model", "golden model: ");
  OwningOpRef<ModuleOp> module = imported(ctx, errors, kernel);
  toLinalg(ctx, errors, *module);
  if (stage == GoldenStage::Llvm) toLlvm(ctx, errors, *module);
  return print(*module);
}

} // namespace tessera::compiler
