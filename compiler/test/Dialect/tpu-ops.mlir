// The tpu dialect: every TensorCore instruction prints as it parses (also through the generic form), and the
// verifiers, the instruction definitions' own, reject instructions the units cannot run.
// RUN: tessera-opt %s -split-input-file -verify-diagnostics | tessera-opt -split-input-file | FileCheck %s
// RUN: tessera-opt %s -split-input-file -verify-diagnostics -mlir-print-op-generic | tessera-opt -split-input-file | FileCheck %s

#ha = #tpu.ref<"hbm", bf16, tensor = 0, rows = 128, pitch = 1024, offset = 65536, dims = [128], strides = [1]>
#hb = #tpu.ref<"hbm", bf16, tensor = 1, rows = 128, pitch = 512, offset = 0, dims = [512], strides = [1]>
#a = #tpu.ref<"vmem", bf16, tensor = -1, rows = 128, pitch = 128, offset = 0, dims = [128], strides = [1]>
#b = #tpu.ref<"vmem", bf16, tensor = -1, rows = 128, pitch = 512, offset = 32768, dims = [512], strides = [1]>
#acc = #tpu.ref<"vmem", f32, tensor = -1, rows = 128, pitch = 512, offset = 163840, dims = [512], strides = [1]>

// CHECK-LABEL: func.func @dma_and_matmul
func.func @dma_and_matmul() {
  // The scalar core's grid step has no operands; the default queue, 0, is not printed.
  // CHECK: tpu.grid_step {engine = "scalar"}{{$}}
  tpu.grid_step {engine = "scalar", queue = 0 : i64}
  // CHECK: tpu.dma #tpu.ref<"vmem", bf16, tensor = -1, rows = 128, pitch = 128, offset = 0, dims = [128], strides = [1]>, #tpu.ref<"hbm", bf16, tensor = 0, rows = 128, pitch = 1024, offset = 65536, dims = [128], strides = [1]> {engine = "dma", signals = array<i64: 0>}
  tpu.dma #a, #ha {engine = "dma", signals = array<i64: 0>}
  // CHECK: tpu.dma {{.*}} {engine = "dma", queue = 3 : i64, signals = array<i64: 1>}
  tpu.dma #b, #hb {engine = "dma", queue = 3 : i64, signals = array<i64: 1>}
  // CHECK: tpu.mxu_matmul #tpu.ref<"vmem", f32, tensor = -1, rows = 128, pitch = 512, offset = 163840, dims = [512], strides = [1]>, #tpu.ref<"vmem", bf16, {{.*}} offset = 0, {{.*}}>, #tpu.ref<"vmem", bf16, {{.*}} offset = 32768, {{.*}}> {engine = "mxu", waits = array<i64: 0, 1, 1, 1>}
  tpu.mxu_matmul #acc, #a, #b {engine = "mxu", waits = array<i64: 0, 1, 1, 1>}
  // CHECK: tpu.mxu_matmul {{.*}} {accumulate, engine = "mxu", signals = array<i64: 2>}
  tpu.mxu_matmul #acc, #a, #b {accumulate, engine = "mxu", signals = array<i64: 2>}
  // A store: VMEM to HBM.
  // CHECK: tpu.dma #tpu.ref<"hbm", bf16, tensor = 1, {{.*}}>, #tpu.ref<"vmem", bf16, {{.*}} offset = 32768, {{.*}}> {engine = "dma", queue = 8 : i64}
  tpu.dma #hb, #b {engine = "dma", queue = 8 : i64}
  return
}

// -----

#x = #tpu.ref<"vmem", f32, tensor = -1, rows = 100, pitch = 384, offset = 0, dims = [300], strides = [1]>
#col = #tpu.ref<"vmem", f32, tensor = -1, rows = 100, pitch = 128, offset = 196608, dims = [300], strides = [0]>
#red = #tpu.ref<"vmem", f32, tensor = -1, rows = 100, pitch = 128, offset = 196608, dims = [1], strides = [1]>
#y = #tpu.ref<"vmem", bf16, tensor = -1, rows = 100, pitch = 384, offset = 262144, dims = [300], strides = [1]>

// CHECK-LABEL: func.func @vpu
func.func @vpu() {
  // CHECK: tpu.vpu_reduce "max" #tpu.ref<"vmem", f32, tensor = -1, rows = 100, pitch = 128, offset = 196608, dims = [1], strides = [1]>, #tpu.ref<"vmem", f32, tensor = -1, rows = 100, pitch = 384, offset = 0, dims = [300], strides = [1]> {engine = "vpu"}
  tpu.vpu_reduce "max" #red, #x {engine = "vpu"}
  // An [R, 1] operand broadcasts along the row with stride 0.
  // CHECK: tpu.vpu_binary "subtract" #tpu.ref<"vmem", f32, {{.*}} offset = 0, {{.*}}>, #tpu.ref<"vmem", f32, {{.*}} offset = 0, {{.*}}>, #tpu.ref<"vmem", f32, tensor = -1, rows = 100, pitch = 128, offset = 196608, dims = [300], strides = [0]> {engine = "vpu"}
  tpu.vpu_binary "subtract" #x, #x, #col {engine = "vpu"}
  // CHECK: tpu.vpu_unary "exp" {{.*}} {engine = "vpu", scale = -2.500000e-01 : f32}
  tpu.vpu_unary "exp" #x, #x {engine = "vpu", scale = -0.25 : f32}
  // CHECK: tpu.vpu_convert #tpu.ref<"vmem", bf16, {{.*}}>, #tpu.ref<"vmem", f32, {{.*}}> {engine = "vpu"}
  tpu.vpu_convert #y, #x {engine = "vpu"}
  // CHECK: tpu.vpu_fill #tpu.ref<"vmem", f32, {{.*}}>, -1.500000e+00 {engine = "vpu", signals = array<i64: 4>, waits = array<i64: 2, 9>}
  tpu.vpu_fill #x, -1.5 {engine = "vpu", waits = array<i64: 2, 9>, signals = array<i64: 4>}
  // CHECK: tpu.print "x" #tpu.ref<"vmem", f32, {{.*}}> {engine = "vpu"}
  tpu.print "x" #x {engine = "vpu"}
  return
}

// -----
// Units

#x = #tpu.ref<"vmem", f32, tensor = -1, rows = 8, pitch = 128, offset = 0, dims = [128], strides = [1]>
func.func @neuroncore_engine() {
  // expected-error@+1 {{'tpu.vpu_convert' op has unknown engine "vector"}}
  tpu.vpu_convert #x, #x {engine = "vector"}
  return
}

// -----

#x = #tpu.ref<"vmem", f32, tensor = -1, rows = 8, pitch = 128, offset = 0, dims = [128], strides = [1]>
#w = #tpu.ref<"vmem", bf16, tensor = -1, rows = 8, pitch = 128, offset = 4096, dims = [128], strides = [1]>
func.func @matmul_on_vpu() {
  // expected-error@+1 {{'tpu.mxu_matmul' op cannot run on the vpu engine}}
  tpu.mxu_matmul #x, #w, #w {engine = "vpu"}
  return
}

// -----

#x = #tpu.ref<"vmem", f32, tensor = -1, rows = 8, pitch = 128, offset = 0, dims = [128], strides = [1]>
func.func @binary_on_mxu() {
  // expected-error@+1 {{'tpu.vpu_binary' op cannot run on the mxu engine}}
  tpu.vpu_binary "add" #x, #x, #x {engine = "mxu"}
  return
}

// -----

func.func @grid_step_on_vpu() {
  // expected-error@+1 {{'tpu.grid_step' op cannot run on the vpu engine}}
  tpu.grid_step {engine = "vpu"}
  return
}

// -----

#x = #tpu.ref<"vmem", f32, tensor = -1, rows = 8, pitch = 128, offset = 0, dims = [128], strides = [1]>
func.func @print_on_scalar() {
  // expected-error@+1 {{'tpu.print' op cannot run on the scalar engine}}
  tpu.print "x" #x {engine = "scalar"}
  return
}

// -----
// Memories and access patterns

#x = #tpu.ref<"sbuf", f32, tensor = -1, rows = 8, pitch = 128, offset = 0, dims = [128], strides = [1]>
func.func @neuroncore_memory() {
  // expected-error@+1 {{'tpu.vpu_fill' op unknown memory space 'sbuf'}}
  tpu.vpu_fill #x, 0.0 {engine = "vpu"}
  return
}

// -----

#h = #tpu.ref<"hbm", f32, tensor = 0, rows = 8, pitch = 128, offset = 0, dims = [128], strides = [1]>
func.func @fill_hbm() {
  // expected-error@+1 {{'tpu.vpu_fill' op compute engines cannot access HBM}}
  tpu.vpu_fill #h, 0.0 {engine = "vpu"}
  return
}

// -----

#h = #tpu.ref<"hbm", f32, tensor = -1, rows = 8, pitch = 128, offset = 0, dims = [128], strides = [1]>
#x = #tpu.ref<"vmem", f32, tensor = -1, rows = 8, pitch = 128, offset = 0, dims = [128], strides = [1]>
func.func @hbm_without_tensor() {
  // expected-error@+1 {{HBM access patterns (and only they) name a tensor}}
  tpu.dma #x, #h {engine = "dma"}
  return
}

// -----

#x = #tpu.ref<"vmem", f32, tensor = -1, rows = 0, pitch = 128, offset = 0, dims = [128], strides = [1]>
func.func @no_rows() {
  // expected-error@+1 {{access patterns touch at least one row}}
  tpu.vpu_fill #x, 0.0 {engine = "vpu"}
  return
}

// -----

#x = #tpu.ref<"vmem", f32, tensor = -1, rows = 8, pitch = -128, offset = 0, dims = [128], strides = [1]>
func.func @negative_pitch() {
  // expected-error@+1 {{has a negative row pitch -128}}
  tpu.vpu_fill #x, 0.0 {engine = "vpu"}
  return
}

// -----

#x = #tpu.ref<"vmem", f32, tensor = -1, rows = 8, pitch = 128, offset = 0, dims = [128], strides = [1, 1]>
func.func @strides_without_dims() {
  // expected-error@+1 {{access patterns need 1 to 4 free dimensions, each with a stride}}
  tpu.vpu_fill #x, 0.0 {engine = "vpu"}
  return
}

// -----
// The instructions' own rules (isa/lib/instructions/Tpu*.cpp)

#x = #tpu.ref<"vmem", f32, tensor = -1, rows = 8, pitch = 128, offset = 0, dims = [128], strides = [1]>
#y = #tpu.ref<"vmem", f32, tensor = -1, rows = 8, pitch = 128, offset = 4096, dims = [128], strides = [1]>
func.func @dma_inside_vmem() {
  // expected-error@+1 {{'tpu.dma' op copies between HBM and VMEM, one side each; src_ref is in vmem and dst_ref in vmem}}
  tpu.dma #x, #y {engine = "dma"}
  return
}

// -----

#x = #tpu.ref<"vmem", bf16, tensor = -1, rows = 8, pitch = 128, offset = 0, dims = [128], strides = [1]>
#h = #tpu.ref<"hbm", f32, tensor = 0, rows = 8, pitch = 128, offset = 0, dims = [128], strides = [1]>
func.func @dma_converts() {
  // expected-error@+1 {{src_ref is f32 but dst_ref is bf16; a DMA moves bytes and keeps the dtype}}
  tpu.dma #x, #h {engine = "dma"}
  return
}

// -----

#acc = #tpu.ref<"vmem", bf16, tensor = -1, rows = 8, pitch = 128, offset = 0, dims = [128], strides = [1]>
#w = #tpu.ref<"vmem", bf16, tensor = -1, rows = 8, pitch = 128, offset = 4096, dims = [128], strides = [1]>
func.func @matmul_into_bf16() {
  // expected-error@+1 {{'tpu.mxu_matmul' op acc must be an f32 accumulator, not bf16}}
  tpu.mxu_matmul #acc, #w, #w {engine = "mxu"}
  return
}

// -----

#x = #tpu.ref<"vmem", f32, tensor = -1, rows = 8, pitch = 128, offset = 0, dims = [128], strides = [1]>
#y = #tpu.ref<"vmem", f32, tensor = -1, rows = 16, pitch = 128, offset = 4096, dims = [128], strides = [1]>
func.func @binary_shapes() {
  // expected-error@+1 {{lhs is [16, 128] but out is [8, 128]}}
  tpu.vpu_binary "add" #x, #y, #x {engine = "vpu"}
  return
}

// -----

#x = #tpu.ref<"vmem", f32, tensor = -1, rows = 8, pitch = 128, offset = 0, dims = [128], strides = [1]>
func.func @unknown_alu() {
  // expected-error@+1 {{'tpu.vpu_binary' op unknown ALU operation 'xor'}}
  tpu.vpu_binary "xor" #x, #x, #x {engine = "vpu"}
  return
}

// -----

#x = #tpu.ref<"vmem", f32, tensor = -1, rows = 8, pitch = 128, offset = 0, dims = [128], strides = [1]>
func.func @unknown_function() {
  // expected-error@+1 {{'tpu.vpu_unary' op unknown activation function 'softplus'}}
  tpu.vpu_unary "softplus" #x, #x {engine = "vpu", scale = 1.0 : f32}
  return
}

// -----
// Waits, signals and queues

#x = #tpu.ref<"vmem", f32, tensor = -1, rows = 8, pitch = 128, offset = 0, dims = [128], strides = [1]>
func.func @waits_odd() {
  // expected-error@+1 {{'tpu.vpu_fill' op waits must hold (semaphore, count) pairs}}
  tpu.vpu_fill #x, 0.0 {engine = "vpu", waits = array<i64: 0, 1, 2>}
  return
}

// -----

func.func @signals_negative() {
  // expected-error@+1 {{'tpu.grid_step' op signals semaphore -1; semaphores are numbered from 0}}
  tpu.grid_step {engine = "scalar", signals = array<i64: -1>}
  return
}

// -----

#x = #tpu.ref<"vmem", f32, tensor = -1, rows = 8, pitch = 128, offset = 0, dims = [128], strides = [1]>
#h = #tpu.ref<"hbm", f32, tensor = 0, rows = 8, pitch = 128, offset = 0, dims = [128], strides = [1]>
func.func @negative_queue() {
  // expected-error@+1 {{'tpu.dma' op has negative DMA queue -2}}
  tpu.dma #x, #h {engine = "dma", queue = -2 : i64}
  return
}
