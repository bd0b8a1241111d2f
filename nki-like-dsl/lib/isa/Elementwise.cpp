#include "tessera/dsl/isa/Elementwise.h"

#include "../IsaCall.h"
#include "../Recording.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace tsr::isa {

using detail::fail;
using detail::IsaCall;
using detail::recordInstruction;
using tessera::isa::AluOp;
using tessera::isa::Opcode;

namespace {

/// "[[-1, 128], [1, 4]]"
std::string patternStr(const Pattern &pattern) {
  std::vector<std::string> dims;
  for (const auto &[step, num] : pattern)
    dims.push_back(fmt::format("[{}, {}]", step, num));
  return fmt::format("[{}]", fmt::join(dims, ", "));
}

/// NKI's pattern, offset and channel multiplier as the instruction's AffinePattern over dst [P, F]: the pattern
/// must cover F elements and flatten to one free dimension (tiles here have one), else an error at `loc`.
tessera::isa::AffinePattern affinePattern(const char *call, const Pattern &pattern, int64_t offset,
                                          int64_t channelMultiplier, const Tile &dst, const Loc &loc) {
  const std::string where = fmt::format("tsr::isa::{}: pattern {}", call, patternStr(pattern));
  if (pattern.empty() || pattern.size() > tessera::isa::AccessPattern::kMaxFreeDims)
    fail(loc, fmt::format("{} has {} dimensions; NKI's patterns have 1 to {}", where, pattern.size(),
                          tessera::isa::AccessPattern::kMaxFreeDims));
  int64_t elements = 1;
  for (const auto &[step, num] : pattern) {
    if (num < 1)
      fail(loc, fmt::format("{}: every num must be at least 1, not {}", where, num));
    elements *= num;
  }
  const int64_t free = dst.shape()[1];
  if (elements != free)
    fail(loc, fmt::format("{} covers {} elements per partition, but dst {} has {}", where, elements,
                          detail::shapeStr(dst.shape()), free),
         "the product of the pattern's nums must equal dst's free size");
  // Innermost first: each dimension of more than one element must step by the next inner one's whole extent.
  std::optional<int64_t> step, extent;
  for (auto it = pattern.rbegin(); it != pattern.rend(); ++it) {
    const auto [s, num] = *it;
    if (num == 1)
      continue;
    if (step && s != *extent)
      fail(loc, fmt::format("{} steps by {} over a dimension whose inner dimensions span {}: it does not flatten "
                            "to one free dimension",
                            where, s, *extent),
           "tiles here are [P, F]; give the steps of one flat free dimension (e.g. [[1, F]])");
    if (!step)
      step = s;
    extent = s * num;
  }
  tessera::isa::AffinePattern result;
  result.base = offset;
  result.partitionStep = channelMultiplier;
  result.steps[0] = step.value_or(0);
  return result;
}

} // namespace

void tensor_scalar(const Tile &dst, const Operand &data, AluOp op0, const Scalar &operand0, bool reverse0,
                   std::optional<AluOp> op1, const std::optional<Scalar> &operand1, bool reverse1,
                   std::optional<Engine> engine, Loc loc) {
  if (op1.has_value() != operand1.has_value())
    fail(loc, fmt::format("tsr::isa::tensor_scalar: {} without {}", op1 ? "op1" : "operand1", op1 ? "operand1" : "op1"),
         "give op1 and operand1 together, or neither for a single operation");
  IsaCall call{.engine = engine, .dst = dst, .src0 = data, .src1 = operand0.tile()};
  call.settings.op = Opcode::TensorScalar;
  call.settings.alu = op0;
  call.settings.operand0 = operand0.value();
  call.settings.reverse0 = reverse0;
  if (op1) {
    call.settings.alu1 = *op1;
    call.settings.operand1 = operand1->value();
    call.settings.reverse1 = reverse1;
    call.src2 = operand1->tile();
  }
  recordInstruction(call, loc);
}

void scalar_tensor_tensor(const Tile &dst, const Operand &data, AluOp op0, const Scalar &operand0, AluOp op1,
                          const Operand &operand1, bool reverse0, bool reverse1, Loc loc) {
  IsaCall call{.dst = dst, .src0 = data, .src1 = operand0.tile(), .src2 = operand1};
  call.settings.op = Opcode::ScalarTensorTensor;
  call.settings.alu = op0;
  call.settings.alu1 = op1;
  call.settings.operand0 = operand0.value();
  call.settings.reverse0 = reverse0;
  call.settings.reverse1 = reverse1;
  recordInstruction(call, loc);
}

void reciprocal(const Tile &dst, const Operand &data, Loc loc) {
  IsaCall call{.dst = dst, .src0 = data};
  call.settings.op = Opcode::Reciprocal;
  recordInstruction(call, loc);
}

void tensor_copy_predicated(const Tile &dst, const Operand &src, const Operand &predicate, bool reverse_pred,
                            Loc loc) {
  IsaCall call{.dst = dst, .src0 = src, .src1 = predicate};
  call.settings.op = Opcode::TensorCopyPredicated;
  call.settings.reverse0 = reverse_pred;
  recordInstruction(call, loc);
}

void tensor_copy_predicated(const Tile &dst, float src, const Operand &predicate, bool reverse_pred, Loc loc) {
  IsaCall call{.dst = dst, .src1 = predicate};
  call.settings.op = Opcode::TensorCopyPredicated;
  call.settings.value = src;
  call.settings.reverse0 = reverse_pred;
  recordInstruction(call, loc);
}

void iota(const Tile &dst, const Pattern &pattern, int64_t offset, int64_t channel_multiplier, Loc loc) {
  IsaCall call{.dst = dst};
  call.settings.op = Opcode::Iota;
  call.settings.pattern = affinePattern("iota", pattern, offset, channel_multiplier, dst, loc);
  recordInstruction(call, loc);
}

void affine_select(const Tile &dst, const Pattern &pattern, int64_t offset, int64_t channel_multiplier,
                   const Operand &on_true_tile, float on_false_value, AluOp cmp_op, Loc loc) {
  IsaCall call{.dst = dst, .src0 = on_true_tile};
  call.settings.op = Opcode::AffineSelect;
  call.settings.pattern = affinePattern("affine_select", pattern, offset, channel_multiplier, dst, loc);
  call.settings.alu = cmp_op;
  call.settings.onFalse = on_false_value;
  recordInstruction(call, loc);
}

void range_select(const Tile &dst, const Operand &on_true_tile, AluOp comp_op0, AluOp comp_op1,
                  const Operand &bound0, const Operand &bound1, const std::optional<Tile> &reduce_res,
                  int64_t range_start, float on_false_value, Loc loc) {
  IsaCall call{.dst = dst, .dst2 = reduce_res, .src0 = on_true_tile, .src1 = bound0, .src2 = bound1};
  call.settings.op = Opcode::RangeSelect;
  call.settings.alu = comp_op0;
  call.settings.alu1 = comp_op1;
  call.settings.pattern.base = range_start;
  call.settings.onFalse = on_false_value;
  recordInstruction(call, loc);
}

void local_gather(const Tile &dst, const Operand &src_buffer, const Operand &index, int64_t num_elem_per_idx,
                  std::optional<int64_t> num_valid_indices, Loc loc) {
  // The instruction reads 0 as "the default"; a kernel's explicit 0 is a mistake, not the default.
  if (num_elem_per_idx < 1)
    fail(loc, fmt::format("tsr::isa::local_gather: num_elem_per_idx must be at least 1, not {}", num_elem_per_idx));
  if (num_valid_indices && *num_valid_indices < 1)
    fail(loc, fmt::format("tsr::isa::local_gather: num_valid_indices must be at least 1, not {}", *num_valid_indices),
         "leave it out to use every index of a core's partitions");
  IsaCall call{.dst = dst, .src0 = src_buffer, .src1 = index};
  call.settings.op = Opcode::LocalGather;
  call.settings.elementsPerIndex = num_elem_per_idx;
  call.settings.validIndices = num_valid_indices.value_or(0);
  recordInstruction(call, loc);
}

} // namespace tsr::isa
