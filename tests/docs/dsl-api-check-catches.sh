#!/bin/sh
# scripts/check-dsl-docs.py fails a docs/dsl.md that leaves out a public name of the DSL's headers, one that names
# a tsr:: function no header declares, one whose cpp example calls such a function, and headers that declare a
# public name the document lacks (but not a detail:: or \internal one): copies of the real document and headers,
# each with one change, after the unchanged copies pass.
#   dsl-api-check-catches.sh PYTHON CHECKER SOURCE_DIR WORKDIR
python=$1 checker=$2 src=$3 root=$4
rm -rf "$root" && mkdir -p "$root" || exit 1
cp "$src/docs/dsl.md" "$root/dsl.md" && cp -R "$src/nki-like-dsl/include/tessera/dsl" "$root/headers" || exit 1
check() { "$python" "$checker" --root "$root" --doc "$1" --headers "$2"; }
check "$root/dsl.md" "$root/headers" || { echo "the unchanged copies were refused"; exit 1; }

# 1. An entry removed: the lines that name tsr::isa::max8.
grep -v 'isa::max8' "$root/dsl.md" > "$root/removed.md"
out=$(check "$root/removed.md" "$root/headers")
status=$?
echo "$out"
[ $status -eq 1 ] || { echo "max8's entry removed: expected exit 1, got $status"; exit 1; }
echo "$out" | grep -q 'headers/isa/Reductions.h:[0-9]*: tsr::isa::max8 (function) is not documented' || exit 1

# 2. A bogus name added, as a list item.
{ cat "$root/dsl.md"; printf '\n- `tsr::isa::max9(dst, src)`: the 9 largest values\n'; } > "$root/bogus.md"
line=$(grep -n 'isa::max9' "$root/bogus.md" | cut -d: -f1)
out=$(check "$root/bogus.md" "$root/headers")
status=$?
echo "$out"
[ $status -eq 1 ] || { echo "a bogus tsr::isa::max9 added: expected exit 1, got $status"; exit 1; }
echo "$out" | grep -q "bogus.md:$line: \`tsr::isa::max9\` is not a public name" || exit 1

# 3. A cpp example that calls a function no header declares.
fence='```'
{ cat "$root/dsl.md"; printf '\n%scpp\ntsr::Tile y = tsr::activation(tsr::act::expm1, x);\n%s\n' "$fence" "$fence"; } \
  > "$root/example.md"
out=$(check "$root/example.md" "$root/headers")
status=$?
echo "$out"
[ $status -eq 1 ] || { echo "an example with tsr::act::expm1: expected exit 1, got $status"; exit 1; }
echo "$out" | grep -q '`tsr::act::expm1` in a cpp example is not a public name' || exit 1

# 4. A new public function in a header, with a detail:: one and an \internal one beside it.
cp -R "$root/headers" "$root/headers-new" || exit 1
printf 'namespace tsr {\nvoid bogus_new_op();\n/// \\internal\nvoid hidden_by_comment();\n}\n' \
  >> "$root/headers-new/Ops.h"
printf 'namespace tsr::detail {\nvoid hidden_in_detail();\n}\n' >> "$root/headers-new/Ops.h"
out=$(check "$root/dsl.md" "$root/headers-new")
status=$?
echo "$out"
[ $status -eq 1 ] || { echo "a header with tsr::bogus_new_op: expected exit 1, got $status"; exit 1; }
echo "$out" | grep -q 'headers-new/Ops.h:[0-9]*: tsr::bogus_new_op (function) is not documented' || exit 1
if echo "$out" | grep -q 'hidden_'; then echo "a detail:: or \\internal name was reported"; exit 1; fi
echo "all four caught, the unchanged copies pass"
