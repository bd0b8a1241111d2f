#!/usr/bin/env bash
# The TPU checks must be able to fail. Each one is fed an input with one mistake and must reject it:
#   1. libtpu_vmem_limits.py: a target file whose [libtpu] scoped_vmem_default_bytes is 32 MiB on v5e (libtpu's is 16);
#   2. run.py --compile: a module whose vmem_limit_bytes is smaller than its buffers: a VMEM error, exit 1;
#   3. a manual-style kernel with one .wait() deleted (its first load's: a tile the next matmul reads), and one with
#      the last .wait() deleted (the store of the output): check_dma_waits.py rejects both at the line. And
#      what Pallas' interpret mode with detect_races=True does with them (jax 0.12.0.1), asserted as
#      docs/backends.md says, so that a jax that does otherwise shows here: with its default
#      dma_execution_mode="on_wait" the copy is never done, no race is reported and only the outputs show it; with
#      "eager" the deleted load wait gives right outputs, no race, and a printed (not raised) "Semaphore ... has
#      non-zero count ... at kernel exit"; the deleted store wait is reported as a race (the copy into the output
#      against the read of the output after the kernel).
#   tpu_checks_catch_mistakes.sh TESSERA PYTHON WORKDIR
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 TESSERA PYTHON WORKDIR" >&2; exit 2; }
tessera=$1 python=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
dir="$work/tpu-mistakes"
rm -rf "$dir"
mkdir -p "$dir"

echo "== 1. a wrong [libtpu] figure"
sed -E 's/^scoped_vmem_default_bytes = 16_777_216/scoped_vmem_default_bytes = 33_554_432/' \
  "$root/isa/targets/tpu-v5e.toml" > "$dir/tpu-v5e-wrong.toml"
grep -q '^scoped_vmem_default_bytes = 33_554_432' "$dir/tpu-v5e-wrong.toml" || { echo "the mistake was not made"; exit 1; }
if "$python" "$here/libtpu_vmem_limits.py" "$dir/tpu-v5e-wrong.toml" > "$dir/limits.log" 2>&1; then
  cat "$dir/limits.log"; echo "libtpu_vmem_limits.py accepted a 32 MiB default scoped limit on v5e"; exit 1
fi
grep -E "tpu-v5e-wrong.toml:[0-9]+: error: \[libtpu\] scoped_vmem_default_bytes" "$dir/limits.log" ||
  { cat "$dir/limits.log"; echo "no error at the file's line"; exit 1; }

echo "== 2. a VMEM limit smaller than the kernel's buffers"
"$tessera" deploy matmul_tiled --target tpu-v5e --shape M=256,N=512,K=256 --pallas-style manual -o "$dir/vmem"
sed -i 's/^        interpret=interpret,$/        compiler_params=pltpu.CompilerParams(vmem_limit_bytes=65536),\n        interpret=interpret,/' \
  "$dir/vmem/matmul_tiled.py"
grep -q 'vmem_limit_bytes=65536' "$dir/vmem/matmul_tiled.py" || { echo "the mistake was not made"; exit 1; }
if "$python" "$dir/vmem/run.py" --compile > "$dir/vmem.log" 2>&1; then
  cat "$dir/vmem.log"; echo "run.py --compile accepted a 64 KiB VMEM limit"; exit 1
fi
cat "$dir/vmem.log"
grep -E "error: CompileTimeScopedVmemOom: Mosaic needs [0-9.]+[KM]iB of VMEM, the scoped limit is 64.0KiB" "$dir/vmem.log" ||
  { echo "not reported as a VMEM error"; exit 1; }
grep -E "at .*matmul_tiled.py:[0-9]+" "$dir/vmem.log" || { echo "no line named"; exit 1; }

echo "== 3. a deleted .wait()"
"$tessera" deploy matmul_tiled --target tpu-v5e --shape M=256,N=512,K=256 --pallas-style manual -o "$dir/race"
"$python" "$here/check_dma_waits.py" "$dir/race/matmul_tiled.py"   # the module as emitted passes
# A module the checker cannot run is never passed: exit 2, at the module's line.
cp -r "$dir/race" "$dir/race-unrunnable"
sed -i '/^def _matmul_tiled_kernel(/a\    no_such_name' "$dir/race-unrunnable/matmul_tiled.py"
st=0; "$python" "$here/check_dma_waits.py" "$dir/race-unrunnable/matmul_tiled.py" 2> "$dir/race-unrunnable.log" || st=$?
[ $st = 2 ] || { cat "$dir/race-unrunnable.log"; echo "check_dma_waits.py: exit $st on a module it cannot run, expected 2"; exit 1; }
grep -q "matmul_tiled.py:[0-9]*: cannot run the module's function under the checker (NameError" "$dir/race-unrunnable.log" ||
  { cat "$dir/race-unrunnable.log"; echo "the unrunnable module's line is not named"; exit 1; }
"$python" "$here/interpret_modes.py" "$dir/race" > "$dir/race-intact.log"
cat "$dir/race-intact.log"
[ "$(grep -c '"races_found": false, "outputs_match": true, "semaphore_left_signalled": false, "error": null' "$dir/race-intact.log")" = 2 ] ||
  { echo "the intact kernel does not pass interpret mode in both DMA modes"; exit 1; }
cp -r "$dir/race" "$dir/race-load"
first=$(grep -n -m1 -E 'load_[a-z_0-9]+\(.*\)\.wait\(\)$' "$dir/race-load/matmul_tiled.py" | cut -d: -f1)
sed -i "${first}d" "$dir/race-load/matmul_tiled.py"
cp -r "$dir/race" "$dir/race-store"
last=$(grep -n -E 'store_[a-z_0-9]+\(.*\)\.wait\(\)$' "$dir/race-store/matmul_tiled.py" | tail -1 | cut -d: -f1)
sed -i "${last}d" "$dir/race-store/matmul_tiled.py"
for which in load store; do
  module="$dir/race-$which/matmul_tiled.py"
  if "$python" "$here/check_dma_waits.py" "$module" > "$dir/race-$which-check.log"; then
    cat "$dir/race-$which-check.log"; echo "check_dma_waits.py accepted a deleted wait ($which)"; exit 1
  fi
  cat "$dir/race-$which-check.log"
  grep -E "matmul_tiled.py:[0-9]+: error: .*(no \.wait\(\) before|never waited on).*\(kernel matmul_tiled.cpp:[0-9]+\)" \
    "$dir/race-$which-check.log" > /dev/null || { echo "not reported at a module and kernel line"; exit 1; }
  "$python" "$here/interpret_modes.py" "$dir/race-$which" > "$dir/race-$which-interpret.log"
  cat "$dir/race-$which-interpret.log"
  grep -q '"dma_execution_mode": "on_wait", "races_found": false, "outputs_match": false, "semaphore_left_signalled": false, "error": null' \
    "$dir/race-$which-interpret.log" || { echo "interpret mode (on_wait) did other than docs/backends.md says"; exit 1; }
  case $which in
    load) eager='"dma_execution_mode": "eager", "races_found": false, "outputs_match": true, "semaphore_left_signalled": true, "error": null' ;;
    store) eager='"dma_execution_mode": "eager", "races_found": true, "outputs_match": false, "semaphore_left_signalled": false, "error": "JaxRuntimeError: RACE DETECTED' ;;
  esac
  grep -q "$eager" "$dir/race-$which-interpret.log" || { echo "interpret mode (eager) did other than docs/backends.md says"; exit 1; }
done
echo "== 4. compile_tpu.py on modules tessera compile --emit pallas writes: one that compiles, one that does not"
"$tessera" compile softmax --target tpu-v6e --emit pallas --pallas-style auto -o "$dir/softmax_pallas.py"
"$python" "$here/compile_tpu.py" "$dir/softmax_pallas.py"
# conv2d at stride 2 reads its input's phases with lane-strided vector loads, which Mosaic does not implement.
"$tessera" compile conv2d --target tpu-v5e --param stride=2 --emit pallas -o "$dir/conv2d_pallas.py"
if "$python" "$here/compile_tpu.py" "$dir/conv2d_pallas.py" > "$dir/conv2d-compile.log" 2>&1; then
  cat "$dir/conv2d-compile.log"; echo "compile_tpu.py accepted conv2d stride=2, which Mosaic refuses (docs/backends.md)"; exit 1
fi
cat "$dir/conv2d-compile.log"
grep -E "^  conv2d\.cpp:[0-9]+: error: .*Stride on last dim is not 1" "$dir/conv2d-compile.log" \
  > /dev/null || { echo "not reported at conv2d's kernel line"; exit 1; }
echo "every mistake caught; interpret mode did with the deleted waits what docs/backends.md says"
