// nc-verify-access reports a broken access rule at the instruction's location, which the lowering takes from the
// kernel's source line (and `tessera compile --emit nc --locations` keeps).
// RUN: not tessera-opt %s -nc-verify-access 2>&1 | FileCheck %s
// RUN: not %tessera sim %s 2>&1 | FileCheck %s --check-prefix=SIM

// CHECK: my_kernel.cpp:42:7: error: operand dst (sbuf partitions [32, 96)) breaks the access rules of trn2: it starts at partition 32
// SIM: my_kernel.cpp:42: error: operand dst (sbuf partitions [32, 96)) breaks the access rules of trn2: it starts at partition 32
module attributes {tessera.target = "trn2"} {
  func.func @kernel(%x: memref<128x16xf32>) {
    nc.tensor_copy #nc.ap<"sbuf", f32, tensor = -1, partitions = [32, 64], pstride = 0, offset = 64, dims = [16], strides = [1]>, #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 64], pstride = 0, offset = 0, dims = [16], strides = [1]> {engine = "vector"} loc("my_kernel.cpp":42:7)
    return
  }
}
