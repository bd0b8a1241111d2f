"""nki.language for Tessera's NumPy model (see nki/__init__.py): tensors, buffers, dtypes, operators."""
import ml_dtypes
import numpy as np

float32, float16, bfloat16 = np.dtype(np.float32), np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)
float8_e4m3fn, float8_e5m2 = np.dtype(ml_dtypes.float8_e4m3fn), np.dtype(ml_dtypes.float8_e5m2)
int32, uint32, uint8 = np.dtype(np.int32), np.dtype(np.uint32), np.dtype(np.uint8)


class _Buffer:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"nl.{self.name}"


sbuf, psum, shared_hbm, hbm, private_hbm = (_Buffer(n) for n in ("sbuf", "psum", "shared_hbm", "hbm", "private_hbm"))


class NkiTensor:
    """A tensor in one of NKI's memories; slicing gives views, as NKI's NumPy-style indexing does."""

    def __init__(self, data, buffer, readonly=False):
        self.data, self.buffer, self.readonly = data, buffer, readonly

    shape = property(lambda self: self.data.shape)
    dtype = property(lambda self: self.data.dtype)

    def __getitem__(self, index):
        view = self.data[index]
        if view.ndim < 2:  # on chip, results stay 2-D (the partition dimension is kept)
            view = view.reshape(view.shape[0] if view.ndim else 1, -1)
        return NkiTensor(view, self.buffer, self.readonly)

    def broadcast(self, dim, size):
        """Repeats a size-1 dimension `size` times (a stride-0 access pattern)."""
        if self.data.shape[dim] != 1:
            raise ValueError(f"broadcast: dimension {dim} has size {self.data.shape[dim]}, not 1")
        shape = list(self.data.shape)
        shape[dim] = size
        return NkiTensor(np.broadcast_to(self.data, shape), self.buffer, readonly=True)

    def reshape(self, shape):
        """The same elements in a new shape, row-major within each partition ([128, 256] -> [128, 2, 128]). A view
        when NumPy can make one (then writes reach the tile), else a read-only copy."""
        reshaped = self.data.reshape(tuple(shape))
        return NkiTensor(reshaped, self.buffer, self.readonly or not np.shares_memory(reshaped, self.data))


def ndarray(shape, dtype, buffer=sbuf, name="", address=None):
    if buffer in (sbuf, psum) and shape[0] > 128:
        raise ValueError(f"nl.ndarray: partition dimension {shape[0]} exceeds 128")
    # Fresh memory holds NaN (as nki.simulate fills it), so a read of something never written shows.
    data = np.full(shape, np.nan, dtype=np.float32).astype(dtype) if np.dtype(dtype).kind == "f" else \
        np.zeros(shape, dtype)
    return NkiTensor(data, buffer)


# ALU operators: functions of FP32 arrays (comparisons give 1.0 or 0.0, as the engines do).
def add(a, b): return a + b
def subtract(a, b): return a - b
def multiply(a, b): return a * b
def maximum(a, b): return np.maximum(a, b)
def minimum(a, b): return np.minimum(a, b)
def divide(a, b): return a / b
def power(a, b): return np.power(a, b)
def abs_max(a, b): return np.maximum(np.abs(a), np.abs(b))
def bypass(a, b=None): return a
def equal(a, b): return (a == b).astype(np.float32)
def not_equal(a, b): return (a != b).astype(np.float32)
def greater(a, b): return (a > b).astype(np.float32)
def greater_equal(a, b): return (a >= b).astype(np.float32)
def less(a, b): return (a < b).astype(np.float32)
def less_equal(a, b): return (a <= b).astype(np.float32)
def logical_and(a, b): return ((a != 0) & (b != 0)).astype(np.float32)
def logical_or(a, b): return ((a != 0) | (b != 0)).astype(np.float32)


# Activation functions (the Scalar engine's): FP32 in, FP32 out.
def _erf(x):
    from scipy.special import erf
    return erf(x).astype(np.float32)


def copy(x): return x
def exp(x): return np.exp(x)
def log(x): return np.log(x)
def tanh(x): return np.tanh(x)
def gelu(x): return 0.5 * x * (1.0 + _erf(x / np.float32(np.sqrt(2.0))))
def gelu_apprx_tanh(x): return 0.5 * x * (1.0 + np.tanh(np.float32(0.7978845608028654) * (x + np.float32(0.044715) * x ** 3)))
def sigmoid(x): return 1.0 / (1.0 + np.exp(-x))
def silu(x): return x * sigmoid(x)
def relu(x): return np.where((x > 0) | np.isnan(x), x, np.float32(0))
def rsqrt(x): return 1.0 / np.sqrt(x)
def square(x): return x * x
def sqrt(x): return np.sqrt(x)
def reciprocal(x): return 1.0 / x


_REDUCTIONS = {add: np.sum, maximum: np.max, minimum: np.min, multiply: np.prod}


def reduction_of(op):
    if op not in _REDUCTIONS:
        raise NotImplementedError(f"the NumPy model has no reduction for {op.__name__}")
    return _REDUCTIONS[op]


def device_print(print_prefix, tensor):
    print(f"{print_prefix}: {np.asarray(tensor.data, dtype=np.float32)}")
