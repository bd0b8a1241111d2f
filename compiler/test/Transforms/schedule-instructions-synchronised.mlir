// nc-schedule-instructions comes before insert-semaphores: a synchronised module is refused.
// RUN: tessera-opt %s -verify-diagnostics -nc-schedule-instructions
module attributes {tessera.target = "trn2"} {
  func.func @synchronised() {
    // expected-error@+1 {{is already synchronised: schedule the instructions before insert-semaphores}}
    nc.memset #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [128], strides = [1]>, 1.0 {engine = "vector", signals = array<i64: 0>}
    nc.memset #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 512, dims = [128], strides = [1]>, 1.0 {engine = "vector"}
    return
  }
}
