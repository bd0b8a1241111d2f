"""The deploy runner's comparison (hw-backends/deploy/run.py: compare, relative_errors) against the simulator's
rule (tools/tessera/HostData.cpp compare): elements compare as IEEE values, so equal infinities agree and NaN agrees
with nothing; one infinity in the expected output does not hide an error elsewhere. Exits 1 naming the first rule
broken. Run with the backend venv's Python (NumPy)."""

import importlib.util
import os
import sys

import numpy as np

RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "deploy", "run.py")
spec = importlib.util.spec_from_file_location("run", RUNNER)
run = importlib.util.module_from_spec(spec)
spec.loader.exec_module(run)

inf, nan = float("inf"), float("nan")
CASES = [
    ("equal infinities agree", [inf, -inf, 1.0], [inf, -inf, 1.0], True),
    ("infinities of other signs disagree", [inf], [-inf], False),
    ("an infinity against a number disagrees", [inf], [1.0], False),
    ("a number against an infinity disagrees", [1.0], [inf], False),
    ("NaN agrees with nothing, not even NaN", [nan], [nan], False),
    ("an infinity does not hide an error elsewhere", [inf, 2.0, 1.0], [inf, 1.0, 1.0], False),
    ("values within tolerance agree", [1.0, 2.0], [1.0, 2.0 + 1e-7], True),
]

failed = 0
for rule, out, expected, ok in CASES:
    got = run.compare("c", np.array(out, dtype=np.float32), np.array(expected, dtype=np.float32), 1e-3)["ok"]
    if got != ok:
        print(f"run.py compare breaks the rule '{rule}': ok={got}, expected ok={ok}")
        failed += 1
print(f"{len(CASES)} rules checked, {failed} broken")
sys.exit(1 if failed else 0)
