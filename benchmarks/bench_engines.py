"""Engine throughput, and what the generated Python check costs the frontend per call.

Not a test: it prints numbers (a markdown table) and ratios. With the package installed:

    python benchmarks/bench_engines.py [--cases N] [--seed S]

Every engine of the registry (``alias_spec.engines.registry``, what ``alias-spec check
--engine`` offers) is measured on its full verdict (``judge``), then on the cheap form the
differential fuzzer compares (``outcome``). They all judge the same cases, all inside every
engine's domain (int64 facts that satisfy the spec's invariants), so the rates compare like
with like.
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

from alias_spec.difftest.outcomes import ZERO_DIVISION, Case, in_int64, satisfies_invariants
from alias_spec.difftest.random_cases import random_cases, valid_cases
from alias_spec.difftest.sweep import Sweep
from alias_spec.engines import cpp_engine, registry
from alias_spec.generated import alias_checks
from alias_spec.model.request import parse_request

# FlagTree's valid lit case (64x64 bf16 source, 32x64 bf16 alias at offset 128) and the same
# request one element past the end: what tle.gpu.alloc judges, passing and failing.
FRONTEND = {
    "source": {"shape": [64, 64], "dtype": "bf16"},
    "result": {"shape": [32, 64], "dtype": "bf16"},
    "alias_offset_bytes": 128,
}
FRONTEND_BAD = {**FRONTEND, "alias_offset_bytes": 4098}


def workload(n: int, seed: int) -> list[Case]:
    """Valid, perturbed and sweep cases, kept where every engine is defined."""
    rng = random.Random(seed)
    sweep = Sweep()
    interp = registry.engine("interp").outcome
    out: list[Case] = []
    sources = [
        lambda: next(valid_cases(rng, 1)),
        lambda: next(random_cases(rng, 1)),
        lambda: next(sweep.cases([rng.randrange(len(sweep))])),
    ]
    while len(out) < n:
        c = sources[len(out) % 3]()
        if not (in_int64(c.facts) and satisfies_invariants(c.facts)):
            continue
        if interp(c.facts, c.profile) == ZERO_DIVISION:
            continue
        out.append(c)
    return out


Judge = Callable[[Sequence[Case]], object]


def rate(make: Callable[[], Judge], cases: Sequence[Case]) -> float:
    """Cases per second over ``cases``: best of three runs, each with a fresh judge (so the
    memoised interpreter starts cold every time)."""
    best = float("inf")
    for _ in range(3):
        judge = make()
        t = time.perf_counter()
        judge(cases)
        best = min(best, time.perf_counter() - t)
    return len(cases) / best


def per_case(fn: Callable[[dict, str], object]) -> Callable[[Sequence[Case]], object]:
    return lambda cases: [fn(c.facts, c.profile) for c in cases]


def batched_cpp(sanitize: bool) -> Callable[[Sequence[Case]], object]:
    cpp_engine.build(sanitize=sanitize)  # compile outside the timing
    cpp = registry.engine("cpp", sanitize)
    return lambda cases: cpp.outcomes([(c.facts, c.profile) for c in cases])


def full_verdict(name: str) -> Callable[[], Judge]:
    """The registry's engine ``name`` (what ``alias-spec check --engine`` runs), per case."""
    if name == "cpp":
        cpp_engine.build()  # compile outside the timing
    return lambda: per_case(registry.get(name))


# How many of the cases each registry engine judges in full: the slow ones a sample.
FULL_SHARE = {"z3": 0.002, "cpp": 0.01}
# What each registry engine's full verdict is, for the table.
HOW = {
    "z3": "alias_spec.semantics.check.check_facts (one query per rule)",
    "interp": "alias_spec.model.interp.check_facts (full verdict)",
    "python": "py_engine.check_facts (full verdict)",
    "cpp": "cpp_engine.check_facts, one harness run per call",
}


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
    z3_eval = registry.engine("z3")
    z3_eval.prepare()
    # Every registry engine's full verdict, then the fuzzer's fast forms of the same engines.
    engines: list[tuple[str, str, Callable[[], Judge], Sequence[Case]]] = []
    for name in registry.NAMES:
        share = FULL_SHARE.get(name, 1.0)
        subset = cases[: max(100, int(len(cases) * share))] if share < 1 else cases
        engines.append((name, HOW.get(name, "registry engine"), full_verdict(name), subset))
    few = cases[: max(200, args.cases // 100)]
    engines += [
        ("interp", "memoised rule by rule (the fuzzer's)",
         lambda: per_case(registry.engine("interp").outcome), cases),
        ("python", "alias_checks.check (generated module)",
         lambda: per_case(alias_checks.check), cases),
        ("cpp", "check_batch, -O2 harness", lambda: batched_cpp(False), cases),
        ("cpp", "check_batch, ASan+UBSan harness", lambda: batched_cpp(True), cases),
        ("z3", "term evaluation by z3.simplify (the fuzzer's)",
         lambda: per_case(z3_eval.outcome), few),
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
    z3 = registry.get("z3")
    requests = (("valid (FlagTree lit case)", FRONTEND), ("invalid (past the end)", FRONTEND_BAD))
    for label, req in requests:
        facts = parse_request(req).facts
        py = micro(lambda f=facts: alias_checks.check(f, "safe"), 20_000)
        z3s = statistics.median(micro(lambda f=facts: z3(f, "safe"), 5) for _ in range(3))
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
