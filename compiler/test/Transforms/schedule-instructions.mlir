// nc-schedule-instructions: each engine's stream reordered by list scheduling, every data dependency kept.
// RUN: tessera-opt %s -split-input-file -verify-diagnostics -lower-tile-to-nc -nc-schedule-instructions | FileCheck %s

// In program order the scalar engine's first activation waits for a 1 MiB load (tens of microseconds) and holds up
// the second, whose input a memset writes at once. Scheduled, the second goes first; the first still follows the
// load, and the store of its result still follows it.
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @independent_work_goes_first
  // CHECK-DAG: nc.memset #nc.ap<"sbuf", f32, {{.*}} offset = 65536, {{.*}}>, 1.000000e+00
  // CHECK-DAG: nc.dma_copy #nc.ap<"sbuf", f32, {{.*}} offset = 0, {{.*}}>, #nc.ap<"hbm"
  // CHECK: nc.activation "exp" #nc.ap<"sbuf", f32, {{.*}} offset = 66048, {{.*}}>, #nc.ap<"sbuf", f32, {{.*}} offset = 65536, {{.*}}>
  // CHECK-NEXT: nc.activation "exp" #nc.ap<"sbuf", f32, {{.*}} offset = 32768, {{.*}}>, #nc.ap<"sbuf", f32, {{.*}} offset = 0, {{.*}}>
  // CHECK-NEXT: nc.dma_copy #nc.ap<"hbm", f32, {{.*}}>, #nc.ap<"sbuf", f32, {{.*}} offset = 32768, {{.*}}>
  func.func @independent_work_goes_first(%x: memref<128x8192xf32>, %y: memref<128x8192xf32>) {
    %c0 = arith.constant 0 : index
    %a = tile.alloc {name = "a", offset = 0 : i64, bufs = 1 : i64} : memref<128x8192xf32, #tile.space<sbuf>>
    tile.load %x[%c0, %c0], %a : memref<128x8192xf32>, memref<128x8192xf32, #tile.space<sbuf>>
    %ea = tile.alloc {name = "ea", offset = 32768 : i64, bufs = 1 : i64} : memref<128x8192xf32, #tile.space<sbuf>>
    tile.activation exp %a, %ea : memref<128x8192xf32, #tile.space<sbuf>>, memref<128x8192xf32, #tile.space<sbuf>>
    tile.store %ea, %y[%c0, %c0] : memref<128x8192xf32, #tile.space<sbuf>>, memref<128x8192xf32>
    %b = tile.alloc {name = "b", offset = 65536 : i64, bufs = 1 : i64} : memref<128x128xf32, #tile.space<sbuf>>
    tile.memset %b, 1.0 : memref<128x128xf32, #tile.space<sbuf>>
    %eb = tile.alloc {name = "eb", offset = 66048 : i64, bufs = 1 : i64} : memref<128x128xf32, #tile.space<sbuf>>
    tile.activation exp %b, %eb : memref<128x128xf32, #tile.space<sbuf>>, memref<128x128xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// A write after a read keeps its order: the second memset overwrites `b`, which the add reads, and the add waits
// for a DMA. Without the write-after-read dependency the memset, ready as soon as the first one is done, would be
// scheduled before the add (as it is when it writes another tile); with it, it stays after.
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @write_after_read_stays
  // CHECK:      nc.memset #nc.ap<"sbuf", f32, {{.*}} offset = 512, {{.*}}>, 1.000000e+00
  // CHECK-NEXT: nc.tensor_tensor "add" #nc.ap<"sbuf", f32, {{.*}} offset = 1024, {{.*}}>, #nc.ap<"sbuf", f32, {{.*}} offset = 0, {{.*}}>, #nc.ap<"sbuf", f32, {{.*}} offset = 512, {{.*}}>
  // CHECK-NEXT: nc.memset #nc.ap<"sbuf", f32, {{.*}} offset = 512, {{.*}}>, 2.000000e+00
  func.func @write_after_read_stays(%x: memref<128x128xf32>) {
    %c0 = arith.constant 0 : index
    %a = tile.alloc {name = "a", offset = 0 : i64, bufs = 1 : i64} : memref<128x128xf32, #tile.space<sbuf>>
    tile.load %x[%c0, %c0], %a : memref<128x128xf32>, memref<128x128xf32, #tile.space<sbuf>>
    %b = tile.alloc {name = "b", offset = 512 : i64, bufs = 1 : i64} : memref<128x128xf32, #tile.space<sbuf>>
    tile.memset %b, 1.0 : memref<128x128xf32, #tile.space<sbuf>>
    %e = tile.alloc {name = "e", offset = 1024 : i64, bufs = 1 : i64} : memref<128x128xf32, #tile.space<sbuf>>
    tile.binary add %a, %b, %e : memref<128x128xf32, #tile.space<sbuf>>, memref<128x128xf32, #tile.space<sbuf>>, memref<128x128xf32, #tile.space<sbuf>>
    tile.memset %b, 2.0 : memref<128x128xf32, #tile.space<sbuf>>
    return
  }
}

