module attributes {tessera.target = "trn2"} {
  func.func @softmax(%arg0: memref<128x64xf32> {tile.name = "x"}, %arg1: memref<128x64xf32> {tile.name = "y", tile.output}) {
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    scf.for %arg2 = %c0 to %c1 step %c1 {
      %0 = tile.alloc {name = "t0"} : memref<128x64xf32, #tile.space<sbuf>>
      %c128 = arith.constant 128 : index
      %1 = arith.muli %arg2, %c128 : index
      tile.load %arg0[%1, %c0], %0 : memref<128x64xf32>, memref<128x64xf32, #tile.space<sbuf>>
      %2 = tile.alloc {name = "t1"} : memref<128x1xf32, #tile.space<sbuf>>
      tile.reduce max %0, %2 : memref<128x64xf32, #tile.space<sbuf>>, memref<128x1xf32, #tile.space<sbuf>>
      %3 = tile.alloc {name = "t2"} : memref<128x64xf32, #tile.space<sbuf>>
      tile.binary subtract %0, %2, %3 : memref<128x64xf32, #tile.space<sbuf>>, memref<128x1xf32, #tile.space<sbuf>>, memref<128x64xf32, #tile.space<sbuf>>
      %4 = tile.alloc {name = "t3"} : memref<128x64xf32, #tile.space<sbuf>>
      tile.activation exp %3, %4 : memref<128x64xf32, #tile.space<sbuf>>, memref<128x64xf32, #tile.space<sbuf>>
      %5 = tile.alloc {name = "t4"} : memref<128x1xf32, #tile.space<sbuf>>
      tile.reduce add %4, %5 : memref<128x64xf32, #tile.space<sbuf>>, memref<128x1xf32, #tile.space<sbuf>>
      %6 = tile.alloc {name = "t5"} : memref<128x64xf32, #tile.space<sbuf>>
      tile.binary divide %4, %5, %6 : memref<128x64xf32, #tile.space<sbuf>>, memref<128x1xf32, #tile.space<sbuf>>, memref<128x64xf32, #tile.space<sbuf>>
      tile.store %6, %arg1[%1, %c0] : memref<128x64xf32, #tile.space<sbuf>>, memref<128x64xf32>
    }
    return
  }
}
