// The reductions, scans and statistics as generic nc.inst ops: each prints as it parses (also through the generic
// form), and the verifier is the instruction's definition.
// RUN: tessera-opt %s -split-input-file -verify-diagnostics | tessera-opt -split-input-file | FileCheck %s
// RUN: tessera-opt %s -split-input-file -verify-diagnostics -mlir-print-op-generic | tessera-opt -split-input-file | FileCheck %s

#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
#y = #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 4096, dims = [512], strides = [1]>
#ps = #nc.ap<"psum", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
#col = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 8192, dims = [1], strides = [1]>
#row = #nc.ap<"sbuf", f32, tensor = -1, partitions = [7, 1], pstride = 0, offset = 8192, dims = [512], strides = [1]>
#stats = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 12288, dims = [2, 6], strides = [6, 1]>
#mv = #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 12800, dims = [2], strides = [1]>
#eight = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 13312, dims = [8], strides = [1]>
#idx = #nc.ap<"sbuf", ui32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 13568, dims = [8], strides = [1]>

// CHECK-LABEL: func.func @reductions
func.func @reductions() {
  // CHECK: nc.inst "activation_reduce" {dst = #nc.ap<"sbuf", bf16, {{.*}}>, dst2 = #nc.ap<"sbuf", f32, {{.*}} dims = [1], strides = [1]>, engine = "scalar", params = {bias = 5.000000e-01 : f32, func = "exp", scale = -1.000000e+00 : f32}, src0 = #nc.ap<"psum", {{.*}}>}
  nc.inst "activation_reduce" {dst = #y, dst2 = #col, src0 = #ps, params = {func = "exp", scale = -1.0 : f32, bias = 0.5 : f32}, engine = "scalar"}
  // CHECK: nc.inst "tensor_partition_reduce" {dst = #nc.ap<"sbuf", f32, tensor = -1, partitions = [7, 1], {{.*}}>, engine = "gpsimd", params = {alu = "max"}, src0 = {{.*}}}
  nc.inst "tensor_partition_reduce" {dst = #row, src0 = #x, params = {alu = "max"}, engine = "gpsimd"}
  // CHECK: nc.inst "tensor_tensor_scan" {{{.*}}engine = "vector", params = {alu = "multiply", alu1 = "bypass", initial = 1.000000e+00 : f32, reverse1}, src0 = {{.*}}, src1 = #nc.ap<"psum", {{.*}}>}
  nc.inst "tensor_tensor_scan" {dst = #x, src0 = #y, src1 = #ps, params = {alu = "multiply", alu1 = "bypass", initial = 1.0 : f32, reverse1}, engine = "vector"}
  // CHECK: nc.inst "tensor_tensor_scan" {{{.*}}src2 = #nc.ap<"sbuf", f32, {{.*}} dims = [1], strides = [1]>}
  nc.inst "tensor_tensor_scan" {dst = #x, src0 = #y, src1 = #ps, src2 = #col, params = {alu = "multiply", alu1 = "add"}, engine = "vector"}
  // CHECK: nc.inst "bn_stats" {dst = #nc.ap<"sbuf", f32, {{.*}} dims = [6], strides = [1]>, engine = "vector", src0 = {{.*}}}
  nc.inst "bn_stats" {dst = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 12288, dims = [6], strides = [1]>, src0 = #x, engine = "vector"}
  // CHECK: nc.inst "bn_aggr" {dst = #nc.ap<"sbuf", bf16, {{.*}} dims = [2], strides = [1]>, engine = "vector", src0 = #nc.ap<"sbuf", f32, {{.*}} dims = [2, 6], strides = [6, 1]>}
  nc.inst "bn_aggr" {dst = #mv, src0 = #stats, engine = "vector"}
  // CHECK: nc.inst "max8" {dst = {{.*}} dims = [8], {{.*}}, engine = "vector", src0 = {{.*}}}
  nc.inst "max8" {dst = #eight, src0 = #y, engine = "vector"}
  // CHECK: nc.inst "nc_find_index8" {dst = #nc.ap<"sbuf", ui32, {{.*}}>, engine = "vector", src0 = {{.*}}, src1 = {{.*}}}
  nc.inst "nc_find_index8" {dst = #idx, src0 = #y, src1 = #eight, engine = "vector"}
  // CHECK: nc.inst "nc_match_replace8" {dst = {{.*}}, dst2 = #nc.ap<"sbuf", ui32, {{.*}}>, engine = "vector", params = {value = 0xFF800000 : f32}, src0 = {{.*}}, src1 = {{.*}}}
  nc.inst "nc_match_replace8" {dst = #y, dst2 = #idx, src0 = #y, src1 = #eight, params = {value = 0xFF800000 : f32}, engine = "vector"}
  return
}

// -----

#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
#row = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 1], pstride = 0, offset = 8192, dims = [512], strides = [1]>
func.func @partition_reduce_is_gpsimd_only() {
  // expected-error@+1 {{'nc.inst' op cannot run on the vector engine}}
  nc.inst "tensor_partition_reduce" {dst = #row, src0 = #x, engine = "vector"}
  return
}

// -----

#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
#ps = #nc.ap<"psum", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
func.func @scan_operands_not_both_in_psum() {
  // expected-error@+1 {{data0 and data1 are both in PSUM; at most one of them may be}}
  nc.inst "tensor_tensor_scan" {dst = #x, src0 = #ps, src1 = #ps, params = {alu = "add", alu1 = "add"}, engine = "vector"}
  return
}

// -----

#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [10], strides = [1]>
#mv = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 4096, dims = [2], strides = [1]>
func.func @bn_aggr_reads_whole_triples() {
  // expected-error@+1 {{data has 10 elements per partition; it must hold whole (count, mean, M2) triples}}
  nc.inst "bn_aggr" {dst = #mv, src0 = #x, engine = "vector"}
  return
}

// -----

#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
#eight = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 4096, dims = [8], strides = [1]>
func.func @find_index8_writes_u32() {
  // expected-error@+1 {{'nc.inst' op dst must be u32 (indices), not f32}}
  nc.inst "nc_find_index8" {dst = #eight, src0 = #x, src1 = #eight, engine = "vector"}
  return
}

// -----

#x = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>
#col = #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 4096, dims = [1], strides = [1]>
func.func @activation_reduce_needs_reduce_res() {
  // expected-error@+1 {{'nc.inst' op needs operand dst2}}
  nc.inst "activation_reduce" {dst = #x, src0 = #x, params = {func = "exp"}, engine = "scalar"}
  return
}
