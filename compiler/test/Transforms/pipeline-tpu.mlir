// The whole tile -> tpu pipeline, end to end: the CLI traces the DSL matmul kernel (kernels/matmul.cpp) for
// tpu-v5e and compiles it; tessera-opt runs the same stages (tessera-pipeline, which picks them by the module's target) on the same kernel written out
// below. Both must give the same instructions.
// RUN: %tessera compile matmul_tiled --target tpu-v5e --shape M=128,N=512,K=256 --emit tpu | FileCheck %s
// RUN: not %tessera compile matmul_tiled --target tpu-v5e --emit nc 2>&1 | FileCheck %s --check-prefix=WRONG-STAGE
// WRONG-STAGE: --emit nc: target tpu-v5e is a tpu, whose instructions are the tpu dialect's
// RUN: tessera-opt %s -tessera-pipeline | FileCheck %s
// RUN: %tessera compile matmul_tiled --target tpu-v5e --shape M=128,N=512,K=256 --emit tile-allocated | FileCheck %s --check-prefix=ALLOC
// RUN: tessera-opt %s -tile-verify-target -tile-allocate-memory | FileCheck %s --check-prefix=ALLOC

// M = 128, N = 512: one output tile; K = 256: two k steps. The m loop holds only the n loop: no grid step of its
// own; the n loop stores C and the k loop loads A_t and B: grid loops. Each loaded tile goes into its own rotating
// copy and the accumulator is never filled (the first matmul overwrites it).
// CHECK-LABEL: func.func @matmul_tiled
// CHECK-SAME: attributes {tile.vmem_peak = 1114112 : i64}
// The kernel's entry, n = 0, k = 0.
// CHECK-NEXT: tpu.grid_step {engine = "scalar"}{{$}}
// CHECK-NEXT: tpu.grid_step {engine = "scalar"}{{$}}
// CHECK-NEXT: tpu.grid_step {engine = "scalar"}{{$}}
// k = 0: B[0:128, 0:512] on queue 0, A_t[0:128, 0:128] on queue 1, then a matmul that overwrites the accumulator.
// CHECK-NEXT: tpu.dma #tpu.ref<"vmem", bf16, tensor = -1, rows = 128, pitch = 512, offset = 524288, dims = [512], strides = [1]>, #tpu.ref<"hbm", bf16, tensor = 1, rows = 128, pitch = 512, offset = 0, dims = [512], strides = [1]> {engine = "dma", signals = array<i64: 0>}
// CHECK-NEXT: tpu.dma #tpu.ref<"vmem", bf16, tensor = -1, rows = 128, pitch = 128, offset = 786432, dims = [128], strides = [1]>, #tpu.ref<"hbm", bf16, tensor = 0, rows = 128, pitch = 128, offset = 0, dims = [128], strides = [1]> {engine = "dma", queue = 1 : i64, signals = array<i64: 1>}
// CHECK-NEXT: tpu.mxu_matmul #tpu.ref<"vmem", f32, tensor = -1, rows = 128, pitch = 512, offset = 0, dims = [512], strides = [1]>, #tpu.ref<"vmem", bf16, {{.*}} offset = 786432, {{.*}}>, #tpu.ref<"vmem", bf16, {{.*}} offset = 524288, {{.*}}> {engine = "mxu", waits = array<i64: 0, 1, 1, 1>}
// k = 1: B[128:256, 0:512] (element 65536) and A_t[128:256, 0:128] (element 16384) into the second copies, each
// on its statement's queue again (its semaphore counts to 2).
// CHECK-NEXT: tpu.grid_step {engine = "scalar"}{{$}}
// CHECK-NEXT: tpu.dma #tpu.ref<"vmem", bf16, {{.*}} offset = 655360, {{.*}}>, #tpu.ref<"hbm", bf16, tensor = 1, {{.*}} offset = 65536, {{.*}}> {engine = "dma", signals = array<i64: 0>}
// CHECK-NEXT: tpu.dma #tpu.ref<"vmem", bf16, {{.*}} offset = 819200, {{.*}}>, #tpu.ref<"hbm", bf16, tensor = 0, {{.*}} offset = 16384, {{.*}}> {engine = "dma", queue = 1 : i64, signals = array<i64: 1>}
// CHECK-NEXT: tpu.mxu_matmul #tpu.ref<"vmem", f32, {{.*}} offset = 0, {{.*}}>, #tpu.ref<"vmem", {{.*}} offset = 819200, {{.*}}>, #tpu.ref<"vmem", {{.*}} offset = 655360, {{.*}}> {accumulate, engine = "mxu", signals = array<i64: 2>, waits = array<i64: 0, 2, 1, 2>}
// The accumulator to bf16 on the VPU, then the store of C on the first store queue, each waiting for the one before.
// CHECK-NEXT: tpu.vpu_convert #tpu.ref<"vmem", bf16, {{.*}} offset = 851968, {{.*}}>, #tpu.ref<"vmem", f32, {{.*}} offset = 0, {{.*}}> {engine = "vpu", signals = array<i64: 3>, waits = array<i64: 2, 1>}
// CHECK-NEXT: tpu.dma #tpu.ref<"hbm", bf16, tensor = 2, rows = 128, pitch = 512, offset = 0, dims = [512], strides = [1]>, #tpu.ref<"vmem", bf16, {{.*}} offset = 851968, {{.*}}> {engine = "dma", queue = 8 : i64, waits = array<i64: 3, 1>}
// CHECK-NEXT: return

// Loop-local tiles get 2 copies (Pallas' double buffering), every copy a whole number of 4 KiB tiles.
// ALLOC-LABEL: func.func @matmul_tiled
// ALLOC-SAME: attributes {tile.vmem_peak = 1114112 : i64}
// ALLOC: tile.alloc {bufs = 2 : i64, name = "t0", offset = 0 : i64} : memref<128x512xf32, #tile.space<psum>>
// ALLOC: tile.alloc {bufs = 2 : i64, name = "t1", offset = 524288 : i64} : memref<128x512xbf16, #tile.space<sbuf>>
// ALLOC: tile.alloc {bufs = 2 : i64, name = "t2", offset = 786432 : i64} : memref<128x128xbf16, #tile.space<sbuf>>
// ALLOC: tile.alloc {bufs = 2 : i64, name = "t3", offset = 851968 : i64} : memref<128x512xbf16, #tile.space<sbuf>>

// The kernel as `tessera compile matmul_tiled --target tpu-v5e --shape M=128,N=512,K=256 --emit tile` prints it.
module attributes {tessera.target = "tpu-v5e"} {
  func.func @matmul_tiled(%arg0: memref<256x128xbf16> {tile.name = "a_t"}, %arg1: memref<256x512xbf16> {tile.name = "b"}, %arg2: memref<128x512xbf16> {tile.name = "c", tile.output}) {
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    scf.for %arg3 = %c0 to %c1 step %c1 {
      scf.for %arg4 = %c0 to %c1 step %c1 {
        %0 = tile.alloc {name = "t0"} : memref<128x512xf32, #tile.space<psum>>
        tile.memset %0, 0.000000e+00 : memref<128x512xf32, #tile.space<psum>>
        %c2 = arith.constant 2 : index
        scf.for %arg5 = %c0 to %c2 step %c1 {
          %4 = tile.alloc {name = "t1"} : memref<128x512xbf16, #tile.space<sbuf>>
          %c128_0 = arith.constant 128 : index
          %5 = arith.muli %arg5, %c128_0 : index
          %c512_1 = arith.constant 512 : index
          %6 = arith.muli %arg4, %c512_1 : index
          tile.load %arg1[%5, %6], %4 : memref<256x512xbf16>, memref<128x512xbf16, #tile.space<sbuf>>
          %7 = tile.alloc {name = "t2"} : memref<128x128xbf16, #tile.space<sbuf>>
          %8 = arith.muli %arg3, %c128_0 : index
          tile.load %arg0[%5, %8], %7 : memref<256x128xbf16>, memref<128x128xbf16, #tile.space<sbuf>>
          tile.matmul %7, %4, %0 {accumulate} : memref<128x128xbf16, #tile.space<sbuf>>, memref<128x512xbf16, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<psum>>
        }
        %1 = tile.alloc {name = "t3"} : memref<128x512xbf16, #tile.space<sbuf>>
        tile.copy %0, %1 : memref<128x512xf32, #tile.space<psum>>, memref<128x512xbf16, #tile.space<sbuf>>
        %c128 = arith.constant 128 : index
        %2 = arith.muli %arg3, %c128 : index
        %c512 = arith.constant 512 : index
        %3 = arith.muli %arg4, %c512 : index
        tile.store %1, %arg2[%2, %3] : memref<128x512xbf16, #tile.space<sbuf>>, memref<128x512xbf16>
      }
    }
    return
  }
}
