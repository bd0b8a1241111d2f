#!/usr/bin/env python3
"""Shows that pallas_differential.py can fail: three mistakes planted in emitted Pallas modules of random kernels,
each of which it must catch (exit status 1), while the same bundles unchanged agree (exit status 0).

  pallas_differential_mutations.py TESSERA_DIFFTEST WORKDIR

It writes the manual-style bundles of seeds 1..40 (tessera-difftest --pallas) into WORKDIR/bundles, then for each
mistake takes the first seed, in order, whose kernel has a live op of that kind (one the stored outputs depend on:
from the kernel's text in difftest.json), changes every such statement in its module, and checks a copy of that one
bundle:
- a wrong constant: every jnp.full's value plus 0.5;
- a dropped op: every jnp.exp(x) becomes x;
- a swapped operand: every subtraction a - b of two different tiles becomes b - a.
Exit status: 0 every mistake caught and the unchanged bundles agree, 1 otherwise, 2 bad usage.
"""
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pallas_differential  # noqa: E402

SEEDS = "1..40"
# An operand: a ref's window, t4[0, 0:96, 0:256] or t4[...].astype(jnp.float32), or a value, t4.
TILE = r"(?:\w+\[[^\]]*\](?:\.astype\(jnp\.\w+\))?|\b[A-Za-z_]\w*\b(?![\[(.]))"


def wrong_constant(line):
    return re.sub(r"(jnp\.full\(\([^)]*\), )(-?[0-9.]+)", lambda m: f"{m.group(1)}{float(m.group(2)) + 0.5}", line)


def dropped_op(line):
    return re.sub(r"jnp\.exp\((" + TILE + r")\)", r"(\1)", line)


def swapped_operand(line):
    return re.sub(f"({TILE}) - ({TILE})", lambda m: m.group(0) if m.group(1) == m.group(2) else
                  f"{m.group(2)} - {m.group(1)}", line)


# Each mistake, its change to a module's statement, and the kernel op (in KernelSpec::str()'s text) it changes.
MISTAKES = (("wrong constant", wrong_constant, "full"), ("dropped op", dropped_op, "Exp"),
            ("swapped operand", swapped_operand, "Subtract"))


def live_ops(kernel_text):
    """The ops (by name) of a KernelSpec's text that a stored output depends on: "  v5 = Subtract(v2, v3)" lines,
    walked back from "  store(out[i, j], v7)". A copy counts as its source: Subtract(v1, copy(v1)) is 0 (or
    a rounding residue) either way round, so it is no operand order a mistake could be seen in."""
    defs, live, source = {}, set(), {}
    for line in kernel_text.splitlines():
        d = re.match(r"\s+v(\d+) = (\w+)[^(;]*\(?([^;]*)", line)
        if d:
            operands = [int(v) for v in re.findall(r"v(\d+)", d.group(3))]
            if d.group(2) == "copy" and len(operands) == 1:
                source[int(d.group(1))] = source.get(operands[0], operands[0])
            roots = [source.get(v, v) for v in operands]
            distinct = len(set(roots)) == len(roots)  # Subtract(v1, v1) is 0 either way round
            defs[int(d.group(1))] = (d.group(2), operands, distinct)
        st = re.match(r"\s+store\(\w+\[i, j\], v(\d+)\)", line)
        if st:
            live.add(int(st.group(1)))
    work, ops = list(live), set()
    while work:
        value = work.pop()
        if value not in defs:
            continue
        op, operands, distinct = defs[value]
        if distinct:
            ops.add(op)
        for v in operands:
            if v not in live:
                live.add(v)
                work.append(v)
    return ops


def mutate(source, change):
    """`source` with `change` applied to each statement of the kernel body; None when no statement changes."""
    lines = source.splitlines(keepends=True)
    changed = [change(l) if "[...] =" in l or re.match(r"\s+t\d+(\[| = )", l) else l for l in lines]
    return "".join(changed) if changed != lines else None


def one_bundle(listing, seed, style, source_dir, work, module_text=None):
    """A folder holding one seed's bundle (its module replaced by `module_text`) and its own difftest.json."""
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    shutil.copytree(os.path.join(source_dir, style["bundle"]), os.path.join(work, style["bundle"]))
    if module_text is not None:
        with open(os.path.join(work, style["bundle"], f"diff_{seed['seed']}.py"), "w") as f:
            f.write(module_text)
    with open(os.path.join(work, "difftest.json"), "w") as f:
        json.dump(dict(listing, seeds=[dict(seed, styles=[style])]), f)
    return work


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    difftest, work = sys.argv[1], os.path.abspath(sys.argv[2])
    bundles = os.path.join(work, "bundles")
    shutil.rmtree(bundles, ignore_errors=True)
    subprocess.run([difftest, "--seeds", SEEDS, "--target", "tpu-v5e", "--pallas", bundles, "--pallas-style",
                    "manual"], check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(bundles, "difftest.json")) as f:
        listing = json.load(f)
    failed = 0
    for name, change, op in MISTAKES:
        found = None
        for seed in listing["seeds"]:
            if op not in live_ops(seed["kernel"]):
                continue
            for style in seed["styles"]:
                if not style["bundle"]:
                    continue
                with open(os.path.join(bundles, style["bundle"], f"diff_{seed['seed']}.py")) as f:
                    mutated = mutate(f.read(), change)
                if mutated:
                    found = (seed, style, mutated)
                    break
            if found:
                break
        if not found:
            print(f"{name}: no kernel of seeds {SEEDS} has a live {op} with a statement to change; widen SEEDS")
            failed += 1
            continue
        seed, style, mutated = found
        tag = name.replace(" ", "-")
        clean = pallas_differential.run(one_bundle(listing, seed, style, bundles, os.path.join(work, tag + "-clean")))
        planted = pallas_differential.run(one_bundle(listing, seed, style, bundles, os.path.join(work, tag), mutated))
        clean_status, planted_status = (pallas_differential.exit_status(s) for s in (clean, planted))
        caught = clean_status == 0 and planted_status == 1
        detail = "; ".join(f"output {m['output']}: " + (m.get("error") or f"max abs err {m['max_abs_err']}, first bad "
                                                          f"index {m['first_bad_index']} ({m['rule']})")
                           for m in planted["mismatches"])
        print(f"{name} in seed {seed['seed']} ({style['bundle']}): unchanged exit {clean_status}, with the mistake "
              f"exit {planted_status}: {'caught' if caught else 'NOT CAUGHT'} ({detail or 'no mismatch'})")
        failed += not caught
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
