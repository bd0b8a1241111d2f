#!/usr/bin/env python3
"""Compiles a Pallas module that `tessera compile ... --emit pallas` wrote with the real TPU compiler, deviceless.

  compile_tpu.py MODULE.py [--topology v5e=1x1] [--measure-vmem] [--json FILE]

The module's KERNEL names its function and INPUTS its inputs' shapes and dtypes; TOPOLOGY (from the target file's
[libtpu] table) is the default topology. Needs jax[tpu] (libtpu): the backend environment, scripts/backend-venv.sh.
The same code as a deploy bundle's `run.py --compile` (hw-backends/deploy/run.py). A Mosaic or VMEM error is
printed at the kernel's source line where one can be found (`conv2d.cpp:77: error: ...`).
Exit status: 0 when it compiles, 1 when it does not, 2 for bad usage.
"""
import argparse
import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("module", help="the .py file tessera compile --emit pallas wrote")
    parser.add_argument("--topology", help="libtpu topology: v4=1x1x1, v5e=1x1, v5p=1x1x1, v6e=1x1, tpu7x=1x1x1 "
                                           "(default: the module's TOPOLOGY)")
    parser.add_argument("--measure-vmem", action="store_true",
                        help="compile again to learn how much VMEM Mosaic allocates")
    parser.add_argument("--json", help="write the result here as JSON")
    args = parser.parse_args()
    if not os.path.isfile(args.module):
        parser.error(f"no file {args.module}")
    runner = load(os.path.join(HERE, "..", "deploy", "run.py"), "tessera_run")
    runner.prepare_tpu_compiler()  # before the module imports jax
    module = load(args.module, "tessera_pallas_module")
    for name in ("KERNEL", "INPUTS"):
        if not hasattr(module, name):
            parser.error(f"{args.module} has no {name}: is it a module tessera compile --emit pallas wrote?")
    topology = args.topology or getattr(module, "TOPOLOGY", None)
    if not topology:
        parser.error(f"{args.module} names no TOPOLOGY (its target file has no [libtpu] table): pass --topology")
    function = getattr(module, module.KERNEL, None)
    if not callable(function):
        parser.error(f"{args.module} has no function {module.KERNEL}")
    specs = [(shape, dtype) for _, shape, dtype in module.INPUTS]
    result = runner.compile_for_tpu(os.path.abspath(args.module), function, specs, topology)
    print(f"{module.KERNEL} ({os.path.basename(args.module)}):")
    runner.report_compile(result, args.module)
    if args.measure_vmem and result["ok"]:
        result["mosaic_vmem_bytes"] = runner.measure_mosaic_vmem(os.path.abspath(args.module), function, specs, topology)
        need = result["mosaic_vmem_bytes"]
        print(f"  VMEM: Mosaic allocates {need / 2**20:.2f} MiB" if need is not None
              else "  VMEM: libtpu did not say how much Mosaic allocates")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)
            f.write("\n")
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
