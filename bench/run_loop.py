#!/usr/bin/env python3
"""The edit-run loop as a user waits for it: a whole `tessera run` against the parts it reports, and the start-up of
the commands that compile nothing (issue 22).

    python3 bench/run_loop.py [--tessera build/tools/tessera] [--quick]

1. `tessera run matmul_blocked --target tpu-v5e` at 2048^3 (512 blocks), a cold process timed from outside, nine
   times, each against its own --json figures (the median ratio): compile_seconds + sim_seconds is what the run
   cannot avoid; the golden model and the reference run on other threads meanwhile (goal: the whole run within 1.5x
   of compile + simulation).
2. The start-up of `--help`, `list`, `targets`, `isa`, `systolic` on a tiny GEMM: the median of 20 runs each
   (goal: under 10 ms).
Wall times on a shared machine vary by tens of percent: read the ratios, which are measured side by side. Lines that
start with "done-when:" are issue 22's goals, which bench/run.sh gathers at the end.
"""

import argparse
import json
import statistics
import subprocess
import time

RUN = ["run", "matmul_blocked", "--target", "tpu-v5e", "--shape", "M=2048,N=2048,K=2048",
       "--param", "bm=512,bk=512,bn=512", "--json"]
STARTUP = [["--help"], ["list"], ["targets"], ["isa"], ["systolic", "--gemm", "64,64,64"]]


def wall(cmd):
    start = time.perf_counter()
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start, done


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tessera", default="build/tools/tessera")
    parser.add_argument("--quick", action="store_true", help="one whole run and 5 start-ups of each command")
    args = parser.parse_args()

    runs = []
    for _ in range(1 if args.quick else 9):
        seconds, done = wall([args.tessera] + RUN)
        if done.returncode != 0:
            raise SystemExit(f"run_loop.py: {' '.join(RUN)} exited {done.returncode}")
        report = json.loads(done.stdout)
        runs.append((seconds / (report["compile_seconds"] + report["sim_seconds"]), seconds, report))
    # Each run's ratio against its own compile and simulation, the median of them: on a 2-core host the three threads
    # of a run stretch sim_seconds by different amounts from run to run, so single runs scatter by tens of percent.
    runs.sort(key=lambda r: r[0])
    ratio, seconds, report = runs[len(runs) // 2]
    print("Whole run: tessera " + " ".join(RUN[:-1]) + f" (the run of median ratio of {len(runs)})")
    print(f"  {'part':40} {'seconds':>8}")
    for key in ("compile_seconds", "sim_seconds", "golden_seconds", "reference_seconds"):
        print(f"  {key:40} {report[key]:8.3f}")
    print(f"  {'whole process, wall':40} {seconds:8.3f}")
    verdict = "met" if ratio <= 1.5 else "NOT met"
    print(f"  whole / (compile + sim) = {ratio:.2f}x, {runs[0][0]:.2f}x to {runs[-1][0]:.2f}x over the runs "
          f"(goal <= 1.5x: {verdict})")
    print(f"done-when: whole tessera run of matmul_blocked 2048^3 on tpu-v5e / its compile_seconds + sim_seconds = "
          f"{ratio:.2f}x, median of {len(runs)} runs (goal <= 1.5x: {verdict})")
    print()

    count = 5 if args.quick else 20
    print(f"Start-up: median wall time of {count} runs")
    for command in STARTUP:
        times = [wall([args.tessera] + command)[0] for _ in range(count)]
        ms = statistics.median(times) * 1000
        verdict = "met" if ms < 10 else "NOT met"
        print(f"  tessera {' '.join(command):30} {ms:6.1f} ms  (goal < 10 ms: {verdict})")
        if command == ["--help"]:
            help_line = f"done-when: tessera --help starts and exits in {ms:.1f} ms, median of {count} (goal < 10 ms: {verdict})"
    print(help_line)


if __name__ == "__main__":
    main()
