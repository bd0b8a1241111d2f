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
  // CHECK: nc.inst "tensor_scalar" {dst = #nc.ap<"sbuf", bf16, {{.*}}>, engine = "scalar", params = {alu = "subtract", alu1 = "multiply", operand1 = 5.000000e-01 : f32, reverse0}, src0 = #nc.ap<"sbuf", f32, {{.*}}>, src1 = #nc.ap<"psum", f32, {{.*}} dims = [1], strides = [1]>}
  nc.inst "tensor_scalar" {dst = #y, src0 = #x, src1 = #col, params = {alu = "subtract", reverse0, alu1 = "multiply", operand1 = 0.5 : f32}, engine = "scalar"}
  // CHECK: nc.inst "scalar_tensor_tensor" {{.*}} params = {alu = "max", alu1 = "add", operand0 = -1.000000e+00 : f32, reverse1}
  nc.inst "scalar_tensor_tensor" {dst = #y, src0 = #x, src2 = #y, params = {alu = "max", operand0 = -1.0 : f32, alu1 = "add", reverse1}, engine = "vector"}
  // CHECK: nc.inst "reciprocal" {dst = {{.*}}, engine = "vector", src0 = {{.*}}}
  nc.inst "reciprocal" {dst = #x, src0 = #x, engine = "vector"}
  // CHECK: nc.inst "tensor_copy_predicated" {dst = {{.*}}, engine = "vector", params = {reverse0}, src0 = {{.*}}, src1 = #nc.ap<"sbuf", ui8, {{.*}}>}
  nc.inst "tensor_copy_predicated" {dst = #x, src0 = #x, src1 = #mask, params = {reverse0}, engine = "vector"}
  // CHECK: nc.inst "iota" {dst = #nc.ap<"sbuf", si32, {{.*}} dims = [4, 128], strides = [128, 1]>, engine = "gpsimd", params = {pattern = array<i64: -3, 512, 128, 1, 0, 0>}}
  nc.inst "iota" {dst = #idx, params = {pattern = array<i64: -3, 512, 128, 1, 0, 0>}, engine = "gpsimd"}
  // CHECK: nc.inst "affine_select" {{.*}} params = {alu = "is_ge", on_false = -3.000000e+38 : f32, pattern = array<i64: 0, 1, -1, 0, 0, 0>}
  nc.inst "affine_select" {dst = #x, src0 = #x, params = {alu = "is_ge", on_false = -3.0e38 : f32, pattern = array<i64: 0, 1, -1, 0, 0, 0>}, engine = "gpsimd"}
  // CHECK: nc.inst "range_select" {dst = {{.*}}, dst2 = #nc.ap<"sbuf", f32, {{.*}} dims = [1], {{.*}}>, engine = "vector", params = {alu = "is_ge", alu1 = "is_lt", on_false = -3.40282347E+38 : f32, pattern = array<i64: 16, 0, 0, 0, 0, 0>}
  nc.inst "range_select" {dst = #x, dst2 = #col2, src0 = #x, src1 = #col2, src2 = #col2, params = {alu = "is_ge", alu1 = "is_lt", on_false = -3.40282347E+38 : f32, pattern = array<i64: 16, 0, 0, 0, 0, 0>}, engine = "vector"}
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

// -----

// The vendor's rules, each naming itself and where it is documented: divide is no ALU operation of NeuronCore
// engines (multiply by a reciprocal instead).
#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
func.func @divide_is_no_alu_operation() {
  // expected-error@+1 {{'nc.inst' op divide is not an ALU operation of NeuronCore engines; multiply by a reciprocal (nki.isa.reciprocal, or activation reciprocal) instead [rule alu.table: NKI API reference}}
  nc.inst "tensor_scalar" {dst = #x, src0 = #x, params = {alu = "divide", operand0 = 2.0 : f32}, engine = "vector"}
  return
}

// -----

// tensor_tensor does not broadcast a [P, 1] operand: that is tensor_scalar's.
#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
#b = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 4096, dims = [512], strides = [0]>
func.func @tensor_tensor_broadcast() {
  // expected-error@+1 {{tensor_tensor does not broadcast: an operand reads one element per partition across the row; use tensor_scalar with the [P, 1] tile as operand0 [rule tensor_tensor.no-broadcast}}
  nc.inst "tensor_tensor" {dst = #x, src0 = #x, src1 = #b, params = {alu = "add"}, engine = "vector"}
  return
}

// -----

// range_select fills with FP32's lowest value only (a hardware constraint).
#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
#col = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 8192, dims = [1], strides = [1]>
func.func @range_select_fill() {
  // expected-error@+1 {{on_false_value must be FP32's lowest value, -3.4028235e+38 (a hardware constraint), not 0 [rule range_select.on-false-value}}
  nc.inst "range_select" {dst = #x, src0 = #x, src1 = #col, src2 = #col, params = {alu = "is_ge", alu1 = "is_lt"}, engine = "vector"}
  return
}

// -----

// A setting the instruction does not read is a mistake, not a no-op.
#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
func.func @unread_setting() {
  // expected-error@+1 {{'nc.inst' op takes no setting 'scale' (it is 2; tensor_copy reads none)}}
  nc.inst "tensor_copy" {dst = #x, src0 = #x, params = {scale = 2.0 : f32}, engine = "vector"}
  return
}
