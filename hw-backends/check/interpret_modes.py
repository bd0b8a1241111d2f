#!/usr/bin/env python3
"""Runs a deploy bundle's Pallas kernel under interpret mode with the race detector, in both of its DMA execution
modes, and prints what each one found: whether a race was reported, and whether the outputs match the simulator's.

  interpret_modes.py BUNDLE_DIR

One JSON line per mode: {"dma_execution_mode": "on_wait"|"eager", "races_found": bool, "outputs_match": bool,
"semaphore_left_signalled": bool (interpret mode printed "Semaphore ... has non-zero count ... at kernel exit"),
"error": str|null}. A race the detector raises (on_race="raise", its default) counts as races_found. What this shows for a kernel with a deleted `.wait()` is in docs/backends.md ("What interpret
mode detects"); deleted_wait.sh asserts it.
"""
import contextlib
import importlib.util
import io
import json
import os
import sys


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    if len(sys.argv) != 2:
        print("usage: interpret_modes.py BUNDLE_DIR", file=sys.stderr)
        return 2
    bundle = os.path.abspath(sys.argv[1])
    runner = load(os.path.join(bundle, "run.py"), "tessera_bundle_run")
    runner.prepare_tpu_compiler()
    with open(os.path.join(bundle, "tessera.json")) as f:
        manifest = json.load(f)
    module = load(os.path.join(bundle, manifest["module"]), "tessera_bundle_kernel")
    import jax
    from jax.experimental.pallas import tpu as pltpu
    from jax._src.pallas.mosaic.interpret import interpret_pallas_call as state
    kernel = getattr(module, manifest["function"])
    inputs = [runner.load_tensor(entry) for entry in manifest["inputs"]]
    for mode in ("on_wait", "eager"):
        print(f"# dma_execution_mode={mode}:", flush=True)
        result = {"dma_execution_mode": mode, "races_found": False, "outputs_match": False,
                  "semaphore_left_signalled": False, "error": None}
        printed = io.StringIO()
        try:
            params = pltpu.InterpretParams(detect_races=True, dma_execution_mode=mode)
            with contextlib.redirect_stdout(printed):
                outs = jax.block_until_ready(kernel(*inputs, interpret=params))
            outs = outs if isinstance(outs, (tuple, list)) else (outs,)
            checks = [runner.compare(e["name"], o, runner.load_tensor(e), e["tolerance"])
                      for e, o in zip(manifest["outputs"], outs)]
            result["outputs_match"] = all(c["ok"] for c in checks)
            result["races_found"] = bool(state.races.races_found)
        except Exception as e:  # the race detector raises; any other interpreter error is a finding too
            text = str(e)
            result["races_found"] = "RACE DETECTED" in text
            lines = [l.strip() for l in text.splitlines() if l.strip()]
            if result["races_found"]:  # the detector's report: the later access names the module's line
                detail = "RACE DETECTED: " + next((l for l in reversed(lines) if l.startswith(("read of", "write of"))), "")
            else:
                detail = lines[0] if lines else ""
            result["error"] = f"{type(e).__name__}: {detail}"[:400]
            if hasattr(pltpu, "reset_tpu_interpret_mode_state"):
                pltpu.reset_tpu_interpret_mode_state()
        result["semaphore_left_signalled"] = "non-zero count" in printed.getvalue()
        sys.stdout.write(printed.getvalue())
        print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
