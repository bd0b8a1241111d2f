#!/usr/bin/env python3
"""Runs SCALE-Sim v3 (the pinned PyPI release below) on a set of cases and keeps its inputs and reports.

    python3 tests/unit/systolic/scalesim3/generate.py [--venv build/scalesim3-venv] [--jobs 2]

The output is committed; a C++ test compares Tessera's systolic models against it. For every case this writes
tests/unit/systolic/scalesim3/cases/<name>/ with
    scale.cfg          the complete SCALE-Sim config the case ran with,
    topology.csv       the topology in SCALE-Sim's own format (header row, trailing commas): "Layer, M, N, K," for
                       GEMM input, "Layer name, IFMAP Height, ..., Strides," for convolutions,
    COMPUTE_REPORT.csv, BANDWIDTH_REPORT.csv, DETAILED_ACCESS_REPORT.csv
                       SCALE-Sim's reports, byte for byte as it wrote them,
and for the few cases marked with traces also layer0's IFMAP/FILTER/OFMAP SRAM and DRAM traces
(IFMAP_SRAM_TRACE.csv ... OFMAP_DRAM_TRACE.csv). tests/unit/systolic/scalesim3/cases.csv lists the cases
(name,input_type; input_type is gemm or conv). Case directories that are no longer in the list are removed.

The script makes a virtual environment with pinned versions (--venv, created on first use) and re-runs itself
there. Each case runs in a fresh process of its own (SCALE-Sim keeps state in module-level defaults) through
SCALE-Sim's Python API, scalesim(...).run_scale(...), with traces off unless the case keeps them.

SCALE-Sim 3.0.0 details this relies on:
  * scalesim() always opens a layout file (layout_utils.load_arrays), even with IfmapCustomLayout and
    FilterCustomLayout False, and a config cannot name one; with layout='' it fails on open(''). Each case is
    given a layout file with a header row only (no layers), which is never read further without custom layouts.
  * In USER mode the ifmap and filter DRAM bandwidths are [layout] IfmapSRAMBankBandwidth and
    FilterSRAMBankBandwidth, and only the ofmap one is [architecture_presets] Bandwidth (its first entry). The
    read buffers assert that bandwidth is divisible by the bank count, so the bank counts are 1. In CALC mode
    SCALE-Sim ignores all three (10 words/cycle for the read-buffer estimate, the array width for the ofmap).
  * A conv layer whose name contains "DP" is depth-wise: SCALE-Sim splits it into one layer per channel.
  * ReadRequestBuffer and WriteRequestBuffer only matter with UseRamulatorTrace True (off here).
The whole run takes about a minute on 2 cores (127 cases; the slowest, a 10-layer network, 10 s).
"""

import argparse
import contextlib
import csv
import io
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
import time

# The versions the committed outputs were made with: what pip resolved for scalesim==3.0.0 "numpy<2" "pandas<2.2"
# on Python 3.11 (scalesim 3.0.0 declares numpy, configparser, absl-py, tqdm, pandas, setuptools, matplotlib,
# cython and numba, all unpinned).
PINS = [
    "scalesim==3.0.0",
    "numpy==1.26.4",
    "pandas==2.1.4",
    "absl-py==2.5.1",
    "configparser==7.3.0",
    "contourpy==1.3.3",
    "cycler==0.12.1",
    "Cython==3.3.1",
    "fonttools==4.68.0",
    "kiwisolver==1.5.1",
    "llvmlite==0.50.0",
    "matplotlib==3.11.2",
    "numba==0.68.1",
    "packaging==26.4",
    "pillow==13.0.0",
    "pyparsing==3.3.3",
    "python-dateutil==4.0.0",
    "pytz==2026.6",
    "setuptools==65.5.0",
    "tqdm==4.70.1",
    "tzdata==2026.6",
]
SCALESIM_VERSION = "3.0.0"

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))
CASES_DIR = os.path.join(HERE, "cases")
MANIFEST = os.path.join(HERE, "cases.csv")
REPORTS = ("COMPUTE_REPORT.csv", "BANDWIDTH_REPORT.csv", "DETAILED_ACCESS_REPORT.csv")
TRACES = ("IFMAP_SRAM_TRACE.csv", "FILTER_SRAM_TRACE.csv", "OFMAP_SRAM_TRACE.csv",
          "IFMAP_DRAM_TRACE.csv", "FILTER_DRAM_TRACE.csv", "OFMAP_DRAM_TRACE.csv")

# SCALE-Sim's configs/google.cfg sizes (KiB).
GOOGLE_SRAM = (6144, 6144, 2048)
DATAFLOWS = ("os", "ws", "is")


def gemm_case(mode, df, array, mnk, sram=GOOGLE_SRAM, bw=None, traces=False):
    """A single-layer GEMM case: mnk = (M, N, K), an MxK ifmap times a KxN filter; bw = words/cycle, a number or
    (ifmap, filter, ofmap) (USER mode only)."""
    m, n, k = mnk
    return make_case(mode, df, array, sram, bw, "gemm", f"gemm-{m}x{n}x{k}", [("gemm", m, n, k)], traces)


def conv_case(mode, df, array, layer, sram=GOOGLE_SRAM, bw=None):
    """A single-layer conv case: layer = (H, W, R, S, C, F, stride); the ifmap is HxWxC, F filters RxSxC."""
    h, w, r, s, c, f, stride = layer
    return make_case(mode, df, array, sram, bw, "conv", f"conv{r}x{s}s{stride}-{h}x{w}x{c}-f{f}",
                     [("conv", h, w, r, s, c, f, stride)], False)


def make_case(mode, df, array, sram, bw, input_type, what, layers, traces):
    assert mode in ("CALC", "USER") and df in DATAFLOWS
    assert (bw is None) == (mode == "CALC"), "USER mode takes a bandwidth, CALC mode none"
    if isinstance(bw, int):
        bw = (bw, bw, bw)
    name = f"{mode.lower()}-{df}-{array[0]}x{array[1]}-{what}"
    if bw is not None:
        name += "-bw" + (str(bw[0]) if len(set(bw)) == 1 else "-".join(map(str, bw)))
    if sram != GOOGLE_SRAM:
        name += "-sram" + "-".join(map(str, sram))
    return {"name": name, "mode": mode, "df": df, "array": array, "sram": sram, "bw": bw,
            "input_type": input_type, "layers": layers, "traces": traces}


def mini_resnet():
    """A scaled-down ResNet stack on a 28x28x3 input, 10 conv layers (the fc as a 1x1 conv). Ifmap sizes are the
    padded extents the windows touch: (out - 1) * stride + filter, so SCALE-Sim's ofmap size is the intended one."""
    return [
        ("stem", 30, 30, 3, 3, 3, 16, 1),         # 28x28x16
        ("res1_a", 30, 30, 3, 3, 16, 16, 1),
        ("res1_b", 30, 30, 3, 3, 16, 16, 1),
        ("down_a", 29, 29, 3, 3, 16, 32, 2),      # 14x14x32
        ("down_b", 16, 16, 3, 3, 32, 32, 1),
        ("down_proj", 27, 27, 1, 1, 16, 32, 2),
        ("bneck_a", 14, 14, 1, 1, 32, 16, 1),
        ("bneck_b", 16, 16, 3, 3, 16, 16, 1),
        ("bneck_c", 14, 14, 1, 1, 16, 32, 1),
        ("fc", 1, 1, 1, 1, 32, 10, 1),
    ]


def cases():
    out = []
    # CALC (stall-free) mode: dataflows x arrays x GEMM shapes, full folds and partial ones.
    per_array = {
        (4, 4): [(3, 5, 2), (8, 8, 8)],
        (8, 8): [(64, 64, 64), (100, 60, 70)],
        (16, 16): [(100, 60, 70), (40, 300, 20)],
        (8, 16): [(129, 257, 65), (16, 32, 24)],
        (5, 7): [(3, 5, 2), (100, 60, 70)],
        (32, 128): [(129, 257, 65)],
        (128, 32): [(129, 257, 65)],
        (16, 1): [(16, 30, 20)],
        (1, 16): [(16, 30, 20)],
        (1, 1): [(3, 5, 2)],
    }
    for array, gemms in per_array.items():
        for mnk in gemms:
            for df in DATAFLOWS:
                out.append(gemm_case("CALC", df, array, mnk))
    for array in ((32, 128), (128, 32)):
        out.append(gemm_case("CALC", "ws", array, (64, 64, 64)))
    # Small SRAMs: operands that do not fit half their buffer are fetched again, and the ofmap buffer drains
    # while the array runs.
    for array, sram, mnk in [((8, 8), (1, 1, 1), (100, 60, 70)), ((4, 4), (2, 3, 1), (40, 300, 20))]:
        for df in DATAFLOWS:
            out.append(gemm_case("CALC", df, array, mnk, sram))
    # An operand read more often than its active window holds but small enough to fit it: every read after the
    # first pass hits (Tessera stops consulting the buffer there; these check that it may).
    for df in DATAFLOWS:
        out.append(gemm_case("CALC", df, (8, 8), (64, 64, 64), sram=(16, 16, 8)))
    # Conv layers of a 1 KiB ifmap SRAM (a table ifmap that is fetched again) and a 1 x 1 stride 2 layer.
    for df in DATAFLOWS:
        out.append(conv_case("CALC", df, (8, 8), (14, 14, 3, 3, 8, 16, 2), sram=(1, 4, 4)))
        out.append(conv_case("CALC", df, (8, 8), (15, 15, 1, 1, 8, 16, 2)))
    # Convolutions: 3x3 stride 1 and 2, 1x1, 7x7 stride 2 on a 14x14x8 ifmap to 16 filters.
    for array, layer in [((8, 8), (14, 14, 3, 3, 8, 16, 1)), ((16, 16), (14, 14, 3, 3, 8, 16, 2)),
                         ((8, 8), (14, 14, 1, 1, 8, 16, 1)), ((16, 16), (14, 14, 7, 7, 8, 16, 2))]:
        for df in DATAFLOWS:
            out.append(conv_case("CALC", df, array, layer))
    out.append(conv_case("CALC", "ws", (8, 8), (14, 14, 3, 3, 8, 16, 1), sram=(1, 1, 1)))
    # A depth-wise layer: SCALE-Sim runs it as one layer per channel (8 report rows).
    dw = make_case("CALC", "ws", (8, 8), GOOGLE_SRAM, None, "conv", "dw3x3s1-16x16x8",
                   [("DP_3x3", 16, 16, 3, 3, 8, 1, 1)], False)
    out.append(dw)
    # Tiny cases that keep layer0's traces. 1 KiB SRAMs (everything still fits): in CALC mode SCALE-Sim's DRAM
    # traces start with a fill of the whole first half of each read buffer, 6292 lines with the google.cfg sizes.
    out.append(gemm_case("CALC", "os", (4, 4), (7, 6, 5), sram=(1, 1, 1), traces=True))
    out.append(gemm_case("CALC", "ws", (4, 4), (7, 6, 5), sram=(1, 1, 1), traces=True))

    # USER mode: the given DRAM bandwidths (words/cycle); stalls where the buffers cannot keep up.
    out.append(gemm_case("USER", "ws", (32, 128), (129, 257, 65), bw=10))
    out.append(gemm_case("USER", "ws", (32, 128), (129, 257, 65), sram=(64, 64, 64), bw=10))
    # Bandwidth sweeps: with the google.cfg sizes everything fits (the fills before the first fold are not in
    # Total Cycles); with 2/2/1 KiB the operands are fetched again.
    for df in DATAFLOWS:
        out.append(gemm_case("USER", df, (8, 8), (64, 64, 64), bw=1))
    for bw in (1, 2, 4, 10, 32):
        for df in DATAFLOWS:
            out.append(gemm_case("USER", df, (8, 8), (64, 64, 64), sram=(2, 2, 1), bw=bw))
    for array, sram, mnk, bws in [((8, 8), (1, 1, 1), (100, 60, 70), (2, 10)),
                                  ((16, 16), (4, 2, 3), (40, 300, 20), (4,)),
                                  ((4, 4), (2, 3, 1), (40, 300, 20), (1,))]:
        for bw in bws:
            for df in DATAFLOWS:
                out.append(gemm_case("USER", df, array, mnk, sram, bw))
    for df in DATAFLOWS:
        out.append(gemm_case("USER", df, (5, 7), (100, 60, 70), bw=4))
        out.append(gemm_case("USER", df, (8, 16), (129, 257, 65), sram=(16, 16, 8), bw=10))
        out.append(gemm_case("USER", df, (128, 32), (129, 257, 65), sram=(64, 64, 64), bw=32))
    out.append(gemm_case("USER", "ws", (16, 1), (16, 30, 20), bw=2))
    out.append(gemm_case("USER", "os", (1, 16), (16, 30, 20), bw=2))
    out.append(gemm_case("USER", "is", (16, 1), (16, 30, 20), sram=(1, 1, 1), bw=1))
    out.append(gemm_case("USER", "os", (1, 1), (3, 5, 2), bw=1))
    # Different ifmap, filter and ofmap bandwidths.
    out.append(gemm_case("USER", "ws", (8, 8), (100, 60, 70), sram=(2, 2, 2), bw=(4, 2, 10)))
    out.append(gemm_case("USER", "os", (16, 16), (40, 300, 20), sram=(2, 2, 2), bw=(2, 8, 1)))
    for df in DATAFLOWS:
        out.append(conv_case("USER", df, (8, 8), (14, 14, 3, 3, 8, 16, 1), bw=4))
        out.append(conv_case("USER", df, (16, 16), (14, 14, 7, 7, 8, 16, 2), sram=(1, 1, 1), bw=10))
    out.append(conv_case("USER", "ws", (8, 8), (14, 14, 1, 1, 8, 16, 1), bw=2))
    out.append(conv_case("USER", "is", (16, 16), (14, 14, 3, 3, 8, 16, 2), bw=1))
    out.append(gemm_case("USER", "is", (4, 4), (7, 6, 5), bw=2, traces=True))

    # Multi-layer networks.
    out.append(make_case("CALC", "ws", (16, 16), GOOGLE_SRAM, None, "conv", "net-miniresnet28", mini_resnet(), False))
    out.append(make_case("USER", "os", (8, 8), (16, 16, 8), (4, 4, 4), "conv", "net-miniresnet28", mini_resnet(),
                         False))

    names = [c["name"] for c in out]
    assert len(names) == len(set(names)), "duplicate case names"
    return out


def config_text(case):
    rows, cols = case["array"]
    bw = case["bw"] or (10, 10, 10)
    return (
        f"[general]\nrun_name = {case['name']}\n\n"
        "[architecture_presets]\n"
        f"ArrayHeight: {rows}\nArrayWidth: {cols}\n"
        f"IfmapSramSzkB: {case['sram'][0]}\nFilterSramSzkB: {case['sram'][1]}\nOfmapSramSzkB: {case['sram'][2]}\n"
        "IfmapOffset: 0\nFilterOffset: 10000000\nOfmapOffset: 20000000\n"
        f"Dataflow: {case['df']}\nBandwidth: {bw[2]}\nReadRequestBuffer: 32\nWriteRequestBuffer: 32\n\n"
        "[layout]\n"
        f"IfmapCustomLayout: False\nIfmapSRAMBankBandwidth: {bw[0]}\nIfmapSRAMBankNum: 1\nIfmapSRAMBankPort: 2\n"
        f"FilterCustomLayout: False\nFilterSRAMBankBandwidth: {bw[1]}\nFilterSRAMBankNum: 1\nFilterSRAMBankPort: 2\n\n"
        "[sparsity]\nSparsitySupport: false\nSparseRep: ellpack_block\nOptimizedMapping: false\nBlockSize: 8\n"
        "RandomNumberGeneratorSeed: 40\n\n"
        f"[run_presets]\nInterfaceBandwidth: {case['mode']}\nUseRamulatorTrace: False\n")


def topology_text(case):
    """Layers are (name, M, N, K) for GEMM input and (name, H, W, R, S, C, F, stride) for convolutions."""
    if case["input_type"] == "gemm":
        header = "Layer, M, N, K,"
    else:
        header = "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,"
    return "\n".join([header] + [", ".join(str(x) for x in layer) + "," for layer in case["layers"]]) + "\n"


def run_case(case):
    """Runs SCALE-Sim on one case (its scale.cfg and topology.csv already written) in this process."""
    from scalesim.scale_sim import scalesim as ScaleSim

    start = time.time()
    out_dir = os.path.join(CASES_DIR, case["name"])
    work = tempfile.mkdtemp(prefix="scalesim3-")
    try:
        layout = os.path.join(work, "layout.csv")
        with open(layout, "w") as f:
            f.write("Layer name, IFMAP Height Intraline Factor,\n")   # header only: no custom layouts
        with contextlib.redirect_stdout(io.StringIO()):
            sim = ScaleSim(save_disk_space=not case["traces"], verbose=False,
                           config=os.path.join(out_dir, "scale.cfg"), topology=os.path.join(out_dir, "topology.csv"),
                           layout=layout, input_type_gemm=case["input_type"] == "gemm")
            sim.run_scale(top_path=work)
        run_dir = os.path.join(work, case["name"])
        for name in REPORTS:
            shutil.copyfile(os.path.join(run_dir, name), os.path.join(out_dir, name))
        if case["traces"]:
            for name in TRACES:
                shutil.copyfile(os.path.join(run_dir, "layer0", name), os.path.join(out_dir, name))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    with open(os.path.join(out_dir, "COMPUTE_REPORT.csv")) as f:
        rows = [[x.strip() for x in r] for r in list(csv.reader(f))[1:] if r]
    cycles = sum(int(float(r[2])) for r in rows)
    stalls = sum(int(float(r[3])) for r in rows)
    if case["mode"] == "CALC":
        assert stalls == 0, f"{case['name']}: stalls in CALC mode"
    return case["name"], len(rows), cycles, stalls, time.time() - start


def ensure_venv(venv):
    """Creates the pinned environment if needed; returns its python."""
    python = os.path.join(venv, "bin", "python")
    if not os.path.exists(python):
        subprocess.check_call([sys.executable, "-m", "venv", venv])
    have = subprocess.run([python, "-m", "pip", "freeze", "--all"], capture_output=True, text=True).stdout.split()
    if any(pin not in have for pin in PINS):
        subprocess.check_call([python, "-m", "pip", "install", "--quiet", *PINS], stdout=sys.stderr)
    return python


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--venv", default=os.path.join(REPO, "build", "scalesim3-venv"),
                        help="where to keep the pinned environment")
    parser.add_argument("--jobs", type=int, default=2, help="cases run at once")
    parser.add_argument("--in-venv", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if sys.version_info[:2] != (3, 11):
        # SCALE-Sim averages per-fold ratios with sum(), which Python 3.12 made compensated: the last digits of its
        # Mapping Efficiency and Compute Util would change, and the stored cases were made on 3.11.
        version = sys.version.split()[0]
        raise SystemExit(f"generate.py: run it with Python 3.11, Debian 12's python3 (this is {version})")
    if not args.in_venv:
        python = ensure_venv(os.path.abspath(args.venv))
        sys.exit(subprocess.call([python, os.path.abspath(__file__), "--in-venv", "--jobs", str(args.jobs)]))

    import scalesim  # noqa: F401 (fails here, not in the workers, if the environment is wrong)
    table = cases()
    os.makedirs(CASES_DIR, exist_ok=True)
    names = {c["name"] for c in table}
    for stale in sorted(set(os.listdir(CASES_DIR)) - names):
        shutil.rmtree(os.path.join(CASES_DIR, stale))
    for case in table:
        out_dir = os.path.join(CASES_DIR, case["name"])
        shutil.rmtree(out_dir, ignore_errors=True)
        os.makedirs(out_dir)
        with open(os.path.join(out_dir, "scale.cfg"), "w") as f:
            f.write(config_text(case))
        with open(os.path.join(out_dir, "topology.csv"), "w") as f:
            f.write(topology_text(case))
    with open(MANIFEST, "w") as f:
        f.write("name,input_type\n")
        f.writelines(f"{c['name']},{c['input_type']}\n" for c in table)

    start = time.time()
    # A fresh process per case: SCALE-Sim keeps state in module-level defaults.
    with multiprocessing.get_context("spawn").Pool(args.jobs, maxtasksperchild=1) as pool:
        for name, layers, cycles, stalls, seconds in pool.imap_unordered(run_case, table):
            print(f"{name:60} {layers:3} layer(s) {cycles:9} cycles {stalls:9} stalls {seconds:6.1f} s",
                  file=sys.stderr, flush=True)
    modes = [c["mode"] for c in table]
    print(f"{len(table)} cases ({modes.count('CALC')} CALC, {modes.count('USER')} USER) with SCALE-Sim "
          f"{SCALESIM_VERSION} in {time.time() - start:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
