// The tile dialect: every op prints as it parses (also through the generic form), and each verifier rejects
// what the lowering could not run, with a message that names the problem.
// RUN: tessera-opt %s -split-input-file -verify-diagnostics | tessera-opt -split-input-file | FileCheck %s
// RUN: tessera-opt %s -split-input-file -verify-diagnostics -mlir-print-op-generic | tessera-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @alloc
func.func @alloc() {
  // CHECK: tile.alloc : memref<128x512xbf16, #tile.space<sbuf>>
  %0 = tile.alloc : memref<128x512xbf16, #tile.space<sbuf>>
  // CHECK: tile.alloc {bufs = 4 : i64, name = "acc", offset = 2048 : i64} : memref<64x512xf32, #tile.space<psum>>
  %1 = tile.alloc {name = "acc", offset = 2048 : i64, bufs = 4 : i64} : memref<64x512xf32, #tile.space<psum>>
  return
}

// -----

// CHECK-LABEL: func.func @load_store
// CHECK-SAME: (%[[A:.*]]: memref<256x1024xbf16>, %[[I:.*]]: index, %[[J:.*]]: index)
func.func @load_store(%a: memref<256x1024xbf16>, %i: index, %j: index) {
  // CHECK: %[[T:.*]] = tile.alloc
  %t = tile.alloc : memref<128x512xbf16, #tile.space<sbuf>>
  // CHECK: tile.load %[[A]][%[[I]], %[[J]]], %[[T]] : memref<256x1024xbf16>, memref<128x512xbf16, #tile.space<sbuf>>
  tile.load %a[%i, %j], %t : memref<256x1024xbf16>, memref<128x512xbf16, #tile.space<sbuf>>
  // CHECK: tile.store %[[T]], %[[A]][%[[J]], %[[I]]] : memref<128x512xbf16, #tile.space<sbuf>>, memref<256x1024xbf16>
  tile.store %t, %a[%j, %i] : memref<128x512xbf16, #tile.space<sbuf>>, memref<256x1024xbf16>
  // A strided window: rows 2 apart, every other column.
  // CHECK: tile.load %[[A]][%[[I]], %[[J]]], %[[T]] {steps = array<i64: 2, 2>}
  tile.load %a[%i, %j], %t {steps = array<i64: 2, 2>} : memref<256x1024xbf16>, memref<128x512xbf16, #tile.space<sbuf>>
  // A broadcast: one row on every partition (step 0).
  // CHECK: tile.load %[[A]][%[[I]], %[[J]]], %[[T]] {steps = array<i64: 0, 1>}
  tile.load %a[%i, %j], %t {steps = array<i64: 0, 1>} : memref<256x1024xbf16>, memref<128x512xbf16, #tile.space<sbuf>>
  return
}

// -----

// CHECK-LABEL: func.func @matmul
func.func @matmul() {
  // CHECK: %[[S:.*]] = tile.alloc {{.*}}128x64xbf16
  %s = tile.alloc : memref<128x64xbf16, #tile.space<sbuf>>
  // CHECK: %[[M:.*]] = tile.alloc {{.*}}128x512xbf16
  %m = tile.alloc : memref<128x512xbf16, #tile.space<sbuf>>
  // CHECK: %[[ACC:.*]] = tile.alloc {{.*}}64x512xf32
  %acc = tile.alloc : memref<64x512xf32, #tile.space<psum>>
  // CHECK: tile.matmul %[[S]], %[[M]], %[[ACC]] : memref<128x64xbf16, #tile.space<sbuf>>, memref<128x512xbf16, #tile.space<sbuf>>, memref<64x512xf32, #tile.space<psum>>
  tile.matmul %s, %m, %acc : memref<128x64xbf16, #tile.space<sbuf>>, memref<128x512xbf16, #tile.space<sbuf>>, memref<64x512xf32, #tile.space<psum>>
  // CHECK-NEXT: tile.matmul %[[S]], %[[M]], %[[ACC]] {accumulate} :
  tile.matmul %s, %m, %acc {accumulate} : memref<128x64xbf16, #tile.space<sbuf>>, memref<128x512xbf16, #tile.space<sbuf>>, memref<64x512xf32, #tile.space<psum>>
  return
}

// -----

// CHECK-LABEL: func.func @elementwise
func.func @elementwise() {
  // CHECK: %[[X:.*]] = tile.alloc {{.*}}128x512xf32
  %x = tile.alloc : memref<128x512xf32, #tile.space<sbuf>>
  // CHECK: %[[P:.*]] = tile.alloc {{.*}}psum
  %p = tile.alloc : memref<128x512xf32, #tile.space<psum>>
  // CHECK: %[[C:.*]] = tile.alloc {{.*}}128x1xf32
  %col = tile.alloc : memref<128x1xf32, #tile.space<sbuf>>
  // CHECK: %[[Y:.*]] = tile.alloc {{.*}}128x512xbf16
  %y = tile.alloc : memref<128x512xbf16, #tile.space<sbuf>>
  // CHECK: tile.binary add %[[X]], %[[P]], %[[X]] : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<psum>>, memref<128x512xf32, #tile.space<sbuf>>
  tile.binary add %x, %p, %x : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<psum>>, memref<128x512xf32, #tile.space<sbuf>>
  // A [P, 1] operand broadcasts along the free dimension, on either side.
  // CHECK: tile.binary subtract %[[X]], %[[C]], %[[X]] : memref<128x512xf32, #tile.space<sbuf>>, memref<128x1xf32, #tile.space<sbuf>>
  tile.binary subtract %x, %col, %x : memref<128x512xf32, #tile.space<sbuf>>, memref<128x1xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
  // CHECK: tile.binary divide %[[C]], %[[X]], %[[X]]
  tile.binary divide %col, %x, %x : memref<128x1xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
  // CHECK: tile.binary multiply
  tile.binary multiply %x, %x, %x : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
  // CHECK: tile.binary max
  tile.binary max %x, %x, %x : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
  // CHECK: tile.binary min
  tile.binary min %x, %x, %x : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
  // The default scale, 1.0, is not printed.
  // CHECK: tile.activation exp %[[X]], %[[Y]] : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xbf16, #tile.space<sbuf>>
  tile.activation exp %x, %y : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xbf16, #tile.space<sbuf>>
  // CHECK: tile.activation identity %[[P]], %[[X]] {scale = -5.000000e-01 : f32} :
  tile.activation identity %p, %x {scale = -0.5 : f32} : memref<128x512xf32, #tile.space<psum>>, memref<128x512xf32, #tile.space<sbuf>>
  // CHECK: tile.reduce max %[[X]], %[[C]] : memref<128x512xf32, #tile.space<sbuf>>, memref<128x1xf32, #tile.space<sbuf>>
  tile.reduce max %x, %col : memref<128x512xf32, #tile.space<sbuf>>, memref<128x1xf32, #tile.space<sbuf>>
  // CHECK: tile.copy %[[P]], %[[Y]] : memref<128x512xf32, #tile.space<psum>>, memref<128x512xbf16, #tile.space<sbuf>>
  tile.copy %p, %y : memref<128x512xf32, #tile.space<psum>>, memref<128x512xbf16, #tile.space<sbuf>>
  // CHECK: tile.memset %[[P]], 0.000000e+00 : memref<128x512xf32, #tile.space<psum>>
  tile.memset %p, 0.0 : memref<128x512xf32, #tile.space<psum>>
  // CHECK: tile.memset %[[C]], -3.000000e+00 : memref<128x1xf32, #tile.space<sbuf>>
  tile.memset %col, -3.0 : memref<128x1xf32, #tile.space<sbuf>>
  return
}

// -----

// CHECK-LABEL: func.func @view
// CHECK-SAME: (%[[J:.*]]: index)
func.func @view(%j: index) {
  // CHECK: %[[T:.*]] = tile.alloc
  %t = tile.alloc : memref<128x2048xbf16, #tile.space<sbuf>>
  // CHECK: tile.view %[[T]][%[[J]]] : memref<128x2048xbf16, #tile.space<sbuf>> to memref<128x512xbf16, #tile.space<sbuf>>
  %v = tile.view %t[%j] : memref<128x2048xbf16, #tile.space<sbuf>> to memref<128x512xbf16, #tile.space<sbuf>>
  %c1536 = arith.constant 1536 : index
  // CHECK: tile.view %[[T]][%{{.*}}] : {{.*}} to memref<128x512xbf16, #tile.space<sbuf>>
  %w = tile.view %t[%c1536] : memref<128x2048xbf16, #tile.space<sbuf>> to memref<128x512xbf16, #tile.space<sbuf>>
  // A PSUM tile has windows too (transposes written side by side into one bank).
  %p = tile.alloc : memref<128x512xbf16, #tile.space<psum>>
  // CHECK: tile.view %{{.*}}[%[[J]]] : memref<128x512xbf16, #tile.space<psum>> to memref<128x128xbf16, #tile.space<psum>>
  %q = tile.view %p[%j] : memref<128x512xbf16, #tile.space<psum>> to memref<128x128xbf16, #tile.space<psum>>
  return
}

// -----

// CHECK-LABEL: func.func @activation_with_bias_and_sum
func.func @activation_with_bias_and_sum() {
  // CHECK: %[[S:.*]] = tile.alloc {{.*}}psum
  %s = tile.alloc : memref<128x512xf32, #tile.space<psum>>
  // CHECK: %[[B:.*]] = tile.alloc
  %b = tile.alloc : memref<128x1xf32, #tile.space<sbuf>>
  // CHECK: %[[L:.*]] = tile.alloc
  %l = tile.alloc : memref<128x1xf32, #tile.space<sbuf>>
  // CHECK: %[[P:.*]] = tile.alloc
  %p = tile.alloc : memref<128x512xbf16, #tile.space<sbuf>>
  // CHECK: tile.activation exp %[[S]] bias(%[[B]] : memref<128x1xf32, #tile.space<sbuf>>), %[[P]] sum(%[[L]] : memref<128x1xf32, #tile.space<sbuf>>) {scale = 1.250000e-01 : f32} : memref<128x512xf32, #tile.space<psum>>, memref<128x512xbf16, #tile.space<sbuf>>
  tile.activation exp %s bias(%b : memref<128x1xf32, #tile.space<sbuf>>), %p sum(%l : memref<128x1xf32, #tile.space<sbuf>>) {scale = 0.125 : f32} : memref<128x512xf32, #tile.space<psum>>, memref<128x512xbf16, #tile.space<sbuf>>
  // CHECK: tile.activation exp %[[S]] bias(%[[B]] : memref<128x1xf32, #tile.space<sbuf>>), %[[P]] :
  tile.activation exp %s bias(%b : memref<128x1xf32, #tile.space<sbuf>>), %p : memref<128x512xf32, #tile.space<psum>>, memref<128x512xbf16, #tile.space<sbuf>>
  return
}

// -----

// CHECK-LABEL: func.func @broadcast
func.func @broadcast() {
  %row = tile.alloc : memref<1x512xf32, #tile.space<sbuf>>
  %col = tile.alloc : memref<128x1xf32, #tile.space<psum>>
  %one = tile.alloc : memref<1x1xf32, #tile.space<sbuf>>
  %dst = tile.alloc : memref<128x512xbf16, #tile.space<sbuf>>
  // CHECK: tile.broadcast %{{.*}}, %{{.*}} : memref<1x512xf32, #tile.space<sbuf>>, memref<128x512xbf16, #tile.space<sbuf>>
  tile.broadcast %row, %dst : memref<1x512xf32, #tile.space<sbuf>>, memref<128x512xbf16, #tile.space<sbuf>>
  // CHECK: tile.broadcast %{{.*}}, %{{.*}} : memref<128x1xf32, #tile.space<psum>>, memref<128x512xbf16, #tile.space<sbuf>>
  tile.broadcast %col, %dst : memref<128x1xf32, #tile.space<psum>>, memref<128x512xbf16, #tile.space<sbuf>>
  // CHECK: tile.broadcast %{{.*}}, %{{.*}} : memref<1x1xf32, #tile.space<sbuf>>, memref<128x512xbf16, #tile.space<sbuf>>
  tile.broadcast %one, %dst : memref<1x1xf32, #tile.space<sbuf>>, memref<128x512xbf16, #tile.space<sbuf>>
  return
}

// -----

// CHECK-LABEL: func.func @transpose_and_fill_where
func.func @transpose_and_fill_where() {
  %x = tile.alloc : memref<128x64xbf16, #tile.space<sbuf>>
  %p = tile.alloc : memref<64x128xbf16, #tile.space<psum>>
  %f = tile.alloc : memref<64x128xf32, #tile.space<psum>>
  %s = tile.alloc : memref<64x128xbf16, #tile.space<sbuf>>
  // CHECK: tile.transpose %{{.*}}, %{{.*}} : memref<128x64xbf16, #tile.space<sbuf>>, memref<64x128xbf16, #tile.space<psum>>
  tile.transpose %x, %p : memref<128x64xbf16, #tile.space<sbuf>>, memref<64x128xbf16, #tile.space<psum>>
  // CHECK: tile.transpose {{.*}} memref<64x128xf32, #tile.space<psum>>
  tile.transpose %x, %f : memref<128x64xbf16, #tile.space<sbuf>>, memref<64x128xf32, #tile.space<psum>>
  // CHECK: tile.transpose {{.*}} memref<64x128xbf16, #tile.space<sbuf>>
  tile.transpose %x, %s : memref<128x64xbf16, #tile.space<sbuf>>, memref<64x128xbf16, #tile.space<sbuf>>
  // CHECK: tile.fill_where is_gt %{{.*}}[%{{.*}}], -1.000000e+00 {free = 1 : i64, partition = -1 : i64} : memref<64x128xbf16, #tile.space<sbuf>>
  %c0_off = arith.constant 0 : index
  tile.fill_where is_gt %s[%c0_off], -1.0 {partition = -1 : i64, free = 1 : i64} : memref<64x128xbf16, #tile.space<sbuf>>
  return
}

// -----
// tile.alloc

func.func @alloc_in_hbm() {
  // expected-error@+1 {{'tile.alloc' op allocates on chip only (sbuf or psum)}}
  %0 = tile.alloc : memref<128x512xf32>
  return
}

// -----

func.func @alloc_hbm_space_named() {
  // expected-error@+1 {{allocates on chip only}}
  %0 = tile.alloc : memref<128x512xf32, #tile.space<hbm>>
  return
}

// -----

func.func @alloc_3d() {
  // expected-error@+1 {{tiles are 2-D [partition, free], got 'memref<2x128x4xf32, #tile.space<sbuf>>'}}
  %0 = tile.alloc : memref<2x128x4xf32, #tile.space<sbuf>>
  return
}

// -----

func.func @alloc_dynamic() {
  // expected-error@+1 {{must be statically shaped memref}}
  %0 = tile.alloc : memref<128x?xf32, #tile.space<sbuf>>
  return
}

// -----

func.func @alloc_no_bufs() {
  // expected-error@+1 {{bufs must be at least 1}}
  %0 = tile.alloc {bufs = 0 : i64} : memref<128x4xf32, #tile.space<sbuf>>
  return
}

// -----

// bufs and offset are signed: a negative value must not pass as a huge unsigned one.
func.func @alloc_negative_bufs() {
  // expected-error@+1 {{bufs must be at least 1}}
  %0 = tile.alloc {bufs = -1 : i64} : memref<128x4xf32, #tile.space<sbuf>>
  return
}

// -----

func.func @alloc_negative_offset() {
  // expected-error@+1 {{offset must not be negative}}
  %0 = tile.alloc {offset = -4 : i64} : memref<128x4xf32, #tile.space<sbuf>>
  return
}

// -----
// tile.load / tile.store

func.func @load_from_sbuf(%i: index) {
  %s = tile.alloc : memref<256x512xbf16, #tile.space<sbuf>>
  %t = tile.alloc : memref<128x512xbf16, #tile.space<sbuf>>
  // expected-error@+1 {{'tile.load' op expects an HBM tensor, got 'memref<256x512xbf16, #tile.space<sbuf>>'}}
  tile.load %s[%i, %i], %t : memref<256x512xbf16, #tile.space<sbuf>>, memref<128x512xbf16, #tile.space<sbuf>>
  return
}

// -----

func.func @load_into_hbm(%a: memref<256x512xbf16>, %b: memref<128x512xbf16>, %i: index) {
  // expected-error@+1 {{the tile must be an on-chip tile (sbuf or psum), got 'memref<128x512xbf16>'}}
  tile.load %a[%i, %i], %b : memref<256x512xbf16>, memref<128x512xbf16>
  return
}

// -----

func.func @load_into_1d_tile(%a: memref<256x512xbf16>, %t: memref<128xbf16, #tile.space<sbuf>>, %i: index) {
  // expected-error@+1 {{the tile must be a 2-D [partition, free] tile, got 'memref<128xbf16, #tile.space<sbuf>>'}}
  tile.load %a[%i, %i], %t : memref<256x512xbf16>, memref<128xbf16, #tile.space<sbuf>>
  return
}

// -----

func.func @scan_shapes_differ() {
  %a = tile.alloc : memref<4x8xf32, #tile.space<sbuf>>
  %b = tile.alloc : memref<4x4xf32, #tile.space<sbuf>>
  // expected-error@+1 {{'tile.scan' op a 'memref<4x8xf32, #tile.space<sbuf>>', b 'memref<4x4xf32, #tile.space<sbuf>>' and dst 'memref<4x8xf32, #tile.space<sbuf>>' must share a shape}}
  tile.scan %a, %b, %a : memref<4x8xf32, #tile.space<sbuf>>, memref<4x4xf32, #tile.space<sbuf>>, memref<4x8xf32, #tile.space<sbuf>>
  return
}

// -----

func.func @scan_both_in_psum() {
  %a = tile.alloc : memref<4x8xf32, #tile.space<psum>>
  %d = tile.alloc : memref<4x8xf32, #tile.space<sbuf>>
  // expected-error@+1 {{'tile.scan' op a and b are both in psum; at most one of them may be}}
  tile.scan %a, %a, %d : memref<4x8xf32, #tile.space<psum>>, memref<4x8xf32, #tile.space<psum>>, memref<4x8xf32, #tile.space<sbuf>>
  return
}

// -----

func.func @scan_initial_not_a_column() {
  %a = tile.alloc : memref<4x8xf32, #tile.space<sbuf>>
  %i = tile.alloc : memref<4x2xf32, #tile.space<sbuf>>
  // expected-error@+1 {{'tile.scan' op initial 'memref<4x2xf32, #tile.space<sbuf>>' is not [4, 1], one value per row}}
  tile.scan %a, %a, %a init(%i : memref<4x2xf32, #tile.space<sbuf>>) : memref<4x8xf32, #tile.space<sbuf>>, memref<4x8xf32, #tile.space<sbuf>>, memref<4x8xf32, #tile.space<sbuf>>
  return
}

// -----

func.func @load_steps_negative(%a: memref<256x512xbf16>, %i: index) {
  %t = tile.alloc : memref<128x256xbf16, #tile.space<sbuf>>
  // expected-error@+1 {{'tile.load' op expects two non-negative steps (rows, columns), got [1, -1]}}
  tile.load %a[%i, %i], %t {steps = array<i64: 1, -1>} : memref<256x512xbf16>, memref<128x256xbf16, #tile.space<sbuf>>
  return
}

// -----

// A store's window never repeats an element: every copy would land on it.
func.func @store_steps_not_positive(%a: memref<256x512xbf16>, %i: index) {
  %t = tile.alloc : memref<128x256xbf16, #tile.space<sbuf>>
  // expected-error@+1 {{'tile.store' op expects two positive steps (rows, columns), got [0, 1]}}
  tile.store %t, %a[%i, %i] {steps = array<i64: 0, 1>} : memref<128x256xbf16, #tile.space<sbuf>>, memref<256x512xbf16>
  return
}

// -----

func.func @store_steps_past_the_tensor(%a: memref<256x512xbf16>, %i: index) {
  %t = tile.alloc : memref<128x256xbf16, #tile.space<sbuf>>
  // 256 columns at step 3 span 766 columns of 512.
  // expected-error@+1 {{'tile.store' op tile 'memref<128x256xbf16, #tile.space<sbuf>>' with its steps is larger than the tensor 'memref<256x512xbf16>'}}
  tile.store %t, %a[%i, %i] {steps = array<i64: 1, 3>} : memref<128x256xbf16, #tile.space<sbuf>>, memref<256x512xbf16>
  return
}

// -----

func.func @load_one_index(%a: memref<256x512xbf16>, %i: index) {
  %t = tile.alloc : memref<128x512xbf16, #tile.space<sbuf>>
  // expected-error@+1 {{expects 2 indices into 'memref<256x512xbf16>', got 1}}
  tile.load %a[%i], %t : memref<256x512xbf16>, memref<128x512xbf16, #tile.space<sbuf>>
  return
}

// -----

func.func @store_three_indices(%a: memref<256x512xbf16>, %i: index) {
  %t = tile.alloc : memref<128x512xbf16, #tile.space<sbuf>>
  // expected-error@+1 {{'tile.store' op expects 2 indices into 'memref<256x512xbf16>', got 3}}
  tile.store %t, %a[%i, %i, %i] : memref<128x512xbf16, #tile.space<sbuf>>, memref<256x512xbf16>
  return
}

// -----

// HBM windows are 2-D: the lowering computes row * row_length + column.
func.func @load_1d_tensor(%a: memref<128xf32>, %i: index) {
  %t = tile.alloc : memref<128x1xf32, #tile.space<sbuf>>
  // expected-error@+1 {{expects a 2-D HBM tensor, got 'memref<128xf32>'}}
  tile.load %a[%i], %t : memref<128xf32>, memref<128x1xf32, #tile.space<sbuf>>
  return
}

// -----

func.func @load_3d_tensor(%a: memref<128x64x64xf32>, %i: index) {
  %t = tile.alloc : memref<128x64xf32, #tile.space<sbuf>>
  // expected-error@+1 {{expects a 2-D HBM tensor, got 'memref<128x64x64xf32>'}}
  tile.load %a[%i, %i, %i], %t : memref<128x64x64xf32>, memref<128x64xf32, #tile.space<sbuf>>
  return
}

// -----

func.func @load_converts(%a: memref<256x512xf32>, %i: index) {
  %t = tile.alloc : memref<128x512xbf16, #tile.space<sbuf>>
  // expected-error@+1 {{element types differ: 'f32' in HBM, 'bf16' on chip (DMA does not convert)}}
  tile.load %a[%i, %i], %t : memref<256x512xf32>, memref<128x512xbf16, #tile.space<sbuf>>
  return
}

// -----

// A transposed window: the [64, 128] tile of a [128, 64] window of the tensor, both ways.
// CHECK-LABEL: func.func @transposed_windows
// CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} {transpose} : memref<256x64xbf16>, memref<64x128xbf16, #tile.space<sbuf>>
// CHECK: tile.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] {transpose} : memref<64x128xbf16, #tile.space<sbuf>>, memref<256x64xbf16>
func.func @transposed_windows(%a: memref<256x64xbf16>, %i: index) {
  %t = tile.alloc : memref<64x128xbf16, #tile.space<sbuf>>
  tile.load %a[%i, %i], %t {transpose} : memref<256x64xbf16>, memref<64x128xbf16, #tile.space<sbuf>>
  tile.store %t, %a[%i, %i] {transpose} : memref<64x128xbf16, #tile.space<sbuf>>, memref<256x64xbf16>
  return
}

// -----

// Transposed, the [64, 128] tile spans 128 rows of a 100-row tensor (it would fit untransposed).
func.func @transposed_load_larger_than_tensor(%a: memref<100x128xbf16>, %i: index) {
  %t = tile.alloc : memref<64x128xbf16, #tile.space<sbuf>>
  // expected-error@+1 {{'tile.load' op tile 'memref<64x128xbf16, #tile.space<sbuf>>' transposed is larger than the tensor 'memref<100x128xbf16>'}}
  tile.load %a[%i, %i], %t {transpose} : memref<100x128xbf16>, memref<64x128xbf16, #tile.space<sbuf>>
  return
}

// -----

func.func @transposed_strided_store(%a: memref<256x512xbf16>, %i: index) {
  %t = tile.alloc : memref<128x128xbf16, #tile.space<sbuf>>
  // expected-error@+1 {{'tile.store' op transposes a strided window (steps [1, 2]); a transposed window has steps 1}}
  tile.store %t, %a[%i, %i] {steps = array<i64: 1, 2>, transpose} : memref<128x128xbf16, #tile.space<sbuf>>, memref<256x512xbf16>
  return
}

// -----

func.func @store_larger_than_tensor(%a: memref<64x512xbf16>, %i: index) {
  %t = tile.alloc : memref<128x512xbf16, #tile.space<sbuf>>
  // expected-error@+1 {{'tile.store' op tile 'memref<128x512xbf16, #tile.space<sbuf>>' is larger than the tensor 'memref<64x512xbf16>'}}
  tile.store %t, %a[%i, %i] : memref<128x512xbf16, #tile.space<sbuf>>, memref<64x512xbf16>
  return
}

// -----

func.func @load_wider_than_tensor(%a: memref<128x256xbf16>, %i: index) {
  %t = tile.alloc : memref<128x512xbf16, #tile.space<sbuf>>
  // expected-error@+1 {{is larger than the tensor}}
  tile.load %a[%i, %i], %t : memref<128x256xbf16>, memref<128x512xbf16, #tile.space<sbuf>>
  return
}

// -----
// tile.matmul

func.func @matmul_stationary_in_psum() {
  %s = tile.alloc : memref<128x64xf32, #tile.space<psum>>
  %m = tile.alloc : memref<128x512xbf16, #tile.space<sbuf>>
  %acc = tile.alloc : memref<64x512xf32, #tile.space<psum>>
  // expected-error@+1 {{'tile.matmul' op stationary must be in sbuf}}
  tile.matmul %s, %m, %acc : memref<128x64xf32, #tile.space<psum>>, memref<128x512xbf16, #tile.space<sbuf>>, memref<64x512xf32, #tile.space<psum>>
  return
}

// -----

func.func @matmul_moving_in_hbm(%m: memref<128x512xbf16>) {
  %s = tile.alloc : memref<128x64xbf16, #tile.space<sbuf>>
  %acc = tile.alloc : memref<64x512xf32, #tile.space<psum>>
  // expected-error@+1 {{moving must be an on-chip tile (sbuf or psum), got 'memref<128x512xbf16>'}}
  tile.matmul %s, %m, %acc : memref<128x64xbf16, #tile.space<sbuf>>, memref<128x512xbf16>, memref<64x512xf32, #tile.space<psum>>
  return
}

// -----

func.func @matmul_acc_in_sbuf() {
  %s = tile.alloc : memref<128x64xbf16, #tile.space<sbuf>>
  %m = tile.alloc : memref<128x512xbf16, #tile.space<sbuf>>
  %acc = tile.alloc : memref<64x512xf32, #tile.space<sbuf>>
  // expected-error@+1 {{accumulates into an f32 psum tile, got 'memref<64x512xf32, #tile.space<sbuf>>'}}
  tile.matmul %s, %m, %acc : memref<128x64xbf16, #tile.space<sbuf>>, memref<128x512xbf16, #tile.space<sbuf>>, memref<64x512xf32, #tile.space<sbuf>>
  return
}

// -----

func.func @matmul_acc_not_f32() {
  %s = tile.alloc : memref<128x64xbf16, #tile.space<sbuf>>
  %m = tile.alloc : memref<128x512xbf16, #tile.space<sbuf>>
  %acc = tile.alloc : memref<64x512xbf16, #tile.space<psum>>
  // expected-error@+1 {{accumulates into an f32 psum tile, got 'memref<64x512xbf16, #tile.space<psum>>'}}
  tile.matmul %s, %m, %acc : memref<128x64xbf16, #tile.space<sbuf>>, memref<128x512xbf16, #tile.space<sbuf>>, memref<64x512xbf16, #tile.space<psum>>
  return
}

// -----

func.func @matmul_contraction_mismatch() {
  %s = tile.alloc : memref<128x64xbf16, #tile.space<sbuf>>
  %m = tile.alloc : memref<64x512xbf16, #tile.space<sbuf>>
  %acc = tile.alloc : memref<64x512xf32, #tile.space<psum>>
  // expected-error@+1 {{contraction mismatch: stationary 'memref<128x64xbf16, #tile.space<sbuf>>' and moving 'memref<64x512xbf16, #tile.space<sbuf>>'}}
  tile.matmul %s, %m, %acc : memref<128x64xbf16, #tile.space<sbuf>>, memref<64x512xbf16, #tile.space<sbuf>>, memref<64x512xf32, #tile.space<psum>>
  return
}

// -----

func.func @matmul_acc_transposed() {
  %s = tile.alloc : memref<128x64xbf16, #tile.space<sbuf>>
  %m = tile.alloc : memref<128x512xbf16, #tile.space<sbuf>>
  %acc = tile.alloc : memref<128x512xf32, #tile.space<psum>>
  // expected-error@+1 {{acc 'memref<128x512xf32, #tile.space<psum>>' is not [stationary free, moving free] = [64, 512]}}
  tile.matmul %s, %m, %acc : memref<128x64xbf16, #tile.space<sbuf>>, memref<128x512xbf16, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<psum>>
  return
}

// -----

func.func @matmul_acc_narrow() {
  %s = tile.alloc : memref<128x64xbf16, #tile.space<sbuf>>
  %m = tile.alloc : memref<128x512xbf16, #tile.space<sbuf>>
  %acc = tile.alloc : memref<64x256xf32, #tile.space<psum>>
  // expected-error@+1 {{is not [stationary free, moving free] = [64, 512]}}
  tile.matmul %s, %m, %acc : memref<128x64xbf16, #tile.space<sbuf>>, memref<128x512xbf16, #tile.space<sbuf>>, memref<64x256xf32, #tile.space<psum>>
  return
}

// -----
// tile.binary

func.func @binary_free_mismatch() {
  %a = tile.alloc : memref<128x512xf32, #tile.space<sbuf>>
  %b = tile.alloc : memref<128x256xf32, #tile.space<sbuf>>
  // expected-error@+1 {{'tile.binary' op operands 'memref<128x512xf32, #tile.space<sbuf>>' and 'memref<128x256xf32, #tile.space<sbuf>>' do not match or broadcast to 'memref<128x512xf32, #tile.space<sbuf>>'}}
  tile.binary add %a, %b, %a : memref<128x512xf32, #tile.space<sbuf>>, memref<128x256xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
  return
}

// -----

// Only the free dimension broadcasts; partitions must match.
func.func @binary_partition_mismatch() {
  %a = tile.alloc : memref<128x512xf32, #tile.space<sbuf>>
  %b = tile.alloc : memref<1x512xf32, #tile.space<sbuf>>
  // expected-error@+1 {{do not match or broadcast to}}
  tile.binary multiply %b, %a, %a : memref<1x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
  return
}

// -----

func.func @binary_dst_in_hbm(%d: memref<128x512xf32>) {
  %a = tile.alloc : memref<128x512xf32, #tile.space<sbuf>>
  // expected-error@+1 {{dst must be an on-chip tile (sbuf or psum), got 'memref<128x512xf32>'}}
  tile.binary add %a, %a, %d : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32>
  return
}

// -----

func.func @binary_unknown_op() {
  %a = tile.alloc : memref<128x512xf32, #tile.space<sbuf>>
  // expected-error@+1 {{expected string or keyword containing one of the following enum values for attribute 'op' [add, subtract, multiply, max, min, divide, bypass, power, abs_max, is_equal, not_equal, is_gt, is_ge, is_lt, is_le, logical_and, logical_or]}}
  tile.binary pow %a, %a, %a : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
  return
}

// -----
// tile.activation, tile.reduce, tile.copy, tile.memset

func.func @activation_shapes_differ() {
  %a = tile.alloc : memref<128x512xf32, #tile.space<sbuf>>
  %b = tile.alloc : memref<128x256xf32, #tile.space<sbuf>>
  // expected-error@+1 {{'tile.activation' op shapes differ: 'memref<128x512xf32, #tile.space<sbuf>>' and 'memref<128x256xf32, #tile.space<sbuf>>'}}
  tile.activation exp %a, %b : memref<128x512xf32, #tile.space<sbuf>>, memref<128x256xf32, #tile.space<sbuf>>
  return
}

// -----

func.func @activation_src_in_hbm(%a: memref<128x512xf32>) {
  %b = tile.alloc : memref<128x512xf32, #tile.space<sbuf>>
  // expected-error@+1 {{src must be an on-chip tile (sbuf or psum)}}
  tile.activation exp %a, %b : memref<128x512xf32>, memref<128x512xf32, #tile.space<sbuf>>
  return
}

// -----

// Into groups of consecutive elements: as many as divide the row (512 / 3 do not).
func.func @reduce_into_wide() {
  %a = tile.alloc : memref<128x512xf32, #tile.space<sbuf>>
  %b = tile.alloc : memref<128x3xf32, #tile.space<sbuf>>
  // expected-error@+1 {{'tile.reduce' op reduces 'memref<128x512xf32, #tile.space<sbuf>>' into [128, G], G dividing 512, got 'memref<128x3xf32, #tile.space<sbuf>>'}}
  tile.reduce add %a, %b : memref<128x512xf32, #tile.space<sbuf>>, memref<128x3xf32, #tile.space<sbuf>>
  return
}

// -----

func.func @reduce_partitions_differ() {
  %a = tile.alloc : memref<128x512xf32, #tile.space<sbuf>>
  %b = tile.alloc : memref<64x1xf32, #tile.space<sbuf>>
  // expected-error@+1 {{into [128, G], G dividing 512, got 'memref<64x1xf32, #tile.space<sbuf>>'}}
  tile.reduce max %a, %b : memref<128x512xf32, #tile.space<sbuf>>, memref<64x1xf32, #tile.space<sbuf>>
  return
}

// -----

func.func @copy_transposes() {
  %a = tile.alloc : memref<128x64xf32, #tile.space<psum>>
  %b = tile.alloc : memref<64x128xbf16, #tile.space<sbuf>>
  // expected-error@+1 {{'tile.copy' op shapes differ: 'memref<128x64xf32, #tile.space<psum>>' and 'memref<64x128xbf16, #tile.space<sbuf>>'}}
  tile.copy %a, %b : memref<128x64xf32, #tile.space<psum>>, memref<64x128xbf16, #tile.space<sbuf>>
  return
}

// -----

func.func @memset_hbm(%a: memref<128x512xf32>) {
  // expected-error@+1 {{'tile.memset' op dst must be an on-chip tile (sbuf or psum), got 'memref<128x512xf32>'}}
  tile.memset %a, 0.0 : memref<128x512xf32>
  return
}

// -----

func.func @memset_1d(%a: memref<128xf32, #tile.space<sbuf>>) {
  // expected-error@+1 {{dst must be a 2-D [partition, free] tile, got 'memref<128xf32, #tile.space<sbuf>>'}}
  tile.memset %a, 0.0 : memref<128xf32, #tile.space<sbuf>>
  return
}

// -----

func.func @unknown_space() {
  // expected-error@+2 {{expected ::tessera::tile::MemorySpace to be one of: hbm, sbuf, psum}}
  // expected-error@+1 {{failed to parse Tile_MemorySpaceAttr parameter 'value'}}
  %0 = tile.alloc : memref<128x4xf32, #tile.space<vmem>>
  return
}

// -----

// The tsr::isa level: device prints, a tile placed by the kernel, and the semaphore ops of a manual_sync scope.
// CHECK-LABEL: func.func @isa_level
// CHECK: tile.alloc {bufs = 1 : i64, fixed, name = "scratch", offset = 221184 : i64}
// CHECK: tile.print "x", %{{.*}} : memref<128x512xf32, #tile.space<sbuf>>
// CHECK: tile.memset %{{.*}}, 1.000000e+00 {tile.isa} :
// CHECK: tile.wait 0, %{{.*}} {tile.manual}
// CHECK: tile.signal 1 {tile.manual}
func.func @isa_level(%n: index) {
  %x = tile.alloc {name = "scratch", offset = 221184 : i64, bufs = 1 : i64, fixed} : memref<128x512xf32, #tile.space<sbuf>>
  tile.print "x", %x : memref<128x512xf32, #tile.space<sbuf>>
  tile.memset %x, 1.0 {tile.isa} : memref<128x512xf32, #tile.space<sbuf>>
  tile.wait 0, %n {tile.manual}
  tile.signal 1 {tile.manual}
  return
}

// -----

func.func @print_hbm(%a: memref<128x512xf32>) {
  // expected-error@+1 {{src must be an on-chip tile (sbuf or psum)}}
  tile.print "a", %a : memref<128x512xf32>
  return
}

// -----

func.func @wait_outside_manual_sync(%n: index) {
  // expected-error@+1 {{'tile.wait' op belongs to a manual_sync scope: mark it tile.manual}}
  tile.wait 0, %n
  return
}

// -----

func.func @signal_negative() {
  // expected-error@+1 {{names semaphore -1; semaphores are numbered from 0}}
  tile.signal -1 {tile.manual}
  return
}

// -----
// tile.view

func.func @view_of_hbm(%t: memref<128x512xf32>, %j: index) {
  // expected-error@+1 {{'tile.view' op source must be an on-chip tile (sbuf or psum), got 'memref<128x512xf32>'}}
  %v = tile.view %t[%j] : memref<128x512xf32> to memref<128x128xf32>
  return
}

// -----
// tile.activation's bias and sum, tile.transpose, tile.fill_where

func.func @bias_not_a_column() {
  %s = tile.alloc : memref<128x512xf32, #tile.space<sbuf>>
  %b = tile.alloc : memref<128x2xf32, #tile.space<sbuf>>
  // expected-error@+1 {{'tile.activation' op bias 'memref<128x2xf32, #tile.space<sbuf>>' is not one value per row of 'memref<128x512xf32, #tile.space<sbuf>>'}}
  tile.activation exp %s bias(%b : memref<128x2xf32, #tile.space<sbuf>>), %s : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
  return
}

// -----

func.func @sum_not_f32() {
  %s = tile.alloc : memref<128x512xf32, #tile.space<sbuf>>
  %l = tile.alloc : memref<128x1xbf16, #tile.space<sbuf>>
  // expected-error@+1 {{'tile.activation' op sum 'memref<128x1xbf16, #tile.space<sbuf>>' is not f32}}
  tile.activation exp %s, %s sum(%l : memref<128x1xbf16, #tile.space<sbuf>>) : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
  return
}

// -----

func.func @transpose_wrong_shape() {
  %x = tile.alloc : memref<128x64xbf16, #tile.space<sbuf>>
  %p = tile.alloc : memref<128x64xbf16, #tile.space<psum>>
  // expected-error@+1 {{'tile.transpose' op dst 'memref<128x64xbf16, #tile.space<psum>>' is not the transpose of 'memref<128x64xbf16, #tile.space<sbuf>>'}}
  tile.transpose %x, %p : memref<128x64xbf16, #tile.space<sbuf>>, memref<128x64xbf16, #tile.space<psum>>
  return
}

// -----

func.func @transpose_from_psum() {
  %x = tile.alloc : memref<128x64xbf16, #tile.space<psum>>
  %p = tile.alloc : memref<64x128xbf16, #tile.space<psum>>
  // expected-error@+1 {{'tile.transpose' op src 'memref<128x64xbf16, #tile.space<psum>>' is not in SBUF}}
  tile.transpose %x, %p : memref<128x64xbf16, #tile.space<psum>>, memref<64x128xbf16, #tile.space<psum>>
  return
}

// -----

func.func @dma_transpose_of_f32() {
  %x = tile.alloc : memref<128x64xf32, #tile.space<sbuf>>
  %s = tile.alloc : memref<64x128xf32, #tile.space<sbuf>>
  // expected-error@+1 {{'tile.transpose' op dst 'memref<64x128xf32, #tile.space<sbuf>>' in SBUF (a DMA transpose) needs src's 2-byte element type}}
  tile.transpose %x, %s : memref<128x64xf32, #tile.space<sbuf>>, memref<64x128xf32, #tile.space<sbuf>>
  return
}

// -----

func.func @fill_where_not_a_comparison() {
  %s = tile.alloc : memref<64x128xf32, #tile.space<sbuf>>
  %c0_off = arith.constant 0 : index
  // expected-error@+1 {{'tile.fill_where' op cmp add is not a comparison}}
  tile.fill_where add %s[%c0_off], 0.0 {partition = 1 : i64, free = 1 : i64} : memref<64x128xf32, #tile.space<sbuf>>
  return
}

// -----

func.func @view_wider_than_source(%j: index) {
  %t = tile.alloc : memref<128x512xbf16, #tile.space<sbuf>>
  // expected-error@+1 {{result 'memref<128x1024xbf16, #tile.space<sbuf>>' is not a window of 'memref<128x512xbf16, #tile.space<sbuf>>'}}
  %v = tile.view %t[%j] : memref<128x512xbf16, #tile.space<sbuf>> to memref<128x1024xbf16, #tile.space<sbuf>>
  return
}

// -----

// A partition slice (Tile::partition_slice): 64 partitions from 64 fit, from 96 they leave the source.
func.func @view_partitions_past_the_end(%j: index) {
  %t = tile.alloc : memref<128x512xbf16, #tile.space<sbuf>>
  %ok = tile.view %t[%j] {partition = 64 : i64} : memref<128x512xbf16, #tile.space<sbuf>> to memref<64x512xbf16, #tile.space<sbuf>>
  // expected-error@+1 {{partitions [96, 160) leave 'memref<128x512xbf16, #tile.space<sbuf>>'}}
  %v = tile.view %t[%j] {partition = 96 : i64} : memref<128x512xbf16, #tile.space<sbuf>> to memref<64x512xbf16, #tile.space<sbuf>>
  return
}

// -----

func.func @view_other_type(%j: index) {
  %t = tile.alloc : memref<128x512xbf16, #tile.space<sbuf>>
  // expected-error@+1 {{is not a window of}}
  %v = tile.view %t[%j] : memref<128x512xbf16, #tile.space<sbuf>> to memref<128x256xf32, #tile.space<sbuf>>
  return
}

// -----

func.func @view_past_the_end() {
  %t = tile.alloc : memref<128x512xbf16, #tile.space<sbuf>>
  %c384 = arith.constant 384 : index
  // expected-error@+1 {{window of 256 elements at offset 384 leaves 'memref<128x512xbf16, #tile.space<sbuf>>'}}
  %v = tile.view %t[%c384] : memref<128x512xbf16, #tile.space<sbuf>> to memref<128x256xbf16, #tile.space<sbuf>>
  return
}

// -----

func.func @broadcast_not_from_one() {
  %x = tile.alloc : memref<2x512xf32, #tile.space<sbuf>>
  %d = tile.alloc : memref<128x512xf32, #tile.space<sbuf>>
  // expected-error@+1 {{'tile.broadcast' op cannot broadcast 'memref<2x512xf32, #tile.space<sbuf>>' to 'memref<128x512xf32, #tile.space<sbuf>>': dimension 0 of src is 2, neither 1 nor 128}}
  tile.broadcast %x, %d : memref<2x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
  return
}

// -----

func.func @broadcast_into_psum() {
  %x = tile.alloc : memref<1x512xf32, #tile.space<sbuf>>
  %d = tile.alloc : memref<128x512xf32, #tile.space<psum>>
  // expected-error@+1 {{'tile.broadcast' op dst 'memref<128x512xf32, #tile.space<psum>>' is not in SBUF}}
  tile.broadcast %x, %d : memref<1x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<psum>>
  return
}

// -----

func.func @broadcast_of_one_shape() {
  %x = tile.alloc : memref<128x512xf32, #tile.space<sbuf>>
  %d = tile.alloc : memref<128x512xbf16, #tile.space<sbuf>>
  // expected-error@+1 {{'tile.broadcast' op src and dst share the shape of 'memref<128x512xbf16, #tile.space<sbuf>>': a tile.copy}}
  tile.broadcast %x, %d : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xbf16, #tile.space<sbuf>>
  return
}

// -----
// tile.view with an access pattern (Tile::ap): printed and parsed; each rule rejected with its message.

// CHECK-LABEL: func.func @access_pattern
func.func @access_pattern() {
  %c0 = arith.constant 0 : index
  %x = tile.alloc : memref<64x96xf32, #tile.space<sbuf>>
  %y = tile.alloc : memref<64x96xf32, #tile.space<sbuf>>
  %m = tile.alloc : memref<64x8xf32, #tile.space<sbuf>>
  // CHECK: tile.view %{{.*}}[%{{.*}}] {pattern = array<i64: 1, 8, 8, 12>}
  %t = tile.view %y[%c0] {pattern = array<i64: 1, 8, 8, 12>} : memref<64x96xf32, #tile.space<sbuf>> to memref<64x96xf32, #tile.space<sbuf>>
  tile.copy %x, %t : memref<64x96xf32, #tile.space<sbuf>>, memref<64x96xf32, #tile.space<sbuf>>
  %r = tile.view %x[%c0] {pattern = array<i64: 12, 8, 1, 12>} : memref<64x96xf32, #tile.space<sbuf>> to memref<64x96xf32, #tile.space<sbuf>>
  // CHECK: tile.reduce max %{{.*}}, %{{.*}} : memref<64x96xf32, #tile.space<sbuf>>, memref<64x8xf32, #tile.space<sbuf>>
  tile.reduce max %r, %m : memref<64x96xf32, #tile.space<sbuf>>, memref<64x8xf32, #tile.space<sbuf>>
  return
}

// -----

func.func @access_pattern_of_a_view() {
  %c0 = arith.constant 0 : index
  %x = tile.alloc : memref<64x96xf32, #tile.space<sbuf>>
  %y = tile.alloc : memref<64x48xf32, #tile.space<sbuf>>
  %v = tile.view %x[%c0] : memref<64x96xf32, #tile.space<sbuf>> to memref<64x48xf32, #tile.space<sbuf>>
  // expected-error@+1 {{ap: an access pattern is taken on a tile, not on a view of one}}
  %p = tile.view %v[%c0] {pattern = array<i64: 1, 48>} : memref<64x48xf32, #tile.space<sbuf>> to memref<64x48xf32, #tile.space<sbuf>>
  tile.copy %p, %y : memref<64x48xf32, #tile.space<sbuf>>, memref<64x48xf32, #tile.space<sbuf>>
  return
}

// -----

func.func @access_pattern_out_of_its_tile() {
  %c50 = arith.constant 50 : index
  %x = tile.alloc : memref<64x96xf32, #tile.space<sbuf>>
  %y = tile.alloc : memref<64x48xf32, #tile.space<sbuf>>
  // expected-error@+1 {{ap: the pattern reaches elements 50 to 144 of a partition of 'memref<64x96xf32, #tile.space<sbuf>>'}}
  %p = tile.view %x[%c50] {pattern = array<i64: 2, 48>} : memref<64x96xf32, #tile.space<sbuf>> to memref<64x48xf32, #tile.space<sbuf>>
  tile.copy %p, %y : memref<64x48xf32, #tile.space<sbuf>>, memref<64x48xf32, #tile.space<sbuf>>
  return
}

// -----

// The elementwise ops read access patterns (every input): no diagnostic.
func.func @access_pattern_read_by_arithmetic() {
  %c0 = arith.constant 0 : index
  %x = tile.alloc : memref<64x96xf32, #tile.space<sbuf>>
  %y = tile.alloc : memref<64x48xf32, #tile.space<sbuf>>
  %p = tile.view %x[%c0] {pattern = array<i64: 2, 48>} : memref<64x96xf32, #tile.space<sbuf>> to memref<64x48xf32, #tile.space<sbuf>>
  tile.binary add %p, %y, %y : memref<64x48xf32, #tile.space<sbuf>>, memref<64x48xf32, #tile.space<sbuf>>, memref<64x48xf32, #tile.space<sbuf>>
  tile.binary_scalar multiply %p, 2.0, %y : memref<64x48xf32, #tile.space<sbuf>>, memref<64x48xf32, #tile.space<sbuf>>
  tile.activation exp %p, %y : memref<64x48xf32, #tile.space<sbuf>>, memref<64x48xf32, #tile.space<sbuf>>
  return
}

// -----

func.func @access_pattern_written_by_arithmetic() {
  %c0 = arith.constant 0 : index
  %x = tile.alloc : memref<64x96xf32, #tile.space<sbuf>>
  %y = tile.alloc : memref<64x48xf32, #tile.space<sbuf>>
  %p = tile.view %x[%c0] {pattern = array<i64: 2, 48>} : memref<64x96xf32, #tile.space<sbuf>> to memref<64x48xf32, #tile.space<sbuf>>
  // expected-error@+1 {{ap: an access pattern is an operand of binary other than its input: elementwise ops read one as an input, and write a tile (copy the result into the pattern with tsr::assign) and take [P, 1] tiles as biases and scales}}
  tile.binary add %y, %y, %p : memref<64x48xf32, #tile.space<sbuf>>, memref<64x48xf32, #tile.space<sbuf>>, memref<64x48xf32, #tile.space<sbuf>>
  return
}

// -----

func.func @access_pattern_as_an_activation_bias() {
  %c0 = arith.constant 0 : index
  %x = tile.alloc : memref<64x96xf32, #tile.space<sbuf>>
  %y = tile.alloc : memref<64x48xf32, #tile.space<sbuf>>
  %p = tile.view %x[%c0] {pattern = array<i64: 2, 1>} : memref<64x96xf32, #tile.space<sbuf>> to memref<64x1xf32, #tile.space<sbuf>>
  // expected-error@+1 {{ap: an access pattern is an operand of activation other than its input}}
  tile.activation exp %y bias(%p : memref<64x1xf32, #tile.space<sbuf>>), %y : memref<64x48xf32, #tile.space<sbuf>>, memref<64x48xf32, #tile.space<sbuf>>
  return
}

// -----

func.func @access_pattern_into_a_matmul() {
  %c0 = arith.constant 0 : index
  %x = tile.alloc : memref<64x96xf32, #tile.space<sbuf>>
  %y = tile.alloc : memref<64x48xf32, #tile.space<sbuf>>
  %acc = tile.alloc : memref<48x48xf32, #tile.space<psum>>
  %p = tile.view %x[%c0] {pattern = array<i64: 2, 48>} : memref<64x96xf32, #tile.space<sbuf>> to memref<64x48xf32, #tile.space<sbuf>>
  // expected-error@+1 {{ap: an access pattern is an operand of matmul that takes none: copies (tsr::assign, tsr::copy), reductions (tsr::sum, tsr::max), elementwise ops (their inputs) and tsr::isa calls read one, and copies and tsr::isa calls write one; copy it into a tile first}}
  tile.matmul %p, %y, %acc : memref<64x48xf32, #tile.space<sbuf>>, memref<64x48xf32, #tile.space<sbuf>>, memref<48x48xf32, #tile.space<psum>>
  return
}

// -----

func.func @access_pattern_written_twice() {
  %c0 = arith.constant 0 : index
  %x = tile.alloc : memref<64x96xf32, #tile.space<sbuf>>
  %y = tile.alloc : memref<64x4xf32, #tile.space<sbuf>>
  %p = tile.view %x[%c0] {pattern = array<i64: 0, 4>} : memref<64x96xf32, #tile.space<sbuf>> to memref<64x4xf32, #tile.space<sbuf>>
  // expected-error@+1 {{ap: the destination is an access pattern that reaches some element more than once, which would be written several times}}
  tile.copy %y, %p : memref<64x4xf32, #tile.space<sbuf>>, memref<64x4xf32, #tile.space<sbuf>>
  return
}

// -----

// Walks that overlap without a step of 0: elements 1 to 3 are reached twice.
func.func @access_pattern_walks_overlap() {
  %c0 = arith.constant 0 : index
  %x = tile.alloc : memref<64x96xf32, #tile.space<sbuf>>
  %y = tile.alloc : memref<64x16xf32, #tile.space<sbuf>>
  %p = tile.view %x[%c0] {pattern = array<i64: 1, 4, 1, 4>} : memref<64x96xf32, #tile.space<sbuf>> to memref<64x16xf32, #tile.space<sbuf>>
  // expected-error@+1 {{ap: the destination is an access pattern that reaches some element more than once}}
  tile.copy %y, %p : memref<64x16xf32, #tile.space<sbuf>>, memref<64x16xf32, #tile.space<sbuf>>
  return
}

// -----

// A step of 0 over a count of 1 reaches each element once: a destination like any other.
// CHECK-LABEL: func.func @access_pattern_count_one
func.func @access_pattern_count_one() {
  %c0 = arith.constant 0 : index
  %x = tile.alloc : memref<64x96xf32, #tile.space<sbuf>>
  %y = tile.alloc : memref<64x4xf32, #tile.space<sbuf>>
  %p = tile.view %x[%c0] {pattern = array<i64: 0, 1, 2, 4>} : memref<64x96xf32, #tile.space<sbuf>> to memref<64x4xf32, #tile.space<sbuf>>
  // CHECK: tile.copy
  tile.copy %y, %p : memref<64x4xf32, #tile.space<sbuf>>, memref<64x4xf32, #tile.space<sbuf>>
  return
}

// -----

// Groups of one element reduce nothing: refused, as groups that are not whole innermost dimensions.
func.func @reduce_groups_of_one() {
  %c0 = arith.constant 0 : index
  %x = tile.alloc : memref<64x96xf32, #tile.space<sbuf>>
  %m = tile.alloc : memref<64x96xf32, #tile.space<sbuf>>
  %t = tile.view %x[%c0] {pattern = array<i64: 1, 8, 8, 12>} : memref<64x96xf32, #tile.space<sbuf>> to memref<64x96xf32, #tile.space<sbuf>>
  // expected-error@+1 {{'tile.reduce' op groups of 1 elements are not the innermost dimensions of src's access pattern}}
  tile.reduce add %t, %m : memref<64x96xf32, #tile.space<sbuf>>, memref<64x96xf32, #tile.space<sbuf>>
  return
}

// -----

func.func @reduce_groups_not_innermost() {
  %c0 = arith.constant 0 : index
  %x = tile.alloc : memref<64x96xf32, #tile.space<sbuf>>
  %m = tile.alloc : memref<64x12xf32, #tile.space<sbuf>>
  %t = tile.view %x[%c0] {pattern = array<i64: 1, 8, 8, 12>} : memref<64x96xf32, #tile.space<sbuf>> to memref<64x96xf32, #tile.space<sbuf>>
  // expected-error@+1 {{'tile.reduce' op groups of 8 elements are not the innermost dimensions of src's access pattern}}
  tile.reduce add %t, %m : memref<64x96xf32, #tile.space<sbuf>>, memref<64x12xf32, #tile.space<sbuf>>
  return
}

// -----

func.func @copy_between_patterns_of_other_counts() {
  %c0 = arith.constant 0 : index
  %x = tile.alloc : memref<64x96xf32, #tile.space<sbuf>>
  %y = tile.alloc : memref<64x96xf32, #tile.space<sbuf>>
  %p = tile.view %x[%c0] {pattern = array<i64: 12, 8, 1, 12>} : memref<64x96xf32, #tile.space<sbuf>> to memref<64x96xf32, #tile.space<sbuf>>
  %q = tile.view %y[%c0] {pattern = array<i64: 1, 12, 12, 8>} : memref<64x96xf32, #tile.space<sbuf>> to memref<64x96xf32, #tile.space<sbuf>>
  // expected-error@+1 {{'tile.copy' op both sides are access patterns, of different counts: give them the same counts}}
  tile.copy %p, %q : memref<64x96xf32, #tile.space<sbuf>>, memref<64x96xf32, #tile.space<sbuf>>
  return
}
