#!/usr/bin/env bash
# The real-world corpus captured and plan's cost measured against each kernel's whole compile,
# on the GPU machine (plan and compile on the same machine):
#   bash tools/plan/realworld/capture_and_bench.sh capture
#       Liger-Kernel, flash-linear-attention, torch.compile: each library's compile times and
#       Triton cache
#   bash tools/plan/realworld/capture_and_bench.sh bench
#       bench_plan --cache over the three caches, --races too (RACES= leaves the race check out)
# Work files under $WORK (default /tmp/rw); results in $OUT (default ./rw-out): capture.tar.xz
# (caches: .ttgir, .llir, .json only; ops.json and compile_times.json of each library),
# bench.json and bench.log. Needs torch with CUDA, Triton, and for plan z3 and llvmlite;
# PYTHONPATH must reach the libraries (the checkout is put first on it for the bench).
set -u
WORK=${WORK:-/tmp/rw}
OUT=${OUT:-rw-out}
JOBS=${JOBS:-12}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
PY=${PYTHON:-python3}
export PYTHONUNBUFFERED=1
mkdir -p "$WORK" "$OUT"

machine() {
  $PY - <<'PYEOF'
import datetime, json, os
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
try:
    import torch
    dev = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
except ImportError:
    dev = None
print(json.dumps({"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                  "cpu": cpu, "cores": os.cpu_count(), "device": dev}))
PYEOF
}

case "${1:-}" in
capture)
  machine | tee "$WORK/machine_capture.json"
  # flash-linear-attention autotunes the longest: it runs beside the other two, each library
  # in its own process and cache.
  (TRITON_CACHE_DIR="$WORK/c/fla" timeout "${FLA_LIMIT:-470}" $PY "$HERE/capture.py" \
      "$WORK/cap/fla" --only fla --budget "${FLA_BUDGET:-330}" >"$WORK/fla.log" 2>&1) &
  for lib in liger inductor; do
    TRITON_CACHE_DIR="$WORK/c/$lib" timeout 300 $PY "$HERE/capture.py" "$WORK/cap/$lib" \
      --only "$lib" 2>&1 | tail -3
  done
  wait
  tail -3 "$WORK/fla.log"
  (cd "$WORK" && find c -type f \( -name '*.ttgir' -o -name '*.llir' -o -name '*.json' \) \
      | tar -cJf "$OUT/capture.tar.xz" -T - cap machine_capture.json fla.log)
  ls -la "$OUT"
  ;;
bench)
  machine | tee "$WORK/machine_bench.json"
  # One compile_times.json for the three caches (keys are cache folder / kernel: no clash).
  $PY - "$WORK" <<'PYEOF'
import json, sys
from pathlib import Path
work = Path(sys.argv[1])
merged = {}
for f in sorted(work.glob("cap/*/compile_times.json")):
    merged.update(json.loads(f.read_text()).get("kernels", {}))
(work / "compile_times.json").write_text(json.dumps({"kernels": merged}))
print(len(merged), "compile times")
PYEOF
  PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}" timeout "${BENCH_LIMIT:-480}" \
    $PY -m benchmarks.bench_plan --cache "$WORK/c" \
    --compile-times "$WORK/compile_times.json" --jobs "$JOBS" --repeat 2 ${RACES---races} \
    --out "$OUT/bench.json" >"$OUT/bench.log" 2>&1
  echo "bench exit $?"
  tail -8 "$OUT/bench.log"
  cp "$WORK/machine_bench.json" "$WORK/compile_times.json" "$OUT/" 2>/dev/null
  ;;
*)
  echo "usage: tools/plan/realworld/capture_and_bench.sh capture|bench" >&2
  exit 2
  ;;
esac
