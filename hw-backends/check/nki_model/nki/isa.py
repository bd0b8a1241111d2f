"""nki.isa for Tessera's NumPy model (see nki/__init__.py): the instructions Tessera's NKI backend emits for the
library kernels, dst first as in NKI 0.6. Each reads its operands as FP32, computes, and writes dst in dst's dtype
(rounding to nearest even). Calls it does not implement raise NotImplementedError."""
import enum

import numpy as np

from . import language as nl


class engine(enum.Enum):
    tensor, vector, scalar, gpsimd, dma, sync, unknown = 1, 5, 2, 3, 4, 6, 0


_Engine = engine  # the parameters named engine hide the class


class matmul_perf_mode(enum.Enum):
    none, double_row = "none", "double_row"


def _f32(x):
    if isinstance(x, nl.NkiTensor):
        return np.asarray(x.data, dtype=np.float32)
    return np.float32(x)


def _write(dst, value):
    if dst.readonly:
        raise ValueError("dst is a broadcast view")
    value = np.broadcast_to(np.asarray(value, dtype=np.float32), dst.data.shape)
    dst.data[...] = value.astype(dst.data.dtype)


def dma_copy(dst, src, priority=None, oob_mode=None, dge_mode=None, engine=engine.unknown, name=None):
    if nl.psum in (dst.buffer, src.buffer):
        raise ValueError("dma_copy cannot read or write PSUM (NKI 0.3+)")
    if dst.data.size != src.data.size:
        raise ValueError(f"dma_copy: {src.data.size} elements into {dst.data.size}")
    _write(dst, _f32(src).reshape(dst.data.shape))


def nc_matmul(dst, stationary, moving, is_stationary_onezero=False, is_moving_onezero=False, is_transpose=False,
              accumulate=None, tile_position=(), tile_size=(), perf_mode=matmul_perf_mode.none, name=None):
    if dst.buffer is not nl.psum:
        raise ValueError("nc_matmul writes PSUM")
    a, b = _f32(stationary), _f32(moving)
    if perf_mode is matmul_perf_mode.double_row:
        # FP8 double row: each partition holds two contraction rows, stationary [K, 2, M] and moving [K, 2, N]
        # (nc_matmul's perf_mode documentation), read as [2K, M] and [2K, N].
        if stationary.dtype.itemsize != 1 or moving.dtype.itemsize != 1:
            raise ValueError("double_row needs FP8 stationary and moving")
        if a.ndim != 3 or b.ndim != 3 or a.shape[1] != 2 or b.shape[1] != 2:
            raise ValueError(f"double_row needs [K, 2, M] and [K, 2, N] operands, not {a.shape} and {b.shape}")
        a, b = a.reshape(2 * a.shape[0], -1), b.reshape(2 * b.shape[0], -1)
    product = a.T @ b
    _write(dst, _f32(dst) + product if accumulate else product)


def tensor_tensor(dst, data1, data2, op, engine=engine.unknown, name=None):
    _write(dst, op(_f32(data1), _f32(data2)))


def tensor_scalar(dst, data, op0, operand0, reverse0=False, op1=None, operand1=None, reverse1=False,
                  engine=engine.unknown, name=None):
    x = _f32(data)
    a = _f32(operand0)
    x = op0(a, x) if reverse0 else op0(x, a)
    if op1 is not None:
        b = _f32(operand1)
        x = op1(b, x) if reverse1 else op1(x, b)
    _write(dst, x)


def activation(dst, op, data, bias=None, scale=1.0, reduce_op=None, reduce_res=None, reduce_cmd=None, name=None):
    x = _f32(data) * _f32(scale)
    if bias is not None:
        x = x + _f32(bias)
    _write(dst, op(x))


def activation_reduce(dst, op, data, reduce_op, reduce_res, bias=None, scale=1.0, name=None):
    """activation, then reduce_op along the free dimension of its FP32 result into reduce_res ([P, 1])."""
    x = _f32(data) * _f32(scale)
    if bias is not None:
        x = x + _f32(bias)
    y = op(x)
    _write(dst, y)
    _write(reduce_res, nl.reduction_of(reduce_op)(y, axis=1, keepdims=True))


def nc_transpose(dst, data, engine=engine.unknown, name=None):
    """dst = data^T: on the tensor engine ([<= 128, <= 128] into PSUM) or the vector engine ([<= 32, <= 32])."""
    limit = 32 if engine is _Engine.vector else 128
    if max(data.shape) > limit:
        raise ValueError(f"nc_transpose on {engine}: {data.shape} exceeds {limit} x {limit}")
    if engine is _Engine.tensor and dst.buffer is not nl.psum:
        raise ValueError("nc_transpose on the tensor engine writes PSUM")
    _write(dst, _f32(data).T)


def affine_select(dst, pattern, offset, channel_multiplier, on_true_tile, on_false_value, cmp_op=nl.equal,
                  name=None):
    """dst = on_true_tile where cmp_op(offset + p * channel_multiplier + sum of index * step, 0), else
    on_false_value; pattern [[step, num], ...] walks the free dimension, outermost first."""
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
    a, b = _f32(data0), _f32(data1)
    previous = np.broadcast_to(_f32(initial), (a.shape[0], 1)).astype(np.float32)
    result = np.empty_like(a)
    for i in range(a.shape[1]):
        x = op0(previous, a[:, i:i + 1]) if reverse0 else op0(a[:, i:i + 1], previous)
        previous = op1(b[:, i:i + 1], x) if reverse1 else op1(x, b[:, i:i + 1])
        result[:, i:i + 1] = previous
    _write(dst, result)


def tensor_reduce(dst, op, data, axis, negate=False, keepdims=False, name=None):
    r = nl.reduction_of(op)(_f32(data), axis=axis, keepdims=True)
    _write(dst, -r if negate else r)


def dma_transpose(dst, src, axes=None, dge_mode=None, name=None):
    """dst = src^T (a 2-D transpose done by the DMA engines)."""
    if nl.psum in (dst.buffer, src.buffer):
        raise ValueError("dma_transpose cannot read or write PSUM")
    _write(dst, _f32(src).T)


def bn_stats(dst, data, name=None):
    """Per partition, (count, mean, M2) of the even-indexed elements of the row, then of the odd-indexed ones
    (M2: the sum of squared deviations from the mean): dst [P, 6]."""
    x = _f32(data).reshape(data.shape[0], -1)
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
    _write(dst, _f32(src))


def memset(dst, value, engine=engine.unknown, name=None):
    _write(dst, value)


def __getattr__(name):
    raise NotImplementedError(f"nki.isa.{name} is not in Tessera's NumPy model of NKI")
