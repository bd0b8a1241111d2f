#!/usr/bin/env python3
"""Runs SCALE-Sim (the pinned PyPI release below) on a table of GEMMs and prints what it reports as a C++ table.

    python3 tests/unit/systolic/gen_scalesim_table.py > tests/unit/systolic/ScaleSimTable.inc

The output is committed; ScaleSimTest.cpp checks that Tessera's systolic models give the same numbers (see
docs/systolic.md for the three places where SCALE-Sim's report follows a convention of its own).

The script makes a virtual environment with pinned versions (--venv, created on first use) and re-runs itself
there. Each case runs SCALE-Sim's GEMM mode (a topology row "name, M, N, K,") with InterfaceBandwidth CALC, its
stall-free mode, in a process of its own. Besides the reports, it counts one thing SCALE-Sim does not report: the
padding slots its ofmap write buffer drains as if they were data (write_buffer.empty_drain_buf subtracts the
unused slots of the last line of each drained chunk only), so the test can account for DRAM OFMAP Writes exactly.
The 128x128 cases with 1024^3 take about a minute and 1 GB each.
"""

import argparse
import contextlib
import csv
import io
import multiprocessing
import multiprocessing.pool
import os
import subprocess
import sys
import tempfile

# The versions the committed table was made with (pip resolved these for scalesim 2.0.2 on Python 3.11).
PINS = [
    "scalesim==2.0.2",
    "numpy==2.4.6",
    "pandas==3.1.1",
    "tqdm==4.70.1",
    "absl-py==2.5.1",
    "configparser==7.3.0",
    "python-dateutil==4.0.0",
    "tzdata==2026.6",
]
SCALESIM_VERSION = "2.0.2"

# SCALE-Sim's configs/google.cfg sizes (KiB); Tessera's defaults too.
DEFAULT_SRAM = (6144, 6144, 2048)


def cases():
    """(rows, cols, dataflow, M, N, K, (ifmap, filter, ofmap SRAM KiB))."""
    out = []
    small_arrays = [(4, 4), (8, 8), (16, 16), (32, 32), (8, 16), (16, 4), (5, 7)]
    small_gemms = [(8, 8, 8), (16, 32, 24), (100, 60, 70), (64, 64, 64), (3, 5, 2)]
    for rows, cols in small_arrays:
        for m, n, k in small_gemms:
            for df in ("os", "ws", "is"):
                out.append((rows, cols, df, m, n, k, DEFAULT_SRAM))
    # Small SRAMs: operands that do not fit half their buffer are fetched again, and the ofmap buffer drains
    # while the array runs.
    for rows, cols, sram in [(8, 8, (1, 1, 1)), (4, 4, (2, 3, 1)), (8, 16, (4, 2, 3))]:
        for m, n, k in [(100, 60, 70), (40, 300, 20)]:
            for df in ("os", "ws", "is"):
                out.append((rows, cols, df, m, n, k, sram))
    # A TPU-v1-sized GEMM layer on a 128x128 array (too big for the PE model; the fold model's business).
    for m, n, k in [(1024, 1024, 1024), (300, 700, 200), (128, 128, 128), (512, 256, 384)]:
        for df in ("os", "ws", "is"):
            out.append((128, 128, df, m, n, k, DEFAULT_SRAM))
    return out


def ensure_venv(venv):
    """Creates the pinned environment if needed; returns its python."""
    python = os.path.join(venv, "bin", "python")
    if not os.path.exists(python):
        subprocess.check_call([sys.executable, "-m", "venv", venv])
    have = subprocess.run([python, "-m", "pip", "freeze"], capture_output=True, text=True).stdout.split()
    if any(pin not in have for pin in PINS):
        subprocess.check_call([python, "-m", "pip", "install", "--quiet", *PINS], stdout=sys.stderr)
    return python


def run_case(case):
    """Runs SCALE-Sim on one case in this process; returns a dict of its numbers."""
    rows, cols, df, m, n, k, sram = case
    import scalesim
    from scalesim.memory import write_buffer as wb
    from scalesim.scale_sim import scalesim as ScaleSim

    padding = [0]
    original_drain = wb.write_buffer.empty_drain_buf

    def counting_drain(self, empty_start_cycle=0):
        # The lines this call drains, as empty_drain_buf picks them; all but the last are counted whole.
        lines = int(-(-self.drain_buf_size // self.req_gen_bandwidth))
        end = min(self.drain_buf_start_line_id + lines, self.trace_matrix.shape[0])
        chunk = self.trace_matrix[self.drain_buf_start_line_id:end, :]
        if chunk.shape[0] > 1:
            padding[0] += int((chunk[:-1, :] == -1).sum())
        return original_drain(self, empty_start_cycle)

    wb.write_buffer.empty_drain_buf = counting_drain

    work = tempfile.mkdtemp(prefix="scalesim-")
    config = os.path.join(work, "array.cfg")
    topology = os.path.join(work, "gemm.csv")
    with open(config, "w") as f:
        f.write(
            "[general]\nrun_name = run\n\n[architecture_presets]\n"
            f"ArrayHeight: {rows}\nArrayWidth: {cols}\n"
            f"IfmapSramSzkB: {sram[0]}\nFilterSramSzkB: {sram[1]}\nOfmapSramSzkB: {sram[2]}\n"
            "IfmapOffset: 0\nFilterOffset: 10000000\nOfmapOffset: 20000000\n"
            f"Dataflow: {df}\nBandwidth: 10\nMemoryBanks: 1\n\n"
            "[run_presets]\nInterfaceBandwidth: CALC\n")
    with open(topology, "w") as f:
        f.write(f"Layer, M, N, K,\ngemm, {m}, {n}, {k},\n")
    with contextlib.redirect_stdout(io.StringIO()):
        sim = ScaleSim(save_disk_space=True, verbose=False, config=config, topology=topology, input_type_gemm=True)
        sim.run_scale(top_path=work)
    report = {}
    for name in ("COMPUTE_REPORT", "DETAILED_ACCESS_REPORT"):
        with open(os.path.join(work, "run", name + ".csv")) as f:
            header, values = list(csv.reader(f))[:2]
        report.update({h.strip(): v.strip() for h, v in zip(header, values) if h.strip()})
    assert float(report["Stall Cycles"]) == 0, f"{case}: stalls in CALC mode"
    return {
        "total_cycles": int(report["Total Cycles"]),
        "overall_util": float(report["Overall Util %"]),
        "mapping_eff": float(report["Mapping Efficiency %"]),
        "compute_util": float(report["Compute Util %"]),
        "ifmap_sram_reads": int(float(report["SRAM IFMAP Reads"])),
        "filter_sram_reads": int(float(report["SRAM Filter Reads"])),
        "ofmap_sram_writes": int(float(report["SRAM OFMAP Writes"])),
        "ifmap_dram_reads": int(float(report["DRAM IFMAP Reads"])),
        "filter_dram_reads": int(float(report["DRAM Filter Reads"])),
        "ofmap_dram_writes": int(float(report["DRAM OFMAP Writes"])),
        "ofmap_dram_padding": padding[0],
    }


def run_case_isolated(case):
    # A fresh process per case: SCALE-Sim keeps state in module-level defaults.
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(run_case, (case,))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--venv", default="/tmp/tessera-scalesim-venv", help="where to keep the pinned environment")
    parser.add_argument("--jobs", type=int, default=2, help="cases run at once")
    parser.add_argument("--in-venv", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not args.in_venv:
        python = ensure_venv(args.venv)
        sys.exit(subprocess.call([python, os.path.abspath(__file__), "--in-venv", "--jobs", str(args.jobs)]))

    table = cases()
    with multiprocessing.pool.ThreadPool(args.jobs) as pool:
        results = pool.map(run_case_isolated, table)

    print(f"// Generated by tests/unit/systolic/gen_scalesim_table.py from SCALE-Sim {SCALESIM_VERSION} (PyPI),")
    print("// InterfaceBandwidth CALC, GEMM mode. Do not edit: rerun the script.")
    print("// rows, cols, dataflow, M, N, K, {ifmap, filter, ofmap SRAM KiB}, Total Cycles, Overall Util %,")
    print("// Mapping Efficiency %, Compute Util %, SRAM IFMAP Reads, SRAM Filter Reads, SRAM OFMAP Writes,")
    print("// DRAM IFMAP Reads, DRAM Filter Reads, DRAM OFMAP Writes, padding slots drained as OFMAP writes")
    for (rows, cols, df, m, n, k, sram), r in zip(table, results):
        print(f'{{{rows}, {cols}, "{df}", {m}, {n}, {k}, {{{sram[0]}, {sram[1]}, {sram[2]}}}, '
              f'{r["total_cycles"]}, {r["overall_util"]!r}, {r["mapping_eff"]!r}, {r["compute_util"]!r}, '
              f'{r["ifmap_sram_reads"]}, {r["filter_sram_reads"]}, {r["ofmap_sram_writes"]}, '
              f'{r["ifmap_dram_reads"]}, {r["filter_dram_reads"]}, {r["ofmap_dram_writes"]}, '
              f'{r["ofmap_dram_padding"]}}},')


if __name__ == "__main__":
    main()
