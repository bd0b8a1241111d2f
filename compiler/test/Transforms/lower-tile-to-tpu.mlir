// lower-tile-to-tpu: loops unrolled, every tile at its VMEM address (rows `pitch` elements apart, rotating copies),
// one tpu op per TensorCore instruction on its unit, the scalar core's grid steps, zero fills of accumulators
// dropped when a matmul overwrites them first; tsr::isa-level ops refused.
// RUN: tessera-opt %s -split-input-file -verify-diagnostics -lower-tile-to-tpu | FileCheck %s

// A tiled matmul C[128, 1024] = A_t[256, 128]^T @ B[256, 1024], VMEM already allocated (as allocate-memory does
// for tpu-v5e: two copies of each loop tile, each a multiple of 4 KiB). The n loop (2 iterations) stores C, the k
// loop (2 iterations) loads B and A_t: both are grid loops.
module attributes {tessera.target = "tpu-v5e"} {
  // CHECK-LABEL: func.func @matmul
  // CHECK-SAME: (%{{.*}}: memref<256x128xbf16>, %{{.*}}: memref<256x1024xbf16>, %{{.*}}: memref<128x1024xbf16>)
  // CHECK-NOT: scf.for
  // CHECK-NOT: tile.
  // CHECK-NOT: tpu.vpu_fill
  //
  // The kernel's entry, then the first step of the n loop and the first of the k loop.
  // CHECK: tpu.grid_step {engine = "scalar"}{{$}}
  // CHECK-NEXT: tpu.grid_step {engine = "scalar"}{{$}}
  // CHECK-NEXT: tpu.grid_step {engine = "scalar"}{{$}}
  // n = 0, k = 0: B[0, 0] into copy 0 of t1 (rows of 512 bf16), A_t[0, 0] into copy 0 of t2 (rows of 128), loads
  // on queues 0 and 1; the matmul into the zero-filled accumulator overwrites it: no `accumulate`, no fill.
  // CHECK-NEXT: tpu.dma #tpu.ref<"vmem", bf16, tensor = -1, rows = 128, pitch = 512, offset = 524288, dims = [512], strides = [1]>, #tpu.ref<"hbm", bf16, tensor = 1, rows = 128, pitch = 1024, offset = 0, dims = [512], strides = [1]> {engine = "dma"}{{$}}
  // CHECK-NEXT: tpu.dma #tpu.ref<"vmem", bf16, tensor = -1, rows = 128, pitch = 128, offset = 786432, dims = [128], strides = [1]>, #tpu.ref<"hbm", bf16, tensor = 0, rows = 128, pitch = 128, offset = 0, dims = [128], strides = [1]> {engine = "dma", queue = 1 : i64}
  // CHECK-NEXT: tpu.mxu_matmul #tpu.ref<"vmem", f32, tensor = -1, rows = 128, pitch = 512, offset = 0, dims = [512], strides = [1]>, #tpu.ref<"vmem", bf16, {{.*}} offset = 786432, {{.*}}>, #tpu.ref<"vmem", bf16, {{.*}} offset = 524288, {{.*}}> {engine = "mxu"}{{$}}
  //
  // n = 0, k = 1: the next grid step; B[128, 0] (element 128 * 1024) into copy 1 of t1 (128 KiB on), A_t[128, 0]
  // into copy 1 of t2 (32 KiB on); this matmul accumulates.
  // CHECK-NEXT: tpu.grid_step {engine = "scalar"}{{$}}
  // CHECK-NEXT: tpu.dma #tpu.ref<"vmem", bf16, {{.*}} offset = 655360, {{.*}}>, #tpu.ref<"hbm", bf16, tensor = 1, {{.*}} offset = 131072, {{.*}}> {engine = "dma"}{{$}}
  // CHECK-NEXT: tpu.dma #tpu.ref<"vmem", bf16, {{.*}} offset = 819200, {{.*}}>, #tpu.ref<"hbm", bf16, tensor = 0, {{.*}} offset = 16384, {{.*}}> {engine = "dma", queue = 1 : i64}
  // CHECK-NEXT: tpu.mxu_matmul #tpu.ref<"vmem", f32, {{.*}} offset = 0, {{.*}}>, #tpu.ref<"vmem", {{.*}} offset = 819200, {{.*}}>, #tpu.ref<"vmem", {{.*}} offset = 655360, {{.*}}> {accumulate, engine = "mxu"}
  //
  // The f32 accumulator becomes bf16 on the VPU; the store of C[0, 0] takes the first store queue (16 queues: 8
  // for loads, 8 for stores). Each statement keeps its queue: B's loads 0, A_t's 1, the stores 8.
  // CHECK-NEXT: tpu.vpu_convert #tpu.ref<"vmem", bf16, tensor = -1, rows = 128, pitch = 512, offset = 851968, dims = [512], strides = [1]>, #tpu.ref<"vmem", f32, {{.*}} offset = 0, {{.*}}> {engine = "vpu"}
  // CHECK-NEXT: tpu.dma #tpu.ref<"hbm", bf16, tensor = 2, rows = 128, pitch = 1024, offset = 0, dims = [512], strides = [1]>, #tpu.ref<"vmem", bf16, {{.*}} offset = 851968, {{.*}}> {engine = "dma", queue = 8 : i64}
  //
  // n = 1: a grid step for the n loop and one for its first k step; the accumulator's second copy (256 KiB on).
  // CHECK-NEXT: tpu.grid_step
  // CHECK-NEXT: tpu.grid_step
  // CHECK-NEXT: tpu.dma #tpu.ref<"vmem", bf16, {{.*}} offset = 524288, {{.*}}>, #tpu.ref<"hbm", bf16, tensor = 1, {{.*}} offset = 512, {{.*}}> {engine = "dma"}{{$}}
  // CHECK-NEXT: tpu.dma {{.*}} {engine = "dma", queue = 1 : i64}
  // CHECK-NEXT: tpu.mxu_matmul #tpu.ref<"vmem", f32, {{.*}} offset = 262144, {{.*}}> {engine = "mxu"}{{$}}
  // CHECK-NEXT: tpu.grid_step
  // CHECK-NEXT: tpu.dma {{.*}} {engine = "dma"}{{$}}
  // CHECK-NEXT: tpu.dma {{.*}} {engine = "dma", queue = 1 : i64}
  // CHECK-NEXT: tpu.mxu_matmul #tpu.ref<"vmem", f32, {{.*}} offset = 262144, {{.*}}> {accumulate, engine = "mxu"}
  // CHECK-NEXT: tpu.vpu_convert #tpu.ref<"vmem", bf16, {{.*}} offset = 983040, {{.*}}>, #tpu.ref<"vmem", f32, {{.*}} offset = 262144, {{.*}}>
  // CHECK-NEXT: tpu.dma #tpu.ref<"hbm", bf16, tensor = 2, {{.*}} offset = 512, {{.*}}>, {{.*}} {engine = "dma", queue = 8 : i64}
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
        %t1 = tile.alloc {name = "t1", offset = 524288 : i64, bufs = 2 : i64} : memref<128x512xbf16, #tile.space<sbuf>>
        tile.load %b[%row, %col], %t1 : memref<256x1024xbf16>, memref<128x512xbf16, #tile.space<sbuf>>
        %t2 = tile.alloc {name = "t2", offset = 786432 : i64, bufs = 2 : i64} : memref<128x128xbf16, #tile.space<sbuf>>
        tile.load %a_t[%row, %c0], %t2 : memref<256x128xbf16>, memref<128x128xbf16, #tile.space<sbuf>>
        tile.matmul %t2, %t1, %acc {accumulate} : memref<128x128xbf16, #tile.space<sbuf>>, memref<128x512xbf16, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<psum>>
      }
      %out = tile.alloc {name = "out", offset = 851968 : i64, bufs = 2 : i64} : memref<128x512xbf16, #tile.space<sbuf>>
      tile.copy %acc, %out : memref<128x512xf32, #tile.space<psum>>, memref<128x512xbf16, #tile.space<sbuf>>
      tile.store %out, %c[%c0, %col] : memref<128x512xbf16, #tile.space<sbuf>>, memref<128x1024xbf16>
    }
    return
  }
}

// -----

// A strided window (steps): rows 3 apart (a pitch of 3 x 64 elements), every other column from
// column 1 (offsets and strides in elements).
module attributes {tessera.target = "tpu-v5e"} {
  // CHECK-LABEL: func.func @strided_load
  // CHECK: tpu.dma {{.*}}, #tpu.ref<"hbm", bf16, tensor = 0, rows = 4, pitch = 192, offset = 1, dims = [32], strides = [2]>
  func.func @strided_load(%x: memref<12x64xbf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %t = tile.alloc {offset = 0 : i64, bufs = 1 : i64} : memref<4x32xbf16, #tile.space<sbuf>>
    tile.load %x[%c0, %c1], %t {steps = array<i64: 3, 2>} : memref<12x64xbf16>, memref<4x32xbf16, #tile.space<sbuf>>
    return
  }
}

// -----

// Grid steps: only loops whose own body moves a tile between HBM and VMEM are grid loops. The outer loop's body
// holds the inner loop, not a DMA: no grid step for it; the inner loop's two iterations each start with one. A
// loop without DMA (the last) has none.
module attributes {tessera.target = "tpu-v5e"} {
  // CHECK-LABEL: func.func @grid_steps
  // CHECK-NEXT: tpu.grid_step {engine = "scalar"}{{$}}
  // CHECK-NEXT: tpu.grid_step
  // CHECK-NEXT: tpu.dma {{.*}} offset = 0, {{.*}}>, #tpu.ref<"hbm", f32, tensor = 0, rows = 8, pitch = 256, offset = 0, {{.*}}>
  // CHECK-NEXT: tpu.grid_step
  // CHECK-NEXT: tpu.dma {{.*}} offset = 4096, {{.*}}>, #tpu.ref<"hbm", f32, tensor = 0, rows = 8, pitch = 256, offset = 128, {{.*}}>
  // CHECK-NEXT: tpu.grid_step
  // CHECK-NEXT: tpu.dma {{.*}} offset = 0, {{.*}}>, #tpu.ref<"hbm", f32, tensor = 0, rows = 8, pitch = 256, offset = 2048, {{.*}}>
  // CHECK-NEXT: tpu.grid_step
  // CHECK-NEXT: tpu.dma {{.*}} offset = 4096, {{.*}}>, #tpu.ref<"hbm", f32, tensor = 0, rows = 8, pitch = 256, offset = 2176, {{.*}}>
  // CHECK-NEXT: tpu.vpu_fill {{.*}} offset = 8192, {{.*}}>, 1.000000e+00
  // CHECK-NEXT: tpu.vpu_fill {{.*}} offset = 8192, {{.*}}>, 1.000000e+00
  // CHECK-NEXT: return
  func.func @grid_steps(%x: memref<16x256xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    scf.for %i = %c0 to %c2 step %c1 {
      %row = arith.muli %i, %c8 : index
      scf.for %j = %c0 to %c2 step %c1 {
        %col = arith.muli %j, %c128 : index
        %t = tile.alloc {offset = 0 : i64, bufs = 2 : i64} : memref<8x128xf32, #tile.space<sbuf>>
        tile.load %x[%row, %col], %t : memref<16x256xf32>, memref<8x128xf32, #tile.space<sbuf>>
      }
    }
    scf.for %k = %c0 to %c2 step %c1 {
      %u = tile.alloc {offset = 8192 : i64, bufs = 1 : i64} : memref<8x128xf32, #tile.space<sbuf>>
      tile.memset %u, 1.0 : memref<8x128xf32, #tile.space<sbuf>>
    }
    return
  }
}

// -----

// Zero fills: an accumulator's zero fill is emitted, on the VPU at the memset's line, only when something reads the
// tile before a matmul overwrites it; the matmul after it still overwrites (accumulating onto zeros is the same).
// Other fills are emitted where they are.
module attributes {tessera.target = "tpu-v5e"} {
  // CHECK-LABEL: func.func @zero_fills
  // CHECK-NEXT: tpu.grid_step
  // The SBUF tile's zero fill is a real one.
  // CHECK-NEXT: tpu.vpu_fill #tpu.ref<"vmem", bf16, tensor = -1, rows = 16, pitch = 128, offset = 0, dims = [128], strides = [1]>, 0.000000e+00 {engine = "vpu"}
  // The accumulator is printed before any matmul: its fill comes first.
  // CHECK-NEXT: tpu.vpu_fill #tpu.ref<"vmem", f32, tensor = -1, rows = 128, pitch = 128, offset = 4096, dims = [128], strides = [1]>, 0.000000e+00 {engine = "vpu"}
  // CHECK-NEXT: tpu.print "acc" #tpu.ref<"vmem", f32, {{.*}} offset = 4096, {{.*}}> {engine = "vpu"}
  // CHECK-NEXT: tpu.mxu_matmul #tpu.ref<"vmem", f32, {{.*}} offset = 4096, {{.*}}> {engine = "mxu"}{{$}}
  // CHECK-NEXT: tpu.mxu_matmul #tpu.ref<"vmem", f32, {{.*}} offset = 4096, {{.*}}> {accumulate, engine = "mxu"}
  // A second accumulator, filled with 2: accumulated onto as written.
  // CHECK-NEXT: tpu.vpu_fill #tpu.ref<"vmem", f32, {{.*}} offset = 69632, {{.*}}>, 2.000000e+00 {engine = "vpu"}
  // CHECK-NEXT: tpu.mxu_matmul #tpu.ref<"vmem", f32, {{.*}} offset = 69632, {{.*}}> {accumulate, engine = "mxu"}
  // CHECK-NEXT: return
  func.func @zero_fills() {
    %w = tile.alloc {offset = 0 : i64, bufs = 1 : i64} : memref<16x128xbf16, #tile.space<sbuf>>
    tile.memset %w, 0.0 : memref<16x128xbf16, #tile.space<sbuf>>
    %acc = tile.alloc {offset = 4096 : i64, bufs = 1 : i64} : memref<128x128xf32, #tile.space<psum>>
    tile.memset %acc, 0.0 : memref<128x128xf32, #tile.space<psum>>
    tile.print "acc", %acc : memref<128x128xf32, #tile.space<psum>>
    tile.matmul %w, %w, %acc {accumulate} : memref<16x128xbf16, #tile.space<sbuf>>, memref<16x128xbf16, #tile.space<sbuf>>, memref<128x128xf32, #tile.space<psum>>
    tile.matmul %w, %w, %acc {accumulate} : memref<16x128xbf16, #tile.space<sbuf>>, memref<16x128xbf16, #tile.space<sbuf>>, memref<128x128xf32, #tile.space<psum>>
    %two = tile.alloc {offset = 69632 : i64, bufs = 1 : i64} : memref<128x128xf32, #tile.space<psum>>
    tile.memset %two, 2.0 : memref<128x128xf32, #tile.space<psum>>
    tile.matmul %w, %w, %two {accumulate} : memref<16x128xbf16, #tile.space<sbuf>>, memref<16x128xbf16, #tile.space<sbuf>>, memref<128x128xf32, #tile.space<psum>>
    return
  }
}

// -----

// VPU ops: a row reduction, a [R, 1] operand broadcast along the row with stride 0, an activation with its scale,
// and a window of a tile (tile.view) addressed inside its rows: the window's first element, same pitch.
module attributes {tessera.target = "tpu-v5e"} {
  // CHECK-LABEL: func.func @vpu_ops
  // CHECK: tpu.vpu_reduce "max" #tpu.ref<"vmem", f32, tensor = -1, rows = 8, pitch = 128, offset = 8192, dims = [1], strides = [1]>, #tpu.ref<"vmem", f32, tensor = -1, rows = 8, pitch = 256, offset = 0, dims = [256], strides = [1]> {engine = "vpu"}
  // CHECK-NEXT: tpu.vpu_binary "subtract" #tpu.ref<"vmem", f32, {{.*}} pitch = 256, offset = 0, dims = [256], strides = [1]>, #tpu.ref<"vmem", f32, {{.*}} offset = 0, {{.*}}>, #tpu.ref<"vmem", f32, tensor = -1, rows = 8, pitch = 128, offset = 8192, dims = [256], strides = [0]> {engine = "vpu"}
  // CHECK-NEXT: tpu.vpu_unary "exp" {{.*}} {engine = "vpu", scale = 5.000000e-01 : f32}
  // Columns 128..255 of x: 128 f32 elements (512 bytes) into each row.
  // CHECK-NEXT: tpu.vpu_unary "relu" #tpu.ref<"vmem", f32, tensor = -1, rows = 8, pitch = 256, offset = 512, dims = [128], strides = [1]>, #tpu.ref<"vmem", f32, tensor = -1, rows = 8, pitch = 256, offset = 512, dims = [128], strides = [1]> {engine = "vpu", scale = 1.000000e+00 : f32}
  func.func @vpu_ops() {
    %c128 = arith.constant 128 : index
    %x = tile.alloc {offset = 0 : i64, bufs = 1 : i64} : memref<8x256xf32, #tile.space<sbuf>>
    %m = tile.alloc {offset = 8192 : i64, bufs = 1 : i64} : memref<8x1xf32, #tile.space<sbuf>>
    tile.reduce max %x, %m : memref<8x256xf32, #tile.space<sbuf>>, memref<8x1xf32, #tile.space<sbuf>>
    tile.binary subtract %x, %m, %x : memref<8x256xf32, #tile.space<sbuf>>, memref<8x1xf32, #tile.space<sbuf>>, memref<8x256xf32, #tile.space<sbuf>>
    tile.activation exp %x, %x {scale = 0.5 : f32} : memref<8x256xf32, #tile.space<sbuf>>, memref<8x256xf32, #tile.space<sbuf>>
    %right = tile.view %x[%c128] : memref<8x256xf32, #tile.space<sbuf>> to memref<8x128xf32, #tile.space<sbuf>>
    tile.activation relu %right, %right : memref<8x128xf32, #tile.space<sbuf>>, memref<8x128xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// A number of the kernel (tile.binary_scalar) is a vpu_binary without rhs: the number is operand0, splatted, and
// `reverse0` puts it on the left.
module attributes {tessera.target = "tpu-v5e"} {
  // CHECK-LABEL: func.func @vpu_numbers
  // CHECK: tpu.vpu_binary "multiply" #tpu.ref<"vmem", f32, tensor = -1, rows = 8, pitch = 256, offset = 0, dims = [256], strides = [1]>, #tpu.ref<"vmem", f32, tensor = -1, rows = 8, pitch = 256, offset = 0, dims = [256], strides = [1]> {engine = "vpu", operand0 = 1.250000e-01 : f32}
  // CHECK-NEXT: tpu.vpu_binary "subtract" {{.*}} {engine = "vpu", operand0 = 1.000000e+00 : f32, reverse0}
  // CHECK-NEXT: tpu.vpu_binary "divide" {{.*}} {engine = "vpu", operand0 = 3.000000e+00 : f32}
  func.func @vpu_numbers() {
    %x = tile.alloc {offset = 0 : i64, bufs = 1 : i64} : memref<8x256xf32, #tile.space<sbuf>>
    tile.memset %x, 2.0 : memref<8x256xf32, #tile.space<sbuf>>
    tile.binary_scalar multiply %x, 0.125, %x : memref<8x256xf32, #tile.space<sbuf>>, memref<8x256xf32, #tile.space<sbuf>>
    tile.binary_scalar subtract %x, 1.0, %x {reverse} : memref<8x256xf32, #tile.space<sbuf>>, memref<8x256xf32, #tile.space<sbuf>>
    tile.binary_scalar divide %x, 3.0, %x : memref<8x256xf32, #tile.space<sbuf>>, memref<8x256xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// The instruction definitions' rules hold at the kernel's line: the VPU computes on f32, bf16, i32 and u32 only.
module attributes {tessera.target = "tpu-v5e"} {
  func.func @fp8_on_the_vpu() {
    %x = tile.alloc {offset = 0 : i64, bufs = 1 : i64} : memref<32x128xf8E4M3FN, #tile.space<sbuf>>
    // expected-error@+1 {{vpu_unary out is f8e4m3; VPU arithmetic takes f32, bf16, i32 or u32: convert it with vpu_convert first}}
    tile.activation exp %x, %x : memref<32x128xf8E4M3FN, #tile.space<sbuf>>, memref<32x128xf8E4M3FN, #tile.space<sbuf>>
    return
  }
}

// -----
// Ops written at the tsr::isa level are NeuronCore instructions.

module attributes {tessera.target = "tpu-v5e"} {
  func.func @isa_instruction() {
    %x = tile.alloc {offset = 0 : i64, bufs = 1 : i64} : memref<8x128xf32, #tile.space<sbuf>>
    // expected-error@+1 {{tsr::isa::tensor_scalar is a NeuronCore instruction; target tpu-v5e is a TPU: write this kernel with tsr:: language ops}}
    tile.inst "tensor_scalar" dst(%x : memref<8x128xf32, #tile.space<sbuf>>) src0(%x : memref<8x128xf32, #tile.space<sbuf>>) {params = {alu = "multiply", operand0 = 2.0 : f32}}
    return
  }
}

// -----

module attributes {tessera.target = "tpu-v5e"} {
  func.func @isa_matmul() {
    %w = tile.alloc {offset = 0 : i64, bufs = 1 : i64} : memref<16x128xbf16, #tile.space<sbuf>>
    %acc = tile.alloc {offset = 4096 : i64, bufs = 1 : i64} : memref<128x128xf32, #tile.space<psum>>
    // expected-error@+1 {{tsr::isa::nc_matmul is a NeuronCore instruction; target tpu-v5e is a TPU}}
    tile.matmul %w, %w, %acc {tile.isa} : memref<16x128xbf16, #tile.space<sbuf>>, memref<16x128xbf16, #tile.space<sbuf>>, memref<128x128xf32, #tile.space<psum>>
    return
  }
}

// -----

module attributes {tessera.target = "tpu-v5e"} {
  func.func @manual_sync(%h: memref<8x128xf32>) {
    %c0 = arith.constant 0 : index
    %x = tile.alloc {offset = 0 : i64, bufs = 1 : i64} : memref<8x128xf32, #tile.space<sbuf>>
    // expected-error@+1 {{tsr::isa::manual_sync is a NeuronCore instruction; target tpu-v5e is a TPU}}
    tile.load %h[%c0, %c0], %x {tile.manual} : memref<8x128xf32>, memref<8x128xf32, #tile.space<sbuf>>
    tile.signal 0 {tile.manual}
    return
  }
}

// -----

module attributes {tessera.target = "tpu-v5e"} {
  func.func @placed_tile() {
    // expected-error@+1 {{tsr::isa::sbuf_tile_at is a NeuronCore instruction; target tpu-v5e is a TPU}}
    %x = tile.alloc {fixed, offset = 256 : i64, bufs = 1 : i64} : memref<8x128xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// tile.fill_where: a vpu_fill per run of a row that the test picks, each one row of the tile's VMEM rows (pitch
// 128 elements, 512 bytes). f - p > 0 on a [4, 4] tile: row 0 from column 1, row 1 from 2, row 2 from 3, row 3
// none.
module attributes {tessera.target = "tpu-v5e"} {
  // CHECK-LABEL: func.func @fill_where
  // CHECK: tpu.vpu_fill #tpu.ref<"vmem", f32, {{.*}}rows = 1, pitch = 128, offset = 4, dims = [3], {{.*}}>, -1.000000e+00
  // CHECK-NEXT: tpu.vpu_fill #tpu.ref<"vmem", f32, {{.*}}rows = 1, pitch = 128, offset = 520, dims = [2], {{.*}}>, -1.000000e+00
  // CHECK-NEXT: tpu.vpu_fill #tpu.ref<"vmem", f32, {{.*}}rows = 1, pitch = 128, offset = 1036, dims = [1], {{.*}}>, -1.000000e+00
  // CHECK-NOT: tpu.vpu_fill
  func.func @fill_where() {
    %x = tile.alloc {offset = 0 : i64, bufs = 1 : i64} : memref<4x4xf32, #tile.space<sbuf>>
    %c0_off = arith.constant 0 : index
    tile.fill_where is_gt %x[%c0_off], -1.0 {partition = -1 : i64, free = 1 : i64} : memref<4x4xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// Any free coefficient: p - 2 f >= 0 on a [4, 4] tile (a pooling band's lower edge) picks columns f <= p / 2, one
// run from column 0 per row: 1, 1, 2 and 2 elements.
module attributes {tessera.target = "tpu-v5e"} {
  // CHECK-LABEL: func.func @fill_where_step
  // CHECK: tpu.vpu_fill #tpu.ref<"vmem", f32, {{.*}}rows = 1, pitch = 128, offset = 0, dims = [1], {{.*}}>, 0.000000e+00
  // CHECK-NEXT: tpu.vpu_fill #tpu.ref<"vmem", f32, {{.*}}rows = 1, pitch = 128, offset = 512, dims = [1], {{.*}}>, 0.000000e+00
  // CHECK-NEXT: tpu.vpu_fill #tpu.ref<"vmem", f32, {{.*}}rows = 1, pitch = 128, offset = 1024, dims = [2], {{.*}}>, 0.000000e+00
  // CHECK-NEXT: tpu.vpu_fill #tpu.ref<"vmem", f32, {{.*}}rows = 1, pitch = 128, offset = 1536, dims = [2], {{.*}}>, 0.000000e+00
  // CHECK-NOT: tpu.vpu_fill
  func.func @fill_where_step() {
    %x = tile.alloc {offset = 0 : i64, bufs = 1 : i64} : memref<4x4xf32, #tile.space<sbuf>>
    %c0_off = arith.constant 0 : index
    tile.fill_where is_ge %x[%c0_off], 0.0 {partition = 1 : i64, free = -2 : i64} : memref<4x4xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// A transpose has no VPU instruction: tile-legalize-for-tpu makes it an MXU matmul first.
module attributes {tessera.target = "tpu-v5e"} {
  func.func @transpose() {
    %x = tile.alloc {offset = 0 : i64, bufs = 1 : i64} : memref<8x128xbf16, #tile.space<sbuf>>
    %y = tile.alloc {offset = 8192 : i64, bufs = 1 : i64} : memref<128x8xf32, #tile.space<psum>>
    // expected-error@+1 {{'tile.transpose' op has no VPU instruction: run tile-legalize-for-tpu first (an MXU matmul)}}
    tile.transpose %x, %y : memref<8x128xbf16, #tile.space<sbuf>>, memref<128x8xf32, #tile.space<psum>>
    return
  }
}

// -----

// The pass is for TPU targets only.
// expected-error@+1 {{lower-tile-to-tpu: target trn2 is a NeuronCore; lower its kernels with lower-tile-to-nc}}
module attributes {tessera.target = "trn2"} {
  func.func @neuroncore() {
    return
  }
}

// -----

// tile.broadcast is one vpu_convert whose source repeats its row (rows = 128 read with a pitch of 0: a sublane
// broadcast) or its column (a free stride of 0: a lane broadcast), converting to the destination's type.
module attributes {tessera.target = "tpu-v5e"} {
  // CHECK-LABEL: func.func @broadcast
  // CHECK: tpu.vpu_convert #tpu.ref<"vmem", f32, tensor = -1, rows = 128, pitch = 512, offset = 8192, dims = [512], strides = [1]>, #tpu.ref<"vmem", f32, tensor = -1, rows = 128, pitch = 0, offset = 0, dims = [512], strides = [1]> {engine = "vpu"}
  // CHECK-NEXT: tpu.vpu_convert #tpu.ref<"vmem", bf16, tensor = -1, rows = 128, pitch = 512, offset = 270336, dims = [512], strides = [1]>, #tpu.ref<"vmem", f32, tensor = -1, rows = 128, pitch = 128, offset = 4096, dims = [512], strides = [0]> {engine = "vpu"}
  // A bf16 row onto 64 partitions of an f32 tile (after its fill): converted as it is read.
  // CHECK: tpu.vpu_convert #tpu.ref<"vmem", f32, tensor = -1, rows = 64, pitch = 256, offset = 532480, dims = [256], strides = [1]>, #tpu.ref<"vmem", bf16, tensor = -1, rows = 64, pitch = 0, offset = 528384, dims = [256], strides = [1]> {engine = "vpu"}
  func.func @broadcast() {
    %row = tile.alloc {offset = 0 : i64, bufs = 1 : i64} : memref<1x512xf32, #tile.space<sbuf>>
    %col = tile.alloc {offset = 4096 : i64, bufs = 1 : i64} : memref<128x1xf32, #tile.space<sbuf>>
    %rows = tile.alloc {offset = 8192 : i64, bufs = 1 : i64} : memref<128x512xf32, #tile.space<sbuf>>
    %cols = tile.alloc {offset = 270336 : i64, bufs = 1 : i64} : memref<128x512xbf16, #tile.space<sbuf>>
    tile.memset %row, 1.0 : memref<1x512xf32, #tile.space<sbuf>>
    tile.memset %col, 2.0 : memref<128x1xf32, #tile.space<sbuf>>
    tile.broadcast %row, %rows : memref<1x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
    tile.broadcast %col, %cols : memref<128x1xf32, #tile.space<sbuf>>, memref<128x512xbf16, #tile.space<sbuf>>
    %half = tile.alloc {offset = 528384 : i64, bufs = 1 : i64} : memref<1x256xbf16, #tile.space<sbuf>>
    %wide = tile.alloc {offset = 532480 : i64, bufs = 1 : i64} : memref<64x256xf32, #tile.space<sbuf>>
    tile.memset %half, 1.0 : memref<1x256xbf16, #tile.space<sbuf>>
    tile.broadcast %half, %wide : memref<1x256xbf16, #tile.space<sbuf>>, memref<64x256xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// An access pattern's relayout is Mosaic's arrays in VMEM, beside the tiles its statement touches: every other
// element of [64, 1024] f32 is a [64, 512, 2] box, 16 MiB in (8, 128) tiles, which fits tpu-v5e's 128 MiB; of
// [128, 8192] f32 it is [128, 4096, 2], 256 MiB, which does not: an error at the statement. So is a grouped
// reduction's reshape of the same size, with its own remedy.
module attributes {tessera.target = "tpu-v5e"} {
  // CHECK-LABEL: func.func @relayout_fits
  // CHECK: tpu.vpu_convert {{.*}} dims = [512], strides = [2]>
  func.func @relayout_fits() {
    %c0 = arith.constant 0 : index
    %x = tile.alloc {offset = 0 : i64, bufs = 1 : i64} : memref<64x1024xf32, #tile.space<sbuf>>
    %h = tile.alloc {offset = 262144 : i64, bufs = 1 : i64} : memref<64x512xf32, #tile.space<sbuf>>
    tile.memset %x, 1.0 : memref<64x1024xf32, #tile.space<sbuf>>
    %e = tile.view %x[%c0] {pattern = array<i64: 2, 512>} : memref<64x1024xf32, #tile.space<sbuf>> to memref<64x512xf32, #tile.space<sbuf>>
    tile.copy %e, %h : memref<64x512xf32, #tile.space<sbuf>>, memref<64x512xf32, #tile.space<sbuf>>
    return
  }
}

// -----

module attributes {tessera.target = "tpu-v5e"} {
  func.func @relayout_past_vmem() {
    %c0 = arith.constant 0 : index
    %x = tile.alloc {offset = 0 : i64, bufs = 1 : i64} : memref<128x8192xf32, #tile.space<sbuf>>
    %h = tile.alloc {offset = 4194304 : i64, bufs = 1 : i64} : memref<128x4096xf32, #tile.space<sbuf>>
    tile.memset %x, 1.0 : memref<128x8192xf32, #tile.space<sbuf>>
    %e = tile.view %x[%c0] {pattern = array<i64: 2, 4096>} : memref<128x8192xf32, #tile.space<sbuf>> to memref<128x4096xf32, #tile.space<sbuf>>
    // expected-error@+1 {{this statement's relayout materialises [128, 4096, 2] in FP32, 256.00 MiB of VMEM in (8, 128) tiles (Mosaic's form of an access pattern on tpu-v5e), which with the 6.00 MiB of the tiles it reads and writes is more than the 128.00 MiB libtpu gives one kernel: the device's compiler cannot place it; walk fewer rows at a time}}
    tile.copy %e, %h : memref<128x4096xf32, #tile.space<sbuf>>, memref<128x4096xf32, #tile.space<sbuf>>
    return
  }
}

// -----

module attributes {tessera.target = "tpu-v5e"} {
  func.func @grouped_reduction_past_vmem() {
    %x = tile.alloc {offset = 0 : i64, bufs = 1 : i64} : memref<128x8192xf32, #tile.space<sbuf>>
    %m = tile.alloc {offset = 4194304 : i64, bufs = 1 : i64} : memref<128x4096xf32, #tile.space<sbuf>>
    tile.memset %x, 1.0 : memref<128x8192xf32, #tile.space<sbuf>>
    // expected-error@+1 {{materialises [128, 4096, 2] in FP32, 256.00 MiB of VMEM in (8, 128) tiles (Mosaic's form of a grouped reduction on tpu-v5e), which with the 6.00 MiB of the tiles it reads and writes is more than the 128.00 MiB libtpu gives one kernel: the device's compiler cannot place it; its groups of 2 elements each pad to 128 lanes: reduce fewer rows or columns per statement, or groups of a multiple of 128 elements}}
    tile.reduce max %x, %m : memref<128x8192xf32, #tile.space<sbuf>>, memref<128x4096xf32, #tile.space<sbuf>>
    return
  }
}
