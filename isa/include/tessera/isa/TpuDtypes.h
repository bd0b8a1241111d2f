#pragma once
/// \file
/// The element types a TPU TensorCore's units compute in. The VPU and MXU instructions' rules
/// (isa/lib/instructions/Tpu*.cpp) and the compiler's TPU legalisation, which converts the other types around
/// them (compiler/lib/Targets/Tpu/LegalizeForTpu.cpp), share these two definitions.

#include "tessera/isa/DType.h"

namespace tessera::isa {

struct Target;

/// Whether VPU arithmetic (vpu_binary, vpu_unary, vpu_reduce) takes `t`: f32, bf16, i32 and u32, Mosaic's vector
/// types on every generation. Others (f16, fp8, u8, i8, i16, u16) are storage only: vpu_convert them to f32 first.
bool vpuComputes(DType t);

/// Whether an MXU takes `t` as a matmul operand: bf16 and f32 on every TPU, fp8 where `target` publishes an FP8
/// peak (tensor.peak_fp8_tflops > 0; with no target, allowed).
bool mxuTakes(DType t, const Target *target);

} // namespace tessera::isa
