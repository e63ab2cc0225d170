"""Differential fuzzing: every engine judges the same cases; any disagreement is a bug.

The engines are the registry's (``alias_spec.engines.registry``), each judging through its
cheap ``outcome`` (``alias_spec.engines.base``); ``Engines`` is a campaign's set of them and
what is compared is in ``outcomes``. Case sources: z3-generated boundary and
near-miss cases (``z3_boundary``), valid-by-construction, raw and perturbed random facts
(``random_cases``), random JSON requests through the parser (``request_cases``) and an
exhaustive small-scope sweep (``sweep``). ``suite`` is a fixed sample of them, boundary cases
first (what ``mutate`` scores).

``main`` is ``alias-spec fuzz``: a campaign with a progress bar, cases per second per engine,
and every divergence shrunk to a minimal repro (``shrink``), saved where ``--regressions``
says.
"""

from __future__ import annotations

import itertools
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from alias_spec.difftest.outcomes import Case, Divergence, Outcome, disagree, restrict
from alias_spec.difftest.random_cases import random_cases, valid_cases
from alias_spec.difftest.request_cases import request_cases
from alias_spec.difftest.shrink import (
    regression_case,
    regression_cases,
    repro_text,
    save_regression,
    shrink,
)
from alias_spec.difftest.sweep import Sweep
from alias_spec.difftest.z3_boundary import boundary_cases, cache_path
from alias_spec.engines import registry
from alias_spec.engines.base import Engine


class Engines:
    """The engines of one campaign (names of ``registry.CAMPAIGN``), and a judge of single
    cases (for shrinking and replay)."""

    def __init__(self, names: Sequence[str], sanitize: bool = False) -> None:
        choices = registry.CAMPAIGN
        unknown = [n for n in names if n not in choices]
        if unknown:
            raise ValueError(f"unknown engines {unknown}; choose from {', '.join(choices)}")
        for name in names:
            why = registry.unavailable(name)
            if why is not None:  # before any case is judged: one line, what to install
                raise registry.EngineUnavailable(name, why, registry.remedy(name))
        self.names = list(names)
        self.sanitize = sanitize
        self.engines: dict[str, Engine] = {n: registry.engine(n, sanitize) for n in self.names}
        for eng in self.engines.values():
            eng.prepare()

    def __getitem__(self, name: str) -> Engine:
        return self.engines[name]

    def outcomes(self, case: Case) -> dict[str, Outcome]:
        out: dict[str, Outcome] = {}
        for name in self.names:
            out[name] = self.one(name, case)
        return restrict(out)

    def one(self, name: str, case: Case) -> Outcome:
        """``name``'s outcome on one case (None outside its domain)."""
        return self.engines[name].outcome(case.facts, case.profile)

    def diverges(self, case: Case) -> bool:
        return disagree(self.outcomes(case), case.expect)


def suite(seed: int = 0, n: int = 4000, regressions: Path | None = None) -> list[Case]:
    """The differential suite in a fixed order, sharpest cases first: the z3 boundary cases,
    the regressions saved in ``regressions`` (if given), then ``n`` each of valid-by-
    construction, random and sweep cases and ``n // 4`` parsed requests (what the mutation
    check runs)."""
    rng = random.Random(seed)
    sweep = Sweep()
    out = list(boundary_cases())
    out += regression_cases(regressions) if regressions is not None else []
    out += valid_cases(rng, n)
    out += random_cases(rng, n)
    out += request_cases(rng, n // 4)
    out += sweep.cases(rng.randrange(len(sweep)) for _ in range(n))
    return out


# --- campaigns ---------------------------------------------------------------------------------


@dataclass
class Report:
    cases: int = 0
    compared: Counter = field(default_factory=Counter)  # engine -> cases it judged
    seconds: Counter = field(default_factory=Counter)  # engine -> time spent judging
    sources: Counter = field(default_factory=Counter)
    divergences: list[Divergence] = field(default_factory=list)
    wall: float = 0.0

    def rates(self) -> dict[str, float]:
        return {e: self.compared[e] / self.seconds[e] for e in self.compared if self.seconds[e]}

    def summary(self) -> str:
        lines = [f"{self.cases} cases in {self.wall:.1f} s ({dict(self.sources)})"]
        for e, n in self.compared.items():
            rate = self.rates().get(e, 0.0)
            lines.append(f"  {e:>9}: {n} cases judged, {rate:,.0f} cases/s")
        lines.append(f"  divergences: {len(self.divergences)}")
        return "\n".join(lines)


class Progress:
    """A plain-text progress bar on stderr (redrawn in place on a terminal)."""

    def __init__(self, total: int, stream: Any = None, width: int = 30) -> None:
        self.total, self.width = max(total, 1), width
        self.stream = stream if stream is not None else sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.start = time.perf_counter()
        self.last = -1.0
        self.shown = -1  # cases done at the last line written

    def update(self, done: int, divergences: int, final: bool = False) -> None:
        now = time.perf_counter()
        if not final and now - self.last < (0.2 if self.tty else 5.0):
            return
        if final and not self.tty and self.shown == done:
            return  # that line is already there
        self.last, self.shown = now, done
        frac = min(done / self.total, 1.0)
        bar = "#" * int(frac * self.width) + "-" * (self.width - int(frac * self.width))
        rate = done / max(now - self.start, 1e-9)
        text = (f"[{bar}] {frac:6.1%} {done}/{self.total} cases, {rate:,.0f}/s, "
                f"{divergences} divergences")  # fmt: skip
        self.stream.write(("\r" + text + ("\n" if final else "")) if self.tty else text + "\n")
        self.stream.flush()


def run(
    cases: Iterable[Case],
    engines: Sequence[str],
    *,
    sanitize: bool = False,
    z3_pick: Callable[[int, Case], bool] | None = None,
    chunk: int = 20_000,
    progress: Progress | None = None,
    report: Report | None = None,
    max_divergences: int = 50,
) -> Report:
    """Judge every case with every engine and record disagreements.

    A batched engine (the C++ harness, a separate process) runs on one chunk in a worker
    thread while this thread runs the others on the same chunk. ``z3_pick`` chooses the cases
    the sampled engines (z3) judge (default: all)."""
    eng = Engines(engines, sanitize)
    rep = report if report is not None else Report()
    start = time.perf_counter()
    batched = [n for n in engines if eng[n].batched]
    sampled = [n for n in engines if eng[n].sampled and n not in batched]
    plain = [n for n in engines if n not in batched and n not in sampled]
    pool = ThreadPoolExecutor(1) if batched else None

    def timed(name: str, batch: list[Case]) -> tuple[list[Outcome], float]:
        t = time.perf_counter()
        return eng[name].outcomes([(c.facts, c.profile) for c in batch]), time.perf_counter() - t

    it = iter(cases)
    try:
        while True:
            batch = list(itertools.islice(it, chunk))
            if not batch:
                break
            futs: dict[str, Future] = {}
            if pool is not None:
                futs = {name: pool.submit(timed, name, batch) for name in batched}
            columns: dict[str, list[Outcome]] = {}
            for name in plain:
                fn = eng[name].outcome
                t = time.perf_counter()
                columns[name] = [fn(c.facts, c.profile) for c in batch]
                rep.seconds[name] += time.perf_counter() - t
                rep.compared[name] += len(batch)
            for name in sampled:
                e = eng[name]
                col: list[Outcome] = []
                t = time.perf_counter()
                for k, c in enumerate(batch):
                    pick = z3_pick is None or z3_pick(rep.cases + k, c)
                    if pick and e.in_domain(c.facts):
                        col.append(e.outcome(c.facts, c.profile))
                        rep.compared[name] += 1
                    else:
                        col.append(None)
                rep.seconds[name] += time.perf_counter() - t
                columns[name] = col
            for name, fut in futs.items():
                col, secs = fut.result()
                columns[name] = col
                rep.seconds[name] += secs
                rep.compared[name] += sum(1 for o in col if o is not None)
            for k, c in enumerate(batch):
                outs = restrict({e: columns[e][k] for e in engines})
                if disagree(outs, c.expect) and len(rep.divergences) < max_divergences:
                    if c.expect is not None:
                        outs["construction"] = c.expect
                    rep.divergences.append(Divergence(c, outs))
                rep.sources[c.source] += 1
            rep.cases += len(batch)
            if progress is not None:
                progress.update(rep.cases, len(rep.divergences))
    finally:
        if pool is not None:
            pool.shutdown()
    rep.wall += time.perf_counter() - start
    if progress is not None:
        progress.update(rep.cases, len(rep.divergences), final=True)
    return rep


def campaign_cases(
    n: int, seed: int, with_boundary: bool = True, seed_cases: Path | None = None
) -> Iterator[Case]:
    """A seeded mix: boundary cases first, then valid-by-construction (30%), raw and
    perturbed random (35%), parsed requests (10%, the requests of the case files in
    ``seed_cases`` first) and a sample of the sweep (25%)."""
    rng = random.Random(seed)
    produced = 0
    if with_boundary:
        for c in boundary_cases()[:n]:
            produced += 1
            yield c
    rest = n - produced
    sweep = Sweep()
    k_valid, k_random, k_req = int(rest * 0.30), int(rest * 0.35), int(rest * 0.10)
    k_sweep = rest - k_valid - k_random - k_req
    sources = [
        valid_cases(rng, k_valid),
        random_cases(rng, k_random),
        request_cases(rng, k_req, cases_dir=seed_cases),
        sweep.cases(rng.randrange(len(sweep)) for _ in range(k_sweep)),
    ]
    # Interleave in chunks so a short run still sees every source.
    live = [iter(s) for s in sources]
    while live:
        for s in list(live):
            got = list(itertools.islice(s, 997))
            if not got:
                live.remove(s)
            yield from got


def main(
    cases: int,
    seed: int,
    engines: list[str],
    save_dir: Path | None = None,
    seed_cases: Path | None = None,
) -> int:
    """``alias-spec fuzz``: run a campaign, print rates and shrunk divergences; 1 if any.

    z3 judges every boundary case and, beyond 20,000 cases, a seeded sample of 20,000 of the
    others (about a millisecond per case). Divergences are saved to ``save_dir`` when given
    (``--regressions DIR``); ``seed_cases`` is a folder of verdict-case files whose requests
    seed the parsed-request cases (``--seed-cases DIR``)."""
    pick_rng = random.Random(seed ^ 0x5EED)
    rate = min(1.0, 20_000 / max(cases, 1))

    def z3_pick(_: int, c: Case) -> bool:
        return c.source == "boundary" or pick_rng.random() < rate

    with_boundary = "z3" in engines or cases >= 5_000
    if with_boundary:
        cached = cache_path().exists()
        if not cached:
            print("computing the z3 boundary cases (about a minute, once: they are cached in "
                  f"{cache_path().parent})", file=sys.stderr, flush=True)  # fmt: skip
        t0 = time.perf_counter()
        n = len(boundary_cases())
        how = "read from the cache" if cached else "computed by z3"
        print(f"{n} boundary cases {how} in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    source = campaign_cases(cases, seed, with_boundary, seed_cases)
    rep = run(source, engines, z3_pick=z3_pick, progress=Progress(cases))
    print(rep.summary())
    if not rep.divergences:
        return 0
    eng = Engines(engines)
    for d in rep.divergences[:10]:
        small = shrink(d.case, eng.diverges)
        outs = eng.outcomes(small)
        if small.expect is not None:
            outs["construction"] = small.expect
        div = Divergence(small, outs)
        print(repro_text(div))
        if save_dir is not None:
            path = save_regression(div, save_dir, f"alias-spec fuzz --cases {cases} --seed "
                                   f"{seed} --engines {','.join(engines)}")  # fmt: skip
            print(f"  saved to {path}")
    return 1


def replay(
    path: Path, engines: Sequence[str] = registry.FAST, sanitize: bool = False
) -> Divergence:
    """Judge a saved regression case with every engine (what the regression test checks)."""
    case = regression_case(path)
    return Divergence(case, Engines(list(engines), sanitize).outcomes(case))
