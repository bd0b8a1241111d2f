//===- TpuFamily.cpp - the TPU family's side of the compiler -----------------------------------------------===//
//
// Every tile, SBUF or PSUM in the tile dialect (a PSUM accumulator is an f32 VMEM accumulator), lives in the one
// VMEM, in Mosaic's native layout (vmemLayout); loop-local tiles get at most 2 copies, the double buffering of
// Pallas' pipeline, and each tile the layout pads gets a remark (the compiler's notes). None of the NeuronCore's
// tile limits apply (Mosaic tiles a matmul or a tile of any shape, and allocate-memory checks VMEM); verify-target
// checks the MXU's element types (mxu_matmul's definition). The stages: tile-legalize-for-tpu before allocation,
// then lower-tile-to-tpu.
// Test: compiler/test/Transforms/verify-target-tpu.mlir, allocate-memory-tpu.mlir, and each pass's own.
//
//===------------------------------------------------------------------------------------------------------===//

#include "TargetFamily.h"
#include "Tpu/Passes.h"
#include "Tpu/TpuDialect.h"

#include "tessera/compiler/Dialect/Settings.h"
#include "tessera/isa/InstructionSet.h"

#include "mlir/Pass/PassRegistry.h"

#include <fmt/format.h>

#include <algorithm>

using namespace mlir;

namespace tessera::compiler {
namespace {

/// Rotating copies Pallas' pipeline gives each block it copies between HBM and VMEM (pl.Buffered(2), its default):
/// the copy for step i+1 fills one while step i computes on the other.
constexpr int64_t kTpuPipelineBuffers = 2;

/// A vreg holds 32-bit elements; a narrower dtype packs this many times more rows into a sublane.
constexpr int64_t kVregElementBits = 32;

/// The MXU's rules, its element types above all, from mxu_matmul's definition: the matmul's tiles as if in VMEM.
LogicalResult verifyMxuMatmul(tile::MatmulOp op, const isa::Target &t) {
  auto pattern = [](Value tile) {
    auto type = llvm::cast<MemRefType>(tile.getType());
    return isa::AccessPattern::dense(isa::MemSpace::Vmem, *compiler::dtypeOf(type.getElementType()), 0,
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

class TpuTargetFamily final : public TargetFamily {
public:
  const isa::Family &family() const override { return *isa::findFamily("tpu"); }
  void registerDialects(DialectRegistry &registry) const override { registry.insert<tpu::TpuDialect>(); }
  void registerPasses() const override {
    PassRegistration<Pass>([] { return createLegalizeForTpuPass(); });
    PassRegistration<Pass>([] { return createLowerTileToTpuPass(); });
    PassRegistration<Pass>([] { return createPlanPallasPass(); });
  }

  void addLegalization(OpPassManager &pm) const override { pm.addPass(createLegalizeForTpuPass()); }
  bool addDeviceCodePlanning(OpPassManager &pm, bool launchGrid) const override {
    pm.addPass(createPlanPallasPass(launchGrid));
    return true;
  }
  llvm::StringRef loweringPass() const override { return "lower-tile-to-tpu"; }
  void addLowering(OpPassManager &pm, const LoweringOptions &o) const override {
    pm.addPass(createLowerTileToTpuPass(o.maxInstructions, o.recordOrigins));
  }
  void addChecks(OpPassManager &) const override {}

  isa::MemSpace tileSpace(tile::MemorySpace) const override { return isa::MemSpace::Vmem; }
  int64_t tileCopyBytes(MemRefType t, const isa::Target &target) const override {
    return vmemLayout(t, target).copyBytes;
  }
  int64_t tilePitch(MemRefType t, const isa::Target &target) const override { return vmemLayout(t, target).pitch; }
  /// VMEM: what libtpu lets one Pallas kernel have with vmem_limit_bytes raised ([libtpu] kernel_vmem_max_bytes),
  /// which on v5p, v6e and 7x is 64 KiB less than the VMEM; the whole VMEM for a machine libtpu does not know.
  TileBudget tileBudget(const isa::FamilyMemory &m, const isa::Target &target) const override {
    const uint64_t most = target.tpu.kernelVmemMaxBytes;
    if (m.space != isa::MemSpace::Vmem || most == 0 || most >= m.bytesPerPartition)
      return {.bytes = static_cast<int64_t>(m.bytesPerPartition), .remedy = kSmallerTilesRemedy};
    return {.bytes = static_cast<int64_t>(most),
            .limitedBy = fmt::format("libtpu gives one Pallas kernel at most {} of the {} bytes ([libtpu] "
                                     "kernel_vmem_max_bytes in the target file)",
                                     most, m.bytesPerPartition),
            .remedy = kSmallerTilesRemedy};
  }
  int64_t loopBuffers(int64_t requested) const override { return std::min(requested, kTpuPipelineBuffers); }
  LogicalResult verifyTileOp(Operation *op, const isa::Target &target) const override {
    auto m = dyn_cast<tile::MatmulOp>(op);
    return m ? verifyMxuMatmul(m, target) : success();
  }
  /// Remarks for the tiles whose VMEM layout pads them: rows to the dtype's sublane tiling, the free size to the
  /// lanes.
  void noteAllocation(func::FuncOp fn, const isa::Target &target) const override {
    fn.walk([&](tile::AllocOp alloc) {
      MemRefType t = alloc.getType();
      VmemLayout layout = vmemLayout(t, target);
      if (alloc.getFixed() || (layout.rows == t.getDimSize(0) && layout.pitch == t.getDimSize(1))) return;
      alloc.emitRemark() << "tile" << tile::quotedName(alloc) << " " << tile::shapeAndDtype(t) << " is padded to ["
                         << layout.rows << ", " << layout.pitch << "] in VMEM (Mosaic's (" << layout.sublaneTiling
                         << ", " << target.tpu.lanes << ") tiling)";
    });
  }
};

} // namespace

VmemLayout vmemLayout(MemRefType t, const isa::Target &target) {
  VmemLayout layout;
  const int64_t elementBits = t.getElementTypeBitWidth();
  layout.sublaneTiling =
      static_cast<int64_t>(target.tpu.sublanes) * std::max<int64_t>(1, kVregElementBits / elementBits);
  layout.rows = roundUp(t.getDimSize(0), layout.sublaneTiling);
  layout.pitch = roundUp(t.getDimSize(1), static_cast<int64_t>(target.tpu.lanes));
  layout.copyBytes =
      roundUp(layout.rows * layout.pitch * elementBits / 8, static_cast<int64_t>(target.tpu.vmemAlignment));
  return layout;
}

const TargetFamily &tpuFamily() {
  static const TpuTargetFamily family;
  return family;
}

} // namespace tessera::compiler
