// golden-outline-ops: the golden model's second step. Each linalg op becomes a call of a private function holding
// it; ops that differ only in their operands (windows of one shape at other offsets) share one function, called
// through memref.cast to a dynamic offset; ops whose bodies differ (a - b against b - a on the same operands) do not.
// An op marked golden.outline (tile.scan's loop over rows) is outlined the same way, and loses the mark.
// RUN: tessera-opt %s -golden-outline-ops | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
module {
  // CHECK-LABEL: func.func @kernel
  // Two column copies at offsets 0 and 5: one function, its operands cast to offset ?.
  // CHECK: %[[C0:.*]] = memref.cast %{{.*}} : memref<4x1xf32, strided<[8, 1]>> to memref<4x1xf32, strided<[8, 1], offset: ?>>
  // CHECK: call @[[COPY:__golden_op_[0-9]+]](%[[C0]], %{{.*}})
  // CHECK: %[[C5:.*]] = memref.cast %{{.*}} : memref<4x1xf32, strided<[8, 1], offset: 5>> to memref<4x1xf32, strided<[8, 1], offset: ?>>
  // CHECK: call @[[COPY]](%[[C5]], %{{.*}})
  // a - b and b - a: two functions, each called with (a, b, out).
  // CHECK: call @[[SUB:__golden_op_[0-9]+]](%arg0, %arg1, %arg2)
  // CHECK: call @[[BUS:__golden_op_[0-9]+]](%arg0, %arg1, %arg2)
  // The marked loop: its bounds and the memref its body uses become the arguments.
  // CHECK: call @[[SCAN:__golden_op_[0-9]+]](%c0, %c4, %c1, %arg0)
  // CHECK-NOT: linalg.
  // CHECK: func.func private @[[COPY]](%{{.*}}: memref<4x1xf32, strided<[8, 1], offset: ?>>, %{{.*}}: memref<4x1xf32>)
  // CHECK-NEXT: linalg.copy
  // CHECK: func.func private @[[SUB]]
  // CHECK: arith.subf %[[IN:.*]], %[[OTHER:.*]] : f32
  // CHECK: func.func private @[[BUS]]
  // CHECK: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
  // CHECK-NEXT: arith.subf %[[Y]], %[[X]] : f32
  // CHECK: func.func private @[[SCAN:__golden_op_[0-9]+]](%{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: memref<4x8xf32>)
  // CHECK-NEXT: scf.for
  // CHECK-NEXT: memref.load
  // CHECK-NEXT: memref.store
  // CHECK-NEXT: }{{$}}
  // CHECK-NOT: func.func private
  func.func @kernel(%a: memref<4x8xf32>, %b: memref<4x8xf32>, %out: memref<4x8xf32>) {
    %t0 = memref.alloc() : memref<4x1xf32>
    %t5 = memref.alloc() : memref<4x1xf32>
    %w0 = memref.subview %a[0, 0] [4, 1] [1, 1] : memref<4x8xf32> to memref<4x1xf32, strided<[8, 1]>>
    linalg.copy ins(%w0 : memref<4x1xf32, strided<[8, 1]>>) outs(%t0 : memref<4x1xf32>)
    %w5 = memref.subview %a[0, 5] [4, 1] [1, 1] : memref<4x8xf32> to memref<4x1xf32, strided<[8, 1], offset: 5>>
    linalg.copy ins(%w5 : memref<4x1xf32, strided<[8, 1], offset: 5>>) outs(%t5 : memref<4x1xf32>)
    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%a, %b : memref<4x8xf32>, memref<4x8xf32>) outs(%out : memref<4x8xf32>) {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %d = arith.subf %x, %y : f32
      linalg.yield %d : f32
    }
    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%a, %b : memref<4x8xf32>, memref<4x8xf32>) outs(%out : memref<4x8xf32>) {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %d = arith.subf %y, %x : f32
      linalg.yield %d : f32
    }
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    scf.for %p = %c0 to %c4 step %c1 {
      %x = memref.load %a[%p, %c0] : memref<4x8xf32>
      memref.store %x, %a[%p, %c1] : memref<4x8xf32>
    } {golden.outline}
    memref.dealloc %t0 : memref<4x1xf32>
    memref.dealloc %t5 : memref<4x1xf32>
    return
  }
}
