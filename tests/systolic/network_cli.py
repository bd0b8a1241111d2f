#!/usr/bin/env python3
"""`tessera systolic -c CONFIG -t TOPOLOGY` as a SCALE-Sim user runs it (ctest systolic/network-cli).

    python3 tests/systolic/network_cli.py TESSERA

1. SCALE-Sim's own files in, SCALE-Sim's reports out: for cases of tests/unit/systolic/scalesim3/ (CALC and USER,
   conv and gemm rows, a depth-wise layer, a network), the three report files the CLI writes equal SCALE-Sim
   3.0.0's byte for byte, and --trace's SRAM traces equal SCALE-Sim's.
2. --json holds the same numbers.
3. Bad input is refused with exit status 2 and a message naming the file and line (or flag), before anything is
   written; a layer too large for --trace is a limit (exit 3).
"""

import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(os.path.dirname(HERE), "unit", "systolic", "scalesim3", "cases")
REPORTS = ["COMPUTE_REPORT.csv", "BANDWIDTH_REPORT.csv", "DETAILED_ACCESS_REPORT.csv"]
TRACES = ["IFMAP_SRAM_TRACE.csv", "FILTER_SRAM_TRACE.csv", "OFMAP_SRAM_TRACE.csv"]

failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def run(tessera, *args, cwd=None):
    p = subprocess.run([tessera, "systolic", *args], capture_output=True, text=True, cwd=cwd, timeout=300)
    return p.returncode, p.stdout, p.stderr


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def input_type(case):
    return "gemm" if read(os.path.join(CASES, case, "topology.csv")).split(",")[1].strip() == "M" else "conv"


def run_name(case):
    for line in read(os.path.join(CASES, case, "scale.cfg")).splitlines():
        if line.startswith("run_name"):
            return line.split("=", 1)[1].strip()
    raise SystemExit(f"{case}: no run_name")


def same_reports(tessera, case, tmp, trace=False):
    cfg = os.path.join(CASES, case, "scale.cfg")
    topo = os.path.join(CASES, case, "topology.csv")
    args = ["-c", cfg, "-t", topo, "-i", input_type(case), "-p", tmp] + (["--trace"] if trace else [])
    status, out, err = run(tessera, *args)
    check(status == 0, f"{case}: exit 0 ({err.strip()[:200]})")
    out_dir = os.path.join(tmp, run_name(case))
    for name in REPORTS:
        same = read(os.path.join(out_dir, name)) == read(os.path.join(CASES, case, name))
        check(same, f"{case}: {name} is SCALE-Sim's")
    if trace:
        for name in TRACES:
            ours = read(os.path.join(out_dir, "layer0", name))
            check(ours == read(os.path.join(CASES, case, name)), f"{case}: layer0/{name} is SCALE-Sim's")
    return out


def refused(tessera, tmp, args, status, *needles):
    code, out, err = run(tessera, *args)
    text = out + err
    ok = code == status and all(n in text for n in needles)
    check(ok, f"{' '.join(args)[-90:]}: exit {status} naming {needles} (got {code}: {text.strip()[:300]})")


def write(tmp, name, text):
    path = os.path.join(tmp, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def main():
    tessera = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        for case in ["calc-ws-16x16-net-miniresnet28", "user-os-8x8-net-miniresnet28-bw4-sram16-16-8",
                     "user-ws-32x128-gemm-129x257x65-bw10-sram64-64-64", "calc-ws-8x8-dw3x3s1-16x16x8",
                     "calc-is-16x16-conv7x7s2-14x14x8-f16"]:
            same_reports(tessera, case, tmp)
        for case in ["calc-os-4x4-gemm-7x6x5-sram1-1-1", "calc-ws-4x4-gemm-7x6x5-sram1-1-1",
                     "user-is-4x4-gemm-7x6x5-bw2"]:
            same_reports(tessera, case, tmp, trace=True)

        # The terminal table and --json: the USER case, 4,886 cycles of which 2,016 stall.
        case = os.path.join(CASES, "user-ws-32x128-gemm-129x257x65-bw10-sram64-64-64")
        status, out, _ = run(tessera, "-c", f"{case}/scale.cfg", "-t", f"{case}/topology.csv", "-p", tmp, "--json")
        layer = json.loads(out)["layers"][0] if status == 0 else {}
        check(layer.get("total_cycles") == 4886 and layer.get("stall_cycles") == 2016,
              "--json: 4886 cycles, 2016 stalls")
        status, out, _ = run(tessera, "-c", f"{case}/scale.cfg", "-t", f"{case}/topology.csv", "-p", tmp)
        check(status == 0 and " 4886 " in out and " 2016 " in out and "USER" in out, "table: cycles, stalls, mode")

        good_cfg = read(os.path.join(case, "scale.cfg"))
        good_topo = os.path.join(case, "topology.csv")
        bad = write(tmp, "bad-int.cfg", good_cfg.replace("ArrayHeight: 32", "ArrayHeight: 3x2"))
        line = good_cfg.splitlines().index("ArrayHeight: 32") + 1
        refused(tessera, tmp, ["-c", bad, "-t", good_topo, "-p", tmp], 2, f"bad-int.cfg:{line}", "ArrayHeight")
        bad = write(tmp, "no-df.cfg", good_cfg.replace("Dataflow: ws\n", ""))
        refused(tessera, tmp, ["-c", bad, "-t", good_topo, "-p", tmp], 2, "no-df.cfg", "Dataflow")
        bad = write(tmp, "mode.cfg", good_cfg.replace("InterfaceBandwidth: USER", "InterfaceBandwidth: FAST"))
        refused(tessera, tmp, ["-c", bad, "-t", good_topo, "-p", tmp], 2, "mode.cfg:", "CALC or USER")
        bad = write(tmp, "layout.cfg", good_cfg.replace("IfmapCustomLayout: False", "IfmapCustomLayout: True"))
        refused(tessera, tmp, ["-c", bad, "-t", good_topo, "-p", tmp], 2, "layout.cfg:", "not modelled")
        bad = write(tmp, "sparse.cfg", good_cfg.replace("SparsitySupport: false", "SparsitySupport: true"))
        refused(tessera, tmp, ["-c", bad, "-t", good_topo, "-p", tmp], 2, "sparse.cfg:", "not modelled")
        cfg = os.path.join(case, "scale.cfg")
        topo = write(tmp, "short.csv", "Layer, M, N, K,\nok, 4, 4, 4,\nshort, 4, 4,\n")
        refused(tessera, tmp, ["-c", cfg, "-t", topo, "-i", "gemm", "-p", tmp], 2, "short.csv:3", "4 fields")
        topo = write(tmp, "big-filter.csv", "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, "
                     "Channels, Num Filter, Strides,\nc1, 4, 4, 5, 3, 1, 8, 1,\n")
        refused(tessera, tmp, ["-c", cfg, "-t", topo, "-p", tmp], 2, "big-filter.csv:2", "5 high")
        topo = write(tmp, "zero.csv", "Layer, M, N, K,\nz, 0, 4, 4,\n")
        refused(tessera, tmp, ["-c", cfg, "-t", topo, "-p", tmp], 2, "zero.csv:2", "M: expected a positive")
        refused(tessera, tmp, ["-c", cfg, "-p", tmp], 2, "-t TOPOLOGY")
        refused(tessera, tmp, ["-c", cfg, "-t", good_topo, "--gemm", "8,8,8"], 2, "--gemm is for one GEMM")
        refused(tessera, tmp, ["-c", os.path.join(tmp, "none.cfg"), "-t", good_topo], 2, "none.cfg")
        refused(tessera, tmp, ["--trace", "--dataflow", "ws", "--gemm", "8,8,8", "-r", "4", "--cols", "4"], 2,
                "-c CONFIG")
        # -p naming a file: refused, and the file is left as it was.
        blocker = write(tmp, "blocker", "keep me\n")
        refused(tessera, tmp, ["-c", cfg, "-t", good_topo, "-p", blocker], 2, "blocker")
        check(read(blocker) == "keep me\n", "-p FILE: the file is left as it was")
        # Products of dimensions past 2^40 (each dimension is fine): refused, not a wrapped size.
        topo = write(tmp, "wrap.csv", "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, "
                     "Num Filter, Strides,\nx, 4194304, 4194304, 1, 1, 4194304, 1, 1,\n")
        refused(tessera, tmp, ["-c", cfg, "-t", topo, "-p", tmp], 2, "wrap.csv:2", "too large")
        refused(tessera, tmp, ["-c", cfg, "-t", good_topo, "-p", tmp, "-j", "-1"], 2, "-j: expected 1 to 1024")
        # A corner where SCALE-Sim's own CALC prefetcher fails: the layer named, bad input, no report folder left.
        corner = write(tmp, "corner.cfg", good_cfg.replace("ArrayHeight: 32", "ArrayHeight: 1")
                       .replace("ArrayWidth: 128", "ArrayWidth: 2048").replace("InterfaceBandwidth: USER",
                                                                               "InterfaceBandwidth: CALC")
                       .replace("SramSzkB: 64", "SramSzkB: 1"))
        topo = write(tmp, "corner.csv", "Layer, M, N, K,\nthin, 4, 2048, 1,\n")
        out_dir = os.path.join(tmp, "corner-out")
        refused(tessera, tmp, ["-c", corner, "-t", topo, "-p", out_dir], 2, "corner.csv:2", "layer 'thin'",
                "prefetcher has no cycles")
        check(not os.path.exists(out_dir), "a failed run leaves no report folder")
        # The same GEMM through --gemm: the models' numbers, SCALE-Sim's block not run (exit 0).
        status, out, _ = run(tessera, "--rows", "1", "--cols", "2048", "--dataflow", "ws", "--gemm", "4,2048,1",
                             "--sram-kib", "1,1,1", "--model", "fold", "--json")
        ok = status == 0 and json.loads(out)["scalesim"] is None
        check(ok, "--gemm on SCALE-Sim's failing corner: exit 0, scalesim null")
        # A layer far too big to trace is a limit, refused before any work.
        topo = write(tmp, "huge.csv", "Layer, M, N, K,\nhuge, 100000, 4096, 4096,\n")
        refused(tessera, tmp, ["-c", cfg, "-t", topo, "-p", tmp, "--trace"], 3, "huge.csv:2", "--trace")

    print(f"{len(failures)} failed" if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
