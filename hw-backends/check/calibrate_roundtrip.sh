#!/usr/bin/env bash
# The record a bundle's run.py writes is what `tessera calibrate` reads. There is no TPU here, so the record of an
# interpret-mode run is given a device time (1.5x the prediction: a slower "device", marked as measured on the
# device) and calibrated back; the same record marked as the host's wall clock is refused (exit 2):
#   calibrate_roundtrip.sh TESSERA PYTHON WORKDIR
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 TESSERA PYTHON WORKDIR" >&2; exit 2; }
tessera=$1 python=$2 work=$3
dir="$work/calibrate-roundtrip"
rm -rf "$dir"
"$tessera" deploy matmul_tiled --target tpu-v5e --shape M=256,N=512,K=512 -o "$dir/bundle"
"$python" "$dir/bundle/run.py" --interpret --no-races --record "$dir/record.json"
"$python" - "$dir/record.json" "$dir/record-device.json" "$dir/record-wall-clock.json" <<'PY'
import json, sys
record = json.load(open(sys.argv[1]))
record.update(mode="device", device="stand-in for a TPU", measured_us=1.5 * record["predicted_us"],
              measured_by="device_profiler", timer="stand-in")
json.dump(record, open(sys.argv[2], "w"))
record.update(measured_by="host_wall_clock", timer="stand-in for time.perf_counter")
json.dump(record, open(sys.argv[3], "w"))
PY
status=0
"$tessera" calibrate "$dir/record-wall-clock.json" --fit dma.fixed_latency_ns 2> "$dir/wall-clock.err" || status=$?
cat "$dir/wall-clock.err"
[ $status -eq 2 ] || { echo "a record of the host's wall clock was calibrated from (exit $status, not 2)"; exit 1; }
grep -q "holds the host's wall clock (stand-in for time.perf_counter), not a device time" "$dir/wall-clock.err" ||
  { echo "the refusal does not say why"; exit 1; }
"$tessera" calibrate "$dir/record-device.json" --fit dma.fixed_latency_ns --json > "$dir/calibration.json"
"$python" - "$dir/calibration.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
(k,) = c["coefficients"]
r = c["records"][0]
print(f"{k['name']}: {k['before']} -> {k['after']}; {r['before_us']:.3f} us -> {r['after_us']:.3f} us "
      f"(measured {r['measured_us']:.3f})")
assert k["determined"] and k["after"] > k["before"], "a slower device must raise the fixed DMA cost"
assert abs(r["after_us"] - r["measured_us"]) < 0.02 * r["measured_us"], "the fit must reproduce the measured time"
PY
