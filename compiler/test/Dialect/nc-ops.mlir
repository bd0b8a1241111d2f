// The nc dialect: every engine instruction prints as it parses (also through the generic form), and the
// verifiers reject instructions the engines cannot run.
// RUN: tessera-opt %s -split-input-file -verify-diagnostics | tessera-opt -split-input-file | FileCheck %s
// RUN: tessera-opt %s -split-input-file -verify-diagnostics -mlir-print-op-generic | tessera-opt -split-input-file | FileCheck %s

#hbm = #nc.ap<"hbm", bf16, tensor = 1, partitions = [0, 128], pstride = 1024, offset = 65536, dims = [512], strides = [1]>
#sb = #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 1024, dims = [512], strides = [1]>
#st = #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 4096, dims = [64], strides = [1]>
#ps = #nc.ap<"psum", f32, tensor = -1, partitions = [0, 64], pstride = 0, offset = 2048, dims = [512], strides = [1]>

// CHECK-LABEL: func.func @dma_and_matmul
func.func @dma_and_matmul() {
  // The default queue, 0, is not printed.
  // CHECK: nc.dma_copy #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 1024, dims = [512], strides = [1]>, #nc.ap<"hbm", bf16, tensor = 1, partitions = [0, 128], pstride = 1024, offset = 65536, dims = [512], strides = [1]> {engine = "dma", signals = array<i64: 0, 2>}
  nc.dma_copy #sb, #hbm {engine = "dma", queue = 0 : i64, signals = array<i64: 0, 2>}
  // CHECK: nc.dma_copy {{.*}} {engine = "dma", queue = 7 : i64}
  nc.dma_copy #hbm, #sb {engine = "dma", queue = 7 : i64}
  // CHECK: nc.matmul #nc.ap<"psum", f32, tensor = -1, partitions = [0, 64], pstride = 0, offset = 2048, dims = [512], strides = [1]>, #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 4096, dims = [64], strides = [1]>, #nc.ap<"sbuf", bf16, {{.*}} offset = 1024, {{.*}}> {engine = "tensor", waits = array<i64: 0, 1, 3, 2>}
  nc.matmul #ps, #st, #sb {engine = "tensor", waits = array<i64: 0, 1, 3, 2>}
  // CHECK: nc.matmul {{.*}} {accumulate, engine = "tensor", signals = array<i64: 1>}
  nc.matmul #ps, #st, #sb {accumulate, engine = "tensor", signals = array<i64: 1>}
  return
}

// -----

#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
#col = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 8192, dims = [512], strides = [1]>
#ps = #nc.ap<"psum", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
#red = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 4096, dims = [1], strides = [1]>
#y = #nc.ap<"sbuf", bf16, tensor = -1, partitions = [32, 64], pstride = 0, offset = 8192, dims = [4, 128], strides = [256, 2]>
#ps64 = #nc.ap<"psum", f32, tensor = -1, partitions = [0, 64], pstride = 0, offset = 0, dims = [512], strides = [1]>

// CHECK-LABEL: func.func @compute
func.func @compute() {
  // CHECK: nc.tensor_tensor "subtract" #nc.ap<"sbuf", f32, {{.*}} offset = 0, {{.*}}>, #nc.ap<"psum", {{.*}}>, #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 8192, dims = [512], strides = [1]> {engine = "vector"}
  nc.tensor_tensor "subtract" #x, #ps, #col {engine = "vector"}
  // CHECK: nc.tensor_tensor "max" {{.*}} {engine = "gpsimd"}
  nc.tensor_tensor "max" #x, #x, #col {engine = "gpsimd"}
  // CHECK: nc.activation "exp" {{.*}} {engine = "scalar", scale = -2.500000e-01 : f32}
  nc.activation "exp" #x, #ps {engine = "scalar", scale = -0.25 : f32}
  // CHECK: nc.tensor_reduce "add" #nc.ap<"sbuf", f32, {{.*}} dims = [1], strides = [1]>, {{.*}} {engine = "vector"}
  nc.tensor_reduce "add" #red, #x {engine = "vector"}
  // Up to four free dimensions with any strides, on a range of partitions; an explicit default queue is dropped.
  // CHECK: nc.tensor_copy #nc.ap<"sbuf", bf16, tensor = -1, partitions = [32, 64], pstride = 0, offset = 8192, dims = [4, 128], strides = [256, 2]>, {{.*}} {engine = "scalar"}{{$}}
  nc.tensor_copy #y, #ps64 {engine = "scalar", queue = 0 : i64}
  // CHECK: nc.memset #nc.ap<"psum", {{.*}}>, 0.000000e+00 {engine = "vector"}
  nc.memset #ps, 0.0 {engine = "vector"}
  // CHECK: nc.memset {{.*}}, -1.500000e+00 {engine = "gpsimd", signals = array<i64: 4>, waits = array<i64: 2, 9>}
  nc.memset #x, -1.5 {engine = "gpsimd", waits = array<i64: 2, 9>, signals = array<i64: 4>}
  return
}

// -----
// Engines

#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
func.func @unknown_engine() {
  // expected-error@+1 {{'nc.tensor_copy' op has unknown engine "sync"}}
  nc.tensor_copy #x, #x {engine = "sync"}
  return
}

// -----

#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
func.func @no_engine() {
  // expected-error@+1 {{requires attribute 'engine'}}
  nc.tensor_copy #x, #x {}
  return
}

// -----

#ps = #nc.ap<"psum", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
#sb = #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [128], strides = [1]>
#mv = #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 256, dims = [512], strides = [1]>
func.func @matmul_on_vector() {
  // expected-error@+1 {{'nc.matmul' op cannot run on the vector engine}}
  nc.matmul #ps, #sb, #mv {engine = "vector"}
  return
}

// -----

#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
func.func @activation_on_vector() {
  // expected-error@+1 {{'nc.activation' op cannot run on the vector engine}}
  nc.activation "exp" #x, #x {engine = "vector", scale = 1.0 : f32}
  return
}

// -----

#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
func.func @tensor_tensor_on_scalar() {
  // expected-error@+1 {{'nc.tensor_tensor' op cannot run on the scalar engine}}
  nc.tensor_tensor "add" #x, #x, #x {engine = "scalar"}
  return
}

// -----

#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
#r = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 4096, dims = [1], strides = [1]>
func.func @reduce_on_tensor_engine() {
  // expected-error@+1 {{'nc.tensor_reduce' op cannot run on the tensor engine}}
  nc.tensor_reduce "max" #r, #x {engine = "tensor"}
  return
}

// -----

#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
func.func @memset_on_dma() {
  // expected-error@+1 {{'nc.memset' op cannot run on the dma engine}}
  nc.memset #x, 0.0 {engine = "dma"}
  return
}

// -----

#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
#h = #nc.ap<"hbm", f32, tensor = 0, partitions = [0, 128], pstride = 512, offset = 0, dims = [512], strides = [1]>
func.func @dma_on_gpsimd() {
  // expected-error@+1 {{'nc.dma_copy' op cannot run on the gpsimd engine}}
  nc.dma_copy #x, #h {engine = "gpsimd"}
  return
}

// -----
// Only DMA reaches HBM

#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
#h = #nc.ap<"hbm", f32, tensor = 0, partitions = [0, 128], pstride = 512, offset = 0, dims = [512], strides = [1]>
func.func @copy_reads_hbm() {
  // expected-error@+1 {{'nc.tensor_copy' op compute engines cannot access HBM}}
  nc.tensor_copy #x, #h {engine = "vector"}
  return
}

// -----

#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
#h = #nc.ap<"hbm", f32, tensor = 2, partitions = [0, 128], pstride = 512, offset = 0, dims = [512], strides = [1]>
func.func @activation_writes_hbm() {
  // expected-error@+1 {{compute engines cannot access HBM}}
  nc.activation "identity" #h, #x {engine = "scalar", scale = 1.0 : f32}
  return
}

// -----

#h = #nc.ap<"hbm", f32, tensor = 0, partitions = [0, 128], pstride = 512, offset = 0, dims = [512], strides = [1]>
func.func @memset_hbm() {
  // expected-error@+1 {{compute engines cannot access HBM}}
  nc.memset #h, 0.0 {engine = "gpsimd"}
  return
}

// -----
// Waits, signals and queues

#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
func.func @waits_odd() {
  // expected-error@+1 {{'nc.tensor_copy' op waits must hold (semaphore, count) pairs}}
  nc.tensor_copy #x, #x {engine = "vector", waits = array<i64: 0, 1, 2>}
  return
}

// -----

#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
func.func @waits_negative_semaphore() {
  // expected-error@+1 {{waits for semaphore -1 to reach 1; semaphores are numbered from 0 and counts start at 1}}
  nc.tensor_copy #x, #x {engine = "vector", waits = array<i64: 0, 2, -1, 1>}
  return
}

// -----

#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
func.func @waits_zero_count() {
  // expected-error@+1 {{waits for semaphore 3 to reach 0}}
  nc.tensor_copy #x, #x {engine = "vector", waits = array<i64: 3, 0>}
  return
}

// -----

#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
func.func @waits_not_an_array() {
  // expected-error@+1 {{attribute 'waits' failed to satisfy constraint: i64 dense array attribute}}
  nc.tensor_copy #x, #x {engine = "vector", waits = [0, 1]}
  return
}

// -----

#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
func.func @signals_negative() {
  // expected-error@+1 {{'nc.memset' op signals semaphore -2; semaphores are numbered from 0}}
  nc.memset #x, 0.0 {engine = "vector", signals = array<i64: 1, -2>}
  return
}

// -----

#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
#h = #nc.ap<"hbm", f32, tensor = 0, partitions = [0, 128], pstride = 512, offset = 0, dims = [512], strides = [1]>
func.func @negative_queue() {
  // expected-error@+1 {{'nc.dma_copy' op has negative DMA queue -1}}
  nc.dma_copy #x, #h {engine = "dma", queue = -1 : i64}
  return
}

// -----
// Access patterns

#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
#l2 = #nc.ap<"l2", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
func.func @unknown_space() {
  // expected-error@+1 {{unknown memory space 'l2'}}
  nc.tensor_copy #x, #l2 {engine = "vector"}
  return
}

// -----

#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
#i = #nc.ap<"sbuf", i32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
func.func @integer_elements() {
  // expected-error@+1 {{unsupported element type 'i32'}}
  nc.tensor_copy #i, #x {engine = "vector"}
  return
}

// -----

#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
#bad = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [4, 128], strides = [1]>
func.func @stride_missing() {
  // expected-error@+1 {{access patterns need 1 to 4 free dimensions, each with a stride}}
  nc.tensor_copy #x, #bad {engine = "vector"}
  return
}

// -----

#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [2, 2, 2, 2, 32], strides = [1, 1, 1, 1, 1]>
func.func @five_dims() {
  // expected-error@+1 {{access patterns need 1 to 4 free dimensions, each with a stride}}
  nc.memset #x, 0.0 {engine = "vector"}
  return
}

// -----

#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 0], pstride = 0, offset = 0, dims = [512], strides = [1]>
func.func @no_partitions() {
  // expected-error@+1 {{access patterns touch at least one partition}}
  nc.memset #x, 0.0 {engine = "vector"}
  return
}

// -----

#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
#h = #nc.ap<"hbm", f32, tensor = -1, partitions = [0, 128], pstride = 512, offset = 0, dims = [512], strides = [1]>
func.func @hbm_without_tensor() {
  // expected-error@+1 {{HBM access patterns (and only they) name a tensor}}
  nc.dma_copy #x, #h {engine = "dma"}
  return
}

// -----

#x = #nc.ap<"sbuf", f32, tensor = 0, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
#h = #nc.ap<"hbm", f32, tensor = 0, partitions = [0, 128], pstride = 512, offset = 0, dims = [512], strides = [1]>
func.func @sbuf_with_tensor() {
  // expected-error@+1 {{HBM access patterns (and only they) name a tensor}}
  nc.dma_copy #x, #h {engine = "dma"}
  return
}

// -----
// Shapes

#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
#h = #nc.ap<"hbm", f32, tensor = 0, partitions = [0, 128], pstride = 512, offset = 0, dims = [256], strides = [1]>
func.func @dma_sizes_differ() {
  // expected-error@+1 {{'nc.dma_copy' op source and destination hold different numbers of elements}}
  nc.dma_copy #x, #h {engine = "dma"}
  return
}

// -----

// Same element count, different shape: a DMA may reshape.
#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 64], pstride = 0, offset = 0, dims = [1024], strides = [1]>
#h = #nc.ap<"hbm", f32, tensor = 0, partitions = [0, 128], pstride = 512, offset = 0, dims = [512], strides = [1]>
// CHECK-LABEL: func.func @dma_reshapes
func.func @dma_reshapes() {
  // CHECK: nc.dma_copy
  nc.dma_copy #x, #h {engine = "dma"}
  return
}

// -----

#ps = #nc.ap<"psum", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
#st = #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [128], strides = [1]>
#mv = #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 64], pstride = 0, offset = 256, dims = [512], strides = [1]>
func.func @matmul_contraction_mismatch() {
  // expected-error@+1 {{stationary and moving must share the contraction (partition) dimension}}
  nc.matmul #ps, #st, #mv {engine = "tensor"}
  return
}

// -----

#dst = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 4096, dims = [512], strides = [1]>
#st = #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [128], strides = [1]>
#mv = #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 256, dims = [512], strides = [1]>
func.func @matmul_into_sbuf() {
  // expected-error@+1 {{'nc.matmul' op dst must be an f32 tile in PSUM}}
  nc.matmul #dst, #st, #mv {engine = "tensor"}
  return
}

// -----

#dst = #nc.ap<"psum", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
#st = #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [128], strides = [1]>
#mv = #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 256, dims = [512], strides = [1]>
func.func @matmul_bf16_psum() {
  // expected-error@+1 {{dst must be an f32 tile in PSUM}}
  nc.matmul #dst, #st, #mv {engine = "tensor"}
  return
}

// -----

#dst = #nc.ap<"psum", f32, tensor = -1, partitions = [0, 64], pstride = 0, offset = 0, dims = [512], strides = [1]>
#st = #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [128], strides = [1]>
#mv = #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 256, dims = [512], strides = [1]>
func.func @matmul_dst_partitions() {
  // expected-error@+1 {{'nc.matmul' op dst must be [stationary free, moving free]}}
  nc.matmul #dst, #st, #mv {engine = "tensor"}
  return
}

// -----

#dst = #nc.ap<"psum", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [256], strides = [1]>
#st = #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [128], strides = [1]>
#mv = #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 256, dims = [512], strides = [1]>
func.func @matmul_dst_free() {
  // expected-error@+1 {{dst must be [stationary free, moving free]}}
  nc.matmul #dst, #st, #mv {engine = "tensor"}
  return
}

// -----

// A device print reads a tile, writes nothing, and may carry a kernel's own semaphores (nc.manual).
#t = #nc.ap<"psum", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
// CHECK-LABEL: func.func @print
// CHECK: nc.print "acc" #nc.ap<"psum", f32, {{.*}}> {engine = "vector", nc.manual, signals = array<i64: 1>, waits = array<i64: 0, 1>}
func.func @print() {
  nc.print "acc" #t {engine = "vector", nc.manual, waits = array<i64: 0, 1>, signals = array<i64: 1>}
  return
}

// -----

#h = #nc.ap<"hbm", f32, tensor = 0, partitions = [0, 128], pstride = 512, offset = 0, dims = [512], strides = [1]>
func.func @print_on_dma() {
  // expected-error@+1 {{'nc.print' op cannot run on the dma engine}}
  nc.print "h" #h {engine = "dma"}
  return
}

// -----

#t = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
func.func @print_on_tensor() {
  // expected-error@+1 {{'nc.print' op cannot run on the tensor engine}}
  nc.print "t" #t {engine = "tensor"}
  return
}
