// nc-insert-semaphores on a tpu module: the streams are the MXU, the VPU, the scalar core and each DMA queue. The
// TensorCore issues MXU, VPU and scalar-core instructions in order but does not wait for one to finish before the
// next starts, so dependencies between those streams get semaphores as DMA ones do. A VMEM operand is its exact
// rows, `pitch` elements apart: what lies between them (padding, other columns of the tile) is not touched.
// RUN: tessera-opt %s -split-input-file -nc-insert-semaphores | FileCheck %s

#ha = #tpu.ref<"hbm", bf16, tensor = 0, rows = 128, pitch = 128, offset = 0, dims = [128], strides = [1]>
#hb = #tpu.ref<"hbm", bf16, tensor = 1, rows = 128, pitch = 512, offset = 0, dims = [512], strides = [1]>
#hc = #tpu.ref<"hbm", bf16, tensor = 2, rows = 128, pitch = 512, offset = 0, dims = [512], strides = [1]>
#a = #tpu.ref<"vmem", bf16, tensor = -1, rows = 128, pitch = 128, offset = 0, dims = [128], strides = [1]>
#b = #tpu.ref<"vmem", bf16, tensor = -1, rows = 128, pitch = 512, offset = 32768, dims = [512], strides = [1]>
#acc = #tpu.ref<"vmem", f32, tensor = -1, rows = 128, pitch = 512, offset = 163840, dims = [512], strides = [1]>
#c = #tpu.ref<"vmem", bf16, tensor = -1, rows = 128, pitch = 512, offset = 425984, dims = [512], strides = [1]>

// RAW along a chain: two loads on two queues -> MXU -> VPU -> a store, one semaphore per pair of streams; the
// grid step touches no memory and waits for nothing. The second matmul (same stream) needs no wait.
// CHECK-LABEL: func.func @chain
// CHECK-NEXT: tpu.grid_step {engine = "scalar"}{{$}}
// CHECK-NEXT: tpu.dma {{.*}} {engine = "dma", signals = array<i64: 0>}
// CHECK-NEXT: tpu.dma {{.*}} {engine = "dma", queue = 1 : i64, signals = array<i64: 1>}
// CHECK-NEXT: tpu.mxu_matmul {{.*}} {engine = "mxu", waits = array<i64: 0, 1, 1, 1>}
// CHECK-NEXT: tpu.mxu_matmul {{.*}} {accumulate, engine = "mxu", signals = array<i64: 2>}
// CHECK-NEXT: tpu.vpu_convert {{.*}} {engine = "vpu", signals = array<i64: 3>, waits = array<i64: 2, 1>}
// CHECK-NEXT: tpu.dma {{.*}} {engine = "dma", queue = 8 : i64, waits = array<i64: 3, 1>}
func.func @chain() {
  tpu.grid_step {engine = "scalar"}
  tpu.dma #a, #ha {engine = "dma"}
  tpu.dma #b, #hb {engine = "dma", queue = 1 : i64}
  tpu.mxu_matmul #acc, #a, #b {engine = "mxu"}
  tpu.mxu_matmul #acc, #a, #b {accumulate, engine = "mxu"}
  tpu.vpu_convert #c, #acc {engine = "vpu"}
  tpu.dma #hc, #c {engine = "dma", queue = 8 : i64}
  return
}

// -----

#h = #tpu.ref<"hbm", f32, tensor = 0, rows = 8, pitch = 256, offset = 0, dims = [128], strides = [1]>
#left = #tpu.ref<"vmem", f32, tensor = -1, rows = 8, pitch = 256, offset = 0, dims = [128], strides = [1]>
#right = #tpu.ref<"vmem", f32, tensor = -1, rows = 8, pitch = 256, offset = 512, dims = [128], strides = [1]>
#whole = #tpu.ref<"vmem", f32, tensor = -1, rows = 8, pitch = 256, offset = 0, dims = [256], strides = [1]>
#m = #tpu.ref<"vmem", f32, tensor = -1, rows = 8, pitch = 128, offset = 8192, dims = [1], strides = [1]>

// Exact rows: a DMA fills the left half of each row of an [8, 256] tile; the VPU works on the right half, whose
// bytes lie between the left half's rows, so it does not wait. The reduction over whole rows does.
// CHECK-LABEL: func.func @windows
// CHECK-NEXT: tpu.dma {{.*}} {engine = "dma", signals = array<i64: 0>}
// CHECK-NEXT: tpu.vpu_fill {{.*}} {engine = "vpu"}{{$}}
// CHECK-NEXT: tpu.vpu_reduce "max" {{.*}} {engine = "vpu", waits = array<i64: 0, 1>}
func.func @windows() {
  tpu.dma #left, #h {engine = "dma"}
  tpu.vpu_fill #right, 0.0 {engine = "vpu"}
  tpu.vpu_reduce "max" #m, #whole {engine = "vpu"}
  return
}

// -----

#acc = #tpu.ref<"vmem", f32, tensor = -1, rows = 8, pitch = 128, offset = 0, dims = [128], strides = [1]>
#lhs = #tpu.ref<"vmem", bf16, tensor = -1, rows = 8, pitch = 128, offset = 16384, dims = [8], strides = [1]>
#w = #tpu.ref<"vmem", bf16, tensor = -1, rows = 8, pitch = 128, offset = 20480, dims = [128], strides = [1]>
#reused = #tpu.ref<"vmem", bf16, tensor = -1, rows = 4, pitch = 512, offset = 2048, dims = [100], strides = [1]>
#other = #tpu.ref<"vmem", bf16, tensor = -1, rows = 4, pitch = 512, offset = 6344, dims = [100], strides = [1]>
#h = #tpu.ref<"hbm", bf16, tensor = 0, rows = 4, pitch = 100, offset = 0, dims = [100], strides = [1]>

// Bytes reused with another pitch (sibling loops' tiles share VMEM): rows of different pitches are compared by
// the bytes they span. The load into bytes [2048, 5320) overwrites what the matmul wrote in [0, 4096): it waits
// (write after write). A load past the accumulator's last byte, into the gaps of the first load's rows (bytes
// 200 to 400 of each 1 KiB row, from row 6 on), waits for neither.
// CHECK-LABEL: func.func @reused_bytes
// CHECK-NEXT: tpu.mxu_matmul {{.*}} {engine = "mxu", signals = array<i64: 0>}
// CHECK-NEXT: tpu.dma {{.*}} {engine = "dma", waits = array<i64: 0, 1>}
// CHECK-NEXT: tpu.dma {{.*}} {engine = "dma", queue = 1 : i64}{{$}}
func.func @reused_bytes() {
  tpu.mxu_matmul #acc, #lhs, #w {engine = "mxu"}
  tpu.dma #reused, #h {engine = "dma"}
  tpu.dma #other, #h {engine = "dma", queue = 1 : i64}
  return
}
