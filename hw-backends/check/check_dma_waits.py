#!/usr/bin/env python3
"""Checks the async copies of an emitted Pallas kernel: every copy that starts is waited on, and no statement
touches a copy's bytes while it is in flight.

  check_dma_waits.py MODULE.py...

Pallas' interpret mode does not find a missing `.wait()` (docs/backends.md, "What interpret mode detects"): with
its default dma_execution_mode="on_wait" the copy is simply never done, and with "eager" it is done at .start().
This check runs the module's own function with a stand-in for JAX and Pallas that computes nothing but records
every access: the grid's steps in order, each pl.loop's iterations and each pl.when's condition with the indices as
Python integers, so every window is exact. Then:

- a copy (pltpu.make_async_copy(src, dst, sem)) is in flight from its .start() to a .wait() of the same descriptor;
  it may not start again while in flight, be waited on when not in flight, or be left in flight when the kernel ends;
- while a copy is in flight no other statement may read its destination or write its source or destination (a read
  of the destination would see stale data on a TPU; a write races with the copy), and no other copy may start on the
  same semaphore or on bytes it reads or writes.

Errors name the module's file and line and the kernel source line above it (`# matmul.cpp:63`), with the grid step
and loop indices where it happened. Exit status: 0 when every module passes, 1 when one does not, 2 for bad usage or a module it cannot run.
"""
import contextlib
import importlib.util
import itertools
import os
import re
import sys
import traceback
import types

KERNEL_LINE = re.compile(r"#.*?(?:\(|\s)([\w.+-]+\.(?:cpp|cc|cxx|h|hpp)):(\d+)\)?")


class Value:
    """A value the kernel computes: nothing but its shape's stand-in; every operation gives another."""

    def _op(self, *args, **kwargs):
        return Value()

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _op
    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = __pow__ = __rpow__ = __neg__ = __abs__ = _op
    __lt__ = __le__ = __gt__ = __ge__ = __and__ = __rand__ = __or__ = __ror__ = __invert__ = _op
    __rshift__ = __lshift__ = _op
    astype = __getitem__ = reshape = transpose = _op
    min = max = property(_op)  # jnp.iinfo(t).min in an integer conversion

    def __eq__(self, other):
        return Value()

    def __ne__(self, other):
        return Value()

    __hash__ = object.__hash__


def region(shape, index):
    """Per dimension, the (start, stop) an index of a ref of `shape` covers (a strided slice: its bounds)."""
    if not isinstance(index, tuple):
        index = (index,)
    if any(i is Ellipsis for i in index):
        at = index.index(Ellipsis)
        index = index[:at] + (slice(None),) * (len(shape) - len(index) + 1) + index[at + 1:]
    index = index + (slice(None),) * (len(shape) - len(index))
    ranges = []
    for item, extent in zip(index, shape):
        if isinstance(item, Ds):
            ranges.append((item.start, item.start + (item.size - 1) * item.stride + 1))
        elif isinstance(item, slice):
            lo = 0 if item.start is None else item.start
            hi = extent if item.stop is None else item.stop
            ranges.append((lo, hi))
        elif isinstance(item, int):
            ranges.append((item, item + 1))
        else:
            raise TypeError(f"an index the check cannot follow: {item!r}")
    return tuple(ranges)


def overlap(a, b):
    return a[0] is b[0] and all(x[0] < y[1] and y[0] < x[1] for x, y in zip(a[1], b[1]))


def describe(window):
    ref, ranges = window
    return f"{ref.name}[{', '.join(f'{lo}:{hi}' if hi != lo + 1 else f'{lo}' for lo, hi in ranges)}]"


class Ref:
    """A buffer (an HBM tensor, a block, VMEM scratch, semaphores) whose reads and writes are recorded."""

    def __init__(self, checker, name, shape):
        self.checker, self.name, self.shape = checker, name, tuple(shape)

    def __getitem__(self, index):
        self.checker.read((self, region(self.shape, index)))
        return Value()

    def __setitem__(self, index, value):
        self.checker.write((self, region(self.shape, index)))

    @property
    def at(self):
        ref = self

        class At:
            def __getitem__(self, index):
                return (ref, region(ref.shape, index))

        return At()


class Ds:
    def __init__(self, start, size, stride=1):
        if not isinstance(start, int):
            raise TypeError(f"pl.ds start the check cannot follow: {start!r}")
        self.start, self.size, self.stride = start, size, stride


class Copy:
    def __init__(self, checker, src, dst, sem):
        self.checker, self.src, self.dst, self.sem = checker, src, dst, sem

    def key(self):
        return (id(self.src[0]), self.src[1], id(self.dst[0]), self.dst[1], id(self.sem[0]), self.sem[1])

    def start(self):
        self.checker.start(self)

    def wait(self):
        self.checker.wait(self)


class Checker:
    def __init__(self, path, lines):
        self.path, self.lines = path, lines
        self.in_flight = {}  # key -> (copy, where it started)
        self.errors, self.copies, self.reported = [], 0, set()
        self.position = ""  # the grid step and loop indices now

    # --- where ----------------------------------------------------------------------------------------------

    def line(self):
        frame = sys._getframe(1)
        while frame and os.path.abspath(frame.f_code.co_filename) != self.path:
            frame = frame.f_back
        return frame.f_lineno if frame else 0

    def kernel_line(self, line):
        for number in range(line, 0, -1):
            found = KERNEL_LINE.search(self.lines[number - 1])
            if found:
                return f" (kernel {found.group(1)}:{found.group(2)})"
        return ""

    def error(self, line, message, key=None):
        if (line, key) in self.reported:  # one error per module line and copy: the first shows the mistake
            return
        self.reported.add((line, key))
        where = f" at {self.position}" if self.position else ""
        self.errors.append(f"{self.path}:{line}: error: {message}{where}{self.kernel_line(line)}")

    # --- copies and accesses --------------------------------------------------------------------------------

    def start(self, copy):
        line = self.line()
        self.copies += 1
        if copy.key() in self.in_flight:
            self.error(line, f"{describe(copy.src)} -> {describe(copy.dst)} starts again before its .wait()", copy.key())
            return
        for other, started in self.in_flight.values():
            if overlap(other.sem, copy.sem):
                self.error(line, f"a copy starts on semaphore {describe(copy.sem)} while the copy started at line "
                                 f"{started} still uses it", other.key())
            if overlap(other.dst, copy.src) or overlap(other.dst, copy.dst) or overlap(other.src, copy.dst):
                self.error(line, f"{describe(copy.src)} -> {describe(copy.dst)} starts while {describe(other.src)} -> "
                                 f"{describe(other.dst)} (started at line {started}) is in flight on the same bytes: no "
                                 f".wait() before", other.key())
        self.in_flight[copy.key()] = (copy, line)

    def wait(self, copy):
        if self.in_flight.pop(copy.key(), None) is None:
            self.error(self.line(), f"a .wait() of {describe(copy.src)} -> {describe(copy.dst)} with no such copy in "
                                    f"flight")

    def read(self, window):
        for copy, started in self.in_flight.values():
            if overlap(window, copy.dst):
                self.error(self.line(), f"reads {describe(window)} while the copy started at line {started} may still "
                                        f"be writing {describe(copy.dst)}: no .wait() before", copy.key())

    def write(self, window):
        for copy, started in self.in_flight.values():
            if overlap(window, copy.dst) or overlap(window, copy.src):
                self.error(self.line(), f"writes {describe(window)} while the copy {describe(copy.src)} -> "
                                        f"{describe(copy.dst)} (started at line {started}) is in flight: no .wait() "
                                        f"before", copy.key())

    def finish(self):
        for copy, started in self.in_flight.values():
            self.error(started, f"{describe(copy.src)} -> {describe(copy.dst)} starts here and is never waited on "
                                f"before the kernel ends", copy.key())
        self.in_flight.clear()


# --- the stand-in for JAX and Pallas -----------------------------------------------------------------------------

def values(*args, **kwargs):
    return Value()


class Functions(types.SimpleNamespace):
    """A module whose every function gives a Value (jnp, jax.lax, jax.nn), constants as given."""

    def __getattr__(self, name):
        return values


def stand_in(checker):
    """(jax, jnp, pl, pltpu) stand-ins that record into `checker`."""
    state = {"program_ids": ()}

    class Spec:
        def __init__(self, block_shape=None, index_map=None, memory_space=None):
            self.block_shape, self.index_map, self.memory_space = block_shape, index_map, memory_space

    class Scratch:
        def __init__(self, shape, dtype=None):
            self.shape = tuple(shape)

    def loop(lower, upper):
        def run(body):
            name = body.__code__.co_varnames[0] if body.__code__.co_argcount else "_"
            outer = checker.position
            for i in range(lower, upper):
                checker.position = f"{outer}, {name}={i}" if outer else f"{name}={i}"
                body(i)
            checker.position = outer
            return body

        return run

    def when(condition):
        def run(body):
            if condition:
                body()
            return body

        return run

    def pallas_call(kernel, out_shape=None, grid=(), in_specs=(), out_specs=None, scratch_shapes=(), **_):
        outs = out_shape if isinstance(out_shape, tuple) else (out_shape,)
        out_specs_list = out_specs if isinstance(out_specs, tuple) else (out_specs,)

        def call(*operands):
            refs = []
            def squeezed(shape):  # a None block dimension (an N-D tensor's leading index) is not in the ref
                return tuple(d for d in shape if d is not None)

            for n, (operand, spec) in enumerate(zip(operands, in_specs)):
                shape = squeezed(spec.block_shape) if spec.block_shape else operand.shape
                refs.append(Ref(checker, f"input{n}" if spec.block_shape else f"hbm_input{n}", shape))
            for n, (out, spec) in enumerate(zip(outs, out_specs_list)):
                shape = squeezed(spec.block_shape) if spec.block_shape else out.shape
                refs.append(Ref(checker, f"output{n}" if spec.block_shape else f"hbm_output{n}", shape))
            for n, s in enumerate(scratch_shapes):
                refs.append(Ref(checker, f"scratch{n}", s.shape))
            parameters = kernel.__code__.co_varnames[:kernel.__code__.co_argcount]
            for ref, name in zip(refs, parameters):
                ref.name = name
            for step in itertools.product(*(range(n) for n in grid)):
                state["program_ids"] = step
                checker.position = f"grid step {step}" if grid else ""
                kernel(*refs)
            checker.position = ""
            checker.finish()
            results = tuple(Input(out.shape) for out in outs)  # the module may convert them (f16 outputs)
            return results if isinstance(out_shape, tuple) else results[0]

        return call

    pl = types.SimpleNamespace(
        program_id=lambda d: state["program_ids"][d], loop=loop, when=when, ds=Ds, multiple_of=lambda x, m: x,
        BlockSpec=Spec, ANY="any", pallas_call=pallas_call, CostEstimate=lambda **kw: None)
    pltpu = types.SimpleNamespace(
        make_async_copy=lambda src, dst, sem: Copy(checker, src, dst, sem), VMEM=Scratch,
        SemaphoreType=types.SimpleNamespace(DMA=lambda shape: Scratch(shape)),
        CompilerParams=lambda **kw: None, PARALLEL="parallel", ARBITRARY="arbitrary",
        InterpretParams=lambda **kw: None)
    jnp = Functions(float32="f32", bfloat16="bf16", float16="f16", int32="i32", uint32="u32", uint8="u8",
                    int8="i8", int16="i16", uint16="u16",
                    float8_e4m3fn="f8e4m3", float8_e5m2="f8e5m2", inf=float("inf"))
    # jax.lax.div on the grid's indices (the emitter's floor division of a non-negative index): an int, as Python's
    # truncating division of ints, so that a copy's window stays known.
    def div(a, b):
        return int(a / b) if isinstance(a, int) and isinstance(b, int) else Value()

    jax = types.SimpleNamespace(lax=Functions(div=div), nn=Functions(),
                                ShapeDtypeStruct=lambda shape, dtype: types.SimpleNamespace(shape=tuple(shape)))
    return jax, jnp, pl, pltpu


class Input:
    """An input of the module's function: its shape (astype keeps it; reshape gives an N-D tensor's matrix)."""

    def __init__(self, shape):
        self.shape = tuple(shape)

    def astype(self, dtype):
        return self

    def reshape(self, shape):
        return Input(shape)


@contextlib.contextmanager
def stand_ins_imported(jax, jnp, pl, pltpu):
    """The module's `import jax`, `import jax.numpy as jnp` and the Pallas imports give the stand-ins: importing the
    real JAX would be most of this check's time (a second per module), and none of it is used."""
    jax.numpy, jax.experimental, pl.tpu = jnp, types.SimpleNamespace(pallas=pl), pltpu
    names = {"jax": jax, "jax.numpy": jnp, "jax.experimental": jax.experimental, "jax.experimental.pallas": pl,
             "jax.experimental.pallas.tpu": pltpu}
    saved = {name: sys.modules.get(name) for name in names}
    sys.modules.update(names)
    try:
        yield
    finally:
        for name, previous in saved.items():
            if previous is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = previous


def check_module(path):
    path = os.path.abspath(path)
    with open(path) as f:
        lines = f.read().splitlines()
    checker = Checker(path, lines)
    jax, jnp, pl, pltpu = stand_in(checker)
    spec = importlib.util.spec_from_file_location("tessera_checked_module", path)
    module = importlib.util.module_from_spec(spec)
    with stand_ins_imported(jax, jnp, pl, pltpu):
        spec.loader.exec_module(module)
    module.jax, module.jnp, module.pl, module.pltpu = jax, jnp, pl, pltpu
    function = getattr(module, module.KERNEL)
    function(*(Input(shape) for _, shape, _ in module.INPUTS))
    return checker.errors, checker.copies


def main():
    if len(sys.argv) < 2:
        print("usage: check_dma_waits.py MODULE.py...", file=sys.stderr)
        return 2
    failed, unreadable = False, False
    for path in sys.argv[1:]:
        try:
            errors, copies = check_module(path)
        except Exception as e:  # a module this checker's stand-in cannot run: say so, never pass it
            where = next((f"{f.filename}:{f.lineno}" for f in reversed(traceback.extract_tb(
                e.__traceback__)) if os.path.abspath(f.filename) == os.path.abspath(path)), path)
            print(f"check_dma_waits: {where}: cannot run the module's function under the checker "
                  f"({type(e).__name__}: {e})", file=sys.stderr)
            unreadable = True
            continue
        for e in errors:
            print(e)
        print(f"check_dma_waits: {path}: {copies} async copies started, "
              f"{'every one waited on before its bytes are used' if not errors else f'{len(errors)} errors'}")
        failed = failed or bool(errors)
    return 2 if unreadable else 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
