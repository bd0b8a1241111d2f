#!/usr/bin/env bash
# A bundle's device run on a Trainium host, as far as it can be checked without one (docs/backends.md, "What was
# verified here"): the environment run.py sets from the bundle (--dry-run), and the device run itself with the NKI
# calls on Tessera's NumPy model (nki_model/, not NKI) and the profilers replaced by stand-ins written below, which
# answer as the Neuron documentation says the real ones do. What is checked is run.py's side: the variables it sets
# (platform target, LNC=1, NKI_ARTIFACTS_DIR) and passes to the profiler, the commands it runs, how it reads their
# answers, the record's "measured_by", the loud note when only the host's clock measured, and that `tessera
# calibrate` skips or refuses such a record. Nothing here runs NKI, the Neuron runtime, nrtpy or neuron-explorer.
#   nki_device_run.sh TESSERA PYTHON WORKDIR
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 TESSERA PYTHON WORKDIR" >&2; exit 2; }
tessera=$1 python=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
dir="$work/nki-device-run"
rm -rf "$dir"
mkdir -p "$dir/stand-ins/nrtpy"
fail() { echo "nki_device_run: $*" >&2; exit 1; }
# No real profiler may be found: no nrtpy environment named, a PATH without aws-neuronx-tools.
unset TESSERA_NRTPY_PYTHON NEURON_PLATFORM_TARGET_OVERRIDE NEURON_LOGICAL_NC_CONFIG
export PATH=/usr/bin:/bin
[ -e /opt/aws/neuron/bin/neuron-explorer ] && { echo "nki_device_run: a real neuron-explorer is installed here: skipped"; exit 0; }

# 1. The environment of each generation, from the bundle.
for pair in trn1:trn1 trn2:trn2 trn3:trn3; do
  target=${pair%%:*} platform=${pair##*:}
  "$tessera" deploy softmax --target "$target" --shape R=128,C=512 -o "$dir/$target" > /dev/null
  "$python" - "$dir/$target/tessera.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
assert m["neuron"]["logical_nc_config"] == 1, m.get("neuron")
assert m["neuron"]["generation"] in ("v2", "v3", "v4"), m.get("neuron")
PY
  "$python" "$dir/$target/run.py" --dry-run > "$dir/$target/dry-run.txt"
  cat "$dir/$target/dry-run.txt"
  grep -qx "    NEURON_PLATFORM_TARGET_OVERRIDE=$platform" "$dir/$target/dry-run.txt" || fail "$target: platform not $platform"
  grep -qx "    NEURON_LOGICAL_NC_CONFIG=1" "$dir/$target/dry-run.txt" || fail "$target: LNC not 1"
  grep -qx "    NKI_ARTIFACTS_DIR=$dir/$target/neuron/nki-artifacts" "$dir/$target/dry-run.txt" || fail "$target: NEFF folder"
  grep -q 'record: measured_by "host_wall_clock"' "$dir/$target/dry-run.txt" || fail "$target: no profiler, yet not the wall clock"
done
b="$dir/trn2"
# A host default of LNC=2 is overridden, with a note; another platform than the bundle's is refused.
NEURON_LOGICAL_NC_CONFIG=2 "$python" "$b/run.py" --dry-run > "$dir/lnc2.txt"
grep -q "note: NEURON_LOGICAL_NC_CONFIG was 2 here; set to 1" "$dir/lnc2.txt" || fail "LNC=2 was not noted"
grep -qx "    NEURON_LOGICAL_NC_CONFIG=1" "$dir/lnc2.txt" || fail "LNC=2 was not overridden"
NEURON_PLATFORM_TARGET_OVERRIDE=gen3 "$python" "$b/run.py" --dry-run > /dev/null || fail "gen3 is trn2's other name"
status=0; NEURON_PLATFORM_TARGET_OVERRIDE=trn3 "$python" "$b/run.py" --dry-run > /dev/null 2> "$dir/platform.err" || status=$?
[ $status -eq 2 ] && grep -q "NEURON_PLATFORM_TARGET_OVERRIDE=trn3 here" "$dir/platform.err" || fail "a trn3 host's override was accepted for trn2"

# The stand-ins. neuron-explorer: capture writes profile_exec_2.ntff beside -s, view prints a summary with
# total_time (seconds); both log their arguments and the variables run.py set. nrtpy: a module of that name whose
# benchmark(mode="device") gives three durations (ms).
cat > "$dir/stand-ins/neuron-explorer" <<'SH'
#!/bin/sh
echo "LNC=$NEURON_LOGICAL_NC_CONFIG PLATFORM=$NEURON_PLATFORM_TARGET_OVERRIDE $*" >> "$STAND_IN_LOG"
[ -n "${STAND_IN_FAIL:-}" ] && { echo "stand-in failure" >&2; exit 1; }
case "$1" in
  capture) while [ $# -gt 0 ]; do [ "$1" = -s ] && session=$2; shift; done
           : > "$(dirname "$session")/profile_exec_2.ntff" ;;
  view) echo "processing the profile"; echo '{"summary": [{"nc_idx": 0, "total_time": 4.2e-05}]}' ;;
esac
SH
chmod +x "$dir/stand-ins/neuron-explorer"
cat > "$dir/stand-ins/nrtpy/__init__.py" <<'PY'
"""A stand-in for nrtpy (not nrtpy): the calls run.py makes, with fixed durations."""
import os
class NrtpyTensor:
    @staticmethod
    def from_numpy(array, name=None):
        return (name, array.nbytes)
class _Result:
    durations_ms, mean_ms, min_ms, max_ms, iterations = [0.030, 0.034, 0.031], 0.0317, 0.030, 0.034, 3
class NrtpyModel:
    input_tensors_info = {"x": None}
    @classmethod
    def load_from_neff(cls, path, **kwargs):
        assert os.path.exists(path), path
        assert os.environ.get("NEURON_LOGICAL_NC_CONFIG") == "1"
        return cls()
    def benchmark(self, inputs, outputs=None, warmup_iter=5, benchmark_iter=5, mode="device"):
        assert mode == "device" and set(inputs) == {"x"}, (mode, inputs)
        return _Result()
PY
: > "$dir/stand-ins/kernel.neff"
export STAND_IN_LOG="$dir/stand-ins.log"
model="$here/nki_model"
record() { "$python" -c 'import json, sys; r = json.load(open(sys.argv[1])); print(r.get(sys.argv[2]))' "$@"; }

# 2. No profiler: the host's wall clock, said loudly and in the record; calibrate refuses it (exit 2).
PYTHONPATH="$model" "$python" "$b/run.py" --repeat 2 --record "$dir/wall.json" 2> "$dir/wall.err"
cat "$dir/wall.err"
grep -q "WARNING: NO DEVICE TIME" "$dir/wall.err" || fail "no loud warning for a wall-clock time"
[ "$(record "$dir/wall.json" measured_by)" = host_wall_clock ] || fail "the wall-clock record is not marked"
[ "$(record "$dir/wall.json" includes_host_transfers)" = True ] || fail "the wall-clock record hides its copies"
status=0; "$tessera" calibrate "$dir/wall.json" 2> "$dir/calibrate-wall.err" || status=$?
cat "$dir/calibrate-wall.err"
[ $status -eq 2 ] || fail "tessera calibrate exited $status on a wall-clock record, not 2"
grep -q "no record holds a time measured on the device" "$dir/calibrate-wall.err" || fail "calibrate did not say why"

# 3. neuron-explorer (the stand-in) on a NEFF: the device time, and what was run with what.
PYTHONPATH="$model" "$python" "$b/run.py" --repeat 2 --neuron-explorer "$dir/stand-ins/neuron-explorer" \
  --neff "$dir/stand-ins/kernel.neff" --record "$dir/explorer.json"
[ "$(record "$dir/explorer.json" measured_by)" = device_profiler ] || fail "neuron-explorer's time is not marked a device time"
[ "$(record "$dir/explorer.json" measured_us)" = 42.0 ] || fail "total_time 4.2e-05 s is not 42.0 us"
cat "$STAND_IN_LOG"
grep -qx "LNC=1 PLATFORM=trn2 capture -n $dir/stand-ins/kernel.neff -s $b/neuron/profile.ntff --profile-nth-exec=2 x $b/inputs/x.npy" \
  "$STAND_IN_LOG" || fail "neuron-explorer capture ran otherwise"
grep -qx "LNC=1 PLATFORM=trn2 view -n $dir/stand-ins/kernel.neff -s $b/neuron/profile_exec_2.ntff --output-format summary-json" \
  "$STAND_IN_LOG" || fail "neuron-explorer view ran otherwise"

# 4. nrtpy (the stand-in module) in "its own environment": the median of its device durations.
PYTHONPATH="$model:$dir/stand-ins" "$python" "$b/run.py" --repeat 2 --nrtpy-python "$python" \
  --neff "$dir/stand-ins/kernel.neff" --record "$dir/nrtpy.json"
[ "$(record "$dir/nrtpy.json" measured_by)" = device_profiler ] || fail "nrtpy's time is not marked a device time"
[ "$(record "$dir/nrtpy.json" measured_us)" = 31.0 ] || fail "the median of 30, 34, 31 us is not 31.0"

# 5. A profiler that fails: auto falls back to the wall clock, loudly, saying why; one asked for fails the run.
STAND_IN_FAIL=1 PYTHONPATH="$model" "$python" "$b/run.py" --repeat 2 --neuron-explorer "$dir/stand-ins/neuron-explorer" \
  --neff "$dir/stand-ins/kernel.neff" --record "$dir/fallback.json" 2> "$dir/fallback.err"
grep -q "WARNING: NO DEVICE TIME" "$dir/fallback.err" || fail "no loud warning on the fallback"
[ "$(record "$dir/fallback.json" measured_by)" = host_wall_clock ] || fail "the fallback is not marked"
record "$dir/fallback.json" timing_note | grep -q "neuron-explorer capture exited 1" || fail "the fallback does not say why"
PYTHONPATH="$model" "$python" "$b/run.py" --repeat 2 --neuron-explorer "$dir/stand-ins/neuron-explorer" \
  --record "$dir/no-neff.json" 2> /dev/null
record "$dir/no-neff.json" timing_note | grep -q "NKI left no .neff" || fail "a missing NEFF is not named"
status=0; STAND_IN_FAIL=1 PYTHONPATH="$model" "$python" "$b/run.py" --repeat 2 --timer neuron-explorer \
  --neuron-explorer "$dir/stand-ins/neuron-explorer" --neff "$dir/stand-ins/kernel.neff" --record "$dir/asked.json" \
  2> /dev/null || status=$?
[ $status -eq 1 ] && [ "$(record "$dir/asked.json" measured_us)" = None ] || fail "--timer neuron-explorer fell back"

# 6. Calibrate from a device record and a wall-clock one: the wall-clock one is skipped, with a note.
"$tessera" calibrate "$dir/wall.json" "$dir/explorer.json" --fit dma.fixed_latency_ns --json \
  > "$dir/calibration.json" 2> "$dir/calibrate-mixed.err"
cat "$dir/calibrate-mixed.err"
grep -q "tessera calibrate: skipping a record: '$dir/wall.json' holds the host's wall clock" "$dir/calibrate-mixed.err" ||
  fail "the wall-clock record was not skipped by name"
"$python" - "$dir/calibration.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
assert [r["measured_by"] for r in c["records"]] == ["device_profiler"], c["records"]
assert len(c["skipped"]) == 1 and "wall.json" in c["skipped"][0], c["skipped"]
PY
echo "nki_device_run: environment, profilers (stand-ins), records and calibration as documented"
