"""nki.language for Tessera's NumPy model (see nki/__init__.py): tensors, buffers, dtypes, operators."""
import ml_dtypes
import numpy as np

float32, float16, bfloat16 = np.dtype(np.float32), np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)
float8_e4m3fn, float8_e5m2 = np.dtype(ml_dtypes.float8_e4m3fn), np.dtype(ml_dtypes.float8_e5m2)
# float8_e4m3 (NKI's legacy FP8, which NeuronCore-v2/-v3 matmuls take) read as ml_dtypes' IEEE-style e4m3 (with
# infinities, largest finite 240): the NKI reference gives its bit layout (1S,4E,3M), not its special values.
float8_e4m3 = np.dtype(ml_dtypes.float8_e4m3)
int32, uint32, uint8 = np.dtype(np.int32), np.dtype(np.uint32), np.dtype(np.uint8)
int8, int16, uint16 = np.dtype(np.int8), np.dtype(np.int16), np.dtype(np.uint16)


class _Buffer:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"nl.{self.name}"


sbuf, psum, shared_hbm, hbm, private_hbm = (_Buffer(n) for n in ("sbuf", "psum", "shared_hbm", "hbm", "private_hbm"))


class NkiTensor:
    """A tensor in one of NKI's memories; slicing gives views, as NKI's NumPy-style indexing does. An on-chip view
    knows its first partition (`partition_start`), which the engines' access rule reads (isa._engine_access)."""

    def __init__(self, data, buffer, readonly=False, partition_start=0):
        self.data, self.buffer, self.readonly = data, buffer, readonly
        self.partition_start = partition_start

    shape = property(lambda self: self.data.shape)
    dtype = property(lambda self: self.data.dtype)

    def __getitem__(self, index):
        view = self.data[index]
        first = index[0] if isinstance(index, tuple) and index else index
        start = self.partition_start
        if isinstance(first, slice):
            start += first.indices(self.data.shape[0])[0]
        elif isinstance(first, (int, np.integer)):
            start += int(first) % self.data.shape[0]
        if view.ndim < 2:  # on chip, results stay 2-D (the partition dimension is kept)
            view = view.reshape(view.shape[0] if view.ndim else 1, -1)
        return NkiTensor(view, self.buffer, self.readonly, start)

    def broadcast(self, dim, size):
        """Repeats a size-1 dimension `size` times (a stride-0 access pattern)."""
        if self.data.shape[dim] != 1:
            raise ValueError(f"broadcast: dimension {dim} has size {self.data.shape[dim]}, not 1")
        shape = list(self.data.shape)
        shape[dim] = size
        return NkiTensor(np.broadcast_to(self.data, shape), self.buffer, True, self.partition_start)

    def ap(self, pattern, offset=0):
        """A hardware access pattern over this on-chip tensor (NkiTensor.ap, the "NKI Access Patterns" page): pattern
        is [[F, partitions], [step, count], ...], F the tensor's free size (partitions are walked whole), offset in
        elements from its start; the view's shape is the counts. Only on a tensor that is not itself a view."""
        if self.buffer not in (sbuf, psum):
            raise ValueError("ap: the model takes access patterns of SBUF and PSUM tensors only")
        base = self.data
        if base.base is not None or base.ndim != 2:
            raise ValueError("ap: cannot specify an access pattern on an already indexed tensor")
        partitions, free = base.shape
        if pattern[0][0] != free:
            raise ValueError(f"ap: the partition step {pattern[0][0]} is not the free size {free}")
        flat = base.reshape(-1)
        steps = [int(s) for s, _ in pattern]
        counts = [int(n) for _, n in pattern]
        within = offset % free + sum(s * (n - 1) for s, n in zip(steps[1:], counts[1:]))
        if offset < 0 or any(s < 0 for s in steps) or within >= free or offset // free + counts[0] > partitions:
            raise ValueError(f"ap: the pattern {pattern} at offset {offset} leaves the tensor {base.shape}")
        view = np.lib.stride_tricks.as_strided(flat[offset:], shape=counts,
                                               strides=[s * flat.itemsize for s in steps])
        return NkiTensor(view, self.buffer, self.readonly or 0 in steps[1:], self.partition_start + offset // free)

    def permute(self, dims):
        """The view with its dimensions in the order `dims` (NkiTensor.permute), without copying: on chip the
        partition dimension stays first (NkiTensor: most views cannot modify it), so the model permutes HBM views."""
        dims = tuple(int(d) for d in dims)
        if sorted(dims) != list(range(self.data.ndim)):
            raise ValueError(f"permute: {dims} is not a permutation of the {self.data.ndim} dimensions")
        if self.buffer in (sbuf, psum) and dims[0] != 0:
            raise ValueError(f"permute: {dims} moves the partition dimension of an on-chip tensor")
        return NkiTensor(np.transpose(self.data, dims), self.buffer, self.readonly, self.partition_start)

    def reshape(self, shape):
        """A view with another shape and the same elements, without copying (NkiTensor.reshape): refused where the
        layout does not allow it, and on chip where it would change the partition dimension."""
        shape = tuple(shape)
        if self.buffer in (sbuf, psum) and shape[0] != self.data.shape[0]:
            raise ValueError(f"reshape: {self.data.shape} to {shape} changes the partition dimension")
        try:
            view = np.reshape(self.data, shape, copy=False)
        except ValueError as e:
            raise ValueError(f"reshape: {self.data.shape} to {shape}: {e}") from None
        return NkiTensor(view, self.buffer, self.readonly, self.partition_start)


class _Launch:
    """An SPMD launch being run (kernel[grid](...)): this program's ids, and the nl.shared_hbm tensors the programs
    declare, the i-th of each program being the same tensor (NKI: a shared_hbm tensor is visible to every program of
    the launch, so each program stores its part of the outputs it returns)."""

    def __init__(self, grid):
        self.grid = tuple(grid)
        self.ids = (0,) * len(self.grid)
        self.shared = []
        self.declared = 0


_launch = None


def _in_launch(function, axis):
    """Whether a launch grid is running; a ValueError from nl.`function` when it has no axis `axis`."""
    if _launch is not None and not 0 <= axis < len(_launch.grid):
        raise ValueError(f"nl.{function}({axis}): the launch grid {_launch.grid} has no axis {axis}")
    return _launch is not None


def program_id(axis=0):
    """This program's index along `axis` of the launch grid (0 in a kernel launched without one)."""
    return _launch.ids[axis] if _in_launch("program_id", axis) else 0


def num_programs(axes=0):
    """The number of programs along `axes` of the launch grid (1 without one)."""
    return _launch.grid[axes] if _in_launch("num_programs", axes) else 1


def program_ndim():
    return 0 if _launch is None else len(_launch.grid)


def ndarray(shape, dtype, buffer=sbuf, name="", address=None):
    if buffer in (sbuf, psum) and shape[0] > 128:
        raise ValueError(f"nl.ndarray: partition dimension {shape[0]} exceeds 128")
    if buffer is shared_hbm and _launch is not None:
        _launch.declared += 1
        if _launch.declared <= len(_launch.shared):
            return _launch.shared[_launch.declared - 1]
        _launch.shared.append(_new_array(shape, dtype, buffer))
        return _launch.shared[-1]
    return _new_array(shape, dtype, buffer)


def _new_array(shape, dtype, buffer):
    # Fresh memory holds NaN (as nki.simulate fills it), so a read of something never written shows.
    data = np.full(shape, np.nan, dtype=np.float32).astype(dtype) if np.dtype(dtype).kind == "f" else \
        np.zeros(shape, dtype)
    return NkiTensor(data, buffer)


# ALU operators: functions of FP32 arrays (comparisons give 1.0 or 0.0, as the engines do), with nki.language's
# signatures (x, y, dtype=None). The sets below are NKI's ALU table ("Supported Math Operators for NKI ISA",
# https://awsdocs-neuron.readthedocs-hosted.com/en/v2.32.0/nki/api/nki.api.shared.html#nki-aluop); the model's
# instructions refuse any other operator, as the hardware has none (nl.divide is a nki.language function, not an
# ALU operator: there is no division instruction).
def add(x, y, dtype=None): return x + y
def subtract(x, y, dtype=None): return x - y
def multiply(x, y, dtype=None): return x * y
def maximum(x, y, dtype=None): return np.maximum(x, y)
def minimum(x, y, dtype=None): return np.minimum(x, y)
def divide(x, y, dtype=None): return x / y
def power(x, y, dtype=None): return np.power(x, y)
def abs_max(x, y, dtype=None): return np.maximum(np.abs(x), np.abs(y))
def equal(x, y, dtype=None): return (x == y).astype(np.float32)
def not_equal(x, y, dtype=None): return (x != y).astype(np.float32)
def greater(x, y, dtype=None): return (x > y).astype(np.float32)
def greater_equal(x, y, dtype=None): return (x >= y).astype(np.float32)
def less(x, y, dtype=None): return (x < y).astype(np.float32)
def less_equal(x, y, dtype=None): return (x <= y).astype(np.float32)
def logical_and(x, y, dtype=None): return ((x != 0) & (y != 0)).astype(np.float32)
def logical_or(x, y, dtype=None): return ((x != 0) | (y != 0)).astype(np.float32)


def bypass(x, y=None):
    """nl.bypass (an operator constant in NKI): passes its first operand through."""
    return x


# Activation functions (the Scalar Engine's): FP32 in, FP32 out.
def _erf(x):
    from scipy.special import erf
    return erf(x).astype(np.float32)


def copy(x, dtype=None): return x
def exp(x, dtype=None): return np.exp(x)
def log(x, dtype=None): return np.log(x)
def tanh(x, dtype=None): return np.tanh(x)
def gelu(x, dtype=None): return 0.5 * x * (1.0 + _erf(x / np.float32(np.sqrt(2.0))))
def gelu_apprx_tanh(x, dtype=None): return 0.5 * x * (1.0 + np.tanh(np.float32(0.7978845608028654) * (x + np.float32(0.044715) * x ** 3)))
def sigmoid(x, dtype=None): return 1.0 / (1.0 + np.exp(-x))
def silu(x, dtype=None): return x * sigmoid(x)
def relu(x, dtype=None): return np.where((x > 0) | np.isnan(x), x, np.float32(0))
def rsqrt(x, dtype=None): return 1.0 / np.sqrt(x)
def square(x, dtype=None): return x * x
def sqrt(x, dtype=None): return np.sqrt(x)
def reciprocal(x, dtype=None): return 1.0 / x


# NKI's tables, as far as the model implements the operators in them.
ALU_ARITHMETIC = frozenset({add, subtract, multiply, maximum, minimum, equal, not_equal, greater, greater_equal,
                            less, less_equal, logical_and, logical_or, power, abs_max})
ALU_UNARY = frozenset({square, relu, rsqrt, reciprocal})
ALU_COMPARISON = frozenset({equal, not_equal, greater, greater_equal, less, less_equal})
ALU_REDUCTION = frozenset({add, subtract, multiply, maximum, minimum, logical_and, logical_or})
ACTIVATION_FUNCTIONS = frozenset({copy, exp, log, tanh, gelu, gelu_apprx_tanh, sigmoid, silu, relu, rsqrt, square,
                                  sqrt, reciprocal})  # the activation table's ("#nki-act-func") the model implements


def _require_operator(op, table, where, what="an operator of NKI's ALU table"):
    """Raises ValueError unless op is in table (one of the sets above)."""
    if op not in table:
        raise ValueError(f"{where}: {getattr(op, '__name__', op)} is not {what}")


_REDUCTIONS = {add: np.sum, maximum: np.max, minimum: np.min, multiply: np.prod}


def _reduction_of(op):
    _require_operator(op, ALU_REDUCTION, "reduction", "legal for a reduction in NKI's ALU table")
    if op not in _REDUCTIONS:
        raise NotImplementedError(f"the NumPy model has no reduction for {op.__name__}")
    return _REDUCTIONS[op]


def device_print(print_prefix, tensor):
    print(f"{print_prefix}: {np.asarray(tensor.data, dtype=np.float32)}")
