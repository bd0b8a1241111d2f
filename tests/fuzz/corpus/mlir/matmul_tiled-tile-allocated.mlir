module attributes {tessera.target = "trn2"} {
  func.func @matmul_tiled(%arg0: memref<128x128xbf16> {tile.name = "a_t"}, %arg1: memref<128x512xbf16> {tile.name = "b"}, %arg2: memref<128x512xbf16> {tile.name = "c", tile.output}) attributes {tile.psum_peak = 8192 : i64, tile.sbuf_peak = 9216 : i64} {
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    scf.for %arg3 = %c0 to %c1 step %c1 {
      scf.for %arg4 = %c0 to %c1 step %c1 {
        %0 = tile.alloc {bufs = 4 : i64, name = "t0", offset = 0 : i64} : memref<128x512xf32, #tile.space<psum>>
        tile.memset %0, 0.000000e+00 : memref<128x512xf32, #tile.space<psum>>
        scf.for %arg5 = %c0 to %c1 step %c1 {
          %4 = tile.alloc {bufs = 4 : i64, name = "t1", offset = 0 : i64} : memref<128x512xbf16, #tile.space<sbuf>>
          %c128_0 = arith.constant 128 : index
          %5 = arith.muli %arg5, %c128_0 : index
          %c512_1 = arith.constant 512 : index
          %6 = arith.muli %arg4, %c512_1 : index
          tile.load %arg1[%5, %6], %4 : memref<128x512xbf16>, memref<128x512xbf16, #tile.space<sbuf>>
          %7 = tile.alloc {bufs = 4 : i64, name = "t2", offset = 4096 : i64} : memref<128x128xbf16, #tile.space<sbuf>>
          %8 = arith.muli %arg3, %c128_0 : index
          tile.load %arg0[%5, %8], %7 : memref<128x128xbf16>, memref<128x128xbf16, #tile.space<sbuf>>
          tile.matmul %7, %4, %0 {accumulate} : memref<128x128xbf16, #tile.space<sbuf>>, memref<128x512xbf16, #tile.space<sbuf>>, memref<128x512xf32, #tile.space<psum>>
        }
        %1 = tile.alloc {bufs = 4 : i64, name = "t3", offset = 5120 : i64} : memref<128x512xbf16, #tile.space<sbuf>>
        tile.copy %0, %1 : memref<128x512xf32, #tile.space<psum>>, memref<128x512xbf16, #tile.space<sbuf>>
        %c128 = arith.constant 128 : index
        %2 = arith.muli %arg3, %c128 : index
        %c512 = arith.constant 512 : index
        %3 = arith.muli %arg4, %c512 : index
        tile.store %1, %arg2[%2, %3] : memref<128x512xbf16, #tile.space<sbuf>>, memref<128x512xbf16>
      }
    }
    return
  }
}
