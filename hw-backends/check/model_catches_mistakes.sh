#!/usr/bin/env bash
# The NKI checks must be able to fail: an emitted kernel with one mistake a code generator could make (operands of
# a subtraction swapped; a call with a misspelt keyword; a division on the ALU, which NKI does not have; an SPMD
# launch on one core instead of two; a transposed store without its permute, a permute of a partition dimension)
# is caught by the NumPy model and by the manifest check (check_nki_rules.py
# tests the manifest's rules one by one).
#   model_catches_mistakes.sh TESSERA PYTHON WORKDIR
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 TESSERA PYTHON WORKDIR" >&2; exit 2; }
tessera=$1 python=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
dir="$work/nki-mistakes"
rm -rf "$dir"
"$tessera" deploy softmax --target trn2 --shape R=128,C=512 -o "$dir"
# x - max(x) becomes max(x) - x: the subtraction's reverse0 flipped.
sed -i -E 's/(nisa\.tensor_scalar\(dst=t[0-9_]+, data=t[0-9_]+, op0=nl\.subtract, operand0=t[0-9_]+)/\1, reverse0=True/' \
  "$dir/softmax.py"
grep -q 'op0=nl.subtract, operand0=t[0-9_]*, reverse0=True' "$dir/softmax.py" ||
  { echo "the mistake was not made: the emitted text changed"; exit 1; }
if PYTHONPATH="$here/nki_model" "$python" "$dir/run.py" --simulate; then
  echo "the NumPy model accepted swapped operands"; exit 1
fi
sed -i 's/nisa.dma_copy(dst=/nisa.dma_copy(dest=/' "$dir/softmax.py"
if "$python" "$here/check_nki.py" "$dir/softmax.py"; then
  echo "the manifest check accepted dma_copy(dest=...)"; exit 1
fi
# x * (1 / sum) becomes x / (1 / sum): nl.divide is not an ALU operator (there is no division instruction).
dir="$work/nki-mistakes-divide"
rm -rf "$dir"
"$tessera" deploy softmax --target trn2 --shape R=128,C=512 -o "$dir"
sed -i -E '0,/op0=nl\.multiply/s//op0=nl.divide/' "$dir/softmax.py"
grep -q 'op0=nl.divide' "$dir/softmax.py" || { echo "the mistake was not made: the emitted text changed"; exit 1; }
if "$python" "$here/check_nki.py" "$dir/softmax.py" > "$dir/check.log"; then
  echo "the manifest check accepted nl.divide"; exit 1
fi
grep -q 'rule alu-operators' "$dir/check.log" || { cat "$dir/check.log"; echo "not refused as an ALU operator"; exit 1; }
if PYTHONPATH="$here/nki_model" "$python" "$dir/run.py" --simulate > "$dir/simulate.log" 2>&1; then
  echo "the NumPy model accepted nl.divide"; exit 1
fi
grep -q "divide is not an operator of NKI's ALU table" "$dir/simulate.log" ||
  { tail -5 "$dir/simulate.log"; echo "the model failed, but not on nl.divide"; exit 1; }
# add_spmd's launch on trn2 is kernel[2] (the logical NeuronCore's two cores, each one program of axis 0); launched
# on one core, only program 0's rows are written.
dir="$work/nki-mistakes-spmd"
rm -rf "$dir"
"$tessera" deploy add_spmd --target trn2 -o "$dir"
grep -q '^    i = nl.program_id(0)$' "$dir/add_spmd.py" || { echo "add_spmd does not read its program id"; exit 1; }
sed -i 's/^LAUNCH_GRID = (2,)$/LAUNCH_GRID = (1,)/' "$dir/add_spmd.py"
grep -q '^LAUNCH_GRID = (1,)$' "$dir/add_spmd.py" || { echo "the mistake was not made: the emitted text changed"; exit 1; }
if PYTHONPATH="$here/nki_model" "$python" "$dir/run.py" --simulate; then
  echo "the NumPy model accepted an SPMD launch on one core of two"; exit 1
fi
# tut_sd_attention stores its [d_head, 128] result through the window's transpose (out_ref[...].permute((1, 0)));
# stored without the permute, the rows land as columns. And a permute that moves an on-chip tile's partition
# dimension is refused (NkiTensor: views keep it).
dir="$work/nki-mistakes-transposed-store"
rm -rf "$dir"
"$tessera" deploy tut_sd_attention --target trn2 -o "$dir"
grep -q 'nisa.dma_copy(dst=out_ref\[.*\]\.permute((1, 0)), src=' "$dir/tut_sd_attention.py" ||
  { echo "tut_sd_attention does not store through a transposed window"; exit 1; }
cp "$dir/tut_sd_attention.py" "$dir/emitted.py"
sed -i 's/\(dst=out_ref\[[^]]*\]\)\.permute((1, 0))/\1/' "$dir/tut_sd_attention.py"
grep -q 'permute' "$dir/tut_sd_attention.py" && grep -q 'dst=out_ref\[.*\]\.permute' "$dir/tut_sd_attention.py" &&
  { echo "the mistake was not made: the emitted text changed"; exit 1; }
if PYTHONPATH="$here/nki_model" "$python" "$dir/run.py" --simulate; then
  echo "the NumPy model accepted a transposed store without its permute"; exit 1
fi
cp "$dir/emitted.py" "$dir/tut_sd_attention.py"
sed -i -E '0,/nisa\.tensor_copy\(dst=(t[0-9_]+), /s//nisa.tensor_copy(dst=\1.permute((1, 0)), /' "$dir/tut_sd_attention.py"
grep -q 'tensor_copy(dst=t[0-9_]*\.permute((1, 0))' "$dir/tut_sd_attention.py" ||
  { echo "the mistake was not made: the emitted text changed"; exit 1; }
if PYTHONPATH="$here/nki_model" "$python" "$dir/run.py" --simulate > "$dir/simulate.log" 2>&1; then
  echo "the NumPy model accepted a permute of an on-chip tile's partition dimension"; exit 1
fi
grep -q "moves the partition dimension of an on-chip tensor" "$dir/simulate.log" ||
  { tail -5 "$dir/simulate.log"; echo "the model failed, but not on the permute"; exit 1; }
echo "all six mistakes caught"
