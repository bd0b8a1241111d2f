module attributes {tessera.target = "trn2"} {
  func.func @matmul(%arg0: memref<128x128xbf16> {tile.name = "a_t"}, %arg1: memref<128x128xbf16> {tile.name = "b"}, %arg2: memref<128x128xbf16> {tile.name = "c", tile.output}) attributes {tile.psum_peak = 8192 : i64, tile.sbuf_peak = 3072 : i64} {
    nc.dma_copy #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [128], strides = [1]>, #nc.ap<"hbm", bf16, tensor = 1, partitions = [0, 128], pstride = 128, offset = 0, dims = [128], strides = [1]> {engine = "dma", signals = array<i64: 0>}
    nc.dma_copy #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 1024, dims = [128], strides = [1]>, #nc.ap<"hbm", bf16, tensor = 0, partitions = [0, 128], pstride = 128, offset = 0, dims = [128], strides = [1]> {engine = "dma", queue = 1 : i64, signals = array<i64: 1>}
    nc.matmul #nc.ap<"psum", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [128], strides = [1]>, #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 1024, dims = [128], strides = [1]>, #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [128], strides = [1]> {engine = "tensor", signals = array<i64: 2>, waits = array<i64: 0, 1, 1, 1>}
    nc.tensor_copy #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 2048, dims = [128], strides = [1]>, #nc.ap<"psum", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [128], strides = [1]> {engine = "scalar", signals = array<i64: 3>, waits = array<i64: 2, 1>}
    nc.dma_copy #nc.ap<"hbm", bf16, tensor = 2, partitions = [0, 128], pstride = 128, offset = 0, dims = [128], strides = [1]>, #nc.ap<"sbuf", bf16, tensor = -1, partitions = [0, 128], pstride = 0, offset = 2048, dims = [128], strides = [1]> {engine = "dma", queue = 2 : i64, waits = array<i64: 3, 1>}
    return
  }
}
