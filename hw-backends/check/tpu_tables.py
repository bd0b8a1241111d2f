#!/usr/bin/env python3
"""Regenerates the tables of what the real TPU compiler (libtpu, deviceless) makes of every library kernel:

  tpu_tables.py TESSERA WORKDIR [--compile-doc docs/backends.md] [--estimate-doc docs/fidelity.md] [--kernels a,b]

Run it with the backend environment's python (scripts/backend-venv.sh: jax, jaxlib, libtpu pinned). For each
library kernel (`tessera list`) it deploys a bundle per target and Pallas style and runs the bundle's runner:
`run.py --estimate --measure-vmem` on v5e and v6e (compile, libtpu's static cycle estimate, then a second compile
under a one-tile VMEM limit whose refusal says how much VMEM Mosaic allocates), `run.py --compile --measure-vmem`
on v4, v5p and 7x (auto style, one shape). A module that is the same text as one already compiled for the same
topology is not compiled again. Shapes are the kernels' defaults except where a row says otherwise.

--compile-doc writes the compile table (pass/fail, error at its kernel line, compile seconds, Mosaic's VMEM against
Tessera's simulated peak and the module's buffers) between the markers `<!-- tpu_tables.py compile -->` and
`<!-- /tpu_tables.py compile -->` of that file; --estimate-doc the estimate table between `<!-- tpu_tables.py
estimate -->` and `<!-- /tpu_tables.py estimate -->`. Without them the tables are printed. The compile times are
this machine's (2 cores, shared): they vary by tens of percent from run to run. Each run also writes its rows to
WORKDIR/rows.json; --from-rows FILE writes the tables from such a file without compiling.
"""
import argparse
import hashlib
import json
import os
import re
import subprocess
import sys

GENERATIONS = {"tpu-v5e": "v5e", "tpu-v6e": "v6e", "tpu-v4": "v4", "tpu-v5p": "v5p", "tpu-7x": "7x"}
# Extra rows, in both styles: matmul_blocked at 2048^3, the cases issue 18 found out of VMEM (Mosaic's spill slots
# on the unrolled modules of before) and slow to compile.
EXTRA = [("matmul_blocked", style, shape) for style in ("manual", "auto")
         for shape in (["--shape", "M=2048,N=2048,K=2048", "--param", "bm=512,bn=512,bk=512"],
                       ["--shape", "M=2048,N=2048,K=2048", "--param", "bm=1024,bn=1024,bk=1024"])]


def module_key(path, topology):
    """The module's text after its docstring (the command line in the docstring differs between styles)."""
    with open(path) as f:
        text = f.read()
    body = text.split('"""', 2)[-1]
    return hashlib.sha256((topology + body).encode()).hexdigest()


def run_case(tessera, work, kernel, style, target, extra, estimate, cache):
    name = "-".join([kernel, style, target] + [re.sub(r"[^A-Za-z0-9=]", "", a) for a in extra if not a.startswith("--")])
    bundle = os.path.join(work, name)
    subprocess.run(["rm", "-rf", bundle], check=True)
    deployed = subprocess.run([tessera, "deploy", kernel, "--target", target, "--pallas-style", style, "-o", bundle]
                              + extra, capture_output=True, text=True)
    row = {"kernel": kernel, "style": style, "target": target, "args": " ".join(extra)}
    if deployed.returncode != 0:
        row.update(ok=False, error="tessera deploy failed: " + (deployed.stderr.strip().splitlines() or ["?"])[-1])
        return row
    with open(os.path.join(bundle, "tessera.json")) as f:
        manifest = json.load(f)
    path = os.path.join(bundle, manifest["module"])
    with open(path) as f:
        text = f.read()
    emitted = re.search(r"Pallas TPU, (\w+) style", text)
    need = re.search(r"# VMEM: the buffers take ([\d.]+) MiB", text)
    row.update(emitted=emitted.group(1) if emitted else "?", lines=text.count("\n"),
               tessera_vmem=(manifest.get("tpu") or {}).get("vmem_peak_bytes"),
               raised_limit=bool(need), tessera_us=manifest["predicted"]["time_us"],
               tessera_cycles=manifest["predicted"]["cycles"])
    topology = (manifest.get("tpu") or {}).get("topology")
    key = module_key(path, topology or "")
    if key in cache:
        row.update({k: v for k, v in cache[key].items() if k != "style"}, same_as=cache[key]["style"])
        return row
    record = os.path.join(bundle, "record.json")
    mode = "--estimate" if estimate else "--compile"
    ran = subprocess.run([sys.executable, os.path.join(bundle, "run.py"), mode, "--measure-vmem", "--record", record],
                         capture_output=True, text=True)
    try:
        with open(record) as f:
            result = json.load(f)
    except (OSError, ValueError):
        row.update(ok=False, error=f"run.py {mode} wrote no record: " + (ran.stderr.strip().splitlines() or ["?"])[-1])
        return row
    compiled = result.get("compile", {})
    found = {"ok": bool(compiled.get("ok")), "seconds": compiled.get("seconds"), "error": compiled.get("error"),
             "kernel_line": compiled.get("kernel_line"), "mosaic_vmem": compiled.get("mosaic_vmem_bytes"),
             "vmem_need": compiled.get("vmem_need_bytes"), "versions": compiled.get("versions"),
             "device_kind": compiled.get("device_kind"), "estimate": result.get("estimate"),
             "estimate_error": result.get("estimate_error"), "style": style}
    cache[key] = found
    row.update(found)
    return row


def mib(b):
    return "" if b is None or b < 0 else f"{b / 2**20:.2f}"


def sentences(text, most=170):
    """The first sentences of an error message, up to `most` characters."""
    if len(text) <= most:
        return text
    cut = text[:most].rfind(". ")
    return text[:cut + 1] if cut > 40 else text[:most] + "..."


def compile_table(rows):
    out = ["| kernel | style (emitted) | target | result | compile s | Mosaic VMEM MiB | Tessera VMEM peak MiB | "
           "module lines |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        style = r["style"] + (f" ({r['emitted']})" if r.get("emitted") and r["emitted"] != r["style"] else "")
        if r.get("same_as"):
            style += f", the {r['same_as']} module"
        kernel = r["kernel"] + (f" `{r['args']}`" if r["args"] else "")
        if r.get("ok"):
            result = "pass" + (" (vmem_limit_bytes raised)" if r.get("raised_limit") else "")
        else:
            where = f"`{r['kernel_line']}`: " if r.get("kernel_line") else ""
            result = f"FAIL: {where}{sentences(r.get('error') or '?').replace('|', '/')}"
        mosaic = mib(r.get("mosaic_vmem")) if r.get("ok") else mib(r.get("vmem_need"))
        out.append(f"| {kernel} | {style} | {r['target']} | {result} | {r.get('seconds') or ''} | {mosaic} | "
                   f"{mib(r.get('tessera_vmem'))} | {r.get('lines', '')} |")
    return "\n".join(out)


def estimate_table(rows):
    out = ["| kernel | style (emitted) | target | libtpu estimated_cycles | libtpu us | Tessera cycles | Tessera us | "
           "libtpu / Tessera |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        e = r.get("estimate")
        if not e:
            continue
        style = r["style"] + (f" ({r['emitted']})" if r.get("emitted") and r["emitted"] != r["style"] else "")
        if r.get("same_as"):
            style += f", the {r['same_as']} module"
        ratio = e["estimated_us"] / r["tessera_us"] if e.get("estimated_us") and r["tessera_us"] else None
        kernel = r["kernel"] + (f" `{r['args']}`" if r["args"] else "")
        out.append(f"| {kernel} | {style} | {r['target']} | {e['estimated_cycles']} | {e['estimated_us']:.3f} | "
                   f"{r['tessera_cycles']:.0f} | {r['tessera_us']:.3f} | {ratio:.2f} |")
    failed = {}  # libtpu's reason (without its numbers and the instruction it names) -> the modules
    for r in rows:
        if r.get("estimate_error") and not r.get("same_as"):
            reason = re.sub(r"(:\s*\d+|\s*%.*)$", "", r["estimate_error"].strip())
            failed.setdefault(reason, []).append(
                f"{r['kernel']}{' `' + r['args'] + '`' if r['args'] else ''} {r['style']} on {r['target']}")
    for reason, modules in failed.items():
        out.append("")
        out.append(f"No estimate: libtpu's static profiler aborted (`{reason}`) on {len(modules)} modules: "
                   + ", ".join(modules) + ".")
    ratios = sorted(r["estimate"]["estimated_us"] / r["tessera_us"] for r in rows
                    if r.get("estimate") and r["tessera_us"] and not r.get("same_as"))
    if ratios:
        out.append("")
        out.append(f"libtpu / Tessera over the {len(ratios)} distinct modules: {ratios[0]:.2f} to {ratios[-1]:.2f} "
                   f"(median {ratios[len(ratios) // 2]:.2f}).")
    return "\n".join(out)


def write_between(path, name, text):
    begin, end = f"<!-- tpu_tables.py {name} -->", f"<!-- /tpu_tables.py {name} -->"
    with open(path) as f:
        doc = f.read()
    if begin not in doc or end not in doc:
        sys.exit(f"tpu_tables.py: {path} has no {begin} ... {end} section to write into")
    head, rest = doc.split(begin, 1)
    _, tail = rest.split(end, 1)
    with open(path, "w") as f:
        f.write(f"{head}{begin}\n{text}\n{end}{tail}")
    print(f"tpu_tables.py: wrote the {name} table into {path}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("tessera")
    parser.add_argument("work")
    parser.add_argument("--compile-doc")
    parser.add_argument("--estimate-doc")
    parser.add_argument("--kernels", help="comma-separated (default: every library kernel)")
    parser.add_argument("--from-rows", help="write the tables from the rows.json of an earlier run, compiling nothing")
    args = parser.parse_args()
    if args.from_rows:
        with open(args.from_rows) as f:
            rows = json.load(f)
        return write_tables(rows, args)
    listed = json.loads(subprocess.run([args.tessera, "list", "--json"], check=True, capture_output=True,
                                       text=True).stdout)
    kernels = sorted(k["name"] for k in listed if not k["name"].startswith("bug_"))
    if args.kernels:
        kernels = [k for k in kernels if k in args.kernels.split(",")]
    os.makedirs(args.work, exist_ok=True)
    cache, rows = {}, []
    cases = []
    for target in ("tpu-v5e", "tpu-v6e"):
        for kernel in kernels:
            for style in ("manual", "auto"):
                cases.append((kernel, style, target, [], True))
        for kernel, style, extra in EXTRA:
            if kernel in kernels:
                cases.append((kernel, style, target, extra, True))
    for target in ("tpu-v4", "tpu-v5p", "tpu-7x"):
        for kernel in kernels:
            cases.append((kernel, "auto", target, [], False))
    for kernel, style, target, extra, estimate in cases:
        row = run_case(args.tessera, args.work, kernel, style, target, extra, estimate, cache)
        rows.append(row)
        status = "ok" if row.get("ok") else f"FAIL {row.get('error', '')[:80]}"
        print(f"{kernel} {style} {target} {' '.join(extra)}: {status} {row.get('seconds', '')} s", flush=True)
    with open(os.path.join(args.work, "rows.json"), "w") as f:
        json.dump(rows, f, indent=1)
    return write_tables(rows, args)


def write_tables(rows, args):
    versions = next((r["versions"] for r in rows if r.get("versions")), {})
    stamp = (f"jax {versions.get('jax')}, jaxlib {versions.get('jaxlib')}, libtpu {versions.get('libtpu')}; "
             f"generated by `hw-backends/check/tpu_tables.py`")
    compile_text = f"Versions: {stamp}.\n\n{compile_table(rows)}"
    estimate_rows = [r for r in rows if r["target"] in ("tpu-v5e", "tpu-v6e")]
    estimate_text = f"Versions: {stamp}.\n\n{estimate_table(estimate_rows)}"
    if args.compile_doc:
        write_between(args.compile_doc, "compile", compile_text)
    if args.estimate_doc:
        write_between(args.estimate_doc, "estimate", estimate_text)
    if not args.compile_doc and not args.estimate_doc:
        print(compile_text)
        print()
        print(estimate_text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
