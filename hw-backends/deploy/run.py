#!/usr/bin/env python3
"""Runs a kernel that `tessera deploy` bundled, and checks it against Tessera's simulation.

The bundle beside this file holds the kernel (the module tessera.json names), its inputs (inputs/*.npy), the
outputs Tessera's simulator computed from them (expected/*.npy) and the simulator's predicted time. This script
runs the kernel, compares every output with the simulator's (the same relative error and tolerance Tessera uses),
prints the measured time beside the predicted one, and writes both to a JSON record that `tessera calibrate`
reads to fit the target's cost model.

  python3 run.py                 on the device: a TPU host with jax[tpu], or a Trainium host with NKI
  python3 run.py --interpret     Pallas only, on any CPU: interpret mode with race detection (no timing)
  python3 run.py --export        Pallas only, on any CPU: lower for TPU (jax.export) and check for the Mosaic call
  python3 run.py --simulate      NKI only, on any CPU with NKI installed: nki.simulate (no timing)

Exit status: 0 when every output matches (and no race was found), 1 when one does not, 2 for bad usage.
"""
import argparse
import datetime
import importlib.util
import json
import os
import platform
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
NARROW_FLOATS = ("bfloat16", "float8_e4m3fn", "float8_e5m2")


def numpy_dtype(name):
    """The NumPy dtype of a Tessera dtype name (bfloat16 and fp8 from ml_dtypes)."""
    if name in NARROW_FLOATS:
        import ml_dtypes
        return np.dtype(getattr(ml_dtypes, name))
    return np.dtype(name)


def load_tensor(entry):
    """A tensor of the bundle: its .npy holds the dtype's bits (uint16 for bfloat16, uint8 for fp8)."""
    array = np.load(os.path.join(HERE, entry["file"]))
    return array.view(numpy_dtype(entry["dtype"])).reshape(entry["shape"])


def compare(name, out, expected, tolerance):
    """Tessera's comparison: max |out - expected| / max(|expected|, rms(expected)) within the tolerance."""
    out = np.asarray(out, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    if out.shape != expected.shape:
        return {"name": name, "ok": False, "error": f"shape {out.shape}, expected {expected.shape}"}
    diff = np.abs(out - expected)
    rms = float(np.sqrt(np.mean(expected * expected))) if expected.size else 0.0
    scale = np.maximum(np.abs(expected), rms)
    finite = bool(np.all(np.isfinite(diff)))
    max_abs = float(diff.max()) if diff.size else 0.0
    rel = diff / np.where(scale > 0, scale, 1.0)
    max_rel = float(rel.max()) if rel.size else 0.0
    ok = finite and max_rel <= tolerance
    return {"name": name, "max_abs_err": max_abs if finite else None, "max_rel_err": max_rel if finite else None,
            "tolerance": tolerance, "ok": ok}


def load_module(manifest):
    path = os.path.join(HERE, manifest["module"])
    spec = importlib.util.spec_from_file_location(os.path.splitext(manifest["module"])[0], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def timed(call, repeat):
    """Median wall time of `repeat` calls in microseconds, after one warm-up call; and the warm-up's result."""
    result = call()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        samples.append((time.perf_counter() - start) * 1e6)
    return result, statistics.median(samples)


def run_pallas(manifest, module, inputs, args, record):
    import jax
    kernel = getattr(module, manifest["function"])
    if args.export:
        shapes = [jax.ShapeDtypeStruct(a.shape, a.dtype) for a in inputs]
        exported = jax.export.export(jax.jit(kernel), platforms=["tpu"])(*shapes)
        text = exported.mlir_module()
        record["mode"] = "export"
        record["tpu_custom_call"] = "tpu_custom_call" in text
        record["ok"] = record["tpu_custom_call"]
        print(f"jax.export for TPU: {'a tpu_custom_call (Mosaic) in the StableHLO' if record['ok'] else 'NO tpu_custom_call'}")
        return None
    if args.interpret:
        from jax.experimental.pallas import tpu as pltpu
        record["mode"] = "interpret"
        params = pltpu.InterpretParams(detect_races=not args.no_races)
        outs = jax.block_until_ready(kernel(*inputs, interpret=params))
        if not args.no_races:
            try:
                from jax._src.pallas.mosaic.interpret import interpret_pallas_call as state
                record["races"] = bool(state.races.races_found)
            except (ImportError, AttributeError):
                record["races"] = None  # this jax keeps its race detector's result elsewhere
        return outs
    record["mode"] = "device"
    device = jax.devices()[0]
    record["device"] = getattr(device, "device_kind", str(device))
    if device.platform != "tpu":
        print(f"run.py: jax finds no TPU here (its device is {record['device']}): run this on a TPU host, or use "
              f"--interpret or --export on this machine", file=sys.stderr)
        sys.exit(2)
    jitted = jax.jit(kernel)
    on_device = [jax.device_put(a, device) for a in inputs]  # time the kernel, not the copies from the host
    outs, record["measured_us"] = timed(lambda: jax.block_until_ready(jitted(*on_device)), args.repeat)
    return outs


def run_nki(manifest, module, inputs, args, record):
    import nki
    record["nki"] = getattr(nki, "__version__", "unknown")
    print(f"  NKI {record['nki']} ({os.path.dirname(nki.__file__)})")
    kernel = getattr(module, manifest["function"])
    if args.simulate:
        record["mode"] = "simulate"
        return nki.simulate(kernel)(*inputs)
    record["mode"] = "device"
    record["device"] = os.environ.get("NEURON_PLATFORM_TARGET_OVERRIDE", "neuron")
    # NumPy inputs run the kernel standalone: each call's time includes moving the arrays to and from the device
    # (NKI 0.6 has no benchmark API), which the record notes so calibration can be read with that in mind.
    record["includes_host_transfers"] = True
    outs, record["measured_us"] = timed(lambda: kernel(*inputs), args.repeat)
    return outs


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--interpret", action="store_true", help="Pallas: run in interpret mode on the CPU")
    parser.add_argument("--no-races", action="store_true", help="with --interpret: skip race detection")
    parser.add_argument("--export", action="store_true", help="Pallas: lower for TPU and check the Mosaic call")
    parser.add_argument("--simulate", action="store_true", help="NKI: run nki.simulate on the CPU")
    parser.add_argument("--repeat", type=int, default=20, help="timed calls on the device (median; default 20)")
    parser.add_argument("--record", default=None, help="where to write the JSON record (default: record-MODE.json here)")
    args = parser.parse_args()
    with open(os.path.join(HERE, "tessera.json")) as f:
        manifest = json.load(f)
    backend = manifest["backend"]
    if (args.interpret or args.export) and backend != "pallas":
        parser.error("--interpret and --export are for Pallas bundles (TPU targets)")
    if args.simulate and backend != "nki":
        parser.error("--simulate is for NKI bundles (Trainium targets)")
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")

    inputs = [load_tensor(entry) for entry in manifest["inputs"]]
    record = {key: manifest[key] for key in ("kernel", "target", "backend", "shape", "kernel_params", "loop_buffers")}
    record.update(record_version=1, host=platform.node(), date=datetime.datetime.now().isoformat(timespec="seconds"),
                  predicted_us=manifest["predicted"]["time_us"], measured_us=None, races=None)
    module = load_module(manifest)
    outs = (run_pallas if backend == "pallas" else run_nki)(manifest, module, inputs, args, record)

    if outs is not None:
        outs = outs if isinstance(outs, (tuple, list)) else (outs,)
        checks = [compare(entry["name"], out, load_tensor(entry), entry["tolerance"])
                  for entry, out in zip(manifest["outputs"], outs)]
        if len(outs) != len(manifest["outputs"]):
            checks.append({"name": "(outputs)", "ok": False,
                           "error": f"{len(outs)} outputs, expected {len(manifest['outputs'])}"})
        record["outputs"] = checks
        record["ok"] = all(c["ok"] for c in checks) and record["races"] is not True
        for c in checks:
            detail = c.get("error") or f"max abs err {c['max_abs_err']}, max rel err {c['max_rel_err']} " \
                                       f"(tolerance {c['tolerance']})"
            print(f"  output {c['name']:<12} vs Tessera  {detail}  {'ok' if c['ok'] else 'MISMATCH'}")
        if record["races"] is not None:
            print(f"  races: {'FOUND (see the report above)' if record['races'] else 'none'}")
    print(f"  predicted {record['predicted_us']:.3f} us (Tessera, {manifest['target']})")
    if record["measured_us"] is not None:
        ratio = record["measured_us"] / record["predicted_us"] if record["predicted_us"] else float("nan")
        print(f"  measured  {record['measured_us']:.3f} us on {record['device']} (median of {args.repeat}), "
              f"{ratio:.2f}x the prediction")
    print(f"  verdict: {'ok' if record['ok'] else 'FAILED'}")
    path = args.record or os.path.join(HERE, f"record-{record['mode']}.json")
    with open(path, "w") as f:
        json.dump(record, f, indent=2)
        f.write("\n")
    return 0 if record["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
