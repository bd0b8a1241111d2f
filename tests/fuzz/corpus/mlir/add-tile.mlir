module attributes {tessera.target = "trn2"} {
  func.func @add(%arg0: memref<128x128xf32> {tile.name = "a"}, %arg1: memref<128x128xf32> {tile.name = "b"}, %arg2: memref<128x128xf32> {tile.name = "c", tile.output}) {
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    scf.for %arg3 = %c0 to %c1 step %c1 {
      scf.for %arg4 = %c0 to %c1 step %c1 {
        %0 = tile.alloc {name = "t0"} : memref<128x128xf32, #tile.space<sbuf>>
        %c128 = arith.constant 128 : index
        %1 = arith.muli %arg3, %c128 : index
        %2 = arith.muli %arg4, %c128 : index
        tile.load %arg0[%1, %2], %0 : memref<128x128xf32>, memref<128x128xf32, #tile.space<sbuf>>
        %3 = tile.alloc {name = "t1"} : memref<128x128xf32, #tile.space<sbuf>>
        tile.load %arg1[%1, %2], %3 : memref<128x128xf32>, memref<128x128xf32, #tile.space<sbuf>>
        %4 = tile.alloc {name = "t2"} : memref<128x128xf32, #tile.space<sbuf>>
        tile.binary add %0, %3, %4 : memref<128x128xf32, #tile.space<sbuf>>, memref<128x128xf32, #tile.space<sbuf>>, memref<128x128xf32, #tile.space<sbuf>>
        tile.store %4, %arg2[%1, %2] : memref<128x128xf32, #tile.space<sbuf>>, memref<128x128xf32>
      }
    }
    return
  }
}
