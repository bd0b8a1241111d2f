#include "tessera/dsl/isa/Activation.h"

#include "../IsaCall.h"

namespace tsr::isa {

namespace {

/// The settings of an activation_reduce call; the bias is the tile in call.src1 or, without one, `bias`.
detail::IsaCall activationReduceCall(const Tile &dst, tessera::isa::ActFunc op, const Operand &data,
                                     tessera::isa::AluOp reduceOp, const Tile &reduceRes, float bias, float scale) {
  detail::IsaCall call;
  call.dst = dst;
  call.dst2 = reduceRes;
  call.src0 = data;
  call.settings.op = tessera::isa::Opcode::ActivationReduce;
  call.settings.func = op;
  call.settings.alu = reduceOp;
  call.settings.scale = scale;
  call.settings.bias = bias;
  return call;
}

} // namespace

void activation(const Tile &dst, tessera::isa::ActFunc func, const Operand &data, float bias, const Scalar &scale,
                Loc loc) {
  detail::IsaCall call;
  call.dst = dst;
  call.src0 = data;
  call.src2 = scale.tile();
  call.settings.op = tessera::isa::Opcode::Activation;
  call.settings.func = func;
  call.settings.scale = scale.tile() ? 1.0f : scale.value();
  call.settings.bias = bias;
  detail::recordInstruction(call, loc);
}

void activation_reduce(const Tile &dst, tessera::isa::ActFunc op, const Operand &data, tessera::isa::AluOp reduce_op,
                       const Tile &reduce_res, const std::optional<Operand> &bias, float scale, Loc loc) {
  detail::IsaCall call = activationReduceCall(dst, op, data, reduce_op, reduce_res, 0.0f, scale);
  call.src1 = bias;
  detail::recordInstruction(call, loc);
}

void activation_reduce(const Tile &dst, tessera::isa::ActFunc op, const Operand &data, tessera::isa::AluOp reduce_op,
                       const Tile &reduce_res, float bias, float scale, Loc loc) {
  detail::recordInstruction(activationReduceCall(dst, op, data, reduce_op, reduce_res, bias, scale), loc);
}

} // namespace tsr::isa
