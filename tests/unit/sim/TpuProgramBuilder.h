#pragma once
/// \file
/// Builds small TPU TensorCore programs by hand for the simulator's tests, so that a test reads like the program:
/// VMEM buffers laid out as the lowering lays them out (rows padded to the native sublane tiling, the row pitch
/// rounded up to the lanes, each buffer at a multiple of tpu.vmemAlignment), and the TPU instructions, each in the
/// grid step (Instruction::step) that the last gridStep() started, as the lowering emits them.

#include "ProgramBuilder.h"

#include "tessera/isa/Program.h"
#include "tessera/isa/Target.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tessera::sim::testing {

/// The TPU v5e target file (isa/targets/tpu-v5e.toml).
inline const isa::Target &tpuV5e() {
  static const isa::Target target = isa::Target::find("tpu-v5e");
  return target;
}

/// The scalar core's bookkeeping at the start of a grid step (TpuProgramBuilder::gridStep() numbers it).
inline isa::Instruction gridStep() {
  isa::Instruction inst;
  inst.op = isa::Opcode::GridStep;
  return inst;
}

class TpuProgramBuilder : public ProgramBuilder {
public:
  explicit TpuProgramBuilder(std::string kernel = "tpu_test", const isa::Target &target = tpuV5e())
      : ProgramBuilder(std::move(kernel)), target_(target) {
    program.target = target.name;
  }

  /// A new [rows, cols] VMEM buffer of `dtype`: rows `cols` rounded up to the lanes apart, after the previous
  /// buffer's rows padded to the native tiling (8 rows of 32-bit, 16 of 16-bit, 32 of 8-bit elements).
  isa::AccessPattern buffer(isa::DType dtype, uint32_t rows, int64_t cols) {
    const uint64_t lanes = target_.tpu.lanes, bytes = isa::byteSize(dtype);
    const uint64_t tiling = target_.tpu.sublanes * 4 / bytes;
    const auto pitch = static_cast<int64_t>((cols + lanes - 1) / lanes * lanes);
    isa::AccessPattern ap = isa::AccessPattern::dense(isa::MemSpace::Vmem, dtype, 0, rows, nextVmem_, cols);
    ap.partitionStride = pitch;
    const uint64_t paddedRows = (rows + tiling - 1) / tiling * tiling;
    const uint64_t alignment = target_.tpu.vmemAlignment;
    nextVmem_ += (paddedRows * pitch * bytes + alignment - 1) / alignment * alignment;
    return ap;
  }

  /// Starts the next grid step: appends its GridStep to the scalar unit's stream. Returns the step, 1-based.
  uint32_t gridStep(SourceLoc where = {}) {
    isa::Instruction inst = testing::gridStep();
    inst.step = ++step_;
    add(isa::Engine::ScalarUnit, inst, {}, {}, where);
    return step_;
  }

  /// Appends `inst` to the stream of TPU unit `unit` (Mxu, Vpu or ScalarUnit), in the current grid step (0, which
  /// the checks refuse, before the first gridStep()).
  void compute(isa::Engine unit, isa::Instruction inst, std::vector<isa::SemWait> waits = {},
               std::vector<uint32_t> signals = {}, SourceLoc where = {}) {
    inst.step = step_;
    add(unit, inst, std::move(waits), std::move(signals), where);
  }

  /// Appends a DMA transfer dst <- src to queue `queue` (DMA queues belong to no grid step).
  /// `preserve`: the read of a read-modify-write (isa::Instruction::preserve).
  void dma(uint32_t queue, const isa::AccessPattern &dst, const isa::AccessPattern &src,
           std::vector<isa::SemWait> waits = {}, std::vector<uint32_t> signals = {}, SourceLoc where = {},
           bool preserve = false) {
    isa::Instruction inst;
    inst.op = isa::Opcode::TpuDma;
    inst.dst = dst;
    inst.src0 = src;
    inst.preserve = preserve;
    add(isa::Engine::Dma, inst, std::move(waits), std::move(signals), where, queue);
  }

  /// The index of the stream of `engine` (and DMA `queue`) in program.streams.
  uint32_t streamIndex(isa::Engine engine, uint32_t queue = 0) const {
    for (uint32_t s = 0; s < program.streams.size(); ++s)
      if (program.streams[s].engine == engine && program.streams[s].queue == queue)
        return s;
    return ~uint32_t{0};
  }

private:
  const isa::Target &target_;
  int64_t nextVmem_ = 0;
  uint32_t step_ = 0;
};

/// Columns [col0, col0 + cols) of every row of VMEM buffer `buf`.
inline isa::AccessPattern columns(isa::AccessPattern buf, int64_t col0, int64_t cols) {
  buf.offset += col0 * isa::byteSize(buf.dtype);
  buf.sizes[0] = cols;
  return buf;
}

/// All of HBM tensor `tensor`, [rows, cols] of `dtype`.
inline isa::AccessPattern hbmTensor(int32_t tensor, isa::DType dtype, uint32_t rows, int64_t cols) {
  return hbmTile(tensor, dtype, cols, 0, rows, 0, cols);
}

inline isa::Instruction vpuBinary(const isa::AccessPattern &dst, const isa::AccessPattern &lhs,
                                  const isa::AccessPattern &rhs, isa::AluOp op = isa::AluOp::Add) {
  isa::Instruction inst;
  inst.op = isa::Opcode::VpuBinary;
  inst.alu = op;
  inst.dst = dst;
  inst.src0 = lhs;
  inst.src1 = rhs;
  return inst;
}

inline isa::Instruction vpuFill(const isa::AccessPattern &dst, float value) {
  isa::Instruction inst;
  inst.op = isa::Opcode::VpuFill;
  inst.value = value;
  inst.dst = dst;
  return inst;
}

/// acc[M, N] (+)= lhsT[K, M].T @ rhs[K, N].
inline isa::Instruction mxuMatmul(const isa::AccessPattern &acc, const isa::AccessPattern &lhsT,
                                  const isa::AccessPattern &rhs, bool accumulate = false) {
  isa::Instruction inst;
  inst.op = isa::Opcode::MxuMatmul;
  inst.accumulate = accumulate;
  inst.dst = acc;
  inst.src0 = lhsT;
  inst.src1 = rhs;
  return inst;
}

} // namespace tessera::sim::testing
