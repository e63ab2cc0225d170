"""What ``alias-spec plan DIR`` gains from more processes: one cache judged with each --jobs.

    python benchmarks/bench_plan_dir.py [DIR | --library fla] [--jobs 1,2] [--ray ADDRESS]
                                        [--out FILE.json]

Without DIR it extracts one library of the real-world corpus (``--library``, default
flash-linear-attention's 599 kernels, captured on an H200 with Triton 3.6.0) into a temporary
directory. For each job count it runs the command as a user does (``python -m alias_spec plan
DIR --jobs N --format json``, a fresh process each time) and times it end to end; with
``--ray`` it also runs it on that Ray cluster. Prints the wall time per run, kernels per second
and the speed-up over the first run, checks that every run gave every kernel the same verdict,
then the summary table of the last run. ``--out`` writes the numbers as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "plan" / "cases" / "realworld" / "h200"


def _run(directory: Path, extra: list[str]) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "alias_spec", "plan", str(directory), "--format", "json", *extra]
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=False)
    seconds = time.perf_counter() - start
    if proc.returncode not in (0, 1, 3):
        sys.exit(f"bench_plan_dir: {' '.join(extra)} exited {proc.returncode}: "
                 f"{proc.stderr.strip()[-500:]}")  # fmt: skip
    doc = json.loads(proc.stdout)
    return {"args": extra, "seconds": round(seconds, 2), "exit": proc.returncode,
            "statuses": {k["file"]: k["status"] for k in doc["kernels"]},
            "summary": doc["summary"]}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dir", nargs="?", type=Path, help="a cache to judge (default: --library)")
    p.add_argument(
        "--library",
        default="fla",
        choices=("fla", "inductor", "liger"),
        help="the real-world corpus library to extract (default fla, 599 kernels)",
    )
    p.add_argument("--jobs", default="1,2", help="comma-separated job counts (default 1,2)")
    p.add_argument("--ray", metavar="ADDRESS", help="also judge the cache on this Ray cluster")
    p.add_argument("--out", type=Path, help="write the numbers as JSON")
    args = p.parse_args(argv)
    try:
        jobs = [int(j) for j in args.jobs.split(",") if j.strip()]
    except ValueError:
        p.error(f"--jobs: not a list of numbers: {args.jobs!r}")
    if not jobs or min(jobs) < 1:
        p.error("--jobs: give one or more counts, each at least 1")
    scratch = None
    directory = args.dir
    if directory is None:
        scratch = Path(tempfile.mkdtemp(prefix="bench-plan-dir-"))
        directory = scratch / args.library
        with tarfile.open(CORPUS / f"{args.library}.tar.xz") as tar:
            tar.extractall(directory, filter="data")
    # Other work on the machine takes cores from the runs: its load is printed with the times.
    load = [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None
    try:
        runs = [_run(directory, ["--jobs", str(j)]) for j in jobs]
        if args.ray:
            runs.append(_run(directory, ["--ray", args.ray]))
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    kernels = runs[0]["summary"]["kernels"]
    base = runs[0]["seconds"]
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"alias-spec plan DIR on {kernels} kernels ({args.dir or args.library}), {cpus} CPUs, "
          f"load average before the runs {load}")  # fmt: skip
    print("| run | seconds | kernels/s | speed-up |")
    print("| --- | ---: | ---: | ---: |")
    for r in runs:
        print(f"| {' '.join(r['args'])} | {r['seconds']:.1f} | {kernels / r['seconds']:.2f} | "
              f"{base / r['seconds']:.2f}x |")  # fmt: skip
    same = all(r["statuses"] == runs[0]["statuses"] for r in runs)
    print(f"same verdict for every kernel in every run: {'yes' if same else 'NO'}")
    from alias_spec.plan.batch import Summary

    rows = [(name, status) for name, counts in runs[-1]["summary"]["by_kernel"].items()
            for status, n in counts.items() if status != "kernels" for _ in range(n)]  # fmt: skip
    print(Summary.of(rows).table())
    if args.out:
        doc = {
            "kernels": kernels,
            "cpus": cpus,
            "load_before": load,
            "same_verdicts": same,
            "runs": [{k: r[k] for k in ("args", "seconds", "exit", "summary")} for r in runs],
            "speedup": {" ".join(r["args"]): round(base / r["seconds"], 3) for r in runs},
        }
        args.out.write_text(json.dumps(doc, indent=1) + "\n")
        print(f"wrote {args.out}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
