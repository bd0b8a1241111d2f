#!/usr/bin/env python3
"""Tests check_nki.py's rules (the manifest's "rules" sections): each can fail, and Tessera's kernels keep them.

  check_nki_rules.py fixtures                      every fixture (fixtures/*.py) is rejected with exactly the
                                                   rules its '# expect:' comments name, at those lines, each with
                                                   its documentation page; together they break every rule
  check_nki_rules.py mutations TESSERA WORKDIR     emitted kernels with one mistake each (an nl.divide, a trn2
                                                   kernel checked for trn1, ...) are rejected with the rule
  check_nki_rules.py model                         the NumPy model (nki_model/; run it with the backend venv's
                                                   python: it needs NumPy) takes the manifest's parameters in each
                                                   nki.isa and nki.language function it has, and refuses what the
                                                   hardware lacks (nl.divide on the ALU, PSUM on GpSimd, ...)
  check_nki_rules.py emitted TESSERA WORKDIR [KERNEL:NAME=VALUE...]
                                                   every library kernel (tessera list, not bug_*), and the given
                                                   variants, emitted for trn1, trn2 and trn3 keeps every rule; a
                                                   kernel tessera refuses for a target is listed with the reason
Exit status 0 when all holds, 1 otherwise. Standard library only, but for the model mode.
"""
import glob
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = os.path.join(HERE, "check_nki.py")
sys.path.insert(0, HERE)
import check_nki  # noqa: E402

MANIFEST = json.load(open(check_nki.DEFAULT_MANIFEST))
TARGETS = ("trn1", "trn2", "trn3")
REPORTED = re.compile(r"^(?P<path>[^:]+):(?P<line>\d+): (?P<name>[\w.]+).*?( \[rule (?P<id>[\w-]+); (?P<doc>\S+)\])?$")


def rules():
    """{(function, rule id): rule} for every rule in the manifest."""
    found = {}
    for module, members in MANIFEST["modules"].items():
        for name, entry in members.items():
            for rule in entry.get("rules", []):
                found[(f"{module}.{name}", rule["id"])] = rule
    return found


def run_check(path, *options):
    """check_nki.py's exit status and its problem lines as (line, function, rule id or 'api', page)."""
    result = subprocess.run([sys.executable, CHECK, path, *options], capture_output=True, text=True)
    reported = []
    for text in result.stdout.splitlines():
        match = REPORTED.match(text)
        if match and match.group("path") == path:
            reported.append((int(match.group("line")), match.group("name"), match.group("id") or "api",
                             match.group("doc")))
    return result.returncode, reported, result.stdout


def fixtures():
    known = rules()
    broken, failures = set(), []
    paths = sorted(glob.glob(os.path.join(HERE, "fixtures", "*.py")))
    for path in paths:
        expected = set()
        with open(path) as f:
            for number, line in enumerate(f, 1):
                match = re.search(r"# expect: (.*)$", line)
                if match:
                    expected |= {(number, rule.strip()) for rule in match.group(1).split(",")}
        status, reported, output = run_check(path)
        got = {(line, rule) for line, _, rule, _ in reported}
        name = os.path.relpath(path, HERE)
        if status != 1:
            failures.append(f"{name}: check_nki.py exited {status}, not 1")
        for line, rule in sorted(expected - got):
            failures.append(f"{name}:{line}: rule {rule} not reported")
        for line, rule in sorted(got - expected):
            failures.append(f"{name}:{line}: rule {rule} reported, not expected")
        for line, function, rule, doc in reported:
            if rule == "api":
                continue
            if (function, rule) not in known:
                failures.append(f"{name}:{line}: {function} has no rule {rule} in the manifest")
                continue
            if doc != known[(function, rule)]["doc"]:
                failures.append(f"{name}:{line}: rule {rule} names {doc}, the manifest "
                                f"{known[(function, rule)]['doc']}")
            broken.add((function, rule))
        if status != 1 or expected != got:
            print(output, end="")
    for function, rule in sorted(set(known) - broken):
        failures.append(f"no fixture breaks {function}'s rule {rule}")
    return report(failures, f"{len(paths)} fixtures break all {len(known)} rules, each reported at its line "
                            "with its page")


def emit(tessera, kernel, target, path, param=None):
    """Writes the kernel's NKI module; None, or tessera's reason for refusing."""
    command = [tessera, "compile", "--kernel", kernel, "--target", target, "--emit", "nki", "-o", path]
    if param:
        command += ["--param", param]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode == 0:
        return None
    return (result.stderr.strip().splitlines() or [f"exit {result.returncode}"])[0]


# (kernel, target, what to change: (pattern, replacement, count), check_nki options, the rule it breaks)
MUTATIONS = [
    ("softmax", "trn2", (r"op0=nl\.multiply", "op0=nl.divide", 1), [], "nki.isa.tensor_scalar", "alu-operators"),
    ("softmax", "trn2", (r"op=nl\.exp", "op=nl.divide", 1), [], "nki.isa.activation", "activation-functions"),
    ("softmax", "trn2", (r"(tensor_reduce\(dst=\w+, )op=nl\.add", r"\1op=nl.greater", 1), [],
     "nki.isa.tensor_reduce", "alu-reduction-operators"),
    ("transpose2d", "trn2", None, ["--target", "trn1"], "nki.isa.tensor_copy", "tensor-copy-scalar-nc-v3"),
    ("transpose2d:engine=2", "trn2", None, ["--target", "trn1"], "nki.isa.dma_transpose", "dma-transpose-nc-v3"),
    ("matmul_fp8:rows=2", "trn3", (r"(stationary=\w+\[[^]]*\])\.reshape\(\[128, 2, 128\]\)", r"\1", 1), [],
     "nki.isa.nc_matmul", "double-row-layout"),
    ("matmul_blocked", "trn2", (r"(data2=t\d+(?:_\d+)?, op=nl\.add, )engine=nisa\.engine\.vector",
                                r"\1engine=nisa.engine.gpsimd", 1), [], "nki.isa.tensor_tensor", "gpsimd-no-psum"),
]


def mutations(tessera, work):
    failures = []
    os.makedirs(work, exist_ok=True)
    for number, (kernel, target, change, options, function, rule) in enumerate(MUTATIONS):
        name, _, param = kernel.partition(":")
        path = os.path.join(work, f"mutation{number}-{name}-{target}.py")
        refused = emit(tessera, name, target, path, param or None)
        if refused:
            failures.append(f"{kernel} on {target}: tessera refused: {refused}")
            continue
        lines = None
        if change:
            pattern, replacement, count = change
            with open(path) as f:
                source = f.read()
            changed, made = re.subn(pattern, replacement, source, count=count)
            if made != count:
                failures.append(f"{kernel} on {target}: /{pattern}/ not found: the emitted text changed")
                continue
            with open(path, "w") as f:
                f.write(changed)
            first = next(i for i, (a, b) in enumerate(zip(source.splitlines(), changed.splitlines())) if a != b)
            lines = {first + 1}
        status, reported, output = run_check(path, *options)
        hits = {line for line, f, r, _ in reported if (f, r) == (function, rule)}
        if status != 1 or not hits or (lines and not lines <= hits):
            print(output, end="")
            failures.append(f"{kernel} on {target} {' '.join(options)}: {function}'s rule {rule} not reported"
                            + (f" at line {min(lines)}" if lines else ""))
        else:
            print(f"{kernel} on {target} {' '.join(options)}: rejected, {function} [rule {rule}] at line "
                  f"{min(hits)}")
    return report(failures, f"all {len(MUTATIONS)} mutated kernels rejected with their rule")


def emitted(tessera, work, variants):
    listed = json.loads(subprocess.run([tessera, "list", "--json"], check=True, capture_output=True,
                                       text=True).stdout)
    kernels = [k["name"] for k in listed if not k["name"].startswith("bug_")] + list(variants)
    os.makedirs(work, exist_ok=True)
    failures, passed, refused = [], 0, []
    for kernel in kernels:
        name, _, param = kernel.partition(":")
        for target in TARGETS:
            path = os.path.join(work, f"{kernel.replace(':', '-')}-{target}.py")
            reason = emit(tessera, name, target, path, param or None)
            if reason:
                refused.append(f"{kernel} on {target}: refused by tessera: {reason}")
                continue
            problems, _ = check_nki.check(path, MANIFEST)
            if problems:
                broken = sorted({m.group(1) for m in (re.search(r"\[rule ([\w-]+);", p) for p in problems) if m})
                failures.append(f"{kernel} on {target}: {len(problems)} problem(s), rules {', '.join(broken) or '-'}; "
                                f"first: {problems[0]}")
            else:
                passed += 1
    for line in refused:
        print(line)
    return report(failures, f"{passed} emitted modules keep every rule ({len(refused)} refused by tessera)")


def model():
    sys.path.insert(0, os.path.join(HERE, "nki_model"))
    import inspect

    import numpy as np
    import nki.isa as nisa
    import nki.language as nl
    failures, compared = [], 0
    for module_name, module in (("nki.isa", nisa), ("nki.language", nl)):
        entries = MANIFEST["modules"][module_name]
        for name, function in vars(module).items():
            if name.startswith("_") or not inspect.isfunction(function) or function.__module__ != module.__name__:
                continue
            entry = entries.get(name)
            if entry is None or entry.get("kind") != "function":
                if not (entry and entry.get("kind") == "constant"):  # nl.bypass: an operator constant in NKI
                    failures.append(f"the model's {module_name}.{name} is not a function of NKI 0.6")
                continue
            signature = inspect.signature(function).parameters.values()
            params = [p.name for p in signature]
            required = sorted(p.name for p in signature if p.default is p.empty)
            if params != [p for p in entry["params"] if p != "*"] or required != sorted(entry["required"]):
                failures.append(f"the model's {module_name}.{name}{inspect.signature(function)} is not NKI 0.6's "
                                f"({', '.join(entry['params'])}; required {', '.join(entry['required'])})")
            compared += 1

    def tile(shape, buffer=nl.sbuf, dtype=nl.float32):
        t = nl.ndarray(shape, dtype, buffer=buffer)
        t.data[...] = 1
        return t
    a, b, v, p = tile((128, 512)), tile((128, 512)), tile((128, 1)), tile((128, 512), nl.psum)
    f8 = tile((128, 256), dtype=nl.float8_e4m3fn)
    refused = {
        "tensor_tensor op=nl.divide": lambda: nisa.tensor_tensor(dst=b, data1=a, data2=a, op=nl.divide),
        "tensor_scalar op0=nl.divide": lambda: nisa.tensor_scalar(dst=b, data=a, op0=nl.divide, operand0=v),
        "tensor_scalar op1=nl.divide": lambda: nisa.tensor_scalar(dst=b, data=a, op0=nl.add, operand0=v,
                                                                   op1=nl.divide, operand1=2.0),
        "tensor_scalar on gpsimd, not rsqrt": lambda: nisa.tensor_scalar(dst=b, data=a, op0=nl.add, operand0=v,
                                                                          engine=nisa.engine.gpsimd),
        "tensor_tensor_scan op0=nl.divide": lambda: nisa.tensor_tensor_scan(dst=b, data0=a, data1=a, initial=0.0,
                                                                            op0=nl.divide, op1=nl.add),
        "tensor_reduce op=nl.equal": lambda: nisa.tensor_reduce(dst=v, op=nl.equal, data=a, axis=1),
        "activation op=nl.add": lambda: nisa.activation(dst=b, op=nl.add, data=a),
        "activation reduce_op=nl.maximum": lambda: nisa.activation(dst=b, op=nl.exp, data=a, reduce_op=nl.maximum),
        "affine_select cmp_op=nl.add": lambda: nisa.affine_select(dst=b, pattern=[[1, 512]], channel_multiplier=0,
                                                                  on_true_tile=a, on_false_value=0.0, cmp_op=nl.add),
        "tensor_copy on gpsimd from PSUM": lambda: nisa.tensor_copy(dst=b, src=p, engine=nisa.engine.gpsimd),
        "memset on gpsimd into PSUM": lambda: nisa.memset(dst=p, value=0.0, engine=nisa.engine.gpsimd),
        "tensor_tensor power on vector": lambda: nisa.tensor_tensor(dst=b, data1=a, data2=a, op=nl.power,
                                                                    engine=nisa.engine.vector),
        "nc_matmul into SBUF": lambda: nisa.nc_matmul(dst=b, stationary=a[0:128, 0:128], moving=a),
        "nc_matmul double_row on 2-D tiles": lambda: nisa.nc_matmul(
            dst=p[0:128, 0:128], stationary=f8[0:128, 0:128], moving=f8[0:128, 128:256],
            perf_mode=nisa.matmul_perf_mode.double_row),
        "dma_copy from PSUM": lambda: nisa.dma_copy(dst=b, src=p),
        "dma_copy engine=sync without hwdge": lambda: nisa.dma_copy(dst=b, src=a, engine=nisa.engine.sync),
        "dma_transpose into PSUM": lambda: nisa.dma_transpose(dst=p[0:128, 0:128], src=a[0:128, 0:128]),
        # NkiTensor.ap ("NKI Access Patterns"): the first step is the free size, only on a tensor not indexed.
        "ap with a partition step that is not the free size": lambda: a.ap(pattern=[[256, 128], [1, 256]]),
        "ap of an indexed tensor": lambda: a[0:64, :].ap(pattern=[[512, 64], [1, 512]]),
        "ap past a partition's end": lambda: a.ap(pattern=[[512, 128], [2, 256]], offset=2),
        # tensor_tensor: "the same partition axis size and the same number of elements per partition".
        "tensor_tensor of 128 and 64 partitions": lambda: nisa.tensor_tensor(dst=b[0:64, :], data1=a[0:64, :],
                                                                             data2=a, op=nl.add),
        "tensor_tensor of 512 and 256 elements per partition": lambda: nisa.tensor_tensor(
            dst=b, data1=a.ap(pattern=[[512, 128], [2, 256]]), data2=a, op=nl.add),
        "tensor_tensor of a [128, 512] tile and a [128, 1] column (no broadcast)": lambda: nisa.tensor_tensor(
            dst=b, data1=a, data2=v, op=nl.add),
        # An engine access of 64 partitions starts at 0 or 64; of 32, at a multiple of 32 (start_partition).
        "tensor_copy of partitions 32:96": lambda: nisa.tensor_copy(dst=b[0:64, :], src=a[32:96, :]),
        "tensor_scalar into partitions 16:48": lambda: nisa.tensor_scalar(dst=b[16:48, :], data=a[0:32, :],
                                                                          op0=nl.add, operand0=1.0),
        "activation of partitions 0:32 of a slice at 16": lambda: nisa.activation(dst=b[0:32, :], op=nl.exp,
                                                                                  data=a[16:128, :][0:32, :]),
        # nc_stream_shuffle: 64 active partitions start at 0 or 64; a mask entry names a quadrant's partition; a
        # quadrant of dst copies from the same quadrant of src, which must have it.
        "nc_stream_shuffle from partitions 32:64 into 0:64": lambda: nisa.nc_stream_shuffle(
            dst=b[0:64, :], src=a[32:64, :], shuffle_mask=[0] * 32),
        "nc_stream_shuffle with a mask entry of 32": lambda: nisa.nc_stream_shuffle(
            dst=b[0:32, :], src=a[0:32, :], shuffle_mask=[32] + [0] * 31),
        "nc_stream_shuffle of one partition onto 128": lambda: nisa.nc_stream_shuffle(
            dst=b, src=a[0:1, :], shuffle_mask=[0] * 32),
        "nc_stream_shuffle converting f32 to f8": lambda: nisa.nc_stream_shuffle(
            dst=f8[0:32, :], src=a[0:32, 0:256], shuffle_mask=[0] * 32),
    }
    for what, call in refused.items():
        try:
            call()
            failures.append(f"the model accepted {what}")
        except ValueError:
            pass
    # What NKI does take runs: affine_select's offset by keyword, double_row on [K, 2, X] views, a copy across
    # quadrants and halves, and DMAs at any partition.
    nisa.tensor_copy(dst=b[96:128, :], src=a[0:32, :])
    nisa.tensor_copy(dst=b[:, 0:256], src=a.ap(pattern=[[512, 128], [2, 256]], offset=1))  # the odd elements
    # Two access patterns of different counts, [128, 16, 32] and [128, 32, 16]: one element per step each.
    a.data[...] = np.arange(512)
    nisa.tensor_tensor(dst=b, data1=a.ap(pattern=[[512, 128], [1, 16], [16, 32]]),
                       data2=a.ap(pattern=[[512, 128], [1, 32], [32, 16]]), op=nl.subtract)
    if not (b.data[0, 0:3] == [0.0, 16.0 - 32.0, 32.0 - 64.0]).all():  # elements k = 0, 1, 2 of each walk
        failures.append(f"tensor_tensor of two walks did not pair them element by element: {b.data[0, 0:3]}")
    # A [P, 1] operand of tensor_scalar and activation's bias and scale go with partitions, also against a walk's
    # [P, 16, 32] values: partition p gets p.
    v.data[:, 0] = np.arange(128)
    nisa.tensor_scalar(dst=b.reshape([128, 16, 32]), data=a.ap(pattern=[[512, 128], [1, 16], [16, 32]]), op0=nl.add,
                       operand0=v)
    if not (b.data[:, 0] == np.arange(128)).all() or b.data[5, 1] != 16.0 + 5:
        failures.append(f"tensor_scalar did not add a [P, 1] operand per partition to a walk: {b.data[0:6, 0:2]}")
    nisa.activation(dst=b.reshape([128, 16, 32]), op=nl.copy, data=a.ap(pattern=[[512, 128], [1, 16], [16, 32]]),
                    bias=v, scale=v)
    if b.data[5, 1] != 16.0 * 5 + 5:
        failures.append(f"activation did not take its bias and scale per partition on a walk: {b.data[5, 0:2]}")
    nisa.tensor_copy(dst=b[64:128, :], src=a[0:64, :])
    nisa.dma_copy(dst=b[5:17, :], src=a[3:15, :])
    # One partition onto a quadrant at 96 (a broadcast), and a reversal of each quadrant in place.
    a.data[0, :] = 7.0
    nisa.nc_stream_shuffle(dst=b[96:128, :], src=a[0:1, :], shuffle_mask=[0] * 32)
    if not (b.data[96:128, :] == 7.0).all():
        failures.append("nc_stream_shuffle did not broadcast partition 0 onto partitions 96:128")
    a.data[:, 0] = np.arange(128)
    nisa.nc_stream_shuffle(dst=a, src=a, shuffle_mask=[31 - i for i in range(32)])
    if list(a.data[0:33, 0]) != list(range(31, -1, -1)) + [63]:
        failures.append(f"nc_stream_shuffle did not reverse each quadrant: {a.data[0:33, 0]}")
    nisa.affine_select(dst=b, pattern=[[1, 512]], channel_multiplier=-1, on_true_tile=a, on_false_value=0.0,
                       cmp_op=nl.greater_equal, offset=511)
    nisa.nc_matmul(dst=p[0:128, 0:128], stationary=f8[0:128, 0:256].reshape([128, 2, 128]),
                   moving=f8[0:128, 0:256].reshape([128, 2, 128]), perf_mode=nisa.matmul_perf_mode.double_row)
    if not (p.data[:, 0:128] == 256.0).all():
        failures.append("double_row did not contract over both rows of each partition")
    return report(failures, f"the model's {compared} functions take NKI 0.6's parameters and refuse "
                            f"{len(refused)} things the hardware lacks")


def report(failures, success):
    for failure in failures:
        print(f"FAIL {failure}")
    if failures:
        return 1
    print(f"check_nki_rules: {success}")
    return 0


def main(argv):
    if argv[:1] == ["fixtures"] and len(argv) == 1:
        return fixtures()
    if argv[:1] == ["mutations"] and len(argv) == 3:
        return mutations(argv[1], argv[2])
    if argv[:1] == ["model"] and len(argv) == 1:
        return model()
    if argv[:1] == ["emitted"] and len(argv) >= 3:
        return emitted(argv[1], argv[2], argv[3:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
