#!/usr/bin/env python3
"""`tessera systolic` against SCALE-Sim v3 on the same files, measured side by side in one run (issue 23).

    python3 bench/scalesim/compare.py [--tessera build/tools/tessera] [--quick]

Each workload is a SCALE-Sim configuration and topology file. SCALE-Sim 3.0.0 (PyPI, in the virtual environment
with the pins of tests/unit/systolic/scalesim3/generate.py, made on first use) runs it in a fresh process, as its
own `scalesim(...).run_scale()` with traces off, timed without the imports; then `tessera systolic -c CONFIG -t
TOPOLOGY -p DIR` runs it, timed as a whole process (start-up included; best of three). The three report files
each writes (COMPUTE_REPORT, BANDWIDTH_REPORT, DETAILED_ACCESS_REPORT) must be identical byte for byte.

Workloads:
  resnet50   bench/topologies/resnet50.csv (54 conv layers, 4.1 GMACs) on bench/topologies/google_calc.cfg
             (128x128, ws, 6144/6144/2048 KiB, CALC): SCALE-Sim takes about 3 minutes. Not with --quick.
  bert       the six GEMMs of a BERT-base encoder layer at sequence length 128 and a 1024^3 one (a gemm
             topology), on 128x128 ws CALC and 32x32 os CALC (--quick: 128x128 without the 1024^3).
  bert-user  the two per-head GEMMs on 32x32 ws, 64/64/64 KiB, USER mode at 10 words/cycle: the stalls of a
             bandwidth-limited interface. (The projections and FFN GEMMs there stall for 99% of 397 million cycles,
             their filters fetched 4 billion times over: Tessera takes 0.3 s for all six, SCALE-Sim was stopped
             after 17 minutes on them.)
Prints the wall time and peak resident memory of each, the ratio, and whether the reports are identical; exits 1
if any differ. The goal the issue sets: ResNet-50 at least 1000x faster than SCALE-Sim.
"""

import argparse
import filecmp
import multiprocessing
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "unit", "systolic", "scalesim3"))
import generate as gen  # noqa: E402  (the pins, the venv, SCALE-Sim's file formats)

TOPOLOGIES = os.path.join(ROOT, "bench", "topologies")
# BERT-base encoder layer (hidden 768, 12 heads of 64, FFN 3072), one sequence of 128 tokens: M x N x K.
BERT = [("qkv_proj", 128, 2304, 768), ("scores_head", 128, 128, 64), ("context_head", 128, 64, 128),
        ("out_proj", 128, 768, 768), ("ffn_up", 128, 3072, 768), ("ffn_down", 128, 768, 3072)]
BIG = [("cube1024", 1024, 1024, 1024)]


def workloads(quick, work):
    """(name, config path, topology path, input type) for each run, writing the files it needs into `work`."""
    out = []
    if not quick:
        out.append(("resnet50 128x128 ws CALC", os.path.join(TOPOLOGIES, "google_calc.cfg"),
                    os.path.join(TOPOLOGIES, "resnet50.csv"), "conv"))

    def gemm_workload(label, mode, df, array, sram, bw, layers):
        case = gen.make_case(mode, df, array, sram, bw, "gemm", label, layers, False)
        cfg = os.path.join(work, case["name"] + ".cfg")
        topo = os.path.join(work, case["name"] + ".csv")
        with open(cfg, "w") as f:
            f.write(gen.config_text(case))
        with open(topo, "w") as f:
            f.write(gen.topology_text(case))
        return (f"{label} {array[0]}x{array[1]} {df} {mode}", cfg, topo, "gemm")

    out.append(gemm_workload("bert", "CALC", "ws", (128, 128), gen.GOOGLE_SRAM, None, BERT + ([] if quick else BIG)))
    if not quick:
        out.append(gemm_workload("bert", "CALC", "os", (32, 32), gen.GOOGLE_SRAM, None, BERT))
    per_head = [g for g in BERT if g[0] in ("scores_head", "context_head")]
    out.append(gemm_workload("bert-user", "USER", "ws", (32, 32), (64, 64, 64), 10, per_head))
    return out


def scalesim_child(config, topology, input_type, out_dir, queue):
    """One SCALE-Sim run in a fresh process: wall time (imports excluded) and peak resident memory."""
    import contextlib
    import io
    from scalesim.scale_sim import scalesim as ScaleSim
    layout = os.path.join(out_dir, "layout.csv")
    with open(layout, "w") as f:
        f.write("Layer name, IFMAP Height Intraline Factor,\n")  # header only: no custom layouts (generate.py)
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        sim = ScaleSim(save_disk_space=True, verbose=False, config=config, topology=topology, layout=layout,
                       input_type_gemm=input_type == "gemm")
        sim.run_scale(top_path=out_dir)
    queue.put((time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))


def run_scalesim(config, topology, input_type, out_dir):
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=scalesim_child, args=(config, topology, input_type, out_dir, queue))
    proc.start()
    result = queue.get()
    proc.join()
    return result


def run_tessera(tessera, config, topology, input_type, out_dir):
    """The whole `tessera systolic` process, best of three: wall time and peak resident memory (wait4)."""
    best = None
    for _ in range(3):
        cmd = [tessera, "systolic", "-c", config, "-t", topology, "-i", input_type, "-p", out_dir]
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        err = proc.stderr.read()
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"compare.py: {' '.join(cmd)} failed: {err.decode(errors='replace')}")
        best = (seconds, usage.ru_maxrss) if best is None or seconds < best[0] else best
    return best


def run_name(config):
    with open(config) as f:
        for line in f:
            if line.strip().startswith("run_name"):
                return line.split("=", 1)[1].strip()
    raise SystemExit(f"compare.py: {config} has no run_name")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tessera", default=os.path.join(ROOT, "build", "tools", "tessera"))
    parser.add_argument("--venv", default=os.path.join(ROOT, "build", "scalesim3-venv"),
                        help="the pinned SCALE-Sim environment")
    parser.add_argument("--quick", action="store_true", help="small workloads only (no ResNet-50)")
    parser.add_argument("--in-venv", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not args.in_venv:
        python = gen.ensure_venv(os.path.abspath(args.venv))
        forwarded = ["--tessera", os.path.abspath(args.tessera)] + (["--quick"] if args.quick else [])
        sys.exit(subprocess.call([python, os.path.abspath(__file__), "--in-venv", *forwarded]))

    print(f"SCALE-Sim {gen.SCALESIM_VERSION} vs tessera systolic -c -t, the same configuration and topology files")
    print(f"  {'workload':<28} {'layers':>6} {'reports':<10} {'scalesim s':>10} {'tessera s':>9} {'speedup':>8} "
          f"{'ss MiB':>7} {'ts MiB':>6}")
    all_identical = True
    speedups = {}
    work = tempfile.mkdtemp(prefix="tessera-scalesim-bench-")
    try:
        for name, config, topology, input_type in workloads(args.quick, work):
            ss_dir, ts_dir = os.path.join(work, "ss"), os.path.join(work, "ts")
            for d in (ss_dir, ts_dir):
                shutil.rmtree(d, ignore_errors=True)
                os.makedirs(d)
            ss_seconds, ss_kib = run_scalesim(config, topology, input_type, ss_dir)
            ts_seconds, ts_kib = run_tessera(args.tessera, config, topology, input_type, ts_dir)
            run = run_name(config)
            same = [filecmp.cmp(os.path.join(ss_dir, run, r), os.path.join(ts_dir, run, r), shallow=False)
                    for r in gen.REPORTS]
            with open(os.path.join(ss_dir, run, "COMPUTE_REPORT.csv")) as f:
                layers = sum(1 for line in f if line.strip()) - 1
            identical = all(same)
            all_identical = all_identical and identical
            speedups[name] = ss_seconds / ts_seconds
            print(f"  {name:<28} {layers:>6} {'identical' if identical else 'DIFFER':<10} {ss_seconds:>10.2f} "
                  f"{ts_seconds:>9.3f} {speedups[name]:>7.0f}x {ss_kib / 1024:>7.0f} {ts_kib / 1024:>6.1f}",
                  flush=True)
            for report, ok in zip(gen.REPORTS, same):
                if not ok:
                    print(f"      {report} differs: diff {os.path.join(ss_dir, run, report)} "
                          f"{os.path.join(ts_dir, run, report)}")
    finally:
        if all_identical:
            shutil.rmtree(work, ignore_errors=True)
    print(f"  every report identical: {'yes' if all_identical else 'NO'}")
    resnet = [v for k, v in speedups.items() if k.startswith("resnet50")]
    if resnet:
        print(f"  ResNet-50 in one process: {resnet[0]:.0f}x SCALE-Sim's speed "
              f"(goal >= 1000x: {'met' if resnet[0] >= 1000 else 'NOT met'})")
    print("  scalesim s: its run_scale() in a fresh process, imports excluded; tessera s: the whole process, "
          "start-up included, best of 3; MiB: peak resident memory")
    return 0 if all_identical else 1


if __name__ == "__main__":
    sys.exit(main())
