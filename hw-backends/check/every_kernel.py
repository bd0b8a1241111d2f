#!/usr/bin/env python3
"""Fails when `tessera list` has a library kernel the backend tests do not check.

  every_kernel.py TESSERA KERNEL...   (KERNEL...: the kernels tests/backends.cmake checks)
The deliberately broken examples (bug_*) are left out: they are not meant to run on a device.
"""
import json
import subprocess
import sys

listed = {k["name"] for k in json.loads(subprocess.run([sys.argv[1], "list", "--json"], check=True,
                                                       capture_output=True, text=True).stdout)}
library = {name for name in listed if not name.startswith("bug_")}
checked = set(sys.argv[2:])
missing = sorted(library - checked)
if missing:
    print(f"every_kernel: no backend test for {', '.join(missing)}: add it to tests/backends.cmake")
    sys.exit(1)
print(f"every_kernel: all {len(library)} library kernels have NKI and Pallas checks")
