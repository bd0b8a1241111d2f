// tile-allocate-memory: byte offsets per partition and rotating copies (bufs) for every tile, a stack per
// memory, PSUM in whole 2 KiB banks, peaks on the function; a clear error when a tile does not fit.
// RUN: tessera-opt %s -split-input-file -verify-diagnostics -tile-allocate-memory | FileCheck %s --check-prefixes=CHECK,FOUR
// RUN: tessera-opt %s -split-input-file -verify-diagnostics -tile-allocate-memory=loop-buffers=1 | FileCheck %s --check-prefixes=CHECK,ONE

// Tiles outside loops get one copy each, stacked in order; SBUF offsets are 4-byte aligned (6 bytes -> 8).
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @straight_line
  // CHECK-SAME: attributes {tile.psum_peak = 0 : i64, tile.sbuf_peak = 2312 : i64}
  func.func @straight_line() {
    // CHECK: tile.alloc {bufs = 1 : i64, name = "a", offset = 0 : i64} : memref<128x3xbf16
    %a = tile.alloc {name = "a"} : memref<128x3xbf16, #tile.space<sbuf>>
    // CHECK: tile.alloc {bufs = 1 : i64, name = "b", offset = 8 : i64} : memref<128x512xf32
    %b = tile.alloc {name = "b"} : memref<128x512xf32, #tile.space<sbuf>>
    // CHECK: tile.alloc {bufs = 1 : i64, name = "c", offset = 2056 : i64} : memref<64x128xbf16
    %c = tile.alloc {name = "c"} : memref<64x128xbf16, #tile.space<sbuf>>
    return
  }

  // Every function starts from an empty SBUF.
  // CHECK-LABEL: func.func @second_function
  // CHECK-SAME: tile.sbuf_peak = 1024 : i64
  func.func @second_function() {
    // CHECK: tile.alloc {bufs = 1 : i64, name = "d", offset = 0 : i64}
    %d = tile.alloc {name = "d"} : memref<128x512xbf16, #tile.space<sbuf>>
    return
  }
}

// -----

// PSUM tiles take whole banks (2 KiB on trn2), however small; SBUF and PSUM are separate stacks.
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @psum_banks
  // CHECK-SAME: attributes {tile.psum_peak = 6144 : i64, tile.sbuf_peak = 256 : i64}
  func.func @psum_banks() {
    // CHECK: tile.alloc {bufs = 1 : i64, name = "p0", offset = 0 : i64} : memref<128x64xbf16, #tile.space<psum>>
    %p0 = tile.alloc {name = "p0"} : memref<128x64xbf16, #tile.space<psum>>
    // CHECK: tile.alloc {bufs = 1 : i64, name = "s", offset = 0 : i64} : memref<128x64xf32, #tile.space<sbuf>>
    %s = tile.alloc {name = "s"} : memref<128x64xf32, #tile.space<sbuf>>
    // CHECK: tile.alloc {bufs = 1 : i64, name = "p1", offset = 2048 : i64} : memref<128x512xf32, #tile.space<psum>>
    %p1 = tile.alloc {name = "p1"} : memref<128x512xf32, #tile.space<psum>>
    // CHECK: tile.alloc {bufs = 1 : i64, name = "p2", offset = 4096 : i64} : memref<1x1xf32, #tile.space<psum>>
    %p2 = tile.alloc {name = "p2"} : memref<1x1xf32, #tile.space<psum>>
    return
  }
}

// -----

// Tiles in a loop body get 4 rotating copies (1 with loop-buffers=1). A loop's tiles are dead after it, so
// sibling loops at the top level, and tiles after them, reuse the same bytes.
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @sibling_loops
  // FOUR-SAME: attributes {tile.psum_peak = 8192 : i64, tile.sbuf_peak = 4368 : i64}
  // ONE-SAME: attributes {tile.psum_peak = 2048 : i64, tile.sbuf_peak = 1284 : i64}
  func.func @sibling_loops() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    // CHECK: tile.alloc {bufs = 1 : i64, name = "top", offset = 0 : i64}
    %top = tile.alloc {name = "top"} : memref<128x64xf32, #tile.space<sbuf>>
    scf.for %i = %c0 to %c4 step %c1 {
      // FOUR: tile.alloc {bufs = 4 : i64, name = "a", offset = 256 : i64} : memref<128x512xbf16
      // ONE: tile.alloc {bufs = 1 : i64, name = "a", offset = 256 : i64} : memref<128x512xbf16
      %a = tile.alloc {name = "a"} : memref<128x512xbf16, #tile.space<sbuf>>
      // FOUR: tile.alloc {bufs = 4 : i64, name = "a2", offset = 4352 : i64} : memref<128x2xbf16
      // ONE: tile.alloc {bufs = 1 : i64, name = "a2", offset = 1280 : i64} : memref<128x2xbf16
      %a2 = tile.alloc {name = "a2"} : memref<128x2xbf16, #tile.space<sbuf>>
      // FOUR: tile.alloc {bufs = 4 : i64, name = "acc", offset = 0 : i64} : memref<128x512xf32, #tile.space<psum>>
      // ONE: tile.alloc {bufs = 1 : i64, name = "acc", offset = 0 : i64} : memref<128x512xf32, #tile.space<psum>>
      %acc = tile.alloc {name = "acc"} : memref<128x512xf32, #tile.space<psum>>
    }
    scf.for %i = %c0 to %c4 step %c1 {
      // FOUR: tile.alloc {bufs = 4 : i64, name = "b", offset = 256 : i64} : memref<128x256xf32
      // ONE: tile.alloc {bufs = 1 : i64, name = "b", offset = 256 : i64} : memref<128x256xf32
      %b = tile.alloc {name = "b"} : memref<128x256xf32, #tile.space<sbuf>>
      // CHECK: tile.alloc {{{.*}}name = "acc2", offset = 0 : i64} : memref<128x512xf32, #tile.space<psum>>
      %acc2 = tile.alloc {name = "acc2"} : memref<128x512xf32, #tile.space<psum>>
    }
    // CHECK: tile.alloc {bufs = 1 : i64, name = "after", offset = 256 : i64}
    %after = tile.alloc {name = "after"} : memref<128x1xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// Inside a loop, nested loops do not reuse each other's bytes: iteration i+1 overlaps iteration i, and tiles
// rotating by different loop counters must not share bytes. Every tile at any depth gets the loop copies.
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @nested_loops
  // FOUR-SAME: attributes {tile.psum_peak = 16384 : i64, tile.sbuf_peak = 9216 : i64}
  // ONE-SAME: attributes {tile.psum_peak = 4096 : i64, tile.sbuf_peak = 2304 : i64}
  func.func @nested_loops() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    scf.for %i = %c0 to %c2 step %c1 {
      // FOUR: tile.alloc {bufs = 4 : i64, name = "x", offset = 0 : i64} : memref<128x128xbf16
      // ONE: tile.alloc {bufs = 1 : i64, name = "x", offset = 0 : i64} : memref<128x128xbf16
      %x = tile.alloc {name = "x"} : memref<128x128xbf16, #tile.space<sbuf>>
      // FOUR: tile.alloc {bufs = 4 : i64, name = "acc", offset = 0 : i64} : memref<128x512xf32, #tile.space<psum>>
      %acc = tile.alloc {name = "acc"} : memref<128x512xf32, #tile.space<psum>>
      scf.for %j = %c0 to %c2 step %c1 {
        // FOUR: tile.alloc {bufs = 4 : i64, name = "y", offset = 1024 : i64} : memref<128x512xbf16
        // ONE: tile.alloc {bufs = 1 : i64, name = "y", offset = 256 : i64} : memref<128x512xbf16
        %y = tile.alloc {name = "y"} : memref<128x512xbf16, #tile.space<sbuf>>
      }
      scf.for %j = %c0 to %c2 step %c1 {
        // FOUR: tile.alloc {bufs = 4 : i64, name = "z", offset = 5120 : i64} : memref<128x512xbf16
        // ONE: tile.alloc {bufs = 1 : i64, name = "z", offset = 1280 : i64} : memref<128x512xbf16
        %z = tile.alloc {name = "z"} : memref<128x512xbf16, #tile.space<sbuf>>
        // FOUR: tile.alloc {bufs = 4 : i64, name = "acc_z", offset = 8192 : i64} : memref<128x512xf32, #tile.space<psum>>
        // ONE: tile.alloc {bufs = 1 : i64, name = "acc_z", offset = 2048 : i64} : memref<128x512xf32, #tile.space<psum>>
        %acc_z = tile.alloc {name = "acc_z"} : memref<128x512xf32, #tile.space<psum>>
      }
    }
    return
  }
}

// -----

// When 4 copies of the loop's tiles do not fit, 2 are tried, then 1: 100000 bytes fit twice in trn2's
// 212984, but not four times; tiles outside loops keep one copy.
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @fallback_to_two
  // FOUR-SAME: tile.sbuf_peak = 200512 : i64
  // ONE-SAME: tile.sbuf_peak = 100512 : i64
  func.func @fallback_to_two() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    // CHECK: tile.alloc {bufs = 1 : i64, name = "top", offset = 0 : i64}
    %top = tile.alloc {name = "top"} : memref<128x128xf32, #tile.space<sbuf>>
    scf.for %i = %c0 to %c8 step %c1 {
      // FOUR: tile.alloc {bufs = 2 : i64, name = "big", offset = 512 : i64}
      // ONE: tile.alloc {bufs = 1 : i64, name = "big", offset = 512 : i64}
      %big = tile.alloc {name = "big"} : memref<128x25000xf32, #tile.space<sbuf>>
    }
    return
  }
}

// -----

// 120000 bytes fit only once.
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @fallback_to_one
  // CHECK-SAME: tile.sbuf_peak = 120000 : i64
  func.func @fallback_to_one() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    scf.for %i = %c0 to %c8 step %c1 {
      // CHECK: tile.alloc {bufs = 1 : i64, name = "big", offset = 0 : i64}
      %big = tile.alloc {name = "big"} : memref<128x30000xf32, #tile.space<sbuf>>
    }
    return
  }
}

// -----

// PSUM has 8 banks: three accumulators in a loop need 12 banks with 4 copies, so they get 2 copies each.
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @psum_fallback
  // FOUR-SAME: tile.psum_peak = 12288 : i64
  // ONE-SAME: tile.psum_peak = 6144 : i64
  func.func @psum_fallback() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    scf.for %i = %c0 to %c8 step %c1 {
      // FOUR: tile.alloc {bufs = 2 : i64, name = "p0", offset = 0 : i64}
      // FOUR: tile.alloc {bufs = 2 : i64, name = "p1", offset = 4096 : i64}
      // FOUR: tile.alloc {bufs = 2 : i64, name = "p2", offset = 8192 : i64}
      // ONE: tile.alloc {bufs = 1 : i64, name = "p2", offset = 4096 : i64}
      %p0 = tile.alloc {name = "p0"} : memref<128x512xf32, #tile.space<psum>>
      %p1 = tile.alloc {name = "p1"} : memref<128x256xf32, #tile.space<psum>>
      %p2 = tile.alloc {name = "p2"} : memref<128x128xbf16, #tile.space<psum>>
    }
    return
  }
}

// -----

// A tile that does not fit next to the others: the error names it, its size and the space left.
module attributes {tessera.target = "trn2"} {
  func.func @sbuf_full() {
    %first = tile.alloc {name = "first"} : memref<128x40000xf32, #tile.space<sbuf>>
    // expected-error@+2 {{tile 'second' [128, 20000] f32 needs 80000 bytes per partition of SBUF but only 52984 of 212984 are free here on trn2}}
    // expected-note@+1 {{hint: SBUF on trn2 has 212984 bytes per partition for one kernel's tiles: use smaller tiles, fewer tiles live at once (a tile made in a loop body ends with it), or fewer rotating copies of loop tiles (--loop-buffers)}}
    %second = tile.alloc {name = "second"} : memref<128x20000xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// In a loop the error comes from the last attempt, with one copy: 180224 - 160000 = 20224 bytes are left on
// trn1, and the loop's tile needs 20400.
module attributes {tessera.target = "trn1"} {
  func.func @loop_tile_too_big() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %w = tile.alloc {name = "weights"} : memref<128x40000xf32, #tile.space<sbuf>>
    scf.for %i = %c0 to %c2 step %c1 {
      // expected-error@+2 {{tile 'x' [128, 5100] f32 needs 20400 bytes per partition of SBUF but only 20224 of 180224 are free here on trn1}}
      // expected-note@+1 {{hint: SBUF on trn1 has 180224 bytes per partition}}
      %x = tile.alloc {name = "x"} : memref<128x5100xf32, #tile.space<sbuf>>
    }
    return
  }
}

// -----

// Four banks kept at the top level, four more in the loop (one copy each after the fallback): the fifth
// tile of the loop finds no bank left.
module attributes {tessera.target = "trn2"} {
  func.func @psum_full() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %k0 = tile.alloc {name = "k0"} : memref<128x512xf32, #tile.space<psum>>
    %k1 = tile.alloc {name = "k1"} : memref<128x512xf32, #tile.space<psum>>
    %k2 = tile.alloc {name = "k2"} : memref<128x512xf32, #tile.space<psum>>
    %k3 = tile.alloc {name = "k3"} : memref<128x512xf32, #tile.space<psum>>
    scf.for %i = %c0 to %c2 step %c1 {
      %a = tile.alloc {name = "a"} : memref<128x512xf32, #tile.space<psum>>
      %b = tile.alloc {name = "b"} : memref<128x512xf32, #tile.space<psum>>
      %c = tile.alloc {name = "c"} : memref<128x512xf32, #tile.space<psum>>
      %d = tile.alloc {name = "d"} : memref<128x512xf32, #tile.space<psum>>
      // The error lists what holds PSUM there, most bytes first (all 2 KiB here), six of them by name and line.
      // expected-error@+2 {{tile 'e' [128, 512] f32 needs 1 bank (2048 bytes per partition) of PSUM but all 8 banks are taken here on trn2. Live in PSUM here (8 tiles): 'k0' [128, 512] f32 at}}
      // expected-note@+1 {{hint: PSUM on trn2 has 8 banks of 2 KiB per partition, and each PSUM tile takes whole banks: keep fewer PSUM tiles live at once (reuse one accumulator, acc += ..., across a loop rather than one per step; copy a finished result to SBUF inside the loop that made it, so that its PSUM tile ends with the loop body), use smaller PSUM tiles, or fewer rotating copies of loop tiles (--loop-buffers)}}
      %e = tile.alloc {name = "e"} : memref<128x512xf32, #tile.space<psum>>
    }
    return
  }
}

// -----

// expected-error@+1 {{the module names no target}}
module {
  func.func @no_target() {
    %0 = tile.alloc : memref<128x4xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// A tile the kernel placed itself (tsr::isa::sbuf_tile_at) keeps its offset, even past the end of SBUF (the
// simulator checks accesses), and takes no room: the next tile still starts at 0.
// CHECK-LABEL: func.func @fixed
// CHECK-SAME: tile.sbuf_peak = 2048 : i64
// CHECK: tile.alloc {bufs = 1 : i64, fixed, name = "scratch", offset = 221184 : i64}
// CHECK: tile.alloc {bufs = 1 : i64, name = "t", offset = 0 : i64}
module attributes {tessera.target = "trn2"} {
  func.func @fixed() {
    %s = tile.alloc {name = "scratch", offset = 221184 : i64, bufs = 1 : i64, fixed} : memref<128x512xf32, #tile.space<sbuf>>
    %t = tile.alloc {name = "t"} : memref<128x512xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// Copies are halved in the memory that runs out: three PSUM banks per iteration cannot have four copies each (8
// banks), so PSUM tiles get two, while the SBUF tile keeps four.
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @psum_short
  // FOUR: tile.alloc {bufs = 2 : i64, name = "p0", offset = 0 : i64}
  // FOUR: tile.alloc {bufs = 2 : i64, name = "p1", offset = 4096 : i64}
  // FOUR: tile.alloc {bufs = 2 : i64, name = "p2", offset = 8192 : i64}
  // FOUR: tile.alloc {bufs = 4 : i64, name = "s", offset = 0 : i64}
  // ONE: tile.alloc {bufs = 1 : i64, name = "p0", offset = 0 : i64}
  // ONE: tile.alloc {bufs = 1 : i64, name = "p2", offset = 4096 : i64}
  // ONE: tile.alloc {bufs = 1 : i64, name = "s", offset = 0 : i64}
  func.func @psum_short() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    scf.for %i = %c0 to %c4 step %c1 {
      %p0 = tile.alloc {name = "p0"} : memref<128x512xf32, #tile.space<psum>>
      %p1 = tile.alloc {name = "p1"} : memref<128x512xf32, #tile.space<psum>>
      %p2 = tile.alloc {name = "p2"} : memref<128x512xf32, #tile.space<psum>>
      %s = tile.alloc {name = "s"} : memref<128x512xf32, #tile.space<sbuf>>
    }
    return
  }
}
