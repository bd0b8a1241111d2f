#pragma once
/// \file
/// The kernel graph: what tracing a DSL kernel produces. Plain C++ (no MLIR), so a user's kernel file compiles in
/// seconds; the compiler imports it into the `tile` dialect (compiler/lib/Import/ImportGraph.cpp).
///
/// Tiles are buffers, as in NKI: an Alloc creates one where the kernel asked for it, and ops read and write
/// buffers. Loops are kept, not unrolled: an affine_range body appears once.

#include "tessera/isa/DType.h"
#include "tessera/isa/Error.h"
#include "tessera/isa/Program.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace tsr::graph {

using tessera::SourceLoc;
using tessera::isa::ActFunc;
using tessera::isa::AluOp;
using tessera::isa::DType;
using tessera::isa::MemSpace;

/// coefficient * floor((constant + sum of coefficient * loop variable) / divisor), divisor > 0: an integer division
/// of an affine index (tsr::Index's `/` and `%`).
struct FloorTerm {
  std::vector<std::pair<int, int64_t>> terms; ///< (loop id, coefficient) of the index divided
  int64_t constant = 0;
  int64_t divisor = 1;
  int64_t coefficient = 1;
  bool operator==(const FloorTerm &) const = default;
};

/// An index: constant + sum of coefficient * loop variable + the floor divisions in `floors` (empty for an affine
/// index, the common case).
struct IndexExpr {
  std::vector<std::pair<int, int64_t>> terms; ///< (loop id, coefficient)
  int64_t constant = 0;
  std::vector<FloorTerm> floors;
};

/// A kernel argument in HBM, or (isScratch) an HBM tensor the kernel made for itself (tsr::shared_hbm).
struct TensorArg {
  std::string name;
  std::vector<int64_t> shape;
  DType dtype = DType::F32;
  bool isOutput = false;
  bool isScratch = false; ///< neither input nor output: the kernel's own intermediates, after the signature's tensors
};

/// An on-chip tile buffer: [partitions, free]. A view (Tile::slice, Tile::partition_slice) is a buffer without
/// memory of its own: the free-dimension elements [viewOffset, viewOffset + shape[1]) of partitions
/// [viewPartition, viewPartition + shape[0]) of buffer `viewOf`. An access-pattern view (Tile::ap) walks those
/// partitions' elements as `viewPattern` says instead.
struct Buffer {
  std::string name;             ///< "t3", or the user's name
  std::vector<int64_t> shape;   ///< [partition, free]
  DType dtype = DType::F32;
  MemSpace space = MemSpace::Sbuf;
  SourceLoc loc;
  int64_t offset = -1;          ///< >= 0: placed by the kernel at this byte of each partition (tsr::isa::sbuf_tile_at)
  int viewOf = -1;              ///< >= 0: a view of that buffer (never itself a view)
  IndexExpr viewOffset;         ///< a view's first element along the free dimension (affine in the loops)
  int64_t viewPartition = 0;    ///< a view's first partition of `viewOf`
  /// Tile::ap: [step, count] pairs of the free dimensions, outermost first, flattened (step0, count0, step1, ...):
  /// free element i of the view, i = (i_0 ... i_k) row-major over the counts, is element viewOffset + sum(i_d *
  /// step_d) of the partition. Empty: a contiguous window.
  std::vector<int64_t> viewPattern;
};

/// A rectangular window of an HBM tensor: per dimension an element offset (affine in the loops), a size and a
/// step (element i of the dimension is at offset + i * step; a strided window, as NKI's x[0:n:2]).
struct HbmWindow {
  int tensor = -1;
  std::vector<IndexExpr> offsets;
  std::vector<int64_t> sizes;
  std::vector<int64_t> steps; ///< empty: every step is 1
  /// The tile is the window's transpose (HbmTile::transposed): tile element (i, j) is the window's (j, i), as NKI's
  /// nl.load_transpose2d and a store through out[i_f, i_p]. Offsets, sizes and steps stay the tensor's.
  bool transposed = false;
  bool strided() const {
    for (int64_t s : steps)
      if (s != 1) return true;
    return false;
  }
};

enum class OpKind {
  Load, Store, Matmul, Binary, Activation, Reduce, Copy, Memset,
  BinaryScalar, ///< dst = srcs[0] <alu> value, or value <alu> srcs[0] when `reverse` (a number in the kernel)
  Transpose, ///< dst[f, p] = srcs[0][p, f] (tsr::transpose)
  Broadcast, ///< dst = srcs[0] repeated along its dimensions of size 1, converted to dst's dtype (tsr::broadcast_to)
  FillWhere, ///< dst = value where `where` holds of the element's position, else unchanged (tsr::fill)
  Scan,      ///< dst[p, f] = srcs[0][p, f] * dst[p, f - 1] + srcs[1][p, f], from srcs[2] or 0 (tsr::scan)
  Print,  ///< log srcs[0]'s values at this point of simulated time (tsr::device_print)
  Wait,   ///< the next op waits until `semaphore` reaches `count` (tsr::isa::wait, manual_sync only)
  Signal, ///< the previous op signals `semaphore` when done (tsr::isa::signal, manual_sync only)
  Instruction, ///< one instruction of the instruction set, as `settings` says (the tsr::isa calls without an op
               ///< kind of their own): dst, dst2 and srcs[0..2] fill its operand slots (-1: absent)
};

/// A condition on an element's position: offset + partition * p + free * f <cmp> 0, for the element at partition p
/// and free index f (FillWhere; tsr::Position).
struct PositionTest {
  int64_t partition = 0, free = 0;
  IndexExpr offset;             ///< affine in the loops
  AluOp cmp = AluOp::IsGt;
};

/// One tile operation. Which fields matter depends on `kind`.
struct Op {
  OpKind kind = OpKind::Copy;
  int dst = -1;                 ///< buffer written (not Store)
  std::vector<int> srcs;        ///< buffers read (Activation: the input, then the bias when it has one)
  HbmWindow hbm;                ///< Load source / Store destination
  AluOp alu = AluOp::Add;       ///< Binary, Reduce
  ActFunc func = ActFunc::Identity; ///< Activation
  bool accumulate = false;      ///< Matmul: add into dst
  float value = 0;              ///< Memset and FillWhere value; Activation scale; BinaryScalar's number
  bool reverse = false;         ///< BinaryScalar: the number is the left operand (`1.0f - x`)
  int scaleTile = -1;           ///< Activation: a [P, 1] tile of each row's scale (-1: `value` is the scale)
  PositionTest where;           ///< FillWhere: which elements
  std::string text;             ///< Print: the name it logs under
  int semaphore = -1;           ///< Wait, Signal
  IndexExpr count;              ///< Wait: the count to reach (affine in the loops)
  int dst2 = -1;                ///< Instruction: the second destination buffer; Activation: the row sums (-1: none)
  tessera::isa::Instruction settings; ///< Instruction: the opcode and its parameters (operands come from buffers)
  std::optional<tessera::isa::Engine> engine; ///< Instruction: the engine the kernel chose (NKI's engine=)
  /// Recorded by a tsr::isa:: call: lowered to exactly this one instruction (no memset dropped or folded into
  /// the first matmul of an accumulation group).
  bool isaLevel = false;
  /// Recorded inside a tsr::isa::manual_sync scope: the compiler adds no semaphore waits to it (the kernel's own
  /// Wait and Signal ops order it), and lowers it to exactly one instruction.
  bool manual = false;
  SourceLoc loc;
};

/// A buffer comes into existence here (its lifetime is the enclosing block).
struct Alloc {
  int buffer = -1;
};

struct Loop;
using Stmt = std::variant<Alloc, Op, Loop>;

/// A sequence of statements.
struct Block {
  std::vector<Stmt> stmts;
};

/// An affine_range loop: iterations are independent (no loop-carried dependency through tiles allocated inside).
struct Loop {
  int id = -1;
  int64_t tripCount = 0;
  /// >= 0: not a loop of the kernel's but axis `spmdAxis` of its launch grid (KernelGraph::grid): its iterations
  /// are the programs, which run on the cores of the launch (tsr::program_id). Launch loops are the outermost.
  int spmdAxis = -1;
  Block body;
  SourceLoc loc;
};

/// A traced kernel.
struct KernelGraph {
  std::string name;
  std::vector<TensorArg> tensors;
  std::vector<Buffer> buffers;
  Block body;
  int loops = 0;      ///< number of loops (ids are 0..loops-1)
  /// The launch grid (KernelInfo::grid): programs along each axis; empty for a kernel launched once. Its axes are
  /// the outermost loops of `body`, marked Loop::spmdAxis, axis 0 outermost.
  std::vector<int64_t> grid;
  int semaphores = 0; ///< semaphores the kernel made with tsr::isa::Semaphore (ids are 0..semaphores-1)
  /// The kernel asks the compiler to reorder each engine's stream by list scheduling (KernelInfo).
  bool scheduleInstructions = false;
};

} // namespace tsr::graph
