#!/usr/bin/env python3
"""Records what every library kernel computes and how long it takes, on every target, so that a refactoring can be
shown to change nothing: run it before and after, then diff the two files.

  kernel-snapshot.py TESSERA OUT.txt [--targets trn1,trn2,...] [--kernels add,softmax,...] [--timing-only]
                    [--trace] [--shape KERNEL:M=...,N=...]...

One line per kernel and target: the simulated cycles, time, instruction count, FLOPs, HBM bytes, the engines' busy
times and the SHA-256 of every output tensor's bytes (the kernel's default shape and seed). A kernel that a target
refuses gets its error message instead. --timing-only runs without values (no output hashes); --trace adds each
stream's busy and wait times and the SHA-256 of the whole timeline (every instruction's issue, start and end, the
`--trace` file), so two runs agree line by line only if every instruction started and ended at the same picosecond;
--shape runs KERNEL at that shape instead of its default (repeatable). The lines are sorted, so two runs diff line by line.
Exit status: 0 when every line was written, 2 for bad usage.
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile

DEFAULT_TARGETS = "trn1,trn2,trn3,tpu-v4,tpu-v5e,tpu-v5p,tpu-v6e,tpu-7x"


def library_kernels(tessera):
    listing = json.loads(subprocess.run([tessera, "list", "--json"], check=True, capture_output=True, text=True).stdout)
    return sorted(k["name"] for k in listing if not k["name"].startswith("bug_"))


def snapshot(tessera, kernel, target, extra, trace, shapes):
    with tempfile.TemporaryDirectory() as out:
        values = "--timing-only" not in extra
        command = [tessera, "run", kernel, "--target", target, "--json", *(["--output-dir", out] if values else []), *extra]
        if kernel in shapes:
            command += ["--shape", shapes[kernel]]
        trace_file = os.path.join(out, "timeline.trace")
        if trace:
            command += ["--trace", trace_file]
        run = subprocess.run(command, capture_output=True, text=True)
        try:
            result = json.loads(run.stdout)
        except json.JSONDecodeError:
            return f"{kernel} {target} exit={run.returncode} {run.stderr.strip().splitlines()[-1:]}"
        if "error" in result:
            return f"{kernel} {target} exit={run.returncode} error={result['error'] if isinstance(result['error'], str) else result['error'].get('message')}"
        hashes = []
        if trace:
            with open(trace_file, "rb") as f:
                hashes.append(f"timeline:{hashlib.sha256(f.read()).hexdigest()[:16]}")
            os.remove(trace_file)
            hashes.append("streams=" + ",".join(f"{s['name']}:{s['instructions']}:{s['busy_us']}:{s['wait_us']}"
                                                for s in result.get("streams", [])))
        for name in sorted(os.listdir(out)):
            with open(os.path.join(out, name), "rb") as f:
                hashes.append(f"{name}:{hashlib.sha256(f.read()).hexdigest()[:16]}")
        engines = ",".join(f"{name}={busy}" for name, busy in sorted(result.get("engines", {}).items()))
        fields = [kernel, target, f"exit={run.returncode}", f"ok={result['ok']}", f"cycles={result['cycles']}",
                  f"time_us={result['time_us']}", f"instructions={result['instructions']}",
                  f"flops={result['flops']}", f"hbm_bytes={result['hbm_bytes']}", f"engines={engines}", *hashes]
        return " ".join(str(f) for f in fields)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("tessera")
    parser.add_argument("out")
    parser.add_argument("--targets", default=DEFAULT_TARGETS)
    parser.add_argument("--kernels", default=None)
    parser.add_argument("--timing-only", action="store_true")
    parser.add_argument("--trace", action="store_true")
    parser.add_argument("--shape", action="append", default=[])
    args = parser.parse_args()
    kernels = args.kernels.split(",") if args.kernels else library_kernels(args.tessera)
    extra = ["--timing-only"] if args.timing_only else []
    shapes = dict(s.split(":", 1) for s in args.shape)
    lines = sorted(snapshot(args.tessera, k, t, extra, args.trace, shapes)
                   for k in kernels for t in args.targets.split(","))
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"kernel-snapshot: {len(lines)} lines in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
