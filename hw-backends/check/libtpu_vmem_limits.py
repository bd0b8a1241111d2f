#!/usr/bin/env python3
"""Checks a TPU target file's [libtpu] figures against the real TPU compiler (libtpu, deviceless).

  libtpu_vmem_limits.py TARGET.toml...

For each file: [libtpu] topology must be a topology libtpu knows; a kernel whose VMEM scratch is exactly
[libtpu] scoped_vmem_default_bytes must compile without pltpu.CompilerParams(vmem_limit_bytes=), one 4 KiB tile
more must not (CompileTimeScopedVmemOom, or on v4, where the default is the whole VMEM, an out-of-memory error);
with vmem_limit_bytes = [tensor_core] vmem_bytes, a kernel of exactly [libtpu] kernel_vmem_max_bytes must compile
and one tile more must not (what XLA:TPU keeps of the core's VMEM for itself: 64 KiB on v5p, v6e and 7x). The kernel DMAs its input through the scratch buffer, so Mosaic keeps all of it (a buffer the kernel does not
use, or whose stores Mosaic can forward to its loads, is not allocated at all). Prints what libtpu said; exit 1
when a figure is wrong, naming the file and line.
"""
import os
import re
import sys
import tomllib

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("TPU_SKIP_MDS_QUERY", "1")
os.environ.setdefault("ALLOW_MULTIPLE_LIBTPU_LOAD", "1")  # deviceless: no TPU to own (run.py says more)

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax.experimental import pallas as pl  # noqa: E402
from jax.experimental.pallas import tpu as pltpu  # noqa: E402

TILE = 8 * 128 * 4  # one (8, 128) float32 tile: the granule of a VMEM scratch buffer's size


def compiles(device, scratch_bytes, vmem_limit_bytes=None):
    """(True, "") when a kernel with `scratch_bytes` of used VMEM scratch compiles, else (False, libtpu's words)."""
    rows = scratch_bytes // (128 * 4)

    def kernel(x, o, scratch, sem):
        copy = pltpu.make_async_copy(x.at[0:8], scratch.at[0:8], sem.at[0])
        copy.start()
        copy.wait()
        copy = pltpu.make_async_copy(scratch.at[0:8], o.at[0:8], sem.at[0])
        copy.start()
        copy.wait()

    def f(x):
        params = pltpu.CompilerParams(vmem_limit_bytes=vmem_limit_bytes) if vmem_limit_bytes else None
        return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                              in_specs=[pl.BlockSpec(memory_space=pl.ANY)], out_specs=pl.BlockSpec(memory_space=pl.ANY),
                              scratch_shapes=[pltpu.VMEM((rows, 128), jnp.float32), pltpu.SemaphoreType.DMA((1,))],
                              compiler_params=params)(x)

    shape = jax.ShapeDtypeStruct((8, 128), jnp.float32, sharding=jax.sharding.SingleDeviceSharding(device))
    try:
        jax.jit(f).lower(shape).compile()
        return True, ""
    except Exception as e:  # libtpu's errors arrive as JaxRuntimeError / MosaicError
        text = str(e)
        found = re.search(r"Scoped allocation with size [^.]*\.\d+M and limit [\d.]+M|Used [\d.]+[MK] of [\d.]+M vmem|"
                          r"would exceed memory \(size=\d+\)", text)
        return False, found.group(0) if found else text.splitlines()[0][:200]


def line_of(path, key):
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if re.match(rf"\s*{key}\s*=", line):
                return number
    return 0


def check(path):
    import jax.experimental.topologies as topologies
    with open(path, "rb") as f:
        target = tomllib.load(f)
    name = target["target"]["name"]
    libtpu = target.get("libtpu")
    if libtpu is None:
        print(f"{path}: {name} has no [libtpu] table: nothing to check")
        return True
    topology, scoped = libtpu["topology"], libtpu["scoped_vmem_default_bytes"]
    most, physical = libtpu["kernel_vmem_max_bytes"], target["tensor_core"]["vmem_bytes"]
    try:
        device = topologies.get_topology_desc(topology, platform="tpu").devices[0]
    except Exception as e:
        print(f"{path}:{line_of(path, 'topology')}: error: libtpu does not know topology \"{topology}\": {e}")
        return False
    ok = True
    cases = [("scoped_vmem_default_bytes", scoped, None, True), ("scoped_vmem_default_bytes", scoped + TILE, None, False),
             ("kernel_vmem_max_bytes", most, physical, True), ("kernel_vmem_max_bytes", most + TILE, physical, False)]
    for key, size, limit, expected in cases:
        fits, said = compiles(device, size, limit)
        how = f"vmem_limit_bytes={limit}" if limit else "the default limit"
        verdict = "ok" if fits == expected else "WRONG"
        print(f"  {name} ({device.device_kind}): {size} bytes of scratch under {how}: "
              f"{'compiles' if fits else 'refused: ' + said}  [{verdict}]")
        if fits != expected:
            print(f"{path}:{line_of(path, key)}: error: [libtpu] {key} = {libtpu[key]} is not what libtpu allows: "
                  f"{size} bytes {'compile' if fits else 'do not compile'} under {how}")
            ok = False
    return ok


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    from importlib.metadata import version
    print(f"libtpu_vmem_limits: jax {version('jax')}, jaxlib {version('jaxlib')}, libtpu {version('libtpu')}")
    results = [check(path) for path in sys.argv[1:]]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
