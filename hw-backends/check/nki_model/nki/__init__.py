"""Tessera's NumPy model of the part of NKI 0.6 that Tessera's NKI backend emits. It is NOT NKI.

NKI cannot be installed off a Neuron host, so the test suite runs the emitted NKI kernels on this model instead:
each nki.isa call it implements does what the NKI 0.6 reference says (and, where the reference is silent, what
Tessera's instruction definitions say: FP32 inside, conversions rounding to nearest even). It checks that the
emitted module computes the simulator's outputs under that reading of NKI (which buffers, slices, operand order,
flags), not that NKI compiles or runs it. Its functions take NKI 0.6's parameters, and its instructions raise
ValueError for what the reference says the hardware does not do on any NeuronCore (an operator outside NKI's ALU
or activation tables, such as nl.divide; PSUM on the GpSimd Engine or DMA; ...); what one generation lacks is
check_nki.py's to find. Put this folder first on PYTHONPATH to use it; `nki.__version__` says what it is. Calls
it does not implement raise NotImplementedError.
"""
import itertools

from . import isa, language  # noqa: F401

__version__ = "0.0+tessera-numpy-model"


def _to_tensor(a):
    return language.NkiTensor(a.copy(), language.shared_hbm)


def _arrays(out):
    if isinstance(out, tuple):
        return tuple(t.data.copy() for t in out)
    return out.data.copy()


class _JitKernel:
    """A @nki.jit kernel: kernel(*arrays) runs it once; kernel[grid](*arrays) runs it once per program of the SPMD
    launch grid (an int or a tuple), one program after another, its nl.shared_hbm tensors shared by the programs."""

    def __init__(self, fn):
        self.__wrapped__ = fn
        self.__name__ = fn.__name__

    def __call__(self, *arrays):
        return _arrays(self.__wrapped__(*[_to_tensor(a) for a in arrays]))

    def __getitem__(self, grid):
        grid = grid if isinstance(grid, tuple) else (grid,)
        if not grid or any(not isinstance(g, int) or g < 1 for g in grid):
            raise ValueError(f"kernel[{grid}]: a launch grid is one or more positive ints")

        def launch(*arrays):
            tensors = [_to_tensor(a) for a in arrays]
            state = language._launch = language._Launch(grid)
            try:
                out = None
                for ids in itertools.product(*(range(g) for g in grid)):
                    state.ids, state.declared = ids, 0
                    out = self.__wrapped__(*tensors)
            finally:
                language._launch = None
            return _arrays(out)

        return launch


def jit(fn=None, **kwargs):
    """Runs the kernel on NumPy arrays: inputs become HBM tensors, returned HBM tensors NumPy arrays."""
    if fn is None:
        return lambda f: jit(f, **kwargs)
    return _JitKernel(fn)


def simulate(kernel):
    """nki.simulate(kernel)(*arrays): here the same as calling the jit kernel."""
    return kernel
