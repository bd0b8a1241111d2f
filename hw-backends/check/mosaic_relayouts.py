#!/usr/bin/env python3
"""Asserts what the real TPU compiler (libtpu's Mosaic, deviceless) does with the Pallas forms an access pattern
(Tile::ap) takes on a TPU, as docs/dsl.md ("Access patterns") says: each row of a VMEM block walked in another
order is a relayout of the loaded vector.

  mosaic_relayouts.py [TOPOLOGY]     (default v5e=1x1)

Compiled: a per-row transpose, x.reshape(P, 8, 12).transpose(0, 2, 1).reshape(P, 96) (the Transpose2D tutorial's
walk); a strided walk written as a reshape and an index, x.reshape(P, 128, 2)[:, :, 0]; grouped sums and maxima as a
reshape and a reduction (the AveragePool2D tutorial's). Refused: the strided slice x[:, ::2] ("expected strides to
be confined to [1, 2)"). Each case prints ok or the first line of libtpu's error; exit 1 when one does other than
expected (a libtpu that changes it fails this test, so that docs/dsl.md is updated), 2 for bad usage.
"""
import os
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("TPU_SKIP_MDS_QUERY", "1")
os.environ.setdefault("ALLOW_MULTIPLE_LIBTPU_LOAD", "1")  # deviceless: no TPU to own (run.py says more)

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax.experimental import pallas as pl  # noqa: E402

P = 64  # rows of the block: a multiple of the f32 sublane tile

# (what, input columns, output columns, the walk as the kernel body computes it, compiles?, error text if not)
CASES = [
    ("per-row transpose of [8, 12] matrices", 96, 96,
     lambda x: x.reshape(P, 8, 12).transpose(0, 2, 1).reshape(P, 96), True, None),
    ("per-row transpose of [8, 128] matrices", 1024, 1024,
     lambda x: x.reshape(P, 8, 128).transpose(0, 2, 1).reshape(P, 1024), True, None),
    ("every other element, as a reshape and an index", 256, 128,
     lambda x: x.reshape(P, 128, 2)[:, :, 0], True, None),
    ("sums of element pairs (a grouped reduction)", 256, 128,
     lambda x: x.reshape(P, 128, 2).sum(-1), True, None),
    ("maxima of groups of 8", 1024, 128,
     lambda x: x.reshape(P, 128, 8).max(-1), True, None),
    ("every other element, as a strided slice", 256, 128,
     lambda x: x[:, ::2], False, "expected strides to be confined to [1, 2)"),
]


def compile_error(device, cols_in, cols_out, walk):
    """None when the kernel compiles, else libtpu's error text."""
    def kernel(x_ref, o_ref):
        o_ref[...] = walk(x_ref[...])

    def f(x):
        return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((P, cols_out), jnp.float32))(x)

    shape = jax.ShapeDtypeStruct((P, cols_in), jnp.float32, sharding=jax.sharding.SingleDeviceSharding(device))
    try:
        jax.jit(f).lower(shape).compile()
        return None
    except Exception as e:  # libtpu's errors arrive as JaxRuntimeError / MosaicError
        return str(e)


def main(argv):
    if len(argv) > 2:
        print(__doc__.splitlines()[3].strip(), file=sys.stderr)
        return 2
    topology = argv[1] if len(argv) == 2 else "v5e=1x1"
    import jax.experimental.topologies as topologies
    device = topologies.get_topology_desc(topology, platform="tpu").devices[0]
    failures = 0
    for what, cols_in, cols_out, walk, compiles, expected in CASES:
        error = compile_error(device, cols_in, cols_out, walk)
        if error is None:
            said = "ok"
        else:
            said = next((line.strip() for line in error.splitlines() if "rror" in line), error.splitlines()[0])
        right = error is None if compiles else (error is not None and expected in error)
        failures += not right
        verdict = "as expected" if right else ("UNEXPECTED: expected it to " +
                                               ("compile" if compiles else f"fail with '{expected}'"))
        print(f"{what} [{P}, {cols_in}] f32 on {topology}: {said[:160]}  ({verdict})")
    print(f"mosaic_relayouts: {len(CASES) - failures} of {len(CASES)} as docs/dsl.md says")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
