"""Engine throughput, and what the generated Python check costs the frontend per call.

Not a test: it prints numbers (a markdown table) and ratios. Run from the repository root:

    python benchmarks/bench_engines.py [--cases N] [--seed S]

Every engine judges the same cases, all inside every engine's domain (int64 facts that
satisfy the spec's invariants), so the rates compare like with like.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import subprocess
import sys
import time
import timeit
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from alias_spec.engines import py_engine  # noqa: E402

from alias_spec.difftest import fuzz
from alias_spec.engines import cpp_engine
from alias_spec.generated import alias_checks  # noqa: E402
from alias_spec.model.interp import check_facts as interp_check  # noqa: E402
from alias_spec.model.request import parse_request  # noqa: E402
from alias_spec.semantics.check import check_facts as z3_check  # noqa: E402

# FlagTree's valid lit case (64x64 bf16 source, 32x64 bf16 alias at offset 128) and the same
# request one element past the end: what tle.gpu.alloc judges, passing and failing.
FRONTEND = {
    "source": {"shape": [64, 64], "dtype": "bf16"},
    "result": {"shape": [32, 64], "dtype": "bf16"},
    "alias_offset_bytes": 128,
}
FRONTEND_BAD = {**FRONTEND, "alias_offset_bytes": 4098}


def workload(n: int, seed: int) -> list[fuzz.Case]:
    """Valid, perturbed and sweep cases, kept where every engine is defined."""
    rng = random.Random(seed)
    sweep = fuzz.Sweep()
    interp = fuzz.InterpEngine()
    out: list[fuzz.Case] = []
    sources = [
        lambda: next(fuzz.valid_cases(rng, 1)),
        lambda: next(fuzz.random_cases(rng, 1)),
        lambda: next(sweep.cases([rng.randrange(len(sweep))])),
    ]
    while len(out) < n:
        c = sources[len(out) % 3]()
        if not (fuzz.in_int64(c.facts) and fuzz.satisfies_invariants(c.facts)):
            continue
        if interp(c.facts, c.profile) == fuzz.ZERO_DIVISION:
            continue
        out.append(c)
    return out


Judge = Callable[[Sequence[fuzz.Case]], object]


def rate(make: Callable[[], Judge], cases: Sequence[fuzz.Case]) -> float:
    """Cases per second over ``cases``: best of three runs, each with a fresh judge (so the
    memoised interpreter starts cold every time)."""
    best = float("inf")
    for _ in range(3):
        judge = make()
        t = time.perf_counter()
        judge(cases)
        best = min(best, time.perf_counter() - t)
    return len(cases) / best


def per_case(fn: Callable[[dict, str], object]) -> Callable[[Sequence[fuzz.Case]], object]:
    return lambda cases: [fn(c.facts, c.profile) for c in cases]


def cpp_batch(sanitize: bool) -> Callable[[Sequence[fuzz.Case]], object]:
    cpp_engine.build(sanitize=sanitize)  # compile outside the timing
    return lambda cases: fuzz.cpp_batch(cases, sanitize)


def z3_solver(facts: dict, profile: str) -> object:
    return z3_check(facts, profile, with_fixes=False)


def micro(fn: Callable[[], object], number: int) -> float:
    """Seconds per call: the best of five timeit repeats."""
    return min(timeit.repeat(fn, number=number, repeat=5)) / number


def environment() -> str:
    cxx = cpp_engine.compiler() or "g++"
    ver = subprocess.run([cxx, "--version"], capture_output=True, text=True).stdout
    return (
        f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"{ver.splitlines()[0] if ver else cxx}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    cases = workload(args.cases, args.seed)
    few = cases[: max(200, args.cases // 100)]
    z3_eval = fuzz.Z3Engine()
    engines: list[tuple[str, str, Callable[[], Judge], Sequence[fuzz.Case]]] = [
        ("interp", "alias_spec.model.interp.check_facts (full verdict)",
         lambda: per_case(interp_check), cases),
        ("interp", "memoised rule by rule (the fuzzer's)",
         lambda: per_case(fuzz.InterpEngine()), cases),
        ("python", "alias_checks.check (generated module)",
         lambda: per_case(alias_checks.check), cases),
        ("python", "py_engine.check_facts (full verdict)",
         lambda: per_case(py_engine.check_facts), cases),
        ("cpp", "check_batch, -O2 harness", lambda: cpp_batch(False), cases),
        ("cpp", "check_batch, ASan+UBSan harness", lambda: cpp_batch(True), cases),
        ("cpp", "check_facts, one harness run per call",
         lambda: per_case(cpp_engine.check_facts), few),
        ("z3", "term evaluation by z3.simplify (the fuzzer's)",
         lambda: per_case(z3_eval), few),
        ("z3", "alias_spec.semantics.check.check_facts (one query per rule)",
         lambda: per_case(z3_solver), few[:100]),
    ]  # fmt: skip
    print(f"# Engine benchmark ({environment()})\n")
    print(f"{len(cases)} cases (valid, perturbed, sweep; seed {args.seed})\n")
    print("| engine | how | cases | cases/s | us/case |")
    print("| --- | --- | ---: | ---: | ---: |")
    for name, how, make, subset in engines:
        r = rate(make, subset)
        print(f"| {name} | {how} | {len(subset)} | {r:,.0f} | {1e6 / r:,.1f} |")

    print("\n## tle.gpu.alloc's check: alias_checks.check(facts, 'safe') per call\n")
    rows = []
    requests = (("valid (FlagTree lit case)", FRONTEND), ("invalid (past the end)", FRONTEND_BAD))
    for label, req in requests:
        facts = parse_request(req).facts
        py = micro(lambda f=facts: alias_checks.check(f, "safe"), 20_000)
        z3s = statistics.median(
            micro(lambda f=facts: z3_check(f, "safe", with_fixes=False), 5) for _ in range(3)
        )
        rows.append((label, py, z3s))
    print("| request | python us/call | z3 us/call | z3 / python |")
    print("| --- | ---: | ---: | ---: |")
    for label, py, z3s in rows:
        print(f"| {label} | {py * 1e6:.2f} | {z3s * 1e6:,.0f} | {z3s / py:,.0f}x |")
    worst = max(py for _, py, _ in rows)
    verdict = "meets" if worst < 10e-6 else "MISSES"
    print(f"\nslowest python call {worst * 1e6:.2f} us: {verdict} the 10 us target")
    return 0


if __name__ == "__main__":
    sys.exit(main())
