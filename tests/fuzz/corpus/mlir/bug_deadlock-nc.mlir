module attributes {tessera.target = "trn2"} {
  func.func @bug_deadlock(%arg0: memref<128x512xf32> {tile.name = "x"}, %arg1: memref<128x512xf32> {tile.name = "y", tile.output}) attributes {tile.psum_peak = 0 : i64, tile.sbuf_peak = 4096 : i64} {
    nc.dma_copy #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]>, #nc.ap<"hbm", f32, tensor = 0, partitions = [0, 128], pstride = 512, offset = 0, dims = [512], strides = [1]> {engine = "dma", nc.manual, signals = array<i64: 0>}
    nc.print "t" #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]> {engine = "vector", nc.manual, waits = array<i64: 0, 1>}
    nc.activation "exp" #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 2048, dims = [512], strides = [1]>, #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [512], strides = [1]> {engine = "scalar", nc.manual, scale = 1.000000e+00 : f32, signals = array<i64: 1>, waits = array<i64: 1, 1>}
    nc.dma_copy #nc.ap<"hbm", f32, tensor = 1, partitions = [0, 128], pstride = 512, offset = 0, dims = [512], strides = [1]>, #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 2048, dims = [512], strides = [1]> {engine = "dma", nc.manual, queue = 1 : i64, waits = array<i64: 1, 1>}
    return
  }
}
