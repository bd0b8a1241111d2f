// tile-to-linalg: the golden model's first step. Tiles become memrefs in the default memory space (freed at the
// end of their block), DMAs subviews and calls of the runtime's copy, and every compute op a linalg op that reads into f32, computes
// in f32 and rounds into the destination's type. fp8 is stored as i8 and converted with integer code.
// RUN: tessera-opt %s -split-input-file -verify-diagnostics -tile-to-linalg | FileCheck %s

// A tiled matmul: the accumulator is zeroed (memset 0 -> linalg.fill), the k loop loads bf16 tiles from
// windows at k * 128 and calls the tile GEMM (declared once, as the golden model's runtime defines it) with k and
// each operand as stored: address, offset, strides and dtype code (1: bf16), for the runtime to decode; the f32
// result is rounded to bf16 (arith.truncf) and stored.
// CHECK-DAG: #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
module attributes {tessera.target = "trn2"} {
  // CHECK: func.func private @tessera_golden_matmul(memref<?x?xf32, strided<[?, ?], offset: ?>>, index, index, index, index, index, i32, index, index, index, index, i32)
  // CHECK-NOT: func.func private @tessera_golden_matmul
  // CHECK: func.func private @tessera_golden_copy(index, index, index, index, index, index, i32, index, index, index, index, i32)
  // CHECK-NOT: func.func private @tessera_golden_copy
  // CHECK-LABEL: func.func @matmul
  // CHECK-SAME: (%[[A:.*]]: memref<256x128xbf16> {tile.name = "a_t"}, %[[B:.*]]: memref<256x512xbf16>, %[[C:.*]]: memref<128x512xbf16> {tile.output})
  // CHECK-NOT: tile.
  // CHECK: %[[ACC:.*]] = memref.alloc() {tile.name = "acc"} : memref<128x512xf32>
  // CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[ACC]] : memref<128x512xf32>)
  // CHECK: scf.for %[[K:.*]] =
  // CHECK:   %[[S:.*]] = memref.alloc() : memref<128x128xbf16>
  // CHECK:   %[[M:.*]] = memref.alloc() : memref<128x512xbf16>
  // CHECK:   %[[OFF:.*]] = arith.muli %[[K]], %{{.*}} : index
  // CHECK:   %[[WA:.*]] = memref.subview %[[A]][%[[OFF]], %{{.*}}] [128, 128] [1, 1] : memref<256x128xbf16> to memref<128x128xbf16, strided<[128, 1], offset: ?>>
  // CHECK:   %[[ROWS:.*]] = arith.constant 128 : index
  // CHECK:   %[[COLS:.*]] = arith.constant 128 : index
  // CHECK:   %{{.*}}, %[[DO:.*]], %{{.*}}:2, %[[DS:.*]]:2 = memref.extract_strided_metadata %[[S]] : memref<128x128xbf16>
  // CHECK:   %[[DP:.*]] = memref.extract_aligned_pointer_as_index %[[S]]
  // CHECK:   %[[DT:.*]] = arith.constant 1 : i32
  // CHECK:   %{{.*}}, %[[WO:.*]], %{{.*}}:2, %[[WS:.*]]:2 = memref.extract_strided_metadata %[[WA]]
  // CHECK:   %[[WP:.*]] = memref.extract_aligned_pointer_as_index %[[WA]]
  // CHECK:   %[[WT:.*]] = arith.constant 1 : i32
  // CHECK:   call @tessera_golden_copy(%[[ROWS]], %[[COLS]], %[[DP]], %[[DO]], %[[DS]]#0, %[[DS]]#1, %[[DT]], %[[WP]], %[[WO]], %[[WS]]#0, %[[WS]]#1, %[[WT]])
  // CHECK:   %[[WB:.*]] = memref.subview %[[B]][%[[OFF]], %{{.*}}] [128, 512] [1, 1]
  // CHECK:   %[[BROWS:.*]] = arith.constant 128 : index
  // CHECK:   %[[BCOLS:.*]] = arith.constant 512 : index
  // CHECK:   %[[MP:.*]] = memref.extract_aligned_pointer_as_index %[[M]]
  // CHECK:   %[[BP:.*]] = memref.extract_aligned_pointer_as_index %[[WB]]
  // CHECK:   call @tessera_golden_copy(%[[BROWS]], %[[BCOLS]], %[[MP]], {{.*}}, %[[BP]], {{.*}})
  // CHECK-NOT: linalg.generic
  // CHECK:   %[[ACCD:.*]] = memref.cast %[[ACC]] : memref<128x512xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  // CHECK:   %[[KD:.*]] = arith.constant 128 : index
  // CHECK:   %{{.*}}, %[[SO:.*]], %{{.*}}:2, %[[SS:.*]]:2 = memref.extract_strided_metadata %[[S]] : memref<128x128xbf16>
  // CHECK:   %[[SP:.*]] = memref.extract_aligned_pointer_as_index %[[S]]
  // CHECK:   %[[TS:.*]] = arith.constant 1 : i32
  // CHECK:   %{{.*}}, %[[MO:.*]], %{{.*}}:2, %[[MS:.*]]:2 = memref.extract_strided_metadata %[[M]] : memref<128x512xbf16>
  // CHECK:   %[[MP:.*]] = memref.extract_aligned_pointer_as_index %[[M]]
  // CHECK:   %[[TM:.*]] = arith.constant 1 : i32
  // CHECK:   call @tessera_golden_matmul(%[[ACCD]], %[[KD]], %[[SP]], %[[SO]], %[[SS]]#0, %[[SS]]#1, %[[TS]], %[[MP]], %[[MO]], %[[MS]]#0, %[[MS]]#1, %[[TM]])
  // CHECK:   memref.dealloc %[[S]]
  // CHECK:   memref.dealloc %[[M]]
  // CHECK: }
  // CHECK: %[[O:.*]] = memref.alloc() : memref<128x512xbf16>
  // CHECK: linalg.generic {{.*}} ins(%[[ACC]] : memref<128x512xf32>) outs(%[[O]] : memref<128x512xbf16>)
  // CHECK:   arith.truncf %{{.*}} : f32 to bf16
  // CHECK: %[[WC:.*]] = memref.subview %[[C]][%{{.*}}, %{{.*}}] [128, 512] [1, 1]
  // CHECK: %[[CP:.*]] = memref.extract_aligned_pointer_as_index %[[WC]]
  // CHECK: %[[OP:.*]] = memref.extract_aligned_pointer_as_index %[[O]]
  // CHECK: call @tessera_golden_copy(%{{.*}}, %{{.*}}, %[[CP]], {{.*}}, %[[OP]], {{.*}})
  // CHECK: memref.dealloc %[[ACC]]
  // CHECK: memref.dealloc %[[O]]
  // CHECK-NEXT: return
  func.func @matmul(%a: memref<256x128xbf16> {tile.name = "a_t"}, %b: memref<256x512xbf16>, %c: memref<128x512xbf16> {tile.output}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c128 = arith.constant 128 : index
    %acc = tile.alloc {name = "acc"} : memref<128x512xf32, #tile.space<psum>>
    tile.memset %acc, 0.0 : memref<128x512xf32, #tile.space<psum>>
    scf.for %k = %c0 to %c2 step %c1 {
      %s = tile.alloc : memref<128x128xbf16, #tile.space<sbuf>>
      %m = tile.alloc : memref<128x512xbf16, #tile.space<sbuf>>
      %off = arith.muli %k, %c128 : index
      tile.load %a[%off, %c0], %s : memref<256x128xbf16>, memref<128x128xbf16, #tile.space<sbuf>>
      tile.load %b[%off, %c0], %m : memref<256x512xbf16>, memref<128x512xbf16, #tile.space<sbuf>>
      tile.matmul %s, %m, %acc {accumulate} : memref<128x128xbf16, #tile.space<sbuf>>, memref<128x512xbf16, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<psum>>
    }
    %o = tile.alloc : memref<128x512xbf16, #tile.space<sbuf>>
    tile.copy %acc, %o : memref<128x512xf32, #tile.space<psum>>, memref<128x512xbf16, #tile.space<sbuf>>
    tile.store %o, %c[%c0, %c0] : memref<128x512xbf16, #tile.space<sbuf>>, memref<128x512xbf16>
    return
  }

  // A matmul that does not accumulate starts from zero; f32 operands go as stored too, with dtype code 0 (f32).
  // CHECK-LABEL: func.func @matmul_fresh
  // CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[ACC2:.*]] : memref<128x512xf32>)
  // CHECK-NEXT: %[[ACC2D:.*]] = memref.cast %[[ACC2]]
  // CHECK: %[[F32:.*]] = arith.constant 0 : i32
  // CHECK: call @tessera_golden_matmul(%[[ACC2D]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[F32]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
  func.func @matmul_fresh() {
    %s = tile.alloc : memref<128x128xf32, #tile.space<sbuf>>
    %m = tile.alloc : memref<128x512xf32, #tile.space<sbuf>>
    %acc = tile.alloc : memref<128x512xf32, #tile.space<psum>>
    tile.matmul %s, %m, %acc : memref<128x128xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<psum>>
    return
  }
}

// -----

// Row reductions seed with column 0 and fold columns 1.. left to right (as the DSL); max and min propagate NaN
// (cmpf + select); a [P, 1] operand broadcasts with (d0, d1) -> (d0, 0); exp takes x * scale in f32; a
// reduction into bf16 folds in an f32 scratch column; memset rounds its value into the tile's type.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d0, 0)>
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @vector_ops
  func.func @vector_ops(%x: memref<128x64xbf16>, %y: memref<128x64xf16> {tile.output}) {
    %c0 = arith.constant 0 : index
    // CHECK: %[[A:.*]] = memref.alloc() : memref<128x64xbf16>
    // CHECK: %[[MX:.*]] = memref.alloc() : memref<128x1xf32>
    // CHECK: %[[D:.*]] = memref.alloc() : memref<128x64xbf16>
    // CHECK: %[[E:.*]] = memref.alloc() : memref<128x64xf32>
    // CHECK: %[[SUM:.*]] = memref.alloc() : memref<128x1xbf16>
    // CHECK: %[[O:.*]] = memref.alloc() : memref<128x64xf16>
    %a = tile.alloc : memref<128x64xbf16, #tile.space<sbuf>>
    %m = tile.alloc : memref<128x1xf32, #tile.space<sbuf>>
    %d = tile.alloc : memref<128x64xbf16, #tile.space<sbuf>>
    %e = tile.alloc : memref<128x64xf32, #tile.space<sbuf>>
    %s = tile.alloc : memref<128x1xbf16, #tile.space<sbuf>>
    %o = tile.alloc : memref<128x64xf16, #tile.space<sbuf>>
    tile.load %x[%c0, %c0], %a : memref<128x64xbf16>, memref<128x64xbf16, #tile.space<sbuf>>

    // reduce max: column 0, then a reduction over columns 1..63.
    // CHECK: %[[COL0:.*]] = memref.subview %[[A]][0, 0] [128, 1] [1, 1]
    // CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[COL0]] : {{.*}}) outs(%[[MX]] : memref<128x1xf32>)
    // CHECK:   arith.extf
    // CHECK: %[[REST:.*]] = memref.subview %[[A]][0, 1] [128, 63] [1, 1] : memref<128x64xbf16> to memref<128x63xbf16, strided<[64, 1], offset: 1>>
    // CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[COL]]], iterator_types = ["parallel", "reduction"]} ins(%[[REST]] : {{.*}}) outs(%[[MX]] : memref<128x1xf32>)
    // CHECK: ^bb0(%[[IN:.*]]: bf16, %[[ACC:.*]]: f32):
    // CHECK:   %[[V:.*]] = arith.extf %[[IN]] : bf16 to f32
    // CHECK:   %[[GT:.*]] = arith.cmpf ogt, %[[ACC]], %[[V]] : f32
    // CHECK:   %[[NAN:.*]] = arith.cmpf uno, %[[ACC]], %[[ACC]] : f32
    // CHECK:   %[[TAKE:.*]] = arith.ori %[[GT]], %[[NAN]] : i1
    // CHECK:   arith.select %[[TAKE]], %[[ACC]], %[[V]] : f32
    tile.reduce max %a, %m : memref<128x64xbf16, #tile.space<sbuf>>, memref<128x1xf32, #tile.space<sbuf>>

    // binary with a broadcast [P, 1] rhs, rounded into bf16.
    // CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[COL]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]], %[[MX]] : memref<128x64xbf16>, memref<128x1xf32>) outs(%[[D]] : memref<128x64xbf16>)
    // CHECK:   arith.extf
    // CHECK:   arith.subf
    // CHECK:   arith.truncf %{{.*}} : f32 to bf16
    tile.binary subtract %a, %m, %d : memref<128x64xbf16, #tile.space<sbuf>>, memref<128x1xf32, #tile.space<sbuf>>, memref<128x64xbf16, #tile.space<sbuf>>

    // activation: exp(x * 0.5) in f32.
    // CHECK: linalg.generic {{.*}} ins(%[[D]] : memref<128x64xbf16>) outs(%[[E]] : memref<128x64xf32>)
    // CHECK:   %[[XF:.*]] = arith.extf %{{.*}} : bf16 to f32
    // CHECK:   %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
    // CHECK:   %[[SCALED:.*]] = arith.mulf %[[XF]], %[[HALF]] : f32
    // CHECK:   %[[EXP:.*]] = math.exp %[[SCALED]] : f32
    // CHECK:   linalg.yield %[[EXP]] : f32
    tile.activation exp %d, %e {scale = 0.5 : f32} : memref<128x64xbf16, #tile.space<sbuf>>, memref<128x64xf32, #tile.space<sbuf>>

    // reduce add into bf16: an f32 scratch column, rounded at the end and freed.
    // CHECK: %[[SCRATCH:.*]] = memref.alloc() : memref<128x1xf32>
    // CHECK: linalg.generic {{.*}} outs(%[[SCRATCH]] : memref<128x1xf32>)
    // CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]{{.*}} outs(%[[SCRATCH]] : memref<128x1xf32>)
    // CHECK:   arith.addf
    // CHECK: linalg.generic {{.*}} ins(%[[SCRATCH]] : memref<128x1xf32>) outs(%[[SUM]] : memref<128x1xbf16>)
    // CHECK:   arith.truncf %{{.*}} : f32 to bf16
    // CHECK: memref.dealloc %[[SCRATCH]]
    tile.reduce add %e, %s : memref<128x64xf32, #tile.space<sbuf>>, memref<128x1xbf16, #tile.space<sbuf>>

    // min with a broadcast lhs, in place.
    // CHECK: linalg.generic {indexing_maps = [#[[COL]], #[[ID]], #[[ID]]], {{.*}} ins(%[[SUM]], %[[E]] : memref<128x1xbf16>, memref<128x64xf32>) outs(%[[E]] : memref<128x64xf32>)
    // CHECK:   arith.cmpf olt
    // CHECK:   arith.cmpf uno
    // CHECK:   arith.select
    tile.binary min %s, %e, %e : memref<128x1xbf16, #tile.space<sbuf>>, memref<128x64xf32, #tile.space<sbuf>>, memref<128x64xf32, #tile.space<sbuf>>

    // memset 0.3 rounds to the nearest f16, 0.30004882...
    // CHECK: %[[V03:.*]] = arith.constant 3.000490e-01 : f16
    // CHECK: linalg.fill ins(%[[V03]] : f16) outs(%[[O]] : memref<128x64xf16>)
    tile.memset %o, 3.0e-1 : memref<128x64xf16, #tile.space<sbuf>>

    // copy f32 -> f16.
    // CHECK: linalg.generic {{.*}} ins(%[[E]] : memref<128x64xf32>) outs(%[[O]] : memref<128x64xf16>)
    // CHECK:   arith.truncf %{{.*}} : f32 to f16
    tile.copy %e, %o : memref<128x64xf32, #tile.space<sbuf>>, memref<128x64xf16, #tile.space<sbuf>>
    tile.store %o, %y[%c0, %c0] : memref<128x64xf16, #tile.space<sbuf>>, memref<128x64xf16>
    return
  }

  // Every ALU op, and identity with the default scale (no multiply).
  // CHECK-LABEL: func.func @alu
  // CHECK: arith.addf
  // CHECK: arith.mulf
  // CHECK: arith.divf
  // CHECK: linalg.generic
  // CHECK-NOT: arith.mulf
  // CHECK-NOT: math.exp
  // CHECK: linalg.yield
  func.func @alu() {
    %a = tile.alloc : memref<128x8xf32, #tile.space<sbuf>>
    %b = tile.alloc : memref<128x8xf32, #tile.space<sbuf>>
    tile.binary add %a, %b, %a : memref<128x8xf32, #tile.space<sbuf>>, memref<128x8xf32, #tile.space<sbuf>>, memref<128x8xf32, #tile.space<sbuf>>
    tile.binary multiply %a, %b, %a : memref<128x8xf32, #tile.space<sbuf>>, memref<128x8xf32, #tile.space<sbuf>>, memref<128x8xf32, #tile.space<sbuf>>
    tile.binary divide %a, %b, %a : memref<128x8xf32, #tile.space<sbuf>>, memref<128x8xf32, #tile.space<sbuf>>, memref<128x8xf32, #tile.space<sbuf>>
    tile.activation identity %a, %b : memref<128x8xf32, #tile.space<sbuf>>, memref<128x8xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// fp8: tensors and tiles are i8 memrefs; reading decodes the bits with integer code (e4m3: sign << 24, the
// rebiased exponent, subnormals as mantissa * 2^-9, 0x7f is NaN); writing rounds to nearest even with integer
// code and truncates to i8 (e5m2: overflow to Inf 0x7c, NaN 0x7e). A memset rounds at compile time: 500 is
// beyond e4m3's 448, so NaN (0x7f = 127).
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @fp8
  // CHECK-SAME: (%[[X:.*]]: memref<128x64xi8>, %[[Y:.*]]: memref<128x64xi8> {tile.output})
  // CHECK-COUNT-3: memref.alloc()
  // CHECK: %[[N:.*]] = memref.alloc() : memref<128x64xi8>
  // CHECK-NEXT: %[[NAN:.*]] = arith.constant 127 : i8
  // CHECK: linalg.fill ins(%[[NAN]] : i8) outs(%[[N]] : memref<128x64xi8>)
  // CHECK: %[[XW:.*]] = memref.subview %[[X]]{{.*}} : memref<128x64xi8> to memref<128x64xi8, strided<[64, 1], offset: ?>>
  // fp8 is copied as stored, its bytes: the runtime's row copy with f8E4M3's dtype code (3) on both sides.
  // CHECK: %[[XP:.*]] = memref.extract_aligned_pointer_as_index %[[XW]]
  // CHECK-NEXT: %[[XT:.*]] = arith.constant 3 : i32
  // CHECK-NEXT: call @tessera_golden_copy({{.*}}, %[[XP]], %{{.*}}, %{{.*}}, %{{.*}}, %[[XT]])
  // CHECK: linalg.generic {{.*}} ins(%{{.*}} : memref<128x64xi8>) outs(%{{.*}} : memref<128x64xf32>)
  // CHECK:   arith.extui %{{.*}} : i8 to i32
  // CHECK:   arith.sitofp
  // CHECK:   arith.constant 0.001953125 : f32
  // CHECK:   arith.constant 2143289344 : i32
  // CHECK:   arith.bitcast %{{.*}} : i32 to f32
  // CHECK: linalg.generic {{.*}} ins(%{{.*}} : memref<128x64xf32>) outs(%{{.*}} : memref<128x64xi8>)
  // CHECK:   arith.bitcast %{{.*}} : f32 to i32
  // CHECK:   arith.constant 124 : i32
  // CHECK:   arith.constant 126 : i32
  // CHECK:   arith.trunci %{{.*}} : i32 to i8
  // CHECK: memref.subview %[[Y]]
  // CHECK-NOT: f8E
  func.func @fp8(%x: memref<128x64xf8E4M3FN>, %y: memref<128x64xf8E5M2> {tile.output}) {
    %c0 = arith.constant 0 : index
    %a = tile.alloc : memref<128x64xf8E4M3FN, #tile.space<sbuf>>
    %f = tile.alloc : memref<128x64xf32, #tile.space<sbuf>>
    %b = tile.alloc : memref<128x64xf8E5M2, #tile.space<sbuf>>
    %n = tile.alloc : memref<128x64xf8E4M3FN, #tile.space<sbuf>>
    tile.memset %n, 5.0e+02 : memref<128x64xf8E4M3FN, #tile.space<sbuf>>
    tile.load %x[%c0, %c0], %a : memref<128x64xf8E4M3FN>, memref<128x64xf8E4M3FN, #tile.space<sbuf>>
    tile.copy %a, %f : memref<128x64xf8E4M3FN, #tile.space<sbuf>>, memref<128x64xf32, #tile.space<sbuf>>
    tile.copy %f, %b : memref<128x64xf32, #tile.space<sbuf>>, memref<128x64xf8E5M2, #tile.space<sbuf>>
    tile.store %b, %y[%c0, %c0] : memref<128x64xf8E5M2, #tile.space<sbuf>>, memref<128x64xf8E5M2>
    return
  }
}

// -----

// Integers: tensors and tiles are signless memrefs of their width; reading converts with sitofp (uitofp for the
// unsigned types); writing rounds to nearest even in f64, saturates at the type's limits (-128..127 for si8,
// 0..65535 for ui16) and makes NaN 0 before fptosi/fptoui. A memset rounds and saturates at compile time: 300
// in si8 is 127, 2.5 in ui16 is 2. The second function writes si8 (fptosi, limits -128 and 127).
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @integers
  // CHECK-SAME: (%[[X:.*]]: memref<128x64xi8>, %[[Y:.*]]: memref<128x64xi16> {tile.output})
  // CHECK-COUNT-3: memref.alloc()
  // CHECK: %[[N:.*]] = memref.alloc() : memref<128x64xi8>
  // CHECK-NEXT: %[[U:.*]] = memref.alloc() : memref<128x64xi16>
  // CHECK: %[[MAX:.*]] = arith.constant 127 : i8
  // CHECK: linalg.fill ins(%[[MAX]] : i8) outs(%[[N]] : memref<128x64xi8>)
  // CHECK: %[[TWO:.*]] = arith.constant 2 : i16
  // CHECK: linalg.fill ins(%[[TWO]] : i16) outs(%[[U]] : memref<128x64xi16>)
  // CHECK: linalg.generic {{.*}} ins(%{{.*}} : memref<128x64xi8>) outs(%{{.*}} : memref<128x64xf32>)
  // CHECK:   arith.sitofp %{{.*}} : i8 to f32
  // CHECK: linalg.generic {{.*}} ins(%{{.*}} : memref<128x64xf32>) outs(%{{.*}} : memref<128x64xi16>)
  // CHECK:   %[[R:.*]] = math.roundeven %{{.*}} : f64
  // CHECK:   %[[LO:.*]] = arith.constant 0.000000e+00 : f64
  // CHECK:   arith.cmpf olt, %[[R]]
  // CHECK:   %[[HI:.*]] = arith.constant 6.553500e+04 : f64
  // CHECK:   arith.cmpf ogt
  // CHECK:   %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
  // CHECK:   %[[NAN:.*]] = arith.cmpf uno, %[[X:.*]], %[[X]] : f64
  // CHECK:   %[[OK:.*]] = arith.select %[[NAN]], %[[ZERO]], %[[X]] : f64
  // CHECK:   arith.fptoui %[[OK]] : f64 to i16
  // CHECK-NOT: si8
  // CHECK-NOT: ui16
  func.func @integers(%x: memref<128x64xsi8>, %y: memref<128x64xui16> {tile.output}) {
    %c0 = arith.constant 0 : index
    %a = tile.alloc : memref<128x64xsi8, #tile.space<sbuf>>
    %f = tile.alloc : memref<128x64xf32, #tile.space<sbuf>>
    %b = tile.alloc : memref<128x64xui16, #tile.space<sbuf>>
    %n = tile.alloc : memref<128x64xsi8, #tile.space<sbuf>>
    %u = tile.alloc : memref<128x64xui16, #tile.space<sbuf>>
    tile.memset %n, 3.0e+02 : memref<128x64xsi8, #tile.space<sbuf>>
    tile.memset %u, 2.5e+00 : memref<128x64xui16, #tile.space<sbuf>>
    tile.load %x[%c0, %c0], %a : memref<128x64xsi8>, memref<128x64xsi8, #tile.space<sbuf>>
    tile.copy %a, %f : memref<128x64xsi8, #tile.space<sbuf>>, memref<128x64xf32, #tile.space<sbuf>>
    tile.copy %f, %b : memref<128x64xf32, #tile.space<sbuf>>, memref<128x64xui16, #tile.space<sbuf>>
    tile.store %b, %y[%c0, %c0] : memref<128x64xui16, #tile.space<sbuf>>, memref<128x64xui16>
    return
  }

  // CHECK-LABEL: func.func @signed_integers
  // CHECK:   arith.constant -1.280000e+02 : f64
  // CHECK:   arith.constant 1.270000e+02 : f64
  // CHECK:   arith.fptosi %{{.*}} : f64 to i8
  func.func @signed_integers(%x: memref<128x64xf32>, %y: memref<128x64xsi8> {tile.output}) {
    %c0 = arith.constant 0 : index
    %a = tile.alloc : memref<128x64xf32, #tile.space<sbuf>>
    %b = tile.alloc : memref<128x64xsi8, #tile.space<sbuf>>
    tile.load %x[%c0, %c0], %a : memref<128x64xf32>, memref<128x64xf32, #tile.space<sbuf>>
    tile.copy %a, %b : memref<128x64xf32, #tile.space<sbuf>>, memref<128x64xsi8, #tile.space<sbuf>>
    tile.store %b, %y[%c0, %c0] : memref<128x64xsi8, #tile.space<sbuf>>, memref<128x64xsi8>
    return
  }
}

// -----

// A strided window (tile.load/store `steps`) is a subview with those strides: every other column of rows 0, 3, 6
// and 9 in, every third row out.
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @strided
  // CHECK: memref.subview %{{.*}} [4, 32] [3, 2] : memref<12x64xbf16> to memref<4x32xbf16, strided<[192, 2], offset: ?>>
  // CHECK: memref.subview %{{.*}} [4, 32] [3, 1] : memref<12x32xbf16> to memref<4x32xbf16, strided<[96, 1], offset: ?>>
  func.func @strided(%x: memref<12x64xbf16>, %y: memref<12x32xbf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %t = tile.alloc : memref<4x32xbf16, #tile.space<sbuf>>
    tile.load %x[%c0, %c1], %t {steps = array<i64: 3, 2>} : memref<12x64xbf16>, memref<4x32xbf16, #tile.space<sbuf>>
    tile.store %t, %y[%c0, %c0] {steps = array<i64: 3, 1>} : memref<4x32xbf16, #tile.space<sbuf>>, memref<12x32xbf16>
    return
  }
}

// -----

// With its steps, a window that ends past its tensor is an error too: 32 columns at step 2 span 63, so from
// column 2 they need 65 of 64.
module attributes {tessera.target = "trn2"} {
  func.func @strided_out_of_bounds(%x: memref<4x64xbf16>) {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %t = tile.alloc : memref<4x32xbf16, #tile.space<sbuf>>
    // expected-error@+1 {{'tile.load' op window of 32 elements with step 2 at offsets 2..2 of dimension 1 leaves the tensor (size 64)}}
    tile.load %x[%c0, %c2], %t {steps = array<i64: 1, 2>} : memref<4x64xbf16>, memref<4x32xbf16, #tile.space<sbuf>>
    return
  }
}

// -----

// tile.scan: a loop over rows, each with a loop over the columns carrying the f32 state from the initial column:
// x = a * x + b, stored rounded (bf16 here).
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @scan
  // CHECK: scf.for %[[P:.*]] = %{{.*}} to %{{.*}} step
  // CHECK: %[[X0:.*]] = memref.load %{{.*}}[%[[P]], %{{.*}}] : memref<4x1xf32>
  // CHECK: scf.for %[[F:.*]] = {{.*}} iter_args(%[[S:.*]] = %[[X0]]) -> (f32)
  // CHECK: %[[A:.*]] = memref.load {{.*}}[%[[P]], %[[F]]] : memref<4x8xf32>
  // CHECK: %[[B:.*]] = memref.load {{.*}}[%[[P]], %[[F]]] : memref<4x8xbf16>
  // CHECK: %[[BF:.*]] = arith.extf %[[B]]
  // CHECK: %[[M:.*]] = arith.mulf %[[A]], %[[S]]
  // CHECK: %[[N:.*]] = arith.addf %[[M]], %[[BF]]
  // CHECK: %[[R:.*]] = arith.truncf %[[N]] : f32 to bf16
  // CHECK: memref.store %[[R]], {{.*}}[%[[P]], %[[F]]]
  // CHECK: scf.yield %[[N]]
  func.func @scan(%y: memref<4x8xbf16>) {
    %c0 = arith.constant 0 : index
    %a = tile.alloc : memref<4x8xf32, #tile.space<sbuf>>
    %b = tile.alloc : memref<4x8xbf16, #tile.space<sbuf>>
    %x0 = tile.alloc : memref<4x1xf32, #tile.space<sbuf>>
    %x = tile.alloc : memref<4x8xbf16, #tile.space<sbuf>>
    tile.memset %a, 0.5 : memref<4x8xf32, #tile.space<sbuf>>
    tile.memset %b, 1.0 : memref<4x8xbf16, #tile.space<sbuf>>
    tile.memset %x0, 2.0 : memref<4x1xf32, #tile.space<sbuf>>
    tile.scan %a, %b, %x init(%x0 : memref<4x1xf32, #tile.space<sbuf>>) : memref<4x8xf32, #tile.space<sbuf>>, memref<4x8xbf16, #tile.space<sbuf>>, memref<4x8xbf16, #tile.space<sbuf>>
    tile.store %x, %y[%c0, %c0] : memref<4x8xbf16, #tile.space<sbuf>>, memref<4x8xbf16>
    return
  }
}

// -----

// A window that leaves its tensor in some iteration (rows 128 * 2 .. 128 * 2 + 127 of 256) is an error: host
// code has no simulator to catch it.
module attributes {tessera.target = "trn2"} {
  func.func @out_of_bounds(%x: memref<256x64xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c128 = arith.constant 128 : index
    scf.for %i = %c0 to %c3 step %c1 {
      %t = tile.alloc : memref<128x64xf32, #tile.space<sbuf>>
      %row = arith.muli %i, %c128 : index
      // expected-error@+1 {{'tile.load' op window of 128 elements at offsets 0..256 of dimension 0 leaves the tensor (size 256)}}
      tile.load %x[%row, %c0], %t : memref<256x64xf32>, memref<128x64xf32, #tile.space<sbuf>>
    }
    return
  }
}

// -----

// An element type with no host form.
module attributes {tessera.target = "trn2"} {
  func.func @integers() {
    // expected-error@+1 {{'tile.alloc' op element type 'i32' has no host lowering}}
    %t = tile.alloc : memref<128x4xi32, #tile.space<sbuf>>
    return
  }
}

// -----

// Device prints and a manual_sync scope's semaphore ops have no host code: host code runs in program order.
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @prints_and_semaphores
  // CHECK-NOT: tile.
  // CHECK: linalg.fill
  // CHECK-NOT: tile.
  // CHECK: return
  func.func @prints_and_semaphores() {
    %c1 = arith.constant 1 : index
    %t = tile.alloc : memref<128x4xf32, #tile.space<sbuf>>
    tile.wait 0, %c1 {tile.manual}
    tile.memset %t, 1.0 {tile.manual} : memref<128x4xf32, #tile.space<sbuf>>
    tile.signal 0 {tile.manual}
    tile.print "t", %t : memref<128x4xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// A view is a subview of its source's columns (of the host buffer, after the source became one); ops on it read
// and write the source's memory.
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @view
  // CHECK-NOT: tile.
  // CHECK: %[[ACC:.*]] = memref.alloc() : memref<128x1024xf32>
  // CHECK: %[[X:.*]] = memref.alloc() : memref<128x512xf32>
  // CHECK: %[[V:.*]] = memref.subview %[[ACC]][0, %{{.*}}] [128, 512] [1, 1] : memref<128x1024xf32> to memref<128x512xf32, strided<[1024, 1], offset: ?>>
  // CHECK: linalg.generic {{.*}} ins(%[[V]], %[[X]] : memref<128x512xf32, strided<[1024, 1], offset: ?>>, memref<128x512xf32>) outs(%[[V]] : memref<128x512xf32, strided<[1024, 1], offset: ?>>)
  // CHECK:   arith.addf
  func.func @view(%j: index) {
    %acc = tile.alloc : memref<128x1024xf32, #tile.space<sbuf>>
    %x = tile.alloc : memref<128x512xf32, #tile.space<sbuf>>
    %v = tile.view %acc[%j] : memref<128x1024xf32, #tile.space<sbuf>> to memref<128x512xf32, #tile.space<sbuf>>
    tile.binary add %v, %x, %v : memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<sbuf>>
    return
  }
}

// -----

// A view that leaves its source for some iteration is an error here (host code has no simulator to catch it).
module attributes {tessera.target = "trn2"} {
  func.func @view_leaves() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c256 = arith.constant 256 : index
    %t = tile.alloc : memref<128x512xf32, #tile.space<sbuf>>
    scf.for %i = %c0 to %c3 step %c1 {
      %off = arith.muli %i, %c256 : index
      // expected-error@+1 {{window of 256 elements at offsets 0..512 leaves its source (size 512)}}
      %v = tile.view %t[%off] : memref<128x512xf32, #tile.space<sbuf>> to memref<128x256xf32, #tile.space<sbuf>>
      tile.memset %v, 1.0 : memref<128x256xf32, #tile.space<sbuf>>
    }
    return
  }
}

// -----

// tile.transpose reads the source through the swapped map; tile.fill_where picks elements by linalg.index
// (offset + partition * p + free * f compared with 0 in f32); an activation with a bias and row sums computes
// x * scale + bias and the function into an f32 scratch tile, sums its rows left to right (the first column
// copied, the rest added), then rounds it into dst.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[SWAP:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d0, 0)>
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @language_ops
  // CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[SWAP]]], {{.*}} ins(%{{.*}} : memref<128x64xbf16>) outs(%{{.*}} : memref<64x128xf32>)
  // CHECK:   arith.extf
  // CHECK: linalg.generic {indexing_maps = [#[[ID]]], {{.*}} outs(%{{.*}} : memref<64x128xbf16>)
  // CHECK:   linalg.index 0
  // CHECK:   linalg.index 1
  // CHECK:   arith.cmpf ogt
  // CHECK:   arith.select
  // CHECK: %[[T:.*]] = memref.alloc() : memref<128x64xf32>
  // CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[COL]], #[[ID]]], {{.*}} outs(%[[T]] : memref<128x64xf32>)
  // CHECK:   arith.mulf
  // CHECK:   arith.addf
  // CHECK:   math.exp
  // CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : memref<128x63xf32, strided<[64, 1], offset: 1>>)
  // CHECK: linalg.generic {{.*}} ins(%[[T]] : memref<128x64xf32>) outs(%{{.*}} : memref<128x64xbf16>)
  // CHECK:   arith.truncf
  // CHECK: memref.dealloc %[[T]]
  func.func @language_ops() {
    %x = tile.alloc : memref<128x64xbf16, #tile.space<sbuf>>
    %f = tile.alloc : memref<64x128xf32, #tile.space<psum>>
    tile.memset %x, 1.0 : memref<128x64xbf16, #tile.space<sbuf>>
    tile.transpose %x, %f : memref<128x64xbf16, #tile.space<sbuf>>, memref<64x128xf32, #tile.space<psum>>
    %s = tile.alloc : memref<64x128xbf16, #tile.space<sbuf>>
    tile.memset %s, 0.0 : memref<64x128xbf16, #tile.space<sbuf>>
    %c0_off = arith.constant 0 : index
    tile.fill_where is_gt %s[%c0_off], -1.0 {partition = -1 : i64, free = 1 : i64} : memref<64x128xbf16, #tile.space<sbuf>>
    %bias = tile.alloc : memref<128x1xf32, #tile.space<sbuf>>
    %sum = tile.alloc : memref<128x1xf32, #tile.space<sbuf>>
    tile.memset %bias, 0.5 : memref<128x1xf32, #tile.space<sbuf>>
    tile.activation exp %x bias(%bias : memref<128x1xf32, #tile.space<sbuf>>), %x sum(%sum : memref<128x1xf32, #tile.space<sbuf>>) {scale = 0.125 : f32} : memref<128x64xbf16, #tile.space<sbuf>>, memref<128x64xbf16, #tile.space<sbuf>>
    return
  }
}

// -----

// tile.broadcast: the copy's generic with src's map repeating its dimension of size 1 ((d0, d1) -> (0, d1) for a
// row onto partitions, (d0, 0) for a column along the free dimension), converting the element type.
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d0, 0)>
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @broadcast
  // CHECK: linalg.generic {indexing_maps = [#[[ROW]], #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%{{.*}} : memref<1x64xf32>) outs(%{{.*}} : memref<128x64xbf16>)
  // CHECK:   arith.truncf %{{.*}} : f32 to bf16
  // CHECK: linalg.generic {indexing_maps = [#[[COL]], #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%{{.*}} : memref<128x1xf32>) outs(%{{.*}} : memref<128x64xf32>)
  func.func @broadcast(%x: memref<1x64xf32>, %s: memref<128x1xf32>, %y: memref<128x64xbf16>, %z: memref<128x64xf32>) {
    %c0 = arith.constant 0 : index
    %row = tile.alloc : memref<1x64xf32, #tile.space<sbuf>>
    %col = tile.alloc : memref<128x1xf32, #tile.space<sbuf>>
    %rows = tile.alloc : memref<128x64xbf16, #tile.space<sbuf>>
    %cols = tile.alloc : memref<128x64xf32, #tile.space<sbuf>>
    tile.load %x[%c0, %c0], %row : memref<1x64xf32>, memref<1x64xf32, #tile.space<sbuf>>
    tile.load %s[%c0, %c0], %col : memref<128x1xf32>, memref<128x1xf32, #tile.space<sbuf>>
    tile.broadcast %row, %rows : memref<1x64xf32, #tile.space<sbuf>>, memref<128x64xbf16, #tile.space<sbuf>>
    tile.broadcast %col, %cols : memref<128x1xf32, #tile.space<sbuf>>, memref<128x64xf32, #tile.space<sbuf>>
    tile.store %rows, %y[%c0, %c0] : memref<128x64xbf16, #tile.space<sbuf>>, memref<128x64xbf16>
    tile.store %cols, %z[%c0, %c0] : memref<128x64xf32, #tile.space<sbuf>>, memref<128x64xf32>
    return
  }
}

// -----

// Access patterns (Tile::ap): a pattern is its source's buffer reinterpreted as [P, count...] with the pattern's
// steps as strides (at partition * F + offset); a copy through one and a reduction into groups are loops over
// partitions (outlined, as linalg ops are) and free elements in the pattern's order, each element's indices the
// digits of its position over the counts.
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @access_patterns
  // CHECK: memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [64, 8, 12], strides: [96, 1, 8] : memref<64x96xf32> to memref<64x8x12xf32, strided<[96, 1, 8], offset: ?>>
  // CHECK: scf.for
  // CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : memref<64x8x12xf32, strided<[96, 1, 8], offset: ?>>
  // CHECK: } {golden.outline}
  // CHECK: memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [64, 8, 12], strides: [96, 12, 1] : memref<64x96xf32> to memref<64x8x12xf32, strided<[96, 12, 1], offset: ?>>
  // CHECK: scf.for
  // CHECK: arith.cmpf ogt
  // CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<64x8xf32>
  func.func @access_patterns(%x: memref<64x96xf32>, %y: memref<64x96xf32>, %z: memref<64x8xf32>) {
    %c0 = arith.constant 0 : index
    %in = tile.alloc : memref<64x96xf32, #tile.space<sbuf>>
    %out = tile.alloc : memref<64x96xf32, #tile.space<sbuf>>
    %max = tile.alloc : memref<64x8xf32, #tile.space<sbuf>>
    tile.load %x[%c0, %c0], %in : memref<64x96xf32>, memref<64x96xf32, #tile.space<sbuf>>
    %t = tile.view %out[%c0] {pattern = array<i64: 1, 8, 8, 12>} : memref<64x96xf32, #tile.space<sbuf>> to memref<64x96xf32, #tile.space<sbuf>>
    tile.copy %in, %t : memref<64x96xf32, #tile.space<sbuf>>, memref<64x96xf32, #tile.space<sbuf>>
    %rows = tile.view %in[%c0] {pattern = array<i64: 12, 8, 1, 12>} : memref<64x96xf32, #tile.space<sbuf>> to memref<64x96xf32, #tile.space<sbuf>>
    tile.reduce max %rows, %max : memref<64x96xf32, #tile.space<sbuf>>, memref<64x8xf32, #tile.space<sbuf>>
    tile.store %out, %y[%c0, %c0] : memref<64x96xf32, #tile.space<sbuf>>, memref<64x96xf32>
    tile.store %max, %z[%c0, %c0] : memref<64x8xf32, #tile.space<sbuf>>, memref<64x8xf32>
    return
  }
}

// -----

// An elementwise op reading an access pattern: the pattern gathered into a [P, n] buffer in its order (outlined
// loops), the op a linalg.generic over that buffer, the buffer freed after it.
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @elementwise_access_pattern
  // CHECK: %[[WALK:.*]] = memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [64, 8, 12], strides: [96, 1, 8]
  // CHECK: %[[STAGED:.*]] = memref.alloc() : memref<64x96xf32>
  // CHECK: scf.for
  // CHECK: memref.load %[[WALK]][%{{.*}}, %{{.*}}, %{{.*}}] : memref<64x8x12xf32, strided<[96, 1, 8], offset: ?>>
  // CHECK: memref.store %{{.*}}, %[[STAGED]][%{{.*}}, %{{.*}}] : memref<64x96xf32>
  // CHECK: } {golden.outline}
  // CHECK: linalg.generic {{.*}} ins(%[[STAGED]], %{{.*}} : memref<64x96xf32>, memref<64x96xf32>)
  // CHECK: arith.addf
  // CHECK: memref.dealloc %[[STAGED]]
  func.func @elementwise_access_pattern(%x: memref<64x96xf32>, %y: memref<64x96xf32>) {
    %c0 = arith.constant 0 : index
    %in = tile.alloc : memref<64x96xf32, #tile.space<sbuf>>
    %out = tile.alloc : memref<64x96xf32, #tile.space<sbuf>>
    tile.load %x[%c0, %c0], %in : memref<64x96xf32>, memref<64x96xf32, #tile.space<sbuf>>
    %t = tile.view %in[%c0] {pattern = array<i64: 1, 8, 8, 12>} : memref<64x96xf32, #tile.space<sbuf>> to memref<64x96xf32, #tile.space<sbuf>>
    tile.binary add %t, %in, %out : memref<64x96xf32, #tile.space<sbuf>>, memref<64x96xf32, #tile.space<sbuf>>, memref<64x96xf32, #tile.space<sbuf>>
    tile.store %out, %y[%c0, %c0] : memref<64x96xf32, #tile.space<sbuf>>, memref<64x96xf32>
    return
  }
}

// -----

// A transposed window: the [128, 64] window at (64, 0) of x [256, 64], seen through memref.transpose as the
// [64, 128] tile (strides [1, 64]), copied by the runtime as its strides say; a store the same way round.
module attributes {tessera.target = "trn2"} {
  // CHECK-LABEL: func.func @transposed_windows
  // CHECK: %[[W:.*]] = memref.subview %{{.*}}[%{{.*}}, %{{.*}}] [128, 64] [1, 1] : memref<256x64xbf16> to memref<128x64xbf16, strided<[64, 1], offset: ?>>
  // CHECK: %[[WT:.*]] = memref.transpose %[[W]] (d0, d1) -> (d1, d0) : memref<128x64xbf16, strided<[64, 1], offset: ?>> to memref<64x128xbf16, strided<[1, 64], offset: ?>>
  // CHECK: memref.extract_strided_metadata %[[WT]]
  // CHECK: call @tessera_golden_copy
  // CHECK: %[[V:.*]] = memref.subview %{{.*}}[%{{.*}}, %{{.*}}] [128, 64] [1, 1] : memref<256x64xbf16> to memref<128x64xbf16, strided<[64, 1], offset: ?>>
  // CHECK: %[[VT:.*]] = memref.transpose %[[V]] (d0, d1) -> (d1, d0)
  // CHECK: memref.extract_aligned_pointer_as_index %[[VT]]
  // CHECK: call @tessera_golden_copy
  func.func @transposed_windows(%x: memref<256x64xbf16>, %y: memref<256x64xbf16>) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %t = tile.alloc : memref<64x128xbf16, #tile.space<sbuf>>
    tile.load %x[%c64, %c0], %t {transpose} : memref<256x64xbf16>, memref<64x128xbf16, #tile.space<sbuf>>
    tile.store %t, %y[%c64, %c0] {transpose} : memref<64x128xbf16, #tile.space<sbuf>>, memref<256x64xbf16>
    return
  }
}

// -----

// A transposed window checked where it lies: the [64, 128] tile spans rows 150..277 of a 256-row tensor (64 rows,
// untransposed, would fit).
module attributes {tessera.target = "trn2"} {
  func.func @transposed_window_past_the_end(%x: memref<256x128xbf16>) {
    %c0 = arith.constant 0 : index
    %c150 = arith.constant 150 : index
    %t = tile.alloc : memref<64x128xbf16, #tile.space<sbuf>>
    // expected-error@+1 {{window of 128 elements at offsets 150..150 of dimension 0 leaves the tensor (size 256)}}
    tile.load %x[%c150, %c0], %t {transpose} : memref<256x128xbf16>, memref<64x128xbf16, #tile.space<sbuf>>
    return
  }
}
