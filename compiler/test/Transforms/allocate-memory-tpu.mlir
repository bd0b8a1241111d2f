// tile-allocate-memory on a TPU: every tile, SBUF or PSUM in the tile dialect, in one VMEM stack (128 MiB on
// tpu-v5e), rows padded to the dtype's sublane tiling (8 rows of 32-bit, 16 of 16-bit, 32 of 8-bit elements), the
// row pitch to 128 lanes, each copy on a 4 KiB boundary; loop-local tiles double-buffered (never more copies than
// loop-buffers); a remark for every padded tile; the peak on the function; an error naming a tile that does not fit,
// within what libtpu lets one kernel have ([libtpu] kernel_vmem_max_bytes).
// RUN: tessera-opt %s -split-input-file -verify-diagnostics -tile-allocate-memory | FileCheck %s --check-prefixes=CHECK,TWO
// RUN: tessera-opt %s -split-input-file -verify-diagnostics -tile-allocate-memory=loop-buffers=1 | FileCheck %s --check-prefixes=CHECK,ONE

// Outside loops one copy each, stacked in order; SBUF and PSUM tiles share the stack.
module attributes {tessera.target = "tpu-v5e"} {
  // CHECK-LABEL: func.func @layout
  // CHECK-SAME: attributes {tile.vmem_peak = 565248 : i64}
  func.func @layout() {
    // Aligned: [128, 512] f32 is 256 KiB.
    // CHECK: tile.alloc {bufs = 1 : i64, name = "acc", offset = 0 : i64} : memref<128x512xf32, #tile.space<psum>>
    %acc = tile.alloc {name = "acc"} : memref<128x512xf32, #tile.space<psum>>
    // [100, 300] bf16 lies as [112, 384]: 86016 bytes, 21 tiles of 4 KiB.
    // CHECK: tile.alloc {bufs = 1 : i64, name = "x", offset = 262144 : i64} : memref<100x300xbf16
    // expected-remark@+1 {{tile 'x' [100, 300] bf16 is padded to [112, 384] in VMEM (Mosaic's (16, 128) tiling)}}
    %x = tile.alloc {name = "x"} : memref<100x300xbf16, #tile.space<sbuf>>
    // One value per row still takes a whole row of lanes: [128, 1] f32 is [128, 128], 64 KiB.
    // CHECK: tile.alloc {bufs = 1 : i64, name = "m", offset = 348160 : i64} : memref<128x1xf32
    // expected-remark@+1 {{tile 'm' [128, 1] f32 is padded to [128, 128] in VMEM (Mosaic's (8, 128) tiling)}}
    %m = tile.alloc {name = "m"} : memref<128x1xf32, #tile.space<sbuf>>
    // 8-bit rows come in 32s: [8, 256] is [32, 256], 8 KiB. An unnamed tile is just "tile".
    // CHECK: tile.alloc {bufs = 1 : i64, offset = 413696 : i64} : memref<8x256xf8E4M3FN
    // expected-remark@+1 {{tile [8, 256] f8e4m3 is padded to [32, 256] in VMEM (Mosaic's (32, 128) tiling)}}
    %q = tile.alloc : memref<8x256xf8E4M3FN, #tile.space<sbuf>>
    // A tiny tile takes a whole 4 KiB tile: [8, 128] f32.
    // CHECK: tile.alloc {bufs = 1 : i64, name = "t", offset = 421888 : i64} : memref<8x128xf32
    %t = tile.alloc {name = "t"} : memref<8x128xf32, #tile.space<sbuf>>
    // [16, 128] bf16 is one 4 KiB tile, but the next tile still starts 4 KiB on.
    // CHECK: tile.alloc {bufs = 1 : i64, name = "h", offset = 425984 : i64} : memref<16x128xbf16
    %h = tile.alloc {name = "h"} : memref<16x128xbf16, #tile.space<sbuf>>
    // CHECK: tile.alloc {bufs = 1 : i64, name = "last", offset = 430080 : i64} : memref<264x128xf32
    %last = tile.alloc {name = "last"} : memref<264x128xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// Tiles in a loop body get 2 rotating copies (Pallas' double buffering; 1 with loop-buffers=1), however many
// loop-buffers allows. A loop's tiles are dead after it, so sibling loops, and tiles after them, reuse the bytes.
module attributes {tessera.target = "tpu-v5e"} {
  // CHECK-LABEL: func.func @sibling_loops
  // TWO-SAME: attributes {tile.vmem_peak = 786432 : i64}
  // ONE-SAME: attributes {tile.vmem_peak = 393216 : i64}
  func.func @sibling_loops() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    scf.for %i = %c0 to %c4 step %c1 {
      // TWO: tile.alloc {bufs = 2 : i64, name = "a", offset = 0 : i64}
      // ONE: tile.alloc {bufs = 1 : i64, name = "a", offset = 0 : i64}
      %a = tile.alloc {name = "a"} : memref<128x512xf32, #tile.space<sbuf>>
      // TWO: tile.alloc {bufs = 2 : i64, name = "b", offset = 524288 : i64}
      // ONE: tile.alloc {bufs = 1 : i64, name = "b", offset = 262144 : i64}
      %b = tile.alloc {name = "b"} : memref<128x512xbf16, #tile.space<psum>>
    }
    scf.for %j = %c0 to %c4 step %c1 {
      // TWO: tile.alloc {bufs = 2 : i64, name = "c", offset = 0 : i64}
      // ONE: tile.alloc {bufs = 1 : i64, name = "c", offset = 0 : i64}
      %c = tile.alloc {name = "c"} : memref<128x128xf32, #tile.space<sbuf>>
    }
    // CHECK: tile.alloc {bufs = 1 : i64, name = "d", offset = 0 : i64}
    %d = tile.alloc {name = "d"} : memref<128x128xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// When two copies of the loop's tiles do not fit in VMEM, one copy each does: 2 x 48 MiB + 2 x 32 MiB does not fit
// in 128 MiB, 48 + 32 does.
module attributes {tessera.target = "tpu-v5e"} {
  // CHECK-LABEL: func.func @fewer_copies
  // CHECK-SAME: attributes {tile.vmem_peak = 83886080 : i64}
  func.func @fewer_copies() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    scf.for %i = %c0 to %c4 step %c1 {
      // CHECK: tile.alloc {bufs = 1 : i64, name = "big", offset = 0 : i64}
      %big = tile.alloc {name = "big"} : memref<3072x4096xf32, #tile.space<sbuf>>
      // CHECK: tile.alloc {bufs = 1 : i64, name = "other", offset = 50331648 : i64}
      %other = tile.alloc {name = "other"} : memref<2048x4096xf32, #tile.space<sbuf>>
    }
    return
  }
}

// -----

// A kernel that does not fit names the tile, what it needs and what is left.
module attributes {tessera.target = "tpu-v5e"} {
  func.func @too_big() {
    %a = tile.alloc {name = "a"} : memref<4096x4096xf32, #tile.space<sbuf>>
    // 8200 bf16 rows are 8208 padded rows: 8 rows too many.
    // expected-error@+2 {{tile 'b' [8200, 4096] bf16 needs 67239936 bytes of VMEM but only 67108864 of 134217728 are free here on tpu-v5e}}
    // expected-note@+1 {{hint: VMEM on tpu-v5e has 134217728 bytes for one kernel's tiles: use smaller tiles, fewer tiles live at once (a tile made in a loop body ends with it), or fewer rotating copies of loop tiles (--loop-buffers)}}
    %b = tile.alloc {name = "b"} : memref<8200x4096xbf16, #tile.space<sbuf>>
    %c = tile.alloc {name = "c"} : memref<8x128xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// What one Pallas kernel may have is libtpu's figure, not the VMEM: on tpu-v5p 64 MiB less 64 KiB ([libtpu]
// kernel_vmem_max_bytes). A 64 MiB tile fits the VMEM and is still refused, with the reason; 64 KiB less fits.
module attributes {tessera.target = "tpu-v5p"} {
  // CHECK-LABEL: func.func @at_libtpus_limit
  // CHECK-SAME: attributes {tile.vmem_peak = 67043328 : i64}
  func.func @at_libtpus_limit() {
    %a = tile.alloc {name = "a"} : memref<8184x2048xf32, #tile.space<sbuf>>
    return
  }
}

// -----

module attributes {tessera.target = "tpu-v5p"} {
  func.func @over_libtpus_limit() {
    // expected-error@+2 {{tile 'a' [8192, 2048] f32 needs 67108864 bytes of VMEM but only 67043328 of 67043328 are free here on tpu-v5p; libtpu gives one Pallas kernel at most 67043328 of the 67108864 bytes ([libtpu] kernel_vmem_max_bytes in the target file). Nothing else is live in it here}}
    // expected-note@+1 {{hint: VMEM on tpu-v5p has 67043328 bytes for one kernel's tiles: use smaller tiles}}
    %a = tile.alloc {name = "a"} : memref<8192x2048xf32, #tile.space<sbuf>>
    return
  }
}
