"""How the reuse planner's time grows with the phases of a declaration, measured in one run.

    python -m benchmarks.bench_reuse_phases [--out FILE.json] [--repeat N]

4 buffers over 2,000 to 20,000 phases (issue 18: 25 s at 20,000, quadratic), each buffer in
use in every other phase (a and c in the even ones, b and d in the odd ones): declaring the
plan (``reuse.declare``) and planning it (``semantics.reuse.plan``: conflicts, lower bound,
first fit, the check of the result), best of N. The ratio of the time at 20,000 phases to the
time at 2,000 says how it grows: about 10 when linear, about 100 when quadratic. Also the
largest declaration the bounds admit (``reuse.MAX_PHASES`` phases).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
import time
from typing import Any

from alias_spec.model import reuse
from alias_spec.semantics.reuse import plan
from benchmarks import scratch

PHASES = (2_000, 5_000, 10_000, 20_000, reuse.MAX_PHASES)
NAMES = "abcd"


def declare_and_plan(n: int) -> reuse.Placement:
    phases = [f"p{i}" for i in range(n)]
    bufs = [reuse.buffer(name, [64, 64], 16) for name in NAMES]
    uses = {name: phases[i % 2 :: 2] for i, name in enumerate(NAMES)}
    return plan(reuse.declare(bufs, uses=uses, phases=phases))


def timed(n: int, repeat: int) -> dict[str, Any]:
    best, p = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        p = declare_and_plan(n)
        best = min(best, time.perf_counter() - t)
    assert p is not None
    print(f"{len(NAMES)} buffers x {n:6d} phases: {best * 1e3:8.1f} ms, {p.total} bytes",
          flush=True)  # fmt: skip
    return {"phases": n, "buffers": len(NAMES), "ms": best * 1e3, "total": p.total,
            "optimal": p.optimal}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=None, help=scratch.HELP.format("reuse_phases.json"))
    ap.add_argument("--repeat", type=int, default=3, help="best of N (default: %(default)s)")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    rows = [timed(n, args.repeat) for n in PHASES]
    ms = {r["phases"]: r["ms"] for r in rows}
    ratio = ms[20_000] / ms[2_000]
    print(f"time at 20,000 phases / time at 2,000: {ratio:.1f} (linear: ~10, quadratic: ~100)")
    out = {
        "date": datetime.date.today().isoformat(),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "repeat": args.repeat,
        "rows": rows,
        "ratio_20000_to_2000": ratio,
    }
    scratch.write(args.out, "reuse_phases.json", out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
