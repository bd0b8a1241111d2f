// lower-tile-to-nc: loops unrolled, addresses resolved (HBM element offsets, rotating SBUF/PSUM copies), one nc
// op per engine instruction on the engine that runs it, zero fills of PSUM folded into the first matmul.
// RUN: tessera-opt %s -split-input-file -verify-diagnostics -lower-tile-to-nc | FileCheck %s

// A tiled matmul C[128, 1024] = A_t[256, 128]^T @ B[256, 1024], with allocation already done: the n loop
// (2 iterations) holds the accumulator (2 copies) and the output tile (2 copies); the k loop (2 iterations)
// loads B and A_t tiles into 4 rotating copies each.
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @matmul
  // CHECK-SAME: (%{{.*}}: memref<256x128xbf16>, %{{.*}}: memref<256x1024xbf16>, %{{.*}}: memref<128x1024xbf16>)
  // CHECK-NOT: scf.for
  // CHECK-NOT: tile.
  // CHECK-NOT: nc.memset
  //
  // n = 0, k = 0: B[0, 0] into copy 0 of t1 (offset 0), A_t[0, 0] into copy 0 of t2 (offset 4096); the first
  // matmul into the zeroed accumulator starts the group: no `accumulate`, no memset.
  // CHECK: nc.dma_copy #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>, #nc.ap<"hbm", bf16, tensor = 1, partitions = [0, 128], pstride = 1024, offset = 0, dims = [512], strides = [1]> {engine = "dma"}{{$}}
  // CHECK-NEXT: nc.dma_copy #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 4096, dims = [128], strides = [1]>, #nc.ap<"hbm", bf16, tensor = 0, partitions = [0, 128], pstride = 128, offset = 0, dims = [128], strides = [1]> {engine = "dma", queue = 1 : i64}
  // CHECK-NEXT: nc.matmul #nc.ap<"psum", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>, #nc.ap<"sbuf", bf16, {{.*}} offset = 4096, {{.*}}>, #nc.ap<"sbuf", bf16, {{.*}} offset = 0, {{.*}}> {engine = "tensor"}{{$}}
  //
  // n = 0, k = 1: B[128, 0] (element 128 * 1024) into copy 1 (1024 bytes on), A_t[128, 0] into copy 1 (256 on).
  // CHECK-NEXT: nc.dma_copy #nc.ap<"sbuf", bf16, {{.*}} offset = 1024, {{.*}}>, #nc.ap<"hbm", bf16, tensor = 1, {{.*}} offset = 131072, {{.*}}> {engine = "dma"}{{$}}
  // CHECK-NEXT: nc.dma_copy #nc.ap<"sbuf", bf16, {{.*}} offset = 4352, {{.*}}>, #nc.ap<"hbm", bf16, tensor = 0, {{.*}} offset = 16384, {{.*}}> {engine = "dma", queue = 1 : i64}
  // CHECK-NEXT: nc.matmul #nc.ap<"psum", {{.*}} offset = 0, {{.*}}>, #nc.ap<"sbuf", {{.*}} offset = 4352, {{.*}}>, #nc.ap<"sbuf", {{.*}} offset = 1024, {{.*}}> {accumulate, engine = "tensor"}
  //
  // The PSUM -> SBUF copy never goes to GpSimd (no PSUM port); the store writes C[0, 0].
  // CHECK-NEXT: nc.tensor_copy #nc.ap<"sbuf", bf16, {{.*}} offset = 5120, dims = [512], {{.*}}>, #nc.ap<"psum", f32, {{.*}} offset = 0, {{.*}}> {engine = "{{vector|scalar}}"}
  // CHECK-NEXT: nc.dma_copy #nc.ap<"hbm", bf16, tensor = 2, partitions = [0, 128], pstride = 1024, offset = 0, dims = [512], strides = [1]>, #nc.ap<"sbuf", bf16, {{.*}} offset = 5120, {{.*}}> {engine = "dma", queue = 16 : i64}
  //
  // n = 1: B[0, 512], the next copies (2 and 3) of t1 and t2, the accumulator's second copy (one bank on).
  // CHECK-NEXT: nc.dma_copy #nc.ap<"sbuf", bf16, {{.*}} offset = 2048, {{.*}}>, #nc.ap<"hbm", bf16, tensor = 1, {{.*}} offset = 512, {{.*}}> {engine = "dma"}{{$}}
  // CHECK-NEXT: nc.dma_copy #nc.ap<"sbuf", bf16, {{.*}} offset = 4608, {{.*}}>, #nc.ap<"hbm", bf16, tensor = 0, {{.*}} offset = 0, {{.*}}> {engine = "dma", queue = 1 : i64}
  // CHECK-NEXT: nc.matmul #nc.ap<"psum", {{.*}} offset = 2048, {{.*}}>, #nc.ap<"sbuf", {{.*}} offset = 4608, {{.*}}>, #nc.ap<"sbuf", {{.*}} offset = 2048, {{.*}}> {engine = "tensor"}{{$}}
  // CHECK-NEXT: nc.dma_copy #nc.ap<"sbuf", bf16, {{.*}} offset = 3072, {{.*}}>, #nc.ap<"hbm", bf16, tensor = 1, {{.*}} offset = 131584, {{.*}}> {engine = "dma"}{{$}}
  // CHECK-NEXT: nc.dma_copy #nc.ap<"sbuf", bf16, {{.*}} offset = 4864, {{.*}}>, #nc.ap<"hbm", bf16, tensor = 0, {{.*}} offset = 16384, {{.*}}> {engine = "dma", queue = 1 : i64}
  // CHECK-NEXT: nc.matmul #nc.ap<"psum", {{.*}} offset = 2048, {{.*}}>, #nc.ap<"sbuf", {{.*}} offset = 4864, {{.*}}>, #nc.ap<"sbuf", {{.*}} offset = 3072, {{.*}}> {accumulate, engine = "tensor"}
  // CHECK-NEXT: nc.tensor_copy #nc.ap<"sbuf", bf16, {{.*}} offset = 6144, {{.*}}>, #nc.ap<"psum", f32, {{.*}} offset = 2048, {{.*}}> {engine = "{{vector|scalar}}"}
  // CHECK-NEXT: nc.dma_copy #nc.ap<"hbm", bf16, tensor = 2, {{.*}} offset = 512, {{.*}}>, #nc.ap<"sbuf", bf16, {{.*}} offset = 6144, {{.*}}> {engine = "dma", queue = 16 : i64}
  // CHECK-NEXT: return
  func.func @matmul(%a_t: memref<256x128xbf16>, %b: memref<256x1024xbf16>, %c: memref<128x1024xbf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c128 = arith.constant 128 : index
    %c512 = arith.constant 512 : index
    scf.for %n = %c0 to %c2 step %c1 {
      %acc = tile.alloc {name = "acc", offset = 0 : i64, bufs = 2 : i64} : memref<128x512xf32, #tile.space<psum>>
      tile.memset %acc, 0.0 : memref<128x512xf32, #tile.space<psum>>
      %col = arith.muli %n, %c512 : index
      scf.for %k = %c0 to %c2 step %c1 {
        %row = arith.muli %k, %c128 : index
        %t1 = tile.alloc {name = "t1", offset = 0 : i64, bufs = 4 : i64} : memref<128x512xbf16, #tile.space<sbuf>>
        tile.load %b[%row, %col], %t1 : memref<256x1024xbf16>, memref<128x512xbf16, #tile.space<sbuf>>
        %t2 = tile.alloc {name = "t2", offset = 4096 : i64, bufs = 4 : i64} : memref<128x128xbf16, #tile.space<sbuf>>
        tile.load %a_t[%row, %c0], %t2 : memref<256x128xbf16>, memref<128x128xbf16, #tile.space<sbuf>>
        tile.matmul %t2, %t1, %acc {accumulate} : memref<128x128xbf16, #tile.space<sbuf>>, memref<128x512xbf16, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<psum>>
      }
      %out = tile.alloc {name = "out", offset = 5120 : i64, bufs = 2 : i64} : memref<128x512xbf16, #tile.space<sbuf>>
      tile.copy %acc, %out : memref<128x512xf32, #tile.space<psum>>, memref<128x512xbf16, #tile.space<sbuf>>
      tile.store %out, %c[%c0, %col] : memref<128x512xbf16, #tile.space<sbuf>>, memref<128x1024xbf16>
    }
    return
  }
}

// -----

// A strided window (steps): rows 3 apart (3 x 64 elements between partitions), every other column from
// column 1 (offsets and strides in elements).
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @strided_load
  // CHECK: nc.dma_copy {{.*}}, #nc.ap<"hbm", bf16, tensor = 0, partitions = [0, 4], pstride = 192, offset = 1, dims = [32], strides = [2]>
  func.func @strided_load(%x: memref<12x64xbf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %t = tile.alloc {offset = 0 : i64, bufs = 1 : i64} : memref<4x32xbf16, #tile.space<sbuf>>
    tile.load %x[%c0, %c1], %t {steps = array<i64: 3, 2>} : memref<12x64xbf16>, memref<4x32xbf16, #tile.space<sbuf>>
    return
  }
}

// -----

// Transposed windows (tile.load/tile.store `transpose`, NKI's nl.load_transpose2d and a store through
// out[i_f, i_p]): a [64, 128] tile of the [128, 64] window at row 128 of x [256, 64]. On trn2 a bf16 load is a DMA
// transpose reading the window as it lies (128 rows 64 apart, 64 columns); an f32 one, and every store, an
// element-strided copy: partition p walks column p, partitions 1 element apart, elements a row (64) apart, and a
// note says its simulated time is optimistic (once per op).
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @transposed_windows
  // CHECK: nc.inst "dma_transpose" {dst = #nc.ap<"sbuf", bf16, {{.*}}partitions = [0, 64]{{.*}}dims = [128]{{.*}}>, engine = "dma", src0 = #nc.ap<"hbm", bf16, tensor = 0, partitions = [0, 128], pstride = 64, offset = 8192, dims = [64], strides = [1]>}
  // CHECK: nc.dma_copy {{.*}}#nc.ap<"hbm", f32, tensor = 1, partitions = [0, 64], pstride = 1, offset = 8192, dims = [128], strides = [64]>
  // CHECK: nc.dma_copy #nc.ap<"hbm", bf16, tensor = 2, partitions = [0, 64], pstride = 1, offset = 8192, dims = [128], strides = [64]>
  func.func @transposed_windows(%x: memref<256x64xbf16>, %w: memref<256x64xf32>, %y: memref<256x64xbf16>) {
    %c0 = arith.constant 0 : index
    %c128 = arith.constant 128 : index
    %t = tile.alloc {offset = 0 : i64, bufs = 1 : i64} : memref<64x128xbf16, #tile.space<sbuf>>
    %u = tile.alloc {offset = 256 : i64, bufs = 1 : i64} : memref<64x128xf32, #tile.space<sbuf>>
    tile.load %x[%c128, %c0], %t {transpose} : memref<256x64xbf16>, memref<64x128xbf16, #tile.space<sbuf>>
    // expected-remark@+1 {{load: this transposed window moves as an element-strided DMA (one element per step, a tensor row apart), simulated at NKI's strided-access rate only; on hardware it is likely slower (docs/dsl.md, "Transposed windows"); a 2-byte dtype on NeuronCore-v3 or later loads it with a DMA transpose}}
    tile.load %w[%c128, %c0], %u {transpose} : memref<256x64xf32>, memref<64x128xf32, #tile.space<sbuf>>
    // expected-remark@+1 {{store: this transposed window moves as an element-strided DMA (one element per step, a tensor row apart), simulated at NKI's strided-access rate only; on hardware it is likely slower (docs/dsl.md, "Transposed windows")}}
    tile.store %t, %y[%c128, %c0] {transpose} : memref<64x128xbf16, #tile.space<sbuf>>, memref<256x64xbf16>
    return
  }
}

// -----

// trn1 (NeuronCore-v2) has no DMA transpose: a transposed bf16 load is an element-strided copy, in a loop of two
// here, noted once.
module attributes {tessera.target = "trn1"} {
  // CHECK-LABEL: func.func @transposed_load_trn1
  // CHECK-NOT: dma_transpose
  // CHECK: nc.dma_copy {{.*}}#nc.ap<"hbm", bf16, tensor = 0, partitions = [0, 64], pstride = 1, offset = 0, dims = [128], strides = [64]>
  // CHECK: nc.dma_copy {{.*}}#nc.ap<"hbm", bf16, tensor = 0, partitions = [0, 64], pstride = 1, offset = 8192, dims = [128], strides = [64]>
  func.func @transposed_load_trn1(%x: memref<256x64xbf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c128 = arith.constant 128 : index
    %t = tile.alloc {offset = 0 : i64, bufs = 1 : i64} : memref<64x128xbf16, #tile.space<sbuf>>
    scf.for %i = %c0 to %c2 step %c1 {
      %row = arith.muli %i, %c128 : index
      // expected-remark@+1 {{load: this transposed window moves as an element-strided DMA}}
      tile.load %x[%row, %c0], %t {transpose} : memref<256x64xbf16>, memref<64x128xbf16, #tile.space<sbuf>>
    }
    return
  }
}

// -----

// DMA queues: every transfer of one statement (an op's location and its HBM tensor) goes to one queue, in program
// order, as NKI issues one DMA instruction's instances on one queue; statements take queues round robin, loads the
// first half of trn2's 32 and stores the second. Here the 17 loads of x all run on queue 0 and the 17 of y on
// queue 1; the store of x's tile on queue 16. The loop starts at 1 and steps by 2 and the index is affine
// (4 * (i - 1) / 2 = 2 * i - 2 columns): HBM offsets 0, 4, 8, ...
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @queues
  // CHECK: nc.dma_copy #nc.ap<"sbuf", {{.*}} offset = 0, {{.*}}>, #nc.ap<"hbm", {{.*}} tensor = 0, {{.*}} offset = 0, {{.*}}> {engine = "dma"}{{$}}
  // CHECK-NEXT: nc.dma_copy #nc.ap<"sbuf", {{.*}}>, #nc.ap<"hbm", {{.*}} tensor = 1, {{.*}} offset = 0, {{.*}}> {engine = "dma", queue = 1 : i64}
  // CHECK-NEXT: nc.dma_copy #nc.ap<"hbm", {{.*}} tensor = 2, {{.*}} offset = 0, {{.*}}>, #nc.ap<"sbuf", {{.*}}> {engine = "dma", queue = 16 : i64}
  // CHECK-NEXT: nc.dma_copy #nc.ap<"sbuf", {{.*}}>, #nc.ap<"hbm", {{.*}} tensor = 0, {{.*}} offset = 4, {{.*}}> {engine = "dma"}{{$}}
  // CHECK-NEXT: nc.dma_copy #nc.ap<"sbuf", {{.*}}>, #nc.ap<"hbm", {{.*}} tensor = 1, {{.*}} offset = 4, {{.*}}> {engine = "dma", queue = 1 : i64}
  // CHECK-NEXT: nc.dma_copy #nc.ap<"hbm", {{.*}} tensor = 2, {{.*}} offset = 4, {{.*}}>, #nc.ap<"sbuf", {{.*}}> {engine = "dma", queue = 16 : i64}
  // CHECK-NOT: queue = 2 :
  // CHECK: nc.dma_copy #nc.ap<"sbuf", {{.*}}>, #nc.ap<"hbm", {{.*}} tensor = 0, {{.*}} offset = 64, {{.*}}> {engine = "dma"}{{$}}
  // CHECK-NEXT: nc.dma_copy #nc.ap<"sbuf", {{.*}}>, #nc.ap<"hbm", {{.*}} tensor = 1, {{.*}} offset = 64, {{.*}}> {engine = "dma", queue = 1 : i64}
  // CHECK-NEXT: nc.dma_copy #nc.ap<"hbm", {{.*}} tensor = 2, {{.*}} offset = 64, {{.*}}>, #nc.ap<"sbuf", {{.*}}> {engine = "dma", queue = 16 : i64}
  // CHECK-NEXT: return
  func.func @queues(%x: memref<128x68xf32>, %y: memref<128x68xf32>, %z: memref<128x68xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c35 = arith.constant 35 : index
    scf.for %i = %c1 to %c35 step %c2 {
      %twice = arith.muli %i, %c2 : index
      %col = arith.subi %twice, %c2 : index
      %t = tile.alloc {offset = 0 : i64, bufs = 2 : i64} : memref<128x4xf32, #tile.space<sbuf>>
      %u = tile.alloc {offset = 32 : i64, bufs = 2 : i64} : memref<128x4xf32, #tile.space<sbuf>>
      tile.load %x[%c0, %col], %t : memref<128x68xf32>, memref<128x4xf32, #tile.space<sbuf>>
      tile.load %y[%c0, %col], %u : memref<128x68xf32>, memref<128x4xf32, #tile.space<sbuf>>
      tile.store %t, %z[%c0, %col] : memref<128x4xf32, #tile.space<sbuf>>, memref<128x68xf32>
    }
    return
  }
}

// -----

// Engines: exp activation on the scalar engine, with its scale; reductions on the vector engine; elementwise ops on
// the vector or GpSimd engine. A [P, 1] operand read across the row makes a tensor_scalar with it as operand0 (NKI's
// tensor_tensor does not broadcast), reversed when it is the left operand.
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @softmax_rows
  // CHECK: nc.dma_copy #nc.ap<"sbuf", f32, {{.*}} offset = 0, dims = [512], {{.*}}>, #nc.ap<"hbm", f32, tensor = 0, partitions = [0, 128], pstride = 512, offset = 32768, dims = [512], strides = [1]> {engine = "dma"}
  // CHECK-NEXT: nc.tensor_reduce "max" #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 2048, dims = [1], strides = [1]>, #nc.ap<"sbuf", f32, {{.*}} offset = 0, dims = [512], strides = [1]> {engine = "vector"}
  // CHECK-NEXT: nc.inst "tensor_scalar" {dst = #nc.ap<"sbuf", f32, {{.*}} offset = 0, dims = [512], strides = [1]>, engine = "{{vector|scalar}}", params = {alu = "subtract"}, src0 = #nc.ap<"sbuf", f32, {{.*}} offset = 0, dims = [512], strides = [1]>, src1 = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 2048, dims = [1], strides = [1]>}
  // CHECK-NEXT: nc.activation "exp" #nc.ap<"sbuf", f32, {{.*}} offset = 0, {{.*}}>, #nc.ap<"sbuf", f32, {{.*}} offset = 0, {{.*}}> {engine = "scalar", scale = 2.000000e+00 : f32}
  // CHECK-NEXT: nc.tensor_reduce "add" #nc.ap<"sbuf", f32, {{.*}} offset = 2052, dims = [1], strides = [1]>, {{.*}}
  // The [P, 1] tile on the left: operand0 <op> data (reverse0).
  // CHECK-NEXT: nc.inst "tensor_scalar" {dst = #nc.ap<"sbuf", f32, {{.*}} offset = 0, dims = [512], strides = [1]>, engine = "vector", params = {alu = "subtract", reverse0}, src0 = #nc.ap<"sbuf", f32, {{.*}} offset = 0, dims = [512], strides = [1]>, src1 = #nc.ap<"sbuf", f32, {{.*}} offset = 2052, dims = [1], strides = [1]>}
  // Both [P, 1]: nothing to broadcast.
  // CHECK-NEXT: nc.tensor_tensor "multiply" #nc.ap<"sbuf", f32, {{.*}} offset = 2052, dims = [1], strides = [1]>, #nc.ap<"sbuf", f32, {{.*}} offset = 2048, dims = [1], strides = [1]>, #nc.ap<"sbuf", f32, {{.*}} offset = 2048, dims = [1], strides = [1]>
  // The default scale, 1.0, is explicit in nc.
  // CHECK-NEXT: nc.activation "identity" {{.*}} {engine = "scalar", scale = 1.000000e+00 : f32}
  // CHECK-NEXT: nc.dma_copy #nc.ap<"hbm", f32, tensor = 1, partitions = [0, 128], pstride = 512, offset = 32768, {{.*}}>, #nc.ap<"sbuf", {{.*}} offset = 0, {{.*}} {engine = "dma", queue = 16 : i64}
  // CHECK-NEXT: return
  func.func @softmax_rows(%x: memref<256x512xf32>, %y: memref<256x512xf32>) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %t = tile.alloc {offset = 0 : i64, bufs = 1 : i64} : memref<128x512xf32, #tile.space<sbuf>>
    tile.load %x[%c64, %c0], %t : memref<256x512xf32>, memref<128x512xf32, #tile.space<sbuf>>
    %m = tile.alloc {offset = 2048 : i64, bufs = 1 : i64} : memref<128x1xf32, #tile.space<sbuf>>
    tile.reduce max %t, %m : memref<128x512xf32, #tile.space<sbuf>>, memref<128x1xf32, #tile.space<sbuf>>
    tile.binary subtract %t, %m, %t : memref<128x512xf32, #tile.space<sbuf>>, memref<128x1xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
    tile.activation exp %t, %t {scale = 2.0 : f32} : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
    %s = tile.alloc {offset = 2052 : i64, bufs = 1 : i64} : memref<128x1xf32, #tile.space<sbuf>>
    tile.reduce add %t, %s : memref<128x512xf32, #tile.space<sbuf>>, memref<128x1xf32, #tile.space<sbuf>>
    tile.binary subtract %s, %t, %t : memref<128x1xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
    tile.binary multiply %m, %m, %s : memref<128x1xf32, #tile.space<sbuf>>, memref<128x1xf32, #tile.space<sbuf>>, memref<128x1xf32, #tile.space<sbuf>>
    tile.activation identity %t, %t : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
    tile.store %t, %y[%c64, %c0] : memref<128x512xf32, #tile.space<sbuf>>, memref<256x512xf32>
    return
  }
}

// -----

// A number of the kernel (tile.binary_scalar) is one tensor_scalar with the number as operand0 and no second
// stage; `reverse` is reverse0. The scalar engine takes only unreversed multiply and add before NeuronCore-v4.
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @numbers
  // CHECK: nc.inst "tensor_scalar" {dst = #nc.ap<"sbuf", f32, {{.*}} offset = 0, dims = [512], strides = [1]>, engine = "{{vector|scalar|gpsimd}}", params = {alu = "multiply", operand0 = 1.250000e-01 : f32}, src0 = #nc.ap<"sbuf", f32, {{.*}} offset = 0, dims = [512], strides = [1]>}
  // CHECK: nc.inst "tensor_scalar" {{.*}} engine = "{{vector|gpsimd}}", params = {alu = "subtract", operand0 = 1.000000e+00 : f32, reverse0}
  func.func @numbers() {
    %t = tile.alloc {offset = 0 : i64, bufs = 1 : i64} : memref<128x512xf32, #tile.space<sbuf>>
    tile.memset %t, 1.0 : memref<128x512xf32, #tile.space<sbuf>>
    tile.binary_scalar multiply %t, 0.125, %t : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
    tile.binary_scalar subtract %t, 1.0, %t {reverse} : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// An activation with a tile of scales (one per row: NKI's vector scale) is one activation instruction with the
// tile as its scale operand (src2), which the nc.activation op has no slot for: the generic nc.inst.
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @row_scales
  // CHECK: nc.inst "activation" {dst = #nc.ap<"sbuf", f32, {{.*}} offset = 0, dims = [512], strides = [1]>, engine = "scalar", params = {func = "exp"}, src0 = #nc.ap<"sbuf", f32, {{.*}} offset = 0, dims = [512], strides = [1]>, src2 = #nc.ap<"sbuf", f32, {{.*}} offset = 2048, dims = [1], strides = [1]>}
  func.func @row_scales() {
    %t = tile.alloc {offset = 0 : i64, bufs = 1 : i64} : memref<128x512xf32, #tile.space<sbuf>>
    %s = tile.alloc {offset = 2048 : i64, bufs = 1 : i64} : memref<128x1xf32, #tile.space<sbuf>>
    tile.memset %t, 1.0 : memref<128x512xf32, #tile.space<sbuf>>
    tile.memset %s, 2.0 : memref<128x1xf32, #tile.space<sbuf>>
    tile.activation exp %t scales(%s : memref<128x1xf32, #tile.space<sbuf>>), %t : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// A division that tile-legalize-for-neuroncore did not rewrite: no engine divides, and the error says why each
// could not.
module attributes {tessera.target = "trn2"} {
  func.func @divide(%x: memref<128x512xf32>) {
    %t = tile.alloc {offset = 0 : i64, bufs = 1 : i64} : memref<128x512xf32, #tile.space<sbuf>>
    tile.memset %t, 1.0 : memref<128x512xf32, #tile.space<sbuf>>
    // expected-error@+1 {{'tile.binary' op no engine of trn2 can run it: tensor_tensor on the vector engine: divide is not an ALU operation of NeuronCore engines}}
    tile.binary divide %t, %t, %t : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// Zero fills of PSUM: emitted only when something other than a matmul reads the zeros.
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @zero_fills
  func.func @zero_fills(%out: memref<128x512xf32>) {
    %c0 = arith.constant 0 : index
    %p = tile.alloc {offset = 0 : i64, bufs = 1 : i64} : memref<128x512xf32, #tile.space<psum>>
    %q = tile.alloc {offset = 2048 : i64, bufs = 1 : i64} : memref<128x512xf32, #tile.space<psum>>
    %x = tile.alloc {offset = 0 : i64, bufs = 1 : i64} : memref<128x512xf32, #tile.space<sbuf>>
    %s = tile.alloc {offset = 2048 : i64, bufs = 1 : i64} : memref<128x128xbf16, #tile.space<sbuf>>
    %m = tile.alloc {offset = 2304 : i64, bufs = 1 : i64} : memref<128x512xbf16, #tile.space<sbuf>>

    // Read by a copy: the memset happens, on the vector engine (GpSimd has no PSUM port), just before the read.
    // CHECK: nc.memset #nc.ap<"psum", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>, 0.000000e+00 {engine = "vector"}
    // CHECK-NEXT: nc.tensor_copy #nc.ap<"sbuf", {{.*}} offset = 0, {{.*}}>, #nc.ap<"psum", {{.*}} offset = 0, {{.*}}>
    tile.memset %p, 0.0 : memref<128x512xf32, #tile.space<psum>>
    tile.copy %p, %x : memref<128x512xf32, #tile.space<psum>>, memref<128x512xf32, #tile.space<sbuf>>

    // Overwritten before anyone reads it: the memset is dead and dropped.
    // CHECK-NEXT: nc.matmul #nc.ap<"psum", {{.*}} offset = 2048, {{.*}}> {engine = "tensor"}{{$}}
    tile.memset %q, 0.0 : memref<128x512xf32, #tile.space<psum>>
    tile.matmul %s, %m, %q : memref<128x128xbf16, #tile.space<sbuf>>, memref<128x512xbf16, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<psum>>

    // Copied out (read by a copy): emitted.
    // CHECK-NEXT: nc.memset #nc.ap<"psum", {{.*}} offset = 2048, {{.*}}>, 0.000000e+00 {engine = "vector"}
    // CHECK-NEXT: nc.tensor_copy #nc.ap<"sbuf", {{.*}}>, #nc.ap<"psum", {{.*}} offset = 2048, {{.*}}>
    tile.memset %q, 0.0 : memref<128x512xf32, #tile.space<psum>>
    tile.copy %q, %x : memref<128x512xf32, #tile.space<psum>>, memref<128x512xf32, #tile.space<sbuf>>

    // Not zero: emitted at once. A zero fill of SBUF: emitted at once too.
    // CHECK-NEXT: nc.memset #nc.ap<"psum", {{.*}} offset = 0, {{.*}}>, 1.000000e+00 {engine = "vector"}
    // CHECK-NEXT: nc.memset #nc.ap<"sbuf", f32, {{.*}} offset = 0, {{.*}}>, 0.000000e+00 {engine = "{{vector|gpsimd}}"}
    tile.memset %p, 1.0 : memref<128x512xf32, #tile.space<psum>>
    tile.memset %x, 0.0 : memref<128x512xf32, #tile.space<sbuf>>

    // Read by an activation: emitted.
    // CHECK-NEXT: nc.memset #nc.ap<"psum", {{.*}} offset = 0, {{.*}}>, 0.000000e+00 {engine = "vector"}
    // CHECK-NEXT: nc.activation "exp" #nc.ap<"sbuf", {{.*}}>, #nc.ap<"psum", {{.*}} offset = 0, {{.*}}> {engine = "scalar", scale = 1.000000e+00 : f32}
    tile.memset %p, 0.0 : memref<128x512xf32, #tile.space<psum>>
    tile.activation exp %p, %x : memref<128x512xf32, #tile.space<psum>>, memref<128x512xf32, #tile.space<sbuf>>

    // Never read at all: dropped.
    // CHECK-NEXT: return
    tile.memset %q, 0.0 : memref<128x512xf32, #tile.space<psum>>
    return
  }
}

// -----

// An elementwise op that reads and writes the same zero-filled PSUM tile needs the fill first; neither the
// fill nor the op may go to GpSimd, which has no PSUM port, even when the vector engine is busier.
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @in_place_on_zeros
  // CHECK: nc.memset #nc.ap<"sbuf", {{.*}}>, 1.000000e+00 {engine = "vector"}
  // CHECK-NEXT: nc.memset #nc.ap<"psum", {{.*}}>, 0.000000e+00 {engine = "vector"}
  // CHECK-NEXT: nc.tensor_tensor "add" #nc.ap<"psum", {{.*}}>, #nc.ap<"psum", {{.*}}>, #nc.ap<"sbuf", {{.*}}> {engine = "vector"}
  // CHECK-NEXT: nc.tensor_reduce "max" #nc.ap<"sbuf", {{.*}}>, #nc.ap<"psum", {{.*}}> {engine = "vector"}
  // CHECK-NEXT: return
  func.func @in_place_on_zeros() {
    %acc = tile.alloc {offset = 0 : i64, bufs = 1 : i64} : memref<128x512xf32, #tile.space<psum>>
    %x = tile.alloc {offset = 0 : i64, bufs = 1 : i64} : memref<128x512xf32, #tile.space<sbuf>>
    %r = tile.alloc {offset = 2048 : i64, bufs = 1 : i64} : memref<128x1xf32, #tile.space<sbuf>>
    tile.memset %x, 1.0 : memref<128x512xf32, #tile.space<sbuf>>
    tile.memset %acc, 0.0 : memref<128x512xf32, #tile.space<psum>>
    tile.binary add %acc, %x, %acc : memref<128x512xf32, #tile.space<psum>>, memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<psum>>
    tile.reduce max %acc, %r : memref<128x512xf32, #tile.space<psum>>, memref<128x1xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// A zero fill belongs to one copy of a rotating tile: the next iteration's alloc starts afresh, so each
// iteration's first matmul starts its own group, in its own bank.
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @zero_fill_per_iteration
  // CHECK: nc.matmul #nc.ap<"psum", {{.*}} offset = 0, {{.*}}> {engine = "tensor"}{{$}}
  // CHECK-NEXT: nc.matmul #nc.ap<"psum", {{.*}} offset = 0, {{.*}}> {accumulate, engine = "tensor"}
  // CHECK-NEXT: nc.matmul #nc.ap<"psum", {{.*}} offset = 2048, {{.*}}> {engine = "tensor"}{{$}}
  // CHECK-NEXT: nc.matmul #nc.ap<"psum", {{.*}} offset = 2048, {{.*}}> {accumulate, engine = "tensor"}
  // CHECK-NEXT: nc.matmul #nc.ap<"psum", {{.*}} offset = 0, {{.*}}> {engine = "tensor"}{{$}}
  // CHECK-NEXT: nc.matmul #nc.ap<"psum", {{.*}} offset = 0, {{.*}}> {accumulate, engine = "tensor"}
  // CHECK-NEXT: return
  func.func @zero_fill_per_iteration() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %s = tile.alloc {offset = 0 : i64, bufs = 1 : i64} : memref<128x128xbf16, #tile.space<sbuf>>
    %m = tile.alloc {offset = 256 : i64, bufs = 1 : i64} : memref<128x512xbf16, #tile.space<sbuf>>
    scf.for %i = %c0 to %c3 step %c1 {
      %acc = tile.alloc {offset = 0 : i64, bufs = 2 : i64} : memref<128x512xf32, #tile.space<psum>>
      tile.memset %acc, 0.0 : memref<128x512xf32, #tile.space<psum>>
      scf.for %k = %c0 to %c2 step %c1 {
        tile.matmul %s, %m, %acc {accumulate} : memref<128x128xbf16, #tile.space<sbuf>>, memref<128x512xbf16, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<psum>>
      }
    }
    return
  }
}

// -----

module attributes {tessera.target = "trn2"} {
  func.func @unallocated() {
    // expected-error@+1 {{'tile.alloc' op has no address: run tile-allocate-memory first}}
    %0 = tile.alloc {name = "t"} : memref<128x4xf32, #tile.space<sbuf>>
    return
  }
}

// -----

module attributes {tessera.target = "trn2"} {
  func.func @no_bufs() {
    // expected-error@+1 {{has no address: run tile-allocate-memory first}}
    %0 = tile.alloc {offset = 0 : i64} : memref<128x4xf32, #tile.space<sbuf>>
    return
  }
}

// -----

module attributes {tessera.target = "trn2"} {
  func.func @foreign_op() {
    // expected-error@+1 {{'memref.alloc' op cannot be lowered to NeuronCore instructions}}
    %0 = memref.alloc() : memref<128x4xf32>
    return
  }
}

// -----

// expected-error@+1 {{the module names no target}}
module {
  func.func @no_target() {
    return
  }
}

// -----

// A zero-filled accumulator that something reads before the matmuls: the memset is emitted, and the first matmul
// still starts the accumulation group (accumulating onto zeros is the same, and onto memset data is undefined
// on NeuronCore v2/v3).
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @zeros_read_first
  // CHECK: nc.memset #nc.ap<"psum", {{.*}}>, 0.000000e+00 {engine = "vector"}
  // CHECK-NEXT: nc.tensor_copy
  // CHECK-NEXT: nc.matmul {{.*}} {engine = "tensor"}{{$}}
  // CHECK-NEXT: nc.matmul {{.*}} {accumulate, engine = "tensor"}
  func.func @zeros_read_first() {
    %acc = tile.alloc {name = "acc", offset = 0 : i64, bufs = 1 : i64} : memref<128x512xf32, #tile.space<psum>>
    %s = tile.alloc {name = "s", offset = 0 : i64, bufs = 1 : i64} : memref<128x128xbf16, #tile.space<sbuf>>
    %m = tile.alloc {name = "m", offset = 256 : i64, bufs = 1 : i64} : memref<128x512xbf16, #tile.space<sbuf>>
    %o = tile.alloc {name = "o", offset = 2048 : i64, bufs = 1 : i64} : memref<128x512xf32, #tile.space<sbuf>>
    tile.memset %s, 1.0 : memref<128x128xbf16, #tile.space<sbuf>>
    tile.memset %m, 1.0 : memref<128x512xbf16, #tile.space<sbuf>>
    tile.memset %acc, 0.0 : memref<128x512xf32, #tile.space<psum>>
    tile.copy %acc, %o : memref<128x512xf32, #tile.space<psum>>, memref<128x512xf32, #tile.space<sbuf>>
    tile.matmul %s, %m, %acc {accumulate} : memref<128x128xbf16, #tile.space<sbuf>>, memref<128x512xbf16, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<psum>>
    tile.matmul %s, %m, %acc {accumulate} : memref<128x128xbf16, #tile.space<sbuf>>, memref<128x512xbf16, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<psum>>
    return
  }
}

// -----

// The tsr::isa level lowers as written: the zero fill is kept and the matmul accumulates onto it (the simulator
// reports that on trn2). A device print reads a tile on the least busy engine that reaches it.
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @isa_level
  // CHECK: nc.memset #nc.ap<"sbuf", {{.*}}>, 1.000000e+00
  // CHECK-NEXT: nc.memset #nc.ap<"sbuf", {{.*}}>, 1.000000e+00
  // CHECK-NEXT: nc.memset #nc.ap<"psum", {{.*}}>, 0.000000e+00 {engine = "vector"}
  // CHECK-NEXT: nc.matmul {{.*}} {accumulate, engine = "tensor"}
  // CHECK-NEXT: nc.print "acc" #nc.ap<"psum", f32, {{.*}} offset = 0, dims = [512], strides = [1]> {engine = "{{vector|scalar}}"}
  // CHECK-NEXT: nc.print "s" #nc.ap<"sbuf", bf16, {{.*}}> {engine = "{{vector|scalar|gpsimd}}"}
  func.func @isa_level() {
    %acc = tile.alloc {name = "acc", offset = 0 : i64, bufs = 1 : i64} : memref<128x512xf32, #tile.space<psum>>
    %s = tile.alloc {name = "s", offset = 0 : i64, bufs = 1 : i64} : memref<128x128xbf16, #tile.space<sbuf>>
    %m = tile.alloc {name = "m", offset = 256 : i64, bufs = 1 : i64} : memref<128x512xbf16, #tile.space<sbuf>>
    tile.memset %s, 1.0 : memref<128x128xbf16, #tile.space<sbuf>>
    tile.memset %m, 1.0 : memref<128x512xbf16, #tile.space<sbuf>>
    tile.memset %acc, 0.0 {tile.isa} : memref<128x512xf32, #tile.space<psum>>
    tile.matmul %s, %m, %acc {accumulate, tile.isa} : memref<128x128xbf16, #tile.space<sbuf>>, memref<128x512xbf16, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<psum>>
    tile.print "acc", %acc : memref<128x512xf32, #tile.space<psum>>
    tile.print "s", %s : memref<128x128xbf16, #tile.space<sbuf>>
    return
  }
}

// -----

// A manual_sync scope: its instructions carry nc.manual; tile.wait makes the next one wait (the count may
// depend on the loop), tile.signal makes the previous one signal.
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @manual
  // CHECK: nc.dma_copy {{.*}} {engine = "dma", nc.manual, signals = array<i64: 0>}
  // CHECK-NEXT: nc.activation "exp" {{.*}} {engine = "scalar", nc.manual, scale = 1.000000e+00 : f32, waits = array<i64: 0, 1>}
  // CHECK-NEXT: nc.dma_copy {{.*}} {engine = "dma", nc.manual, signals = array<i64: 0>}
  // CHECK-NEXT: nc.activation "exp" {{.*}} {engine = "scalar", nc.manual, scale = 1.000000e+00 : f32, waits = array<i64: 0, 2>}
  func.func @manual(%x: memref<256x512xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c128 = arith.constant 128 : index
    scf.for %i = %c0 to %c2 step %c1 {
      %t = tile.alloc {name = "t", offset = 0 : i64, bufs = 2 : i64} : memref<128x512xf32, #tile.space<sbuf>>
      %e = tile.alloc {name = "e", offset = 4096 : i64, bufs = 2 : i64} : memref<128x512xf32, #tile.space<sbuf>>
      %row = arith.muli %i, %c128 : index
      tile.load %x[%row, %c0], %t {tile.manual} : memref<256x512xf32>, memref<128x512xf32, #tile.space<sbuf>>
      tile.signal 0 {tile.manual}
      %n = arith.addi %i, %c1 : index
      tile.wait 0, %n {tile.manual}
      tile.activation exp %t, %e {tile.manual} : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
    }
    return
  }
}

// -----

module attributes {tessera.target = "trn2"} {
  func.func @signal_first() {
    // expected-error@+1 {{'tile.signal' op follows no instruction of its manual_sync scope: nothing to signal when done}}
    tile.signal 0 {tile.manual}
    return
  }
}

// -----

module attributes {tessera.target = "trn2"} {
  func.func @wait_last() {
    %c1 = arith.constant 1 : index
    // expected-error@+1 {{tile.wait: no instruction of its manual_sync scope follows it to wait}}
    tile.wait 0, %c1 {tile.manual}
    return
  }
}

// -----

module attributes {tessera.target = "trn2"} {
  func.func @wait_zero() {
    %c0 = arith.constant 0 : index
    // expected-error@+1 {{'tile.wait' op waits for semaphore 3 to reach 0; a wait is for a count of at least 1}}
    tile.wait 3, %c0 {tile.manual}
    return
  }
}

// -----

module attributes {tessera.target = "trn2"} {
  func.func @wait_then_automatic() {
    %t = tile.alloc {name = "t", offset = 0 : i64, bufs = 1 : i64} : memref<128x4xf32, #tile.space<sbuf>>
    %c1 = arith.constant 1 : index
    // expected-error@+1 {{tile.wait: the next instruction is not in its manual_sync scope}}
    tile.wait 0, %c1 {tile.manual}
    tile.memset %t, 1.0 : memref<128x4xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// In a manual_sync scope, a DSL zero fill the compiler has not emitted yet cannot be read: the fill would be an
// instruction the kernel's semaphores know nothing of.
module attributes {tessera.target = "trn2"} {
  func.func @manual_reads_pending_zeros() {
    %acc = tile.alloc {name = "acc", offset = 0 : i64, bufs = 1 : i64} : memref<128x512xf32, #tile.space<psum>>
    %o = tile.alloc {name = "o", offset = 0 : i64, bufs = 1 : i64} : memref<128x512xf32, #tile.space<sbuf>>
    tile.memset %acc, 0.0 : memref<128x512xf32, #tile.space<psum>>
    // expected-error@+1 {{reads a zero-filled PSUM tile}}
    tile.copy %acc, %o {tile.manual} : memref<128x512xf32, #tile.space<psum>>, memref<128x512xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// A view addresses its source's current copy plus its offset in bytes, and emits nothing itself. The block tile
// %w (bf16, 2 copies of 2048 bytes at 1024) is loaded once per iteration of %i; its two 512-element halves are the
// moving operands of two matmuls, and %acc's f32 halves (at 8192, 2048 bytes each) take the PSUM results in
// place (tensor_tensor with dst = src0).
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @views
  // CHECK-NOT: tile.
  // i = 0: copy 0 of %w at 1024.
  // CHECK: nc.dma_copy #nc.ap<"sbuf", bf16, {{.*}} offset = 1024, dims = [1024], {{.*}}>, #nc.ap<"hbm", {{.*}} offset = 0, {{.*}}>
  // CHECK: nc.matmul #nc.ap<"psum", {{.*}} offset = 0, {{.*}}>, #nc.ap<"sbuf", bf16, {{.*}} offset = 0, dims = [128], {{.*}}>, #nc.ap<"sbuf", bf16, {{.*}} offset = 1024, dims = [512], {{.*}}>
  // CHECK: nc.tensor_tensor "add" #nc.ap<"sbuf", f32, {{.*}} offset = 8192, dims = [512], {{.*}}>, #nc.ap<"sbuf", f32, {{.*}} offset = 8192, dims = [512], {{.*}}>, #nc.ap<"psum", f32, {{.*}} offset = 0, {{.*}}>
  // CHECK: nc.matmul #nc.ap<"psum", {{.*}} offset = 2048, {{.*}}>, #nc.ap<"sbuf", bf16, {{.*}} offset = 0, dims = [128], {{.*}}>, #nc.ap<"sbuf", bf16, {{.*}} offset = 2048, dims = [512], {{.*}}>
  // CHECK: nc.tensor_tensor "add" #nc.ap<"sbuf", f32, {{.*}} offset = 10240, dims = [512], {{.*}}>, #nc.ap<"sbuf", f32, {{.*}} offset = 10240, dims = [512], {{.*}}>, #nc.ap<"psum", f32, {{.*}} offset = 2048, {{.*}}>
  // i = 1: copy 1 of %w, 2048 bytes on; the accumulator has one copy.
  // CHECK: nc.dma_copy #nc.ap<"sbuf", bf16, {{.*}} offset = 3072, dims = [1024], {{.*}}>, #nc.ap<"hbm", {{.*}} offset = 1024, {{.*}}>
  // CHECK: nc.matmul #nc.ap<"psum", {{.*}}>, #nc.ap<"sbuf", bf16, {{.*}} offset = 0, dims = [128], {{.*}}>, #nc.ap<"sbuf", bf16, {{.*}} offset = 3072, dims = [512], {{.*}}>
  // CHECK: nc.tensor_tensor "add" #nc.ap<"sbuf", f32, {{.*}} offset = 8192, dims = [512], {{.*}}>
  // CHECK: nc.matmul #nc.ap<"psum", {{.*}}>, #nc.ap<"sbuf", bf16, {{.*}} offset = 0, dims = [128], {{.*}}>, #nc.ap<"sbuf", bf16, {{.*}} offset = 4096, dims = [512], {{.*}}>
  // CHECK: nc.tensor_tensor "add" #nc.ap<"sbuf", f32, {{.*}} offset = 10240, dims = [512], {{.*}}>
  // CHECK-NOT: nc.
  // CHECK: return
  func.func @views(%b: memref<128x2048xbf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c512 = arith.constant 512 : index
    %c1024 = arith.constant 1024 : index
    %s = tile.alloc {name = "s", offset = 0 : i64, bufs = 1 : i64} : memref<128x128xbf16, #tile.space<sbuf>>
    %acc = tile.alloc {name = "acc", offset = 8192 : i64, bufs = 1 : i64} : memref<128x1024xf32, #tile.space<sbuf>>
    scf.for %i = %c0 to %c2 step %c1 {
      %col = arith.muli %i, %c1024 : index
      %w = tile.alloc {name = "w", offset = 1024 : i64, bufs = 2 : i64} : memref<128x1024xbf16, #tile.space<sbuf>>
      tile.load %b[%c0, %col], %w : memref<128x2048xbf16>, memref<128x1024xbf16, #tile.space<sbuf>>
      scf.for %j = %c0 to %c2 step %c1 {
        %p = tile.alloc {name = "p", offset = 0 : i64, bufs = 2 : i64} : memref<128x512xf32, #tile.space<psum>>
        %off = arith.muli %j, %c512 : index
        %half = tile.view %w[%off] : memref<128x1024xbf16, #tile.space<sbuf>> to memref<128x512xbf16, #tile.space<sbuf>>
        tile.matmul %s, %half, %p : memref<128x128xbf16, #tile.space<sbuf>>, memref<128x512xbf16, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<psum>>
        %part = tile.view %acc[%off] : memref<128x1024xf32, #tile.space<sbuf>> to memref<128x512xf32, #tile.space<sbuf>>
        tile.binary add %part, %p, %part : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<psum>>, memref<128x512xf32, #tile.space<sbuf>>
      }
    }
    return
  }
}

// -----

// A view whose offset leaves its source on some iteration is reported when that iteration is unrolled.
module attributes {tessera.target = "trn2"} {
  func.func @view_leaves() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c256 = arith.constant 256 : index
    %t = tile.alloc {name = "t", offset = 0 : i64, bufs = 1 : i64} : memref<128x512xf32, #tile.space<sbuf>>
    scf.for %i = %c0 to %c3 step %c1 {
      %off = arith.muli %i, %c256 : index
      // expected-error@+1 {{window of 256 elements at offset 512 leaves its source (512 elements)}}
      %v = tile.view %t[%off] : memref<128x512xf32, #tile.space<sbuf>> to memref<128x256xf32, #tile.space<sbuf>>
      tile.memset %v, 1.0 : memref<128x256xf32, #tile.space<sbuf>>
    }
    return
  }
}

// -----

// tile.transpose: into PSUM on the tensor engine (an nc_transpose into a window of one PSUM bank), into SBUF as a
// DMA transpose on a load queue. tile.activation with a bias and row sums is one activation_reduce on the scalar
// engine (bias in src1, the sums in dst2). tile.fill_where is GpSimd's affine_select in place, keeping the
// elements where the test fails (f - p > 0 fills: keep where f - p <= 0).
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @language_ops
  // CHECK: nc.inst "transpose" {dst = #nc.ap<"psum", bf16, {{.*}} offset = 256, dims = [128], {{.*}}>, engine = "tensor", src0 = #nc.ap<"sbuf", bf16, {{.*}} offset = 0, {{.*}}>}
  // CHECK-NEXT: nc.inst "dma_transpose" {dst = #nc.ap<"sbuf", bf16, {{.*}} offset = 768, dims = [128], {{.*}}>, engine = "dma", src0 = #nc.ap<"sbuf", bf16, {{.*}} offset = 0, {{.*}}>}
  // CHECK: nc.inst "activation_reduce" {dst = #nc.ap<"sbuf", bf16, {{.*}} offset = 1536, {{.*}}>, dst2 = #nc.ap<"sbuf", f32, {{.*}} offset = 1280, dims = [1], {{.*}}>, engine = "scalar", params = {func = "exp", scale = 1.250000e-01 : f32}, src0 = #nc.ap<"psum", f32, {{.*}} offset = 2048, {{.*}}>, src1 = #nc.ap<"sbuf", f32, {{.*}} offset = 1024, dims = [1], {{.*}}>}
  // CHECK-NEXT: nc.inst "affine_select" {dst = #nc.ap<"sbuf", bf16, {{.*}} offset = 1536, {{.*}}>, engine = "gpsimd", params = {alu = "is_le", on_false = -3.40282347E+38 : f32, pattern = array<i64: 0, -1, 1, 0, 0, 0>}, src0 = #nc.ap<"sbuf", bf16, {{.*}} offset = 1536, {{.*}}>}
  // Any free coefficient: p - 2 f < 0 fills (a pooling band's edge), keeping where p - 2 f >= 0.
  // CHECK-NEXT: nc.inst "affine_select" {{.*}}params = {alu = "is_ge", pattern = array<i64: 0, 1, -2, 0, 0, 0>}
  func.func @language_ops() {
    %c128 = arith.constant 128 : index
    %x = tile.alloc {name = "x", offset = 0 : i64, bufs = 1 : i64} : memref<128x128xbf16, #tile.space<sbuf>>
    %p = tile.alloc {name = "p", offset = 0 : i64, bufs = 1 : i64} : memref<128x512xbf16, #tile.space<psum>>
    %s = tile.alloc {name = "s", offset = 512 : i64, bufs = 1 : i64} : memref<128x256xbf16, #tile.space<sbuf>>
    tile.memset %x, 1.0 : memref<128x128xbf16, #tile.space<sbuf>>
    %pw = tile.view %p[%c128] : memref<128x512xbf16, #tile.space<psum>> to memref<128x128xbf16, #tile.space<psum>>
    tile.transpose %x, %pw : memref<128x128xbf16, #tile.space<sbuf>>, memref<128x128xbf16, #tile.space<psum>>
    %sw = tile.view %s[%c128] : memref<128x256xbf16, #tile.space<sbuf>> to memref<128x128xbf16, #tile.space<sbuf>>
    tile.transpose %x, %sw : memref<128x128xbf16, #tile.space<sbuf>>, memref<128x128xbf16, #tile.space<sbuf>>
    %scores = tile.alloc {name = "scores", offset = 2048 : i64, bufs = 1 : i64} : memref<128x128xf32, #tile.space<psum>>
    %bias = tile.alloc {name = "bias", offset = 1024 : i64, bufs = 1 : i64} : memref<128x1xf32, #tile.space<sbuf>>
    %sum = tile.alloc {name = "sum", offset = 1280 : i64, bufs = 1 : i64} : memref<128x1xf32, #tile.space<sbuf>>
    %e = tile.alloc {name = "e", offset = 1536 : i64, bufs = 1 : i64} : memref<128x128xbf16, #tile.space<sbuf>>
    tile.memset %bias, 0.5 : memref<128x1xf32, #tile.space<sbuf>>
    tile.memset %scores, 2.0 : memref<128x128xf32, #tile.space<psum>>
    tile.activation exp %scores bias(%bias : memref<128x1xf32, #tile.space<sbuf>>), %e sum(%sum : memref<128x1xf32, #tile.space<sbuf>>) {scale = 0.125 : f32} : memref<128x128xf32, #tile.space<psum>>, memref<128x128xbf16, #tile.space<sbuf>>
    %c0_off = arith.constant 0 : index
    tile.fill_where is_gt %e[%c0_off], -3.40282347E+38 {partition = -1 : i64, free = 1 : i64} : memref<128x128xbf16, #tile.space<sbuf>>
    tile.fill_where is_lt %e[%c0_off], 0.0 {partition = 1 : i64, free = -2 : i64} : memref<128x128xbf16, #tile.space<sbuf>>
    return
  }
}

// -----

// tile.scan is one tensor_tensor_scan on the vector engine: op0 multiply, op1 add, the initial column as src2 (or
// initial = 0 without one).
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @scan
  // CHECK: nc.inst "tensor_tensor_scan" {dst = #nc.ap<"sbuf", f32, {{.*}} offset = 1024, dims = [128], {{.*}}>, engine = "vector", params = {alu = "multiply", alu1 = "add"}, src0 = #nc.ap<"sbuf", f32, {{.*}} offset = 0, dims = [128], {{.*}}>, src1 = #nc.ap<"psum", f32, {{.*}} offset = 0, dims = [128], {{.*}}>, src2 = #nc.ap<"sbuf", f32, {{.*}} offset = 512, dims = [1], {{.*}}>}
  // CHECK: nc.inst "tensor_tensor_scan" {dst = {{.*}}, engine = "vector", params = {alu = "multiply", alu1 = "add"}, src0 = {{.*}}, src1 = {{.*}}}
  func.func @scan() {
    %a = tile.alloc {offset = 0 : i64, bufs = 1 : i64} : memref<128x128xf32, #tile.space<sbuf>>
    %b = tile.alloc {offset = 0 : i64, bufs = 1 : i64} : memref<128x128xf32, #tile.space<psum>>
    %x0 = tile.alloc {offset = 512 : i64, bufs = 1 : i64} : memref<128x1xf32, #tile.space<sbuf>>
    %x = tile.alloc {offset = 1024 : i64, bufs = 1 : i64} : memref<128x128xf32, #tile.space<sbuf>>
    tile.memset %a, 0.5 : memref<128x128xf32, #tile.space<sbuf>>
    tile.memset %b, 1.0 : memref<128x128xf32, #tile.space<psum>>
    tile.memset %x0, 2.0 : memref<128x1xf32, #tile.space<sbuf>>
    tile.scan %a, %b, %x init(%x0 : memref<128x1xf32, #tile.space<sbuf>>) : memref<128x128xf32, #tile.space<sbuf>>, memref<128x128xf32, #tile.space<psum>>, memref<128x128xf32, #tile.space<sbuf>>
    tile.scan %a, %b, %x : memref<128x128xf32, #tile.space<sbuf>>, memref<128x128xf32, #tile.space<psum>>, memref<128x128xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// tile.broadcast: a row onto 128 partitions is one stream_shuffle per quadrant with a mask of zeros (the default
// mask is not printed), each reading the row itself; a column along the free dimension one tensor_copy reading it
// with a stride of 0; a row converted onto 40 partitions a tensor_copy into the destination's first partition, then
// shuffles from there (the first quadrant in place), the last one of 8 partitions.
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @broadcast
  // CHECK: nc.inst "stream_shuffle" {dst = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 32], pstride = 0, offset = 4096, dims = [512], strides = [1]>, engine = "vector", src0 = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 1], pstride = 0, offset = 0, dims = [512], strides = [1]>}
  // CHECK-NEXT: nc.inst "stream_shuffle" {dst = #nc.ap<"sbuf", f32, tensor = -1, partitions = [32, 32], {{.*}} offset = 4096, {{.*}} src0 = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 1], pstride = 0, offset = 0,
  // CHECK-NEXT: nc.inst "stream_shuffle" {dst = #nc.ap<"sbuf", f32, tensor = -1, partitions = [64, 32],
  // CHECK-NEXT: nc.inst "stream_shuffle" {dst = #nc.ap<"sbuf", f32, tensor = -1, partitions = [96, 32],
  // CHECK-NEXT: nc.tensor_copy #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 8192, dims = [512], strides = [1]>, #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 2048, dims = [512], strides = [0]>
  // CHECK-NEXT: nc.tensor_copy #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 1], pstride = 0, offset = 12288, dims = [512], strides = [1]>, #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 1], pstride = 0, offset = 0, dims = [512], strides = [1]>
  // CHECK-NEXT: nc.inst "stream_shuffle" {dst = #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 32], pstride = 0, offset = 12288, {{.*}}, engine = "vector", src0 = #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 1], pstride = 0, offset = 12288,
  // CHECK-NEXT: nc.inst "stream_shuffle" {dst = #nc.ap<"sbuf", bf16, tensor = -1, partitions = [32, 8], pstride = 0, offset = 12288, {{.*}}, engine = "vector", src0 = #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 1], pstride = 0, offset = 12288,
  // CHECK-NEXT: return
  func.func @broadcast() {
    %row = tile.alloc {offset = 0 : i64, bufs = 1 : i64} : memref<1x512xf32, #tile.space<sbuf>>
    %col = tile.alloc {offset = 2048 : i64, bufs = 1 : i64} : memref<128x1xf32, #tile.space<sbuf>>
    %rows = tile.alloc {offset = 4096 : i64, bufs = 1 : i64} : memref<128x512xf32, #tile.space<sbuf>>
    %cols = tile.alloc {offset = 8192 : i64, bufs = 1 : i64} : memref<128x512xf32, #tile.space<sbuf>>
    %short = tile.alloc {offset = 12288 : i64, bufs = 1 : i64} : memref<40x512xbf16, #tile.space<sbuf>>
    tile.broadcast %row, %rows : memref<1x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
    tile.broadcast %col, %cols : memref<128x1xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
    tile.broadcast %row, %short : memref<1x512xf32, #tile.space<sbuf>>, memref<40x512xbf16, #tile.space<sbuf>>
    return
  }
}

// -----

// A row that starts at partition 8 (a partition_slice) cannot be shuffled: nc_stream_shuffle's operands start at a
// quadrant's first partition. The error says so, at the broadcast.
module attributes {tessera.target = "trn2"} {
  func.func @broadcast_from_unaligned_row() {
    %t = tile.alloc {offset = 0 : i64, bufs = 1 : i64} : memref<16x512xf32, #tile.space<sbuf>>
    %rows = tile.alloc {offset = 4096 : i64, bufs = 1 : i64} : memref<32x512xf32, #tile.space<sbuf>>
    %c0 = arith.constant 0 : index
    %row = tile.view %t[%c0] {partition = 8 : i64} : memref<16x512xf32, #tile.space<sbuf>> to memref<1x512xf32, #tile.space<sbuf>>
    // expected-error@+1 {{no engine of trn2 can run it: stream_shuffle on the vector engine: src starts at partition 8; with 32 active partitions (the larger of src and dst, in whole quadrants of 32) it must start at a multiple of 32}}
    tile.broadcast %row, %rows : memref<1x512xf32, #tile.space<sbuf>>, memref<32x512xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// In a manual_sync scope an op is the one instruction the kernel orders itself: a broadcast onto one quadrant in
// its own dtype is one stream_shuffle (marked manual), one onto 128 partitions would be four and is refused.
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @broadcast_manual
  // CHECK: nc.inst "stream_shuffle" {dst = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 32],
  // CHECK-SAME: nc.manual
  func.func @broadcast_manual() {
    %row = tile.alloc {offset = 0 : i64, bufs = 1 : i64} : memref<1x512xf32, #tile.space<sbuf>>
    %quad = tile.alloc {offset = 4096 : i64, bufs = 1 : i64} : memref<32x512xf32, #tile.space<sbuf>>
    tile.broadcast %row, %quad {tile.manual} : memref<1x512xf32, #tile.space<sbuf>>, memref<32x512xf32, #tile.space<sbuf>>
    return
  }
}

// -----

module attributes {tessera.target = "trn2"} {
  func.func @broadcast_manual_refused() {
    %row = tile.alloc {offset = 0 : i64, bufs = 1 : i64} : memref<1x512xf32, #tile.space<sbuf>>
    %rows = tile.alloc {offset = 8192 : i64, bufs = 1 : i64} : memref<128x512xf32, #tile.space<sbuf>>
    // expected-error@+1 {{'tile.broadcast' op onto 128 partitions takes 4 instructions, and in a manual_sync scope each op is one instruction the kernel orders itself: call tsr::isa::nc_stream_shuffle once per quadrant of 32 partitions (from a row of the destination's dtype) and order the calls with semaphores}}
    tile.broadcast %row, %rows {tile.manual} : memref<1x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// The pass is for NeuronCore targets only.
// expected-error@+1 {{lower-tile-to-nc: target tpu-v5e is a TPU; lower its kernels with lower-tile-to-tpu}}
module attributes {tessera.target = "tpu-v5e"} {
  func.func @tpu() {
    return
  }
}

// -----

// Access patterns (tile.view with `pattern`, Tile::ap): a copy into a pattern is one tensor_copy whose dst walks
// the pattern's free dimensions (the Transpose2D tutorial: f1 outer with step 1, f2 inner with step F1); a pattern
// at offset 96 * 32 starts at partition 32; a reduction into groups reduces the pattern's innermost dimensions
// (dst [P, 8] of a [P, 8, 12] walk), and a contiguous source into groups is walked as [groups, n].
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @access_patterns
  // CHECK: nc.tensor_copy #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 64], pstride = 0, offset = 1024, dims = [8, 12], strides = [1, 8]>, #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 64], pstride = 0, offset = 0, dims = [96], strides = [1]>
  // CHECK-NEXT: nc.tensor_copy #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 32], pstride = 0, offset = 2048, dims = [48], strides = [1]>, #nc.ap<"sbuf", f32, tensor = -1, partitions = [32, 32], pstride = 0, offset = 4, dims = [48], strides = [2]>
  // CHECK-NEXT: nc.tensor_reduce "max" #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 64], pstride = 0, offset = 3072, dims = [8], strides = [1]>, #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 64], pstride = 0, offset = 0, dims = [8, 12], strides = [12, 1]>
  // CHECK-NEXT: nc.tensor_reduce "add" #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 64], pstride = 0, offset = 3072, dims = [8], strides = [1]>, #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 64], pstride = 0, offset = 0, dims = [8, 12], strides = [12, 1]>
  func.func @access_patterns() {
    %in = tile.alloc {offset = 0 : i64, bufs = 1 : i64} : memref<64x96xf32, #tile.space<sbuf>>
    %out = tile.alloc {offset = 1024 : i64, bufs = 1 : i64} : memref<64x96xf32, #tile.space<sbuf>>
    %half = tile.alloc {offset = 2048 : i64, bufs = 1 : i64} : memref<32x96xf32, #tile.space<sbuf>>
    %max = tile.alloc {offset = 3072 : i64, bufs = 1 : i64} : memref<64x8xf32, #tile.space<sbuf>>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    tile.memset %in, 1.0 : memref<64x96xf32, #tile.space<sbuf>>
    %t = tile.view %out[%c0] {pattern = array<i64: 1, 8, 8, 12>} : memref<64x96xf32, #tile.space<sbuf>> to memref<64x96xf32, #tile.space<sbuf>>
    tile.copy %in, %t : memref<64x96xf32, #tile.space<sbuf>>, memref<64x96xf32, #tile.space<sbuf>>
    %odd = tile.view %in[%c1] {partition = 32 : i64, pattern = array<i64: 2, 48>} : memref<64x96xf32, #tile.space<sbuf>> to memref<32x48xf32, #tile.space<sbuf>>
    %h = tile.view %half[%c0] : memref<32x96xf32, #tile.space<sbuf>> to memref<32x48xf32, #tile.space<sbuf>>
    tile.copy %odd, %h : memref<32x48xf32, #tile.space<sbuf>>, memref<32x48xf32, #tile.space<sbuf>>
    %rows = tile.view %in[%c0] {pattern = array<i64: 12, 8, 1, 12>} : memref<64x96xf32, #tile.space<sbuf>> to memref<64x96xf32, #tile.space<sbuf>>
    tile.reduce max %rows, %max : memref<64x96xf32, #tile.space<sbuf>>, memref<64x8xf32, #tile.space<sbuf>>
    tile.reduce add %in, %max : memref<64x96xf32, #tile.space<sbuf>>, memref<64x8xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// An access-pattern copy within one tile: the odd elements from the even ones share no element and are one
// tensor_copy; a transpose onto itself shares elements, which an engine streaming them would read after writing,
// so it is refused at the copy.
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @access_pattern_within_a_tile
  // CHECK: nc.tensor_copy #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 64], pstride = 0, offset = 4, dims = [48], strides = [2]>, #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 64], pstride = 0, offset = 0, dims = [48], strides = [2]>
  func.func @access_pattern_within_a_tile() {
    %t = tile.alloc {offset = 0 : i64, bufs = 1 : i64} : memref<64x96xf32, #tile.space<sbuf>>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    tile.memset %t, 1.0 : memref<64x96xf32, #tile.space<sbuf>>
    %even = tile.view %t[%c0] {pattern = array<i64: 2, 48>} : memref<64x96xf32, #tile.space<sbuf>> to memref<64x48xf32, #tile.space<sbuf>>
    %odd = tile.view %t[%c1] {pattern = array<i64: 2, 48>} : memref<64x96xf32, #tile.space<sbuf>> to memref<64x48xf32, #tile.space<sbuf>>
    tile.copy %even, %odd : memref<64x48xf32, #tile.space<sbuf>>, memref<64x48xf32, #tile.space<sbuf>>
    return
  }
}

// -----

module attributes {tessera.target = "trn2"} {
  func.func @access_pattern_onto_itself() {
    %t = tile.alloc {offset = 0 : i64, bufs = 1 : i64} : memref<64x96xf32, #tile.space<sbuf>>
    %c0 = arith.constant 0 : index
    tile.memset %t, 1.0 : memref<64x96xf32, #tile.space<sbuf>>
    %tr = tile.view %t[%c0] {pattern = array<i64: 1, 8, 8, 12>} : memref<64x96xf32, #tile.space<sbuf>> to memref<64x96xf32, #tile.space<sbuf>>
    // expected-error@+1 {{'tile.copy' op an access-pattern copy reads elements of its destination after writing them: an engine streams the elements, so it would read what it wrote, which the simulator's copy does not; copy through a tile of its own}}
    tile.copy %t, %tr : memref<64x96xf32, #tile.space<sbuf>>, memref<64x96xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// Elementwise ops reading access patterns: each one instruction whose source walks the pattern (the transpose of
// each row's [8, 12] matrix read by tensor_tensor, tensor_scalar and activation); an op whose pattern shares
// elements with its destination (`t += t.ap(...)`) is refused, as such copies are.
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @elementwise_access_patterns
  // CHECK: nc.tensor_tensor "add" {{.*}}offset = 1024, dims = [96], strides = [1]>, #nc.ap<{{.*}}offset = 1024, dims = [96], strides = [1]>, #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 64], pstride = 0, offset = 0, dims = [8, 12], strides = [1, 8]> {engine = "vector"}
  // CHECK-NEXT: nc.inst "tensor_scalar" {{.*}}src0 = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 64], pstride = 0, offset = 0, dims = [8, 12], strides = [1, 8]>}
  // CHECK-NEXT: nc.activation "exp" {{.*}}offset = 1024, dims = [96], strides = [1]>, #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 64], pstride = 0, offset = 0, dims = [8, 12], strides = [1, 8]> {engine = "scalar"
  // CHECK-NEXT: return
  func.func @elementwise_access_patterns() {
    %in = tile.alloc {offset = 0 : i64, bufs = 1 : i64} : memref<64x96xf32, #tile.space<sbuf>>
    %out = tile.alloc {offset = 1024 : i64, bufs = 1 : i64} : memref<64x96xf32, #tile.space<sbuf>>
    %c0 = arith.constant 0 : index
    tile.memset %in, 1.0 : memref<64x96xf32, #tile.space<sbuf>>
    tile.memset %out, 1.0 : memref<64x96xf32, #tile.space<sbuf>>
    %t = tile.view %in[%c0] {pattern = array<i64: 1, 8, 8, 12>} : memref<64x96xf32, #tile.space<sbuf>> to memref<64x96xf32, #tile.space<sbuf>>
    tile.binary add %out, %t, %out : memref<64x96xf32, #tile.space<sbuf>>, memref<64x96xf32, #tile.space<sbuf>>, memref<64x96xf32, #tile.space<sbuf>>
    tile.binary_scalar multiply %t, 2.0, %out : memref<64x96xf32, #tile.space<sbuf>>, memref<64x96xf32, #tile.space<sbuf>>
    tile.activation exp %t, %out : memref<64x96xf32, #tile.space<sbuf>>, memref<64x96xf32, #tile.space<sbuf>>
    return
  }
}

// -----

module attributes {tessera.target = "trn2"} {
  func.func @elementwise_access_pattern_onto_itself() {
    %t = tile.alloc {offset = 0 : i64, bufs = 1 : i64} : memref<64x96xf32, #tile.space<sbuf>>
    %c0 = arith.constant 0 : index
    tile.memset %t, 1.0 : memref<64x96xf32, #tile.space<sbuf>>
    %tr = tile.view %t[%c0] {pattern = array<i64: 1, 8, 8, 12>} : memref<64x96xf32, #tile.space<sbuf>> to memref<64x96xf32, #tile.space<sbuf>>
    // expected-error@+2 {{'tile.binary' op an elementwise op reads an access pattern (Tile::ap) whose elements it writes first: an engine streams the elements, so it would read some it has already written}}
    // expected-note@+1 {{hint: write the result into a tile of its own}}
    tile.binary add %t, %tr, %t : memref<64x96xf32, #tile.space<sbuf>>, memref<64x96xf32, #tile.space<sbuf>>, memref<64x96xf32, #tile.space<sbuf>>
    return
  }
}
