#!/usr/bin/env python3
"""Times one `tessera deploy` Pallas bundle under JAX's Pallas interpret mode; prints one JSON object.

    python time_interpret.py BUNDLE_DIR [--races]

Run with the backend environment's python (scripts/backend-venv.sh). It loads the bundle the way its run.py does,
calls the kernel with interpret=pltpu.InterpretParams() (detect_races=True with --races) twice - the first call
traces and runs, the second only runs - and checks the outputs against the simulator's (run.py's comparison).
"""
import argparse
import importlib.util
import json
import os
import resource
import sys
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bundle")
    parser.add_argument("--races", action="store_true")
    args = parser.parse_args()
    spec = importlib.util.spec_from_file_location("bundle_run", os.path.join(args.bundle, "run.py"))
    run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run)
    with open(os.path.join(args.bundle, "tessera.json")) as f:
        manifest = json.load(f)
    import jax
    from jax.experimental.pallas import tpu as pltpu
    module = run.load_module(manifest)
    kernel = getattr(module, manifest["function"])
    inputs = [run.load_tensor(entry) for entry in manifest["inputs"]]
    params = pltpu.InterpretParams(detect_races=args.races)
    seconds = []
    for _ in range(2):
        start = time.perf_counter()
        outs = jax.block_until_ready(kernel(*inputs, interpret=params))
        seconds.append(time.perf_counter() - start)
    outs = outs if isinstance(outs, (tuple, list)) else (outs,)
    checks = [run.compare(e["name"], o, run.load_tensor(e), e["tolerance"]) for e, o in zip(manifest["outputs"], outs)]
    print(json.dumps({"first_call_s": seconds[0], "second_call_s": seconds[1],
                      "outputs_match": all(c["ok"] for c in checks),
                      "peak_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
