// nc-insert-semaphores: streams (tensor 0, vector 1, scalar 2, gpsimd 3, DMA queue q = 4 + q) run in order and
// concurrently; every dependency between two streams becomes a signal on the semaphore of the pair
// (producer stream, consumer stream) and a wait for the producer's ordinal on it. Semaphores are numbered in
// the order of their first producer.
// RUN: tessera-opt %s -split-input-file -nc-insert-semaphores | FileCheck %s

#a = #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
#s = #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 4096, dims = [128], strides = [1]>
#ha = #nc.ap<"hbm", bf16, tensor = 0, partitions = [0, 128], pstride = 512, offset = 0, dims = [512], strides = [1]>
#hs = #nc.ap<"hbm", bf16, tensor = 1, partitions = [0, 128], pstride = 128, offset = 0, dims = [128], strides = [1]>
#acc = #nc.ap<"psum", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>

// RAW: both operands of a matmul come from the same DMA queue, which completes in order: waiting for the
// second load implies the first, so only the second signals and the matmul waits for one signal.
// CHECK-LABEL: func.func @raw_one_queue
// CHECK-NEXT: nc.dma_copy {{.*}} {engine = "dma"}{{$}}
// CHECK-NEXT: nc.dma_copy {{.*}} {engine = "dma", signals = array<i64: 0>}
// CHECK-NEXT: nc.matmul {{.*}} {engine = "tensor", waits = array<i64: 0, 1>}
func.func @raw_one_queue() {
  nc.dma_copy #a, #ha {engine = "dma"}
  nc.dma_copy #s, #hs {engine = "dma"}
  nc.matmul #acc, #s, #a {engine = "tensor"}
  return
}

// -----

#a = #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
#s = #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 4096, dims = [128], strides = [1]>
#ha = #nc.ap<"hbm", bf16, tensor = 0, partitions = [0, 128], pstride = 512, offset = 0, dims = [512], strides = [1]>
#hs = #nc.ap<"hbm", bf16, tensor = 1, partitions = [0, 128], pstride = 128, offset = 0, dims = [128], strides = [1]>
#acc = #nc.ap<"psum", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
#c = #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 8192, dims = [512], strides = [1]>
#hc = #nc.ap<"hbm", bf16, tensor = 2, partitions = [0, 128], pstride = 512, offset = 0, dims = [512], strides = [1]>

// RAW along a chain over five streams: dma0, dma1 -> tensor -> scalar -> dma2, one semaphore per pair.
// CHECK-LABEL: func.func @raw_chain
// CHECK-NEXT: nc.dma_copy {{.*}} {engine = "dma", signals = array<i64: 0>}
// CHECK-NEXT: nc.dma_copy {{.*}} {engine = "dma", queue = 1 : i64, signals = array<i64: 1>}
// CHECK-NEXT: nc.matmul {{.*}} {engine = "tensor", signals = array<i64: 2>, waits = array<i64: 0, 1, 1, 1>}
// CHECK-NEXT: nc.activation {{.*}} {engine = "scalar", scale = 1.000000e+00 : f32, signals = array<i64: 3>, waits = array<i64: 2, 1>}
// CHECK-NEXT: nc.dma_copy {{.*}} {engine = "dma", queue = 2 : i64, waits = array<i64: 3, 1>}
func.func @raw_chain() {
  nc.dma_copy #a, #ha {engine = "dma", queue = 0 : i64}
  nc.dma_copy #s, #hs {engine = "dma", queue = 1 : i64}
  nc.matmul #acc, #s, #a {engine = "tensor"}
  nc.activation "identity" #c, #acc {engine = "scalar", scale = 1.0 : f32}
  nc.dma_copy #hc, #c {engine = "dma", queue = 2 : i64}
  return
}

// -----

#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [128], strides = [1]>
#hx = #nc.ap<"hbm", f32, tensor = 0, partitions = [0, 128], pstride = 128, offset = 0, dims = [128], strides = [1]>
#y = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 512, dims = [128], strides = [1]>
#z = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 1024, dims = [128], strides = [1]>

// One producer, consumers on two streams: it signals both pairs' semaphores.
// CHECK-LABEL: func.func @two_consumers
// CHECK-NEXT: nc.dma_copy {{.*}} signals = array<i64: 0, 1>}
// CHECK-NEXT: nc.tensor_copy {{.*}} {engine = "vector", waits = array<i64: 0, 1>}
// CHECK-NEXT: nc.activation {{.*}} waits = array<i64: 1, 1>}
func.func @two_consumers() {
  nc.dma_copy #x, #hx {engine = "dma", queue = 5 : i64}
  nc.tensor_copy #y, #x {engine = "vector"}
  nc.activation "exp" #z, #x {engine = "scalar", scale = 1.0 : f32}
  return
}

// -----

#a = #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
#s = #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 4096, dims = [128], strides = [1]>
#ha = #nc.ap<"hbm", bf16, tensor = 0, partitions = [0, 128], pstride = 512, offset = 0, dims = [512], strides = [1]>
#ha2 = #nc.ap<"hbm", bf16, tensor = 0, partitions = [0, 128], pstride = 512, offset = 65536, dims = [512], strides = [1]>
#hs = #nc.ap<"hbm", bf16, tensor = 1, partitions = [0, 128], pstride = 128, offset = 0, dims = [128], strides = [1]>
#acc = #nc.ap<"psum", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>

// WAR: a DMA overwrites the buffer a matmul read, so it waits for the matmul. Its own earlier write to the
// buffer is on the same queue and needs nothing.
// CHECK-LABEL: func.func @war
// CHECK-NEXT: nc.dma_copy {{.*}} {engine = "dma", signals = array<i64: 0>}
// CHECK-NEXT: nc.dma_copy {{.*}} {engine = "dma", queue = 1 : i64, signals = array<i64: 1>}
// CHECK-NEXT: nc.matmul {{.*}} {engine = "tensor", signals = array<i64: 2>, waits = array<i64: 0, 1, 1, 1>}
// CHECK-NEXT: nc.dma_copy #nc.ap<"sbuf", {{.*}}>, #nc.ap<"hbm", {{.*}} offset = 65536, {{.*}}> {engine = "dma", waits = array<i64: 2, 1>}
func.func @war() {
  nc.dma_copy #a, #ha {engine = "dma"}
  nc.dma_copy #s, #hs {engine = "dma", queue = 1 : i64}
  nc.matmul #acc, #s, #a {engine = "tensor"}
  nc.dma_copy #a, #ha2 {engine = "dma"}
  return
}

// -----

#s = #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [128], strides = [1]>
#m = #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 256, dims = [512], strides = [1]>
#acc = #nc.ap<"psum", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
#out = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 4096, dims = [512], strides = [1]>

// PSUM: the vector engine reads what the first matmul wrote (RAW); an accumulating matmul then writes the bank
// the vector engine read (WAR), and a later read waits again (RAW, ordinal 2 of tensor -> vector).
// CHECK-LABEL: func.func @psum_round_trip
// CHECK-NEXT: nc.matmul {{.*}} {engine = "tensor", signals = array<i64: 0>}
// CHECK-NEXT: nc.tensor_copy {{.*}} {engine = "vector", signals = array<i64: 1>, waits = array<i64: 0, 1>}
// CHECK-NEXT: nc.matmul {{.*}} {accumulate, engine = "tensor", signals = array<i64: 0>, waits = array<i64: 1, 1>}
// CHECK-NEXT: nc.tensor_copy {{.*}} {engine = "vector", waits = array<i64: 0, 2>}
func.func @psum_round_trip() {
  nc.matmul #acc, #s, #m {engine = "tensor"}
  nc.tensor_copy #out, #acc {engine = "vector"}
  nc.matmul #acc, #s, #m {accumulate, engine = "tensor"}
  nc.tensor_copy #out, #acc {engine = "vector"}
  return
}

// -----

#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
#y = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 2048, dims = [512], strides = [1]>
#r = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 4096, dims = [1], strides = [1]>
#w = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 8192, dims = [512], strides = [1]>
#hx = #nc.ap<"hbm", f32, tensor = 0, partitions = [0, 128], pstride = 512, offset = 0, dims = [512], strides = [1]>

// Dependencies inside one stream need nothing: the stream runs in order (RAW, WAR and WAW on the vector
// engine; a load and then a store of the same buffer on one DMA queue).
// CHECK-LABEL: func.func @same_stream
// CHECK-NOT: waits
// CHECK-NOT: signals
// CHECK: return
func.func @same_stream() {
  nc.memset #x, 1.0 {engine = "vector"}
  nc.tensor_tensor "add" #y, #x, #x {engine = "vector"}
  nc.tensor_reduce "max" #r, #y {engine = "vector"}
  nc.tensor_copy #x, #y {engine = "vector"}
  nc.dma_copy #w, #hx {engine = "dma", queue = 3 : i64}
  nc.dma_copy #hx, #w {engine = "dma", queue = 3 : i64}
  return
}

// -----

#y = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 2048, dims = [512], strides = [1]>
#hx = #nc.ap<"hbm", f32, tensor = 0, partitions = [0, 128], pstride = 512, offset = 0, dims = [512], strides = [1]>

// Two DMA queues are two streams.
// CHECK-LABEL: func.func @two_queues
// CHECK-NEXT: nc.dma_copy {{.*}} {engine = "dma", queue = 3 : i64, signals = array<i64: 0>}
// CHECK-NEXT: nc.dma_copy {{.*}} {engine = "dma", queue = 4 : i64, waits = array<i64: 0, 1>}
func.func @two_queues() {
  nc.dma_copy #y, #hx {engine = "dma", queue = 3 : i64}
  nc.dma_copy #hx, #y {engine = "dma", queue = 4 : i64}
  return
}

// -----

#a = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
#b = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 2048, dims = [512], strides = [1]>
#c = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 4096, dims = [512], strides = [1]>
#d = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 6144, dims = [512], strides = [1]>
#h0 = #nc.ap<"hbm", f32, tensor = 0, partitions = [0, 128], pstride = 512, offset = 0, dims = [512], strides = [1]>
#h1 = #nc.ap<"hbm", f32, tensor = 1, partitions = [0, 128], pstride = 512, offset = 0, dims = [512], strides = [1]>

// The scalar engine waits for the second load, which implies the first (same queue, in order): reading that
// one later needs no wait of its own, and the first load needs no signal.
// CHECK-LABEL: func.func @implied_wait
// CHECK-NEXT: nc.dma_copy {{.*}} {engine = "dma"}{{$}}
// CHECK-NEXT: nc.dma_copy {{.*}} {engine = "dma", signals = array<i64: 0>}
// CHECK-NEXT: nc.activation "exp" {{.*}} {engine = "scalar", scale = 1.000000e+00 : f32, waits = array<i64: 0, 1>}
// CHECK-NEXT: nc.activation "identity" {{.*}} {engine = "scalar", scale = 1.000000e+00 : f32}{{$}}
func.func @implied_wait() {
  nc.dma_copy #a, #h0 {engine = "dma"}
  nc.dma_copy #b, #h1 {engine = "dma"}
  nc.activation "exp" #c, #b {engine = "scalar", scale = 1.0 : f32}
  nc.activation "identity" #d, #a {engine = "scalar", scale = 1.0 : f32}
  return
}

// -----

#top = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 64], pstride = 0, offset = 0, dims = [512], strides = [1]>
#bottom = #nc.ap<"sbuf", f32, tensor = -1, partitions = [64, 64], pstride = 0, offset = 0, dims = [512], strides = [1]>
#shared = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 4096, dims = [512], strides = [1]>
#v = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 8192, dims = [512], strides = [1]>
#s = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 12288, dims = [512], strides = [1]>
#load = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 64], pstride = 0, offset = 16384, dims = [512], strides = [1]>
#load2 = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 64], pstride = 0, offset = 20480, dims = [512], strides = [1]>
#ps = #nc.ap<"psum", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
#h0 = #nc.ap<"hbm", f32, tensor = 0, partitions = [0, 64], pstride = 512, offset = 0, dims = [512], strides = [1]>
#h0rest = #nc.ap<"hbm", f32, tensor = 0, partitions = [0, 64], pstride = 512, offset = 32768, dims = [512], strides = [1]>
#h1 = #nc.ap<"hbm", f32, tensor = 1, partitions = [0, 64], pstride = 512, offset = 0, dims = [512], strides = [1]>

// Independent instructions get nothing: the other partitions at the same bytes (a store reads #top, GpSimd
// writes #bottom), two engines only reading the same tile, another memory (PSUM), the other rows of an HBM
// tensor (rows 64-127 of tensor 0 after a store to rows 0-63), another HBM tensor.
// CHECK-LABEL: func.func @independent
// CHECK-NOT: waits
// CHECK-NOT: signals
// CHECK: return
func.func @independent() {
  nc.dma_copy #h0, #top {engine = "dma"}
  nc.memset #bottom, 0.0 {engine = "gpsimd"}
  nc.tensor_copy #v, #shared {engine = "vector"}
  nc.activation "exp" #s, #shared {engine = "scalar", scale = 1.0 : f32}
  nc.memset #ps, 0.0 {engine = "vector"}
  nc.dma_copy #load, #h0rest {engine = "dma", queue = 1 : i64}
  nc.dma_copy #h1, #load2 {engine = "dma", queue = 2 : i64}
  return
}

// -----

#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
#part = #nc.ap<"sbuf", f32, tensor = -1, partitions = [96, 8], pstride = 0, offset = 1024, dims = [128], strides = [1]>
#y = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 4096, dims = [512], strides = [1]>
#h0 = #nc.ap<"hbm", f32, tensor = 0, partitions = [0, 128], pstride = 512, offset = 0, dims = [512], strides = [1]>
#row5 = #nc.ap<"hbm", f32, tensor = 0, partitions = [0, 1], pstride = 512, offset = 2560, dims = [512], strides = [1]>
#z = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 1], pstride = 0, offset = 8192, dims = [512], strides = [1]>
#y8 = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 8], pstride = 0, offset = 4096, dims = [128], strides = [1]>

// Overlaps are found by byte range and partition range, not by equal patterns: a read of 8 partitions and
// 512 bytes inside a written tile, and in HBM, a load of one row of what a store wrote.
// CHECK-LABEL: func.func @partial_overlap
// CHECK-NEXT: nc.memset {{.*}} {engine = "vector", signals = array<i64: 0>}
// CHECK-NEXT: nc.activation {{.*}} {engine = "scalar", scale = 1.000000e+00 : f32, signals = array<i64: 1>, waits = array<i64: 0, 1>}
// CHECK-NEXT: nc.dma_copy #nc.ap<"hbm", {{.*}} {engine = "dma", signals = array<i64: 2>, waits = array<i64: 1, 1>}
// CHECK-NEXT: nc.dma_copy #nc.ap<"sbuf", {{.*}} {engine = "dma", queue = 1 : i64, waits = array<i64: 2, 1>}
func.func @partial_overlap() {
  nc.memset #x, 2.0 {engine = "vector"}
  nc.activation "exp" #y8, #part {engine = "scalar", scale = 1.0 : f32}
  nc.dma_copy #h0, #y {engine = "dma"}
  nc.dma_copy #z, #row5 {engine = "dma", queue = 1 : i64}
  return
}

// -----

#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
#y = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 2048, dims = [512], strides = [1]>
#z = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 4096, dims = [512], strides = [1]>
#hx = #nc.ap<"hbm", f32, tensor = 0, partitions = [0, 128], pstride = 512, offset = 0, dims = [512], strides = [1]>

// Transitive order: the scalar engine reads the load's bytes and overwrites the vector engine's result, and the
// vector engine already waited for the load. Waiting for the vector engine implies the load: one wait, and the
// load signals only the vector engine.
// CHECK-LABEL: func.func @transitive_chain
// CHECK-NEXT: nc.dma_copy {{.*}} {engine = "dma", signals = array<i64: 0>}
// CHECK-NEXT: nc.tensor_copy {{.*}} {engine = "vector", waits = array<i64: 0, 1>}
// CHECK-NEXT: nc.tensor_tensor "add" {{.*}} {engine = "vector", signals = array<i64: 1>}
// CHECK-NEXT: nc.activation "exp" {{.*}} {engine = "scalar", scale = 1.000000e+00 : f32, waits = array<i64: 1, 1>}
func.func @transitive_chain() {
  nc.dma_copy #x, #hx {engine = "dma"}
  nc.tensor_copy #y, #x {engine = "vector"}
  nc.tensor_tensor "add" #z, #x, #y {engine = "vector"}
  nc.activation "exp" #z, #x {engine = "scalar", scale = 1.0 : f32}
  return
}

// -----

#t = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
#e = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 4096, dims = [512], strides = [1]>
#hx = #nc.ap<"hbm", f32, tensor = 0, partitions = [0, 128], pstride = 512, offset = 0, dims = [512], strides = [1]>
#hy = #nc.ap<"hbm", f32, tensor = 1, partitions = [0, 128], pstride = 512, offset = 0, dims = [512], strides = [1]>

// A manual_sync scope (nc.manual): its instructions get no waits, not even where their own are missing (the
// exp reads the load's bytes unordered: the simulator reports that). The store after the scope is synchronised
// with the exp: it waits on a semaphore numbered after the kernel's own (0 and 1), and the exp's own signal stays.
// CHECK-LABEL: func.func @manual_scope
// CHECK-NEXT: nc.dma_copy {{.*}} {engine = "dma", nc.manual}{{$}}
// CHECK-NEXT: nc.activation "exp" {{.*}} {engine = "scalar", nc.manual, scale = 1.000000e+00 : f32, signals = array<i64: 1, 2>, waits = array<i64: 0, 1>}
// CHECK-NEXT: nc.dma_copy {{.*}} {engine = "dma", queue = 1 : i64, waits = array<i64: 2, 1>}
func.func @manual_scope() {
  nc.dma_copy #t, #hx {engine = "dma", nc.manual}
  nc.activation "exp" #e, #t {engine = "scalar", nc.manual, scale = 1.0 : f32, waits = array<i64: 0, 1>, signals = array<i64: 1>}
  nc.dma_copy #hy, #e {engine = "dma", queue = 1 : i64}
  return
}

// -----

#t = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
#e = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 4096, dims = [512], strides = [1]>
#o = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 8192, dims = [512], strides = [1]>
#hx = #nc.ap<"hbm", f32, tensor = 0, partitions = [0, 128], pstride = 512, offset = 0, dims = [512], strides = [1]>

// Data produced before a manual_sync scope: the scope's first reader waits for the automatic load (on a
// semaphore numbered after the kernel's own semaphore 0, after its own waits); the second manual reader relies
// on the kernel's semaphore and the first's order.
// CHECK-LABEL: func.func @into_manual_scope
// CHECK-NEXT: nc.dma_copy {{.*}} {engine = "dma", signals = array<i64: 1>}
// CHECK-NEXT: nc.activation "exp" {{.*}} {engine = "scalar", nc.manual, scale = 1.000000e+00 : f32, signals = array<i64: 0>, waits = array<i64: 1, 1>}
// CHECK-NEXT: nc.tensor_copy {{.*}} {engine = "vector", nc.manual, waits = array<i64: 0, 1>}{{$}}
func.func @into_manual_scope() {
  nc.dma_copy #t, #hx {engine = "dma"}
  nc.activation "exp" #e, #t {engine = "scalar", nc.manual, scale = 1.0 : f32, signals = array<i64: 0>}
  nc.tensor_copy #o, #e {engine = "vector", nc.manual, waits = array<i64: 0, 1>}
  return
}
