#!/usr/bin/env python3
"""Tessera's systolic-array model against SCALE-Sim on the same GEMMs, measured in one run (issue 9).

    python3 bench/scalesim/compare.py [--tessera build/tools/tessera] [--quick]

For every GEMM (1024^3 and the GEMMs of a BERT-base encoder layer at sequence length 128), array (128x128 and
32x32) and dataflow (ws, os) it runs SCALE-Sim 2.0.2 (PyPI, in a virtual environment with pinned versions that
this script creates, the same pins as tests/unit/systolic/gen_scalesim_table.py) in its stall-free mode
(InterfaceBandwidth: CALC), and `tessera systolic ... --json`, and prints one table: compute cycles, utilisation,
whether every per-operand SRAM and DRAM access count is identical, and the wall time and peak memory of each.

Tessera runs its default model (the PE-by-PE one for small enough GEMMs) and, where that is not already it, the
fold model (closed form per fold, the same counts). "model x" is the fold model's speedup without Tessera's process start-up (the best `tessera --help` time of the run, mostly
the dynamic loader mapping the LLVM library the CLI links for its compiler): what the model itself costs.

Counts are compared as docs/systolic.md relates them: Tessera's "scalesim" section reproduces SCALE-Sim's report
(Total Cycles is the index of the last cycle, Compute Util's ws/is fold length, os SRAM OFMAP Writes' rows + cols
per fold); DRAM OFMAP Writes must equal SCALE-Sim's less the padding slots its write buffer drains as data, which
the run counts the way the test generator does. Wall time: SCALE-Sim's run inside its own process (imports
excluded); Tessera's whole process (start-up included). Peak memory: each process's maximum resident set.
"""

import argparse
import json
import multiprocessing
import os
import resource
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "unit", "systolic"))
import gen_scalesim_table as gen  # noqa: E402  (the pins, the venv and one SCALE-Sim run)

ARRAYS = [(128, 128), (32, 32)]
DATAFLOWS = ["ws", "os"]
# BERT-base encoder layer (hidden 768, 12 heads of 64, FFN 3072), one sequence of 128 tokens: M x N x K.
TRANSFORMER = [
    ("qkv proj", 128, 2304, 768),
    ("scores/head", 128, 128, 64),
    ("context/head", 128, 64, 128),
    ("out proj", 128, 768, 768),
    ("ffn up", 128, 3072, 768),
    ("ffn down", 128, 768, 3072),
]
GEMMS = [("1024^3", 1024, 1024, 1024)] + TRANSFORMER


def scalesim_child(case, queue):
    """One SCALE-Sim run in a fresh process: its numbers, wall time and peak resident memory."""
    import scalesim  # noqa: F401  (imported before the clock starts)
    start = time.perf_counter()
    numbers = gen.run_case(case)
    seconds = time.perf_counter() - start
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    queue.put((numbers, seconds, peak_kib))


def run_scalesim(case):
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=scalesim_child, args=(case, queue))
    proc.start()
    result = queue.get()
    proc.join()
    return result


def tessera_peak_kib(tessera, rows, cols, df, m, n, k, model=None):
    """One `tessera systolic` process (its default model, or `model`): its JSON, wall time and peak resident memory
    (from wait4)."""
    cmd = [tessera, "systolic", "--rows", str(rows), "--cols", str(cols), "--dataflow", df,
           "--gemm", f"{m},{n},{k}", "--json"] + (["--model", model] if model else [])
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"compare.py: {' '.join(cmd)} failed")
    return json.loads(out), seconds, usage.ru_maxrss


def startup_seconds(tessera):
    """The best of five `tessera --help` runs: the process start-up every tessera command pays (loading the
    shared libraries, LLVM's among them, that the CLI links for its compiler)."""
    best = None
    for _ in range(5):
        start = time.perf_counter()
        subprocess.run([tessera, "--help"], stdout=subprocess.DEVNULL, check=True)
        seconds = time.perf_counter() - start
        best = seconds if best is None else min(best, seconds)
    return best


def compare_counts(ss, ours):
    """Every count SCALE-Sim reports against Tessera's scalesim section; returns (all equal, [differences])."""
    fields = [
        ("total_cycles", "total_cycles"),
        ("ifmap_sram_reads", "ifmap_sram_reads"),
        ("filter_sram_reads", "filter_sram_reads"),
        ("ofmap_sram_writes", "ofmap_sram_writes"),
        ("ifmap_dram_reads", "ifmap_dram_reads"),
        ("filter_dram_reads", "filter_dram_reads"),
    ]
    diffs = []
    for theirs, mine in fields:
        if int(ss[theirs]) != int(ours[mine]):
            diffs.append(f"{theirs} {ss[theirs]} vs {ours[mine]}")
    if int(ss["ofmap_dram_writes"]) - int(ss["ofmap_dram_padding"]) != int(ours["ofmap_dram_writes"]):
        diffs.append(f"ofmap_dram_writes {ss['ofmap_dram_writes']} - padding {ss['ofmap_dram_padding']} vs "
                     f"{ours['ofmap_dram_writes']}")
    for theirs, mine in [("overall_util", "overall_util_pct"), ("compute_util", "compute_util_pct"),
                         ("mapping_eff", "mapping_efficiency_pct")]:
        if abs(float(ss[theirs]) - float(ours[mine])) > 1e-9 * max(1.0, abs(float(ss[theirs]))):
            diffs.append(f"{theirs} {ss[theirs]} vs {ours[mine]}")
    return not diffs, diffs


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tessera", default=os.path.join(ROOT, "build", "tools", "tessera"))
    parser.add_argument("--venv", default="/tmp/tessera-scalesim-venv", help="the pinned SCALE-Sim environment")
    parser.add_argument("--quick", action="store_true", help="the 128x128 array and the small GEMMs only")
    parser.add_argument("--in-venv", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not args.in_venv:
        python = gen.ensure_venv(args.venv)
        forwarded = ["--tessera", os.path.abspath(args.tessera)] + (["--quick"] if args.quick else [])
        sys.exit(subprocess.call([python, os.path.abspath(__file__), "--in-venv", *forwarded]))

    cases = []
    for rows, cols in ARRAYS:
        for name, m, n, k in GEMMS:
            if args.quick and (rows, cols) != (128, 128) and m * n * k > 128 * 768 * 768:
                continue
            for df in DATAFLOWS:
                cases.append((name, rows, cols, df, m, n, k))

    print(f"SCALE-Sim {gen.SCALESIM_VERSION} (InterfaceBandwidth CALC) vs tessera systolic, the same GEMMs "
          f"(M x N x K), one-byte words, SRAM {gen.DEFAULT_SRAM} KiB")
    startup = startup_seconds(args.tessera)
    header = (f"  {'gemm':<13} {'MxNxK':<15} {'array':<7} {'df':<3} {'cycles':>9} {'util%':>6} "
              f"{'counts':<14} {'scalesim s':>10} {'tessera s':>12} {'speedup':>8} {'fold s':>7} {'speedup':>8} "
              f"{'model x':>8} {'ss MiB':>7} {'ts MiB':>6}")
    print(header)
    worst_speedup = worst_model = worst_fold = None
    all_identical = True
    for name, rows, cols, df, m, n, k in cases:
        ss, ss_seconds, ss_kib = run_scalesim((rows, cols, df, m, n, k, gen.DEFAULT_SRAM))
        report, ts_seconds, ts_kib = tessera_peak_kib(args.tessera, rows, cols, df, m, n, k)
        ours = report["scalesim"]
        identical, diffs = compare_counts(ss, ours)
        if report["model"] != "fold":  # the closed-form model gives the same counts (ModelAgreementTest): time it too
            fold, fold_seconds, _ = tessera_peak_kib(args.tessera, rows, cols, df, m, n, k, "fold")
            fold_identical, fold_diffs = compare_counts(ss, fold["scalesim"])
            identical, diffs = identical and fold_identical, diffs + [f"fold: {d}" for d in fold_diffs]
        else:
            fold_seconds = ts_seconds
        all_identical = all_identical and identical
        speedup = ss_seconds / ts_seconds
        worst_speedup = speedup if worst_speedup is None else min(worst_speedup, speedup)
        fold_speedup = ss_seconds / fold_seconds
        worst_fold = fold_speedup if worst_fold is None else min(worst_fold, fold_speedup)
        model = ss_seconds / max(fold_seconds - startup, 1e-4)
        worst_model = model if worst_model is None else min(worst_model, model)
        padding = f"+{ss['ofmap_dram_padding']}p" if ss["ofmap_dram_padding"] else ""
        print(f"  {name:<13} {f'{m}x{n}x{k}':<15} {f'{rows}x{cols}':<7} {df:<3} {report['compute_cycles']:>9} "
              f"{100 * report['utilization']:>6.2f} {('identical' if identical else 'DIFFER') + padding:<14} "
              f"{ss_seconds:>10.3f} {f'{ts_seconds:.4f} ' + report['model']:>12} {speedup:>7.0f}x "
              f"{fold_seconds:>7.4f} {fold_speedup:>7.0f}x {model:>7.0f}x {ss_kib / 1024:>7.0f} {ts_kib / 1024:>6.1f}",
              flush=True)
        for d in diffs:
            print(f"      {d}")
    print(f"  every count identical: {'yes' if all_identical else 'NO'}; slowest speedup {worst_speedup:.0f}x with "
          f"tessera's default model, {worst_fold:.0f}x with --model fold (goal >= 1000x: "
          f"{'met' if worst_fold >= 1000 else 'NOT met'}); without tessera's {startup * 1000:.0f} ms process start-up "
          f"(model x) at least {worst_model:.0f}x")
    print("  tessera s: its default model (pe: PE by PE, cycle by cycle, for GEMMs small enough; fold: closed form "
          "per fold); fold s: --model fold, the same counts")
    print("  cycles: Tessera's compute cycles (SCALE-Sim's Total Cycles + 1); util%: MACs / (cycles x PEs); "
          "+Np: SCALE-Sim's DRAM OFMAP Writes include N padding slots (docs/systolic.md)")
    return 0 if all_identical else 1


if __name__ == "__main__":
    sys.exit(main())
