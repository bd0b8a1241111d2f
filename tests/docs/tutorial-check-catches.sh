#!/bin/sh
# scripts/tutorial-check.py fails a page whose command prints something else than the page shows, and a page
# whose quote is not in the file it names: a made-up checkout with one page of each.
#   tutorial-check-catches.sh PYTHON CHECKER TESSERA WORKDIR
python=$1 checker=$2 tessera=$3 root=$4
rm -rf "$root" && mkdir -p "$root/docs/tutorial" "$root/src" || exit 1
printf 'int one() { return 1; }\n' > "$root/src/k.cpp"
printf '```console\n$ tessera list --json\nnot what it prints\n```\n' > "$root/docs/tutorial/a.md"
printf '```cpp\n// src/k.cpp\nint two() { return 2; }\n```\n' > "$root/docs/tutorial/b.md"
out=$("$python" "$checker" "$tessera" "$root")
status=$?
echo "$out"
[ $status -eq 1 ] || { echo "expected exit 1, got $status"; exit 1; }
echo "$out" | grep -q 'a.md: `tessera list --json` prints something else now' || exit 1
echo "$out" | grep -q 'b.md: a quote of src/k.cpp' || exit 1
echo "both caught"
