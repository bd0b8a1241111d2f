#pragma once
/// \file
/// The Scalar engine's activation instructions beyond tsr::isa::activation (Isa.h): activation with an immediate
/// bias, and activation_reduce, which also reduces each partition's activated row (nki.isa, dst first).

#include "tessera/dsl/Isa.h"
#include "tessera/dsl/Operators.h"
#include "tessera/dsl/Ops.h"

#include <optional>

namespace tsr::isa {

/// dst = func(data * scale + bias) with `bias` an immediate number (nki.isa.activation with a float bias); `scale`
/// a number or a [P, 1] tile.
void activation(const Tile &dst, tessera::isa::ActFunc func, const Operand &data, float bias,
                const Scalar &scale = 1.0f, Loc loc = Loc::current());

/// dst = func(data * scale + bias) and reduce_res[p, 0] = reduce_op over dst's row p, reduced from the FP32
/// results before dst's rounding (nki.isa.activation_reduce); `bias` a [P, 1] tile or none. reduce_op add;
/// max and min too from NeuronCore-v3 on (the definition's assumption, see `tessera isa`).
void activation_reduce(const Tile &dst, tessera::isa::ActFunc op, const Operand &data, tessera::isa::AluOp reduce_op,
                       const Tile &reduce_res, const std::optional<Operand> &bias = std::nullopt, float scale = 1.0f,
                       Loc loc = Loc::current());
/// As above with `bias` an immediate number (nki.isa.activation_reduce with a float bias).
void activation_reduce(const Tile &dst, tessera::isa::ActFunc op, const Operand &data, tessera::isa::AluOp reduce_op,
                       const Tile &reduce_res, float bias, float scale = 1.0f, Loc loc = Loc::current());

} // namespace tsr::isa
