// The elementwise, selection and transpose instructions as generic nc.inst ops: each prints as it parses (also
// through the generic form), with its parameters, and the verifier applies each instruction's own rules.
// RUN: tessera-opt %s -split-input-file -verify-diagnostics | tessera-opt -split-input-file | FileCheck %s
// RUN: tessera-opt %s -split-input-file -verify-diagnostics -mlir-print-op-generic | tessera-opt -split-input-file | FileCheck %s

#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
#y = #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 4096, dims = [512], strides = [1]>
#col = #nc.ap<"psum", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [1], strides = [1]>
#col2 = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 8192, dims = [1], strides = [1]>
#mask = #nc.ap<"sbuf", ui8, tensor = -1, partitions = [0, 128], pstride = 0, offset = 10000, dims = [512], strides = [1]>
#idx = #nc.ap<"sbuf", si32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 12000, dims = [4, 128], strides = [128, 1]>

// CHECK-LABEL: func.func @elementwise
func.func @elementwise() {
  // CHECK: nc.inst "tensor_scalar" {dst = #nc.ap<"sbuf", bf16, {{.*}}>, engine = "scalar", params = {alu = "subtract", alu1 = "multiply", imm1 = 5.000000e-01 : f32, reverse0}, src0 = #nc.ap<"sbuf", f32, {{.*}}>, src1 = #nc.ap<"psum", f32, {{.*}} dims = [1], strides = [1]>}
  nc.inst "tensor_scalar" {dst = #y, src0 = #x, src1 = #col, params = {alu = "subtract", reverse0, alu1 = "multiply", imm1 = 0.5 : f32}, engine = "scalar"}
  // CHECK: nc.inst "scalar_tensor_tensor" {{.*}} params = {alu = "max", alu1 = "add", imm = -1.000000e+00 : f32, reverse1}
  nc.inst "scalar_tensor_tensor" {dst = #y, src0 = #x, src2 = #y, params = {alu = "max", imm = -1.0 : f32, alu1 = "add", reverse1}, engine = "vector"}
  // CHECK: nc.inst "reciprocal" {dst = {{.*}}, engine = "vector", src0 = {{.*}}}
  nc.inst "reciprocal" {dst = #x, src0 = #x, engine = "vector"}
  // CHECK: nc.inst "tensor_copy_predicated" {dst = {{.*}}, engine = "vector", params = {reverse0}, src0 = {{.*}}, src1 = #nc.ap<"sbuf", ui8, {{.*}}>}
  nc.inst "tensor_copy_predicated" {dst = #x, src0 = #x, src1 = #mask, params = {reverse0}, engine = "vector"}
  // CHECK: nc.inst "iota" {dst = #nc.ap<"sbuf", si32, {{.*}} dims = [4, 128], strides = [128, 1]>, engine = "gpsimd", params = {pattern = array<i64: -3, 512, 128, 1, 0, 0>}}
  nc.inst "iota" {dst = #idx, params = {pattern = array<i64: -3, 512, 128, 1, 0, 0>}, engine = "gpsimd"}
  // CHECK: nc.inst "affine_select" {{.*}} params = {alu = "is_ge", imm = -3.000000e+38 : f32, pattern = array<i64: 0, 1, -1, 0, 0, 0>}
  nc.inst "affine_select" {dst = #x, src0 = #x, params = {alu = "is_ge", imm = -3.0e38 : f32, pattern = array<i64: 0, 1, -1, 0, 0, 0>}, engine = "gpsimd"}
  // CHECK: nc.inst "range_select" {dst = {{.*}}, dst2 = #nc.ap<"sbuf", f32, {{.*}} dims = [1], {{.*}}>, engine = "vector", params = {alu = "is_ge", alu1 = "is_lt", pattern = array<i64: 16, 0, 0, 0, 0, 0>}
  nc.inst "range_select" {dst = #x, dst2 = #col2, src0 = #x, src1 = #col2, src2 = #col2, params = {alu = "is_ge", alu1 = "is_lt", pattern = array<i64: 16, 0, 0, 0, 0, 0>}, engine = "vector"}
  return
}

// -----

#h = #nc.ap<"hbm", bf16, tensor = 0, partitions = [0, 64], pstride = 128, offset = 0, dims = [128], strides = [1]>
#t = #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [64], strides = [1]>
// CHECK-LABEL: func.func @dma_transpose
func.func @dma_transpose() {
  // CHECK: nc.inst "dma_transpose" {dst = #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], {{.*}}>, engine = "dma", queue = 3 : i64, src0 = #nc.ap<"hbm", bf16, tensor = 0, partitions = [0, 64], {{.*}}>}
  nc.inst "dma_transpose" {dst = #t, src0 = #h, engine = "dma", queue = 3 : i64}
  return
}

// -----

#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
#wide = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 8192, dims = [2], strides = [1]>
func.func @tensor_scalar_operand_not_a_column() {
  // expected-error@+1 {{'nc.inst' op operand0 must be a [128, 1] tile (one value per partition), not [128, 2]}}
  nc.inst "tensor_scalar" {dst = #x, src0 = #x, src1 = #wide, params = {alu = "add"}, engine = "vector"}
  return
}

// -----

#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
func.func @reciprocal_on_scalar() {
  // expected-error@+1 {{'nc.inst' op cannot run on the scalar engine}}
  nc.inst "reciprocal" {dst = #x, src0 = #x, engine = "scalar"}
  return
}

// -----

#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
func.func @iota_pattern_beyond_dst() {
  // expected-error@+1 {{the pattern steps along free dimension 1, but dst has only 1}}
  nc.inst "iota" {dst = #x, params = {pattern = array<i64: 0, 1, 1, 7, 0, 0>}, engine = "gpsimd"}
  return
}

// -----

#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
func.func @affine_select_needs_a_comparison() {
  // expected-error@+1 {{cmp_op must be a comparison}}
  nc.inst "affine_select" {dst = #x, src0 = #x, params = {alu = "add"}, engine = "gpsimd"}
  return
}

// -----

#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
#m = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 4096, dims = [512], strides = [1]>
func.func @predicate_must_be_unsigned_integer() {
  // expected-error@+1 {{predicate must be u8 or u32, not f32}}
  nc.inst "tensor_copy_predicated" {dst = #x, src0 = #x, src1 = #m, engine = "vector"}
  return
}

// -----

#h = #nc.ap<"hbm", f32, tensor = 0, partitions = [0, 64], pstride = 128, offset = 0, dims = [128], strides = [1]>
#t = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [64], strides = [1]>
func.func @dma_transpose_of_fp32() {
  // expected-error@+1 {{src must have a 2-byte dtype (bf16, f16), not f32}}
  nc.inst "dma_transpose" {dst = #t, src0 = #h, engine = "dma"}
  return
}
