#!/usr/bin/env python3
"""`tessera sweep` under MPI against the same sweep in one process: the table, the CSV and the JSON must be the same,
apart from the host times (sim_s, sim_seconds, wall_seconds) and the line above the table that says how it ran.

usage: compare_sweeps.py TESSERA WORK_DIR RANKS -- MPIEXEC ARGS... -- SWEEP ARGS...
  MPIEXEC ARGS: the launcher and its flags, before the program (mpiexec --oversubscribe -n)
"""
import csv
import io
import json
import os
import subprocess
import sys


def run(command):
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    return result.returncode, result.stdout, result.stderr


def table_rows(text):
    """The table's rows without sim_s, and the first line (how it ran)."""
    lines = text.rstrip("\n").split("\n")
    first, header, rows = lines[0], lines[2].split(), lines[3:]
    axes = len(header) - 6  # the swept names, then status time_us TFLOP/s instructions sim_s note
    assert header[axes:] == ["status", "time_us", "TFLOP/s", "instructions", "sim_s", "note"], header
    kept = [header[:axes + 4] + header[axes + 5:]]
    for row in rows:
        fields = row.split(None, axes + 5)
        kept.append(fields[:axes + 4] + fields[axes + 5:])
    return first, kept


def csv_rows(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        r.pop("sim_seconds")
        r.pop("wall_seconds")
    return rows


def json_rows(text):
    j = json.loads(text)
    for r in j["rows"]:
        r.pop("wall_seconds")
        r.pop("sim_seconds", None)
    return j


def main():
    tessera, work, ranks = sys.argv[1], sys.argv[2], int(sys.argv[3])
    rest = sys.argv[4:]
    assert rest[0] == "--" and "--" in rest[1:], __doc__
    split = rest.index("--", 1)
    mpiexec, sweep = rest[1:split] + [str(ranks)], rest[split + 1:]
    os.makedirs(work, exist_ok=True)
    single_csv, mpi_csv = os.path.join(work, "single.csv"), os.path.join(work, "mpi.csv")

    single = run([tessera, "sweep"] + sweep + ["--csv", single_csv])
    single_json = run([tessera, "sweep"] + sweep + ["--json"])
    mpi = run(mpiexec + [tessera, "sweep"] + sweep + ["--csv", mpi_csv])
    mpi_json = run(mpiexec + [tessera, "sweep"] + sweep + ["--json"])
    for name, r in [("single", single), ("single --json", single_json), ("mpi", mpi), ("mpi --json", mpi_json)]:
        print(f"== {name}: exit {r[0]}\n{r[1]}{r[2]}")

    failures = []
    if not (single[0] == single_json[0] == mpi[0] == mpi_json[0]):
        print(f"FAILED: exit statuses differ: {single[0]} {single_json[0]} {mpi[0]} {mpi_json[0]}")
        return 1
    single_first, single_table = table_rows(single[1])
    mpi_first, mpi_table = table_rows(mpi[1])
    # Each rank ran its round-robin share (shardOf), no more: 6 combinations on 4 ranks are 2+2+1+1.
    rows = len(single_table) - 1
    shares = "+".join(str(rows // ranks + (1 if r < rows % ranks else 0)) for r in range(ranks))
    if f"{ranks} ranks ({shares})" not in mpi_first:
        failures.append(f"the MPI sweep did not run {shares} combinations on its {ranks} ranks: {mpi_first!r}")
    if "ranks" in single_first:
        failures.append(f"the single-process sweep says it ran on ranks: {single_first!r}")
    if single_table != mpi_table:
        failures.append("the tables differ")
    if len(single_table) < 3:
        failures.append("the table has fewer than two rows: nothing was split")
    if csv_rows(single_csv) != csv_rows(mpi_csv):
        failures.append("the CSV files differ")
    if json_rows(single_json[1]) != json_rows(mpi_json[1]):
        failures.append("the JSON objects differ")
    for f in failures:
        print("FAILED:", f)
    if failures:
        return 1
    print(f"the {ranks}-rank sweep gives the single-process sweep's table, CSV and JSON")
    return 0


if __name__ == "__main__":
    sys.exit(main())
