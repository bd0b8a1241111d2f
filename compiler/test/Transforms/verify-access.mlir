// nc-verify-access: every SBUF/PSUM operand of an engine instruction against the access rules of the module's
// target ([access] in isa/targets/*.toml); DMA transfers are exempt. Rules: isa/AccessRules.h.
// RUN: tessera-opt %s -split-input-file -verify-diagnostics -nc-verify-access | FileCheck %s

// Partition starts that keep the rule pass and are left as they were: 32 partitions at 96, 64 at 64, 128 at 0;
// a DMA may start anywhere; four free dimensions, a stride of 32767, and 4096 PSUM elements are the limits.
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @fits
  func.func @fits() {
    // CHECK: nc.tensor_copy
    nc.tensor_copy #nc.ap<"sbuf", f32, tensor = -1, partitions = [96, 32], pstride = 0, offset = 0, dims = [16], strides = [1]>, #nc.ap<"sbuf", f32, tensor = -1, partitions = [96, 32], pstride = 0, offset = 64, dims = [16], strides = [1]> {engine = "vector"}
    // CHECK: nc.activation
    nc.activation "exp" #nc.ap<"sbuf", f32, tensor = -1, partitions = [64, 64], pstride = 0, offset = 0, dims = [2, 3, 4, 5], strides = [60, 20, 5, 1]>, #nc.ap<"psum", f32, tensor = -1, partitions = [64, 64], pstride = 0, offset = 0, dims = [120], strides = [1]> {engine = "scalar", scale = 1.0 : f32}
    // CHECK: nc.tensor_copy
    nc.tensor_copy #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [2], strides = [32767]>, #nc.ap<"psum", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [2], strides = [1]> {engine = "vector"}
    // CHECK: nc.memset
    nc.memset #nc.ap<"psum", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [4096], strides = [1]>, 0.0 {engine = "vector"}
    // CHECK: nc.dma_copy
    nc.dma_copy #nc.ap<"sbuf", f32, tensor = -1, partitions = [16, 8], pstride = 0, offset = 0, dims = [16], strides = [1]>, #nc.ap<"hbm", f32, tensor = 0, partitions = [0, 8], pstride = 16, offset = 0, dims = [16], strides = [1]> {engine = "dma"}
    return
  }
}

// -----

// 33-64 partitions start at 0 or 64.
module attributes {tessera.target = "trn2"} {
  func.func @half_at_32() {
    // expected-error@+1 {{operand dst (sbuf partitions [32, 96)) breaks the access rules of trn2: it starts at partition 32, but an access of 64 partitions starts at a multiple of 64}}
    nc.tensor_copy #nc.ap<"sbuf", f32, tensor = -1, partitions = [32, 64], pstride = 0, offset = 64, dims = [16], strides = [1]>, #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 64], pstride = 0, offset = 0, dims = [16], strides = [1]> {engine = "vector"}
    return
  }
}

// -----

// More than 64 partitions start at 0; a matmul's operands are held to it as well.
module attributes {tessera.target = "trn1"} {
  func.func @most_at_64() {
    // expected-error@+1 {{operand src0 (sbuf partitions [32, 128)) breaks the access rules of trn1: it starts at partition 32, but an access of 96 partitions starts at a multiple of 128}}
    nc.matmul #nc.ap<"psum", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>, #nc.ap<"sbuf", bf16, tensor = -1, partitions = [32, 96], pstride = 0, offset = 0, dims = [128], strides = [1]>, #nc.ap<"sbuf", bf16, tensor = -1, partitions = [32, 96], pstride = 0, offset = 256, dims = [512], strides = [1]> {engine = "tensor"}
    return
  }
}

// -----

// 32 or fewer partitions start on a quadrant: 0, 32, 64 or 96.
module attributes {tessera.target = "trn3"} {
  func.func @quarter_at_16() {
    // expected-error@+1 {{operand src0 (sbuf partitions [16, 32)) breaks the access rules of trn3: it starts at partition 16, but an access of 16 partitions starts at a multiple of 32}}
    nc.tensor_reduce "add" #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 16], pstride = 0, offset = 0, dims = [1], strides = [1]>, #nc.ap<"sbuf", f32, tensor = -1, partitions = [16, 16], pstride = 0, offset = 64, dims = [16], strides = [1]> {engine = "vector"}
    return
  }
}

// -----

// Strides are int16.
module attributes {tessera.target = "trn2"} {
  func.func @stride() {
    // expected-error@+1 {{operand src0 (sbuf partitions [0, 128)) breaks the access rules of trn2: it free dimension 0 has stride 32768; a stride lies in [-32768, 32767]}}
    nc.tensor_copy #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [2], strides = [1]>, #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [2], strides = [32768]> {engine = "gpsimd"}
    return
  }
}

// -----

// Sizes are uint16.
module attributes {tessera.target = "trn2"} {
  func.func @size() {
    // expected-error@+1 {{operand dst (sbuf partitions [0, 128)) breaks the access rules of trn2: it free dimension 0 has size 65536; a size is at most 65535}}
    nc.memset #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [65536], strides = [1]>, 0.0 {engine = "vector"}
    return
  }
}

// -----

// At most 4K elements per partition in PSUM.
module attributes {tessera.target = "trn2"} {
  func.func @psum_elements() {
    // expected-error@+1 {{operand dst (psum partitions [0, 128)) breaks the access rules of trn2: it touches 8192 elements per partition; an access of psum touches at most 4096}}
    nc.memset #nc.ap<"psum", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [2, 4096], strides = [4096, 1]>, 0.0 {engine = "vector"}
    return
  }
}
