// tile-legalize-for-neuroncore: the language-level ops NeuronCore engines have no instruction for become tile ops
// they have, before allocation; on a TPU the pass changes nothing.
// RUN: tessera-opt %s -split-input-file -tile-legalize-for-neuroncore | FileCheck %s

// A division is a reciprocal (the vector engine's full-precision nki.isa.reciprocal) into an f32 tile of the
// divisor's shape, then a multiply: NKI has no divide. A [P, 1] divisor stays [P, 1].
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @divide
  // CHECK: %[[X:.*]] = tile.alloc {name = "x"}
  // CHECK: %[[S:.*]] = tile.alloc {name = "sum"}
  // CHECK-NOT: tile.binary divide
  // CHECK: %[[R:.*]] = tile.alloc {name = "sum_reciprocal"} : memref<128x1xf32, #tile.space<sbuf>>
  // CHECK-NEXT: tile.inst "reciprocal" dst(%[[R]] : memref<128x1xf32, #tile.space<sbuf>>) src0(%[[S]] : memref<128x1xbf16, #tile.space<sbuf>>)
  // CHECK-NEXT: tile.binary multiply %[[X]], %[[R]], %[[X]] : memref<128x512xf32, #tile.space<sbuf>>, memref<128x1xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
  func.func @divide() {
    %x = tile.alloc {name = "x"} : memref<128x512xf32, #tile.space<sbuf>>
    %s = tile.alloc {name = "sum"} : memref<128x1xbf16, #tile.space<sbuf>>
    tile.memset %x, 3.0 : memref<128x512xf32, #tile.space<sbuf>>
    tile.memset %s, 2.0 : memref<128x1xbf16, #tile.space<sbuf>>
    tile.binary divide %x, %s, %x : memref<128x512xf32, #tile.space<sbuf>>, memref<128x1xbf16, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// A division by a number is a multiply by its reciprocal, rounded to FP32 here (1 / 3 = 0.333333343); a number
// divided by a tile is the tile's reciprocal times the number. Other numbers are left as they are.
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @divide_by_number
  // CHECK: %[[X:.*]] = tile.alloc {name = "x"}
  // CHECK-NOT: tile.binary_scalar divide
  // CHECK: tile.binary_scalar multiply %[[X]], 0.333333343, %[[X]] : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
  // CHECK-NEXT: %[[R:.*]] = tile.alloc {name = "x_reciprocal"} : memref<128x512xf32, #tile.space<sbuf>>
  // CHECK-NEXT: tile.inst "reciprocal" dst(%[[R]] : memref<128x512xf32, #tile.space<sbuf>>) src0(%[[X]] : memref<128x512xf32, #tile.space<sbuf>>)
  // CHECK-NEXT: tile.binary_scalar multiply %[[R]], 2.000000e+00, %[[X]] : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
  // CHECK-NEXT: tile.binary_scalar subtract %[[X]], 1.000000e+00, %[[X]] {reverse}
  func.func @divide_by_number() {
    %x = tile.alloc {name = "x"} : memref<128x512xf32, #tile.space<sbuf>>
    tile.memset %x, 3.0 : memref<128x512xf32, #tile.space<sbuf>>
    tile.binary_scalar divide %x, 3.0, %x : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
    tile.binary_scalar divide %x, 2.0, %x {reverse} : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
    tile.binary_scalar subtract %x, 1.0, %x {reverse} : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// A PSUM tile goes to HBM through an SBUF copy of it (NKI's DMA cannot read PSUM), and a load into PSUM lands in
// SBUF first.
module attributes {tessera.target = "trn1"} {
  // CHECK-LABEL: func.func @psum_transfers
  // CHECK: %[[ACC:.*]] = tile.alloc {name = "acc"} : memref<128x512xf32, #tile.space<psum>>
  // CHECK: %[[STAGED:.*]] = tile.alloc {name = "acc_sbuf"} : memref<128x512xf32, #tile.space<sbuf>>
  // CHECK-NEXT: tile.copy %[[ACC]], %[[STAGED]]
  // CHECK-NEXT: tile.store %[[STAGED]], %arg0[%{{.*}}, %{{.*}}] : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32>
  // CHECK: %[[IN:.*]] = tile.alloc {name = "acc_sbuf"} : memref<128x512xf32, #tile.space<sbuf>>
  // CHECK-NEXT: tile.load %arg0[%{{.*}}, %{{.*}}], %[[IN]] : memref<128x512xf32>, memref<128x512xf32, #tile.space<sbuf>>
  // CHECK-NEXT: tile.copy %[[IN]], %[[ACC]]
  func.func @psum_transfers(%out: memref<128x512xf32>) {
    %c0 = arith.constant 0 : index
    %acc = tile.alloc {name = "acc"} : memref<128x512xf32, #tile.space<psum>>
    tile.memset %acc, 1.0 : memref<128x512xf32, #tile.space<psum>>
    tile.store %acc, %out[%c0, %c0] : memref<128x512xf32, #tile.space<psum>>, memref<128x512xf32>
    tile.load %out[%c0, %c0], %acc : memref<128x512xf32>, memref<128x512xf32, #tile.space<psum>>
    return
  }
}

// -----

// tensor_tensor takes at most one input from PSUM: the right one is read from an SBUF copy.
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @psum_pair
  // CHECK: %[[A:.*]] = tile.alloc {name = "a"}
  // CHECK: %[[B:.*]] = tile.alloc {name = "b"}
  // CHECK: %[[BS:.*]] = tile.alloc {name = "b_sbuf"} : memref<128x512xf32, #tile.space<sbuf>>
  // CHECK-NEXT: tile.copy %[[B]], %[[BS]]
  // CHECK-NEXT: tile.binary add %[[A]], %[[BS]], %{{.*}} : memref<128x512xf32, #tile.space<psum>>, memref<128x512xf32, #tile.space<sbuf>>
  func.func @psum_pair() {
    %a = tile.alloc {name = "a"} : memref<128x512xf32, #tile.space<psum>>
    %b = tile.alloc {name = "b"} : memref<128x512xf32, #tile.space<psum>>
    %c = tile.alloc {name = "c"} : memref<128x512xf32, #tile.space<sbuf>>
    tile.memset %a, 1.0 : memref<128x512xf32, #tile.space<psum>>
    tile.memset %b, 2.0 : memref<128x512xf32, #tile.space<psum>>
    tile.binary add %a, %b, %c : memref<128x512xf32, #tile.space<psum>>, memref<128x512xf32, #tile.space<psum>>, memref<128x512xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// NeuronCore-v2 has no DMA transpose: a transpose into SBUF runs on the tensor engine into PSUM, then is copied.
// trn2 keeps the DMA transpose.
module attributes {tessera.target = "trn1"} {
  // CHECK-LABEL: func.func @transpose_v2
  // CHECK: %[[T:.*]] = tile.alloc {name = "t"} : memref<64x128xbf16, #tile.space<sbuf>>
  // CHECK: %[[P:.*]] = tile.alloc {name = "t_psum"} : memref<64x128xbf16, #tile.space<psum>>
  // CHECK-NEXT: tile.transpose %{{.*}}, %[[P]] : memref<128x64xbf16, #tile.space<sbuf>>, memref<64x128xbf16, #tile.space<psum>>
  // CHECK-NEXT: tile.copy %[[P]], %[[T]]
  func.func @transpose_v2() {
    %x = tile.alloc {name = "x"} : memref<128x64xbf16, #tile.space<sbuf>>
    %t = tile.alloc {name = "t"} : memref<64x128xbf16, #tile.space<sbuf>>
    tile.memset %x, 1.0 : memref<128x64xbf16, #tile.space<sbuf>>
    tile.transpose %x, %t : memref<128x64xbf16, #tile.space<sbuf>>, memref<64x128xbf16, #tile.space<sbuf>>
    return
  }
}

// -----

module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @transpose_v3
  // CHECK-NOT: tile.alloc {name = "t_psum"}
  // CHECK: tile.transpose %{{.*}}, %{{.*}} : memref<128x64xbf16, #tile.space<sbuf>>, memref<64x128xbf16, #tile.space<sbuf>>
  func.func @transpose_v3() {
    %x = tile.alloc {name = "x"} : memref<128x64xbf16, #tile.space<sbuf>>
    %t = tile.alloc {name = "t"} : memref<64x128xbf16, #tile.space<sbuf>>
    tile.memset %x, 1.0 : memref<128x64xbf16, #tile.space<sbuf>>
    tile.transpose %x, %t : memref<128x64xbf16, #tile.space<sbuf>>, memref<64x128xbf16, #tile.space<sbuf>>
    return
  }
}

// -----

// On a TPU nothing changes: the VPU divides.
module attributes {tessera.target = "tpu-v5e"} {
  // CHECK-LABEL: func.func @tpu
  // CHECK: tile.binary divide
  func.func @tpu() {
    %x = tile.alloc {name = "x"} : memref<8x128xf32, #tile.space<sbuf>>
    tile.memset %x, 3.0 : memref<8x128xf32, #tile.space<sbuf>>
    tile.binary divide %x, %x, %x : memref<8x128xf32, #tile.space<sbuf>>, memref<8x128xf32, #tile.space<sbuf>>, memref<8x128xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// A row loaded from HBM and broadcast onto partitions in its own dtype, in the same block, becomes one broadcast
// load of the window (steps [0, 1]); the row's load goes, nothing else using it.
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @broadcast_loaded_row
  // CHECK: scf.for
  // CHECK-NOT: memref<1x512xf32, #tile.space<sbuf>>
  // CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} {steps = array<i64: 0, 1>} : memref<4x512xf32>, memref<128x512xf32, #tile.space<sbuf>>
  // CHECK-NOT: tile.broadcast
  // CHECK: return
  func.func @broadcast_loaded_row(%g: memref<4x512xf32>, %y: memref<512x512xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c128 = arith.constant 128 : index
    scf.for %i = %c0 to %c4 step %c1 {
      %row = tile.alloc {name = "g_tile"} : memref<1x512xf32, #tile.space<sbuf>>
      tile.load %g[%i, %c0], %row : memref<4x512xf32>, memref<1x512xf32, #tile.space<sbuf>>
      %b = tile.alloc {name = "g_bcast"} : memref<128x512xf32, #tile.space<sbuf>>
      tile.broadcast %row, %b : memref<1x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
      %r = arith.muli %i, %c128 : index
      tile.store %b, %y[%r, %c0] : memref<128x512xf32, #tile.space<sbuf>>, memref<512x512xf32>
    }
    return
  }
}

// -----

// Broadcasts that stay: converting; from a tensor the kernel stores to (the row as loaded, not the tensor when the
// broadcast runs); from a row loaded before the loop (folding would load it again on every iteration); from a row
// something else writes (a fill); in a manual_sync scope (each op exactly the instruction written).
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @broadcasts_kept
  // CHECK-NOT: steps
  // CHECK-COUNT-5: tile.broadcast
  // CHECK-NOT: steps
  // CHECK: return
  func.func @broadcasts_kept(%g: memref<1x512xf32>, %s: memref<1x512xf32>, %y: memref<128x512xbf16>, %z: memref<128x512xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %row = tile.alloc : memref<1x512xf32, #tile.space<sbuf>>
    %b = tile.alloc : memref<128x512xbf16, #tile.space<sbuf>>
    tile.load %g[%c0, %c0], %row : memref<1x512xf32>, memref<1x512xf32, #tile.space<sbuf>>
    tile.broadcast %row, %b : memref<1x512xf32, #tile.space<sbuf>>, memref<128x512xbf16, #tile.space<sbuf>>
    tile.store %b, %y[%c0, %c0] : memref<128x512xbf16, #tile.space<sbuf>>, memref<128x512xbf16>
    %row2 = tile.alloc : memref<1x512xf32, #tile.space<sbuf>>
    %b2 = tile.alloc : memref<128x512xf32, #tile.space<sbuf>>
    tile.load %s[%c0, %c0], %row2 : memref<1x512xf32>, memref<1x512xf32, #tile.space<sbuf>>
    tile.broadcast %row2, %b2 : memref<1x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
    tile.store %row, %s[%c0, %c0] : memref<1x512xf32, #tile.space<sbuf>>, memref<1x512xf32>
    %row3 = tile.alloc : memref<1x512xf32, #tile.space<sbuf>>
    tile.load %g[%c0, %c0], %row3 : memref<1x512xf32>, memref<1x512xf32, #tile.space<sbuf>>
    scf.for %i = %c0 to %c2 step %c1 {
      %b3 = tile.alloc : memref<128x512xf32, #tile.space<sbuf>>
      tile.broadcast %row3, %b3 : memref<1x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
      tile.store %b3, %z[%c0, %c0] : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32>
    }
    %row4 = tile.alloc : memref<1x512xf32, #tile.space<sbuf>>
    %b4 = tile.alloc : memref<128x512xf32, #tile.space<sbuf>>
    tile.load %g[%c0, %c0], %row4 : memref<1x512xf32>, memref<1x512xf32, #tile.space<sbuf>>
    tile.memset %row4, 1.0 : memref<1x512xf32, #tile.space<sbuf>>
    tile.broadcast %row4, %b4 : memref<1x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
    tile.store %b4, %z[%c0, %c0] : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32>
    %row5 = tile.alloc : memref<1x512xf32, #tile.space<sbuf>>
    %b5 = tile.alloc : memref<128x512xf32, #tile.space<sbuf>>
    tile.load %g[%c0, %c0], %row5 {tile.manual} : memref<1x512xf32>, memref<1x512xf32, #tile.space<sbuf>>
    tile.broadcast %row5, %b5 {tile.manual} : memref<1x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
    return
  }
}
