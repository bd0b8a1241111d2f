module attributes {tessera.target = "trn2"} {
  func.func @matmul(%arg0: memref<128x128xbf16> {tile.name = "a_t"}, %arg1: memref<128x128xbf16> {tile.name = "b"}, %arg2: memref<128x128xbf16> {tile.name = "c", tile.output}) {
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    scf.for %arg3 = %c0 to %c1 step %c1 {
      %0 = tile.alloc {name = "t0"} : memref<128x128xbf16, #tile.space<sbuf>>
      %c128 = arith.constant 128 : index
      %1 = arith.muli %arg3, %c128 : index
      tile.load %arg1[%c0, %1], %0 : memref<128x128xbf16>, memref<128x128xbf16, #tile.space<sbuf>>
      scf.for %arg4 = %c0 to %c1 step %c1 {
        %2 = tile.alloc {name = "t1"} : memref<128x128xf32, #tile.space<psum>>
        tile.memset %2, 0.000000e+00 : memref<128x128xf32, #tile.space<psum>>
        %3 = tile.alloc {name = "t2"} : memref<128x128xbf16, #tile.space<sbuf>>
        %4 = arith.muli %arg4, %c128 : index
        tile.load %arg0[%c0, %4], %3 : memref<128x128xbf16>, memref<128x128xbf16, #tile.space<sbuf>>
        tile.matmul %3, %0, %2 {accumulate} : memref<128x128xbf16, #tile.space<sbuf>>, memref<128x128xbf16, #tile.space<sbuf>>, memref<128x128xf32, #tile.space<psum>>
        %5 = tile.alloc {name = "t3"} : memref<128x128xbf16, #tile.space<sbuf>>
        tile.copy %2, %5 : memref<128x128xf32, #tile.space<psum>>, memref<128x128xbf16, #tile.space<sbuf>>
        tile.store %5, %arg2[%4, %1] : memref<128x128xbf16, #tile.space<sbuf>>, memref<128x128xbf16>
      }
    }
    return
  }
}
