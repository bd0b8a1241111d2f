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
  python3 run.py --compile [--topology v5e=1x1] [--measure-vmem]
                                 Pallas only, on any CPU with jax[tpu] (libtpu): compile with the real Mosaic and
                                 XLA:TPU, deviceless, for the bundle's generation (or TOPOLOGY); a Mosaic or VMEM
                                 error is reported at the kernel's source line where one can be found
  python3 run.py --estimate [--topology v5e=1x1]
                                 as --compile, and print libtpu's static estimate of the kernel's cycles beside
                                 Tessera's prediction (the compiler's cost model, not a measurement; not on v4)
  python3 run.py --simulate      NKI only, on any CPU with NKI installed: nki.simulate (no timing)
  python3 run.py --dry-run       NKI only, on any machine: the environment (platform target, LNC=1, NEFF folder)
                                 and the commands a device run would use, without running anything

On a Trainium host the runner sets NEURON_PLATFORM_TARGET_OVERRIDE and NEURON_LOGICAL_NC_CONFIG=1 from the bundle
(the kernel runs on one NeuronCore; trn2/trn3 hosts default to LNC=2), runs the kernel, and times its NEFF on the
device with nrtpy (--nrtpy-python) or neuron-explorer (aws-neuronx-tools). Without either, the record holds the
host's wall clock, says so ("measured_by": "host_wall_clock") and `tessera calibrate` refuses it; so does a TPU
run's, whose time is the host's clock around the jitted call.

Exit status: 0 when every output matches (and no race was found) or the kernel compiles, 1 when one does not (or
the --timer asked for gave no device time), 2 for bad usage.
"""
import argparse
import contextlib
import datetime
import glob
import importlib.util
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
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


def load_tensor(entry, bundle=HERE):
    """A tensor of the bundle (this one, or the one in folder `bundle`): its .npy holds the dtype's bits (uint16 for
    bfloat16, uint8 for fp8)."""
    array = np.load(os.path.join(bundle, entry["file"]))
    return array.view(numpy_dtype(entry["dtype"])).reshape(entry["shape"])


def relative_errors(out, expected):
    """Per element: |out - expected|, and that over max(|expected|, rms(expected)), Tessera's relative error (not
    blown up near zero). Both arrays of one shape, as float64. Elements compare as IEEE values, as the simulator's
    check does: equal infinities agree (error 0), NaN agrees with nothing (error NaN); the rms is over the finite
    expected values, so one infinity does not hide an error elsewhere."""
    out = np.asarray(out, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        diff = np.where(out == expected, 0.0, np.abs(out - expected))
    finite = expected[np.isfinite(expected)]
    rms = float(np.sqrt(np.mean(finite * finite))) if finite.size else 0.0
    scale = np.maximum(np.abs(expected), rms)
    return diff, diff / np.where(scale > 0, scale, 1.0)


def compare(name, out, expected, tolerance):
    """Tessera's comparison: max |out - expected| / max(|expected|, rms(expected)) within the tolerance."""
    if np.shape(out) != np.shape(expected):
        return {"name": name, "ok": False, "error": f"shape {np.shape(out)}, expected {np.shape(expected)}"}
    diff, rel = relative_errors(out, expected)
    finite = bool(np.all(np.isfinite(diff)))
    max_abs = float(diff.max()) if diff.size else 0.0
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


def launched_kernel(module, manifest):
    """The kernel as the simulator launched it: kernel[LAUNCH_GRID] for an SPMD launch over a logical NeuronCore's
    cores (the module defines LAUNCH_GRID, and tessera.json's logical_nc_config matches it), else kernel."""
    kernel = getattr(module, manifest["function"])
    grid = getattr(module, "LAUNCH_GRID", None)
    return kernel[grid] if grid else kernel


def timed(call, repeat):
    """Median wall time of `repeat` calls in microseconds, after one warm-up call; and the warm-up's result."""
    result = call()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        samples.append((time.perf_counter() - start) * 1e6)
    return result, statistics.median(samples)


def bundle_topology(manifest, module, args):
    """--topology, else the bundle's generation (tessera.json "tpu", from the target file's [libtpu] table)."""
    topology = args.topology or (manifest.get("tpu") or {}).get("topology") or getattr(module, "TOPOLOGY", None)
    if not topology:
        print(f"run.py: target {manifest['target']} names no libtpu topology (its file has no [libtpu] table): "
              f"pass --topology (v4=1x1x1, v5e=1x1, v5p=1x1x1, v6e=1x1, tpu7x=1x1x1)", file=sys.stderr)
        sys.exit(2)
    return topology


def compile_pallas(manifest, module, args, record):
    """--compile and --estimate: the real TPU compiler, deviceless."""
    topology = bundle_topology(manifest, module, args)
    kernel = getattr(module, manifest["function"])
    specs = [(entry["shape"], entry["dtype"]) for entry in manifest["inputs"]]
    path = os.path.join(HERE, manifest["module"])
    record["mode"] = "estimate" if args.estimate else "compile"
    result = compile_for_tpu(path, kernel, specs, topology)
    report_compile(result, path)
    tpu = manifest.get("tpu") or {}
    record["compile"] = result
    record["ok"] = result["ok"]
    if args.estimate and result["ok"]:
        profile = read_static_profile(args.profile_dir)
        if not profile:
            print(f"  libtpu wrote no static profile into {args.profile_dir}")
            record["ok"] = False
            return None
        clock = tpu.get("clock_ghz")
        estimate_us = profile["estimated_cycles"] / (clock * 1e3) if clock else None
        record["estimate"] = dict(profile, clock_ghz=clock, estimated_us=estimate_us)
        predicted = manifest["predicted"]
        print(f"  libtpu static estimate  {profile['estimated_cycles']} cycles"
              + (f" = {estimate_us:.3f} us at {clock} GHz (the clock of target {manifest['target']})" if clock else "")
              + "  [XLA:TPU's cost model, not a measurement]")
        print(f"  Tessera prediction      {predicted['cycles']:.0f} cycles = {predicted['time_us']:.3f} us"
              + (f"; libtpu / Tessera = {estimate_us / predicted['time_us']:.2f}" if estimate_us and predicted['time_us'] else ""))
    # After the estimate: this compile must not add to the static profile read above.
    if args.measure_vmem and result["ok"]:
        result["mosaic_vmem_bytes"] = measure_mosaic_vmem(path, kernel, specs, topology)
        need = result["mosaic_vmem_bytes"]
        peak = tpu.get("vmem_peak_bytes")
        buffers = getattr(module, "VMEM_BUFFER_BYTES", None)
        result["vmem_buffer_bytes"] = buffers
        print(f"  VMEM: Mosaic allocates {need / 2**20:.2f} MiB" if need is not None else
              "  VMEM: libtpu did not say how much Mosaic allocates", end="")
        print(f"; the module's buffers {buffers / 2**20:.2f} MiB" if buffers is not None else "", end="")
        print(f"; Tessera's simulated peak {peak / 2**20:.2f} MiB" if peak and peak >= 0 else "", end="")
        print(f" (libtpu's default limit {tpu['scoped_vmem_default_bytes'] / 2**20:.0f} MiB)"
              if tpu.get("scoped_vmem_default_bytes") else "")
    return None


# XLA's CPU backend, which runs interpret mode, contracts a multiply and an add into one fused multiply-add where the
# CPU has FMA (AVX2 and later), and may skip a value's rounding to bf16 and back (excess precision): outputs would
# then hang on the host's ISA and differ from the kernel's own arithmetic, each operation rounded, which the
# simulator computes. These flags keep every rounding (docs/backends.md, "Pallas, checked by difference").
EXACT_CPU_FLAGS = ("--xla_cpu_max_isa=AVX", "--xla_allow_excess_precision=false")


def exact_cpu_arithmetic():
    """Sets XLA_FLAGS so that interpret mode rounds each operation as written (EXACT_CPU_FLAGS), before jax starts;
    a flag the user set already is kept."""
    flags = os.environ.get("XLA_FLAGS", "")
    missing = [flag for flag in EXACT_CPU_FLAGS if flag.split("=")[0] not in flags]
    if not missing:
        return  # set already (a second run in one process)
    if "jax" in sys.modules:
        raise RuntimeError("run.py: internal error: jax was imported before XLA_FLAGS were set")
    os.environ["XLA_FLAGS"] = " ".join([flags] + missing).strip()


def interpret(kernel, inputs, detect_races=True):
    """Runs a Pallas kernel in TPU interpret mode on the CPU: its outputs, and whether the race detector found a race
    (None when it was off, or this jax keeps its result elsewhere)."""
    import jax
    from jax.experimental.pallas import tpu as pltpu
    outs = jax.block_until_ready(kernel(*inputs, interpret=pltpu.InterpretParams(detect_races=detect_races)))
    if not detect_races:
        return outs, None
    try:
        from jax._src.pallas.mosaic.interpret import interpret_pallas_call as state
        return outs, bool(state.races.races_found)
    except (ImportError, AttributeError):
        return outs, None


def run_pallas(manifest, module, inputs, args, record):
    import jax
    kernel = getattr(module, manifest["function"])
    if args.compile or args.estimate:
        return compile_pallas(manifest, module, args, record)
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
        record["mode"] = "interpret"
        outs, record["races"] = interpret(kernel, inputs, detect_races=not args.no_races)
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
    # The host's clock around a jitted call on device-resident arrays: the dispatch is in it, and no device-side
    # timer is used yet on TPU. Marked as such, so `tessera calibrate` does not fit it.
    record.update(measured_by="host_wall_clock", includes_host_transfers=False,
                  timer="time.perf_counter around jax.block_until_ready(jitted(*device_arrays))",
                  timing_note="NOT a device time: the TPU runner has no device-side timer yet")
    loud_warning(["NO DEVICE TIME. measured_us is the HOST'S WALL CLOCK around a jitted call (inputs already on the",
                  "TPU; the dispatch is in it). The record says measured_by \"host_wall_clock\", and",
                  "`tessera calibrate` will not fit it: the TPU runner has no device-side timer yet."])
    return outs


# --- the real TPU compiler, deviceless ---------------------------------------------------------------------------
# jax.experimental.topologies gives a TPU device without a TPU when libtpu (jax[tpu]) is installed; lowering and
# compiling for it runs Mosaic and XLA:TPU for real. Topology names: v4=1x1x1, v5e=1x1, v5p=1x1x1, v6e=1x1,
# tpu7x=1x1x1 (the target files' [libtpu] topology).

ESTIMATE_CHILD = "TESSERA_RUN_ESTIMATE_CHILD"


def estimate_in_child():
    """--estimate runs in a child process: libtpu's static profiler aborts the whole process on some kernels
    (libtpu 0.0.50.1: "Static LLO profiling of ... failed: INTERNAL: No DMA issue node found for sync flag" on a
    manual-style kernel's DMAs in a pl.loop). The child's exit status when it ends, else libtpu's reason."""
    env = dict(os.environ, **{ESTIMATE_CHILD: "1"})
    with tempfile.TemporaryFile(mode="w+") as errors:
        done = subprocess.run([sys.executable, os.path.abspath(__file__)] + sys.argv[1:], env=env, stderr=errors)
        errors.seek(0)
        text = errors.read()
    if done.returncode >= 0:
        sys.stderr.write(text)
        return done.returncode
    reason = re.search(r"Static LLO profiling of \S+ failed: ([^\n]*)", text)
    lines = [l for l in text.splitlines() if l.strip()]
    return reason.group(1) if reason else f"signal {-done.returncode}" + (f": {lines[-1]}" if lines else "")


def prepare_tpu_compiler(profile_dir=None):
    """Sets the environment before jax loads libtpu: JAX_PLATFORMS=cpu (no TPU runtime to find), and for
    --estimate the static profile flag (LIBTPU_INIT_ARGS is read once, when libtpu starts)."""
    if "jax" in sys.modules and profile_dir:
        raise RuntimeError("run.py: internal error: jax was imported before the static profile flag was set")
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    os.environ.setdefault("TPU_SKIP_MDS_QUERY", "1")  # no cloud metadata server to ask here
    # libtpu takes /tmp/libtpu_lockfile so that one process owns the TPU; compiling deviceless owns none, and a
    # second process (ctest -j2) would fail with "Internal error when accessing libtpu multi-process lockfile".
    os.environ.setdefault("ALLOW_MULTIPLE_LIBTPU_LOAD", "1")
    if profile_dir:
        flags = os.environ.get("LIBTPU_INIT_ARGS", "")
        os.environ["LIBTPU_INIT_ARGS"] = f"{flags} --xla_jf_dump_static_llo_profile_to={profile_dir}".strip()


@contextlib.contextmanager
def quiet_fd2(kept):
    """libtpu prints start-up warnings about the TPU host it is not on (its C++ code writes to file descriptor 2):
    hold them back; `kept` gets them, to print if the start fails."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as held:
        os.dup2(held.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            held.seek(0)
            kept.append(held.read().decode(errors="replace"))


def tpu_device(topology):
    """The first device of a deviceless TPU topology ("v5e=1x1")."""
    import jax.experimental.topologies as topologies
    held = []
    try:
        with quiet_fd2(held):
            return topologies.get_topology_desc(topology, platform="tpu").devices[0]
    except Exception as e:
        sys.stderr.write("".join(held))
        raise RuntimeError(f"libtpu cannot make topology '{topology}' ({e}); is jax[tpu] (libtpu) installed? "
                           f"Topologies: v4=1x1x1, v5e=1x1, v5p=1x1x1, v6e=1x1, tpu7x=1x1x1") from e


def versions():
    from importlib.metadata import version, PackageNotFoundError
    found = {}
    for package in ("jax", "jaxlib", "libtpu"):
        try:
            found[package] = version(package)
        except PackageNotFoundError:
            found[package] = None
    return found


class MosaicCapture:
    """Keeps the text of each Mosaic module JAX hands to libtpu, with its debug locations (the emitted module's
    file:line of each operation), so that an error Mosaic reports on an operation can be traced back. It wraps a
    private function of the pinned jax (jax._src.tpu_custom_call); with another jax it may capture nothing, and
    errors are then reported without a line."""

    def __init__(self):
        self.modules = []
        self._original = None

    def __enter__(self):
        try:
            from jax._src import tpu_custom_call
            original = tpu_custom_call._lower_mosaic_module_to_asm
        except (ImportError, AttributeError):
            return self
        modules = self.modules

        def capture(module, **kwargs):
            try:
                modules.append(module.operation.get_asm(enable_debug_info=True))
            except Exception:  # keep compiling: the text is only for error messages
                pass
            return original(module, **kwargs)

        self._original = (tpu_custom_call, original)
        tpu_custom_call._lower_mosaic_module_to_asm = capture
        return self

    def __exit__(self, *exc):
        if self._original:
            module, original = self._original
            module._lower_mosaic_module_to_asm = original
        return False


def resolve_location(asm, loc_id, path, seen=None):
    """The line of `path` that Mosaic location alias #loc<loc_id> leads to, or None."""
    seen = seen if seen is not None else set()
    if loc_id in seen:
        return None
    seen.add(loc_id)
    match = re.search(rf"^#loc{loc_id} = (.*)$", asm, re.M)
    if not match:
        return None
    body = match.group(1)
    name = re.escape(os.path.basename(path))
    direct = re.search(rf'"[^"]*{name}":(\d+):', body)
    if direct:
        return int(direct.group(1))
    for inner in re.findall(r"#loc(\d+)", body):
        line = resolve_location(asm, inner, path, seen)
        if line:
            return line
    return None


def mosaic_operation_lines(error_text, modules, path):
    """The lines of the emitted module holding the operation Mosaic's error names ("The MLIR operation involved:
    %187 = "tpu.memref_slice"(%arg12, ...) : (memref<2x128x580xbf16, ...>, ...) -> memref<1x128x32xbf16, ...>"):
    the operations of the captured module with the same name, the same kernel argument and the same result
    shape, in program order. Mosaic's numbering (%187) is its own, after its passes: the match is by form."""
    op = re.search(r'The MLIR operation involved:\s*\n\s*(?:%\S+ = )?"([\w.]+)"\(([^)]*)\)[^\n]*?'
                   r'(?:->\s*\(?(\w+<[0-9x]+\w+))?', error_text)
    if not op:
        return []
    name, operands, result = op.group(1), op.group(2), op.group(3)
    argument = re.match(r"\s*(%arg\d+)\b", operands)
    lines = []
    for asm in modules:
        for text in asm.splitlines():
            if f" {name} " not in text and f'"{name}"' not in text:
                continue
            if argument and not re.search(rf"{re.escape(argument.group(1))}\b", text):
                continue
            if result and f"-> {result}" not in text and f"-> {result.split('<')[0]}<{result.split('<')[1]}" not in text:
                continue
            loc = re.search(r"loc\(#loc(\d+)\)\s*$", text)
            line = resolve_location(asm, loc.group(1), path) if loc else None
            if line and line not in lines:
                lines.append(line)
    return lines


KERNEL_LINE = re.compile(r"#.*?(?:\(|\s)([\w.+-]+\.(?:cpp|cc|cxx|h|hpp)):(\d+)\)?")


def kernel_line_of(path, line):
    """The kernel source line (file.cpp:NN) the emitted module's `line` belongs to: the nearest comment above it
    that names one ("# matmul.cpp:63", "# grid step 2 (matmul.cpp:60)")."""
    with open(path) as f:
        text = f.read().splitlines()
    for number in range(min(line, len(text)), 0, -1):
        found = KERNEL_LINE.search(text[number - 1])
        if found:
            return f"{found.group(1)}:{found.group(2)}"
    return None


def scratch_lines_of(path, shapes):
    """The scratch declarations (and their kernel lines) of the emitted module whose shape is one of `shapes`
    ("bf16[2,128,1024]"), for an out-of-memory error that lists allocations."""
    found = []
    with open(path) as f:
        for number, text in enumerate(f, 1):
            decl = re.search(r"pltpu\.VMEM\(\(([\d, ]+)\),\s*jnp\.(\w+)\)", text)
            if not decl:
                continue
            dims = ",".join(d.strip() for d in decl.group(1).split(",") if d.strip())
            short = {"float32": "f32", "bfloat16": "bf16", "float16": "f16", "int32": "s32", "uint32": "u32",
                     "uint8": "u8", "int8": "s8", "int16": "s16", "uint16": "u16", "float8_e4m3fn": "f8e4m3fn",
                     "float8_e5m2": "f8e5m2"}.get(decl.group(2))
            if f"{short}[{dims}]" in shapes:
                place = KERNEL_LINE.search(text)
                found.append((number, f"{place.group(1)}:{place.group(2)}" if place else None))
    return found


def describe_compile_error(error, path, modules):
    """What a compile error says, and where: {"error", "kind", "module_line", "kernel_line", "vmem_need_bytes", ...}."""
    text = str(error)
    first = next((l for l in text.splitlines() if l.strip()), type(error).__name__)
    info = {"error": first.strip()[:600], "kind": type(error).__name__}
    mosaic = re.search(r"Mosaic failed to compile TPU kernel[^:]*:\s*(.*)", text)
    if mosaic:
        info["kind"] = "mosaic"
        info["error"] = mosaic.group(1).split("The MLIR operation involved")[0].strip()[:600]
        lines = mosaic_operation_lines(text, modules, path)
        if lines:
            info["module_line"] = lines[0]
            info["kernel_line"] = kernel_line_of(path, lines[0])
            info["same_form_lines"] = len(lines)
    scoped = re.search(r"Scoped allocation with size ([\d.]+)([KMG]) and limit ([\d.]+)([KMG])", text)
    if scoped:
        scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
        info["kind"] = "vmem"
        info["vmem_need_bytes"] = int(float(scoped.group(1)) * scale[scoped.group(2)])
        info["vmem_limit_bytes"] = int(float(scoped.group(3)) * scale[scoped.group(4)])
        info["error"] = (f"CompileTimeScopedVmemOom: Mosaic needs {scoped.group(1)}{scoped.group(2)}iB of VMEM, "
                         f"the scoped limit is {scoped.group(3)}{scoped.group(4)}iB")
    physical = re.search(r"Used ([\d.]+)([KMG]) of ([\d.]+)([KMG]) vmem", text) or \
        re.search(r"Allocation \(size=(\d+)\) would exceed memory \(size=(\d+)\)", text)
    if physical and not scoped:
        info["kind"] = "vmem"
        info["error"] = first.strip()[:300]
        shapes = re.findall(r"Shape: (\w+\[[\d,]+\])", text) + re.findall(r"shape = '(\w+\[[\d,]+\])", text)
        spills = re.search(r"Size: ([\d.]+[KMG])\s*\n\s*XLA label: register allocator spill slots", text)
        if spills:
            info["spill_slots"] = spills.group(1)
        declared = scratch_lines_of(path, set(shapes))
        if declared:
            info["module_line"], info["kernel_line"] = declared[0]
    if "module_line" not in info:  # an error raised while lowering: the traceback passes through the module
        tb = error.__traceback__
        while tb is not None:
            if os.path.abspath(tb.tb_frame.f_code.co_filename) == os.path.abspath(path):
                info["module_line"] = tb.tb_lineno
                info["kernel_line"] = kernel_line_of(path, tb.tb_lineno)
            tb = tb.tb_next
    if "module_line" not in info:
        call = None
        with open(path) as f:
            for number, line in enumerate(f, 1):
                if "pl.pallas_call(" in line:
                    call = number
        if call and info["kind"] == "vmem":
            info["module_line"] = call
    return info


@contextlib.contextmanager
def vmem_limit_override(limit):
    """Makes every pl.pallas_call of the module compile with vmem_limit_bytes=limit (None: as emitted)."""
    if limit is None:
        yield
        return
    import dataclasses
    from jax.experimental import pallas as pl
    from jax.experimental.pallas import tpu as pltpu
    original = pl.pallas_call

    def with_limit(*args, **kwargs):
        params = kwargs.get("compiler_params") or pltpu.CompilerParams()
        kwargs["compiler_params"] = dataclasses.replace(params, vmem_limit_bytes=limit)
        return original(*args, **kwargs)

    pl.pallas_call = with_limit
    try:
        yield
    finally:
        pl.pallas_call = original


def compile_for_tpu(path, function, input_specs, topology, vmem_limit=None):
    """Compiles `function` of the module at `path` for `topology` with the real TPU compiler.
    input_specs: (shape, dtype name) of each input. Returns {"ok", "seconds", "topology", "device_kind", ...}."""
    import jax
    import jax.numpy as jnp
    device = tpu_device(topology)
    sharding = jax.sharding.SingleDeviceSharding(device)
    args = [jax.ShapeDtypeStruct(tuple(shape), jnp.dtype(dtype), sharding=sharding) for shape, dtype in input_specs]
    result = {"topology": topology, "device_kind": device.device_kind, "versions": versions()}
    start = time.perf_counter()
    with MosaicCapture() as capture, vmem_limit_override(vmem_limit):
        try:
            # A fresh function each time: jax.jit would reuse an earlier trace, made without the override.
            compiled = jax.jit(lambda *a: function(*a)).lower(*args).compile()
            result["ok"] = True
        except Exception as e:  # Mosaic and XLA errors: MosaicError, JaxRuntimeError, ValueError from lowering
            result["ok"] = False
            result.update(describe_compile_error(e, path, capture.modules))
    result["seconds"] = round(time.perf_counter() - start, 3)
    if result["ok"]:
        cost = compiled.cost_analysis()
        cost = cost[0] if isinstance(cost, (list, tuple)) and cost else cost
        if isinstance(cost, dict) and "bytes accessed" in cost:
            result["bytes_accessed"] = cost["bytes accessed"]
    return result


def measure_mosaic_vmem(path, function, input_specs, topology):
    """Mosaic's VMEM use for the kernel: compiled again under vmem_limit_bytes=4096 (one tile), libtpu's refusal
    says how much the kernel needs ("Scoped allocation with size 39.48M"; the need does not depend on the limit:
    the same at 1 MiB and at 16 MiB). Returns bytes (4096 or less when it compiles), None when the refusal did not
    say."""
    result = compile_for_tpu(path, function, input_specs, topology, vmem_limit=4096)
    if result["ok"]:
        return 4096
    return result.get("vmem_need_bytes")


def read_static_profile(directory):
    """libtpu's static LLO profile (textproto): {"ops": [{"name", "estimated_cycles"}], "estimated_cycles": sum}."""
    ops = []
    for file in sorted(glob.glob(os.path.join(directory, "*static_llo_profile*"))):
        with open(file) as f:
            text = f.read()
        for block in re.finditer(r"hlo_op_estimate\s*\{(.*?)\n\}", text, re.S):
            name = re.search(r'hlo_op_name:\s*"([^"]*)"', block.group(1))
            cycles = re.search(r"estimated_cycles:\s*(\d+)", block.group(1))
            if cycles:
                ops.append({"name": name.group(1) if name else "?", "estimated_cycles": int(cycles.group(1))})
    return {"ops": ops, "estimated_cycles": sum(op["estimated_cycles"] for op in ops)} if ops else None


def report_compile(result, path):
    kind = result["device_kind"]
    where = f"{result['topology']} ({kind})"
    if result["ok"]:
        print(f"  compile for {where}: ok in {result['seconds']:.2f} s (libtpu {result['versions']['libtpu']})")
        return
    place = ""
    if result.get("kernel_line"):
        place = f"{result['kernel_line']}: "
    elif result.get("module_line"):
        place = f"{os.path.basename(path)}:{result['module_line']}: "
    print(f"  compile for {where}: FAILED in {result['seconds']:.2f} s (libtpu {result['versions']['libtpu']})")
    print(f"  {place}error: {result['error']}")
    if result.get("module_line"):
        extra = f" ({result['same_form_lines']} operations of that form)" if result.get("same_form_lines", 1) > 1 else ""
        print(f"    at {path}:{result['module_line']}{extra}")
    if result.get("spill_slots"):
        print(f"    of which Mosaic's register allocator spill slots: {result['spill_slots']}")


# --- NKI on a Trainium host --------------------------------------------------------------------------------------
# What the runner tells NKI and the Neuron runtime (Neuron SDK 2.32, NKI 0.6), from the bundle's manifest:
#
# - The platform: nki.jit (and nki.simulate) compile for the NeuronCore generation NEURON_PLATFORM_TARGET_OVERRIDE
#   names (trn1|inf2|gen2, trn2|gen3, trn3|gen4). nki.jit's platform_target argument was removed in NKI 0.3.0
#   (passing it is an error), so the variable is the only documented setting.
#     https://awsdocs-neuron.readthedocs-hosted.com/en/v2.31.0/nki/api/generated/nki.jit.html
#     https://awsdocs-neuron.readthedocs-hosted.com/en/v2.33.1/nki/migration/index.html (nki.jit(platform_target=...))
#     https://awsdocs-neuron.readthedocs-hosted.com/en/latest/nki/guides/nki_simulator.html (Target Platform)
# - The logical NeuronCore (LNC): Tessera's kernel runs on one NeuronCore unless it is an SPMD launch (its module
#   defines LAUNCH_GRID, and tessera.json's logical_nc_config matches: then kernel[LAUNCH_GRID](...)), and an
#   nki.jit kernel called without brackets is LNC=1; the runtime's NEURON_LOGICAL_NC_CONFIG must match the kernel's
#   degree or the launch is a runtime error, and Trainium2/3 hosts default to LNC=2. So the runner sets
#   NEURON_LOGICAL_NC_CONFIG=1 before anything starts the runtime, and calls kernel(...) without brackets (NKI 0.7
#   deprecates the bracket syntax and takes the degree from the variable: the same LNC=1 either way). trn1 has only
#   LNC=1, so the setting holds there too.
#     https://awsdocs-neuron.readthedocs-hosted.com/en/latest/general/arch/neuron-features/logical-neuroncore-config.html
#     https://awsdocs-neuron.readthedocs-hosted.com/en/latest/compiler/error-codes/EVRF066.html
#     https://awsdocs-neuron.readthedocs-hosted.com/en/latest/compiler/error-codes/EARG001.html
# - The NEFF: NKI_ARTIFACTS_DIR, set before nki is imported, keeps the compiled kernel there as kernel.neff.
#     https://awsdocs-neuron.readthedocs-hosted.com/en/latest/neuron-runtime/nrtpy/tutorial-debug-neff-nrtpy.html
#
# Device time. nki.benchmark and nki.profile are not in NKI 0.6 (they raise "not available": the 2.32 release notes,
# https://awsdocs-neuron.readthedocs-hosted.com/en/latest/release-notes/components/nki.html), so the runner times the
# kernel's NEFF with one of the two documented device-side tools:
# - nrtpy: NrtpyModel.load_from_neff(NEFF).benchmark(inputs, mode="device"), the NeuronCore's execution time from
#   device-side tracing, per iteration. nrtpy and nki cannot be installed in one Python environment in 2.32, so it
#   runs in its own (--nrtpy-python).
#     https://awsdocs-neuron.readthedocs-hosted.com/en/latest/neuron-runtime/nrtpy/model.html
#     https://awsdocs-neuron.readthedocs-hosted.com/en/latest/neuron-runtime/nrtpy/tutorial-validate-benchmark.html
#     https://awsdocs-neuron.readthedocs-hosted.com/en/latest/neuron-runtime/nrtpy/nrtpy-getting-started.html
# - Neuron Explorer (aws-neuronx-tools): `neuron-explorer capture -n NEFF -s profile.ntff --profile-nth-exec=2
#   NAME FILE.npy...` runs the NEFF twice and traces the second run (profile_exec_2.ntff), and `neuron-explorer view
#   -n NEFF -s NTFF --output-format summary-json` gives its total_time, the on-device seconds of that run (no
#   host-device copies, no host runtime).
#     https://awsdocs-neuron.readthedocs-hosted.com/en/v2.33.0/nki/guides/use-neuron-profile.html
#     https://awsdocs-neuron.readthedocs-hosted.com/en/latest/tools/neuron-explorer/how-to-profile-workload.html
#     https://awsdocs-neuron.readthedocs-hosted.com/en/latest/tools/neuron-explorer/profile-schema-reference.html
# Without either, measured_us is the host's wall clock around kernel(*numpy_arrays) (compile cache, copies to and
# from the device and the runtime's launch included): the record says so ("measured_by": "host_wall_clock") and
# `tessera calibrate` does not fit it.
#
# The kernel itself (compile, the run whose outputs are checked, the wall-clock calls) runs in a child process
# (run.py --nki-execute): the profilers start a runtime of their own, and the child's has ended by then.

NEURON_GENERATIONS = {"v2": "trn1", "v3": "trn2", "v4": "trn3"}  # target file generation -> platform target
NEURON_PLATFORM_ALIASES = {"trn1": "gen2", "inf2": "gen2", "gen2": "gen2", "trn2": "gen3", "gen3": "gen3",
                           "trn3": "gen4", "gen4": "gen4"}
NEURON_EXPLORER_DEFAULT = "/opt/aws/neuron/bin/neuron-explorer"  # where aws-neuronx-tools installs it
NRTPY_BENCHMARK = r'''
import json, sys
import numpy as np
from nrtpy import NrtpyModel, NrtpyTensor
job = json.load(open(sys.argv[1]))
model = NrtpyModel.load_from_neff(job["neff"])
names = list(model.input_tensors_info)
ours = [entry["name"] for entry in job["inputs"]]
if sorted(names) == sorted(ours):
    files, matched = {entry["name"]: entry["file"] for entry in job["inputs"]}, "by name"
elif len(names) == len(ours):
    files, matched = {name: entry["file"] for name, entry in zip(names, job["inputs"])}, "by position"
else:
    sys.exit(f"the NEFF's inputs are {names}, the bundle's {ours}")
# The bundle's .npy files hold each tensor's bytes (bfloat16 as uint16, fp8 as uint8): what the device reads.
tensors = {name: NrtpyTensor.from_numpy(np.load(file), name=name) for name, file in files.items()}
stats = model.benchmark(inputs=tensors, warmup_iter=job["warmup"], benchmark_iter=job["iterations"], mode="device")
print(json.dumps({"durations_ms": [float(d) for d in stats.durations_ms], "mean_ms": float(stats.mean_ms),
                  "min_ms": float(stats.min_ms), "max_ms": float(stats.max_ms), "iterations": int(stats.iterations),
                  "neff_inputs": names, "inputs_matched": matched}))
'''


def neuron_plan(manifest):
    """What the bundle's kernel needs of NKI and the runtime: {"generation", "platform", "lnc", "env", "notes"}.
    Exits 2 when the environment names another platform than the bundle's."""
    neuron = manifest.get("neuron") or {}
    generation = neuron.get("generation") or {"trn1": "v2", "trn2": "v3", "trn3": "v4"}.get(manifest["target"])
    if generation not in NEURON_GENERATIONS:
        print(f"run.py: target {manifest['target']} names no NeuronCore generation NKI knows "
              f"({generation or 'none in tessera.json'}; NKI targets: v2 trn1, v3 trn2, v4 trn3)", file=sys.stderr)
        sys.exit(2)
    platform = NEURON_GENERATIONS[generation]
    lnc = int(neuron.get("logical_nc_config", 1))
    notes = []
    current = os.environ.get("NEURON_PLATFORM_TARGET_OVERRIDE")
    if current and NEURON_PLATFORM_ALIASES.get(current.strip().lower()) != NEURON_PLATFORM_ALIASES[platform]:
        print(f"run.py: NEURON_PLATFORM_TARGET_OVERRIDE={current} here, but this bundle's kernel was simulated for "
              f"{manifest['target']} (NeuronCore-{generation}, platform {platform}): unset it, or deploy the kernel "
              f"for the target of this host", file=sys.stderr)
        sys.exit(2)
    current = os.environ.get("NEURON_LOGICAL_NC_CONFIG")
    if current is not None and current.strip() != str(lnc):
        notes.append(f"NEURON_LOGICAL_NC_CONFIG was {current} here; set to {lnc} for this run: the kernel runs on "
                     f"{lnc} NeuronCore{'s' if lnc != 1 else ''}, and a runtime of another degree cannot launch it")
    env = {"NEURON_PLATFORM_TARGET_OVERRIDE": platform, "NEURON_LOGICAL_NC_CONFIG": str(lnc)}
    return {"generation": generation, "platform": platform, "lnc": lnc, "env": env, "notes": notes}


def neuron_explorer(args):
    """The neuron-explorer executable: --neuron-explorer, else on PATH, else aws-neuronx-tools' place; or None."""
    if args.neuron_explorer:
        return args.neuron_explorer
    found = shutil.which("neuron-explorer")
    if found:
        return found
    return NEURON_EXPLORER_DEFAULT if os.access(NEURON_EXPLORER_DEFAULT, os.X_OK) else None


def nrtpy_python(args):
    return args.nrtpy_python or os.environ.get("TESSERA_NRTPY_PYTHON") or None


def device_timers(args):
    """The device-time tools to try, in order, and why each missing one is missing: ([names], [reasons])."""
    if args.timer not in ("auto", "wall-clock"):
        return [args.timer], []
    if args.timer == "wall-clock":
        return [], ["--timer wall-clock was asked for"]
    timers, missing = [], []
    if nrtpy_python(args):
        timers.append("nrtpy")
    else:
        missing.append("no nrtpy environment (--nrtpy-python or TESSERA_NRTPY_PYTHON)")
    if neuron_explorer(args):
        timers.append("neuron-explorer")
    else:
        missing.append(f"no neuron-explorer (aws-neuronx-tools: not on PATH, not at {NEURON_EXPLORER_DEFAULT})")
    return timers, missing


def input_files(manifest):
    return [(entry["name"], os.path.join(HERE, entry["file"])) for entry in manifest["inputs"]]


def nrtpy_command(args, job_file):
    return [nrtpy_python(args), "-c", NRTPY_BENCHMARK, job_file]


def explorer_commands(manifest, args, neff, work):
    """neuron-explorer capture (two runs, the second traced) and view (its summary as JSON)."""
    tool = neuron_explorer(args) or "neuron-explorer"
    capture = [tool, "capture", "-n", neff, "-s", os.path.join(work, "profile.ntff"), "--profile-nth-exec=2"]
    for name, file in input_files(manifest):
        capture += [name, file]
    view = [tool, "view", "-n", neff, "-s", os.path.join(work, "profile_exec_2.ntff"), "--output-format",
            "summary-json"]
    return capture, view


class TimerFailed(Exception):
    pass


def shown(command):
    """A command as printed: the nrtpy script (python -c SCRIPT) by name."""
    if len(command) > 2 and command[1] == "-c":
        command = [command[0], "-c", "<nrtpy benchmark>", *command[3:]]
    return " ".join(command)


def run_tool(command, env, what):
    """Runs a profiler; a failure raises TimerFailed with the tail of what it said."""
    print(f"  {what}: {shown(command)}")
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True)
    except OSError as e:
        raise TimerFailed(f"{what} could not start: {e}") from e
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
        raise TimerFailed(f"{what} exited {done.returncode}: " + " | ".join(tail))
    return done.stdout


def json_of(text):
    """The JSON object a tool printed (the whole output, or from its first line that starts one)."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.lstrip().startswith(("{", "[")):
            try:
                return json.loads("\n".join(lines[i:]))
            except ValueError:
                continue
    return None


def values_of(tree, key):
    """Every value of `key` anywhere in a JSON tree (summary-json's layout may change between versions)."""
    found = []
    if isinstance(tree, dict):
        for k, v in tree.items():
            if k == key and not isinstance(v, (dict, list)):
                found.append(v)
            else:
                found += values_of(v, key)
    elif isinstance(tree, list):
        for v in tree:
            found += values_of(v, key)
    return found


def time_with_nrtpy(manifest, args, neff, work, env):
    job_file = os.path.join(work, "nrtpy-job.json")
    with open(job_file, "w") as f:
        json.dump({"neff": neff, "warmup": args.warmup, "iterations": args.repeat,
                   "inputs": [{"name": n, "file": p} for n, p in input_files(manifest)]}, f)
    env = dict(env)
    if os.path.isdir("/opt/aws/neuron/lib") and "/opt/aws/neuron/lib" not in env.get("LD_LIBRARY_PATH", ""):
        env["LD_LIBRARY_PATH"] = ":".join(p for p in ("/opt/aws/neuron/lib", env.get("LD_LIBRARY_PATH")) if p)
    out = run_tool(nrtpy_command(args, job_file), env, "nrtpy benchmark(mode=\"device\")")
    result = json_of(out.strip().splitlines()[-1] if out.strip() else "")
    if not isinstance(result, dict) or not result.get("durations_ms"):
        raise TimerFailed(f"nrtpy printed no durations ({out.strip()[-200:]!r})")
    samples = [d * 1e3 for d in result["durations_ms"]]
    return {"us": statistics.median(samples), "timer": "nrtpy NrtpyModel.benchmark(mode=\"device\")",
            "samples": len(samples), "statistic": "median", "warmup": args.warmup,
            "min_us": min(samples), "max_us": max(samples), "inputs_matched": result.get("inputs_matched")}


def time_with_explorer(manifest, args, neff, work, env):
    capture, view = explorer_commands(manifest, args, neff, work)
    for stale in glob.glob(os.path.join(work, "*.ntff")):
        os.remove(stale)
    run_tool(capture, env, "neuron-explorer capture")
    ntff = os.path.join(work, "profile_exec_2.ntff")
    if not os.path.exists(ntff):
        traces = sorted(glob.glob(os.path.join(work, "*.ntff")), key=os.path.getmtime)
        if not traces:
            raise TimerFailed(f"neuron-explorer capture wrote no .ntff into {work}")
        ntff = traces[-1]
        view[view.index("-s") + 1] = ntff
    summary = json_of(run_tool(view, env, "neuron-explorer view"))
    times = []
    for v in values_of(summary, "total_time"):
        try:
            times.append(float(v))
        except (TypeError, ValueError):
            pass
    times = [t for t in times if t > 0 and t == t]
    if not times:
        raise TimerFailed("neuron-explorer view --output-format summary-json gave no total_time")
    return {"us": max(times) * 1e6, "timer": "neuron-explorer capture --profile-nth-exec=2; view summary-json "
            "total_time", "samples": 1, "statistic": "the second of two runs", "ntff": os.path.relpath(ntff, HERE)}


DEVICE_TIMERS = {"nrtpy": time_with_nrtpy, "neuron-explorer": time_with_explorer}


def find_neff(directory):
    """kernel.neff in NKI_ARTIFACTS_DIR, else the newest .neff under it; or None."""
    named = os.path.join(directory, "kernel.neff")
    if os.path.exists(named):
        return named
    found = [os.path.join(root, f) for root, _, files in os.walk(directory) for f in files if f.endswith(".neff")]
    return max(found, key=os.path.getmtime) if found else None


def loud_warning(lines):
    bar = "run.py: WARNING: " + "!" * 92
    sys.stdout.flush()
    sys.stderr.write("\n".join([bar, *(f"run.py: WARNING: {line}" for line in lines), bar]) + "\n")
    sys.stderr.flush()


def nki_device_plan(manifest, args, plan):
    """The device run's folder, environment and child command (the same for --dry-run)."""
    work = os.path.abspath(args.neuron_dir or os.path.join(HERE, "neuron"))
    artifacts = os.path.join(work, "nki-artifacts")
    env = dict(plan["env"], NKI_ARTIFACTS_DIR=artifacts)
    child = [sys.executable, os.path.join(HERE, "run.py"), "--nki-execute", work, "--repeat", str(args.repeat)]
    return work, artifacts, env, child


def dry_run_nki(manifest, args, plan):
    """--dry-run: what a device run would set and run, without NKI (works on any machine with NumPy)."""
    work, artifacts, env, child = nki_device_plan(manifest, args, plan)
    print(f"  {manifest['kernel']} for {manifest['target']}: NeuronCore-{plan['generation']}, NKI platform "
          f"{plan['platform']}, LNC={plan['lnc']} (the kernel runs on {plan['lnc']} "
          f"NeuronCore{'s' if plan['lnc'] != 1 else ''})")
    for note in plan["notes"]:
        print(f"  note: {note}")
    print("  environment (set before NKI or the Neuron runtime starts):")
    for name, value in env.items():
        print(f"    {name}={value}")
    print(f"  1. compile and run the kernel, check its outputs, time {args.repeat} calls by the host clock:")
    print(f"    {' '.join(child)}")
    neff = args.neff or os.path.join(artifacts, "kernel.neff")
    timers, missing = device_timers(args)
    print(f"  2. device time of {neff}:")
    for timer in timers:
        if timer == "nrtpy":
            print(f"    nrtpy: {shown(nrtpy_command(args, os.path.join(work, 'nrtpy-job.json')))}  "
                  f"(NrtpyModel.benchmark(mode=\"device\"), warmup {args.warmup}, {args.repeat} iterations)")
        else:
            capture, view = explorer_commands(manifest, args, neff, work)
            print(f"    neuron-explorer: {' '.join(capture)}")
            print(f"                     {' '.join(view)}")
    for reason in missing:
        print(f"    (not used: {reason})")
    if timers:
        print(f"  record: measured_by \"device_profiler\" ({timers[0]}"
              + (", falling back to the host's wall clock if it fails)" if args.timer == "auto" else ")"))
    else:
        print("  record: measured_by \"host_wall_clock\" (no device profiler: the wall clock, with a warning; "
              "tessera calibrate will not fit it)")
    return 0


def nki_execute(manifest, inputs, args):
    """--nki-execute DIR (the child of a device run): compile and run the kernel, save its outputs, and time
    --repeat further calls by the host's clock. The environment is the parent's (nki_device_plan)."""
    work = args.nki_execute
    module = load_module(manifest)  # imports nki: NKI_ARTIFACTS_DIR is read now
    import nki
    kernel = launched_kernel(module, manifest)
    print(f"  NKI {getattr(nki, '__version__', 'unknown')} ({os.path.dirname(nki.__file__)}), platform "
          f"{os.environ.get('NEURON_PLATFORM_TARGET_OVERRIDE')}, LNC={os.environ.get('NEURON_LOGICAL_NC_CONFIG')}")
    outs, wall_us = timed(lambda: kernel(*inputs), args.repeat)
    outs = outs if isinstance(outs, (tuple, list)) else (outs,)
    files = []
    for i, out in enumerate(outs):
        path = os.path.join(work, f"output{i}.npy")
        np.save(path, np.asarray(out, dtype=np.float64))  # exact for every Tessera dtype; compare() reads float64
        files.append(path)
    with open(os.path.join(work, "execute.json"), "w") as f:
        json.dump({"nki": getattr(nki, "__version__", "unknown"), "outputs": files, "wall_clock_us": wall_us,
                   "repeat": args.repeat}, f)
    return 0


def run_nki_device(manifest, args, record, plan):
    """A device run: the kernel in a child process, then its NEFF timed on the device."""
    work, artifacts, env, child = nki_device_plan(manifest, args, plan)
    for note in plan["notes"]:
        print(f"  note: {note}")
    record["neuron"] = {"platform_target": plan["platform"], "generation": plan["generation"],
                        "logical_nc_config": plan["lnc"], "env": env}
    record["device"] = f"{plan['platform']} (NeuronCore-{plan['generation']}, LNC={plan['lnc']})"
    shutil.rmtree(artifacts, ignore_errors=True)
    os.makedirs(artifacts, exist_ok=True)
    for stale in glob.glob(os.path.join(work, "output*.npy")) + [os.path.join(work, "execute.json")]:
        if os.path.exists(stale):
            os.remove(stale)
    full_env = dict(os.environ, **env)
    print(f"  environment: {' '.join(f'{k}={v}' for k, v in env.items())}")
    if subprocess.run(child, env=full_env).returncode != 0 or not os.path.exists(os.path.join(work, "execute.json")):
        print("run.py: the kernel did not compile or run (NKI's error is above)", file=sys.stderr)
        record["ok"] = False
        record["error"] = "the kernel did not compile or run on the device"
        return None
    with open(os.path.join(work, "execute.json")) as f:
        executed = json.load(f)
    record["nki"] = executed["nki"]
    record["host_wall_clock_us"] = executed["wall_clock_us"]
    outs = [np.load(path) for path in executed["outputs"]]

    neff = os.path.abspath(args.neff) if args.neff else find_neff(artifacts)
    timers, missing = device_timers(args)
    failures = list(missing)
    timing = None
    if timers and args.neff and not os.path.exists(neff):
        failures.append(f"--neff {args.neff}: no such file")
    elif timers and not neff:
        failures.append(f"NKI left no .neff in {artifacts} (NKI_ARTIFACTS_DIR; pass --neff FILE)")
    elif timers:
        record["neff"] = os.path.relpath(neff, HERE)
        for timer in timers:
            try:
                timing = DEVICE_TIMERS[timer](manifest, args, neff, work, full_env)
                break
            except TimerFailed as e:
                failures.append(str(e))
                print(f"  {timer}: {e}", file=sys.stderr)
    if timing:
        record.update(measured_us=timing.pop("us"), measured_by="device_profiler", timer=timing.pop("timer"),
                      includes_host_transfers=False, timing=timing)
        return outs
    if args.timer not in ("auto", "wall-clock"):  # the profiler asked for did not give a time: no fallback
        record.update(ok=False, measured_by=None, timing_error="; ".join(failures))
        print(f"run.py: --timer {args.timer} gave no device time: {'; '.join(failures)}", file=sys.stderr)
        return outs
    record.update(measured_us=executed["wall_clock_us"], measured_by="host_wall_clock",
                  timer="time.perf_counter around kernel(*numpy_arrays)", includes_host_transfers=True,
                  timing_note="NOT a device time: " + "; ".join(failures))
    loud_warning(["NO DEVICE TIME. measured_us is the HOST'S WALL CLOCK around kernel(*numpy_arrays): the copies to",
                  "and from the device and the runtime's launch are in it. The record says measured_by",
                  "\"host_wall_clock\", and `tessera calibrate` will not fit it. Why:",
                  *(f"  - {reason}" for reason in failures),
                  "For a device time: --nrtpy-python PYTHON (an environment with nrtpy), or aws-neuronx-tools",
                  "(neuron-explorer); see docs/backends.md, \"Deploy bundles and calibration\"."])
    return outs


def run_nki(manifest, module, inputs, args, record):
    """--simulate: nki.simulate on the CPU (no timing)."""
    import nki
    record["nki"] = getattr(nki, "__version__", "unknown")
    print(f"  NKI {record['nki']} ({os.path.dirname(nki.__file__)}), platform "
          f"{os.environ.get('NEURON_PLATFORM_TARGET_OVERRIDE')}")
    kernel = launched_kernel(module, manifest)
    record["mode"] = "simulate"
    return nki.simulate(kernel)(*inputs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--interpret", action="store_true", help="Pallas: run in interpret mode on the CPU")
    parser.add_argument("--no-races", action="store_true", help="with --interpret: skip race detection")
    parser.add_argument("--export", action="store_true", help="Pallas: lower for TPU and check the Mosaic call")
    parser.add_argument("--compile", action="store_true",
                        help="Pallas: compile with the real Mosaic/XLA:TPU (libtpu), deviceless")
    parser.add_argument("--estimate", action="store_true",
                        help="Pallas: compile and print libtpu's static cycle estimate beside Tessera's (not on v4)")
    parser.add_argument("--topology", default=None,
                        help="with --compile/--estimate: libtpu topology (default: the bundle's, e.g. v5e=1x1)")
    parser.add_argument("--measure-vmem", action="store_true",
                        help="with --compile: compile again to learn how much VMEM Mosaic allocates")
    parser.add_argument("--simulate", action="store_true", help="NKI: run nki.simulate on the CPU")
    parser.add_argument("--dry-run", action="store_true",
                        help="NKI: print the environment and the commands a device run would use; run nothing")
    parser.add_argument("--timer", choices=("auto", "nrtpy", "neuron-explorer", "wall-clock"), default="auto",
                        help="NKI: how to time the kernel's NEFF on the device (default auto: nrtpy where "
                             "--nrtpy-python is given, else neuron-explorer where installed, else the host's wall "
                             "clock, marked as such)")
    parser.add_argument("--nrtpy-python", default=None,
                        help="NKI: the python of an environment with nrtpy (nrtpy and nki cannot share one; default "
                             "$TESSERA_NRTPY_PYTHON)")
    parser.add_argument("--neuron-explorer", default=None,
                        help=f"NKI: the neuron-explorer executable (default: on PATH, else {NEURON_EXPLORER_DEFAULT})")
    parser.add_argument("--neff", default=None,
                        help="NKI: time this NEFF (default: the kernel.neff NKI wrote into NKI_ARTIFACTS_DIR)")
    parser.add_argument("--neuron-dir", default=None,
                        help="NKI: the device run's folder (NEFF, traces, outputs; default neuron/ here)")
    parser.add_argument("--warmup", type=int, default=10, help="NKI, nrtpy: untimed runs first (default 10)")
    parser.add_argument("--nki-execute", default=None, help=argparse.SUPPRESS)  # the child of a device run
    parser.add_argument("--repeat", type=int, default=20, help="timed calls on the device (median; default 20)")
    parser.add_argument("--record", default=None, help="where to write the JSON record (default: record-MODE.json here)")
    args = parser.parse_args()
    with open(os.path.join(HERE, "tessera.json")) as f:
        manifest = json.load(f)
    backend = manifest["backend"]
    if (args.interpret or args.export or args.compile or args.estimate) and backend != "pallas":
        parser.error("--interpret, --export, --compile and --estimate are for Pallas bundles (TPU targets)")
    if sum(map(bool, (args.interpret, args.export, args.compile, args.estimate, args.simulate))) > 1:
        parser.error("choose one of --interpret, --export, --compile, --estimate, --simulate")
    if (args.topology or args.measure_vmem) and not (args.compile or args.estimate):
        parser.error("--topology and --measure-vmem go with --compile or --estimate")
    args.profile_dir = None
    if args.estimate:
        topology = args.topology or (manifest.get("tpu") or {}).get("topology") or ""
        if topology.startswith("v4"):
            parser.error("--estimate: libtpu's static profile (--xla_jf_dump_static_llo_profile_to) aborts the "
                         "process on TPU v4 (libtpu 0.0.50.1); estimate on v5e, v5p, v6e or 7x")
        if args.topology and args.topology != (manifest.get("tpu") or {}).get("topology"):
            parser.error(f"--estimate converts cycles with the clock of the bundle's target ({manifest['target']}): "
                         f"use its topology, or deploy the kernel for the other target")
        if not os.environ.get(ESTIMATE_CHILD):
            aborted = estimate_in_child()
            if isinstance(aborted, int):
                return aborted  # the child ran to its end and printed its report
            print(f"  libtpu's static profile failed, and libtpu aborted the process: {aborted}\n"
                  f"  (a libtpu limitation, not the kernel's); compiling without the profile")
            args.estimate, args.compile, args.estimate_error = False, True, aborted
        else:
            args.profile_dir = tempfile.mkdtemp(prefix="tessera-llo-profile-")
    if backend == "pallas" and (args.interpret or args.export or args.compile or args.estimate):
        prepare_tpu_compiler(args.profile_dir)  # before the module imports jax
    if backend == "pallas" and args.interpret:
        exact_cpu_arithmetic()
    if args.simulate and backend != "nki":
        parser.error("--simulate is for NKI bundles (Trainium targets)")
    nki_options = (args.dry_run or args.timer != "auto" or args.nrtpy_python or args.neuron_explorer or args.neff
                   or args.neuron_dir or args.nki_execute)
    if nki_options and backend != "nki":
        parser.error("--dry-run, --timer, --nrtpy-python, --neuron-explorer, --neff and --neuron-dir are for NKI "
                     "bundles (Trainium targets)")
    if nki_options and args.simulate:
        parser.error("--simulate runs on the CPU: --dry-run, --timer and the profiler options are for a device run")
    if args.repeat < 1 or args.warmup < 0:
        parser.error("--repeat must be at least 1, --warmup at least 0")
    plan = None
    if backend == "nki":
        plan = neuron_plan(manifest)  # before anything imports nki or starts the Neuron runtime
        os.environ.update(plan["env"])
        if args.dry_run:
            return dry_run_nki(manifest, args, plan)

    inputs = [load_tensor(entry) for entry in manifest["inputs"]]
    if args.nki_execute:
        return nki_execute(manifest, inputs, args)
    record = {key: manifest[key] for key in ("kernel", "target", "backend", "shape", "kernel_params", "loop_buffers")}
    record.update(record_version=2, host=platform.node(), date=datetime.datetime.now().isoformat(timespec="seconds"),
                  predicted_us=manifest["predicted"]["time_us"], measured_us=None, measured_by=None, races=None)
    if backend == "nki" and not args.simulate:
        record["mode"] = "device"
        outs = run_nki_device(manifest, args, record, plan)  # NKI runs in a child process: not imported here
    else:
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
        record["ok"] = record.get("ok", True) and all(c["ok"] for c in checks) and record["races"] is not True
        for c in checks:
            detail = c.get("error") or f"max abs err {c['max_abs_err']}, max rel err {c['max_rel_err']} " \
                                       f"(tolerance {c['tolerance']})"
            print(f"  output {c['name']:<12} vs Tessera  {detail}  {'ok' if c['ok'] else 'MISMATCH'}")
        if record["races"] is not None:
            print(f"  races: {'FOUND (see the report above)' if record['races'] else 'none'}")
    if args.profile_dir:
        shutil.rmtree(args.profile_dir, ignore_errors=True)
    if getattr(args, "estimate_error", None):  # compiled (or not), but no estimate: the check failed
        record.update(mode="estimate", estimate=None, estimate_error=args.estimate_error, ok=False)
    if record["mode"] not in ("compile", "estimate"):
        print(f"  predicted {record['predicted_us']:.3f} us (Tessera, {manifest['target']})")
    if record["measured_us"] is not None:
        ratio = record["measured_us"] / record["predicted_us"] if record["predicted_us"] else float("nan")
        timing = record.get("timing") or {}
        how = f"median of {args.repeat}" if not timing else timing["statistic"] if timing["samples"] == 1 else \
            f"{timing['statistic']} of {timing['samples']}"
        print(f"  measured  {record['measured_us']:.3f} us on {record['device']} ({how}), {ratio:.2f}x the "
              f"prediction")
        print(f"            by {record['measured_by']}: {record['timer']}"
              + ("" if record["measured_by"] == "device_profiler" else "  [NOT a device time]"))
    print(f"  verdict: {'ok' if record['ok'] else 'FAILED'}")
    path = args.record or os.path.join(HERE, f"record-{record['mode']}.json")
    with open(path, "w") as f:
        json.dump(record, f, indent=2)
        f.write("\n")
    return 0 if record["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
