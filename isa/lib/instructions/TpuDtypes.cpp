/// \file
/// The element types a TPU TensorCore's VPU and MXU compute in (tessera/isa/TpuDtypes.h).

#include "tessera/isa/TpuDtypes.h"

#include "tessera/isa/Target.h"

namespace tessera::isa {

bool vpuComputes(DType t) { return t == DType::F32 || t == DType::BF16 || t == DType::I32 || t == DType::U32; }

bool mxuTakes(DType t, const Target *target) {
  if (t == DType::BF16 || t == DType::F32)
    return true;
  return isFp8(t) && (!target || target->tensor.peakFp8Tflops > 0);
}

} // namespace tessera::isa
