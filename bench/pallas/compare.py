#!/usr/bin/env python3
"""Tessera's simulation of a kernel against JAX's Pallas interpret mode running the Pallas module Tessera emits for
it, measured in one run (issue 9).

    python3 bench/pallas/compare.py [--tessera build/tools/tessera] [--quick]

For each kernel and shape on tpu-v5e it writes a bundle with `tessera deploy` (the emitted Pallas kernel, its
inputs and the simulator's outputs), times the kernel under interpret=pltpu.InterpretParams() (and with
detect_races=True) in the pinned backend environment (scripts/backend-venv.sh), and times
`tessera run ... --json`: the whole process (trace, compile, simulate with the race checks, golden model and
reference) and its sim_seconds. Interpret mode gives outputs only; Tessera gives outputs, simulated time and race
checks. Interpret-mode times are its second call (the first also traces); Tessera's are a cold process.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TARGET = "tpu-v5e"
# (kernel, shape, kernel parameters, Pallas style): the manual style is the simulated program statement by
# statement (XLA compiles it whole: its compile time grows with the program, so matmul_blocked stays at 1024^3);
# the grid style (auto) is the kernel's loops as a pallas_call grid, as a Pallas author writes it.
CASES = [
    ("matmul", "M=512,N=512,K=512", "", "manual"),
    ("matmul", "M=512,N=512,K=512", "", "auto"),
    ("matmul", "M=1024,N=1024,K=1024", "", "auto"),
    ("matmul_tiled", "M=2048,N=2048,K=2048", "", "auto"),
    ("matmul_blocked", "M=1024,N=1024,K=1024", "bm=512,bk=512,bn=512", "manual"),
    # Issue 22's case: the whole tessera run of this kernel must beat interpret mode's steady state (a done-when line).
    ("matmul_blocked", "M=2048,N=2048,K=2048", "bm=512,bk=512,bn=512", "auto"),
    ("add", "", "", "manual"),
    ("softmax", "", "", "auto"),
    ("rmsnorm", "", "", "auto"),
]
QUICK = {0, 1, 6}
DONE_WHEN = ("matmul_blocked", "M=2048,N=2048,K=2048")


def kernel_args(kernel, shape, params):
    args = [kernel, "--target", TARGET]
    if shape:
        args += ["--shape", shape]
    if params:
        args += ["--param", params]
    return args


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tessera", default=os.path.join(ROOT, "build", "tools", "tessera"))
    parser.add_argument("--venv", default=os.path.join(ROOT, "build", "backend-venv"))
    parser.add_argument("--quick", action="store_true", help="two small cases")
    parser.add_argument("--kernels", default="", help="only these kernels (comma-separated)")
    args = parser.parse_args()
    # Interpret mode runs on the CPU: without this, the pinned libtpu looks for a TPU host and prints its warnings.
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    subprocess.check_call([os.path.join(ROOT, "scripts", "backend-venv.sh"), args.venv], stdout=sys.stderr)
    python = os.path.join(args.venv, "bin", "python")
    timer = os.path.join(ROOT, "bench", "pallas", "time_interpret.py")
    jax_version = subprocess.check_output([python, "-c", "import jax; print(jax.__version__)"], text=True).strip()

    print(f"Pallas interpret mode (jax {jax_version}, CPU) vs Tessera on {TARGET}: the Pallas module Tessera emits")
    print(f"  {'kernel':<15} {'shape / params':<34} {'style':<6} {'interpret s':>11} {'+races s':>9} {'tessera s':>9} "
          f"{'sim s':>7} {'sim us':>10} {'vs run':>7} {'vs sim':>8} {'races/sim':>9}  outputs")
    worst = worst_run = done_when = None
    for i, (kernel, shape, params, style) in enumerate(CASES):
        if args.quick and i not in QUICK:
            continue
        if args.kernels and kernel not in args.kernels.split(","):
            continue
        with tempfile.TemporaryDirectory(prefix="tessera-pallas-bench-") as bundle:
            subprocess.check_call([args.tessera, "deploy", *kernel_args(kernel, shape, params), "--pallas-style",
                                   style, "-o", bundle], stdout=subprocess.DEVNULL)
            with open(os.path.join(bundle, f"{kernel}.py")) as f:
                style = "grid" if "grid style" in f.read(2000) else "manual"  # auto: which one it wrote
            plain = json.loads(subprocess.check_output([python, timer, bundle], text=True))
            races = json.loads(subprocess.check_output([python, timer, bundle, "--races"], text=True))
        start = time.perf_counter()
        out = subprocess.run([args.tessera, "run", *kernel_args(kernel, shape, params), "--json"],
                             capture_output=True, text=True)
        tessera_s = time.perf_counter() - start
        if out.returncode != 0:
            raise SystemExit(f"compare.py: tessera run {kernel} failed: {out.stderr}")
        report = json.loads(out.stdout)
        run_speedup = plain["second_call_s"] / tessera_s
        speedup = plain["second_call_s"] / report["sim_seconds"]
        worst = speedup if worst is None else min(worst, speedup)
        worst_run = run_speedup if worst_run is None else min(worst_run, run_speedup)
        match = "match" if plain["outputs_match"] and races["outputs_match"] and report["ok"] else "DIFFER"
        label = shape + (f" {params}" if params else "") or "(default)"
        if (kernel, shape) == DONE_WHEN:
            done_when = (f"done-when: whole tessera run of {kernel} {shape} on {TARGET} is {run_speedup:.2f}x faster than "
                         f"Pallas interpret mode's steady state (goal > 1x: {'met' if run_speedup > 1 else 'NOT met'})")
        print(f"  {kernel:<15} {label:<34} {style:<6} {plain['second_call_s']:>11.3f} {races['second_call_s']:>9.3f} "
              f"{tessera_s:>9.3f} {report['sim_seconds']:>7.3f} {report['time_us']:>10.1f} {run_speedup:>6.1f}x "
              f"{speedup:>7.0f}x {races['second_call_s'] / report['sim_seconds']:>8.0f}x  {match}", flush=True)
    print(f"  slowest speedup of the simulation (interpret s / sim s) {worst:.0f}x (goal >= 10x: "
          f"{'met' if worst >= 10 else 'NOT met'}); of the whole tessera run process (interpret s / tessera s) "
          f"{worst_run:.1f}x")
    print("  tessera s: `tessera run --json`, the whole process: start-up, trace, MLIR compile, simulation with race "
          "checks, golden model (LLVM JIT) and reference; sim s: its sim_seconds; sim us: the simulated time, which "
          "interpret mode does not give")
    if done_when:
        print(done_when)
    return 0


if __name__ == "__main__":
    sys.exit(main())
