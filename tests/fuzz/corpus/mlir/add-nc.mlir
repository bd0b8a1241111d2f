module attributes {tessera.target = "trn2"} {
  func.func @add(%arg0: memref<128x128xf32> {tile.name = "a"}, %arg1: memref<128x128xf32> {tile.name = "b"}, %arg2: memref<128x128xf32> {tile.name = "c", tile.output}) attributes {tile.psum_peak = 0 : i64, tile.sbuf_peak = 6144 : i64} {
    nc.dma_copy #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [128], strides = [1]>, #nc.ap<"hbm", f32, tensor = 0, partitions = [0, 128], pstride = 128, offset = 0, dims = [128], strides = [1]> {engine = "dma", signals = array<i64: 0>}
    nc.dma_copy #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 2048, dims = [128], strides = [1]>, #nc.ap<"hbm", f32, tensor = 1, partitions = [0, 128], pstride = 128, offset = 0, dims = [128], strides = [1]> {engine = "dma", queue = 1 : i64, signals = array<i64: 1>}
    nc.tensor_tensor "add" #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 4096, dims = [128], strides = [1]>, #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [128], strides = [1]>, #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 2048, dims = [128], strides = [1]> {engine = "vector", signals = array<i64: 2>, waits = array<i64: 0, 1, 1, 1>}
    nc.dma_copy #nc.ap<"hbm", f32, tensor = 2, partitions = [0, 128], pstride = 128, offset = 0, dims = [128], strides = [1]>, #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 4096, dims = [128], strides = [1]> {engine = "dma", queue = 2 : i64, waits = array<i64: 2, 1>}
    return
  }
}
