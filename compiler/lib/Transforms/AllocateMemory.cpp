//===- AllocateMemory.cpp - static on-chip allocation by liveness ------------------------------------------===//
//
// A tile holds bytes of its memory from its tile.alloc to its last use: the last op, in program order, that reads
// or writes it or a view of it (a use nested in a loop or other region keeps it for the whole of that op). Tiles
// are placed first-fit in the byte ranges free at their tile.alloc, so a later tile reuses a dead tile's bytes.
// The instructions that write the new tile then wait for the dead tile's last readers: insert-semaphores orders
// accesses by address (write after read), whichever tile the bytes belong to. Those waits cost overlap (a step's
// load waits for the previous step's compute), so by default (scope-first) a function is first allocated with
// every tile kept to the end of its block (the bytes of a loop's tiles free after the loop, for a sibling loop;
// fewer copies where needed, as below), and a memory whose tiles do not fit that way even with one copy by liveness
// (the other memories keep theirs by scope).
// A tile allocated inside a loop body gets `bufs` rotating copies (iteration i uses copy i mod bufs), so the DMA
// of iteration i+1 can overlap the compute of iteration i; when that does not fit, fewer copies are tried, down
// to one, in the memory that ran out: a kernel short of PSUM banks keeps the SBUF copies that fit. Because
// iterations overlap, a loop's tiles keep their bytes until the outermost loop around them ends, with one
// exception: a later tile of the same loop body (the same block) with the same copy size and copies takes a dead
// tile's place exactly. Both allocs run once per iteration, so copy k of the one is only ever copy k of the
// other, used in the same iteration after the dead tile's last use; tiles rotating by different loop counters,
// or copies of different sizes, would map copy k onto another iteration's live copy, and never share bytes.
// Unused tiles keep their bytes to the end of their block, as by scope. A function with a manual_sync scope
// (whose instructions get no automatic waits) is allocated by scope only, as before liveness existed: sibling
// loops still share bytes there, and the kernel's own semaphores must order them.
// The target's family (TargetFamily) says which memory each tile lives in, how much of it one kernel may take
// (tileBudget: a TPU kernel gets libtpu's per-kernel VMEM, [libtpu] kernel_vmem_max_bytes), how many bytes a copy takes
// (NeuronCore: SBUF or PSUM per partition, PSUM tiles in whole banks, since a matmul accumulation group lives in
// one bank (docs/targets.md "nc_matmul"); TPU: the one VMEM, in Mosaic's layout, at most two copies), and may add
// notes after (a TPU's padded tiles). Peak use is recorded on the function per memory (tile.sbuf_peak,
// tile.psum_peak, tile.vmem_peak): the end of the highest byte range any tile took, what the memory must have.
// A `fixed` tile (placed by the kernel, tsr::isa::sbuf_tile_at) keeps its offset and one copy, and takes no room.
// When a tile does not fit, the error (at the kernel line that made the tile) lists what holds that memory
// there, by kernel line and shape, in the units the memory is taken in (PSUM banks), and its hint says how the
// memory is organised on the target (from the target file) and what to try.
// Test: compiler/test/Transforms/allocate-memory.mlir, allocate-memory-liveness.mlir, allocate-memory-tpu.mlir;
// tests/unit/e2e/RunKernelTest.cpp
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
#include "llvm/ADT/DenseMap.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <optional>
#include <vector>

using namespace mlir;

namespace tessera::compiler {
namespace {

/// Where each op of a function stands in program order (a pre-order walk, so the ops nested in an op follow it
/// and come before its next sibling), and until where each tile is needed.
class ProgramOrder {
public:
  explicit ProgramOrder(func::FuncOp fn) {
    int64_t next = 0;
    fn.walk<WalkOrder::PreOrder>([&](Operation *op) { position_[op] = next++; });
    fn.walk<WalkOrder::PostOrder>([&](Operation *op) {
      // By value: inserting the parent's entry may grow the map and move this op's.
      const int64_t last = std::max(end_.lookup(op), position_.lookup(op));
      end_[op] = last;
      if (Operation *parent = op->getParentOp()) {
        int64_t &parentEnd = end_[parent];
        parentEnd = std::max(parentEnd, last);
      }
    });
  }

  int64_t position(Operation *op) const { return position_.lookup(op); }
  /// The position of the last op nested in `op`, or its own when it has none.
  int64_t end(Operation *op) const { return end_.lookup(op); }

  /// The position after which `alloc`'s bytes are dead: the end of the last op of its block that uses it or one of
  /// its views (an op whose region uses it, a loop, needs it in every iteration). A tile nothing uses is kept to
  /// the end of its block.
  int64_t lastUse(tile::AllocOp alloc) const {
    Block *block = alloc->getBlock();
    const int64_t blockEnd = end(&block->back());
    int64_t last = -1;
    llvm::SmallVector<Value> aliases{alloc.getResult()};
    while (!aliases.empty()) {
      Value tile = aliases.pop_back_val();
      for (Operation *user : tile.getUsers()) {
        if (auto view = dyn_cast<tile::ViewOp>(user)) aliases.push_back(view.getResult());
        last = std::max(last, end(block->findAncestorOpInBlock(*user)));
      }
    }
    return last < 0 ? blockEnd : last;
  }

  /// The outermost loop around `op`, or null in straight-line code.
  static Operation *outermostLoop(Operation *op) {
    Operation *outermost = nullptr;
    for (Operation *p = op->getParentOp(); p && !llvm::isa<func::FuncOp>(p); p = p->getParentOp())
      if (llvm::isa<scf::ForOp>(p)) outermost = p;
    return outermost;
  }

private:
  llvm::DenseMap<Operation *, int64_t> position_, end_;
};

/// A tile that holds bytes of a memory: what a failure lists as live.
struct HeldTile {
  tile::AllocOp alloc;
  int64_t offset = 0;
  int64_t bytes = 0; ///< all its copies
  int64_t copies = 1;
  int64_t lastUse = 0;                ///< the ProgramOrder position after which it is dead
  Operation *outermostLoop = nullptr; ///< its bytes are free after this loop; null: after its last use
};

/// How long a tile holds its bytes in one attempt at allocating a function.
enum class Lifetimes {
  Scope,   ///< to the end of its block (a loop's tiles: of the outermost loop), no tile taking a dead one's place
  Liveness ///< to its last use (ProgramOrder::lastUse), and dead tiles' places taken in loop bodies
};

/// One memory being allocated: its budget, and the byte ranges tiles hold at the current point of the program.
struct Memory {
  isa::MemSpace space = isa::MemSpace::Sbuf;
  uint32_t partitions = 0;
  int64_t capacity = 0;   ///< what the kernel's tiles may take (TargetFamily::tileBudget)
  std::string limitedBy; ///< why capacity is less than the memory, if it is
  int64_t bankBytes = 0;  ///< > 0: tiles take whole banks of this many bytes, and errors count banks
  std::string remedy;     ///< what a kernel that does not fit can do (TileBudget::remedy)
  int64_t peak = 0;       ///< the end of the highest range any tile took
  int64_t bufs = 1;       ///< the copies a loop-local tile gets in this memory
  Lifetimes lifetimes = Lifetimes::Scope; ///< how long its tiles hold their bytes
  std::vector<HeldTile> held = {}; ///< the tiles holding its bytes, in allocation order

  int64_t heldBytes() const {
    int64_t sum = 0;
    for (const HeldTile &t : held) sum += t.bytes;
    return sum;
  }

  /// The free byte ranges, [begin, end), lowest first.
  std::vector<std::pair<int64_t, int64_t>> freeRanges() const {
    std::vector<std::pair<int64_t, int64_t>> taken;
    for (const HeldTile &t : held) taken.push_back({t.offset, t.offset + t.bytes});
    std::sort(taken.begin(), taken.end());
    std::vector<std::pair<int64_t, int64_t>> free;
    int64_t next = 0;
    for (auto [begin, end] : taken) {
      if (begin > next) free.push_back({next, begin});
      next = std::max(next, end);
    }
    if (next < capacity) free.push_back({next, capacity});
    return free;
  }

  /// The lowest offset where `bytes` fit in free bytes (first fit), if any.
  std::optional<int64_t> firstFit(int64_t bytes) const {
    for (auto [begin, end] : freeRanges())
      if (end - begin >= bytes) return begin;
    return std::nullopt;
  }

  int64_t largestFreeRange() const {
    int64_t largest = 0;
    for (auto [begin, end] : freeRanges()) largest = std::max(largest, end - begin);
    return largest;
  }
};

/// Per memory: the copies loop-local tiles get, and how long tiles hold their bytes.
using Copies = std::map<isa::MemSpace, int64_t>;
using LifetimesOf = std::map<isa::MemSpace, Lifetimes>;

/// One attempt at allocating a function with a given number of copies for loop-local tiles and given lifetimes,
/// per memory.
class Allocation {
public:
  /// The memories `family` places tiles in, each with `bufs` copies for loop-local tiles and its `lifetimes`.
  Allocation(const isa::Target &t, const TargetFamily &family, const Copies &bufs, const ProgramOrder &order,
             const LifetimesOf &lifetimes)
      : target_(t), family_(family), order_(order) {
    for (const isa::FamilyMemory &m : family.family().memories(t)) {
      auto it = bufs.find(m.space);
      if (it == bufs.end()) continue; // no tile lives there (a TPU's SMEM)
      TileBudget budget = family.tileBudget(m, t);
      memories_.push_back({.space = m.space, .partitions = m.partitions, .capacity = budget.bytes,
                           .limitedBy = std::move(budget.limitedBy), .bankBytes = budget.bankBytes,
                           .remedy = std::move(budget.remedy), .bufs = it->second,
                           .lifetimes = lifetimes.at(m.space)});
    }
  }

  /// Allocates the tiles of `fn` in program order; returns the alloc that did not fit, or null.
  tile::AllocOp run(func::FuncOp fn) {
    tile::AllocOp failed;
    fn.walk<WalkOrder::PreOrder>([&](tile::AllocOp alloc) {
      if (alloc.getFixed() || place(alloc)) return WalkResult::advance();
      failed = alloc;
      return WalkResult::interrupt();
    });
    return failed;
  }

  const std::vector<Memory> &memories() const { return memories_; }
  /// The memory a tile lives in, as the target's family places it.
  Memory &memoryOf(tile::AllocOp alloc) {
    const isa::MemSpace space = family_.tileSpace(tile::memorySpaceOf(alloc.getType()));
    for (Memory &m : memories_)
      if (m.space == space) return m;
    return memories_.front(); // every space tileSpace gives has a memory (the family lists its memories)
  }

private:
  /// Frees what is dead at the alloc at position `at`, then places `alloc`: in the place of a dead tile of its loop
  /// body of the same size, else at the first free range it fits in. The memory is left as it was at `at` when
  /// the tile does not fit, for the error to list.
  bool place(tile::AllocOp alloc) {
    Memory &m = memoryOf(alloc);
    const int64_t at = order_.position(alloc);
    release(m, at);
    Operation *loop = ProgramOrder::outermostLoop(alloc);
    const int64_t copies = loop ? m.bufs : 1;
    HeldTile tile{.alloc = alloc,
                  .bytes = family_.tileCopyBytes(alloc.getType(), target_) * copies,
                  .copies = copies,
                  .lastUse = m.lifetimes == Lifetimes::Liveness ? order_.lastUse(alloc)
                                                               : order_.end(&alloc->getBlock()->back()),
                  .outermostLoop = loop};
    if (HeldTile *dead = loop && m.lifetimes == Lifetimes::Liveness ? deadPlaceInBody(m, tile, at) : nullptr) {
      tile.offset = dead->offset;
      *dead = tile; // the tiles are listed in allocation order: the dead one leaves, the new one comes last
      std::rotate(dead, dead + 1, m.held.data() + m.held.size());
    } else if (std::optional<int64_t> offset = m.firstFit(tile.bytes)) {
      tile.offset = *offset;
      m.held.push_back(tile);
    } else {
      return false;
    }
    Builder b(alloc.getContext());
    alloc.setOffsetAttr(b.getI64IntegerAttr(tile.offset));
    alloc.setBufsAttr(b.getI64IntegerAttr(copies));
    m.peak = std::max(m.peak, tile.offset + tile.bytes);
    return true;
  }

  /// Frees the bytes of the tiles dead at position `at`: a tile of straight-line code after its last use, a loop's
  /// tile after the outermost loop around it.
  void release(Memory &m, int64_t at) {
    std::erase_if(m.held, [&](const HeldTile &t) {
      return (t.outermostLoop ? order_.end(t.outermostLoop) : t.lastUse) < at;
    });
  }

  /// A tile of the same loop body as `tile`, dead at position `at`, whose copies are as many and as large: `tile`
  /// may take its place, copy k for copy k (the lowest such place), since both rotate with the same iterations.
  HeldTile *deadPlaceInBody(Memory &m, const HeldTile &tile, int64_t at) {
    HeldTile *lowest = nullptr;
    for (HeldTile &t : m.held)
      if (t.lastUse < at && t.alloc->getBlock() == tile.alloc->getBlock() && t.copies == tile.copies &&
          t.bytes == tile.bytes && (!lowest || t.offset < lowest->offset))
        lowest = &t;
    return lowest;
  }

  const isa::Target &target_;
  const TargetFamily &family_;
  const ProgramOrder &order_;
  std::vector<Memory> memories_;
};

/// The last allocation tried, and the tile that did not fit in it (null when everything fit).
struct Attempt {
  Allocation allocation;
  tile::AllocOp failed;
};

/// Allocates `fn` with `lifetimes`, halving the copies of the memory that ran out until everything fits, or one
/// copy of it does not.
Attempt fitByHalvingCopies(func::FuncOp fn, const isa::Target &target, const TargetFamily &family, Copies bufs,
                           const ProgramOrder &order, const LifetimesOf &lifetimes) {
  while (true) {
    Allocation a(target, family, bufs, order, lifetimes);
    tile::AllocOp failed = a.run(fn);
    if (!failed) return {std::move(a), failed};
    int64_t &copies = bufs[a.memoryOf(failed).space];
    if (copies == 1) return {std::move(a), failed};
    copies /= 2;
  }
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
  Option<bool> scopeFirst{*this, "scope-first",
                          llvm::cl::desc("Keep tiles to the end of their block where that fits, and reuse dead tiles' "
                                         "bytes only where it does not (false: always by liveness)"),
                          llvm::cl::init(true)};

  void runOnOperation() override {
    const isa::Target *target = targetOf(getOperation());
    if (!target) return signalPassFailure();
    for (auto fn : getOperation().getOps<func::FuncOp>())
      if (failed(allocate(fn, *target))) return signalPassFailure();
  }

  LogicalResult allocate(func::FuncOp fn, const isa::Target &target) {
    const TargetFamily &family = targetFamily(target);
    const int64_t mostBuffers = family.loopBuffers(std::max(1u, loopBuffers.getValue()));
    // A function with a manual_sync scope keeps every tile by scope: its instructions get no automatic waits, so
    // nothing would make a write into reused bytes wait for the dead tile's readers.
    const bool manualSync = fn.walk([](Operation *op) {
                                return op->hasAttr(tile::kManualAttr) ? WalkResult::interrupt() : WalkResult::advance();
                              }).wasInterrupted();
    const Lifetimes fallback = manualSync ? Lifetimes::Scope : Lifetimes::Liveness;
    // The memories tiles live in, each starting with the most copies, and (scope-first) by scope: no bytes shared,
    // so nothing waits for a dead tile's readers. A memory whose tiles do not fit by scope even with one copy is
    // allocated by liveness, from the most copies again; the other memories keep theirs by scope.
    Copies bufs;
    LifetimesOf lifetimes;
    for (tile::MemorySpace space : {tile::MemorySpace::sbuf, tile::MemorySpace::psum}) {
      bufs[family.tileSpace(space)] = mostBuffers;
      lifetimes[family.tileSpace(space)] = scopeFirst ? Lifetimes::Scope : fallback;
    }
    const ProgramOrder order(fn);
    while (true) {
      Attempt attempt = fitByHalvingCopies(fn, target, family, bufs, order, lifetimes);
      if (!attempt.failed) return recordPeaks(fn, attempt.allocation, family, target);
      Lifetimes &ranOut = lifetimes[attempt.allocation.memoryOf(attempt.failed).space];
      if (ranOut == fallback) return outOfMemory(attempt, family, target);
      ranOut = fallback;
    }
  }

  /// The error for the tile that did not fit in `attempt`, at its kernel line.
  LogicalResult outOfMemory(Attempt &attempt, const TargetFamily &family, const isa::Target &target) {
    tile::AllocOp failed = attempt.failed;
    const Memory &s = attempt.allocation.memoryOf(failed);
    // The kernel's line is the error's location; the note is the tessera::Error's hint (ErrorCollector.h).
    InFlightDiagnostic error = failed.emitError() << fmt::format(
        "tile{} {} needs {} of {} but {} here on {}{}. {}", tile::quotedName(failed),
        tile::shapeAndDtype(failed.getType()), amount(s, family.tileCopyBytes(failed.getType(), target)),
        upperName(s.space), freeHere(s), target.name, s.limitedBy.empty() ? "" : "; " + s.limitedBy, liveTiles(s));
    error.attachNote() << kHintNote << fmt::format("{} on {} has {}: {}", upperName(s.space), target.name,
                                                   layout(s), s.remedy);
    return error;
  }

  LogicalResult recordPeaks(func::FuncOp fn, const Allocation &a, const TargetFamily &family,
                            const isa::Target &target) {
    Builder b(fn.getContext());
    for (const Memory &s : a.memories())
      fn->setAttr(fmt::format("tile.{}_peak", isa::name(s.space)), b.getI64IntegerAttr(s.peak));
    family.noteAllocation(fn, target);
    return success();
  }

  /// `bytes` of `s` as its tiles take them: "2 banks (4096 bytes per partition)", "2048 bytes per partition",
  /// "4096 bytes" (VMEM).
  static std::string amount(const Memory &s, int64_t bytes) {
    const std::string perPartition = s.partitions > 1 ? " per partition" : "";
    if (s.bankBytes <= 0) return fmt::format("{} bytes{}", bytes, perPartition);
    return fmt::format("{} ({} bytes{})", banks(s, bytes), bytes, perPartition);
  }

  /// "1 bank", "3 banks".
  static std::string banks(const Memory &s, int64_t bytes) {
    const int64_t n = bytes / s.bankBytes;
    return fmt::format("{} bank{}", n, n == 1 ? "" : "s");
  }

  /// What is left of `s` where a tile does not fit: "all 8 banks are taken", "only 1 of 8 banks is free", "only
  /// 20224 of 180224 are free", and when the free bytes lie apart, the largest range of them: "only 4096 of 180224
  /// are free in one range (8192 in all)".
  static std::string freeHere(const Memory &s) {
    const int64_t free = s.capacity - s.heldBytes(), largest = s.largestFreeRange();
    if (s.bankBytes <= 0)
      return fmt::format("only {} of {} are free{}", largest, s.capacity,
                         largest < free ? fmt::format(" in one range ({} in all)", free) : "");
    const int64_t freeBanks = free / s.bankBytes, largestBanks = largest / s.bankBytes;
    const int64_t allBanks = s.capacity / s.bankBytes;
    if (freeBanks == 0) return fmt::format("all {} banks are taken", allBanks);
    return fmt::format("only {} of {} banks {} free{}", largestBanks, allBanks, largestBanks == 1 ? "is" : "are",
                       largestBanks < freeBanks ? fmt::format(" in one range ({} in all)", freeBanks) : "");
  }

  /// How `s` is organised, from the target file: "8 banks of 2 KiB per partition, and each PSUM tile takes whole
  /// banks", "212984 bytes per partition for tiles", "67043328 bytes for one kernel's tiles".
  static std::string layout(const Memory &s) {
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
  static std::string liveTiles(const Memory &s) {
    if (s.held.empty()) return "Nothing else is live in it here";
    struct Group {
      std::string where, shape, name; ///< name: of a group of one
      int64_t bytes = 0, count = 0, copies = 1;
    };
    std::vector<Group> groups;
    for (const HeldTile &t : s.held) {
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
    std::string out = fmt::format("Live in {} here ({} tile{}):", upperName(s.space), s.held.size(),
                                  s.held.size() == 1 ? "" : "s");
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
