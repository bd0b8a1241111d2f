#!/usr/bin/env python3
"""The installed tessera (tests/out-of-tree.cmake): it runs from the prefix alone - its libtessera.so and target files
are the prefix's, not the build tree's - and every command that takes a kernel runs the out-of-tree example's plugin.

usage: check_installed.py PREFIX PLUGIN WORK_DIR BUILD_DIR
"""
import json
import os
import shutil
import subprocess
import sys

failures = []


def check(condition, what):
    print(("ok    " if condition else "FAIL  ") + what)
    if not condition:
        failures.append(what)


def tessera(*args, expect=0):
    result = subprocess.run([TESSERA, *args], capture_output=True, text=True, timeout=600, env=ENV)
    check(result.returncode == expect,
          f"tessera {' '.join(args)}: exit {result.returncode} (expected {expect})"
          + ("" if result.returncode == expect else f"\n{result.stdout}{result.stderr}"))
    return result.stdout


prefix, plugin, work, build = (os.path.realpath(p) for p in sys.argv[1:5])
TESSERA = os.path.join(prefix, "bin", "tessera")
# Nothing from the environment points the installed tessera anywhere.
ENV = {k: v for k, v in os.environ.items() if k not in ("TESSERA_TARGET_PATH", "LD_LIBRARY_PATH")}
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)

libraries = subprocess.run(["ldd", TESSERA], capture_output=True, text=True, env=ENV).stdout
loaded = {}
for line in libraries.splitlines():
    if "=>" in line:
        name, path = line.split("=>")
        loaded[name.strip()] = os.path.realpath(path.split("(")[0].strip())
libtessera = next((path for name, path in loaded.items() if name.startswith("libtessera.so")), "")
check(libtessera.startswith(os.path.join(prefix, "lib") + os.sep),
      f"tessera loads the prefix's libtessera.so: {libtessera}")
check(not any(p.startswith(os.path.join(build, "tools") + os.sep) for p in loaded.values()),
      "tessera loads nothing from the build tree's tools/")

targets = json.loads(tessera("targets", "--json"))
target_dir = os.path.join(prefix, "share", "tessera", "targets")
check({"trn1", "trn2", "trn3", "tpu-v5e", "tpu-v6e"} <= {t["name"] for t in targets}, "the built-in targets are listed")
check(all(os.path.dirname(t["file"]) == target_dir for t in targets),
      f"every target file is the prefix's ({target_dir}): {sorted({os.path.dirname(t['file']) for t in targets})}")
check("matmul_min_cycles" in tessera("isa", "--target", "trn2", "--json"),
      "tessera isa --target trn2: its cost coefficients")

listed = {k["name"]: k for k in json.loads(tessera("list", "--json", "--plugin", plugin))}
check(listed.get("my_swiglu", {}).get("plugin") == plugin, "list: my_swiglu, from the plugin")
check(listed.get("my_linear_relu", {}).get("kernel_params") == {"bn": 512}, "list: my_linear_relu and its bn")
check("matmul" in listed and "plugin" not in listed["matmul"], "list: the library's kernels beside them")

run = json.loads(tessera("run", "my_swiglu", "--plugin", plugin, "--json"))
check(run.get("ok") is True and run.get("kernel") == "my_swiglu", "run my_swiglu: ok")
text = tessera("run", "my_linear_relu", "--plugin", plugin, "--target", "tpu-v5e", "--param", "bn=256")
check("verdict: ok" in text, "run my_linear_relu on tpu-v5e: verdict ok")
check("nc.matmul" in tessera("compile", "my_linear_relu", "--plugin", plugin, "--emit", "nc"),
      "compile my_linear_relu --emit nc: the tensor engine's matmuls")
bundle = os.path.join(work, "bundle")
tessera("deploy", "my_swiglu", "--plugin", plugin, "--target", "tpu-v5e", "-o", bundle)
check(os.path.isfile(os.path.join(bundle, "run.py")) and os.path.isfile(os.path.join(bundle, "my_swiglu.py")),
      "deploy my_swiglu: a bundle with the Pallas kernel and run.py")
sweep = json.loads(tessera("sweep", "my_linear_relu", "--plugin", plugin, "--shape", "N=1024", "--param",
                           "bn=128,256,512", "--timing-only", "--json"))
check([r["status"] for r in sweep["rows"]] == ["ok"] * 3, "sweep my_linear_relu over bn: three rows, all ok")
compare = json.loads(tessera("compare", "my_linear_relu", "--plugin", plugin, "--targets", "trn2,tpu-v5e", "--json"))
check([t["target"] for t in compare["targets"]] == ["trn2", "tpu-v5e"] and compare["ok"],
      "compare my_linear_relu on trn2 and tpu-v5e: both rows, ok")
tessera("run", "my_swiglu", expect=2)  # without the plugin: unknown

mlir = os.path.join(work, "add.mlir")
with open(mlir, "w") as f:
    f.write(tessera("compile", "add", "--emit", "tile"))
opt = subprocess.run([os.path.join(prefix, "bin", "tessera-opt"), mlir], capture_output=True, text=True, env=ENV)
check(opt.returncode == 0 and "tile.store" in opt.stdout, "tessera-opt parses and prints a tile module")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("the installed tessera runs from its prefix and runs the example's plugin")
