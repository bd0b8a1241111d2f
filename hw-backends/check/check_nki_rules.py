#!/usr/bin/env python3
"""Tests check_nki.py's rules (the manifest's "rules" sections): each can fail, and Tessera's kernels keep them.

  check_nki_rules.py fixtures                      every fixture (fixtures/*.py) is rejected with exactly the
                                                   rules its '# expect:' comments name, at those lines, each with
                                                   its documentation page; together they break every rule
  check_nki_rules.py mutations TESSERA WORKDIR     emitted kernels with one mistake each (an nl.divide, a trn2
                                                   kernel checked for trn1, ...) are rejected with the rule
  check_nki_rules.py emitted TESSERA WORKDIR [KERNEL:NAME=VALUE...]
                                                   every library kernel (tessera list, not bug_*), and the given
                                                   variants, emitted for trn1, trn2 and trn3 keeps every rule; a
                                                   kernel tessera refuses for a target is listed with the reason
Exit status 0 when all holds, 1 otherwise. Standard library only.
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
    ("attention_fwd", "trn2", None, ["--target", "trn1"], "nki.isa.tensor_copy", "tensor-copy-scalar-nc-v3"),
    ("transpose2d:engine=2", "trn2", None, ["--target", "trn1"], "nki.isa.dma_transpose", "dma-transpose-nc-v3"),
    ("matmul_fp8:rows=2", "trn3", (r"(stationary=\w+\[[^]]*\])\.reshape\(\[128, 2, 128\]\)", r"\1", 1), [],
     "nki.isa.nc_matmul", "double-row-layout"),
    ("matmul_blocked", "trn2", (r"(data2=t\d+_\d+, op=nl\.add, )engine=nisa\.engine\.vector",
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
    if argv[:1] == ["emitted"] and len(argv) >= 3:
        return emitted(argv[1], argv[2], argv[3:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
