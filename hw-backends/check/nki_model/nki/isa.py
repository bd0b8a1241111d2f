"""nki.isa for Tessera's NumPy model (see nki/__init__.py): the instructions Tessera's NKI backend emits for the
library kernels, dst first as in NKI 0.6. Each reads its operands as FP32, computes, and writes dst in dst's dtype
(rounding to nearest even). Calls it does not implement raise NotImplementedError."""
import enum

import numpy as np

from . import language as nl


class engine(enum.Enum):
    tensor, vector, scalar, gpsimd, dma, sync, unknown = 1, 5, 2, 3, 4, 6, 0


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
    product = _f32(stationary).T @ _f32(moving)
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


def tensor_reduce(dst, op, data, axis, negate=False, keepdims=False, name=None):
    r = nl.reduction_of(op)(_f32(data), axis=axis, keepdims=True)
    _write(dst, -r if negate else r)


def tensor_copy(dst, src, engine=engine.unknown, name=None):
    _write(dst, _f32(src))


def memset(dst, value, engine=engine.unknown, name=None):
    _write(dst, value)


def __getattr__(name):
    raise NotImplementedError(f"nki.isa.{name} is not in Tessera's NumPy model of NKI")
