// tile-allocate-memory by liveness: a tile's bytes are free after its last use (an op that reads or writes it or
// a view of it; an op whose region uses it, a loop, holds it to its end), and a later tile takes the first free
// range it fits in. In a loop body only a tile of the same body with copies as many and as large takes a dead
// tile's place; nothing else reuses a loop's bytes before the outermost loop ends.
// By default tiles are first kept to the end of their block (no bytes shared, so nothing waits for a dead tile's
// readers), and a memory by liveness only when its tiles do not fit that way (the last cases; the other memory keeps
// its allocation by scope); scope-first=false always goes by liveness.
// RUN: tessera-opt %s -split-input-file -verify-diagnostics -tile-allocate-memory=scope-first=false | FileCheck %s
// RUN: tessera-opt %s -split-input-file -verify-diagnostics -tile-allocate-memory | FileCheck %s --check-prefix=SCOPE

// Straight-line code: 'a' is dead after the copy into 'b', so 'c' takes its bytes; 'b' is still live when 'd'
// is made (the store after reads it), so 'd' goes above it, not at 2048.
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @reuse_after_last_use
  // SCOPE-LABEL: func.func @reuse_after_last_use
  // SCOPE: tile.alloc {bufs = 1 : i64, name = "c", offset = 4096 : i64}
  // CHECK-SAME: tile.sbuf_peak = 6144 : i64
  func.func @reuse_after_last_use(%x: memref<128x512xf32>, %y: memref<128x512xf32> {tile.output}) {
    %c0 = arith.constant 0 : index
    // CHECK: tile.alloc {bufs = 1 : i64, name = "a", offset = 0 : i64}
    %a = tile.alloc {name = "a"} : memref<128x512xf32, #tile.space<sbuf>>
    tile.load %x[%c0, %c0], %a : memref<128x512xf32>, memref<128x512xf32, #tile.space<sbuf>>
    // CHECK: tile.alloc {bufs = 1 : i64, name = "b", offset = 2048 : i64}
    %b = tile.alloc {name = "b"} : memref<128x512xf32, #tile.space<sbuf>>
    tile.copy %a, %b : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
    // CHECK: tile.alloc {bufs = 1 : i64, name = "c", offset = 0 : i64}
    %c = tile.alloc {name = "c"} : memref<128x512xf32, #tile.space<sbuf>>
    tile.load %x[%c0, %c0], %c : memref<128x512xf32>, memref<128x512xf32, #tile.space<sbuf>>
    // CHECK: tile.alloc {bufs = 1 : i64, name = "d", offset = 4096 : i64}
    %d = tile.alloc {name = "d"} : memref<128x512xf32, #tile.space<sbuf>>
    tile.binary add %b, %c, %d : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
    tile.store %d, %y[%c0, %c0] : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32>
    return
  }
}

// -----

// A view's uses are its source's: 'a' is read through a view after 'b' is made, so 'b' may not take its bytes;
// 'w', made after that read, may. A tile read inside a loop is live for the whole loop: 'w' is read by the
// loop, so the loop's tile 't' goes above it (in the bytes of 'b', dead after its only write), and 'after'
// takes the bytes of both.
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @views_and_loops
  // CHECK-SAME: tile.sbuf_peak = 10240 : i64
  func.func @views_and_loops(%x: memref<128x512xf32>, %y: memref<128x512xf32> {tile.output}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    // CHECK: tile.alloc {bufs = 1 : i64, name = "a", offset = 0 : i64}
    %a = tile.alloc {name = "a"} : memref<128x512xf32, #tile.space<sbuf>>
    tile.load %x[%c0, %c0], %a : memref<128x512xf32>, memref<128x512xf32, #tile.space<sbuf>>
    %half = tile.view %a[%c0] : memref<128x512xf32, #tile.space<sbuf>> to memref<128x256xf32, #tile.space<sbuf>>
    // CHECK: tile.alloc {bufs = 1 : i64, name = "b", offset = 2048 : i64}
    %b = tile.alloc {name = "b"} : memref<128x256xf32, #tile.space<sbuf>>
    tile.copy %half, %b : memref<128x256xf32, #tile.space<sbuf>>, memref<128x256xf32, #tile.space<sbuf>>
    // CHECK: tile.alloc {bufs = 1 : i64, name = "w", offset = 0 : i64}
    %w = tile.alloc {name = "w"} : memref<128x512xf32, #tile.space<sbuf>>
    tile.memset %w, 1.0 : memref<128x512xf32, #tile.space<sbuf>>
    scf.for %i = %c0 to %c2 step %c1 {
      // CHECK: tile.alloc {bufs = 4 : i64, name = "t", offset = 2048 : i64}
      %t = tile.alloc {name = "t"} : memref<128x512xf32, #tile.space<sbuf>>
      tile.binary add %w, %w, %t : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
      tile.store %t, %y[%c0, %c0] : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32>
    }
    // CHECK: tile.alloc {bufs = 1 : i64, name = "after", offset = 0 : i64}
    %after = tile.alloc {name = "after"} : memref<128x512xf32, #tile.space<sbuf>>
    tile.load %x[%c0, %c0], %after : memref<128x512xf32>, memref<128x512xf32, #tile.space<sbuf>>
    tile.store %after, %y[%c0, %c0] : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32>
    return
  }
}

// -----

// In a loop body iteration i+1 overlaps iteration i: 'z' takes the place of 'x' (dead at the copy), copy k for
// copy k, since both are the same size and rotate with the same iterations. 'small' is smaller, so its copies
// would land on other iterations' copies of 'x': new bytes. The inner loop's 'inner' rotates with another
// counter: it never takes the place of the dead 'y', though it has its size.
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @loop_body
  // CHECK-SAME: tile.sbuf_peak = 24592 : i64
  func.func @loop_body(%x: memref<128x512xf32>, %y: memref<128x512xf32> {tile.output}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    scf.for %i = %c0 to %c2 step %c1 {
      // CHECK: tile.alloc {bufs = 4 : i64, name = "x", offset = 0 : i64}
      %tx = tile.alloc {name = "x"} : memref<128x512xf32, #tile.space<sbuf>>
      tile.load %x[%c0, %c0], %tx : memref<128x512xf32>, memref<128x512xf32, #tile.space<sbuf>>
      // CHECK: tile.alloc {bufs = 4 : i64, name = "y", offset = 8192 : i64}
      %ty = tile.alloc {name = "y"} : memref<128x512xf32, #tile.space<sbuf>>
      tile.copy %tx, %ty : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
      // CHECK: tile.alloc {bufs = 4 : i64, name = "z", offset = 0 : i64}
      %tz = tile.alloc {name = "z"} : memref<128x512xf32, #tile.space<sbuf>>
      tile.copy %ty, %tz : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
      // CHECK: tile.alloc {bufs = 4 : i64, name = "small", offset = 16384 : i64}
      %small = tile.alloc {name = "small"} : memref<128x1xf32, #tile.space<sbuf>>
      tile.reduce add %tz, %small : memref<128x512xf32, #tile.space<sbuf>>, memref<128x1xf32, #tile.space<sbuf>>
      tile.store %tz, %y[%c0, %c0] : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32>
      scf.for %j = %c0 to %c2 step %c1 {
        // CHECK: tile.alloc {bufs = 4 : i64, name = "inner", offset = 16400 : i64}
        %inner = tile.alloc {name = "inner"} : memref<128x512xf32, #tile.space<sbuf>>
        tile.memset %inner, 1.0 : memref<128x512xf32, #tile.space<sbuf>>
        tile.store %inner, %y[%c0, %c0] : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32>
      }
    }
    return
  }
}

// -----

// PSUM banks are freed after the last use too: 'p1' takes the bank of 'p0', dead after its copy to SBUF.
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @psum_banks
  // CHECK-SAME: tile.psum_peak = 2048 : i64
  func.func @psum_banks(%y: memref<128x512xf32> {tile.output}) {
    %c0 = arith.constant 0 : index
    // CHECK: tile.alloc {bufs = 1 : i64, name = "p0", offset = 0 : i64}
    %p0 = tile.alloc {name = "p0"} : memref<128x512xf32, #tile.space<psum>>
    tile.memset %p0, 1.0 : memref<128x512xf32, #tile.space<psum>>
    %s = tile.alloc {name = "s"} : memref<128x512xf32, #tile.space<sbuf>>
    tile.copy %p0, %s : memref<128x512xf32, #tile.space<psum>>, memref<128x512xf32, #tile.space<sbuf>>
    // CHECK: tile.alloc {bufs = 1 : i64, name = "p1", offset = 0 : i64}
    %p1 = tile.alloc {name = "p1"} : memref<128x512xf32, #tile.space<psum>>
    tile.memset %p1, 2.0 : memref<128x512xf32, #tile.space<psum>>
    tile.copy %p1, %s : memref<128x512xf32, #tile.space<psum>>, memref<128x512xf32, #tile.space<sbuf>>
    tile.store %s, %y[%c0, %c0] : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32>
    return
  }
}

// -----

// Free bytes that lie apart: 'a' (unused: kept to the end of its block) and 'c' live, 'b' dead between them
// leaves 100000 bytes free there and 12980 at the end, 112980 in all; 'd' needs 104000 in one range, and the
// error says so.
module attributes {tessera.target = "trn2"} {
  func.func @scattered(%x: memref<128x25000xf32>) {
    %c0 = arith.constant 0 : index
    %a = tile.alloc {name = "a"} : memref<128x25000xf32, #tile.space<sbuf>>
    %b = tile.alloc {name = "b"} : memref<128x25000xf32, #tile.space<sbuf>>
    tile.load %x[%c0, %c0], %b : memref<128x25000xf32>, memref<128x25000xf32, #tile.space<sbuf>>
    %c = tile.alloc {name = "c"} : memref<128x1xf32, #tile.space<sbuf>>
    tile.reduce add %b, %c : memref<128x25000xf32, #tile.space<sbuf>>, memref<128x1xf32, #tile.space<sbuf>>
    // expected-error@+2 {{tile 'd' [128, 26000] f32 needs 104000 bytes per partition of SBUF but only 100000 of 212984 are free in one range (112980 in all) here on trn2. Live in SBUF here (2 tiles): 'a' [128, 25000] f32 at}}
    // expected-note@+1 {{hint: SBUF on trn2 has 212984 bytes per partition}}
    %d = tile.alloc {name = "d"} : memref<128x26000xf32, #tile.space<sbuf>>
    tile.binary add %d, %c, %d : memref<128x26000xf32, #tile.space<sbuf>>, memref<128x1xf32, #tile.space<sbuf>>, memref<128x26000xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// By default: 'a' and 'b' (104000 bytes each) fit, 'c' does not while they keep their bytes, so the function is
// allocated by liveness and 'c' takes the bytes of 'a', dead after the copy.
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @scope_short
  // SCOPE-LABEL: func.func @scope_short
  // SCOPE-SAME: tile.sbuf_peak = 208000 : i64
  // SCOPE: tile.alloc {bufs = 1 : i64, name = "a", offset = 0 : i64}
  // SCOPE: tile.alloc {bufs = 1 : i64, name = "b", offset = 104000 : i64}
  // SCOPE: tile.alloc {bufs = 1 : i64, name = "c", offset = 0 : i64}
  func.func @scope_short(%x: memref<128x26000xf32>, %y: memref<128x26000xf32> {tile.output}) {
    %c0 = arith.constant 0 : index
    %a = tile.alloc {name = "a"} : memref<128x26000xf32, #tile.space<sbuf>>
    tile.load %x[%c0, %c0], %a : memref<128x26000xf32>, memref<128x26000xf32, #tile.space<sbuf>>
    %b = tile.alloc {name = "b"} : memref<128x26000xf32, #tile.space<sbuf>>
    tile.copy %a, %b : memref<128x26000xf32, #tile.space<sbuf>>, memref<128x26000xf32, #tile.space<sbuf>>
    %c = tile.alloc {name = "c"} : memref<128x26000xf32, #tile.space<sbuf>>
    tile.binary add %b, %b, %c : memref<128x26000xf32, #tile.space<sbuf>>, memref<128x26000xf32, #tile.space<sbuf>>, memref<128x26000xf32, #tile.space<sbuf>>
    tile.store %c, %y[%c0, %c0] : memref<128x26000xf32, #tile.space<sbuf>>, memref<128x26000xf32>
    return
  }
}

// -----

// The fallback is per memory: SBUF does not fit by scope ('c', as above), so SBUF goes by liveness and 'c' takes
// the bytes of 'a'; PSUM fits by scope and keeps it, so 'q' gets a bank of its own although 'p' is dead by then
// (by liveness, the second RUN line, it takes the bank of 'p').
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @fallback_per_memory
  // SCOPE-LABEL: func.func @fallback_per_memory
  // SCOPE: tile.alloc {bufs = 1 : i64, name = "p", offset = 0 : i64}
  // SCOPE: tile.alloc {bufs = 1 : i64, name = "q", offset = 2048 : i64}
  // SCOPE: tile.alloc {bufs = 1 : i64, name = "c", offset = 0 : i64}
  // CHECK: tile.alloc {bufs = 1 : i64, name = "p", offset = 0 : i64}
  // CHECK: tile.alloc {bufs = 1 : i64, name = "q", offset = 0 : i64}
  func.func @fallback_per_memory(%x: memref<128x26000xf32>, %y: memref<128x26000xf32> {tile.output}) {
    %c0 = arith.constant 0 : index
    %a = tile.alloc {name = "a"} : memref<128x26000xf32, #tile.space<sbuf>>
    tile.load %x[%c0, %c0], %a : memref<128x26000xf32>, memref<128x26000xf32, #tile.space<sbuf>>
    %p = tile.alloc {name = "p"} : memref<128x512xf32, #tile.space<psum>>
    %ap = tile.view %a[%c0] : memref<128x26000xf32, #tile.space<sbuf>> to memref<128x512xf32, #tile.space<sbuf>>
    tile.copy %ap, %p : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<psum>>
    tile.copy %p, %ap : memref<128x512xf32, #tile.space<psum>>, memref<128x512xf32, #tile.space<sbuf>>
    %q = tile.alloc {name = "q"} : memref<128x512xf32, #tile.space<psum>>
    tile.copy %ap, %q : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<psum>>
    tile.copy %q, %ap : memref<128x512xf32, #tile.space<psum>>, memref<128x512xf32, #tile.space<sbuf>>
    %b = tile.alloc {name = "b"} : memref<128x26000xf32, #tile.space<sbuf>>
    tile.copy %a, %b : memref<128x26000xf32, #tile.space<sbuf>>, memref<128x26000xf32, #tile.space<sbuf>>
    %c = tile.alloc {name = "c"} : memref<128x26000xf32, #tile.space<sbuf>>
    tile.binary add %b, %b, %c : memref<128x26000xf32, #tile.space<sbuf>>, memref<128x26000xf32, #tile.space<sbuf>>, memref<128x26000xf32, #tile.space<sbuf>>
    tile.store %c, %y[%c0, %c0] : memref<128x26000xf32, #tile.space<sbuf>>, memref<128x26000xf32>
    return
  }
}

// -----

// A function with a manual_sync scope (ops marked tile.manual) is allocated by scope only, even where that does
// not fit: its instructions get no automatic waits, so a write into a dead tile's bytes would not wait for the
// dead tile's readers. 'c' does not fit beside 'a' and 'b', as above, and does not take the bytes of 'a'.
module attributes {tessera.target = "trn2"} {
  func.func @manual_sync_keeps_scope(%x: memref<128x26000xf32>, %y: memref<128x26000xf32> {tile.output}) {
    %c0 = arith.constant 0 : index
    %a = tile.alloc {name = "a"} : memref<128x26000xf32, #tile.space<sbuf>>
    tile.load %x[%c0, %c0], %a : memref<128x26000xf32>, memref<128x26000xf32, #tile.space<sbuf>>
    %b = tile.alloc {name = "b"} : memref<128x26000xf32, #tile.space<sbuf>>
    tile.copy %a, %b : memref<128x26000xf32, #tile.space<sbuf>>, memref<128x26000xf32, #tile.space<sbuf>>
    // expected-error @+2 {{tile 'c' [128, 26000] f32 needs 104000 bytes per partition of SBUF but only}}
    // expected-note @+1 {{hint: SBUF on trn2 has 212984 bytes per partition}}
    %c = tile.alloc {name = "c"} : memref<128x26000xf32, #tile.space<sbuf>>
    tile.binary add %b, %b, %c {tile.manual} : memref<128x26000xf32, #tile.space<sbuf>>, memref<128x26000xf32, #tile.space<sbuf>>, memref<128x26000xf32, #tile.space<sbuf>>
    tile.store %c, %y[%c0, %c0] : memref<128x26000xf32, #tile.space<sbuf>>, memref<128x26000xf32>
    return
  }
}
