"""nki.isa for Tessera's NumPy model (see nki/__init__.py): the instructions Tessera's NKI backend emits for the
library kernels, with NKI 0.6's signatures (dst first). Each reads its operands as FP32, computes, and writes dst in
dst's dtype (rounding to nearest even). Each also refuses, with ValueError, what the NKI 0.6 reference says the
hardware does not do whatever the NeuronCore: an operator outside NKI's ALU or activation tables (nl.divide among
them), an engine the instruction does not run on, PSUM on the GpSimd Engine or DMA, a matmul operand in the wrong
memory or over the Tensor Engine's tile limits. What differs between generations (trn1 against trn2) the model
does not know; check_nki.py checks that. Calls it does not implement raise NotImplementedError.

The reference pages: https://awsdocs-neuron.readthedocs-hosted.com/en/v2.32.0/nki/api/generated/nki.isa.<name>.html
"""
import enum

import numpy as np

from . import language as nl


class engine(enum.Enum):
    tensor, vector, scalar, gpsimd, dma, sync, unknown = 1, 5, 2, 3, 4, 6, 0


_Engine = engine  # the parameters named engine hide the class


class matmul_perf_mode(enum.Enum):
    none, double_row = "none", "double_row"


class dge_mode(enum.Enum):
    unknown, swdge, hwdge, none = 0, 1, 2, 3


_DgeMode = dge_mode


class oob_mode(enum.Enum):
    error, skip = 0, 1


_FP8 = (nl.float8_e4m3, nl.float8_e4m3fn, nl.float8_e5m2)


def _engine_access(tile):
    """Raises unless an engine instruction may reach `tile`'s partitions: an access of more than 64 partitions starts
    at partition 0, of 33 to 64 at 0 or 64, of 32 or fewer at 0, 32, 64 or 96 (the NeuronCore architecture guide,
    trainium_inferentia2_arch "SBUF/PSUM access": start_partition). DMAs are not engine instructions."""
    if not isinstance(tile, nl.NkiTensor) or tile.buffer not in (nl.sbuf, nl.psum) or tile.data.ndim == 0:
        return
    count, start = tile.data.shape[0], tile.partition_start
    alignment = 32
    while alignment < count:
        alignment *= 2
    if start % alignment:
        raise ValueError(f"an engine access of {count} partitions starts at partition {start}, not a multiple of "
                         f"{alignment} (start_partition)")


def _f32(x, dma=False):
    if isinstance(x, nl.NkiTensor):
        if not dma:
            _engine_access(x)
        return np.asarray(x.data, dtype=np.float32)
    return np.float32(x)


def _per_partition(x, data):
    """`x` (FP32: a number, or a [P, 1] tile's values) shaped to broadcast along every free dimension of `data`'s
    values: one value per partition, as NKI's scalar and vector operands are (data may be an access pattern's
    [P, c1, c2, ...])."""
    if np.ndim(x) == 2 and np.shape(x)[1] == 1 and np.ndim(data) > 2:
        return x.reshape((x.shape[0],) + (1,) * (np.ndim(data) - 1))
    return x


def _scaled(data, scale, bias):
    """activation's input before its function, in FP32: data * scale + bias, scale and bias per partition."""
    values = _f32(data)
    x = values * _per_partition(_f32(scale), values)
    return x if bias is None else x + _per_partition(_f32(bias), values)


def _write(dst, value, dma=False):
    if not dma:
        _engine_access(dst)
    if dst.readonly:
        raise ValueError("dst is a broadcast view")
    value = np.broadcast_to(np.asarray(value, dtype=np.float32), dst.data.shape)
    dst.data[...] = _to_dtype(value, dst.data.dtype)


def _to_dtype(value, dtype):
    """`value` (FP32) as `dtype`: an integer type rounds to nearest (ties to even), saturates and makes NaN 0, as
    Tessera assumes (docs/dsl.md, "Dtypes": the NKI documentation does not say how engines round to integers);
    NumPy's astype would truncate and wrap."""
    if np.dtype(dtype).kind not in "iu":
        return value.astype(dtype)
    limits = np.iinfo(dtype)
    rounded = np.clip(np.rint(value.astype(np.float64)), limits.min, limits.max)
    return np.nan_to_num(rounded, nan=0.0).astype(dtype)


def _engine(where, given, allowed):
    """Raises unless the engine is one the instruction documents (or unknown: the compiler picks)."""
    if given is not _Engine.unknown and given not in allowed:
        raise ValueError(f"{where} does not run on {given}")


def _no_psum_on_gpsimd(where, given, *tiles):
    """The GpSimd Engine cannot reach PSUM (nki.isa.tensor_copy's and tensor_tensor's pages)."""
    if given is _Engine.gpsimd and any(isinstance(t, nl.NkiTensor) and t.buffer is nl.psum for t in tiles):
        raise ValueError(f"{where} on the GpSimd Engine cannot read or write PSUM")


def _apply(op, x, operand, reverse):
    """op on a tile and a scalar operand: a one-operand ALU operator takes only the tile."""
    if op in nl.ALU_UNARY:
        return op(x)
    return op(operand, x) if reverse else op(x, operand)


def dma_copy(dst, src, priority=None, oob_mode=oob_mode.error, dge_mode=dge_mode.unknown, engine=engine.unknown,
             name=None):
    if nl.psum in (dst.buffer, src.buffer):
        raise ValueError("dma_copy cannot read or write PSUM (NKI 0.3+)")
    if engine not in (_Engine.unknown, _Engine.sync, _Engine.scalar) or \
            (engine is not _Engine.unknown and dge_mode is not _DgeMode.hwdge):
        raise ValueError(f"dma_copy: engine={engine} (only sync or scalar, and only with dge_mode=hwdge)")
    if dst.data.size != src.data.size:
        raise ValueError(f"dma_copy: {src.data.size} elements into {dst.data.size}")
    _write(dst, _f32(src, dma=True).reshape(dst.data.shape), dma=True)


def nc_matmul(dst, stationary, moving, is_stationary_onezero=False, is_moving_onezero=False, is_transpose=False,
              accumulate=None, tile_position=(), tile_size=(), perf_mode=matmul_perf_mode.none, name=None):
    if dst.buffer is not nl.psum:
        raise ValueError("nc_matmul writes PSUM")
    if stationary.buffer is not nl.sbuf or moving.buffer is not nl.sbuf:
        raise ValueError("nc_matmul reads stationary and moving from SBUF")
    if stationary.shape[0] != moving.shape[0] or stationary.shape[0] > 128:
        raise ValueError(f"nc_matmul: partition sizes {stationary.shape[0]} and {moving.shape[0]} (equal, <= 128)")
    a, b = _f32(stationary), _f32(moving)
    if perf_mode is matmul_perf_mode.double_row:
        # FP8 double row: each partition holds two contraction rows, stationary [K, 2, M], moving [K, 2, N].
        if stationary.dtype not in _FP8 or moving.dtype not in _FP8:
            raise ValueError("double_row needs FP8 stationary and moving")
        if stationary.data.ndim != 3 or moving.data.ndim != 3 or stationary.shape[1] != 2 or moving.shape[1] != 2:
            raise ValueError(f"double_row needs [K, 2, M] and [K, 2, N] operands, given {stationary.shape} and "
                             f"{moving.shape}")
        a, b = a.reshape(2 * a.shape[0], -1), b.reshape(2 * b.shape[0], -1)
    else:
        a, b = a.reshape(a.shape[0], -1), b.reshape(b.shape[0], -1)
    if a.shape[1] > 128:
        raise ValueError(f"nc_matmul: stationary's free size {a.shape[1]} exceeds 128")
    product = a.T @ b
    _write(dst, _f32(dst) + product if accumulate else product)


def tensor_tensor(dst, data1, data2, op, engine=engine.unknown, name=None):
    nl._require_operator(op, nl.ALU_ARITHMETIC, "tensor_tensor")
    _engine("tensor_tensor", engine, (_Engine.vector, _Engine.gpsimd))
    if op is nl.power and engine is _Engine.vector:
        raise ValueError("tensor_tensor: nl.power runs on the GpSimd Engine")
    _no_psum_on_gpsimd("tensor_tensor", _Engine.gpsimd if op is nl.power else engine, dst, data1, data2)
    if data1.buffer is nl.psum and data2.buffer is nl.psum:
        raise ValueError("tensor_tensor: data1 and data2 cannot both be in PSUM")
    a, b = _f32(data1), _f32(data2)
    if a.shape != b.shape:
        # "The two tiles must have the same partition axis size and the same number of elements per partition"
        # (nki.isa.tensor_tensor): two access patterns of different counts are read element by element.
        if a.shape[0] != b.shape[0] or a[0].size != b[0].size:
            raise ValueError(f"tensor_tensor: data1 {a.shape} and data2 {b.shape} differ in partitions or in "
                             f"elements per partition")
        a, b = a.reshape(a.shape[0], -1), b.reshape(b.shape[0], -1)
    result = op(a, b)
    if result.shape != dst.data.shape and result.size == dst.data.size and result.shape[0] == dst.data.shape[0]:
        result = result.reshape(dst.data.shape)
    _write(dst, result)


def tensor_scalar(dst, data, op0, operand0, reverse0=False, op1=None, operand1=None, reverse1=False,
                  engine=engine.unknown, name=None):
    for op in (op0, op1):
        if op is not None:
            nl._require_operator(op, nl.ALU_ARITHMETIC | nl.ALU_UNARY, "tensor_scalar")
    _engine("tensor_scalar", engine, (_Engine.vector, _Engine.scalar, _Engine.gpsimd))
    if engine is _Engine.gpsimd and (op0 is not nl.rsqrt or op1 is not None):
        raise ValueError("tensor_scalar on the GpSimd Engine does rsqrt only")
    _no_psum_on_gpsimd("tensor_scalar", engine, dst, data, operand0, operand1)
    values = _f32(data)
    x = _apply(op0, values, _per_partition(_f32(operand0), values), reverse0)
    if op1 is not None:
        x = _apply(op1, x, _per_partition(_f32(operand1), values), reverse1)
    _write(dst, x)


def activation(dst, op, data, bias=None, scale=1.0, reduce_op=None, reduce_res=None, reduce_cmd=None, name=None):
    nl._require_operator(op, nl.ACTIVATION_FUNCTIONS, "activation", "an activation function of the Scalar Engine")
    if reduce_op is not None and reduce_op is not nl.add:
        raise ValueError("activation: the Scalar Engine reduces with nl.add only")
    if reduce_res is not None:
        raise NotImplementedError("the NumPy model has no activation reduce_res (use activation_reduce)")
    x = _scaled(data, scale, bias)
    _write(dst, op(x))


def activation_reduce(dst, op, data, reduce_op, reduce_res, bias=None, scale=1.0, name=None):
    """activation, then reduce_op along the free dimension of its FP32 result into reduce_res ([P, 1])."""
    nl._require_operator(op, nl.ACTIVATION_FUNCTIONS, "activation_reduce", "an activation function of the Scalar "
                                                                           "Engine")
    x = _scaled(data, scale, bias)
    y = op(x)
    _write(dst, y)
    _write(reduce_res, nl._reduction_of(reduce_op)(y.reshape(y.shape[0], -1), axis=1, keepdims=True))


def nc_transpose(dst, data, engine=engine.unknown, name=None):
    """dst = data^T: on the tensor engine ([<= 128, <= 128] SBUF into PSUM) or the vector engine ([<= 32, <= 32])."""
    _engine("nc_transpose", engine, (_Engine.tensor, _Engine.vector))
    limit = 32 if engine is _Engine.vector else 128
    if max(data.shape) > limit:
        raise ValueError(f"nc_transpose on {engine}: {data.shape} exceeds {limit} x {limit}")
    if engine is _Engine.tensor and (dst.buffer is not nl.psum or data.buffer is not nl.sbuf):
        raise ValueError("nc_transpose on the tensor engine reads SBUF and writes PSUM")
    _write(dst, _f32(data).T)


def affine_select(dst, pattern, channel_multiplier, on_true_tile, on_false_value, cmp_op=nl.equal, offset=0,
                  name=None):
    """dst = on_true_tile where cmp_op(offset + p * channel_multiplier + sum of index * step, 0), else
    on_false_value; pattern [[step, num], ...] walks the free dimension, outermost first (GpSimd Engine)."""
    nl._require_operator(cmp_op, nl.ALU_COMPARISON, "affine_select", "a comparison of NKI's ALU table")
    if dst.buffer is not nl.sbuf or on_true_tile.buffer is not nl.sbuf:
        raise ValueError("affine_select reads and writes SBUF (GpSimd Engine)")
    partitions = dst.shape[0]
    value = np.full((partitions, 1), offset, dtype=np.int64) + \
        np.arange(partitions, dtype=np.int64).reshape(-1, 1) * channel_multiplier
    free = np.zeros(1, dtype=np.int64)
    for step, num in pattern:
        free = (free.reshape(-1, 1) + np.arange(num, dtype=np.int64).reshape(1, -1) * step).reshape(-1)
    if free.size != int(np.prod(dst.shape[1:])):
        raise ValueError(f"affine_select: pattern {pattern} covers {free.size} elements per partition, "
                         f"dst has {int(np.prod(dst.shape[1:]))}")
    predicate = cmp_op((value + free.reshape(1, -1)).astype(np.float64), 0.0) != 0
    chosen = np.where(predicate, _f32(on_true_tile).reshape(partitions, -1), np.float32(on_false_value))
    _write(dst, chosen.reshape(dst.shape))


def tensor_tensor_scan(dst, data0, data1, initial, op0, op1, reverse0=False, reverse1=False, name=None):
    """Per partition: r[:, i] = op1(op0(data0[:, i], r[:, i - 1]), data1[:, i]), r[:, -1] = initial."""
    for op in (op0, op1):
        nl._require_operator(op, nl.ALU_ARITHMETIC, "tensor_tensor_scan")
    if data0.buffer is nl.psum and data1.buffer is nl.psum:
        raise ValueError("tensor_tensor_scan: data0 and data1 cannot both be in PSUM")
    a, b = _f32(data0), _f32(data1)
    previous = np.broadcast_to(_f32(initial), (a.shape[0], 1)).astype(np.float32)
    result = np.empty_like(a)
    for i in range(a.shape[1]):
        x = op0(previous, a[:, i:i + 1]) if reverse0 else op0(a[:, i:i + 1], previous)
        previous = op1(b[:, i:i + 1], x) if reverse1 else op1(x, b[:, i:i + 1])
        result[:, i:i + 1] = previous
    _write(dst, result)


def tensor_reduce(dst, op, data, axis, negate=False, keepdims=False, name=None):
    r = nl._reduction_of(op)(_f32(data), axis=axis, keepdims=keepdims)
    _write(dst, -r if negate else r)


def dma_transpose(dst, src, axes=None, priority=None, dge_mode=dge_mode.unknown, oob_mode=oob_mode.error,
                  name=None):
    """dst = src^T, a 2-D transpose done by the DMA engines (the model has no 3-D or 4-D ones)."""
    if dst.buffer is not nl.sbuf or src.buffer is nl.psum:
        raise ValueError("dma_transpose writes SBUF and reads HBM or SBUF")
    if dge_mode is _DgeMode.none:
        raise ValueError("dma_transpose: dge_mode must be unknown, hwdge or swdge")
    if src.dtype != dst.dtype:
        raise ValueError(f"dma_transpose: src {src.dtype} into dst {dst.dtype} (the dtypes must match)")
    if src.data.ndim != 2 or axes not in (None, (1, 0), [1, 0]):
        raise NotImplementedError(f"the NumPy model has 2-D dma_transpose only (src {src.shape}, axes {axes})")
    _write(dst, _f32(src, dma=True).T, dma=True)


def bn_stats(dst, data, name=None):
    """Per partition, (count, mean, M2) of the even-indexed elements of the row, then of the odd-indexed ones
    (M2: the sum of squared deviations from the mean): dst [P, 6]."""
    x = _f32(data).reshape(data.shape[0], -1)
    if x.shape[1] > 512:
        raise ValueError(f"bn_stats: {x.shape[1]} elements per partition (at most 512, bn_stats_fmax)")
    triples = []
    for half in (x[:, 0::2], x[:, 1::2]):
        count = half.shape[1]
        mean = half.mean(axis=1, keepdims=True) if count else np.zeros((x.shape[0], 1), np.float32)
        m2 = ((half - mean) ** 2).sum(axis=1, keepdims=True)
        triples += [np.full_like(mean, count), mean, m2]
    _write(dst, np.concatenate(triples, axis=1))


def bn_aggr(dst, data, name=None):
    """Mean and population variance ([P, 2]) of the (count, mean, M2) triples in data (from bn_stats)."""
    stats = _f32(data).reshape(data.shape[0], -1, 3).astype(np.float64)
    count, mean, m2 = stats[..., 0], stats[..., 1], stats[..., 2]
    total = count.sum(axis=1, keepdims=True)
    overall = (count * mean).sum(axis=1, keepdims=True) / total
    variance = (m2.sum(axis=1, keepdims=True) + (count * (mean - overall) ** 2).sum(axis=1, keepdims=True)) / total
    _write(dst, np.concatenate([overall, variance], axis=1))


def reciprocal(dst, data, name=None):
    """dst = 1 / data, element by element (the vector engine; NKI has no divide on the ALU)."""
    with np.errstate(divide="ignore"):
        _write(dst, np.float32(1) / _f32(data))


def tensor_copy(dst, src, engine=engine.unknown, name=None):
    _engine("tensor_copy", engine, (_Engine.vector, _Engine.scalar, _Engine.gpsimd))
    _no_psum_on_gpsimd("tensor_copy", engine, dst, src)
    _write(dst, _f32(src))


def nc_stream_shuffle(dst, src, shuffle_mask, name=None):
    """Within each quadrant q of 32 partitions, partition i of dst copies partition shuffle_mask[i] of src's quadrant
    q (255: dst's partition is kept), on the Vector engine (NKI ISA reference, nki.isa.nc_stream_shuffle). One
    dtype, as many elements per partition; with A = the larger partition count in whole quadrants, both start at 0
    (A of 96 or 128), 0 or 64 (A = 64) or a multiple of 32 (A = 32). A copy from a partition src lacks is refused."""
    mask = list(shuffle_mask)
    if len(mask) != 32 or any(not (0 <= int(m) < 32 or int(m) == 255) for m in mask):
        raise ValueError(f"nc_stream_shuffle: shuffle_mask must be 32 partitions of a quadrant (0 to 31) or 255, "
                         f"not {mask}")
    for what, t in (("dst", dst), ("src", src)):
        if not isinstance(t, nl.NkiTensor) or t.buffer not in (nl.sbuf, nl.psum):
            raise ValueError(f"nc_stream_shuffle: {what} must be an SBUF or PSUM tile")
    if dst.readonly:
        raise ValueError("dst is a broadcast view")
    if dst.data.dtype != src.data.dtype:
        raise ValueError(f"nc_stream_shuffle: dst is {dst.data.dtype} but src is {src.data.dtype}")
    rows, sources = dst.data.shape[0], src.data.shape[0]
    values, out = src.data.reshape(sources, -1), np.array(dst.data).reshape(rows, -1)
    if values.shape[1] != out.shape[1]:
        raise ValueError(f"nc_stream_shuffle: dst has {out.shape[1]} elements per partition, src {values.shape[1]}")
    active = -(-max(rows, sources) // 32) * 32
    for what, t in (("dst", dst), ("src", src)):
        if (t.partition_start != 0) if active > 64 else (t.partition_start % active != 0):
            raise ValueError(f"nc_stream_shuffle: {what} starts at partition {t.partition_start} with {active} "
                             f"active partitions")
    for p in range(rows):
        m = int(mask[p % 32])
        if m == 255:
            continue
        if p // 32 * 32 + m >= sources:
            raise ValueError(f"nc_stream_shuffle: partition {p} of dst copies partition {p // 32 * 32 + m} of src, "
                             f"which has {sources}")
        out[p] = values[p // 32 * 32 + m]
    dst.data[...] = out.reshape(dst.data.shape)


def memset(dst, value, engine=engine.unknown, name=None):
    _engine("memset", engine, (_Engine.vector, _Engine.gpsimd))
    _no_psum_on_gpsimd("memset", engine, dst)
    _write(dst, value)


def __getattr__(name):
    raise NotImplementedError(f"nki.isa.{name} is not in Tessera's NumPy model of NKI")
