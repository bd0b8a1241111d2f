#!/usr/bin/env python3
"""Fits the TPU cost of a relayout (an access pattern walked on a TPU: a reshape, an index and a transpose of a
window of each row, isa/RowRelayout.h) to libtpu's own static cycle estimate, with a train/hold-out split.

  tpu_relayout_fit.py [TARGET_TOML]     (default: isa/targets/tpu-v5e.toml beside this script's repository)

The kernels are compiled for the target file's [libtpu] topology (v5e=1x1, v6e=1x1: libtpu estimates both).

Each case is a Pallas kernel whose whole [R, F] f32 input is one VMEM block: `o = walk(x)`. libtpu (deviceless,
--xla_jf_dump_static_llo_profile_to) estimates its cycles; the case's relayout cost is that minus the estimate of a
plain copy `o = x` of the same shape. The model (isa/lib/instructions/TpuVector.cpp) charges
xlu_relayout_cycles_per_vreg per vreg of the arrays the relayout materialises, in Mosaic's layout: the window
reshaped into its box, and the box transposed into the pattern's order, each padded to (sublanes, lanes) tiles in
its last two dimensions (R x d1 x ... x ceil(d_{k-1} / 8) x ceil(d_k / 128) vregs). The coefficient is the
least-squares fit through zero on the training cases (per-row transposes at R = 64, F = 1024); the script prints
every case's measured and modelled cost, the hold-out errors, and the coefficient against the target file's. Exit 1
when a hold-out error passes 25% or the file's coefficient is more than 10% from the fit; 2 for bad usage.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
SUBLANES, LANES = 8, 128

# (name, R, F, steps, training?): steps are ("reshape", shape without R) / ("transpose", perm without the row axis) /
# ("index", index without the row axis) / ("sum", axis); the walk starts from x[R, F].
CASES = [
    ("transpose [8, 128] per row", 64, 1024, [("reshape", (8, 128)), ("transpose", (1, 0)), ("reshape", (1024,))], True),
    ("transpose [128, 8] per row", 64, 1024, [("reshape", (128, 8)), ("transpose", (1, 0)), ("reshape", (1024,))], True),
    ("transpose [8, 16] blocks", 64, 1024,
     [("reshape", (8, 8, 16)), ("transpose", (0, 2, 1)), ("reshape", (1024,))], True),
    ("transpose [8, 128] per row", 32, 1024, [("reshape", (8, 128)), ("transpose", (1, 0)), ("reshape", (1024,))], False),
    ("transpose [128, 8] per row", 32, 1024, [("reshape", (128, 8)), ("transpose", (1, 0)), ("reshape", (1024,))], False),
    ("transpose [8, 16] blocks", 32, 512,
     [("reshape", (4, 8, 16)), ("transpose", (0, 2, 1)), ("reshape", (512,))], False),
    ("transpose [8, 12] per row", 64, 96, [("reshape", (8, 12)), ("transpose", (1, 0)), ("reshape", (96,))], False),
    ("every other element", 32, 512, [("reshape", (256, 2)), ("index", (slice(None), 1))], False),
    ("every other element", 64, 512, [("reshape", (256, 2)), ("index", (slice(None), 1))], False),
    ("sums of groups of 8", 32, 1024, [("reshape", (128, 8)), ("sum", -1)], False),
    ("sums of groups of 8", 64, 512, [("reshape", (64, 8)), ("sum", -1)], False),
]


def padded_vregs(shape):
    """Vregs of an f32 array of `shape` (rows first) in Mosaic's layout: (8, 128) tiles in the last two dimensions."""
    *lead, a, b = shape
    n = 1
    for d in lead:
        n *= d
    return n * -(-a // SUBLANES) * -(-b // LANES)


def materialised(R, steps):
    """The vregs of the arrays of rank 3 or more the walk makes (the box and its transpose), as the model counts."""
    shape, total = (R,), 0
    for op, arg in steps:
        if op == "reshape":
            shape = (R,) + tuple(arg)
        elif op == "transpose":
            shape = (R,) + tuple(shape[1 + p] for p in arg)
        elif op == "index":
            shape = (R,) + tuple(d for d, i in zip(shape[1:], arg) if isinstance(i, slice))
            continue
        elif op == "sum":
            continue
        if len(shape) >= 3:
            total += padded_vregs(shape)
    return total


def estimate(topology, R, F, steps):
    """libtpu's static estimate of the kernel's cycles (in a child: the profile flag is read when libtpu starts)."""
    done = subprocess.run([sys.executable, __file__, "--child", repr((topology, R, F, steps))], capture_output=True,
                          text=True)
    if done.returncode != 0:
        lines = [l for l in done.stderr.splitlines() if l.strip()]
        raise RuntimeError(lines[-1] if lines else f"exit {done.returncode}")
    return int(done.stdout.strip())


def child(spec):
    topology, R, F, steps = eval(spec, {"slice": slice})  # our own repr, from the parent
    profile = tempfile.mkdtemp()
    os.environ["LIBTPU_INIT_ARGS"] = f"--xla_jf_dump_static_llo_profile_to={profile}"
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    os.environ.setdefault("TPU_SKIP_MDS_QUERY", "1")
    os.environ.setdefault("ALLOW_MULTIPLE_LIBTPU_LOAD", "1")
    import jax
    import jax.experimental.topologies as topologies
    import jax.numpy as jnp
    from jax.experimental import pallas as pl

    def walk(x):
        for op, arg in steps:
            if op == "reshape":
                x = x.reshape((R,) + tuple(arg))
            elif op == "transpose":
                x = x.transpose((0,) + tuple(1 + p for p in arg))
            elif op == "index":
                x = x[(slice(None),) + tuple(arg)]
            elif op == "sum":
                x = x.sum(arg)
        return x

    out = jax.eval_shape(walk, jax.ShapeDtypeStruct((R, F), jnp.float32))

    def kernel(x_ref, o_ref):
        o_ref[...] = walk(x_ref[...])

    def f(x):
        return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(out.shape, jnp.float32))(x)

    device = topologies.get_topology_desc(topology, platform="tpu").devices[0]
    arg = jax.ShapeDtypeStruct((R, F), jnp.float32, sharding=jax.sharding.SingleDeviceSharding(device))
    jax.jit(f).lower(arg).compile()
    cycles = 0
    for file in glob.glob(os.path.join(profile, "*static_llo_profile*")):
        cycles += sum(int(c) for c in re.findall(r"estimated_cycles:\s*(\d+)", open(file, errors="replace").read()))
    print(cycles)


def main(argv):
    if len(argv) == 3 and argv[1] == "--child":
        child(argv[2])
        return 0
    if len(argv) > 2:
        print(__doc__.splitlines()[3].strip(), file=sys.stderr)
        return 2
    toml = argv[1] if len(argv) == 2 else os.path.join(HERE, "..", "..", "isa", "targets", "tpu-v5e.toml")
    with open(toml, "rb") as f:
        target = tomllib.load(f)
    configured = target["cost"]["xlu_relayout_cycles_per_vreg"]
    topology = target["libtpu"]["topology"]
    rows = []
    copies = {}
    for name, R, F, steps, train in CASES:
        if (R, F) not in copies:
            copies[(R, F)] = estimate(topology, R, F, [])
        cost = estimate(topology, R, F, steps) - copies[(R, F)]
        rows.append((name, R, F, materialised(R, steps), cost, train))
    fit = sum(v * c for _, _, _, v, c, t in rows if t) / sum(v * v for _, _, _, v, c, t in rows if t)
    print(f"{'case':28s} {'R':>4s} {'F':>5s} {'vregs':>6s} {'libtpu':>7s} {'model':>7s} {'error':>7s}")
    worst = 0.0
    for name, R, F, vregs, cost, train in rows:
        model = fit * vregs
        error = (model - cost) / cost
        if not train:
            worst = max(worst, abs(error))
        print(f"{name:28s} {R:4d} {F:5d} {vregs:6d} {cost:7d} {model:7.0f} {error:+7.1%}{'  (train)' if train else ''}")
    print(f"fit on {topology}: {fit:.2f} cycles per vreg (target file: {configured}); largest hold-out error "
          f"{worst:.1%}")
    return 1 if worst > 0.25 or abs(configured - fit) > 0.10 * fit else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
