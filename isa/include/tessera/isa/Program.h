#pragma once
/// \file
/// isa::Program: what the compiler hands the simulator. Flat per-engine instruction streams with resolved
/// addresses; engines synchronise only through the counting semaphores the compiler inserted.

#include "tessera/isa/DType.h"
#include "tessera/isa/Error.h"

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::isa {

/// Hbm, Sbuf, Psum: NeuronCore. Vmem and Smem: a TPU TensorCore's vector and scalar memories, flat byte arrays
/// (no partitions; see AccessPattern for how a VMEM operand is walked).
enum class MemSpace : uint8_t { Hbm, Sbuf, Psum, Vmem, Smem };
std::string_view name(MemSpace s);

/// The kinds of instruction stream. NeuronCore: Tensor, Vector, Scalar and GpSimd have one stream each. TPU
/// TensorCore: Mxu (the matrix units), Vpu (vector unit, with its transcendental and cross-lane units) and
/// ScalarUnit (the scalar core: grid-loop bookkeeping), one stream each; the TPU's compute instructions belong to
/// grid steps (Instruction::step). Both: Dma has one stream per DMA queue. Dma stays last.
enum class Engine : uint8_t { Tensor, Vector, Scalar, GpSimd, Mxu, Vpu, ScalarUnit, Dma };
std::string_view name(Engine e);

/// Where an operand lives and how it is walked. Partitions are the outer dimension; the free dimensions
/// (up to 4) are walked row-major inside each partition.
/// In a flat memory (HBM, VMEM, SMEM) the "partitions" are rows: `partitions` rows, `partitionStride` elements
/// apart, starting at `offset` (HBM: elements from the tensor's start; VMEM/SMEM: a byte address).
struct AccessPattern {
  static constexpr unsigned kMaxFreeDims = 4;

  MemSpace space = MemSpace::Sbuf;
  DType dtype = DType::F32;
  int32_t tensor = -1;            ///< HBM: index into Program::tensors; -1 on chip
  uint32_t partitionStart = 0;    ///< first partition (on chip); unused in HBM, where `offset` includes the row
  uint32_t partitions = 0;        ///< number of partitions (rows) touched
  int64_t partitionStride = 0;    ///< HBM/VMEM/SMEM: elements between consecutive rows; unused in SBUF/PSUM
  int64_t offset = 0;             ///< HBM: elements from the tensor's start; SBUF/PSUM: byte address in each
                                  ///< partition; VMEM/SMEM: byte address of element (0, 0...)
  uint8_t freeRank = 0;           ///< number of free dimensions in use
  std::array<int64_t, kMaxFreeDims> sizes{};   ///< free dimension sizes, outermost first
  std::array<int64_t, kMaxFreeDims> strides{}; ///< free dimension strides, in elements

  /// Elements per partition (the product of the free sizes).
  int64_t freeElements() const {
    int64_t elements = 1;
    for (unsigned d = 0; d < freeRank; ++d)
      elements *= sizes[d];
    return elements;
  }
  /// Total bytes touched.
  int64_t bytes() const { return freeElements() * partitions * byteSize(dtype); }
  /// Byte range [first, last) touched inside one partition (SBUF/PSUM), inside the tensor (HBM, all rows) or
  /// inside the memory (VMEM/SMEM, all rows).
  std::pair<int64_t, int64_t> byteExtent() const;
  /// Whether the memory is flat (rows `partitionStride` apart) rather than partitioned.
  bool flat() const { return space == MemSpace::Hbm || space == MemSpace::Vmem || space == MemSpace::Smem; }
  /// A dense [partitions x n] pattern at `offset`: the common case (in a flat memory, rows n elements apart).
  static AccessPattern dense(MemSpace space, DType dtype, uint32_t partitionStart, uint32_t partitions,
                             int64_t offset, int64_t n);

  bool operator==(const AccessPattern &) const = default;
};

/// Every NeuronCore instruction the simulator knows. Each has one definition (isa/InstructionSet.h): its
/// operands, engines, limits, semantics and cost; the enum only names them.
enum class Opcode : uint8_t {
  DmaCopy,              ///< dst <- src0, with conversion; HBM <-> SBUF/PSUM (dma_copy)
  DmaTranspose,         ///< dst[f, p] <- src0[p, f] on a DMA queue (dma_transpose)
  Matmul,               ///< dst[M,N] (PSUM, f32) (+)= src0[K,M].T @ src1[K,N] (nc_matmul)
  Transpose,            ///< dst[F,P] = src0[P,F] on the tensor engine, or in 32x32 blocks on the vector engine
  TensorTensor,         ///< dst = src0 <alu> src1, elementwise
  TensorScalar,         ///< dst = (src0 <alu> operand0) <alu1> operand1; operands are immediates or [P,1] tiles
  ScalarTensorTensor,   ///< dst = (src0 <alu> operand0) <alu1> src2
  Activation,           ///< dst = func(src0 * scale + bias)
  ActivationReduce,     ///< activation, and dst2[p, 0] = reduce_<alu>(dst[p, :])
  TensorReduce,         ///< dst[p, 0] = reduce_<alu>(src0[p, :]) over the free dimensions
  TensorPartitionReduce,///< dst[0, f] = reduce_<alu>(src0[:, f]) across partitions
  TensorTensorScan,     ///< dst[p, i] = (src0[p, i] <alu> dst[p, i-1]) <alu1> src1[p, i], from an initial value
  TensorCopy,           ///< dst = src0, with conversion
  TensorCopyPredicated, ///< dst = src1 != 0 ? src0 : dst
  Memset,               ///< dst = value
  Iota,                 ///< dst[p, i...] = pattern(p, i...)
  AffineSelect,         ///< dst = pattern(p, i...) <alu> 0 ? src0 : onFalse
  RangeSelect,          ///< dst = (i <alu> src1[p]) and (i <alu1> src2[p]) ? src0 : onFalse; dst2 = row max of dst
  BnStats,              ///< dst[p, 0:6] = (count, mean, M2) of src0[p, even i], then of src0[p, odd i]
  BnAggr,               ///< dst[p, 0:2] = (mean, variance) aggregated from bn_stats results
  Reciprocal,           ///< dst = 1 / src0
  Max8,                 ///< dst[p, 0:8] = the 8 largest values of src0[p, :], descending
  FindIndex8,           ///< dst[p, j] = index of the first element of src0[p, :] equal to src1[p, j]
  MatchReplace8,        ///< dst = src0 with the first match of each src1[p, j] replaced by value
  LocalGather,          ///< dst[p, ...] = elements of src0 in p's 16-partition group selected by src1's indices
  StreamShuffle,        ///< dst[32q + i] = src0[32q + mask[i]] in each quadrant q, across partitions (Vector)
  // TPU TensorCore (Mosaic level): operands in VMEM (DMA: HBM <-> VMEM), rows x free elements.
  MxuMatmul,            ///< dst[M,N] (VMEM, f32) (+)= src0[K,M].T @ src1[K,N] on the MXUs
  VpuBinary,            ///< dst = src0 <alu> src1, elementwise on the VPU ([R, 1] operands broadcast)
  VpuUnary,             ///< dst = func(src0 * scale) (VPU, transcendentals on the EUP)
  VpuReduce,            ///< dst[r, 0] = reduce_<alu>(src0[r, :]) (VPU, then a cross-lane reduce on the XLU)
  VpuConvert,           ///< dst = src0, converting the element type (VPU)
  VpuFill,              ///< dst = value (VPU stores of a splatted vreg)
  TpuDma,               ///< dst <- src0 between HBM and VMEM, same dtype (an async copy with a DMA semaphore)
  GridStep,             ///< the scalar core's bookkeeping between grid steps (Pallas' per-step overhead)
  Print,                ///< reads src0 and logs its values with the simulated time (tsr::device_print); dst unused
};
std::string_view name(Opcode op);
/// The inverse of name(Opcode); nullopt for an unknown name.
std::optional<Opcode> parseOpcode(std::string_view name);
inline constexpr unsigned kOpcodeCount = static_cast<unsigned>(Opcode::Print) + 1;

/// The ALU operations of the Vector, Scalar and GpSimd engines. Comparisons give 1.0 or 0.0.
enum class AluOp : uint8_t {
  Add, Subtract, Multiply, Max, Min, Divide,
  Bypass,     ///< the left operand, unchanged (an unused second stage of tensor_scalar)
  Power, AbsMax,
  IsEqual, NotEqual, IsGt, IsGe, IsLt, IsLe,
  LogicalAnd, LogicalOr,
};
std::string_view name(AluOp op);
/// The nki.language function NKI 0.6 names `op` by ("maximum" for Max, "greater" for IsGt...).
std::string_view nkiName(AluOp op);
std::optional<AluOp> parseAluOp(std::string_view name);
/// Whether `op` compares (gives 1.0 or 0.0): IsEqual, NotEqual, IsGt, IsGe, IsLt, IsLe.
bool isComparison(AluOp op);
/// `a <op> b` in FP32 (Max/Min propagate NaN, as numpy does).
float apply(AluOp op, float a, float b);

/// The Scalar engine's activation functions.
enum class ActFunc : uint8_t {
  Identity, Exp, Log, Tanh, Gelu, GeluApproxTanh, Silu, Sigmoid, Relu, Rsqrt, Square, Sqrt, Reciprocal,
};
std::string_view name(ActFunc f);
/// The nki.language function NKI 0.6 names `f` by as an activation ("copy" for Identity).
std::string_view nkiName(ActFunc f);
std::optional<ActFunc> parseActFunc(std::string_view name);
/// f(x) in FP32.
float apply(ActFunc f, float x);

/// An affine function of an element's position: base + partitionStep * p + sum_d steps[d] * i_d, where i_d are
/// the free indices of the destination (iota, affine_select), as NKI's iota and affine_select patterns.
struct AffinePattern {
  int64_t base = 0;
  int64_t partitionStep = 0;
  std::array<int64_t, AccessPattern::kMaxFreeDims> steps{};

  bool operator==(const AffinePattern &) const = default;
};

/// nc_stream_shuffle's shuffle_mask: for each partition i of a 32-partition quadrant, the partition of the source's
/// quadrant it copies (NKI ISA reference, nki.isa.nc_stream_shuffle: "a 32-element list").
inline constexpr size_t kShuffleMaskSize = 32;
/// The mask value that leaves a partition of dst unmodified.
inline constexpr uint8_t kShuffleKeep = 255;
using ShuffleMask = std::array<uint8_t, kShuffleMaskSize>;

/// Wait until semaphore `sem` has been signalled at least `count` times.
struct SemWait {
  uint32_t sem = 0;
  uint32_t count = 0;
};

/// One engine instruction. Which fields matter depends on the opcode (see its definition in InstructionSet.h);
/// an absent operand has zero partitions. Waits happen before it starts; signals (each +1) after it completes.
struct Instruction {
  Opcode op = Opcode::TensorCopy;
  AluOp alu = AluOp::Add;           ///< op0 / the reduction / the comparison
  AluOp alu1 = AluOp::Bypass;       ///< op1 (tensor_scalar, scalar_tensor_tensor, scans, range_select)
  ActFunc func = ActFunc::Identity; ///< Activation
  bool accumulate = false;          ///< Matmul: add into dst instead of overwriting it (not the first of a group)
  bool reverse0 = false;            ///< tensor_scalar: operand0 <alu> data instead of data <alu> operand0;
                                    ///< tensor_copy_predicated: copy where the predicate is zero (reverse_pred)
  bool reverse1 = false;            ///< tensor_scalar: operand1 <alu1> x instead of x <alu1> operand1
  bool negate = false;              ///< tensor_reduce: negate the result
  bool preserve = false;            ///< TPU dma: reads the bytes around a store's window, to write them back
                                    ///< unchanged (so an unwritten byte it reads is not an uninitialised read)
  uint8_t mode = 0;                 ///< per-opcode mode (Matmul: row-tiling/perf mode; Transpose: engine form)
  float scale = 1.0f;               ///< activation, vpu_unary: the input's multiplier
  float bias = 0.0f;                ///< activation: the bias (when no bias tile)
  float value = 0.0f;               ///< memset, vpu_fill: the fill; nc_match_replace8: the replacement;
                                    ///< tensor_copy_predicated: the scalar source (when src0 is absent)
  float onFalse = 0.0f;             ///< affine_select, range_select: the value where the test fails
  float operand0 = 0.0f;            ///< tensor_scalar, scalar_tensor_tensor: operand0 (when no src1 tile)
  float operand1 = 0.0f;            ///< tensor_scalar: operand1 (when no src2 tile)
  float initial = 0.0f;             ///< tensor_tensor_scan: the value before the first element (no src2 tile)
  int64_t elementsPerIndex = 0;     ///< local_gather: elements gathered per index (0: NKI's default, 1)
  int64_t validIndices = 0;         ///< local_gather: indices in use (0: NKI's default, all of them)
  AffinePattern pattern;            ///< Iota, AffineSelect; RangeSelect uses pattern.base as the range start
  ShuffleMask shuffleMask{};        ///< stream_shuffle: the source partition of each partition of a quadrant
  uint32_t text = 0;                ///< Print: its name, an index into Program::texts
  AccessPattern dst, dst2, src0, src1, src2;

  /// Whether two instructions do the same thing: opcode, settings and operands (not waits, signals, location).
  bool sameWork(const Instruction &other) const;

  uint32_t waitBegin = 0, waitCount = 0;     ///< range in Program::waits
  uint32_t signalBegin = 0, signalCount = 0; ///< range in Program::signals
  uint32_t loc = 0;                          ///< index into Program::locations (0 = unknown)
  /// TPU compute instructions (MXU, VPU, scalar unit): the grid step they belong to, 1-based; the step's GridStep
  /// starts it. 0: not in a step (DMA queues, NeuronCore).
  uint32_t step = 0;
};

/// One engine's instruction stream.
struct Stream {
  Engine engine = Engine::Tensor;
  uint32_t queue = 0;  ///< DMA queue number; 0 for the compute engines
  std::vector<Instruction> instructions;
  /// The core it runs on in a program of several cores' streams (mergeCores); -1 in a one-core program.
  int32_t core = -1;

  std::string label() const;  ///< "tensor", "vector", ..., "dma3"; "core1.vector" with a core
};

/// A kernel argument living in HBM, or (isScratch) an HBM tensor the kernel made for its own intermediates
/// (tsr::shared_hbm): not an argument of the device kernel, with no values before the kernel writes it.
struct TensorInfo {
  std::string name;
  std::vector<int64_t> shape;
  DType dtype = DType::F32;
  bool isOutput = false;
  bool isScratch = false;
  /// An input of the kernel: neither an output nor scratch.
  bool isInput() const { return !isOutput && !isScratch; }
  int64_t elements() const;
  int64_t bytes() const { return elements() * byteSize(dtype); }
};

/// A compiled kernel, ready to simulate.
struct Program {
  std::string kernel;
  std::string target;
  std::vector<TensorInfo> tensors;
  std::vector<Stream> streams;
  std::vector<SemWait> waits;
  std::vector<uint32_t> signals;     ///< semaphore ids
  uint32_t semaphores = 0;           ///< number of semaphores used
  std::vector<SourceLoc> locations;  ///< [0] is "unknown"
  std::vector<std::string> texts;    ///< names of Print instructions (Instruction::text)

  std::span<const SemWait> waitsOf(const Instruction &i) const { return {waits.data() + i.waitBegin, i.waitCount}; }
  std::span<const uint32_t> signalsOf(const Instruction &i) const {
    return {signals.data() + i.signalBegin, i.signalCount};
  }
  size_t instructionCount() const;
  /// The name a Print instruction carries ("" when `i.text` is out of range).
  /// (Both arms are string_views: `cond ? texts[i] : ""` would be a std::string temporary, and the view dangle.)
  std::string_view textOf(const Instruction &i) const {
    return i.text < texts.size() ? std::string_view(texts[i.text]) : std::string_view();
  }
};

/// The programs of an SPMD launch's cores (one per core, all with the same tensors and kernel) as one program for
/// reports and traces: every stream tagged with its core (Stream::core), semaphores, waits, signals, source lines
/// and texts renumbered so that each core keeps its own. Not for simulating: sim::simulateChip runs the cores.
Program mergeCores(std::span<const Program> cores);

/// Which operands an instruction reads, and which it writes: the one rule that the compiler's synchronisation,
/// the simulator's checks and the trace and report's memory accounting share.
struct OperandUse {
  bool src0 = false, src1 = false, src2 = false;
  bool readsDst = false;  ///< a matmul accumulating into dst; a predicated copy keeping dst's other elements
  bool writesDst = true;
  bool writesDst2 = false;
};
OperandUse operandUse(const Instruction &inst);

/// Calls `visit(role, pattern, isWrite)` for every operand `inst` uses, reads first; role is "src0", "dst"...
template <typename Visit> void forEachOperand(const Instruction &inst, Visit &&visit) {
  const OperandUse use = operandUse(inst);
  if (use.src0) visit("src0", inst.src0, false);
  if (use.src1) visit("src1", inst.src1, false);
  if (use.src2) visit("src2", inst.src2, false);
  if (use.readsDst) visit("dst", inst.dst, false);
  if (use.writesDst) visit("dst", inst.dst, true);
  if (use.writesDst2) visit("dst2", inst.dst2, true);
}

} // namespace tessera::isa
