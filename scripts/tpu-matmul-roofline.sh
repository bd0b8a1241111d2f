#!/usr/bin/env bash
# The roofline of a blocked bf16 matmul on a TPU, from Pallas-style block sizes: runs matmul_blocked (timing only)
# at M = N = K = SIZE for each (bm, bk, bn) and prints one markdown row per run, sorted by arithmetic intensity.
#
#   scripts/tpu-matmul-roofline.sh [--target tpu-v5e] [--size 8192] [--tessera build/tools/tessera] [BM/BK/BN ...]
#
# Each grid step loads a [bm, bk] block of A and a [bk, bn] block of B (bf16) for 2 bm bn bk FLOPs: an arithmetic
# intensity of bm bn / (bm + bn) FLOP per HBM byte. Below the target's ridge point (peak FLOP/s over HBM bytes/s,
# about 240 on v5e) the DMA bounds the step; above it the MXUs do, less the scalar core's per-step overhead. The
# bound is the busiest of the MXUs, the DMA (HBM bandwidth used, or the busiest queue: many small transfers wait on
# their fixed cost) and the scalar core (grid-step overhead).
# docs/targets.md holds a run of it. Needs jq.
set -euo pipefail

target=tpu-v5e
size=8192
tessera="$(dirname "$0")/../build/tools/tessera"
blocks=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --target) target="$2"; shift 2 ;;
    --size) size="$2"; shift 2 ;;
    --tessera) tessera="$2"; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    */*/*) blocks+=("$1"); shift ;;
    *) echo "tpu-matmul-roofline.sh: unknown argument '$1' (blocks are BM/BK/BN)" >&2; exit 2 ;;
  esac
done
if [[ ${#blocks[@]} -eq 0 ]]; then
  blocks=(128/128/128 256/256/256 256/512/512 512/512/512 512/1024/1024 1024/1024/1024 1024/512/2048)
fi
command -v jq >/dev/null || { echo "tpu-matmul-roofline.sh: needs jq" >&2; exit 2; }
[[ -x "$tessera" ]] || { echo "tpu-matmul-roofline.sh: no tessera at $tessera (build first)" >&2; exit 2; }

rows=()
for block in "${blocks[@]}"; do
  IFS=/ read -r bm bk bn <<<"$block"
  json=$("$tessera" run matmul_blocked --target "$target" --shape "M=$size,N=$size,K=$size" \
           --param "bm=$bm,bk=$bk,bn=$bn" --timing-only --json)
  rows+=("$(jq -r --argjson bm "$bm" --argjson bk "$bk" --argjson bn "$bn" '
    def pct: . * 10 | round / 10;
    .time_us as $time |
    ([.streams[] | select(.name | startswith("dma")) | .busy_us] | max * 100 / $time) as $queue
    | (.engines | {mxu, dma: ([.dma, $queue] | max), scalar}) as $e
    | ($e | to_entries | max_by(.value) | .key) as $busiest
    | [ ($bm * $bn / ($bm + $bn) | round),
        "\($bm)/\($bk)/\($bn)",
        (.time_us / 1000 * 100 | round / 100),
        (.achieved_tflops * 10 | round / 10),
        (100 * .achieved_tflops / .peak_tflops | pct),
        (.engines.mxu | pct), (.engines.dma | pct), ($queue | pct), (.engines.scalar | pct),
        ({"mxu": "compute", "dma": "memory", "scalar": "overhead"}[$busiest]),
        .instructions, (.sim_seconds * 100 | round / 100) ]
    | @tsv' <<<"$json")")
done

echo "matmul_blocked, bf16, M = N = K = $size on $target (timing only)"
echo
echo "| FLOP/byte | bm/bk/bn | time (ms) | TFLOP/s | % of peak | MXU busy % | HBM bandwidth % | busiest DMA queue % | scalar busy % | bound | instructions | sim s |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}" | sort -n -k1,1 | awk -F'\t' '{ printf "|"; for (i = 1; i <= NF; ++i) printf " %s |", $i; print "" }'
