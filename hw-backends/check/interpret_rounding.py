#!/usr/bin/env python3
"""Interpret mode rounds each operation as written once run.py has set its XLA flags (run.py exact_cpu_arithmetic).

  interpret_rounding.py [--without-flags]

A Pallas kernel computing x * x + b and x * 0.3 + b from values runs under interpret mode; its outputs must equal
NumPy's, which rounds the product before the add, bit for bit. Without the flags XLA's CPU backend contracts the
two into a fused multiply-add on a host with FMA (AVX2 or later: about a quarter of the elements differ), which is
what `--without-flags` shows (exit 1 there, where the host has FMA). Exit 0: equal; 1: not.
"""
import importlib.util
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    spec = importlib.util.spec_from_file_location("tessera_deploy_run", os.path.join(HERE, "..", "deploy", "run.py"))
    runner = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(runner)
    runner.prepare_tpu_compiler()
    if "--without-flags" not in sys.argv:
        runner.exact_cpu_arithmetic()
    import jax
    import jax.numpy as jnp
    from jax.experimental import pallas as pl
    from jax.experimental.pallas import tpu as pltpu

    rng = np.random.default_rng(0)
    x = rng.standard_normal((128, 512)).astype(np.float32)
    b = rng.standard_normal((128, 1)).astype(np.float32)

    def square_plus(x_ref, b_ref, o_ref):
        t = x_ref[...] * x_ref[...]
        o_ref[...] = t + b_ref[...]

    def scale_plus(x_ref, b_ref, o_ref):
        o_ref[...] = x_ref[...] * 0.3 + b_ref[...]

    differ = 0
    for name, kernel, want in [("x * x + b", square_plus, x * x + b), ("x * 0.3 + b", scale_plus, x * np.float32(0.3) + b)]:
        got = np.asarray(pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, jnp.float32),
                                        interpret=pltpu.InterpretParams())(x, b))
        n = int((got != want).sum())
        print(f"interpret_rounding: {name}: {n} of {got.size} elements differ from each operation rounded")
        differ += n
    print(f"XLA_FLAGS={os.environ.get('XLA_FLAGS', '')!r}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
