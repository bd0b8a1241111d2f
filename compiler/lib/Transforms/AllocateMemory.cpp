//===- AllocateMemory.cpp - static SBUF/PSUM/VMEM allocation by scope -----------------------------------===//
//
// Every tile lives from its tile.alloc to the end of the enclosing block, so allocation is a stack per memory:
// a loop's tiles are pushed on entry and popped on exit, so sibling loops reuse the same bytes, except inside
// a loop body, whose nested tiles all keep their own bytes (see Allocation::run). A tile
// allocated inside a loop body gets `bufs` rotating copies (iteration i uses copy i mod bufs), so the DMA of
// iteration i+1 can overlap the compute of iteration i; when that does not fit, fewer copies are tried, down
// to one, in the memory that ran out: a kernel short of PSUM banks keeps the SBUF copies that fit. PSUM tiles
// take whole banks: a matmul accumulation group lives in one bank (docs/targets.md "nc_matmul").
// Peak use per partition is recorded on the function (tile.sbuf_peak, tile.psum_peak). A `fixed` tile (placed by
// the kernel, tsr::isa::sbuf_tile_at) keeps its offset and one copy, and takes no room from the stack.
// On a TPU every tile, SBUF or PSUM in the tile dialect (a PSUM accumulator is an f32 VMEM accumulator), lives in
// the one VMEM stack, in Mosaic's native layout (vmemLayout); loop-local tiles get at most 2 copies, the double
// buffering of Pallas' pipeline. Peak use is tile.vmem_peak, and each tile the layout pads gets a remark (the
// compiler's notes) saying how much.
// Test: compiler/test/Transforms/allocate-memory.mlir, allocate-memory-tpu.mlir
//
//===------------------------------------------------------------------------------------------------------===//

#include "tessera/compiler/Dialect/Nc/NcDialect.h"
#include "tessera/compiler/Dialect/Tile/TileDialect.h"
#include "tessera/compiler/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;

namespace tessera::compiler {
namespace {

/// The largest element size we store; SBUF offsets are kept aligned to it so every element is aligned.
constexpr int64_t kSbufAlignment = 4;

/// Rotating copies Pallas' pipeline gives each block it copies between HBM and VMEM (pl.Buffered(2), its default):
/// the copy for step i+1 fills one while step i computes on the other.
constexpr int64_t kTpuPipelineBuffers = 2;

/// A vreg holds 32-bit elements; a narrower dtype packs this many times more rows into a sublane.
constexpr int64_t kVregElementBits = 32;

int64_t roundUp(int64_t value, int64_t multiple) {
  return multiple > 1 ? (value + multiple - 1) / multiple * multiple : value;
}

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

int64_t tileCopyBytes(MemRefType t, const isa::Target &target) {
  if (target.isTpu()) return vmemLayout(t, target).copyBytes;
  int64_t bytes = t.getDimSize(1) * static_cast<int64_t>(t.getElementTypeBitWidth() / 8);
  if (tile::memorySpaceOf(t) == tile::MemorySpace::psum) {
    return roundUp(bytes, static_cast<int64_t>(target.psumBankBytes()));
  }
  return roundUp(bytes, kSbufAlignment);
}

namespace {

struct Stack {
  int64_t capacity = 0;
  int64_t top = 0;
  int64_t peak = 0;
};

/// One attempt at allocating a function with a given number of copies for loop-local tiles.
class Allocation {
public:
  /// `psumBuffers`: the copies of loop-local PSUM tiles; `loopBuffers` those of every other tile.
  Allocation(const isa::Target &t, int64_t loopBuffers, int64_t psumBuffers)
      : target_(t), loopBuffers_(loopBuffers), psumBuffers_(psumBuffers) {
    sbuf_.capacity = static_cast<int64_t>(t.sbufBytesPerPartition);
    psum_.capacity = static_cast<int64_t>(t.psumBytesPerPartition);
    vmem_.capacity = static_cast<int64_t>(t.tpu.vmemBytes);
  }

  /// Allocates `block` and what it contains; returns the alloc that did not fit, or null.
  tile::AllocOp run(Block &block, bool inLoop) {
    for (Operation &op : block) {
      if (auto alloc = dyn_cast<tile::AllocOp>(op)) {
        if (alloc.getFixed()) continue;
        if (!place(alloc, inLoop)) return alloc;
        continue;
      }
      // A nested region's tiles are dead after it. Their bytes are reused only outside every loop: inside a
      // loop, iteration i+1 overlaps iteration i, and tiles rotating by different loop counters must never
      // share bytes, or the overlap would make them wait for each other.
      int64_t sbufMark = sbuf_.top, psumMark = psum_.top, vmemMark = vmem_.top;
      for (Region &region : op.getRegions())
        for (Block &inner : region)
          if (tile::AllocOp failed = run(inner, inLoop || llvm::isa<scf::ForOp>(op))) return failed;
      if (!inLoop) {
        sbuf_.top = sbufMark;
        psum_.top = psumMark;
        vmem_.top = vmemMark;
      }
    }
    return nullptr;
  }

  const Stack &sbuf() const { return sbuf_; }
  const Stack &psum() const { return psum_; }
  Stack &psum() { return psum_; }
  const Stack &vmem() const { return vmem_; }
  /// The stack a tile lives in: VMEM on a TPU, else SBUF or PSUM.
  Stack &stackOf(tile::AllocOp alloc) {
    if (target_.isTpu()) return vmem_;
    return tile::memorySpaceOf(alloc.getType()) == tile::MemorySpace::psum ? psum_ : sbuf_;
  }

private:
  bool place(tile::AllocOp alloc, bool inLoop) {
    Stack &s = stackOf(alloc);
    const bool psum = &s == &psum_;
    int64_t bufs = inLoop ? (psum ? psumBuffers_ : loopBuffers_) : 1;
    int64_t size = tileCopyBytes(alloc.getType(), target_) * bufs;
    if (s.top + size > s.capacity) return false;
    Builder b(alloc.getContext());
    alloc.setOffsetAttr(b.getI64IntegerAttr(s.top));
    alloc.setBufsAttr(b.getI64IntegerAttr(bufs));
    s.top += size;
    s.peak = std::max(s.peak, s.top);
    return true;
  }

  const isa::Target &target_;
  int64_t loopBuffers_, psumBuffers_;
  Stack sbuf_, psum_, vmem_;
};

/// The name of a tile in messages: " 'x'" when the kernel named it, else "".
std::string quotedName(tile::AllocOp alloc) {
  return alloc.getName() ? " '" + alloc.getName()->str() + "'" : "";
}

/// Remarks (the compiler's notes) for the tiles of `fn` whose VMEM layout pads them: rows to the dtype's sublane
/// tiling, the free size to the lanes.
void notePaddedTiles(func::FuncOp fn, const isa::Target &target) {
  fn.walk([&](tile::AllocOp alloc) {
    MemRefType t = alloc.getType();
    VmemLayout layout = vmemLayout(t, target);
    if (alloc.getFixed() || (layout.rows == t.getDimSize(0) && layout.pitch == t.getDimSize(1))) return;
    std::optional<isa::DType> dtype = nc::toIsa(t.getElementType());
    alloc.emitRemark() << "tile" << quotedName(alloc) << " [" << t.getDimSize(0) << ", " << t.getDimSize(1) << "] "
                       << (dtype ? isa::name(*dtype) : "?") << " is padded to [" << layout.rows << ", " << layout.pitch
                       << "] in VMEM (Mosaic's (" << layout.sublaneTiling << ", " << target.tpu.lanes << ") tiling)";
  });
}

struct AllocateMemoryPass : PassWrapper<AllocateMemoryPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(AllocateMemoryPass)
  StringRef getName() const override { return "AllocateMemory"; }
  AllocateMemoryPass() = default;
  AllocateMemoryPass(const AllocateMemoryPass &other) : PassWrapper(other) {}
  explicit AllocateMemoryPass(unsigned loopBuffers) { this->loopBuffers = loopBuffers; }
  StringRef getArgument() const override { return "tile-allocate-memory"; }
  StringRef getDescription() const override { return "Assign SBUF/PSUM/VMEM offsets and rotating copies to tiles"; }

  Option<unsigned> loopBuffers{*this, "loop-buffers",
                               llvm::cl::desc("Rotating copies of tiles allocated in loop bodies (1: no overlap)"),
                               llvm::cl::init(4)};

  void runOnOperation() override {
    const isa::Target *target = targetOf(getOperation());
    if (!target) return signalPassFailure();
    for (auto fn : getOperation().getOps<func::FuncOp>())
      if (failed(allocate(fn, *target))) return signalPassFailure();
  }

  LogicalResult allocate(func::FuncOp fn, const isa::Target &target) {
    int64_t mostBuffers = std::max(1u, loopBuffers.getValue());
    if (target.isTpu()) mostBuffers = std::min(mostBuffers, kTpuPipelineBuffers);
    // Halve the copies of the memory that ran out until everything fits, or one copy of it does not.
    int64_t bufs = mostBuffers, psumBufs = mostBuffers;
    while (true) {
      Allocation a(target, bufs, psumBufs);
      tile::AllocOp failed = a.run(fn.getBody().front(), false);
      if (!failed) return recordPeaks(fn, a, target);
      const bool psumFull = &a.stackOf(failed) == &a.psum();
      int64_t &shrink = psumFull ? psumBufs : bufs;
      if (shrink > 1) {
        shrink /= 2;
        continue;
      }
      const Stack &s = a.stackOf(failed);
      const char *memory = target.isTpu() ? "VMEM"
                           : tile::memorySpaceOf(failed.getType()) == tile::MemorySpace::psum ? "PSUM" : "SBUF";
      return failed.emitError() << "tile '" << failed.getName().value_or("?") << "' " << failed.getType()
                                << " needs " << tileCopyBytes(failed.getType(), target) << " bytes"
                                << (target.isTpu() ? "" : " per partition") << " of " << memory << " but only "
                                << (s.capacity - s.top) << " of " << s.capacity << " are free here on " << target.name;
    }
    return success();
  }

  LogicalResult recordPeaks(func::FuncOp fn, const Allocation &a, const isa::Target &target) {
    Builder b(fn.getContext());
    if (!target.isTpu()) {
      fn->setAttr("tile.sbuf_peak", b.getI64IntegerAttr(a.sbuf().peak));
      fn->setAttr("tile.psum_peak", b.getI64IntegerAttr(a.psum().peak));
      return success();
    }
    fn->setAttr("tile.vmem_peak", b.getI64IntegerAttr(a.vmem().peak));
    notePaddedTiles(fn, target);
    return success();
  }
};

} // namespace

std::unique_ptr<Pass> createAllocateMemoryPass(unsigned loopBuffers) {
  return std::make_unique<AllocateMemoryPass>(loopBuffers);
}

} // namespace tessera::compiler
