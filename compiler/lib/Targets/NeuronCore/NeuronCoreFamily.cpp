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
#include "ErrorCollector.h"
#include "tessera/compiler/Dialect/Tile/TileDialect.h"

#include <fmt/format.h>

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

/// "PSUM tile 't3' [128, 1024] f32": a tile as its kernel made it (the name where the alloc carries one).
std::string tileOf(tile::AllocOp op) {
  const char *memory = tile::memorySpaceOf(op.getType()) == tile::MemorySpace::psum ? "PSUM" : "SBUF";
  return fmt::format("{} tile{} {}", memory, tile::quotedName(op), tile::shapeAndDtype(op.getType()));
}

/// `error` with `hint` attached as the tessera::Error's hint (ErrorCollector.h).
LogicalResult withHint(InFlightDiagnostic error, const std::string &hint) {
  error.attachNote() << kHintNote << hint;
  return error;
}

LogicalResult verifyAlloc(tile::AllocOp op, const isa::Target &t) {
  MemRefType type = op.getType();
  if (type.getDimSize(0) > t.partitions)
    return withHint(op.emitError() << fmt::format("{} has {} partitions; {} has {}", tileOf(op),
                                                  type.getDimSize(0), t.name, t.partitions),
                    fmt::format("split the first dimension into tiles of at most {} rows", t.partitions));
  int64_t bytes = bytesPerPartition(type);
  // A PSUM tile is one bank, or as many whole banks as one matmul may write (all 8 on NeuronCore-v4).
  const auto psumTileBytes = static_cast<int64_t>(std::max<uint64_t>(t.psumBankBytes(), t.tensor.maxMovingFree * 4));
  const int64_t elementBytes = type.getElementTypeBitWidth() / 8;
  if (tile::memorySpaceOf(type) == tile::MemorySpace::psum && bytes > psumTileBytes) {
    const std::string fix = fmt::format("PSUM has {} banks of {} bytes per partition on {}; split the free dimension "
                                        "into tiles of at most {} elements of this type",
                                        t.psumBanks, t.psumBankBytes(), t.name, psumTileBytes / elementBytes);
    if (psumTileBytes == static_cast<int64_t>(t.psumBankBytes()))
      return withHint(op.emitError() << fmt::format("{} takes {} bytes per partition; a PSUM bank of {} holds {}",
                                                    tileOf(op), bytes, t.name, t.psumBankBytes()),
                      fix);
    return withHint(op.emitError() << fmt::format("{} takes {} bytes per partition; a PSUM tile of {} spans at most "
                                                  "the {} bytes one matmul writes (tensor_engine.max_moving_free "
                                                  "FP32)",
                                                  tileOf(op), bytes, t.name, psumTileBytes),
                    fix);
  }
  if (tile::memorySpaceOf(type) == tile::MemorySpace::sbuf && bytes > static_cast<int64_t>(t.sbufBytesPerPartition))
    return withHint(op.emitError() << fmt::format("{} takes {} bytes per partition; {} has {}", tileOf(op),
                                                  bytes, t.name, t.sbufBytesPerPartition),
                    fmt::format("SBUF has {} bytes per partition on {}; split the free dimension into tiles of at "
                                "most {} elements of this type",
                                t.sbufBytesPerPartition, t.name, t.sbufBytesPerPartition / elementBytes));
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
  TileBudget tileBudget(const isa::FamilyMemory &m, const isa::Target &target) const override {
    if (m.space == isa::MemSpace::Psum)
      return {.bytes = static_cast<int64_t>(m.bytesPerPartition),
              .bankBytes = static_cast<int64_t>(target.psumBankBytes()),
              .remedy = "keep fewer PSUM tiles live at once (reuse one accumulator, acc += ..., across a loop rather "
                        "than one per step; copy a finished result to SBUF inside the loop that made it, so that its "
                        "PSUM tile ends with the loop body), use smaller PSUM tiles, or fewer rotating copies of "
                        "loop tiles (--loop-buffers)"};
    return {.bytes = static_cast<int64_t>(m.bytesPerPartition), .remedy = kSmallerTilesRemedy};
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
