#!/usr/bin/env python3
"""`tessera sweep` under MPI when something is wrong: every rank exits with the status one process would, rank 0
alone prints the error (once), and no rank waits for ever on another. Cases: bad usage seen alike by every rank (an
unknown kernel, a plugin that does not exist) and a failure on rank 0 alone (a CSV file it cannot write).

usage: errors.py TESSERA WORK_DIR -- MPIEXEC ARGS... (ending with the flag before the rank count)
"""
import os
import subprocess
import sys

tessera, work = sys.argv[1], sys.argv[2]
assert sys.argv[3] == "--", __doc__
mpiexec = sys.argv[4:] + ["2"]
os.makedirs(work, exist_ok=True)
failures = []


def case(what, args, status, message):
    try:
        r = subprocess.run(mpiexec + [tessera, "sweep"] + args, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        failures.append(f"{what}: still running after 300 s (a rank waits on another)")
        return
    print(f"== {what}: exit {r.returncode}\n{r.stdout}{r.stderr}")
    if r.returncode != status:
        failures.append(f"{what}: exit {r.returncode}, expected {status}")
    count = r.stderr.count(message)
    if count != 1:
        failures.append(f"{what}: '{message}' printed {count} times, expected once")


# The failures every rank meets alike, three times each: when rank 0 printed after MPI had finished, mpiexec, told
# of another rank's status first, killed it before the message was out about one run in five.
missing = os.path.join(work, "libnowhere.so")
for attempt in range(3):
    case("unknown kernel", ["no_such_kernel", "--param", "bm=1,2"], 2, "unknown kernel 'no_such_kernel'")
    case("plugin that does not exist", ["add", "--shape", "M=128,256", "--plugin", missing], 2,
         missing + ": no such file")
unwritable = os.path.join(work, "no-such-folder", "rows.csv")
case("CSV rank 0 cannot write", ["add", "--shape", "M=128,256", "--csv", unwritable], 2, unwritable)
if failures:
    for f in failures:
        print("FAILED:", f)
    sys.exit(1)
print("every failure exits alike on every rank, reported once")
