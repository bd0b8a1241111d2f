//===- AllocateMemory.cpp - static on-chip allocation by scope ---------------------------------------------===//
//
// Every tile lives from its tile.alloc to the end of the enclosing block, so allocation is a stack per memory:
// a loop's tiles are pushed on entry and popped on exit, so sibling loops reuse the same bytes, except inside
// a loop body, whose nested tiles all keep their own bytes (see Allocation::run). A tile
// allocated inside a loop body gets `bufs` rotating copies (iteration i uses copy i mod bufs), so the DMA of
// iteration i+1 can overlap the compute of iteration i; when that does not fit, fewer copies are tried, down
// to one, in the memory that ran out: a kernel short of PSUM banks keeps the SBUF copies that fit.
// The target's family (TargetFamily) says which memory each tile lives in, how much of it one kernel may take
// (tileBudget: a TPU kernel gets libtpu's per-kernel VMEM, [libtpu] kernel_vmem_max_bytes), how many bytes a copy takes
// (NeuronCore: SBUF or PSUM per partition, PSUM tiles in whole banks, since a matmul accumulation group lives in
// one bank (docs/targets.md "nc_matmul"); TPU: the one VMEM, in Mosaic's layout, at most two copies), and may add
// notes after (a TPU's padded tiles). Peak use is recorded on the function per memory (tile.sbuf_peak,
// tile.psum_peak, tile.vmem_peak). A `fixed` tile (placed by the kernel, tsr::isa::sbuf_tile_at) keeps its offset
// and one copy, and takes no room from the stack.
// When a tile does not fit, the error (at the kernel line that made the tile) lists what is live in that memory
// there, by kernel line and shape, in the units the memory is taken in (PSUM banks), and its hint says how the
// memory is organised on the target (from the target file) and what to try.
// Test: compiler/test/Transforms/allocate-memory.mlir, allocate-memory-tpu.mlir; tests/unit/e2e/RunKernelTest.cpp
//
//===------------------------------------------------------------------------------------------------------===//

#include "ErrorCollector.h"
#include "Targets/TargetFamily.h"
#include "tessera/compiler/Dialect/Settings.h"
#include "tessera/compiler/Dialect/Tile/TileDialect.h"
#include "tessera/compiler/Passes.h"
#include "tessera/compiler/ToProgram.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>

using namespace mlir;

namespace tessera::compiler {
namespace {

/// A tile that holds bytes of a memory: what a failure lists as live.
struct LiveTile {
  tile::AllocOp alloc;
  int64_t bytes = 0; ///< all its copies
  int64_t copies = 1;
};

struct Stack {
  isa::MemSpace space = isa::MemSpace::Sbuf;
  uint32_t partitions = 0;
  int64_t capacity = 0;   ///< what the kernel's tiles may take (TargetFamily::tileBudget)
  std::string limitedBy; ///< why capacity is less than the memory, if it is
  int64_t bankBytes = 0;  ///< > 0: tiles take whole banks of this many bytes, and errors count banks
  std::string remedy;     ///< what a kernel that does not fit can do (TileBudget::remedy)
  int64_t top = 0;
  int64_t peak = 0;
  int64_t bufs = 1; ///< the copies a loop-local tile gets in this memory
  std::vector<LiveTile> live = {}; ///< the tiles holding its bytes, in allocation order
};

/// One attempt at allocating a function with a given number of copies for loop-local tiles, per memory.
class Allocation {
public:
  /// The stacks of the memories `family` places tiles in, each with `bufs` copies for loop-local tiles.
  Allocation(const isa::Target &t, const TargetFamily &family, const std::map<isa::MemSpace, int64_t> &bufs)
      : target_(t), family_(family) {
    for (const isa::FamilyMemory &m : family.family().memories(t)) {
      auto it = bufs.find(m.space);
      if (it == bufs.end()) continue; // no tile lives there (a TPU's SMEM)
      TileBudget budget = family.tileBudget(m, t);
      stacks_.push_back({.space = m.space, .partitions = m.partitions, .capacity = budget.bytes,
                         .limitedBy = std::move(budget.limitedBy), .bankBytes = budget.bankBytes,
                         .remedy = std::move(budget.remedy), .bufs = it->second});
    }
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
      std::vector<std::pair<int64_t, size_t>> marks;
      for (const Stack &s : stacks_) marks.push_back({s.top, s.live.size()});
      for (Region &region : op.getRegions())
        for (Block &inner : region)
          if (tile::AllocOp failed = run(inner, inLoop || llvm::isa<scf::ForOp>(op))) return failed;
      if (!inLoop)
        for (size_t k = 0; k < stacks_.size(); ++k) {
          stacks_[k].top = marks[k].first;
          stacks_[k].live.resize(marks[k].second);
        }
    }
    return nullptr;
  }

  const std::vector<Stack> &stacks() const { return stacks_; }
  /// The stack a tile lives in, as the target's family places it.
  Stack &stackOf(tile::AllocOp alloc) {
    const isa::MemSpace space = family_.tileSpace(tile::memorySpaceOf(alloc.getType()));
    for (Stack &s : stacks_)
      if (s.space == space) return s;
    return stacks_.front(); // every space tileSpace gives has a stack (the family lists its memories)
  }

private:
  bool place(tile::AllocOp alloc, bool inLoop) {
    Stack &s = stackOf(alloc);
    const int64_t bufs = inLoop ? s.bufs : 1;
    const int64_t size = family_.tileCopyBytes(alloc.getType(), target_) * bufs;
    if (s.top + size > s.capacity) return false;
    Builder b(alloc.getContext());
    alloc.setOffsetAttr(b.getI64IntegerAttr(s.top));
    alloc.setBufsAttr(b.getI64IntegerAttr(bufs));
    s.top += size;
    s.peak = std::max(s.peak, s.top);
    s.live.push_back({alloc, size, bufs});
    return true;
  }

  const isa::Target &target_;
  const TargetFamily &family_;
  std::vector<Stack> stacks_;
};

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
    const TargetFamily &family = targetFamily(target);
    const int64_t mostBuffers = family.loopBuffers(std::max(1u, loopBuffers.getValue()));
    // The memories tiles live in, each starting with the most copies.
    std::map<isa::MemSpace, int64_t> bufs;
    for (tile::MemorySpace space : {tile::MemorySpace::sbuf, tile::MemorySpace::psum})
      bufs[family.tileSpace(space)] = mostBuffers;
    // Halve the copies of the memory that ran out until everything fits, or one copy of it does not.
    while (true) {
      Allocation a(target, family, bufs);
      tile::AllocOp failed = a.run(fn.getBody().front(), false);
      if (!failed) return recordPeaks(fn, a, family, target);
      const Stack &s = a.stackOf(failed);
      if (int64_t &shrink = bufs[s.space]; shrink > 1) {
        shrink /= 2;
        continue;
      }
      // The kernel's line is the error's location; the note is the tessera::Error's hint (ErrorCollector.h).
      InFlightDiagnostic error = failed.emitError() << fmt::format(
          "tile{} {} needs {} of {} but {} here on {}{}. {}", tile::quotedName(failed),
          tile::shapeAndDtype(failed.getType()), amount(s, family.tileCopyBytes(failed.getType(), target)),
          upperName(s.space), freeHere(s), target.name, s.limitedBy.empty() ? "" : "; " + s.limitedBy,
          liveTiles(s));
      error.attachNote() << kHintNote << fmt::format("{} on {} has {}: {}", upperName(s.space), target.name,
                                                     layout(s), s.remedy);
      return error;
    }
    return success();
  }

  LogicalResult recordPeaks(func::FuncOp fn, const Allocation &a, const TargetFamily &family,
                            const isa::Target &target) {
    Builder b(fn.getContext());
    for (const Stack &s : a.stacks())
      fn->setAttr(fmt::format("tile.{}_peak", isa::name(s.space)), b.getI64IntegerAttr(s.peak));
    family.noteAllocation(fn, target);
    return success();
  }

  /// `bytes` of `s` as its tiles take them: "2 banks (4096 bytes per partition)", "2048 bytes per partition",
  /// "4096 bytes" (VMEM).
  static std::string amount(const Stack &s, int64_t bytes) {
    const std::string perPartition = s.partitions > 1 ? " per partition" : "";
    if (s.bankBytes <= 0) return fmt::format("{} bytes{}", bytes, perPartition);
    return fmt::format("{} ({} bytes{})", banks(s, bytes), bytes, perPartition);
  }

  /// "1 bank", "3 banks".
  static std::string banks(const Stack &s, int64_t bytes) {
    const int64_t n = bytes / s.bankBytes;
    return fmt::format("{} bank{}", n, n == 1 ? "" : "s");
  }

  /// What is left of `s` where a tile does not fit: "all 8 banks are taken", "only 1 of 8 banks is free", "only
  /// 20224 of 180224 are free".
  static std::string freeHere(const Stack &s) {
    const int64_t free = s.capacity - s.top;
    if (s.bankBytes <= 0) return fmt::format("only {} of {} are free", free, s.capacity);
    const int64_t freeBanks = free / s.bankBytes, allBanks = s.capacity / s.bankBytes;
    if (freeBanks == 0) return fmt::format("all {} banks are taken", allBanks);
    return fmt::format("only {} of {} banks {} free", freeBanks, allBanks, freeBanks == 1 ? "is" : "are");
  }

  /// How `s` is organised, from the target file: "8 banks of 2 KiB per partition, and each PSUM tile takes whole
  /// banks", "212984 bytes per partition for tiles", "67043328 bytes for one kernel's tiles".
  static std::string layout(const Stack &s) {
    if (s.bankBytes > 0) {
      const std::string bank = s.bankBytes % 1024 == 0 ? fmt::format("{} KiB", s.bankBytes / 1024)
                                                       : fmt::format("{} bytes", s.bankBytes);
      return fmt::format("{} banks of {} per partition, and each {} tile takes whole banks", s.capacity / s.bankBytes,
                         bank, upperName(s.space));
    }
    return fmt::format("{} bytes{} for one kernel's tiles", s.capacity, s.partitions > 1 ? " per partition" : "");
  }

  /// "Live in PSUM here (8 tiles): 8 x [128, 512] f32 at kernel.cpp:23 (1 bank each), ...": what
  /// holds the memory where one more tile does not fit, in the kernel's terms (the line that made each tile, its
  /// shape), tiles of one line and shape together, most bytes first.
  static std::string liveTiles(const Stack &s) {
    if (s.live.empty()) return "Nothing else is live in it here";
    struct Group {
      std::string where, shape, name; ///< name: of a group of one
      int64_t bytes = 0, count = 0, copies = 1;
    };
    std::vector<Group> groups;
    for (const LiveTile &t : s.live) {
      tile::AllocOp alloc = t.alloc;
      const SourceLoc at = sourceOf(alloc.getLoc());
      Group g{at.known() ? std::filesystem::path(at.file).filename().string() + ":" + std::to_string(at.line) : "",
              tile::shapeAndDtype(alloc.getType()), tile::quotedName(alloc), t.bytes, 1, t.copies};
      auto same = std::find_if(groups.begin(), groups.end(), [&](const Group &o) {
        return !g.where.empty() && o.where == g.where && o.shape == g.shape && o.bytes / o.count == g.bytes;
      });
      if (same == groups.end()) groups.push_back(g);
      else same->bytes += g.bytes, ++same->count;
    }
    std::stable_sort(groups.begin(), groups.end(), [](const Group &a, const Group &b) { return a.bytes > b.bytes; });
    constexpr size_t kListed = 6;
    const std::string perPartition = s.partitions > 1 ? " per partition" : "";
    const auto share = [&](int64_t bytes) {
      return s.bankBytes > 0 ? banks(s, bytes) : fmt::format("{} bytes{}", bytes, perPartition);
    };
    std::string out = fmt::format("Live in {} here ({} tile{}):", upperName(s.space), s.live.size(),
                                  s.live.size() == 1 ? "" : "s");
    for (size_t i = 0; i < std::min(groups.size(), kListed); ++i) {
      const Group &g = groups[i];
      const std::string at = g.where.empty() ? "" : " at " + g.where;
      const std::string copies = g.copies > 1 ? fmt::format(", {} rotating copies", g.copies) : "";
      out += i ? ", " : " ";
      if (g.count == 1)
        out += fmt::format("{} {}{} ({}{})", g.name.empty() ? "a tile" : g.name.substr(1), g.shape, at,
                           share(g.bytes), copies);
      else
        out += fmt::format("{} x {}{} ({} each{})", g.count, g.shape, at, share(g.bytes / g.count), copies);
    }
    if (groups.size() > kListed) out += fmt::format(", and {} more", groups.size() - kListed);
    return out;
  }

  /// "SBUF", "PSUM", "VMEM".
  static std::string upperName(isa::MemSpace space) {
    std::string name(isa::name(space));
    for (char &c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return name;
  }
};

} // namespace

std::unique_ptr<Pass> createAllocateMemoryPass(unsigned loopBuffers) {
  return std::make_unique<AllocateMemoryPass>(loopBuffers);
}

} // namespace tessera::compiler
