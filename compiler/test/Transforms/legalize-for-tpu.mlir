// tile-legalize-for-tpu: the language-level ops a TPU TensorCore has no one instruction for become tile ops it
// has, before allocation; on a NeuronCore the pass changes nothing.
// RUN: tessera-opt %s -split-input-file -verify-diagnostics -tile-legalize-for-tpu | FileCheck %s

// A transpose is an MXU matmul with an identity made once at the kernel's entry (zeros, then the diagonal);
// into an f32 PSUM tile the matmul writes it directly, into a bf16 one (or SBUF) through an f32 accumulator and a
// copy. Both transposes of bf16 [128, 64] tiles share the one bf16 [128, 128] identity.
module attributes {tessera.target = "tpu-v5e"} {
  // CHECK-LABEL: func.func @transposes
  // CHECK-NEXT: %[[ID:.*]] = tile.alloc {name = "identity_bf16_128"} : memref<128x128xbf16, #tile.space<sbuf>>
  // CHECK-NEXT: tile.memset %[[ID]], 0.000000e+00
  // CHECK: tile.fill_where is_equal %[[ID]][%{{.*}}], 1.000000e+00 {free = -1 : i64, partition = 1 : i64}
  // CHECK: %[[X:.*]] = tile.alloc {name = "x"}
  // CHECK: %[[F:.*]] = tile.alloc {name = "f"}
  // CHECK: %[[B:.*]] = tile.alloc {name = "b"}
  // CHECK-NOT: tile.transpose
  // CHECK: tile.matmul %[[X]], %[[ID]], %[[F]] : memref<128x64xbf16, #tile.space<sbuf>>, memref<128x128xbf16, #tile.space<sbuf>>, memref<64x128xf32, #tile.space<psum>>
  // CHECK-NEXT: %[[ACC:.*]] = tile.alloc {name = "transposed"} : memref<64x128xf32, #tile.space<psum>>
  // CHECK-NEXT: tile.matmul %[[X]], %[[ID]], %[[ACC]]
  // CHECK-NEXT: tile.copy %[[ACC]], %[[B]] : memref<64x128xf32, #tile.space<psum>>, memref<64x128xbf16, #tile.space<psum>>
  func.func @transposes() {
    %x = tile.alloc {name = "x"} : memref<128x64xbf16, #tile.space<sbuf>>
    %f = tile.alloc {name = "f"} : memref<64x128xf32, #tile.space<psum>>
    %b = tile.alloc {name = "b"} : memref<64x128xbf16, #tile.space<psum>>
    tile.memset %x, 1.0 : memref<128x64xbf16, #tile.space<sbuf>>
    tile.transpose %x, %f : memref<128x64xbf16, #tile.space<sbuf>>, memref<64x128xf32, #tile.space<psum>>
    tile.transpose %x, %b : memref<128x64xbf16, #tile.space<sbuf>>, memref<64x128xbf16, #tile.space<psum>>
    return
  }
}

// -----

// Transposed windows (a TPU's DMA cannot transpose): the window moved as it lies into a tile of its own, then
// transposed on chip as tile.transpose is (an MXU matmul with an identity); a store the other way round.
module attributes {tessera.target = "tpu-v5e"} {
  // CHECK-LABEL: func.func @transposed_windows
  // CHECK: %[[W:.*]] = tile.alloc {name = "t_window"} : memref<128x64xbf16, #tile.space<sbuf>>
  // CHECK-NEXT: tile.load %{{.*}}[%{{.*}}, %{{.*}}], %[[W]] : memref<256x64xbf16>, memref<128x64xbf16, #tile.space<sbuf>>
  // CHECK: tile.matmul %[[W]], %{{.*}}, %[[ACC:.*]] : memref<128x64xbf16, #tile.space<sbuf>>, memref<128x128xbf16, #tile.space<sbuf>>, memref<64x128xf32, #tile.space<psum>>
  // CHECK-NEXT: tile.copy %[[ACC]], %[[T:.*]] : memref<64x128xf32, #tile.space<psum>>, memref<64x128xbf16, #tile.space<sbuf>>
  // CHECK: %[[S:.*]] = tile.alloc {name = "t_window"} : memref<128x64xbf16, #tile.space<sbuf>>
  // CHECK: tile.matmul %[[T]], %{{.*}}, %{{.*}} : memref<64x128xbf16, #tile.space<sbuf>>, memref<64x64xbf16, #tile.space<sbuf>>, memref<128x64xf32, #tile.space<psum>>
  // CHECK: tile.store %[[S]], %{{.*}}[%{{.*}}, %{{.*}}] : memref<128x64xbf16, #tile.space<sbuf>>, memref<256x64xbf16>
  // CHECK-NOT: {transpose}
  // CHECK: return
  func.func @transposed_windows(%x: memref<256x64xbf16>, %y: memref<256x64xbf16>) {
    %c0 = arith.constant 0 : index
    %t = tile.alloc {name = "t"} : memref<64x128xbf16, #tile.space<sbuf>>
    tile.load %x[%c0, %c0], %t {transpose} : memref<256x64xbf16>, memref<64x128xbf16, #tile.space<sbuf>>
    tile.store %t, %y[%c0, %c0] {transpose} : memref<64x128xbf16, #tile.space<sbuf>>, memref<256x64xbf16>
    return
  }
}

// -----

// A 32-bit integer would go through the MXU in FP32: not a data move.
module attributes {tessera.target = "tpu-v5e"} {
  func.func @transposed_window_of_i32(%x: memref<256x64xsi32>) {
    %c0 = arith.constant 0 : index
    %t = tile.alloc {name = "t"} : memref<64x128xsi32, #tile.space<sbuf>>
    // expected-error@+1 {{load: a transposed window of i32 on tpu-v5e (a TPU, whose DMA cannot transpose) would be transposed on chip through the MXU in FP32, exact only up to 2^24: move the window as it lies (without .transposed())}}
    tile.load %x[%c0, %c0], %t {transpose} : memref<256x64xsi32>, memref<64x128xsi32, #tile.space<sbuf>>
    return
  }
}

// -----

// More than 128 x 128 cannot be transposed on chip in one piece.
module attributes {tessera.target = "tpu-v5e"} {
  func.func @transposed_window_too_wide(%x: memref<256x64xbf16>) {
    %c0 = arith.constant 0 : index
    %t = tile.alloc {name = "t"} : memref<64x256xbf16, #tile.space<sbuf>>
    // expected-error@+1 {{load: a transposed window of 256 x 64 elements; on tpu-v5e (a TPU, whose DMA cannot transpose) it is transposed on chip as tsr::transpose is, at most 128 x 128: take windows of at most 128 rows and columns}}
    tile.load %x[%c0, %c0], %t {transpose} : memref<256x64xbf16>, memref<64x256xbf16, #tile.space<sbuf>>
    return
  }
}

// -----

// A scan of 8 columns: f32 copies (A of a, X of b), the initial value folded into X[0], then the doubling rounds
// d = 1, 2, 4: X[d:] += A[d:] * X[:8-d] (through the temporary), and A[d:] *= A[:8-d] except in the last round;
// then X rounded into the bf16 dst.
module attributes {tessera.target = "tpu-v5e"} {
  // CHECK-LABEL: func.func @scan
  // CHECK: %[[A:.*]] = tile.alloc {name = "scan_decay"} : memref<4x8xf32, #tile.space<sbuf>>
  // CHECK-NEXT: tile.copy %[[DA:.*]], %[[A]] : memref<4x8xbf16, #tile.space<sbuf>>, memref<4x8xf32, #tile.space<sbuf>>
  // CHECK-NEXT: %[[X:.*]] = tile.alloc {name = "scan_state"} : memref<4x8xf32, #tile.space<sbuf>>
  // CHECK-NEXT: tile.copy %[[DB:.*]], %[[X]]
  // CHECK-NEXT: %[[T:.*]] = tile.alloc {name = "scan_term"} : memref<4x8xf32, #tile.space<sbuf>>
  // CHECK: tile.binary multiply %{{.*}}, %[[INIT:.*]], %{{.*}} : memref<4x1xf32, #tile.space<sbuf>>, memref<4x1xf32, #tile.space<sbuf>>, memref<4x1xf32, #tile.space<sbuf>>
  // CHECK: tile.binary add {{.*}} : memref<4x1xf32
  // The rounds; every binary op's operands are views (tile.view) of A, X and the temporary.
  // CHECK: tile.binary multiply {{.*}} : memref<4x7xf32, #tile.space<sbuf>>, memref<4x7xf32, #tile.space<sbuf>>, memref<4x7xf32, #tile.space<sbuf>>
  // CHECK-NEXT: tile.binary add {{.*}} : memref<4x7xf32
  // CHECK: tile.binary multiply {{.*}} : memref<4x7xf32
  // CHECK: tile.copy {{.*}} : memref<4x7xf32, #tile.space<sbuf>>, memref<4x7xf32, #tile.space<sbuf>>
  // CHECK: tile.binary multiply {{.*}} : memref<4x6xf32
  // CHECK-NEXT: tile.binary add {{.*}} : memref<4x6xf32
  // CHECK: tile.binary multiply {{.*}} : memref<4x6xf32
  // CHECK: tile.copy {{.*}} : memref<4x6xf32
  // CHECK: tile.binary multiply {{.*}} : memref<4x4xf32
  // CHECK-NEXT: tile.binary add {{.*}} : memref<4x4xf32
  // CHECK-NEXT: tile.copy %[[X]], %[[DST:.*]] : memref<4x8xf32, #tile.space<sbuf>>, memref<4x8xbf16, #tile.space<sbuf>>
  // CHECK-NOT: tile.scan
  func.func @scan() {
    %a = tile.alloc : memref<4x8xbf16, #tile.space<sbuf>>
    %b = tile.alloc : memref<4x8xbf16, #tile.space<sbuf>>
    %x0 = tile.alloc : memref<4x1xf32, #tile.space<sbuf>>
    %y = tile.alloc : memref<4x8xbf16, #tile.space<sbuf>>
    tile.memset %a, 0.5 : memref<4x8xbf16, #tile.space<sbuf>>
    tile.memset %b, 1.0 : memref<4x8xbf16, #tile.space<sbuf>>
    tile.memset %x0, 2.0 : memref<4x1xf32, #tile.space<sbuf>>
    tile.scan %a, %b, %y init(%x0 : memref<4x1xf32, #tile.space<sbuf>>) : memref<4x8xbf16, #tile.space<sbuf>>, memref<4x8xbf16, #tile.space<sbuf>>, memref<4x8xbf16, #tile.space<sbuf>>
    return
  }
}

// -----

// An activation with a bias and row sums: in f32, x * scale, + bias, func, the sums of those values, then the
// copy that rounds into dst.
module attributes {tessera.target = "tpu-v6e"} {
  // CHECK-LABEL: func.func @activation
  // CHECK: %[[T:.*]] = tile.alloc {name = "activated"} : memref<128x256xf32, #tile.space<sbuf>>
  // CHECK-NEXT: tile.activation identity %[[S:.*]], %[[T]] {scale = 1.250000e-01 : f32}
  // CHECK-NEXT: tile.binary add %[[T]], %[[BIAS:.*]], %[[T]]
  // CHECK-NEXT: tile.activation exp %[[T]], %[[T]] :
  // CHECK-NEXT: tile.reduce add %[[T]], %[[SUM:.*]] :
  // CHECK-NEXT: tile.copy %[[T]], %[[P:.*]] : memref<128x256xf32, #tile.space<sbuf>>, memref<128x256xbf16, #tile.space<sbuf>>
  // CHECK-NOT: bias(
  // Without a bias the function is applied with the scale, straight into the f32 tile.
  // CHECK: tile.activation exp %[[S]], %[[U:.*]] {scale = 2.000000e+00 : f32}
  // CHECK-NEXT: tile.reduce add %[[U]], %[[SUM]]
  // CHECK-NEXT: tile.copy %[[U]], %[[P]]
  // A tile of scales, one per row: a multiply by that [P, 1] operand first, then the function.
  // CHECK: %[[V:.*]] = tile.alloc {name = "activated"} : memref<128x256xf32, #tile.space<sbuf>>
  // CHECK-NEXT: tile.binary multiply %[[S]], %[[SCALES:.*]], %[[V]] : memref<128x256xf32, #tile.space<psum>>, memref<128x1xf32, #tile.space<sbuf>>, memref<128x256xf32, #tile.space<sbuf>>
  // CHECK-NEXT: tile.activation exp %[[V]], %[[V]] :
  // CHECK-NEXT: tile.copy %[[V]], %[[P]]
  // Only a tile of scales, into an f32 tile: the multiply and the function in place there.
  // CHECK: tile.binary multiply %[[S]], %[[SCALES]], %[[F:.*]] : memref<128x256xf32, #tile.space<psum>>, memref<128x1xf32, #tile.space<sbuf>>, memref<128x256xf32, #tile.space<sbuf>>
  // CHECK-NEXT: tile.activation exp %[[F]], %[[F]] :
  // CHECK-NOT: scales(
  func.func @activation() {
    %s = tile.alloc : memref<128x256xf32, #tile.space<psum>>
    %bias = tile.alloc : memref<128x1xf32, #tile.space<sbuf>>
    %sum = tile.alloc : memref<128x1xf32, #tile.space<sbuf>>
    %p = tile.alloc : memref<128x256xbf16, #tile.space<sbuf>>
    %scales = tile.alloc : memref<128x1xf32, #tile.space<sbuf>>
    tile.activation exp %s bias(%bias : memref<128x1xf32, #tile.space<sbuf>>), %p sum(%sum : memref<128x1xf32, #tile.space<sbuf>>) {scale = 0.125 : f32} : memref<128x256xf32, #tile.space<psum>>, memref<128x256xbf16, #tile.space<sbuf>>
    tile.activation exp %s, %p sum(%sum : memref<128x1xf32, #tile.space<sbuf>>) {scale = 2.0 : f32} : memref<128x256xf32, #tile.space<psum>>, memref<128x256xbf16, #tile.space<sbuf>>
    tile.activation exp %s scales(%scales : memref<128x1xf32, #tile.space<sbuf>>), %p : memref<128x256xf32, #tile.space<psum>>, memref<128x256xbf16, #tile.space<sbuf>>
    %f = tile.alloc : memref<128x256xf32, #tile.space<sbuf>>
    tile.activation exp %s scales(%scales : memref<128x1xf32, #tile.space<sbuf>>), %f : memref<128x256xf32, #tile.space<psum>>, memref<128x256xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// fp8 matmul operands on a TPU without an fp8 MXU (v5e): a bf16 copy of each fp8 tile, refreshed after each write
// (a load into a slice refreshes that slice), and the matmul reads the copies.
module attributes {tessera.target = "tpu-v5e"} {
  // CHECK-LABEL: func.func @fp8_matmul
  // CHECK: %[[A:.*]] = tile.alloc {name = "a"} : memref<128x128xf8E4M3FN, #tile.space<sbuf>>
  // CHECK-NEXT: %[[A16:.*]] = tile.alloc {name = "a_bf16"} : memref<128x128xbf16, #tile.space<sbuf>>
  // CHECK-NEXT: tile.load %{{.*}}, %[[A]]
  // CHECK-NEXT: tile.copy %[[A]], %[[A16]] : memref<128x128xf8E4M3FN, #tile.space<sbuf>>, memref<128x128xbf16, #tile.space<sbuf>>
  // CHECK: %[[B:.*]] = tile.alloc {name = "b"} : memref<128x512xf8E4M3FN, #tile.space<sbuf>>
  // CHECK-NEXT: %[[B16:.*]] = tile.alloc {name = "b_bf16"}
  // CHECK-NEXT: %[[W:.*]] = tile.view %[[B]][%{{.*}}]
  // CHECK-NEXT: %[[W16:.*]] = tile.view %[[B16]][%{{.*}}] : memref<128x512xbf16, #tile.space<sbuf>> to memref<128x256xbf16, #tile.space<sbuf>>
  // CHECK-NEXT: tile.load %{{.*}}, %[[W]]
  // CHECK-NEXT: tile.copy %[[W]], %[[W16]]
  // CHECK: tile.matmul %[[A16]], %[[B16]], %{{.*}} : memref<128x128xbf16, #tile.space<sbuf>>, memref<128x512xbf16, #tile.space<sbuf>>
  func.func @fp8_matmul(%x: memref<128x128xf8E4M3FN>, %y: memref<128x512xf8E4M3FN>) {
    %c0 = arith.constant 0 : index
    %c256 = arith.constant 256 : index
    %a = tile.alloc {name = "a"} : memref<128x128xf8E4M3FN, #tile.space<sbuf>>
    tile.load %x[%c0, %c0], %a : memref<128x128xf8E4M3FN>, memref<128x128xf8E4M3FN, #tile.space<sbuf>>
    %b = tile.alloc {name = "b"} : memref<128x512xf8E4M3FN, #tile.space<sbuf>>
    %w = tile.view %b[%c0] : memref<128x512xf8E4M3FN, #tile.space<sbuf>> to memref<128x256xf8E4M3FN, #tile.space<sbuf>>
    tile.load %y[%c0, %c0], %w : memref<128x512xf8E4M3FN>, memref<128x256xf8E4M3FN, #tile.space<sbuf>>
    %w2 = tile.view %b[%c256] : memref<128x512xf8E4M3FN, #tile.space<sbuf>> to memref<128x256xf8E4M3FN, #tile.space<sbuf>>
    tile.load %y[%c0, %c256], %w2 : memref<128x512xf8E4M3FN>, memref<128x256xf8E4M3FN, #tile.space<sbuf>>
    %acc = tile.alloc : memref<128x512xf32, #tile.space<psum>>
    tile.matmul %a, %b, %acc : memref<128x128xf8E4M3FN, #tile.space<sbuf>>, memref<128x512xf8E4M3FN, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<psum>>
    return
  }
}

// -----

// Where the MXU takes fp8 (v6e), and on a NeuronCore, nothing changes.
module attributes {tessera.target = "tpu-v6e"} {
  // CHECK-LABEL: func.func @fp8_on_v6e
  // CHECK-NOT: bf16
  // CHECK: tile.matmul %{{.*}}, %{{.*}}, %{{.*}} : memref<128x128xf8E4M3FN
  func.func @fp8_on_v6e() {
    %a = tile.alloc : memref<128x128xf8E4M3FN, #tile.space<sbuf>>
    tile.memset %a, 1.0 : memref<128x128xf8E4M3FN, #tile.space<sbuf>>
    %acc = tile.alloc : memref<128x128xf32, #tile.space<psum>>
    tile.matmul %a, %a, %acc : memref<128x128xf8E4M3FN, #tile.space<sbuf>>, memref<128x128xf8E4M3FN, #tile.space<sbuf>>, memref<128x128xf32, #tile.space<psum>>
    return
  }
}

// -----

module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @neuroncore
  // CHECK-NEXT: tile.alloc
  // CHECK-NEXT: tile.alloc
  // CHECK-NEXT: tile.transpose
  func.func @neuroncore() {
    %x = tile.alloc : memref<128x64xbf16, #tile.space<sbuf>>
    %f = tile.alloc : memref<64x128xf32, #tile.space<psum>>
    tile.transpose %x, %f : memref<128x64xbf16, #tile.space<sbuf>>, memref<64x128xf32, #tile.space<psum>>
    return
  }
}

// -----

// f16 is storage only on a TPU. The MXU transposes an f32 copy of an f16 tile (through the f32 identity).
module attributes {tessera.target = "tpu-v5e"} {
  // CHECK-LABEL: func.func @f16_transpose
  // CHECK: %[[X:.*]] = tile.alloc {name = "x"} : memref<128x64xf16, #tile.space<sbuf>>
  // CHECK: %[[W:.*]] = tile.alloc {name = "x_f32"} : memref<128x64xf32, #tile.space<sbuf>>
  // CHECK-NEXT: tile.copy %[[X]], %[[W]] : memref<128x64xf16, #tile.space<sbuf>>, memref<128x64xf32, #tile.space<sbuf>>
  // CHECK: tile.matmul %[[W]], %{{.*}}, %{{.*}} : memref<128x64xf32, #tile.space<sbuf>>, memref<128x128xf32, #tile.space<sbuf>>, memref<64x128xf32, #tile.space<psum>>
  // CHECK-NOT: tile.transpose
  func.func @f16_transpose() {
    %x = tile.alloc {name = "x"} : memref<128x64xf16, #tile.space<sbuf>>
    %f = tile.alloc : memref<64x128xf32, #tile.space<psum>>
    tile.memset %x, 1.0 : memref<128x64xf16, #tile.space<sbuf>>
    tile.transpose %x, %f : memref<128x64xf16, #tile.space<sbuf>>, memref<64x128xf32, #tile.space<psum>>
    return
  }
}

// -----

// f16 matmul operands on every TPU (here v6e, whose MXU takes fp8): an f32 copy of each, refreshed after each
// write, as for fp8 on v5e.
module attributes {tessera.target = "tpu-v6e"} {
  // CHECK-LABEL: func.func @f16_matmul
  // CHECK: %[[A:.*]] = tile.alloc {name = "a"} : memref<128x128xf16, #tile.space<sbuf>>
  // CHECK-NEXT: %[[A32:.*]] = tile.alloc {name = "a_f32"} : memref<128x128xf32, #tile.space<sbuf>>
  // CHECK-NEXT: tile.memset %[[A]], 1.0
  // CHECK-NEXT: tile.copy %[[A]], %[[A32]] : memref<128x128xf16, #tile.space<sbuf>>, memref<128x128xf32, #tile.space<sbuf>>
  // CHECK: tile.matmul %[[A32]], %[[A32]], %{{.*}} : memref<128x128xf32, #tile.space<sbuf>>, memref<128x128xf32, #tile.space<sbuf>>
  func.func @f16_matmul() {
    %a = tile.alloc {name = "a"} : memref<128x128xf16, #tile.space<sbuf>>
    tile.memset %a, 1.0 : memref<128x128xf16, #tile.space<sbuf>>
    %acc = tile.alloc : memref<128x128xf32, #tile.space<psum>>
    tile.matmul %a, %a, %acc : memref<128x128xf16, #tile.space<sbuf>>, memref<128x128xf16, #tile.space<sbuf>>, memref<128x128xf32, #tile.space<psum>>
    return
  }
}

// -----

// VPU arithmetic on f16: each f16 source converted into an f32 tile before the op (one copy for an operand read
// twice), an f16 destination computed in f32 and converted after; an op writing an f16 tile it reads computes in
// place in the copy. f32 and bf16 operands are left as they are.
module attributes {tessera.target = "tpu-v5e"} {
  // CHECK-LABEL: func.func @f16_vpu
  // CHECK: %[[X:.*]] = tile.alloc {name = "x"} : memref<8x128xf16, #tile.space<sbuf>>
  // CHECK: %[[Y:.*]] = tile.alloc {name = "y"} : memref<8x128xf32, #tile.space<sbuf>>
  // CHECK: %[[S:.*]] = tile.alloc {name = "s"} : memref<8x1xf16, #tile.space<sbuf>>
  // x * x into y (f32): one copy of x.
  // CHECK: %[[X1:.*]] = tile.alloc {name = "x_f32"} : memref<8x128xf32, #tile.space<sbuf>>
  // CHECK-NEXT: tile.copy %[[X]], %[[X1]] : memref<8x128xf16, #tile.space<sbuf>>, memref<8x128xf32, #tile.space<sbuf>>
  // CHECK-NEXT: tile.binary multiply %[[X1]], %[[X1]], %[[Y]] : memref<8x128xf32, #tile.space<sbuf>>, memref<8x128xf32, #tile.space<sbuf>>, memref<8x128xf32, #tile.space<sbuf>>
  // x = x + y, in place in the copy.
  // CHECK-NEXT: %[[X2:.*]] = tile.alloc {name = "x_f32"}
  // CHECK-NEXT: tile.copy %[[X]], %[[X2]]
  // CHECK-NEXT: tile.binary add %[[X2]], %[[Y]], %[[X2]] : memref<8x128xf32, #tile.space<sbuf>>, memref<8x128xf32, #tile.space<sbuf>>, memref<8x128xf32, #tile.space<sbuf>>
  // CHECK-NEXT: tile.copy %[[X2]], %[[X]] : memref<8x128xf32, #tile.space<sbuf>>, memref<8x128xf16, #tile.space<sbuf>>
  // exp(x) into y: the source converted.
  // CHECK-NEXT: %[[X3:.*]] = tile.alloc {name = "x_f32"}
  // CHECK-NEXT: tile.copy %[[X]], %[[X3]]
  // CHECK-NEXT: tile.activation exp %[[X3]], %[[Y]]
  // The row sum of y into s (f16): computed into an f32 [8, 1] and converted.
  // CHECK-NEXT: %[[S1:.*]] = tile.alloc {name = "s_f32"} : memref<8x1xf32, #tile.space<sbuf>>
  // CHECK-NEXT: tile.reduce add %[[Y]], %[[S1]] : memref<8x128xf32, #tile.space<sbuf>>, memref<8x1xf32, #tile.space<sbuf>>
  // CHECK-NEXT: tile.copy %[[S1]], %[[S]] : memref<8x1xf32, #tile.space<sbuf>>, memref<8x1xf16, #tile.space<sbuf>>
  // bf16 arithmetic is the VPU's own.
  // CHECK-NEXT: tile.binary add %[[B:.*]], %[[B]], %[[B]] : memref<8x128xbf16
  // CHECK-NEXT: return
  func.func @f16_vpu() {
    %x = tile.alloc {name = "x"} : memref<8x128xf16, #tile.space<sbuf>>
    %y = tile.alloc {name = "y"} : memref<8x128xf32, #tile.space<sbuf>>
    %s = tile.alloc {name = "s"} : memref<8x1xf16, #tile.space<sbuf>>
    %b = tile.alloc {name = "b"} : memref<8x128xbf16, #tile.space<sbuf>>
    tile.memset %x, 1.0 : memref<8x128xf16, #tile.space<sbuf>>
    tile.memset %b, 1.0 : memref<8x128xbf16, #tile.space<sbuf>>
    tile.binary multiply %x, %x, %y : memref<8x128xf16, #tile.space<sbuf>>, memref<8x128xf16, #tile.space<sbuf>>, memref<8x128xf32, #tile.space<sbuf>>
    tile.binary add %x, %y, %x : memref<8x128xf16, #tile.space<sbuf>>, memref<8x128xf32, #tile.space<sbuf>>, memref<8x128xf16, #tile.space<sbuf>>
    tile.activation exp %x, %y {scale = 1.0 : f32} : memref<8x128xf16, #tile.space<sbuf>>, memref<8x128xf32, #tile.space<sbuf>>
    tile.reduce add %y, %s : memref<8x128xf32, #tile.space<sbuf>>, memref<8x1xf16, #tile.space<sbuf>>
    tile.binary add %b, %b, %b : memref<8x128xbf16, #tile.space<sbuf>>, memref<8x128xbf16, #tile.space<sbuf>>, memref<8x128xbf16, #tile.space<sbuf>>
    return
  }
}

// -----

// An f16 activation with a bias and row sums (f32, as the op requires): the f32 rewrite above, with the f16
// source and bias converted.
module attributes {tessera.target = "tpu-v5e"} {
  // CHECK-LABEL: func.func @f16_biased_activation
  // CHECK: %[[BIAS:.*]] = tile.alloc {name = "bias"} : memref<8x1xf16, #tile.space<sbuf>>
  // CHECK: %[[SUM:.*]] = tile.alloc {name = "sum"} : memref<8x1xf32, #tile.space<sbuf>>
  // CHECK: %[[T:.*]] = tile.alloc {name = "activated"} : memref<8x128xf32, #tile.space<sbuf>>
  // CHECK-NEXT: %[[X32:.*]] = tile.alloc {name = "x_f32"} : memref<8x128xf32, #tile.space<sbuf>>
  // CHECK-NEXT: tile.copy %[[X:.*]], %[[X32]] : memref<8x128xf16, #tile.space<sbuf>>, memref<8x128xf32, #tile.space<sbuf>>
  // CHECK-NEXT: tile.activation identity %[[X32]], %[[T]]
  // CHECK-NEXT: %[[B32:.*]] = tile.alloc {name = "bias_f32"} : memref<8x1xf32, #tile.space<sbuf>>
  // CHECK-NEXT: tile.copy %[[BIAS]], %[[B32]]
  // CHECK-NEXT: tile.binary add %[[T]], %[[B32]], %[[T]]
  // CHECK-NEXT: tile.activation exp %[[T]], %[[T]]
  // CHECK-NEXT: tile.reduce add %[[T]], %[[SUM]]
  // CHECK-NEXT: tile.copy %[[T]], %[[X]] : memref<8x128xf32, #tile.space<sbuf>>, memref<8x128xf16, #tile.space<sbuf>>
  func.func @f16_biased_activation() {
    %x = tile.alloc {name = "x"} : memref<8x128xf16, #tile.space<sbuf>>
    %bias = tile.alloc {name = "bias"} : memref<8x1xf16, #tile.space<sbuf>>
    %sum = tile.alloc {name = "sum"} : memref<8x1xf32, #tile.space<sbuf>>
    tile.memset %x, 1.0 : memref<8x128xf16, #tile.space<sbuf>>
    tile.memset %bias, 1.0 : memref<8x1xf16, #tile.space<sbuf>>
    tile.activation exp %x bias(%bias : memref<8x1xf16, #tile.space<sbuf>>), %x sum(%sum : memref<8x1xf32, #tile.space<sbuf>>) {scale = 1.0 : f32} : memref<8x128xf16, #tile.space<sbuf>>, memref<8x128xf16, #tile.space<sbuf>>
    return
  }
}

// -----

// DMA windows Mosaic cannot address (a start or a width off the 128 lanes, on the HBM or the VMEM side): a load
// DMAs the aligned hull into a staging tile and copies its part; a store reads its hull (tile.preserve), copies
// its source into it and stores the hull. An aligned window is left as it is.
module attributes {tessera.target = "tpu-v5e"} {
  // CHECK-LABEL: func.func @unaligned_windows
  // CHECK: %[[A:.*]] = tile.alloc {name = "a"}
  // CHECK-NEXT: tile.load %arg0[%{{.*}}, %{{.*}}], %[[A]] : memref<128x1024xbf16>, memref<128x256xbf16, #tile.space<sbuf>>
  // A constant start, 35: the hull is columns [0, 128).
  // CHECK: %[[W:.*]] = tile.view %[[B:.*]][%{{.*}}] : memref<128x64xbf16, #tile.space<sbuf>> to memref<128x32xbf16, #tile.space<sbuf>>
  // CHECK-NEXT: %[[START:.*]] = arith.constant 0 : index
  // CHECK-NEXT: %[[H:.*]] = tile.alloc {name = "b_aligned"} : memref<128x128xbf16, #tile.space<sbuf>>
  // CHECK-NEXT: tile.load %arg0[%{{.*}}, %[[START]]], %[[H]] : memref<128x1024xbf16>, memref<128x128xbf16, #tile.space<sbuf>>
  // CHECK-NEXT: %[[OFF:.*]] = arith.subi %{{.*}}, %[[START]] : index
  // CHECK-NEXT: %[[PART:.*]] = tile.view %[[H]][%[[OFF]]] : memref<128x128xbf16, #tile.space<sbuf>> to memref<128x32xbf16, #tile.space<sbuf>>
  // CHECK-NEXT: tile.copy %[[PART]], %[[W]]
  // In a loop, at i * 32 into columns 35..67 of a tile: the start is a multiple of 32, so a 128-wide hull holds it,
  // and from i * 32 rounded down to 128 it stays inside the tensor for every i < 4.
  // CHECK: scf.for
  // CHECK: %[[Q:.*]] = arith.floordivsi %[[COL:.*]], %[[L:.*]] : index
  // CHECK-NEXT: %[[CS:.*]] = arith.muli %[[Q]], %[[L]] : index
  // CHECK-NEXT: %[[CH:.*]] = tile.alloc {name = "c_aligned"} : memref<128x128xbf16, #tile.space<sbuf>>
  // CHECK-NEXT: tile.load %arg0[%{{.*}}, %[[CS]]], %[[CH]]
  // CHECK: tile.copy
  // At i * 32 + 8 for i < 32: 8 past a multiple of 32, so up to 104 into its lanes: a 256-wide hull, which from
  // the last starts would pass column 1024: those hulls end there (a start of at most 768).
  // CHECK: scf.for
  // CHECK: arith.floordivsi
  // CHECK-NEXT: %[[DA:.*]] = arith.muli
  // CHECK-NEXT: %[[LAST:.*]] = arith.constant 768 : index
  // CHECK-NEXT: %[[DS:.*]] = arith.minsi %[[DA]], %[[LAST]] : index
  // CHECK-NEXT: %[[DH:.*]] = tile.alloc {name = "d_aligned"} : memref<128x256xbf16, #tile.space<sbuf>>
  // CHECK-NEXT: tile.load %arg0[%{{.*}}, %[[DS]]], %[[DH]]
  // CHECK: tile.copy
  // A store of 480 columns at 480 (96 into its 128 lanes): a 640-wide hull read, written into and stored.
  // CHECK: %[[R:.*]] = tile.alloc {name = "o_aligned"} : memref<128x640xbf16, #tile.space<sbuf>>
  // CHECK-NEXT: tile.load %arg1[%{{.*}}, %[[RS:.*]]], %[[R]] {tile.preserve}
  // CHECK-NEXT: arith.subi
  // CHECK-NEXT: %[[RP:.*]] = tile.view %[[R]]
  // CHECK-NEXT: tile.copy %[[O:.*]], %[[RP]] : memref<128x480xbf16, #tile.space<sbuf>>, memref<128x480xbf16, #tile.space<sbuf>>
  // CHECK-NEXT: tile.store %[[R]], %arg1[%{{.*}}, %[[RS]]] : memref<128x640xbf16, #tile.space<sbuf>>, memref<128x1024xbf16>
  // CHECK-NOT: tile.store
  func.func @unaligned_windows(%x: memref<128x1024xbf16>, %y: memref<128x1024xbf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    %c35 = arith.constant 35 : index
    %c128 = arith.constant 128 : index
    %c480 = arith.constant 480 : index
    %a = tile.alloc {name = "a"} : memref<128x256xbf16, #tile.space<sbuf>>
    tile.load %x[%c0, %c128], %a : memref<128x1024xbf16>, memref<128x256xbf16, #tile.space<sbuf>>
    %b = tile.alloc {name = "b"} : memref<128x64xbf16, #tile.space<sbuf>>
    %bw = tile.view %b[%c0] : memref<128x64xbf16, #tile.space<sbuf>> to memref<128x32xbf16, #tile.space<sbuf>>
    tile.load %x[%c0, %c35], %bw : memref<128x1024xbf16>, memref<128x32xbf16, #tile.space<sbuf>>
    %c = tile.alloc {name = "c"} : memref<128x100xbf16, #tile.space<sbuf>>
    scf.for %i = %c0 to %c4 step %c1 {
      %col = arith.muli %i, %c32 : index
      %cw = tile.view %c[%c35] : memref<128x100xbf16, #tile.space<sbuf>> to memref<128x32xbf16, #tile.space<sbuf>>
      tile.load %x[%c0, %col], %cw : memref<128x1024xbf16>, memref<128x32xbf16, #tile.space<sbuf>>
    }
    %c8 = arith.constant 8 : index
    %d = tile.alloc {name = "d"} : memref<128x32xbf16, #tile.space<sbuf>>
    scf.for %i = %c0 to %c32 step %c1 {
      %i32 = arith.muli %i, %c32 : index
      %col = arith.addi %i32, %c8 : index
      tile.load %x[%c0, %col], %d : memref<128x1024xbf16>, memref<128x32xbf16, #tile.space<sbuf>>
    }
    %o = tile.alloc {name = "o"} : memref<128x480xbf16, #tile.space<sbuf>>
    tile.memset %o, 1.0 : memref<128x480xbf16, #tile.space<sbuf>>
    tile.store %o, %y[%c0, %c480] : memref<128x480xbf16, #tile.space<sbuf>>, memref<128x1024xbf16>
    return
  }
}

// -----

// Access patterns (Tile::ap) are relayouts of a window of the row on a TPU: a per-row transpose read and written,
// every other element from a loop offset in [0, 2) (it moves the inner index), pass unchanged.
module attributes {tessera.target = "tpu-v5e"} {
  // CHECK-LABEL: func.func @relayouts
  // CHECK: tile.view %{{.*}}[%{{.*}}] {pattern = array<i64: 1, 8, 8, 12>}
  // CHECK: tile.view %{{.*}}[%{{.*}}] {pattern = array<i64: 12, 8, 1, 12>}
  // CHECK: tile.view %{{.*}}[%{{.*}}] {pattern = array<i64: 2, 48>}
  func.func @relayouts() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %x = tile.alloc {name = "x"} : memref<64x96xf32, #tile.space<sbuf>>
    %y = tile.alloc {name = "y"} : memref<64x96xf32, #tile.space<sbuf>>
    %h = tile.alloc {name = "h"} : memref<64x48xf32, #tile.space<sbuf>>
    tile.memset %x, 1.0 : memref<64x96xf32, #tile.space<sbuf>>
    %t = tile.view %x[%c0] {pattern = array<i64: 1, 8, 8, 12>} : memref<64x96xf32, #tile.space<sbuf>> to memref<64x96xf32, #tile.space<sbuf>>
    %w = tile.view %y[%c0] {pattern = array<i64: 12, 8, 1, 12>} : memref<64x96xf32, #tile.space<sbuf>> to memref<64x96xf32, #tile.space<sbuf>>
    tile.copy %t, %w : memref<64x96xf32, #tile.space<sbuf>>, memref<64x96xf32, #tile.space<sbuf>>
    scf.for %i = %c0 to %c2 step %c1 {
      %e = tile.view %x[%i] {pattern = array<i64: 2, 48>} : memref<64x96xf32, #tile.space<sbuf>> to memref<64x48xf32, #tile.space<sbuf>>
      tile.copy %e, %h : memref<64x48xf32, #tile.space<sbuf>>, memref<64x48xf32, #tile.space<sbuf>>
    }
    return
  }
}

// -----

// Steps that do not divide one another are not a reshape of the row.
module attributes {tessera.target = "tpu-v5e"} {
  func.func @not_a_reshape() {
    %c0 = arith.constant 0 : index
    %x = tile.alloc {name = "x"} : memref<64x96xf32, #tile.space<sbuf>>
    %y = tile.alloc {name = "y"} : memref<64x16xf32, #tile.space<sbuf>>
    tile.memset %x, 1.0 : memref<64x96xf32, #tile.space<sbuf>>
    // expected-error @+1 {{and this pattern has none: its steps 12 and 5 do not divide one another}}
    %v = tile.view %x[%c0] {pattern = array<i64: 12, 8, 5, 2>} : memref<64x96xf32, #tile.space<sbuf>> to memref<64x16xf32, #tile.space<sbuf>>
    tile.copy %v, %y : memref<64x16xf32, #tile.space<sbuf>>, memref<64x16xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// A copy into every other element writes only half of its window: not a permutation of it.
module attributes {tessera.target = "tpu-v5e"} {
  func.func @half_a_window() {
    %c0 = arith.constant 0 : index
    %x = tile.alloc {name = "x"} : memref<64x48xf32, #tile.space<sbuf>>
    %y = tile.alloc {name = "y"} : memref<64x96xf32, #tile.space<sbuf>>
    tile.memset %x, 1.0 : memref<64x48xf32, #tile.space<sbuf>>
    // expected-error @+1 {{a copy into one writes back the whole window in another order}}
    %v = tile.view %y[%c0] {pattern = array<i64: 2, 48>} : memref<64x96xf32, #tile.space<sbuf>> to memref<64x48xf32, #tile.space<sbuf>>
    tile.copy %x, %v : memref<64x48xf32, #tile.space<sbuf>>, memref<64x48xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// Every other element from a loop offset in [0, 3): at 2 it starts in the next pair.
module attributes {tessera.target = "tpu-v5e"} {
  func.func @offset_carries() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %x = tile.alloc {name = "x"} : memref<64x96xf32, #tile.space<sbuf>>
    %h = tile.alloc {name = "h"} : memref<64x32xf32, #tile.space<sbuf>>
    tile.memset %x, 1.0 : memref<64x96xf32, #tile.space<sbuf>>
    scf.for %i = %c0 to %c3 step %c1 {
      // expected-error @+1 {{its first element's place in groups of 2 reaches 2, past the group}}
      %e = tile.view %x[%i] {pattern = array<i64: 2, 32>} : memref<64x96xf32, #tile.space<sbuf>> to memref<64x32xf32, #tile.space<sbuf>>
      tile.copy %e, %h : memref<64x32xf32, #tile.space<sbuf>>, memref<64x32xf32, #tile.space<sbuf>>
    }
    return
  }
}

// -----

// A pattern whose relayout's box reaches past the row: every other element of a 93-element row (0, 2, ... 92) is
// the [47, 2] box's first column, 94 elements.
module attributes {tessera.target = "tpu-v5e"} {
  func.func @past_the_row() {
    %c0 = arith.constant 0 : index
    %x = tile.alloc {name = "x"} : memref<64x93xf32, #tile.space<sbuf>>
    %y = tile.alloc {name = "y"} : memref<64x47xf32, #tile.space<sbuf>>
    tile.memset %x, 1.0 : memref<64x93xf32, #tile.space<sbuf>>
    // expected-error @+1 {{it is a relayout of elements 0 to 93 of the row, which has 93; start the pattern earlier in the row, or give the tile more columns}}
    %v = tile.view %x[%c0] {pattern = array<i64: 2, 47>} : memref<64x93xf32, #tile.space<sbuf>> to memref<64x47xf32, #tile.space<sbuf>>
    tile.copy %v, %y : memref<64x47xf32, #tile.space<sbuf>>, memref<64x47xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// A step of 0 repeats an element: a broadcast, not a relayout.
module attributes {tessera.target = "tpu-v5e"} {
  func.func @repeats() {
    %c0 = arith.constant 0 : index
    %x = tile.alloc {name = "x"} : memref<64x96xf32, #tile.space<sbuf>>
    %y = tile.alloc {name = "y"} : memref<64x96xf32, #tile.space<sbuf>>
    tile.memset %x, 1.0 : memref<64x96xf32, #tile.space<sbuf>>
    // expected-error @+1 {{its dimension 1 repeats one element 12 times (a step of 0); repeat values with tsr::broadcast_to}}
    %v = tile.view %x[%c0] {pattern = array<i64: 1, 8, 0, 12>} : memref<64x96xf32, #tile.space<sbuf>> to memref<64x96xf32, #tile.space<sbuf>>
    tile.copy %v, %y : memref<64x96xf32, #tile.space<sbuf>>, memref<64x96xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// Two dimensions of the same step walk the same elements.
module attributes {tessera.target = "tpu-v5e"} {
  func.func @same_step() {
    %c0 = arith.constant 0 : index
    %x = tile.alloc {name = "x"} : memref<64x96xf32, #tile.space<sbuf>>
    %y = tile.alloc {name = "y"} : memref<64x16xf32, #tile.space<sbuf>>
    tile.memset %x, 1.0 : memref<64x96xf32, #tile.space<sbuf>>
    // expected-error @+1 {{two of its dimensions step 4 elements, so they walk the same elements; walk with steps that each divide the next larger one}}
    %v = tile.view %x[%c0] {pattern = array<i64: 4, 4, 4, 4>} : memref<64x96xf32, #tile.space<sbuf>> to memref<64x16xf32, #tile.space<sbuf>>
    tile.copy %v, %y : memref<64x16xf32, #tile.space<sbuf>>, memref<64x16xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// An offset the compiler cannot follow through its loops (a loop index divided by 2) cannot be checked.
module attributes {tessera.target = "tpu-v5e"} {
  func.func @not_affine() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %x = tile.alloc {name = "x"} : memref<64x96xf32, #tile.space<sbuf>>
    %h = tile.alloc {name = "h"} : memref<64x32xf32, #tile.space<sbuf>>
    tile.memset %x, 1.0 : memref<64x96xf32, #tile.space<sbuf>>
    scf.for %i = %c0 to %c4 step %c1 {
      %o = arith.floordivsi %i, %c2 : index
      // expected-error @+1 {{which needs the pattern's offset to be an affine function of loops with constant trip counts}}
      %e = tile.view %x[%o] {pattern = array<i64: 2, 32>} : memref<64x96xf32, #tile.space<sbuf>> to memref<64x32xf32, #tile.space<sbuf>>
      tile.copy %e, %h : memref<64x32xf32, #tile.space<sbuf>>, memref<64x32xf32, #tile.space<sbuf>>
    }
    return
  }
}

// -----

// A program id (an axis of the SPMD launch grid) is traced in Pallas: it may move a relayout's window (by 256
// here), not an index inside it (by 1).
module attributes {tessera.target = "tpu-v5e"} {
  func.func @spmd() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c256 = arith.constant 256 : index
    %x = tile.alloc {name = "x"} : memref<64x512xf32, #tile.space<sbuf>>
    %h = tile.alloc {name = "h"} : memref<64x128xf32, #tile.space<sbuf>>
    tile.memset %x, 1.0 : memref<64x512xf32, #tile.space<sbuf>>
    scf.for %p = %c0 to %c2 step %c1 {
      %w = arith.muli %p, %c256 : index
      %ok = tile.view %x[%w] {pattern = array<i64: 2, 128>} : memref<64x512xf32, #tile.space<sbuf>> to memref<64x128xf32, #tile.space<sbuf>>
      tile.copy %ok, %h : memref<64x128xf32, #tile.space<sbuf>>, memref<64x128xf32, #tile.space<sbuf>>
      // expected-error @+1 {{this offset moves with a program id (an axis of the launch grid) by 1 elements, less than the pattern's largest step 2}}
      %e = tile.view %x[%p] {pattern = array<i64: 2, 128>} : memref<64x512xf32, #tile.space<sbuf>> to memref<64x128xf32, #tile.space<sbuf>>
      tile.copy %e, %h : memref<64x128xf32, #tile.space<sbuf>>, memref<64x128xf32, #tile.space<sbuf>>
    } {tile.spmd_axis = 0 : i64}
    return
  }
}
