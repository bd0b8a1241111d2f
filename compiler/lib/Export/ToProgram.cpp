//===- ToProgram.cpp - an nc module becomes an isa::Program --------------------------------------------===//

#include "tessera/compiler/ToProgram.h"
#include "tessera/compiler/Dialect/Nc/NcDialect.h"
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

} // namespace

SourceLoc sourceOf(Location loc) {
  if (auto f = llvm::dyn_cast<FileLineColLoc>(loc)) return {f.getFilename().str(), f.getLine(), f.getColumn()};
  if (auto fused = llvm::dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (SourceLoc s = sourceOf(inner); s.known()) return s;
  return {};
}

isa::Program toProgram(ModuleOp module) {
  auto fns = llvm::to_vector(module.getOps<func::FuncOp>());
  if (fns.size() != 1) throw Error(fmt::format("expected one kernel function in the module, found {}", fns.size()));
  func::FuncOp fn = fns.front();

  isa::Program p;
  p.kernel = fn.getName().str();
  if (auto t = module->getAttrOfType<StringAttr>(tile::kTargetAttr)) p.target = t.getValue().str();
  for (auto [i, type] : llvm::enumerate(fn.getArgumentTypes())) {
    auto memref = llvm::dyn_cast<MemRefType>(type);
    std::optional<isa::DType> dtype = memref ? nc::toIsa(memref.getElementType()) : std::nullopt;
    if (!dtype) throw Error(fmt::format("kernel argument {} has type that is not an HBM tensor", i));
    isa::TensorInfo t;
    auto name = fn.getArgAttrOfType<StringAttr>(i, tile::kTensorNameAttr);
    t.name = name ? name.getValue().str() : fmt::format("arg{}", i);
    t.shape.assign(memref.getShape().begin(), memref.getShape().end());
    t.dtype = *dtype;
    t.isOutput = static_cast<bool>(fn.getArgAttr(i, tile::kOutputAttr));
    p.tensors.push_back(std::move(t));
  }

  // Streams in a fixed order: the four compute engines, then one per DMA queue in use.
  for (isa::Engine e : {isa::Engine::Tensor, isa::Engine::Vector, isa::Engine::Scalar, isa::Engine::GpSimd})
    p.streams.push_back({e, 0, {}});
  std::map<unsigned, size_t> dmaStream;
  Locations locations(p.locations);
  uint32_t semaphores = 0;

  for (Operation &op : fn.getBody().front()) {
    if (llvm::isa<func::ReturnOp>(op)) continue;
    if (!op.getDialect() || !llvm::isa<nc::NcDialect>(op.getDialect()))
      throw Error(fmt::format("'{}' is not an nc instruction: lower the module to nc first",
                              op.getName().getStringRef().str()),
                  sourceOf(op.getLoc()));
    isa::Engine engine = *nc::engineOf(&op);
    size_t s = static_cast<size_t>(engine);
    if (engine == isa::Engine::Dma) {
      auto q = static_cast<unsigned>(op.getAttrOfType<IntegerAttr>("queue").getInt());
      auto [it, fresh] = dmaStream.try_emplace(q, p.streams.size());
      if (fresh) p.streams.push_back({isa::Engine::Dma, q, {}});
      s = it->second;
    }
    isa::Instruction inst = nc::toInstruction(&op);
    inst.loc = locations.index(op.getLoc());
    if (auto print = llvm::dyn_cast<nc::PrintOp>(op)) {
      inst.text = static_cast<uint32_t>(p.texts.size());
      p.texts.push_back(print.getLabel().str());
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
    p.streams[s].instructions.push_back(inst);
  }
  p.semaphores = semaphores;
  return p;
}

} // namespace tessera::compiler
