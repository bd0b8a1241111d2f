// `tessera compile --print-ir-after-all` prints the module after every pass of the pipeline, in order.
// RUN: %tessera compile add --shape M=128,N=128 --emit nc --print-ir-after-all 2>&1 >/dev/null | FileCheck %s

// CHECK: IR Dump After VerifyTarget (tile-verify-target)
// CHECK: tile.alloc
// CHECK: IR Dump After AllocateMemory (tile-allocate-memory)
// CHECK: tile.alloc {bufs = 4 : i64, name = "t0", offset = 0 : i64}
// CHECK: IR Dump After LowerTileToNc (lower-tile-to-nc)
// CHECK: nc.dma_copy
// CHECK: IR Dump After InsertSemaphores (nc-insert-semaphores)
// CHECK: nc.tensor_tensor "add" {{.*}}waits = array<i64:
