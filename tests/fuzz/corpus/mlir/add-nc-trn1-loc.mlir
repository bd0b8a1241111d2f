#loc = loc(unknown)
module attributes {tessera.target = "trn1"} {
  func.func @add(%arg0: memref<128x128xf32> {tile.name = "a"} loc(unknown), %arg1: memref<128x128xf32> {tile.name = "b"} loc(unknown), %arg2: memref<128x128xf32> {tile.name = "c", tile.output} loc(unknown)) attributes {tile.psum_peak = 0 : i64, tile.sbuf_peak = 6144 : i64} {
    nc.dma_copy #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [128], strides = [1]>, #nc.ap<"hbm", f32, tensor = 0, partitions = [0, 128], pstride = 128, offset = 0, dims = [128], strides = [1]> {engine = "dma", signals = array<i64: 0>} loc(#loc1)
    nc.dma_copy #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 2048, dims = [128], strides = [1]>, #nc.ap<"hbm", f32, tensor = 1, partitions = [0, 128], pstride = 128, offset = 0, dims = [128], strides = [1]> {engine = "dma", queue = 1 : i64, signals = array<i64: 1>} loc(#loc2)
    nc.tensor_tensor "add" #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 4096, dims = [128], strides = [1]>, #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 0, dims = [128], strides = [1]>, #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 2048, dims = [128], strides = [1]> {engine = "vector", signals = array<i64: 2>, waits = array<i64: 0, 1, 1, 1>} loc(#loc3)
    nc.dma_copy #nc.ap<"hbm", f32, tensor = 2, partitions = [0, 128], pstride = 128, offset = 0, dims = [128], strides = [1]>, #nc.ap<"sbuf", f32, tensor = -1, partitions = [0, 128], pstride = 0, offset = 4096, dims = [128], strides = [1]> {engine = "dma", queue = 2 : i64, waits = array<i64: 2, 1>} loc(#loc4)
    return loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc1 = loc("/work/main/kernels/add.cpp":33:24)
#loc2 = loc("/work/main/kernels/add.cpp":34:24)
#loc3 = loc("/work/main/kernels/add.cpp":35:49)
#loc4 = loc("/work/main/kernels/add.cpp":35:16)
