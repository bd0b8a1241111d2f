#!/usr/bin/env bash
# The NKI checks must be able to fail: an emitted kernel with one mistake a code generator could make (operands of
# a subtraction swapped; a call with a misspelt keyword) is caught by the NumPy model and by the manifest check.
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
echo "both mistakes caught"
