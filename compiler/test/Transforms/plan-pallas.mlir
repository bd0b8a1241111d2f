// tpu-plan-pallas: how a placed TPU kernel becomes a Pallas kernel with its loops kept (lib/Targets/Tpu/PlanPallas.cpp).
// RUN: tessera-opt %s -split-input-file -tpu-plan-pallas | FileCheck %s
// RUN: tessera-opt %s -split-input-file -tpu-plan-pallas=grid=false | FileCheck %s --check-prefix=ONE

// matmul: the column loop (moves B's tiles) and the row loop inside it are the grid, both parallel. b's two row
// windows move with the column loop by 512 columns: one (256, 512) block; a_t's with the row loop: (256, 128); c's
// store, one (128, 512) block per step. The loaded tiles are their blocks, the accumulator a value, and the bf16
// result is computed in c's block.
// CHECK-DAG: #[[B:map[0-9]*]] = affine_map<(d0, d1) -> (0, d0)>
// CHECK-DAG: #[[A:map[0-9]*]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-DAG: #[[C:map[0-9]*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: plan.blocks = [{index = #[[B]], shape = array<i64: 256, 512>, tensor = 1 : i64},
// CHECK-SAME: {index = #[[A]], shape = array<i64: 256, 128>, tensor = 0 : i64},
// CHECK-SAME: {index = #[[C]], output, shape = array<i64: 128, 512>, tensor = 2 : i64}]
// CHECK: name = "b0", {{.*}}plan.storage = "block"
// CHECK: tile.load %arg1{{.*}}{plan.block = 0 : i64}
// CHECK: name = "acc", {{.*}}plan.storage = "value"
// CHECK: name = "a0", {{.*}}plan.storage = "block"
// CHECK: tile.load %arg0{{.*}}{plan.block = 1 : i64}
// CHECK: name = "out", {{.*}}plan.storage = "block"
// CHECK: tile.store {{.*}}{plan.block = 2 : i64}
// CHECK: } {plan.grid_dim = 1 : i64, plan.loop = "grid", plan.parallel}
// CHECK: } {plan.grid_dim = 0 : i64, plan.loop = "grid", plan.parallel}
// Without a grid: two pl.loops; a_t's tiles, which the row loop's body allocates with two copies, are prefetched an
// iteration ahead; b's, allocated by the column loop's body, too; every tile that a copy fills is scratch.
// ONE-LABEL: func.func @matmul
// ONE-NOT: plan.blocks
// ONE: name = "b0", {{.*}}plan.storage = "scratch"
// ONE: tile.load %arg1{{.*}}{plan.prefetch}
// ONE: name = "acc", {{.*}}plan.storage = "value"
// ONE: tile.load %arg0{{.*}}{plan.prefetch}
// ONE: name = "out", {{.*}}plan.storage = "scratch"
// ONE-NOT: plan.block =
// ONE: } {plan.loop = "loop"}
// ONE: } {plan.loop = "loop"}
module attributes {tessera.target = "tpu-v5e"} {
  func.func @matmul(%arg0: memref<256x256xbf16> {tile.name = "a_t"}, %arg1: memref<256x1024xbf16> {tile.name = "b"}, %arg2: memref<256x1024xbf16> {tile.name = "c", tile.output}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c128 = arith.constant 128 : index
    %c512 = arith.constant 512 : index
    scf.for %n = %c0 to %c2 step %c1 {
      %b0 = tile.alloc {bufs = 2 : i64, name = "b0", offset = 0 : i64} : memref<128x512xbf16, #tile.space<sbuf>>
      %col = arith.muli %n, %c512 : index
      tile.load %arg1[%c0, %col], %b0 : memref<256x1024xbf16>, memref<128x512xbf16, #tile.space<sbuf>>
      %b1 = tile.alloc {bufs = 2 : i64, name = "b1", offset = 262144 : i64} : memref<128x512xbf16, #tile.space<sbuf>>
      tile.load %arg1[%c128, %col], %b1 : memref<256x1024xbf16>, memref<128x512xbf16, #tile.space<sbuf>>
      scf.for %m = %c0 to %c2 step %c1 {
        %acc = tile.alloc {bufs = 2 : i64, name = "acc", offset = 524288 : i64} : memref<128x512xf32, #tile.space<psum>>
        tile.memset %acc, 0.000000e+00 : memref<128x512xf32, #tile.space<psum>>
        %a0 = tile.alloc {bufs = 2 : i64, name = "a0", offset = 1048576 : i64} : memref<128x128xbf16, #tile.space<sbuf>>
        %row = arith.muli %m, %c128 : index
        tile.load %arg0[%c0, %row], %a0 : memref<256x256xbf16>, memref<128x128xbf16, #tile.space<sbuf>>
        tile.matmul %a0, %b0, %acc {accumulate} : memref<128x128xbf16, #tile.space<sbuf>>, memref<128x512xbf16, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<psum>>
        %a1 = tile.alloc {bufs = 2 : i64, name = "a1", offset = 1114112 : i64} : memref<128x128xbf16, #tile.space<sbuf>>
        tile.load %arg0[%c128, %row], %a1 : memref<256x256xbf16>, memref<128x128xbf16, #tile.space<sbuf>>
        tile.matmul %a1, %b1, %acc {accumulate} : memref<128x128xbf16, #tile.space<sbuf>>, memref<128x512xbf16, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<psum>>
        %out = tile.alloc {bufs = 2 : i64, name = "out", offset = 1179648 : i64} : memref<128x512xbf16, #tile.space<sbuf>>
        tile.copy %acc, %out : memref<128x512xf32, #tile.space<psum>>, memref<128x512xbf16, #tile.space<sbuf>>
        tile.store %out, %arg2[%row, %col] : memref<128x512xbf16, #tile.space<sbuf>>, memref<256x1024xbf16>
      }
    }
    return
  }
}

// -----

// A reduction: the accumulator, made before the loops, is zeroed at the first step of the k loop (pl.when) and
// written back by a loop at its last. The k loop is the grid's last dimension, and not parallel: the accumulator
// carries from one of its steps to the next. The write-back loop stores 128-row windows at a moving offset: its
// offsets are multiples of 128, so it is a pl.loop; the output's block is the whole (512, 512) column of blocks.
// CHECK-DAG: #[[A:map[0-9]*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[B:map[0-9]*]] = affine_map<(d0, d1) -> (d1, 0)>
// CHECK-DAG: #[[C:map[0-9]*]] = affine_map<(d0, d1) -> (0, d0)>
// CHECK-LABEL: func.func @reduction
// CHECK-SAME: {index = #[[A]], shape = array<i64: 128, 128>, tensor = 0 : i64}
// CHECK-SAME: {index = #[[B]], shape = array<i64: 128, 512>, tensor = 1 : i64}
// CHECK-SAME: {index = #[[C]], output, shape = array<i64: 512, 128>, tensor = 2 : i64}
// CHECK: name = "acc", {{.*}}plan.storage = "scratch"
// CHECK: } {plan.grid_dim = 1 : i64, plan.loop = "grid"}
// CHECK: } {plan.loop = "loop"}
// CHECK: } {plan.grid_dim = 0 : i64, plan.loop = "grid", plan.parallel}
module attributes {tessera.target = "tpu-v5e"} {
  func.func @reduction(%arg0: memref<512x512xbf16> {tile.name = "a_t"}, %arg1: memref<512x512xbf16> {tile.name = "b"}, %arg2: memref<512x512xf32> {tile.name = "c", tile.output}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c128 = arith.constant 128 : index
    %acc = tile.alloc {bufs = 1 : i64, name = "acc", offset = 0 : i64} : memref<128x512xf32, #tile.space<psum>>
    scf.for %m = %c0 to %c4 step %c1 {
      tile.memset %acc, 0.000000e+00 : memref<128x512xf32, #tile.space<psum>>
      scf.for %k = %c0 to %c4 step %c1 {
        %a = tile.alloc {bufs = 2 : i64, name = "a", offset = 262144 : i64} : memref<128x128xbf16, #tile.space<sbuf>>
        %kr = arith.muli %k, %c128 : index
        %mc = arith.muli %m, %c128 : index
        tile.load %arg0[%kr, %mc], %a : memref<512x512xbf16>, memref<128x128xbf16, #tile.space<sbuf>>
        %b = tile.alloc {bufs = 2 : i64, name = "b", offset = 294912 : i64} : memref<128x512xbf16, #tile.space<sbuf>>
        tile.load %arg1[%kr, %c0], %b : memref<512x512xbf16>, memref<128x512xbf16, #tile.space<sbuf>>
        tile.matmul %a, %b, %acc {accumulate} : memref<128x128xbf16, #tile.space<sbuf>>, memref<128x512xbf16, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<psum>>
      }
      scf.for %i = %c0 to %c4 step %c1 {
        %off = arith.muli %i, %c128 : index
        %part = tile.view %acc[%off] : memref<128x512xf32, #tile.space<psum>> to memref<128x128xf32, #tile.space<psum>>
        %mc = arith.muli %m, %c128 : index
        tile.store %part, %arg2[%off, %mc] : memref<128x128xf32, #tile.space<psum>>, memref<512x512xf32>
      }
    }
    return
  }
}

// -----

// A loop whose index moves a view by one column (an offset Mosaic cannot prove aligned) is unrolled; one whose
// index moves it by 128 columns is a pl.loop. Neither moves tiles, so the step is the one grid loop's body. The
// tile, loaded from a block but written again, is scratch (the load a copy out of its block).
// CHECK-LABEL: func.func @offsets
// CHECK: name = "t", {{.*}}plan.storage = "scratch"
// CHECK: tile.load %arg0{{.*}}{plan.block = 0 : i64}
// CHECK: } {plan.loop = "unrolled"}
// CHECK: } {plan.loop = "loop"}
// CHECK: } {plan.grid_dim = 0 : i64, plan.loop = "grid", plan.parallel}
module attributes {tessera.target = "tpu-v5e"} {
  func.func @offsets(%arg0: memref<256x512xf32> {tile.name = "x"}, %arg1: memref<256x512xf32> {tile.name = "y", tile.output}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    scf.for %r = %c0 to %c2 step %c1 {
      %t = tile.alloc {bufs = 2 : i64, name = "t", offset = 0 : i64} : memref<128x512xf32, #tile.space<sbuf>>
      %row = arith.muli %r, %c128 : index
      tile.load %arg0[%row, %c0], %t : memref<256x512xf32>, memref<128x512xf32, #tile.space<sbuf>>
      scf.for %j = %c0 to %c8 step %c1 {
        %col = tile.view %t[%j] : memref<128x512xf32, #tile.space<sbuf>> to memref<128x1xf32, #tile.space<sbuf>>
        tile.memset %col, 1.000000e+00 : memref<128x1xf32, #tile.space<sbuf>>
      }
      scf.for %j = %c0 to %c4 step %c1 {
        %off = arith.muli %j, %c128 : index
        %quarter = tile.view %t[%off] : memref<128x512xf32, #tile.space<sbuf>> to memref<128x128xf32, #tile.space<sbuf>>
        tile.binary add %quarter, %quarter, %quarter : memref<128x128xf32, #tile.space<sbuf>>, memref<128x128xf32, #tile.space<sbuf>>, memref<128x128xf32, #tile.space<sbuf>>
      }
      tile.store %t, %arg1[%row, %c0] : memref<128x512xf32, #tile.space<sbuf>>, memref<256x512xf32>
    }
    return
  }
}

// -----

// A read-modify-write of an output (tile-legalize-for-tpu's aligned hull of an unaligned store) reads the output:
// the output stays in HBM, every copy of it by hand. A preamble (a fill before the loops, read by every step)
// makes every grid dimension arbitrary.
// CHECK: #[[X:map[0-9]*]] = affine_map<(d0) -> (d0, 0)>
// CHECK-LABEL: func.func @rmw
// CHECK-SAME: plan.blocks = [{index = #[[X]], shape = array<i64: 128, 256>, tensor = 0 : i64}]
// CHECK: name = "ones", {{.*}}plan.storage = "scratch"
// CHECK: tile.load %arg1{{.*}}tile.preserve
// CHECK-NOT: plan.block =
// CHECK: } {plan.grid_dim = 0 : i64, plan.loop = "grid"}
module attributes {tessera.target = "tpu-v5e"} {
  func.func @rmw(%arg0: memref<256x256xf32> {tile.name = "x"}, %arg1: memref<256x256xf32> {tile.name = "y", tile.output}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c128 = arith.constant 128 : index
    %ones = tile.alloc {bufs = 1 : i64, name = "ones", offset = 0 : i64} : memref<128x256xf32, #tile.space<sbuf>>
    tile.memset %ones, 1.000000e+00 : memref<128x256xf32, #tile.space<sbuf>>
    scf.for %r = %c0 to %c2 step %c1 {
      %row = arith.muli %r, %c128 : index
      %x = tile.alloc {bufs = 2 : i64, name = "x", offset = 131072 : i64} : memref<128x256xf32, #tile.space<sbuf>>
      tile.load %arg0[%row, %c0], %x : memref<256x256xf32>, memref<128x256xf32, #tile.space<sbuf>>
      %hull = tile.alloc {bufs = 2 : i64, name = "hull", offset = 393216 : i64} : memref<128x256xf32, #tile.space<sbuf>>
      tile.load %arg1[%row, %c0], %hull {tile.preserve} : memref<256x256xf32>, memref<128x256xf32, #tile.space<sbuf>>
      tile.binary add %x, %ones, %hull : memref<128x256xf32, #tile.space<sbuf>>, memref<128x256xf32, #tile.space<sbuf>>, memref<128x256xf32, #tile.space<sbuf>>
      tile.store %hull, %arg1[%row, %c0] : memref<128x256xf32, #tile.space<sbuf>>, memref<256x256xf32>
    }
    return
  }
}

// -----

// An access pattern's relayout has static indices: a loop that moves the pattern's offset by 128 columns (aligned,
// but less than its largest step, 256: it moves an index inside the relayout's box) is unrolled; one that moves it
// by 512 (whole boxes: the window) is a pl.loop.
// CHECK-LABEL: func.func @pattern_offsets
// CHECK: } {plan.loop = "unrolled"}
// CHECK: } {plan.loop = "loop"}
module attributes {tessera.target = "tpu-v5e"} {
  func.func @pattern_offsets(%arg0: memref<128x1024xf32> {tile.name = "x"}, %arg1: memref<128x256xf32> {tile.name = "y", tile.output}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c128 = arith.constant 128 : index
    %c512 = arith.constant 512 : index
    %t = tile.alloc {name = "t", offset = 0 : i64} : memref<128x1024xf32, #tile.space<sbuf>>
    %u = tile.alloc {name = "u", offset = 524288 : i64} : memref<128x256xf32, #tile.space<sbuf>>
    tile.load %arg0[%c0, %c0], %t : memref<128x1024xf32>, memref<128x1024xf32, #tile.space<sbuf>>
    scf.for %j = %c0 to %c2 step %c1 {
      %off = arith.muli %j, %c128 : index
      %p = tile.view %t[%off] {pattern = array<i64: 256, 2, 1, 128>} : memref<128x1024xf32, #tile.space<sbuf>> to memref<128x256xf32, #tile.space<sbuf>>
      tile.copy %p, %u : memref<128x256xf32, #tile.space<sbuf>>, memref<128x256xf32, #tile.space<sbuf>>
    }
    scf.for %j = %c0 to %c2 step %c1 {
      %off = arith.muli %j, %c512 : index
      %p = tile.view %t[%off] {pattern = array<i64: 256, 2, 1, 128>} : memref<128x1024xf32, #tile.space<sbuf>> to memref<128x256xf32, #tile.space<sbuf>>
      tile.copy %p, %u : memref<128x256xf32, #tile.space<sbuf>>, memref<128x256xf32, #tile.space<sbuf>>
    }
    tile.store %u, %arg1[%c0, %c0] : memref<128x256xf32, #tile.space<sbuf>>, memref<128x256xf32>
    return
  }
}
