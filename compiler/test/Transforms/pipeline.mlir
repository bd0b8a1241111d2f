// The whole tile -> nc pipeline, end to end: the CLI traces the DSL matmul kernel (kernels/matmul.cpp) and
// compiles it; tessera-opt runs the same stages (tessera-pipeline) on the same kernel written out below. Both
// must give the same instructions.
// RUN: %tessera compile matmul_tiled --shape M=128,N=512,K=256 --emit nc | FileCheck %s
// RUN: tessera-opt %s -tessera-pipeline | FileCheck %s
// RUN: %tessera compile matmul_tiled --shape M=128,N=512,K=256 --emit tile-allocated | FileCheck %s --check-prefix=ALLOC
// RUN: tessera-opt %s -tile-verify-target -tile-allocate-memory | FileCheck %s --check-prefix=ALLOC
// RUN: not %tessera compile matmul_tiled --shape M=100,N=512,K=256 --emit nc 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: not %tessera compile matmul_tiled --emit llvm 2>&1 | FileCheck %s --check-prefix=STAGE

// M = 128, N = 512: one output tile; K = 256: two k steps. Each tile is loaded into its own rotating copy and
// the accumulator needs no memset.
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: attributes {tile.psum_peak = 8192 : i64, tile.sbuf_peak = 9216 : i64}
// k = 0: B[0:128, 0:512] on queue 0, A_t[0:128, 0:128] on queue 1, then a matmul that starts the group.
// CHECK-NEXT: nc.dma_copy #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>, #nc.ap<"hbm", bf16, tensor = 1, partitions = [0, 128], pstride = 512, offset = 0, dims = [512], strides = [1]> {engine = "dma", signals = array<i64: 0>}
// CHECK-NEXT: nc.dma_copy #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 4096, dims = [128], strides = [1]>, #nc.ap<"hbm", bf16, tensor = 0, partitions = [0, 128], pstride = 128, offset = 0, dims = [128], strides = [1]> {engine = "dma", queue = 1 : i64, signals = array<i64: 1>}
// CHECK-NEXT: nc.matmul #nc.ap<"psum", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>, #nc.ap<"sbuf", bf16, {{.*}} offset = 4096, dims = [128], {{.*}}>, #nc.ap<"sbuf", bf16, {{.*}} offset = 0, dims = [512], {{.*}}> {engine = "tensor", waits = array<i64: 0, 1, 1, 1>}
// k = 1: B[128:256, 0:512] (element 65536) and A_t[128:256, 0:128] (element 16384) into the second copies, each
// on its statement's queue again (its semaphore counts to 2).
// CHECK-NEXT: nc.dma_copy #nc.ap<"sbuf", bf16, {{.*}} offset = 1024, {{.*}}>, #nc.ap<"hbm", bf16, tensor = 1, {{.*}} offset = 65536, {{.*}}> {engine = "dma", signals = array<i64: 0>}
// CHECK-NEXT: nc.dma_copy #nc.ap<"sbuf", bf16, {{.*}} offset = 4352, {{.*}}>, #nc.ap<"hbm", bf16, tensor = 0, {{.*}} offset = 16384, {{.*}}> {engine = "dma", queue = 1 : i64, signals = array<i64: 1>}
// CHECK-NEXT: nc.matmul #nc.ap<"psum", {{.*}} offset = 0, {{.*}}>, #nc.ap<"sbuf", {{.*}} offset = 4352, {{.*}}>, #nc.ap<"sbuf", {{.*}} offset = 1024, {{.*}}> {accumulate, engine = "tensor", signals = array<i64: 2>, waits = array<i64: 0, 2, 1, 2>}
// PSUM -> SBUF as bf16 (not on GpSimd), then the store of C, each waiting for the one before.
// CHECK-NEXT: nc.tensor_copy #nc.ap<"sbuf", bf16, {{.*}} offset = 5120, {{.*}}>, #nc.ap<"psum", f32, {{.*}} offset = 0, {{.*}}> {engine = "{{vector|scalar}}", signals = array<i64: 3>, waits = array<i64: 2, 1>}
// CHECK-NEXT: nc.dma_copy #nc.ap<"hbm", bf16, tensor = 2, partitions = [0, 128], pstride = 512, offset = 0, dims = [512], strides = [1]>, #nc.ap<"sbuf", bf16, {{.*}} offset = 5120, {{.*}}> {engine = "dma", queue = 16 : i64, waits = array<i64: 3, 1>}
// CHECK-NEXT: return

// Loop-local tiles get 4 copies; inside the loop nest nothing shares bytes.
// ALLOC-LABEL: func.func @matmul
// ALLOC-SAME: attributes {tile.psum_peak = 8192 : i64, tile.sbuf_peak = 9216 : i64}
// ALLOC: tile.alloc {bufs = 4 : i64, name = "t0", offset = 0 : i64} : memref<128x512xf32, #tile.space<psum>>
// ALLOC: tile.alloc {bufs = 4 : i64, name = "t1", offset = 0 : i64} : memref<128x512xbf16, #tile.space<sbuf>>
// ALLOC: tile.alloc {bufs = 4 : i64, name = "t2", offset = 4096 : i64} : memref<128x128xbf16, #tile.space<sbuf>>
// ALLOC: tile.alloc {bufs = 4 : i64, name = "t3", offset = 5120 : i64} : memref<128x512xbf16, #tile.space<sbuf>>

// SHAPE: Matmul.cpp:{{[0-9]+}}: error: matmul_tiled: M must be a multiple of 128
// STAGE: error: --emit: unknown stage 'llvm'

// The kernel as `tessera compile matmul_tiled --shape M=128,N=512,K=256 --emit tile` prints it.
module attributes {tessera.target = "trn2"} {
  func.func @matmul(%arg0: memref<256x128xbf16> {tile.name = "a_t"}, %arg1: memref<256x512xbf16> {tile.name = "b"}, %arg2: memref<128x512xbf16> {tile.name = "c", tile.output}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c128 = arith.constant 128 : index
    %c512 = arith.constant 512 : index
    scf.for %m = %c0 to %c1 step %c1 {
      scf.for %n = %c0 to %c1 step %c1 {
        %acc = tile.alloc {name = "t0"} : memref<128x512xf32, #tile.space<psum>>
        tile.memset %acc, 0.000000e+00 : memref<128x512xf32, #tile.space<psum>>
        scf.for %k = %c0 to %c2 step %c1 {
          %b = tile.alloc {name = "t1"} : memref<128x512xbf16, #tile.space<sbuf>>
          %kr = arith.muli %k, %c128 : index
          %nc = arith.muli %n, %c512 : index
          tile.load %arg1[%kr, %nc], %b : memref<256x512xbf16>, memref<128x512xbf16, #tile.space<sbuf>>
          %a = tile.alloc {name = "t2"} : memref<128x128xbf16, #tile.space<sbuf>>
          %mc = arith.muli %m, %c128 : index
          tile.load %arg0[%kr, %mc], %a : memref<256x128xbf16>, memref<128x128xbf16, #tile.space<sbuf>>
          tile.matmul %a, %b, %acc {accumulate} : memref<128x128xbf16, #tile.space<sbuf>>, memref<128x512xbf16, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<psum>>
        }
        %out = tile.alloc {name = "t3"} : memref<128x512xbf16, #tile.space<sbuf>>
        tile.copy %acc, %out : memref<128x512xf32, #tile.space<psum>>, memref<128x512xbf16, #tile.space<sbuf>>
        %row = arith.muli %m, %c128 : index
        %col = arith.muli %n, %c512 : index
        tile.store %out, %arg2[%row, %col] : memref<128x512xbf16, #tile.space<sbuf>>, memref<128x512xbf16>
      }
    }
    return
  }
}
