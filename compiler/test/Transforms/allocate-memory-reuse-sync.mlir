// A tile that takes a dead tile's bytes must not be written before the dead tile's last reader is done: 'c'
// takes the bytes of 'a' (dead after the exp reads it; three tiles of 104000 bytes do not fit trn2's SBUF else), and its load, on a DMA queue, waits for the Scalar
// engine's exp (write after read), though nothing else orders the two. Without that wait the load could
// overwrite 'a' while the exp still reads it.
// RUN: tessera-opt %s -tile-verify-target -tile-allocate-memory | FileCheck %s --check-prefix=ALLOC
// RUN: tessera-opt %s -tessera-pipeline | FileCheck %s

// ALLOC-LABEL: func.func @reuse_waits
// ALLOC: tile.alloc {bufs = 1 : i64, name = "a", offset = 0 : i64}
// ALLOC: tile.alloc {bufs = 1 : i64, name = "b", offset = 104000 : i64}
// ALLOC: tile.alloc {bufs = 1 : i64, name = "c", offset = 0 : i64}

// CHECK-LABEL: func.func @reuse_waits
// CHECK-NEXT: nc.dma_copy #nc.ap<"sbuf", f32, {{.*}} offset = 0, {{.*}}>, #nc.ap<"hbm", f32, tensor = 0, {{.*}}> {engine = "dma", signals = array<i64: 0>}
// CHECK-NEXT: nc.activation "exp" #nc.ap<"sbuf", f32, {{.*}} offset = 104000, {{.*}}>, #nc.ap<"sbuf", f32, {{.*}} offset = 0, {{.*}}> {engine = "scalar", {{.*}}signals = array<i64: {{[0-9, ]+}}>, waits = array<i64: 0, 1>}
// CHECK-NEXT: nc.dma_copy #nc.ap<"hbm", f32, tensor = 2, {{.*}}>, #nc.ap<"sbuf", f32, {{.*}} offset = 104000, {{.*}}> {engine = "dma", queue = {{[0-9]+}} : i64, waits = array<i64: {{[0-9]+}}, 1>}
// The load into 'c' waits for the exp, its only dependency.
// CHECK-NEXT: nc.dma_copy #nc.ap<"sbuf", f32, {{.*}} offset = 0, {{.*}}>, #nc.ap<"hbm", f32, tensor = 1, {{.*}}> {engine = "dma", {{.*}}waits = array<i64: {{[0-9]+}}, 1>}
module attributes {tessera.target = "trn2"} {
  func.func @reuse_waits(%x: memref<128x26000xf32> {tile.name = "x"}, %x2: memref<128x26000xf32> {tile.name = "x2"},
                         %y: memref<128x26000xf32> {tile.name = "y", tile.output},
                         %y2: memref<128x26000xf32> {tile.name = "y2", tile.output}) {
    %c0 = arith.constant 0 : index
    %a = tile.alloc {name = "a"} : memref<128x26000xf32, #tile.space<sbuf>>
    tile.load %x[%c0, %c0], %a : memref<128x26000xf32>, memref<128x26000xf32, #tile.space<sbuf>>
    %b = tile.alloc {name = "b"} : memref<128x26000xf32, #tile.space<sbuf>>
    tile.activation exp %a, %b : memref<128x26000xf32, #tile.space<sbuf>>, memref<128x26000xf32, #tile.space<sbuf>>
    tile.store %b, %y[%c0, %c0] : memref<128x26000xf32, #tile.space<sbuf>>, memref<128x26000xf32>
    %c = tile.alloc {name = "c"} : memref<128x26000xf32, #tile.space<sbuf>>
    tile.load %x2[%c0, %c0], %c : memref<128x26000xf32>, memref<128x26000xf32, #tile.space<sbuf>>
    tile.store %c, %y2[%c0, %c0] : memref<128x26000xf32, #tile.space<sbuf>>, memref<128x26000xf32>
    return
  }
}
