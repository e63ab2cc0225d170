#!/usr/bin/env bash
# One full GPU batch: environment record, every GPU test, then compute-sanitizer memcheck and
# racecheck over the end-to-end kernels. Run from the checkout's root:
#   bash tools/gpu/run_gpu_batch.sh
# Results land in $OUT (default ./gpu-out):
#   env.json, pytest.log, corpus_results.json, scenarios.json, experiment.json,
#   memcheck.log, racecheck.log, plan_gpu.json
# Then: python -m tools.gpu.report $OUT  (writes docs/gpu-report.md)
set -u
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
export TLE_GPU_OUT="$OUT" TLE_PLAN_GPU_OUT="$OUT/plan_gpu.json" PYTHONUNBUFFERED=1
PY=${PYTHON:-python3}

$PY - >"$OUT/env.json" <<'PYEOF'
import datetime, json, platform, subprocess
import torch, triton
def smi(q):
    try:
        return subprocess.run(["nvidia-smi", f"--query-gpu={q}", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=30).stdout.strip()
    except Exception as exc:
        return f"unavailable: {exc}"
p = torch.cuda.get_device_properties(0)
print(json.dumps({
    "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    "device": torch.cuda.get_device_name(0), "capability": list(torch.cuda.get_device_capability(0)),
    "multiprocessors": p.multi_processor_count, "driver": smi("driver_version"),
    "torch": torch.__version__, "torch_cuda": torch.version.cuda, "triton": triton.__version__,
    "python": platform.python_version(), "kernel": platform.release(),
}, indent=1))
PYEOF
cat "$OUT/env.json"

timeout 330 $PY -m pytest -m gpu tests/gpu -q -rA --noconftest -p no:cacheprovider 2>&1 | tee "$OUT/pytest.log" | tail -40

SAN=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
if [ -n "$SAN" ]; then
  for tool in memcheck racecheck; do
    PYTHONPATH="$PWD/examples${PYTHONPATH:+:$PYTHONPATH}" timeout 110 "$SAN" --tool "$tool" \
      --print-limit 20 $PY -m tools.gpu.e2e_sanitize >"$OUT/$tool.log" 2>&1
    echo "$tool exit $?" >>"$OUT/$tool.log"
    tail -4 "$OUT/$tool.log"
  done
else
  echo "compute-sanitizer not found" | tee "$OUT/memcheck.log" "$OUT/racecheck.log"
fi
