#!/bin/sh
# scripts/check-docs.py fails a checkout whose documents point at one that does not exist, or at one outside the
# repository, and whose architecture spine names a missing file or a symbol its file does not hold: a made-up
# checkout with one mistake of each kind, then the same checkout with every mistake fixed.
#   check-docs-catches.sh PYTHON CHECKER WORKDIR
python=$1 checker=$2 root=$3
rm -rf "$root" && mkdir -p "$root/docs" "$root/src" || exit 1
git -C "$root" init -q || exit 1
printf 'int runThing() { return 1; }\n' > "$root/src/a.cpp"
# The references are put together here, so that this file does not itself point at a missing document.
md=md
printf '// see docs/missing.%s and shared/NOTES.%s\n' $md $md > "$root/src/b.cpp"
printf '| step | file | look at |\n|---|---|---|\n| 1 | `src/a.cpp` | `runOther` |\n| 2 | `src/gone.cpp` | `x` |\n' \
  > "$root/docs/architecture.md"
out=$("$python" "$checker" --root "$root")
status=$?
echo "$out"
[ $status -eq 1 ] || { echo "expected exit 1, got $status"; exit 1; }
echo "$out" | grep -q "src/b.cpp:1: docs/missing.$md does not exist" || exit 1
echo "$out" | grep -q "src/b.cpp:1: shared/NOTES.$md is outside the repository" || exit 1
echo "$out" | grep -q 'docs/architecture.md:3: src/a.cpp has no `runOther`' || exit 1
echo "$out" | grep -q 'docs/architecture.md:4: src/gone.cpp does not exist' || exit 1
printf '// see docs/architecture.md and https://example.com/elsewhere.md\n' > "$root/src/b.cpp"
printf '| step | file | look at |\n|---|---|---|\n| 1 | `src/a.cpp` | `runThing` |\n' > "$root/docs/architecture.md"
"$python" "$checker" --root "$root" || { echo "the fixed checkout was refused"; exit 1; }
echo "all four caught, the fixed checkout passes"
