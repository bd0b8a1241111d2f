//===- ToProgram.cpp - an nc or tpu module becomes an isa::Program -------------------------------------===//
//
// Streams in a fixed order: NeuronCore tensor, vector, scalar, gpsimd; TPU mxu, vpu, scalar (the scalar core);
// then one per DMA queue in use, in the order of first use. On a TPU the compute instructions also get the grid
// step they belong to (Instruction::step): each grid_step, in module order, starts the next step, 1, 2, 3...;
// every MXU, VPU and scalar-unit instruction belongs to the step of the last grid_step before it (DMA: 0).
//
//===------------------------------------------------------------------------------------------------------===//

#include "tessera/compiler/Dialect/Tile/TensorShape.h"
#include "tessera/compiler/ToProgram.h"
#include "tessera/compiler/Dialect/Settings.h"
#include "tessera/compiler/Dialect/Machine.h"
#include "tessera/compiler/Dialect/Tile/TileDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <fmt/format.h>

#include <map>

using namespace mlir;

namespace tessera::compiler {

namespace {

/// Interns source locations: index 0 is "unknown".
class Locations {
public:
  explicit Locations(std::vector<SourceLoc> &table) : table_(table) { table_.emplace_back(); }
  uint32_t index(Location loc) {
    SourceLoc s = sourceOf(loc);
    if (!s.known()) return 0;
    auto key = std::make_tuple(s.file, s.line, s.column);
    auto [it, fresh] = ids_.try_emplace(key, static_cast<uint32_t>(table_.size()));
    if (fresh) table_.push_back(std::move(s));
    return it->second;
  }

private:
  std::vector<SourceLoc> &table_;
  std::map<std::tuple<std::string, uint32_t, uint32_t>, uint32_t> ids_;
};

/// The family whose instructions `fn` holds; an error when it mixes two, or holds none (the first family's then:
/// a kernel with no instruction).
const isa::Family &familyOfInstructions(func::FuncOp fn) {
  const isa::Family *family = nullptr;
  for (Operation &op : fn.getBody().front()) {
    const isa::Family *of = machineFamilyOf(&op);
    if (!of) continue;
    if (family && of != family)
      throw Error(fmt::format("the kernel mixes {} and {} instructions", family->title(), of->title()));
    family = of;
  }
  return family ? *family : *isa::families().front();
}

} // namespace

SourceLoc sourceOf(Location loc) {
  if (auto f = llvm::dyn_cast<FileLineColLoc>(loc)) return {f.getFilename().str(), f.getLine(), f.getColumn()};
  if (auto fused = llvm::dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (SourceLoc s = sourceOf(inner); s.known()) return s;
  return {};
}

isa::Program toProgram(ModuleOp module, std::vector<ProgramStep> *order) {
  auto fns = llvm::to_vector(module.getOps<func::FuncOp>());
  if (fns.size() != 1) throw Error(fmt::format("expected one kernel function in the module, found {}", fns.size()));
  func::FuncOp fn = fns.front();

  isa::Program p;
  p.kernel = fn.getName().str();
  if (auto t = module->getAttrOfType<StringAttr>(tile::kTargetAttr)) p.target = t.getValue().str();
  for (auto [i, type] : llvm::enumerate(fn.getArgumentTypes())) {
    auto memref = llvm::dyn_cast<MemRefType>(type);
    std::optional<isa::DType> dtype = memref ? compiler::dtypeOf(memref.getElementType()) : std::nullopt;
    if (!dtype) throw Error(fmt::format("kernel argument {} has type that is not an HBM tensor", i));
    isa::TensorInfo t;
    auto name = fn.getArgAttrOfType<StringAttr>(i, tile::kTensorNameAttr);
    t.name = name ? name.getValue().str() : fmt::format("arg{}", i);
    t.shape.assign(memref.getShape().begin(), memref.getShape().end());
    if (auto shape = fn.getArgAttrOfType<DenseI64ArrayAttr>(i, tile::kTensorShapeAttr)) // N-D: its own shape
      t.shape.assign(shape.asArrayRef().begin(), shape.asArrayRef().end());
    t.dtype = *dtype;
    t.isOutput = static_cast<bool>(fn.getArgAttr(i, tile::kOutputAttr));
    t.isScratch = static_cast<bool>(fn.getArgAttr(i, tile::kScratchAttr));
    p.tensors.push_back(std::move(t));
  }

  // Streams in a fixed order: the family's compute engines, then one per DMA queue in use.
  const isa::Family &family = familyOfInstructions(fn);
  const isa::EngineSet engines = family.engines();
  std::map<isa::Engine, size_t> computeStream;
  for (isa::Engine e : {isa::Engine::Tensor, isa::Engine::Vector, isa::Engine::Scalar, isa::Engine::GpSimd,
                        isa::Engine::Mxu, isa::Engine::Vpu, isa::Engine::ScalarUnit}) {
    if (!engines.contains(e)) continue;
    computeStream[e] = p.streams.size();
    p.streams.push_back({e, 0, {}});
  }
  std::map<unsigned, size_t> dmaStream;
  Locations locations(p.locations);
  uint32_t semaphores = 0, step = 0;

  for (Operation &op : fn.getBody().front()) {
    if (llvm::isa<func::ReturnOp>(op)) continue;
    if (!isMachineInstruction(&op))
      throw Error(fmt::format("'{}' is not a machine instruction: lower the module to its target's dialect first",
                              op.getName().getStringRef().str()),
                  sourceOf(op.getLoc()));
    isa::Engine engine = *machineEngineOf(&op);
    size_t s = 0;
    if (engine == isa::Engine::Dma) {
      const unsigned q = machineQueueOf(&op);
      auto [it, fresh] = dmaStream.try_emplace(q, p.streams.size());
      if (fresh) p.streams.push_back({isa::Engine::Dma, q, {}});
      s = it->second;
    } else {
      s = computeStream.at(engine);
    }
    isa::Instruction inst = machineInstructionOf(&op);
    inst.loc = locations.index(op.getLoc());
    if (family.gridSteps() && engine != isa::Engine::Dma) {
      if (inst.op == isa::Opcode::GridStep) ++step;
      if (step == 0)
        throw Error(fmt::format("'{}' comes before the kernel's first tpu.grid_step: every MXU, VPU and scalar-unit "
                                "instruction belongs to a grid step, which a grid_step starts",
                                op.getName().getStringRef().str()),
                    sourceOf(op.getLoc()));
      inst.step = step;
    }
    if (inst.op == isa::Opcode::Print) {
      inst.text = static_cast<uint32_t>(p.texts.size());
      p.texts.push_back(printLabelOf(&op).str());
    }
    inst.waitBegin = static_cast<uint32_t>(p.waits.size());
    if (auto waits = op.getAttrOfType<DenseI64ArrayAttr>("waits"))
      for (size_t k = 0; k + 1 < waits.size(); k += 2) {
        p.waits.push_back({static_cast<uint32_t>(waits[k]), static_cast<uint32_t>(waits[k + 1])});
        semaphores = std::max(semaphores, static_cast<uint32_t>(waits[k]) + 1);
      }
    inst.waitCount = static_cast<uint32_t>(p.waits.size()) - inst.waitBegin;
    inst.signalBegin = static_cast<uint32_t>(p.signals.size());
    if (auto signals = op.getAttrOfType<DenseI64ArrayAttr>("signals"))
      for (int64_t sem : signals.asArrayRef()) {
        p.signals.push_back(static_cast<uint32_t>(sem));
        semaphores = std::max(semaphores, static_cast<uint32_t>(sem) + 1);
      }
    inst.signalCount = static_cast<uint32_t>(p.signals.size()) - inst.signalBegin;
    if (order) {
      auto origin = op.getAttrOfType<IntegerAttr>(tile::kOriginAttr);
      ProgramStep step{static_cast<uint32_t>(s), static_cast<uint32_t>(p.streams[s].instructions.size()),
                       origin ? static_cast<int32_t>(origin.getInt()) : -1, {}};
      if (auto iterations = op.getAttrOfType<DenseI64ArrayAttr>(tile::kIterationsAttr))
        step.iterations.assign(iterations.asArrayRef().begin(), iterations.asArrayRef().end());
      order->push_back(std::move(step));
    }
    p.streams[s].instructions.push_back(inst);
  }
  p.semaphores = semaphores;
  return p;
}

} // namespace tessera::compiler
