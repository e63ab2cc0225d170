"""What the reuse planner costs and what it saves, measured on the CPU in one run.

    python -m benchmarks.bench_reuse_price [--out FILE.json] [--repeat N]

1. Planning time for 2 to 64 buffers (lifetimes over 8 phases, each buffer live in 1 to 3
   consecutive phases, NVMMA-swizzled or not), with the footprint found, the lower bound and
   whether it is proved smallest; next to no reuse (every buffer its own bytes) and first fit.
2. The planner against TLX's greedy shared/distinct rule on the same group declarations,
   nested ones among them: the greedy footprint, whether its starts are aligned, and the
   greedy rule with each start rounded up to its alignment.
3. The generated checks' share of a Gluon compile: the payoff kernel (``reuse_matmul``,
   planned) compiled for sm_90 in a fresh cache, the time spent in the generated Python
   checks and in the planner, over the whole compile (target for the checks: under 0.1%).
"""

from __future__ import annotations

import argparse
import datetime
import os
import random
import tempfile
import time
from typing import Any

from alias_spec.model import reuse
from alias_spec.model.reuse import Group
from alias_spec.semantics.reuse import first_fit, plan
from benchmarks import scratch

SIZES = (2, 4, 8, 16, 32, 64)


def lifetimes(n: int, seed: int) -> reuse.Declarations:
    rng = random.Random(seed)
    phases = [f"p{i}" for i in range(8)]
    bufs, uses = [], {}
    for i in range(n):
        shape = [rng.choice([16, 32, 64, 128]), rng.choice([32, 64])]
        bufs.append(reuse.buffer(f"b{i}", shape, 16, rng.choice([0, 128])))
        start = rng.randrange(8)
        uses[f"b{i}"] = phases[start : start + rng.randint(1, 3)]
    return reuse.declare(bufs, uses=uses, phases=phases, capacity=10**9)


def _b(name: str, shape: list[int], bits: int = 16, swizzle: int = 0) -> reuse.Buffer:
    return reuse.buffer(name, shape, bits, swizzle)


# Group declarations in the shapes TLX users write: the epilogue over the mainloop ring, and
# nested distinct groups with an odd-sized member ahead of a swizzled tile.
GROUPS: dict[str, tuple[list[reuse.Buffer], Group]] = {
    "epilogue over ring": (
        [_b("a", [3, 128, 64], 16, 128), _b("b", [3, 64, 128], 16, 128),
         _b("c", [128, 128], 16, 128)],
        Group("shared", (Group("distinct", ("a", "b")), "c")),
    ),
    "O over V (attention)": (
        [_b("q", [128, 128], 16, 128), _b("k", [2, 128, 128], 16, 128),
         _b("v", [2, 128, 128], 16, 128), _b("o", [128, 128], 16, 128)],
        Group("distinct", ("q", "k", Group("shared", ("v", "o")))),
    ),
    "nested distinct, odd member first": (
        [_b("x", [100]), _b("y", [64, 64], 16, 128), _b("z", [32, 64], 16, 128)],
        Group("shared", (Group("distinct", ("x", "y")), "z")),
    ),
    "scalars then tiles": (
        [_b("s0", [24], 32), _b("s1", [40]), _b("t0", [64, 64], 16, 128),
         _b("t1", [64, 128], 16, 128), _b("u", [64, 128], 16, 64)],
        Group("shared", (Group("distinct", ("s0", "s1", "t0", "t1")), "u")),
    ),
    "two nested levels": (
        [_b("m", [200]), _b("n", [32, 64], 16, 128), _b("p", [72]), _b("q", [64, 64], 16, 128),
         _b("r", [64, 64], 16, 64)],
        Group("shared", (Group("distinct", ("m", Group("shared", ("n", "p")), "q")), "r")),
    ),
}  # fmt: skip


def _best(fn: Any, repeat: int) -> tuple[Any, float]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return out, best


def planning(repeat: int) -> list[dict[str, Any]]:
    rows = []
    for n in SIZES:
        d = lifetimes(n, seed=n)
        p, seconds = _best(lambda d=d: plan(d), repeat)
        ff = first_fit(d)
        rows.append({
            "buffers": n, "ms": seconds * 1e3, "total": p.total, "lower_bound": p.lower_bound,
            "optimal": p.optimal, "no_reuse": sum(b.size for b in d.buffers),
            "first_fit": max(ff[b.name] + b.size for b in d.buffers),
        })  # fmt: skip
        print(f"plan {n:3d} buffers: {seconds * 1e3:8.1f} ms, {p.total} bytes "
              f"(bound {p.lower_bound}, {'proved smallest' if p.optimal else 'not proved'})",
              flush=True)  # fmt: skip
    return rows


def against_greedy() -> list[dict[str, Any]]:
    rows = []
    for name, (bufs, tree) in GROUPS.items():
        d = reuse.declare(bufs, groups=tree)
        g_off, g_total = reuse.greedy(d)
        a_off, a_total = reuse.greedy(d, aligned=True)
        p = plan(d)
        rows.append({
            "declarations": name, "buffers": len(bufs), "no_reuse": sum(b.size for b in bufs),
            "greedy": g_total, "greedy_misaligned": [
                line for line in reuse.verify(d, g_off, g_total) if "not a multiple" in line],
            "greedy_aligned": a_total, "planned": p.total, "optimal": p.optimal,
            "planned_offsets": dict(p.offsets),
        })  # fmt: skip
        print(f"{name}: greedy {g_total} ({len(rows[-1]['greedy_misaligned'])} misaligned), "
              f"greedy aligned {a_total}, planned {p.total}", flush=True)  # fmt: skip
    return rows


def compile_share(repeat: int) -> dict[str, Any]:
    """Compile the payoff kernel with the checks and the planner timed from inside."""
    from alias_spec.frontend.tle import fixes
    from alias_spec.frontend.tle import reuse as frontend_reuse
    from alias_spec.generated import alias_checks
    from benchmarks import reuse_matmul as rm

    spent = {"checks": 0.0, "planner": 0.0, "calls": 0}
    check, plan_fn = alias_checks.check, frontend_reuse.placement.__wrapped__

    def timed_check(*a: Any, **k: Any) -> Any:
        t = time.perf_counter()
        try:
            return check(*a, **k)
        finally:
            spent["checks"] += time.perf_counter() - t
            spent["calls"] += 1

    def timed_plan(d: Any) -> Any:
        t = time.perf_counter()
        try:
            return plan_fn(d)
        finally:
            spent["planner"] += time.perf_counter() - t

    best: dict[str, Any] = {}
    fixes.alias_checks.check = timed_check  # type: ignore[assignment]
    frontend_reuse.placement = timed_plan  # type: ignore[assignment]
    try:
        for _ in range(repeat):
            os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="bench-reuse-")
            spent.update(checks=0.0, planner=0.0, calls=0)
            t = time.perf_counter()
            rm.compile_cpu(3, "planned")
            total = time.perf_counter() - t
            if not best or total < best["compile_s"]:
                best = {"compile_s": total, "checks_s": spent["checks"],
                        "planner_s": spent["planner"], "check_calls": spent["calls"]}  # fmt: skip
    finally:
        fixes.alias_checks.check = check  # type: ignore[assignment]
        frontend_reuse.placement = frontend_reuse.functools.lru_cache(maxsize=256)(plan_fn)
    best["checks_share"] = best["checks_s"] / best["compile_s"]
    best["planner_share"] = best["planner_s"] / best["compile_s"]
    print(f"compile {best['compile_s'] * 1e3:.0f} ms: checks {best['checks_s'] * 1e6:.0f} us "
          f"({best['checks_share']:.5%}, {best['check_calls']} calls), planner "
          f"{best['planner_s'] * 1e3:.1f} ms ({best['planner_share']:.3%})",
          flush=True)  # fmt: skip
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=None, help=scratch.HELP.format("reuse_price.json"))
    ap.add_argument("--repeat", type=int, default=3, help="best of N (default: %(default)s)")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    import platform

    import triton
    import z3

    out = {
        "date": datetime.date.today().isoformat(),
        "python": platform.python_version(),
        "triton": triton.__version__,
        "z3": z3.get_version_string(),
        "cpus": os.cpu_count(),
        "planning": planning(args.repeat),
        "greedy": against_greedy(),
        "compile": compile_share(args.repeat),
    }
    scratch.write(args.out, "reuse_price.json", out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
