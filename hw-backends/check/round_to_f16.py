#!/usr/bin/env python3
"""Checks an emitted Pallas module's _round_to_f16 against NumPy's float16 rounding, exhaustively near float16's values.

  round_to_f16.py MODULE.py

Mosaic has no float16 vectors, so a module whose kernel holds float16 tiles keeps them in float32 and rounds each
write with _round_to_f16 (hw-backends/lib/pallas/Jnp.h). The values tried: every float16 value, the float32 values
next to it, the midpoints between neighbours (ties, which go to even) and the float32 values next to those, the
overflow boundary (65504, 65519.996, 65520), infinities and NaN, and a million random float32 values of every
exponent. Exit 0: all equal (NaN for NaN); 1: a mismatch (the first few printed); 2: bad usage.
"""
import importlib.util
import sys

import numpy as np


def candidates():
    halves = np.arange(0, 1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    halves = halves[np.isfinite(halves)].astype(np.float32)
    ordered = np.unique(halves)
    midpoints = ((ordered[:-1].astype(np.float64) + ordered[1:].astype(np.float64)) / 2).astype(np.float32)
    base = np.concatenate([halves, midpoints,
                           np.array([65504, 65519.996, 65520, 65536, 1e30, np.inf, -np.inf, np.nan], np.float32)])
    near = np.concatenate([base, -base, np.nextafter(base, np.float32(np.inf)), np.nextafter(base, np.float32(-np.inf))])
    rng = np.random.default_rng(0)
    bits = rng.integers(0, 1 << 32, size=1 << 20, dtype=np.uint64).astype(np.uint32)
    return np.concatenate([near, bits.view(np.float32)]).astype(np.float32)


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    spec = importlib.util.spec_from_file_location("module", sys.argv[1])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if not hasattr(module, "_round_to_f16"):
        print(f"round_to_f16: {sys.argv[1]} defines no _round_to_f16")
        return 2
    import jax
    jax.config.update("jax_platforms", "cpu")
    values = candidates()
    got = np.asarray(jax.jit(module._round_to_f16)(values))
    with np.errstate(over="ignore"):  # the values past 65520 are meant to overflow to infinity
        want = values.astype(np.float16).astype(np.float32)
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    if same.all():
        print(f"round_to_f16: {values.size} values, all rounded as NumPy's float16")
        return 0
    bad = np.flatnonzero(~same)
    print(f"round_to_f16: {bad.size} of {values.size} values differ from NumPy's float16 rounding, e.g.:")
    for i in bad[:8]:
        print(f"  {values[i]!r} ({values[i].view(np.uint32):#010x}): got {got[i]!r}, float16 gives {want[i]!r}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
