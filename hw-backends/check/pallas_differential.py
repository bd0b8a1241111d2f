#!/usr/bin/env python3
"""Runs every Pallas bundle `tessera-difftest --pallas DIR` wrote under Pallas' TPU interpret mode, with its race
detector, and compares each output with the simulator's (tests/differential/README.md, docs/backends.md).

  pallas_differential.py DIR [--json] [--seeds A..B]

One Python process runs them all. DIR/difftest.json lists each seed's styles, with the bundle written or the
style's refusal (a refusal is not a mismatch; they are counted by reason). The comparison:
- bit-exact, when the module uses only exactly rounded operations (add, subtract, multiply, maximum, copies,
  constants, max reductions: IEEE results that any correct evaluation gives to the bit);
- within the output dtype's tolerance (Tessera's: max |out - expected| / max(|expected|, rms(expected)), four units
  of roundoff plus 1e-5) when it uses exp or another transcendental, a sum or product reduction, or dot_general,
  whose results depend on the library's approximation or the summation order.

Exit status: 0 every bundle agrees (and no race was found), 1 a mismatch, a race or a bundle that did not run
(each printed with its seed, style, output, max error and first bad index), 2 bad input (no DIR/difftest.json, a
bundle missing). `--json` prints the summary as one JSON object instead of text.
"""
import argparse
import importlib.util
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "..", "deploy", "run.py")  # the bundles' run.py: its loader, comparison, interpreter

# What makes a module's results depend on more than IEEE rounding: a transcendental (the library's approximation),
# a sum or product reduction or a matmul (the order of the additions).
INEXACT = ("jnp.exp(", "jnp.log(", "jnp.tanh(", "jax.lax.erf(", "jax.lax.rsqrt(", "jnp.sqrt(", "jnp.power(",
           "jnp.sum(", "jnp.prod(", "dot_general(")


# The most elements of an output that may be bf16 rounding-boundary flips (compare_within).
MAX_FLIP_SHARE = 1e-3


class BadInput(Exception):
    pass


def load_runner():
    spec = importlib.util.spec_from_file_location("tessera_deploy_run", RUNNER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def inexact_ops(source):
    """The operations of `source` that make its results depend on more than IEEE rounding."""
    return [op.rstrip("(") for op in INEXACT if op in source]


def first_index(mask):
    """The first True element's index, as a tuple, or None."""
    flat = np.flatnonzero(mask)
    return tuple(int(i) for i in np.unravel_index(flat[0], mask.shape)) if flat.size else None


def compare_exact(name, out, expected):
    """Bit-exact: the same dtype and shape, and the same bits in every element."""
    if out.shape != expected.shape or out.dtype != expected.dtype:
        return {"name": name, "ok": False, "rule": "bit-exact",
                "error": f"{out.dtype}{list(out.shape)}, expected {expected.dtype}{list(expected.shape)}"}
    bits = np.dtype(f"u{expected.dtype.itemsize}")
    differ = out.view(bits) != expected.view(bits)
    diff = np.abs(out.astype(np.float64) - expected.astype(np.float64))
    return {"name": name, "ok": not bool(differ.any()), "rule": "bit-exact", "elements_differing": int(differ.sum()),
            "max_abs_err": float(np.nanmax(np.where(differ, diff, 0))) if differ.any() else 0.0,
            "first_bad_index": first_index(differ)}


def bf16_ulp(values):
    """One bf16 unit in the last place at each of `values` (8 significant bits)."""
    magnitude = np.where(values > 0, values, 1.0)
    return 2.0 ** (np.floor(np.log2(magnitude)) - 7)


def compare_within(runner, name, out, expected, tolerance, rounds_to_bf16):
    """Within the dtype's tolerance: run.py's comparison (Tessera's own), and the first element beyond it.

    One allowance: a bf16 rounding-boundary flip. A module that rounds an intermediate to bf16 (a copy<bf16> of a
    matmul or an exp) rounds a value that sits on a bf16 rounding boundary either way when the FP32 value before the
    rounding differs in its last bits (another summation order, another exp approximation). The flip is one bf16 ulp
    of that value, which an FP32 output then carries: far beyond FP32's tolerance, but not a wrong module. So an
    element beyond the tolerance passes when it is within one bf16 ulp of the simulator's value, the module rounds to
    bf16, and such elements are rare (at most MAX_FLIP_SHARE of the output, at least one): seeds 1..600 on tpu-v5e
    have 1 to 7 of 4096 to 65536 elements so. They are counted ("boundary_flips")."""
    check = dict(runner.compare(name, out, expected, tolerance), rule="tolerance", boundary_flips=0)
    if out.shape != expected.shape:
        return check
    if out.dtype == expected.dtype:
        bits = np.dtype(f"u{expected.dtype.itemsize}")
        check["bitwise_equal"] = bool(np.array_equal(out.view(bits), expected.view(bits)))
    o, e = out.astype(np.float64), expected.astype(np.float64)
    error, relative = runner.relative_errors(o, e)
    beyond = ~(relative <= tolerance)
    check["first_bad_index"] = first_index(beyond)
    if check["ok"] or not rounds_to_bf16 or not np.all(np.isfinite(o)):
        return check
    flips = int(beyond.sum())
    within_ulp = bool(np.all(error[beyond] <= bf16_ulp(np.maximum(np.abs(e), np.abs(o))[beyond])))
    if within_ulp and flips <= max(1, int(MAX_FLIP_SHARE * e.size)):
        check.update(ok=True, boundary_flips=flips, first_bad_index=None)
    return check


def module_source(directory):
    """A bundle's manifest and the source of its module."""
    with open(os.path.join(directory, "tessera.json")) as f:
        manifest = json.load(f)
    with open(os.path.join(directory, manifest["module"])) as f:
        return manifest, f.read()


def same_module_key(source):
    """The module without the docstring's line of the command that wrote it (tessera-difftest's, which names the
    style): the auto style writes the grid or the manual style's module, and a module run once need not run again
    on the same inputs."""
    return "\n".join(line for line in source.splitlines() if not line.lstrip().startswith("tessera-difftest "))


def check_bundle(runner, directory, manifest, source):
    """Runs one bundle in interpret mode; its outputs' checks, whether a race was found, and the rule used."""
    path = os.path.join(directory, manifest["module"])
    module = load_module(path, f"tessera_difftest_{os.path.basename(directory).replace('-', '_')}")
    kernel = getattr(module, manifest["function"])
    inputs = [runner.load_tensor(entry, directory) for entry in manifest["inputs"]]
    outs, races = runner.interpret(kernel, inputs, detect_races=True)
    outs = outs if isinstance(outs, (tuple, list)) else (outs,)
    inexact = inexact_ops(source)
    rounds_to_bf16 = "astype(jnp.bfloat16)" in source
    checks = []
    for entry, out in zip(manifest["outputs"], outs):
        expected = runner.load_tensor(entry, directory)
        out = np.asarray(out)
        checks.append(compare_within(runner, entry["name"], out, expected, entry["tolerance"], rounds_to_bf16) if inexact
                      else compare_exact(entry["name"], out, expected))
    if len(outs) != len(manifest["outputs"]):
        checks.append({"name": "(outputs)", "ok": False,
                       "error": f"{len(outs)} outputs, expected {len(manifest['outputs'])}"})
    return checks, races, inexact


def reset_interpreter(pltpu):
    """Clears interpret mode's state (its race detector's result included) after a kernel that raised."""
    if hasattr(pltpu, "reset_tpu_interpret_mode_state"):
        pltpu.reset_tpu_interpret_mode_state()


def parse_seeds(text):
    first, _, last = text.partition("..")
    try:
        first, last = int(first), int(last or first)
    except ValueError:
        raise BadInput(f"--seeds {text}: expected A..B (numbers)")
    return first, last


def run(directory, seeds=None):
    listing = os.path.join(directory, "difftest.json")
    if not os.path.isfile(listing):
        raise BadInput(f"{listing} is missing: write the bundles first with "
                       f"`tessera-difftest --seeds A..B --target tpu-v5e --pallas {directory}`")
    with open(listing) as f:
        batch = json.load(f)
    runner = load_runner()
    runner.prepare_tpu_compiler()  # JAX_PLATFORMS=cpu, before jax loads
    runner.exact_cpu_arithmetic()  # every operation rounded as written: no FMA contraction, no excess precision
    from jax.experimental.pallas import tpu as pltpu
    summary = {"dir": directory, "target": batch.get("target"), "kernels": 0, "bundles": 0, "bit_exact": 0,
               "within_tolerance": 0, "within_tolerance_bitwise_equal": 0, "boundary_flips": 0,
               "reused": 0, "mismatches": [], "refusals": {}, "failures": []}
    for seed in batch["seeds"]:
        if seeds and not seeds[0] <= seed["seed"] <= seeds[1]:
            continue
        summary["kernels"] += 1
        if seed.get("failure"):
            summary["failures"].append({"seed": seed["seed"], "error": seed["failure"]})
        results = {}  # this seed's modules already run: same_module_key -> (checks, races, inexact)
        for style in seed["styles"]:
            if not style["bundle"]:
                by_style = summary["refusals"].setdefault(style["style"], {})
                by_style[style["refusal_kind"]] = by_style.get(style["refusal_kind"], 0) + 1
                continue
            bundle = os.path.join(directory, style["bundle"])
            if not os.path.isfile(os.path.join(bundle, "tessera.json")):
                raise BadInput(f"{bundle}: the bundle difftest.json lists is missing; write the bundles again")
            summary["bundles"] += 1
            where = {"seed": seed["seed"], "style": style["style"], "bundle": style["bundle"]}
            manifest, source = module_source(bundle)
            key = same_module_key(source)
            try:
                if key in results:
                    summary["reused"] += 1
                else:
                    results[key] = check_bundle(runner, bundle, manifest, source)
                checks, races, inexact = results[key]
            except Exception as e:  # the interpreter or the race detector raised: a finding, not bad input
                reset_interpreter(pltpu)
                lines = [l.strip() for l in str(e).splitlines() if l.strip()]
                summary["mismatches"].append(dict(where, output=None,
                                                  error=f"{type(e).__name__}: {lines[0] if lines else ''}"[:400]))
                continue
            bad = [c for c in checks if not c["ok"]]
            for c in bad:
                summary["mismatches"].append(dict(where, output=c["name"], rule=c.get("rule"), error=c.get("error"),
                                                  max_abs_err=c.get("max_abs_err"),
                                                  max_rel_err=c.get("max_rel_err"),
                                                  first_bad_index=c.get("first_bad_index")))
            if races:
                summary["mismatches"].append(dict(where, output=None, error="interpret mode's race detector found a race"))
                reset_interpreter(pltpu)
            if not bad and not races:
                summary["within_tolerance" if inexact else "bit_exact"] += 1
                if inexact and all(c.get("bitwise_equal") for c in checks):
                    summary["within_tolerance_bitwise_equal"] += 1
                flips = sum(c.get("boundary_flips", 0) for c in checks)
                if flips:
                    summary["boundary_flips"] += flips
                    summary.setdefault("flipped", []).append(dict(where, elements=flips))
    return summary


def print_text(summary):
    for m in summary["mismatches"]:
        detail = m.get("error") or (f"max abs err {m['max_abs_err']}, max rel err {m.get('max_rel_err')}, first bad "
                                    f"index {m['first_bad_index']} ({m['rule']})")
        print(f"MISMATCH seed {m['seed']} style {m['style']} output {m['output']}: {detail}"
              f"  [{m['bundle']}; tessera-difftest --show {m['seed']} --target {summary['target']}]")
    for f in summary["failures"]:
        print(f"FAILED seed {f['seed']} (no bundles): {f['error']}")
    for style, kinds in sorted(summary["refusals"].items()):
        for kind, n in sorted(kinds.items(), key=lambda kv: -kv[1]):
            print(f"refused by {style} ({n}x): {kind}")
    refused = sum(n for kinds in summary["refusals"].values() for n in kinds.values())
    print(f"{summary['kernels']} kernels, {summary['bundles']} Pallas bundles checked in interpret mode (race detection "
          f"on; {summary['reused']} the same module as another style's, run once): {summary['bit_exact']} bit-exact, "
          f"{summary['within_tolerance']} within tolerance ({summary['within_tolerance_bitwise_equal']} of them "
          f"bit-exact too; {len(summary.get('flipped', []))} with bf16 rounding-boundary flips, "
          f"{summary['boundary_flips']} elements), "
          f"{len(summary['mismatches'])} mismatches; {refused} refused; {len(summary['failures'])} seeds failed")


def exit_status(summary):
    """0 every bundle agreed, 1 a mismatch, a race, a bundle that did not run or a seed that failed."""
    return 1 if summary["mismatches"] or summary["failures"] else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("dir", help="the folder tessera-difftest --pallas wrote")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument("--seeds", default=None, help="only seeds A..B of the folder")
    args = parser.parse_args()
    try:
        summary = run(os.path.abspath(args.dir), parse_seeds(args.seeds) if args.seeds else None)
    except BadInput as e:
        print(f"pallas_differential.py: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print_text(summary)
    return exit_status(summary)


if __name__ == "__main__":
    sys.exit(main())
