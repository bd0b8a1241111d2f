// tile-verify-target on a TPU: none of the NeuronCore's limits (partitions, PSUM banks, matmul sizes, SBUF per
// partition) apply; the MXU's element types do, as mxu_matmul's definition states them with the target's peaks.
// RUN: tessera-opt %s -split-input-file -verify-diagnostics -tile-verify-target | FileCheck %s

// Past every trn2 limit and fine on a TPU: 512 rows, a 4096-wide f32 accumulator, K = 512, an f32 matmul.
module attributes {tessera.target = "tpu-v5e"} {
  // CHECK-LABEL: func.func @no_neuroncore_limits
  func.func @no_neuroncore_limits() {
    %a = tile.alloc : memref<512x256xbf16, #tile.space<sbuf>>
    %b = tile.alloc : memref<512x4096xbf16, #tile.space<sbuf>>
    // CHECK: tile.alloc : memref<256x4096xf32, #tile.space<psum>>
    %acc = tile.alloc : memref<256x4096xf32, #tile.space<psum>>
    // CHECK: tile.matmul
    tile.matmul %a, %b, %acc : memref<512x256xbf16, #tile.space<sbuf>>, memref<512x4096xbf16, #tile.space<sbuf>>, memref<256x4096xf32, #tile.space<psum>>
    %x = tile.alloc : memref<512x256xf32, #tile.space<sbuf>>
    %y = tile.alloc : memref<512x4096xf32, #tile.space<sbuf>>
    // CHECK: tile.matmul
    tile.matmul %x, %y, %acc {accumulate} : memref<512x256xf32, #tile.space<sbuf>>, memref<512x4096xf32, #tile.space<sbuf>>, memref<256x4096xf32, #tile.space<psum>>
    return
  }
}

// -----

module attributes {tessera.target = "tpu-v5e"} {
  func.func @fp16_matmul() {
    %a = tile.alloc : memref<128x128xf16, #tile.space<sbuf>>
    %acc = tile.alloc : memref<128x128xf32, #tile.space<psum>>
    // expected-error@+1 {{matmul on tpu-v5e: lhs^T is f16; the MXU takes bf16 or f32 (fp8 where the target has it)}}
    tile.matmul %a, %a, %acc : memref<128x128xf16, #tile.space<sbuf>>, memref<128x128xf16, #tile.space<sbuf>>, memref<128x128xf32, #tile.space<psum>>
    return
  }
}

// -----

// FP8 only where the target publishes an FP8 peak: not on v5e, on v6e.
module attributes {tessera.target = "tpu-v5e"} {
  func.func @fp8_on_v5e() {
    %a = tile.alloc : memref<128x128xf8E4M3FN, #tile.space<sbuf>>
    %acc = tile.alloc : memref<128x128xf32, #tile.space<psum>>
    // expected-error@+1 {{matmul on tpu-v5e: lhs^T is f8e4m3, but the MXU of tpu-v5e (TPU v5e) has no FP8: use bf16}}
    tile.matmul %a, %a, %acc : memref<128x128xf8E4M3FN, #tile.space<sbuf>>, memref<128x128xf8E4M3FN, #tile.space<sbuf>>, memref<128x128xf32, #tile.space<psum>>
    return
  }
}

// -----

module attributes {tessera.target = "tpu-v6e"} {
  // CHECK-LABEL: func.func @fp8_on_v6e
  func.func @fp8_on_v6e() {
    %a = tile.alloc : memref<128x128xf8E4M3FN, #tile.space<sbuf>>
    %acc = tile.alloc : memref<128x128xf32, #tile.space<psum>>
    // CHECK: tile.matmul
    tile.matmul %a, %a, %acc : memref<128x128xf8E4M3FN, #tile.space<sbuf>>, memref<128x128xf8E4M3FN, #tile.space<sbuf>>, memref<128x128xf32, #tile.space<psum>>
    return
  }
}
