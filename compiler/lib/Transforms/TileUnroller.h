#pragma once
/// \file
/// Internal to the lowerings from tile to a target dialect (lower-tile-to-nc, lower-tile-to-tpu): the walk of a
/// kernel as it runs. It unrolls every loop, evaluates the index arithmetic, gives each tile's current copy an
/// address (tile i of a loop uses copy i mod bufs of its allocation; a view is a window of its source's copy),
/// tracks zero-filled accumulators, and counts instructions against the limit. A target's lowering says what
/// each tile op becomes, and where its instructions go.

#include "tessera/isa/Program.h"
#include "tessera/isa/Target.h"

#include "tessera/compiler/Dialect/Tile/TileDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include <map>
#include <optional>
#include <tuple>

namespace tessera::compiler {

/// A tile allocation while the kernel is walked.
struct Buffer {
  isa::MemSpace space = isa::MemSpace::Sbuf;
  isa::DType dtype = isa::DType::F32;
  int64_t partitions = 0, freeSize = 0;  ///< rows and elements per row
  int64_t partitionStart = 0;            ///< on chip: the first partition (a view's: Tile::partition_slice)
  int64_t pitch = 0;                     ///< flat memories (VMEM): elements from one row to the next
  int64_t offset = 0, bufs = 1, copyBytes = 0;
  int64_t instance = -1;        ///< how many times the alloc has run, minus one
  bool accumulator = false;     ///< a PSUM tile of the tile dialect: what matmuls accumulate into
  bool zeroPending = false;     ///< zero-filled, fill not emitted yet
  bool zeroFilled = false;      ///< holds the zeros of a fill that nothing has overwritten since
  /// An access-pattern view (Tile::ap): its free dimensions' [step, count] pairs, outermost first, flattened.
  llvm::SmallVector<int64_t, 8> freePattern;
  std::optional<mlir::Location> memsetLoc;

  int64_t address() const { return offset + (instance % bufs) * copyBytes; }
  /// The whole tile, or (when `width` is larger than a [P, 1] tile's 1) the tile broadcast to `width`; in a flat
  /// memory (VMEM), when `rows` is larger than a [1, F] tile's 1, its row read `rows` times (a row stride of 0). An
  /// access-pattern view walks its pattern.
  isa::AccessPattern pattern(int64_t width = 0, int64_t rows = 0) const;
};

/// Numbers the ops nested in `body` in pre-order from 0: the numbering of Provenance::tileOps.
llvm::DenseMap<mlir::Operation *, int64_t> numberTileOps(mlir::Block &body);

/// Walks a tile function as it runs; subclasses emit the target's instructions.
class TileUnroller {
public:
  /// `maxInstructions`: the most instructions countInstruction allows (0: no limit).
  TileUnroller(const isa::Target &target, mlir::OpBuilder &builder, uint64_t maxInstructions)
      : target_(target), b_(builder), maxInstructions_(maxInstructions) {}
  virtual ~TileUnroller() = default;

  /// Lowers the ops of `block` in order, running loop bodies once per iteration.
  mlir::LogicalResult block(mlir::Block &block);
  /// Makes every instruction emitted from now on carry tile::kOriginAttr: the number of its tile op within `body`.
  void recordOrigins(mlir::Block &body) { origins_ = numberTileOps(body); }

protected:
  /// Lowers one tile op other than a loop, index arithmetic, an alloc or a view.
  virtual mlir::LogicalResult lower(mlir::Operation *op) = 0;
  /// Called before each iteration of `loop` runs its body.
  virtual mlir::LogicalResult beginIteration(mlir::scf::ForOp loop) { return mlir::success(); }
  /// Emits the deferred zero fill of `b`, which is about to be read (at b.memsetLoc).
  virtual mlir::LogicalResult emitZeroFill(Buffer &b) = 0;

  /// The value of an index computed so far.
  int64_t value(mlir::Value v) const { return ints_.lookup(v); }
  /// The buffer of `tile` about to be read: a pending zero fill is emitted first.
  Buffer &read(mlir::Value tile);
  /// The buffer of `tile` about to be overwritten: a pending zero fill is dead.
  Buffer &written(mlir::Value tile);
  /// The buffer of `tile`, as it is.
  Buffer &bufferOf(mlir::Value tile) { return buffers_.find(tile)->second; }
  /// Emits `b`'s pending zero fill, if any.
  void flushZero(Buffer &b);

  // The instruction each tile op becomes, with the target's `opcode` for it: operands at their current
  // addresses, sources read (pending zero fills emitted) before destinations are written.

  /// A tile.binary, tile.activation, tile.reduce, tile.copy, tile.broadcast, tile.transpose, tile.fill_where or
  /// tile.print: its operator, function and scale, and its operands (an [R, 1] source of a binary op broadcast to
  /// dst's width; a broadcast's source repeated to dst's shape, its rows only in a flat memory; an activation's
  /// bias in src1 and row sums in dst2; a fill_where reads and writes its tile).
  isa::Instruction computeInstruction(mlir::Operation *op, isa::Opcode opcode);
  /// A tile.matmul: exactly as written when `verbatim`; else accumulating only onto what may not be zeros (onto
  /// a zero-filled accumulator the matmul overwrites instead, and the fill is never emitted).
  isa::Instruction matmulInstruction(tile::MatmulOp o, isa::Opcode opcode, bool verbatim);
  /// A tile.load or tile.store: a transfer between HBM and the tile.
  isa::Instruction transferInstruction(mlir::Operation *op, isa::Opcode opcode);
  /// A tile.memset; nullopt when `mayDefer` and it fills an accumulator with zeros: that fill is emitted (with
  /// zeroFill) only if something reads the tile before a matmul overwrites it.
  std::optional<isa::Instruction> fillInstruction(tile::MemsetOp o, isa::Opcode opcode, bool mayDefer);
  /// The deferred zero fill of `b`.
  static isa::Instruction zeroFill(const Buffer &b, isa::Opcode opcode);
  /// Counts one more instruction: an error at `loc` past CompileOptions::maxInstructions.
  mlir::LogicalResult countInstruction(mlir::Location loc);
  /// The DMA queue of a transfer of the tile op being lowered: every transfer of one kernel statement to or from one
  /// HBM tensor (the op's source location and the tensor: all iterations of its loops, and the copies a C++ loop of
  /// the kernel traced from one line; a helper's line called for two tensors is two statements) goes to one queue,
  /// in program order. NKI issues the instances of one DMA instruction on one queue (NKI's DMA
  /// overview: a transfer is submitted to one queue, tied to the engine that triggers it); Pallas' pipeline copies
  /// an operand's blocks one after another (and the published v5e matmul times fit this better than a queue per
  /// copy, docs/fidelity.md). Statements take queues round robin, loads the first half of the target's queues,
  /// stores (to HBM) the second half, so that a store waiting for its data never holds up the loads behind it. Ops
  /// without a location (hand-built IR) take a queue per op.
  unsigned nextDmaQueue(const isa::Instruction &transfer);

  /// The tile op being lowered.
  mlir::Operation *current() const { return current_; }
  /// Marks `instruction`, just built, with the tile op being lowered (when recording origins).
  void stamp(mlir::Operation *instruction);
  /// Stops the walk after the current op: an error was emitted where no LogicalResult could carry it.
  void fail() { error_ = true; }

  const isa::Target &target_;
  mlir::OpBuilder &b_;

private:
  mlir::LogicalResult operation(mlir::Operation *op);
  mlir::LogicalResult loop(mlir::scf::ForOp o);
  mlir::LogicalResult alloc(tile::AllocOp o);
  mlir::LogicalResult view(tile::ViewOp o);
  /// The HBM side of a DMA to or from buffer `b`, as `b`'s elements walk it: the window at `indices` of `hbm`,
  /// strided by `steps` (rows, columns) when given; `transpose`: the window's transpose, partition p of `b` walking
  /// column p of the window (partition stride 1, free stride a tensor row: element-strided).
  isa::AccessPattern hbmPattern(mlir::Value hbm, mlir::ValueRange indices,
                                std::optional<llvm::ArrayRef<int64_t>> steps, bool transpose, const Buffer &b) const;

  llvm::DenseMap<mlir::Value, int64_t> ints_;
  llvm::DenseMap<mlir::Value, Buffer> buffers_;
  unsigned nextLoadQueue_ = 0, nextStoreQueue_ = 0;
  /// nextDmaQueue's queue of each statement's loads (false) and stores (true) of each HBM tensor
  std::map<std::tuple<const void *, int32_t, bool>, unsigned> statementQueues_;
  mlir::Operation *current_ = nullptr;
  llvm::DenseMap<mlir::Operation *, int64_t> origins_; ///< empty unless recordOrigins was called
  llvm::SmallVector<int64_t> iterations_;              ///< the iteration of each loop being walked, outermost first
  bool error_ = false;
  uint64_t maxInstructions_ = 0;
  uint64_t emitted_ = 0;
};

isa::AluOp toIsa(tile::Alu a);
isa::ActFunc toIsa(tile::Func f);

/// Replaces the body of `fn` with what `lower` builds from the old body (which it must leave alone) with `b`,
/// whose insertion point is the new body; the arguments stay, and a return ends the new body.
mlir::LogicalResult replaceBody(mlir::func::FuncOp fn,
                                llvm::function_ref<mlir::LogicalResult(mlir::Block &body, mlir::OpBuilder &b)> lower);

} // namespace tessera::compiler
