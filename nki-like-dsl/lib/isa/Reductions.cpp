#include "tessera/dsl/isa/Reductions.h"

#include "../IsaCall.h"

namespace tsr::isa {

using tessera::isa::AluOp;
using tessera::isa::Opcode;

namespace {

/// A call of `op` writing `dst` from `src0` (and `src1`, if any).
detail::IsaCall callOf(Opcode op, const Tile &dst, const Operand &src0,
                       const std::optional<Operand> &src1 = std::nullopt) {
  detail::IsaCall call;
  call.dst = dst;
  call.src0 = src0;
  call.src1 = src1;
  call.settings.op = op;
  return call;
}

/// A tensor_tensor_scan call; the initial value is call.src2 when set, else `initial`.
detail::IsaCall scanCall(const Tile &dst, const Operand &data0, const Operand &data1, float initial, AluOp op0,
                         AluOp op1, bool reverse0, bool reverse1) {
  detail::IsaCall call = callOf(Opcode::TensorTensorScan, dst, data0, data1);
  call.settings.alu = op0;
  call.settings.alu1 = op1;
  call.settings.reverse0 = reverse0;
  call.settings.reverse1 = reverse1;
  call.settings.initial = initial;
  return call;
}

} // namespace

void tensor_partition_reduce(const Tile &dst, AluOp op, const Operand &data, Loc loc) {
  detail::IsaCall call = callOf(Opcode::TensorPartitionReduce, dst, data);
  call.settings.alu = op;
  detail::recordInstruction(call, loc);
}

void tensor_tensor_scan(const Tile &dst, const Operand &data0, const Operand &data1, const Operand &initial,
                        AluOp op0, AluOp op1, bool reverse0, bool reverse1, Loc loc) {
  detail::IsaCall call = scanCall(dst, data0, data1, 0.0f, op0, op1, reverse0, reverse1);
  call.src2 = initial;
  detail::recordInstruction(call, loc);
}

void tensor_tensor_scan(const Tile &dst, const Operand &data0, const Operand &data1, float initial, AluOp op0,
                        AluOp op1, bool reverse0, bool reverse1, Loc loc) {
  detail::recordInstruction(scanCall(dst, data0, data1, initial, op0, op1, reverse0, reverse1), loc);
}

void bn_stats(const Tile &dst, const Operand &data, Loc loc) {
  detail::recordInstruction(callOf(Opcode::BnStats, dst, data), loc);
}

void bn_aggr(const Tile &dst, const Operand &data, Loc loc) {
  detail::recordInstruction(callOf(Opcode::BnAggr, dst, data), loc);
}

void max8(const Tile &dst, const Operand &src, Loc loc) {
  detail::recordInstruction(callOf(Opcode::Max8, dst, src), loc);
}

void nc_find_index8(const Tile &dst, const Operand &data, const Operand &vals, Loc loc) {
  detail::recordInstruction(callOf(Opcode::FindIndex8, dst, data, vals), loc);
}

void nc_match_replace8(const Tile &dst, const Operand &data, const Operand &vals, float imm,
                       const std::optional<Tile> &dst_idx, Loc loc) {
  detail::IsaCall call = callOf(Opcode::MatchReplace8, dst, data, vals);
  call.dst2 = dst_idx;
  call.settings.value = imm;
  detail::recordInstruction(call, loc);
}

} // namespace tsr::isa
