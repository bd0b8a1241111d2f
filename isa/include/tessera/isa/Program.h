#pragma once
/// \file
/// isa::Program: what the compiler hands the simulator. Flat per-engine instruction streams with resolved
/// addresses; engines synchronise only through the counting semaphores the compiler inserted.

#include "tessera/isa/DType.h"
#include "tessera/isa/Error.h"

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::isa {

enum class MemSpace : uint8_t { Hbm, Sbuf, Psum };
std::string_view name(MemSpace s);

/// The kinds of instruction stream. Tensor, Vector, Scalar and GpSimd have one stream each; Dma has one per
/// DMA queue.
enum class Engine : uint8_t { Tensor, Vector, Scalar, GpSimd, Dma };
std::string_view name(Engine e);

/// Where an operand lives and how it is walked. Partitions are the outer dimension; the free dimensions
/// (up to 4) are walked row-major inside each partition.
struct AccessPattern {
  static constexpr unsigned kMaxFreeDims = 4;

  MemSpace space = MemSpace::Sbuf;
  DType dtype = DType::F32;
  int32_t tensor = -1;            ///< HBM: index into Program::tensors; -1 on chip
  uint32_t partitionStart = 0;    ///< first partition (on chip); unused in HBM, where `offset` includes the row
  uint32_t partitions = 0;        ///< number of partitions (rows) touched
  int64_t partitionStride = 0;    ///< HBM: elements between consecutive rows; unused on chip
  int64_t offset = 0;             ///< HBM: elements from the tensor's start; on chip: byte address in each partition
  uint8_t freeRank = 0;           ///< number of free dimensions in use
  std::array<int64_t, kMaxFreeDims> sizes{};   ///< free dimension sizes, outermost first
  std::array<int64_t, kMaxFreeDims> strides{}; ///< free dimension strides, in elements

  /// Elements per partition (the product of the free sizes).
  int64_t freeElements() const;
  /// Total bytes touched.
  int64_t bytes() const { return freeElements() * partitions * byteSize(dtype); }
  /// Byte range [first, last) touched inside one partition (on chip) or inside the tensor (HBM, all rows).
  std::pair<int64_t, int64_t> byteExtent() const;
  /// A dense [partitions x n] pattern at `offset`: the common case.
  static AccessPattern dense(MemSpace space, DType dtype, uint32_t partitionStart, uint32_t partitions,
                             int64_t offset, int64_t n);
};

enum class Opcode : uint8_t {
  DmaCopy,      ///< dst <- src, with conversion; HBM <-> SBUF/PSUM
  Matmul,       ///< dst[M,N] (PSUM, f32) (+)= src0[K,M].T @ src1[K,N] (stationary, moving)
  TensorTensor, ///< dst = src0 <alu> src1, elementwise
  Activation,   ///< dst = func(src0 * imm + bias), bias = src1 (a [P,1] tile, broadcast) when present, else `bias`
  TensorReduce, ///< dst[p, 0] = reduce_<alu>(src0[p, :]) over the free dimensions
  TensorCopy,   ///< dst = src0, with conversion
  Memset,       ///< dst = imm
  Print,        ///< reads src0 and logs its values with the simulated time (tsr::device_print); dst unused
};
std::string_view name(Opcode op);

enum class AluOp : uint8_t { Add, Subtract, Multiply, Max, Min, Divide };
std::string_view name(AluOp op);

enum class ActFunc : uint8_t { Identity, Exp };
std::string_view name(ActFunc f);

/// Wait until semaphore `sem` has been signalled at least `count` times.
struct SemWait {
  uint32_t sem = 0;
  uint32_t count = 0;
};

/// One engine instruction. Waits happen before it starts; signals (each +1) after it completes.
struct Instruction {
  Opcode op = Opcode::TensorCopy;
  AluOp alu = AluOp::Add;          ///< TensorTensor, TensorReduce
  ActFunc func = ActFunc::Identity; ///< Activation
  bool accumulate = false;         ///< Matmul: add into dst instead of overwriting it (not the first of a group)
  float imm = 0.0f;                ///< Memset value; Activation scale
  float bias = 0.0f;               ///< Activation bias
  uint32_t text = 0;               ///< Print: its name, an index into Program::texts
  AccessPattern dst, src0, src1;

  uint32_t waitBegin = 0, waitCount = 0;     ///< range in Program::waits
  uint32_t signalBegin = 0, signalCount = 0; ///< range in Program::signals
  uint32_t loc = 0;                          ///< index into Program::locations (0 = unknown)
};

/// One engine's instruction stream.
struct Stream {
  Engine engine = Engine::Tensor;
  uint32_t queue = 0;  ///< DMA queue number; 0 for the compute engines
  std::vector<Instruction> instructions;

  std::string label() const;  ///< "tensor", "vector", ..., "dma3"
};

/// A kernel argument living in HBM.
struct TensorInfo {
  std::string name;
  std::vector<int64_t> shape;
  DType dtype = DType::F32;
  bool isOutput = false;
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

/// Which operands an instruction reads, and whether it writes dst: the one rule that the simulator's checks and
/// the trace and report's memory accounting share.
struct OperandUse {
  bool src0 = false, src1 = false;
  bool readsDst = false;  ///< a matmul accumulating into dst
  bool writesDst = true;
};
OperandUse operandUse(const Instruction &inst);

} // namespace tessera::isa
