// tile-verify-target: tiles and matmuls against the numbers of the module's target (isa/targets/*.toml).
// RUN: tessera-opt %s -split-input-file -verify-diagnostics -tile-verify-target | FileCheck %s

// Everything at the limits of trn2 passes and is left as it was: 128 partitions, a PSUM tile of exactly one
// 2 KiB bank, a matmul of K = 128, M = 128, N = 512, and an SBUF tile of all 212984 bytes of a partition.
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @fits
  func.func @fits() {
    // CHECK: tile.alloc : memref<128x128xbf16, #tile.space<sbuf>>
    %s = tile.alloc : memref<128x128xbf16, #tile.space<sbuf>>
    %m = tile.alloc : memref<128x512xbf16, #tile.space<sbuf>>
    // CHECK: tile.alloc : memref<128x512xf32, #tile.space<psum>>
    %acc = tile.alloc : memref<128x512xf32, #tile.space<psum>>
    // CHECK: tile.alloc : memref<128x1024xbf16, #tile.space<psum>>
    %half = tile.alloc : memref<128x1024xbf16, #tile.space<psum>>
    // CHECK: tile.alloc : memref<128x53246xf32, #tile.space<sbuf>>
    %big = tile.alloc : memref<128x53246xf32, #tile.space<sbuf>>
    // CHECK: tile.matmul
    tile.matmul %s, %m, %acc : memref<128x128xbf16, #tile.space<sbuf>>, memref<128x512xbf16, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<psum>>
    return
  }
}

// -----

module attributes {tessera.target = "trn2"} {
  func.func @too_many_partitions() {
    // expected-error@+2 {{SBUF tile [256, 4] f32 has 256 partitions; trn2 has 128}}
    // expected-note@+1 {{hint: split the first dimension into tiles of at most 128 rows}}
    %0 = tile.alloc : memref<256x4xf32, #tile.space<sbuf>>
    return
  }
}

// -----

module attributes {tessera.target = "trn2"} {
  func.func @psum_partitions() {
    // expected-error@+2 {{PSUM tile [129, 512] f32 has 129 partitions; trn2 has 128}}
    // expected-note@+1 {{hint: split the first dimension}}
    %0 = tile.alloc : memref<129x512xf32, #tile.space<psum>>
    return
  }
}

// -----

// One f32 past a PSUM bank.
module attributes {tessera.target = "trn2"} {
  func.func @psum_over_bank() {
    // expected-error@+2 {{PSUM tile [128, 513] f32 takes 2052 bytes per partition; a PSUM bank of trn2 holds 2048}}
    // expected-note@+1 {{hint: PSUM has 8 banks of 2048 bytes per partition on trn2; split the free dimension into tiles of at most 512 elements of this type}}
    %0 = tile.alloc : memref<128x513xf32, #tile.space<psum>>
    return
  }
}

// -----

module attributes {tessera.target = "trn1"} {
  func.func @psum_two_banks() {
    // expected-error@+2 {{PSUM tile [64, 1024] f32 takes 4096 bytes per partition; a PSUM bank of trn1 holds 2048}}
    // expected-note@+1 {{hint: PSUM has 8 banks of 2048 bytes per partition on trn1}}
    %0 = tile.alloc : memref<64x1024xf32, #tile.space<psum>>
    return
  }
}

// -----

// One f32 past trn2's 212984 usable SBUF bytes per partition.
module attributes {tessera.target = "trn2"} {
  func.func @sbuf_over_partition() {
    // expected-error@+2 {{SBUF tile [128, 53247] f32 takes 212988 bytes per partition; trn2 has 212984}}
    // expected-note@+1 {{hint: SBUF has 212984 bytes per partition on trn2; split the free dimension into tiles of at most 53246 elements of this type}}
    %0 = tile.alloc : memref<128x53247xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// The same tile fits trn2 but not trn1 (176 KiB): the limits come from the target file.
module attributes {tessera.target = "trn1"} {
  func.func @sbuf_trn1() {
    // expected-error@+2 {{SBUF tile [128, 46000] f32 takes 184000 bytes per partition; trn1 has 180224}}
    // expected-note@+1 {{hint: SBUF has 180224 bytes per partition on trn1}}
    %0 = tile.alloc : memref<128x46000xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// CHECK-LABEL: func.func @sbuf_trn2
module attributes {tessera.target = "trn2"} {
  func.func @sbuf_trn2() {
    // CHECK: tile.alloc : memref<128x46000xf32, #tile.space<sbuf>>
    %0 = tile.alloc : memref<128x46000xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// The matmul checks see only the operand types, so the tiles come in as arguments here.
module attributes {tessera.target = "trn2"} {
  func.func @moving_too_wide(%s: memref<128x128xbf16, #tile.space<sbuf>>, %m: memref<128x1024xbf16, #tile.space<sbuf>>,
                             %acc: memref<128x1024xf32, #tile.space<psum>>) {
    // expected-error@+1 {{matmul moving free size 1024 exceeds 512 on trn2}}
    tile.matmul %s, %m, %acc : memref<128x128xbf16, #tile.space<sbuf>>, memref<128x1024xbf16, #tile.space<sbuf>>, memref<128x1024xf32, #tile.space<psum>>
    return
  }
}

// -----

module attributes {tessera.target = "trn2"} {
  func.func @moving_513(%s: memref<128x128xbf16, #tile.space<sbuf>>, %m: memref<128x513xbf16, #tile.space<sbuf>>,
                        %acc: memref<128x513xf32, #tile.space<psum>>) {
    // expected-error@+1 {{matmul moving free size 513 exceeds 512 on trn2}}
    tile.matmul %s, %m, %acc : memref<128x128xbf16, #tile.space<sbuf>>, memref<128x513xbf16, #tile.space<sbuf>>, memref<128x513xf32, #tile.space<psum>>
    return
  }
}

// -----

module attributes {tessera.target = "trn2"} {
  func.func @contraction_too_deep(%s: memref<256x128xbf16, #tile.space<sbuf>>, %m: memref<256x512xbf16, #tile.space<sbuf>>,
                                  %acc: memref<128x512xf32, #tile.space<psum>>) {
    // expected-error@+1 {{matmul contracts over 256 partitions; the trn2 tensor engine takes at most 128}}
    tile.matmul %s, %m, %acc : memref<256x128xbf16, #tile.space<sbuf>>, memref<256x512xbf16, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<psum>>
    return
  }
}

// -----

module attributes {tessera.target = "trn1"} {
  func.func @stationary_too_wide(%s: memref<128x256xbf16, #tile.space<sbuf>>, %m: memref<128x512xbf16, #tile.space<sbuf>>,
                                 %acc: memref<256x512xf32, #tile.space<psum>>) {
    // expected-error@+1 {{matmul stationary free size 256 exceeds 128 on trn1}}
    tile.matmul %s, %m, %acc : memref<128x256xbf16, #tile.space<sbuf>>, memref<128x512xbf16, #tile.space<sbuf>>, memref<256x512xf32, #tile.space<psum>>
    return
  }
}

// -----

// Checks go into loop bodies.
module attributes {tessera.target = "trn2"} {
  func.func @in_loop() {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %c4 step %c1 {
        // expected-error@+2 {{PSUM tile [128, 2048] bf16 takes 4096 bytes per partition}}
        // expected-note@+1 {{hint: PSUM has 8 banks of 2048 bytes per partition on trn2; split the free dimension into tiles of at most 1024 elements of this type}}
        %0 = tile.alloc : memref<128x2048xbf16, #tile.space<psum>>
      }
    }
    return
  }
}

// -----

// expected-error@+1 {{the module names no target: add `attributes {tessera.target = "trn2"}`}}
module {
  func.func @no_target() {
    %0 = tile.alloc : memref<128x4xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// expected-error@+1 {{unknown target 'trn9'}}
module attributes {tessera.target = "trn9"} {
  func.func @unknown_target() {
    return
  }
}

// -----

// NeuronCore-v4 (trn3): a matmul's moving free size spans up to all 8 PSUM banks, 4096 FP32 results, and a PSUM
// tile may hold that many.
module attributes {tessera.target = "trn3"} {
  // CHECK-LABEL: func.func @trn3_all_banks
  func.func @trn3_all_banks(%s: memref<128x128xbf16, #tile.space<sbuf>>, %m: memref<128x4096xbf16, #tile.space<sbuf>>) {
    // CHECK: tile.alloc : memref<128x4096xf32, #tile.space<psum>>
    %acc = tile.alloc : memref<128x4096xf32, #tile.space<psum>>
    // CHECK: tile.matmul
    tile.matmul %s, %m, %acc : memref<128x128xbf16, #tile.space<sbuf>>, memref<128x4096xbf16, #tile.space<sbuf>>, memref<128x4096xf32, #tile.space<psum>>
    return
  }
}

// -----

module attributes {tessera.target = "trn3"} {
  func.func @trn3_psum_over_all_banks() {
    // expected-error@+2 {{PSUM tile [128, 4097] f32 takes 16388 bytes per partition; a PSUM tile of trn3 spans at most the 16384 bytes one matmul writes (tensor_engine.max_moving_free FP32)}}
    // expected-note@+1 {{hint: PSUM has 8 banks of 2048 bytes per partition on trn3; split the free dimension into tiles of at most 4096 elements of this type}}
    %0 = tile.alloc : memref<128x4097xf32, #tile.space<psum>>
    return
  }
}

// -----

module attributes {tessera.target = "trn3"} {
  func.func @trn3_moving_4097(%s: memref<128x128xbf16, #tile.space<sbuf>>, %m: memref<128x4097xbf16, #tile.space<sbuf>>,
                              %acc: memref<128x4097xf32, #tile.space<psum>>) {
    // expected-error@+1 {{matmul moving free size 4097 exceeds 4096 on trn3}}
    tile.matmul %s, %m, %acc : memref<128x128xbf16, #tile.space<sbuf>>, memref<128x4097xbf16, #tile.space<sbuf>>, memref<128x4097xf32, #tile.space<psum>>
    return
  }
}
