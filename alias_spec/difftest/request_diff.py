"""The request-level differential test: one request, written every way a user can write it,
must give the same facts and the same verdict through every path and every engine.

The reference path, ``json``, is the request as given, through ``model.request.parse_request``.
Every other path is a target module under ``difftest/targets/`` (``TARGETS``, in this order;
each module's docstring says what it can express: the rest is counted as not covered):
``explicit`` (every default spelled out), ``mlir`` (sides as memdesc text), ``lint`` (an IR
module read by ``alias-spec lint``), ``frontend`` (a ``tle.gpu.alloc`` call), ``glue`` (the C++
glue) and ``verifier`` (the generated verifier inside real MLIR 19). A target that cannot run
here says why (``Result.skipped``).

Engines on the reference facts (``ENGINES``, the registry's ``FAST``), each through its cheap
``outcome`` (``engines.base``): the interpreter rule by rule, memoised per rule, the generated
Python, the generated C++ (one harness process per profile and chunk), and the z3 solver on a
sample. Every comparison goes through ``difftest.outcomes``; a divergence names the request
(shrunk to a minimal one by ``difftest.shrink``), the path or engine that disagrees with the
reference and the facts on which they do.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import signal
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from alias_spec.difftest.outcomes import Diff, compare_engine, in_int64, satisfies_invariants
from alias_spec.difftest.outcomes import PathDivergence as Divergence
from alias_spec.difftest.outcomes import PathOutcome as Outcome
from alias_spec.difftest.shrink import dedupe, shrink_request
from alias_spec.difftest.targets import (
    Batch,
    Judges,
    Target,
    explicit,
    frontend,
    glue,
    lint,
    mlir,
    parsed,
    verifier,
)
from alias_spec.engines import registry
from alias_spec.ir.procs import die_with_parent
from alias_spec.model import dsl
from alias_spec.model.catalogue import PROFILES, compiled, rules_for

# Every way of writing a request other than the reference, in the order they are compared.
TARGETS: tuple[Target, ...] = (explicit, mlir, lint, frontend, glue, verifier)
PATHS = ("json", *(t.NAME for t in TARGETS))
# The engines judged on the reference facts, the interpreter (the reference) first.
ENGINES = registry.FAST


@dataclass
class Result:
    requests: int = 0
    coverage: Counter = field(default_factory=Counter)  # path/engine -> requests judged there
    skipped: dict[str, str] = field(default_factory=dict)  # path -> why it did not run
    divergences: list[Divergence] = field(default_factory=list)
    # (profile, rule, side) over the reference facts: side "fires", or "holds" (guard true).
    fired: Counter = field(default_factory=Counter)
    seconds: float = 0.0

    def merge(self, other: Result) -> None:
        self.requests += other.requests
        self.coverage.update(other.coverage)
        self.skipped.update(other.skipped)
        self.divergences += other.divergences
        self.fired.update(other.fired)

    def summary(self) -> str:
        cov = ", ".join(f"{k} {v}" for k, v in sorted(self.coverage.items()))
        lines = [f"{self.requests} requests in {self.seconds:.1f} s; covered: {cov}"]
        lines += [f"skipped {k}: {v}" for k, v in self.skipped.items()]
        lines += [f"{len(self.divergences)} divergences"]
        lines += [d.text() for d in self.divergences[:20]]
        return "\n".join(lines)


Injector = Callable[[str, Outcome, Any], Outcome]


@dataclass
class Options:
    profiles_per_request: int = 2
    z3_every: int = 0  # judge every n-th request with z3 too (0: never)
    cpp: bool = True
    # Targets that can be left out (by their NAME); the others always run where they can.
    glue: bool = True
    verifier: bool = True
    lint: bool = True
    frontend: bool = True
    shrink: bool = True
    # A test hook: rewrites one path's outcome before it is compared (to show a wrong fact
    # is caught).
    inject: Injector | None = None

    def enabled(self, target: str) -> bool:
        return {"glue": self.glue, "verifier": self.verifier, "lint": self.lint,
                "frontend": self.frontend}.get(target, True)  # fmt: skip


def catalogue_rules(profile: str) -> tuple[str, ...]:
    return tuple(r.id for r in rules_for(profile))


class Runner:
    def __init__(self, options: Options | None = None) -> None:
        self.opt = options or Options()
        self.interp = registry.engine("interp").outcome
        self.python = registry.engine("python").outcome
        self.judges = Judges(self.interp, self.python)
        self.cpp = registry.engine("cpp")
        self.z3 = registry.engine(registry.SOLVER).outcome  # the solver itself, sampled
        self._guards: dict[str, tuple[Any, tuple[str, ...], dict[Any, bool]]] = {}
        # Target NAME -> why it does not run (absent: it runs).
        self.unavailable: dict[str, str] = {}
        for t in TARGETS:
            why = t.status() if self.opt.enabled(t.NAME) else "disabled"
            if why is not None:
                self.unavailable[t.NAME] = why
        self.cpp_skip = registry.unavailable("cpp") if self.opt.cpp else "disabled"

    def _prepare(self) -> None:
        """Build what the workers share before forking (the C++ binaries, Gluon)."""
        if self.cpp_skip is None:
            registry.get("cpp")  # builds the harness once, before the workers fork
        for t in TARGETS:
            if t.NAME not in self.unavailable:
                why = t.prepare()
                if why is not None:
                    self.unavailable[t.NAME] = why

    def _guard(self, rule_id: str, facts: Mapping[str, int | bool]) -> bool:
        """The rule's guard on these facts (memoised on the facts it reads)."""
        got = self._guards.get(rule_id)
        if got is None:
            guard, _ = compiled(rule_id)
            got = self._guards[rule_id] = (guard, tuple(sorted(dsl.free_vars(guard))), {})
        guard, names, memo = got
        key = tuple(facts[n] for n in names)
        if key not in memo:
            try:
                memo[key] = bool(dsl.evaluate(guard, facts))
            except ZeroDivisionError:
                memo[key] = False
        return memo[key]

    # One chunk of requests through every target and engine.
    def chunk(self, items: Sequence[tuple[str, Any]], start: int = 0) -> Result:
        res = Result(requests=len(items))
        inject = self.opt.inject or (lambda _p, o, _r: o)
        refs = [parsed(r) for _, r in items]
        res.coverage["json"] = len(items)
        # Targets note the parts of them that did not run straight into the result.
        batch = Batch.of([r for _, r in items], start, skipped=res.skipped)
        for t in TARGETS:
            if t.NAME in self.unavailable:
                res.skipped[t.NAME] = self.unavailable[t.NAME]
                continue
            for i, o in enumerate(t.outcomes(batch)):
                if o is None:
                    continue  # a request this target cannot express
                counted = t.labels(batch, i)
                res.coverage.update(counted)
                got = t.compare(refs[i], inject(t.NAME, o, items[i][1]), self.judges)
                if isinstance(got, str):  # not the target's to judge: counted apart
                    res.coverage.subtract(counted)
                    res.coverage[f"{t.NAME} ({got})"] += 1
                elif got is not None:
                    res.divergences.append(Divergence(*items[i], "json", t.NAME, *got))
        self._engines(res, items, refs, start)
        return res

    def _engine_diff(
        self, res: Result, item: tuple[str, Any], engine: str, profile: str, want: Any, have: Any
    ) -> None:
        got: Diff | None = compare_engine(profile, want, have)
        if got is not None:
            res.divergences.append(Divergence(*item, "interp", engine, *got))

    def _engines(
        self, res: Result, items: Sequence[tuple[str, Any]], refs: list[Outcome], start: int
    ) -> None:
        profiles = list(PROFILES)
        cpp_jobs: dict[str, list[int]] = {}
        interp_out: dict[tuple[int, str], Any] = {}
        for i, ref in enumerate(refs):
            if ref.facts is None:
                continue
            mine = [
                profiles[(start + i + k) % len(profiles)]
                for k in range(self.opt.profiles_per_request)
            ]
            for profile in mine:
                want = self.interp(ref.facts, profile)
                interp_out[(i, profile)] = want
                for r in catalogue_rules(profile):
                    if r in want:
                        res.fired[(profile, r, "fires")] += 1
                    elif self._guard(r, ref.facts):
                        res.fired[(profile, r, "holds")] += 1
                res.coverage["engine interp"] += 1
                res.coverage["engine python"] += 1
                have = self.python(ref.facts, profile)
                self._engine_diff(res, items[i], "python", profile, want, have)
                if in_int64(ref.facts):
                    cpp_jobs.setdefault(profile, []).append(i)
            if self.opt.z3_every and (start + i) % self.opt.z3_every == 0:
                self._z3(res, items[i], ref, mine[0], interp_out[(i, mine[0])])
        if self.cpp_skip is not None:
            res.skipped["cpp"] = self.cpp_skip
            return
        for profile, idx in cpp_jobs.items():
            got = self.cpp.outcomes([(refs[i].facts, profile) for i in idx])  # type: ignore[misc]
            res.coverage["engine cpp"] += len(idx)
            for i, have in zip(idx, got, strict=True):
                self._engine_diff(res, items[i], "cpp", profile, interp_out[(i, profile)], have)

    def _z3(
        self, res: Result, item: tuple[str, Any], ref: Outcome, profile: str, want: Any
    ) -> None:
        if not satisfies_invariants(ref.facts):  # type: ignore[arg-type]
            return
        res.coverage["engine z3"] += 1
        self._engine_diff(res, item, "z3", profile, want, self.z3(ref.facts, profile))  # type: ignore[arg-type]

    def run(self, items: Sequence[tuple[str, Any]], chunk: int = 1000, workers: int = 1) -> Result:
        """Every request through every path; ``workers`` processes (forked) share the chunks."""
        t = time.time()
        total = Result()
        starts = range(0, len(items), chunk)
        if workers > 1 and len(starts) > 1:
            self._prepare()
            global _WORK
            _WORK = (self, items, chunk)
            ctx = multiprocessing.get_context("fork")
            # Workers end with this process, even when it is killed by SIGKILL.
            with ctx.Pool(workers, die_with_parent, (os.getpid(), signal.SIGKILL)) as pool:
                for got in pool.imap_unordered(_work, starts):
                    total.merge(got)
            _WORK = None
        else:
            for k in starts:
                total.merge(self.chunk(items[k : k + chunk], k))
        if self.opt.shrink:
            total.divergences = dedupe(total.divergences)
            for d in total.divergences:
                d.minimal = shrink(d, self)
        total.seconds = time.time() - t
        return total


_WORK: tuple[Runner, Sequence[tuple[str, Any]], int] | None = None


def _work(start: int) -> Result:
    """One chunk in a forked worker (the runner and the items are inherited, not pickled)."""
    assert _WORK is not None
    runner, items, chunk = _WORK
    return runner.chunk(items[start : start + chunk], start)


def shrink(d: Divergence, runner: Runner, budget: int = 300) -> Any:
    """The smallest request (``shrink.shrink_request``) on which the same two paths disagree
    in the same way (same kind, same facts), judged by a quiet copy of ``runner`` (no z3, no
    shrinking, only the targets that ran)."""
    quiet = Runner(
        dataclasses.replace(
            runner.opt,
            z3_every=0,
            cpp=runner.cpp_skip is None,
            glue="glue" not in runner.unavailable,
            verifier="verifier" not in runner.unavailable,
            shrink=False,
        )
    )
    key = d.key()

    def same(req: Any) -> bool:
        try:
            got = quiet.chunk([(d.tag, req)])
        except Exception:  # noqa: BLE001 - a candidate that breaks a path is not the same bug
            return False
        return any(x.key() == key for x in got.divergences)

    return shrink_request(d.request, same, budget)


def run_corpus(n: int, seed: int, options: Options | None = None, chunk: int = 2000) -> Result:
    from alias_spec.difftest.requests import corpus

    items = list(corpus(n, seed))
    return Runner(options).run(items, chunk)
