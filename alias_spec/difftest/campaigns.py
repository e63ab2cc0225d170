"""The three differential campaigns at a chosen size, each returning what it counted, what
diverged and which of its checks failed.

- ``engines``: every case source (the z3 boundary cases, valid-by-construction, raw and
  perturbed random facts, parsed JSON requests, the small-scope sweep) through every engine
  (interpreter, generated Python, sanitized C++, z3 on a sample), ``difftest.fuzz.run``.
- ``requests``: a seeded request corpus through every way of writing a request and every
  engine, ``difftest.request_diff``.
- ``triton``: random view requests against the installed Triton's own verifiers,
  ``difftest.triton.random_diff``.

CI runs each at its sample size (``SIZES``, about 20-30 s on one core); the full sizes are
what CI ran on every push before, now run by hand: ``alias-spec dev campaigns --full --write``
records their results, dated, in ``docs/data/campaigns.json``. Paths default to a checkout's
(the current directory), as the other dev tools' do.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import itertools
import json
import math
import os
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn, TextIO

from alias_spec import __version__
from alias_spec.difftest import fuzz, outcomes, random_cases, request_cases, shrink, z3_boundary
from alias_spec.difftest import request_diff as rd
from alias_spec.difftest.requests import corpus
from alias_spec.difftest.sweep import Sweep
from alias_spec.difftest.targets import glue
from alias_spec.engines import registry
from alias_spec.ir.procs import RunError
from alias_spec.model.catalogue import PROFILES, rules_for
from alias_spec.model.errors import one_line
from alias_spec.model.facts import OPS


@dataclass(frozen=True)
class Size:
    sample: int  # what CI runs on every push
    full: int  # what CI ran on every push before: run by hand, results committed
    seed: int
    unit: str  # what the size counts


# Engines: a scale, about that many thousand cases (1000 is the million-case campaign, where
# the sweep is used whole). Samples chosen for 20-30 s on one core (measured on the 2-core dev
# machine; see the campaigns' entries in docs/data/campaigns.json for the full runs).
SIZES: dict[str, Size] = {
    "engines": Size(sample=250, full=1000, seed=20251129, unit="scale (thousand cases)"),
    "requests": Size(sample=12_000, full=100_000, seed=0, unit="requests"),
    "triton": Size(sample=300, full=10_000, seed=2026, unit="cases"),
}
NAMES = tuple(SIZES)
MAX_SCALE = 1000  # past it the sweep is exhausted and the case mix changes
OUT = Path("docs/data/campaigns.json")
# Relative to a checkout: the verdict cases seed the parsed requests, the boundary corpus
# the request corpus, and divergences are saved where the tests replay them.
CASES = Path("tests/cases")
BOUNDARY = Path("tests/corpus/boundary.jsonl")
REGRESSIONS = Path("tests/regressions")
SHOWN = 10  # divergences shrunk and shown per campaign (the rest are counted)


@dataclass
class Outcome:
    """One campaign's result: ``ok`` when nothing diverged and every check held."""

    name: str
    size: int
    seed: int
    counts: dict[str, int] = field(default_factory=dict)
    divergences: list[str] = field(default_factory=list)  # each shrunk, as text
    failed: list[str] = field(default_factory=list)  # checks that did not hold
    not_checked: list[str] = field(default_factory=list)  # checks not meaningful at this size
    seconds: float = 0.0
    options: dict[str, Any] = field(default_factory=dict)
    tools: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.divergences and not self.failed

    def check(self, holds: bool, what: str) -> None:
        if not holds:
            self.failed.append(what)

    def report(self) -> str:
        """A summary line, then each failed check and divergence."""
        counts = ", ".join(f"{k} {v}" for k, v in self.counts.items())
        head = (
            f"{self.name} (size {self.size}, seed {self.seed}): {self.seconds:.1f} s; "
            f"{counts}; {len(self.divergences)} divergences, {len(self.failed)} failed "
            "checks"
        )
        lines = [head]
        lines += [f"  not checked at this size: {c}" for c in self.not_checked]
        lines += [f"  FAILED: {c}" for c in self.failed]
        lines += ["  " + d.replace("\n", "\n  ") for d in self.divergences]
        return "\n".join(lines)

    def entry(self, date: str) -> dict[str, Any]:
        """The record ``--write`` keeps."""
        return {
            "name": self.name,
            "date": date,
            "size": self.size,
            "unit": SIZES[self.name].unit,
            "full": self.size >= SIZES[self.name].full,
            "seed": self.seed,
            "seconds": round(self.seconds, 1),
            "cpus": os.cpu_count() or 1,
            "version": __version__,
            "tools": self.tools,
            "options": self.options,
            "counts": self.counts,
            "divergences": self.divergences,
            "failed": self.failed,
            "not_checked": self.not_checked,
        }


class Unavailable(Exception):
    """A campaign that cannot run here (one line: why)."""


def _z3_version() -> str:
    import z3

    return str(z3.get_version_string())


def _note(stream: TextIO | None, text: str) -> None:
    if stream is not None:
        print(text, file=stream, flush=True)


# --- engines -----------------------------------------------------------------------------------


def min_z3(scale: int) -> int:
    """The fewest non-boundary cases z3 must judge: 14 per scale unit are drawn and up to a
    quarter fall outside its domain at small scales, so 8 per unit; 10 per unit at full scale
    (the floors the tests used: 80 at scale 10, 10,000 at 1000)."""
    return max(8 * scale, 10 * scale - 2000)


def engines(
    scale: int,
    seed: int = SIZES["engines"].seed,
    *,
    cases_dir: Path | None = CASES,
    regressions: Path | None = None,
    found_by: str = "alias-spec dev campaigns engines",
    progress: TextIO | None = None,
) -> Outcome:
    """Every case source through every engine: the boundary cases, 110 valid-by-construction,
    120 random and 20 parsed-request cases per ``scale`` unit, every ``1000 // scale``-th sweep
    tuple; z3 on every boundary case and about 14 per unit of the rest. Up to ``SHOWN``
    divergences are shrunk and, with ``regressions``, saved there (``found_by`` says who found
    them). Streams in chunks: memory does not grow with ``scale``."""
    if not 1 <= scale <= MAX_SCALE:
        raise ValueError(f"the engines campaign's scale is 1 to {MAX_SCALE}, not {scale}")
    start = time.perf_counter()
    out = Outcome("engines", scale, seed, options={"engines": list(registry.FAST)})
    out.tools["z3"] = _z3_version()
    rng = random.Random(seed)
    pick = random.Random(7)  # the z3 sample: the same draws as the campaign the tests ran
    sweep = Sweep()
    boundary = z3_boundary.boundary_cases()
    stats: Counter = Counter()
    n_valid, n_random, n_request = 110 * scale, 120 * scale, 20 * scale
    picked = range(0, len(sweep), 1000 // scale)
    total = len(boundary) + n_valid + n_random + n_request + len(picked)
    z3_rate = 14 * scale / total

    def z3_pick(_: int, c: outcomes.Case) -> bool:
        return c.source == "boundary" or pick.random() < z3_rate

    def cases() -> Iterator[outcomes.Case]:
        yield from boundary
        yield from random_cases.valid_cases(rng, n_valid)
        yield from random_cases.random_cases(rng, n_random)
        yield from request_cases.request_cases(rng, n_request, stats, cases_dir=cases_dir)
        yield from sweep.cases(picked)

    _note(progress, f"engines: scale {scale}, {total} cases, seed {seed}")
    bar = fuzz.Progress(total, progress) if progress is not None else None
    rep = fuzz.run(
        cases(), registry.FAST, sanitize=True, z3_pick=z3_pick, chunk=25_000, progress=bar
    )
    out.counts = {"cases": rep.cases, **{f"source {k}": v for k, v in rep.sources.items()}}
    out.counts |= {e: rep.compared[e] for e in registry.FAST}
    beyond = rep.compared["z3"] - len(boundary)
    out.counts |= {"z3 beyond boundary": beyond, "request rejected": stats["request rejected"]}
    out.check(rep.cases == total >= 1000 * scale, f"{rep.cases} cases, not {total}")
    for e in ("interp", "python"):
        out.check(rep.compared[e] == total, f"{e} judged {rep.compared[e]} of {total} cases")
    # cpp judges all but the facts beyond int64.
    out.check(rep.compared["cpp"] >= 0.95 * total, f"cpp judged {rep.compared['cpp']} cases")
    out.check(beyond >= min_z3(scale), f"z3 judged {beyond} non-boundary cases")
    if scale >= 10:  # 200 parsed requests: past the seeds, random ones, a few malformed
        out.check(stats["request rejected"] > 0, "no malformed request reached the parser")
    else:
        out.not_checked.append("malformed requests reach the parser (from scale 10)")
    out.divergences = repros(rep, regressions, found_by)
    out.seconds = time.perf_counter() - start
    return out


def repros(rep: fuzz.Report, regressions: Path | None = None, found_by: str = "") -> list[str]:
    """The first ``SHOWN`` divergences of a ``fuzz.run`` shrunk (engines unsanitized: faster,
    same verdicts), each as its repro text, saved in ``regressions`` when given (``found_by``
    says who found it); the rest counted in a last line. Empty when nothing diverged."""
    if not rep.divergences:
        return []
    eng = fuzz.Engines([e for e in rep.compared if e != "construction"])
    texts: list[str] = []
    seen: set[str] = set()
    for d in rep.divergences[:SHOWN]:
        small = shrink.shrink(d.case, eng.diverges, budget=400)
        outs = eng.outcomes(small)
        if small.expect is not None:
            outs["construction"] = small.expect
        div = outcomes.Divergence(small, outs)
        text = shrink.repro_text(div)
        if text in seen:  # divergences often shrink to the same case
            continue
        seen.add(text)
        if regressions is not None:
            text += f"\n  saved to {shrink.save_regression(div, regressions, found_by)}"
        texts.append(text)
    if len(rep.divergences) > SHOWN:
        texts.append(
            f"and {len(rep.divergences) - SHOWN} more of the first {len(rep.divergences)} "
            "divergences (not shrunk)"
        )
    return texts


# --- requests ----------------------------------------------------------------------------------

# Rules no request can make fire, and why (every other rule must be seen on both sides).
UNREACHABLE = {
    "triton.type.rank": "a request's shape is a non-empty list and memdesc text needs a dim: "
    "a rank-0 memdesc cannot be written",
}
# The corpus opens with its seed requests (about 1,150: the boundary corpus, the case files,
# the hand-written edges), whose mix is not the random part's: the coverage floors and both
# sides of every rule hold from this many requests on.
COVERAGE_FROM = 3000
Z3_REQUESTS = 200  # requests z3 is picked for, at any size (the full campaign: every 500th)
BLOCK = 10_000  # requests generated and judged at a time: memory does not grow with n
KEPT = 1000  # raw divergences kept for deduplication (a broken path would give one a request)

# Names a divergence's known cause outside the differential (the tests' KNOWN), else None.
Explain = Callable[[rd.Divergence], str | None]


def requests(
    n: int,
    seed: int = SIZES["requests"].seed,
    workers: int = 1,
    z3_every: int | None = None,
    *,
    boundary: Path | None = BOUNDARY,
    cases_dir: Path | None = CASES,
    explained: Explain | None = None,
    progress: TextIO | None = None,
) -> Outcome:
    """``n`` requests of the seeded corpus (``requests.corpus``) through every path and engine
    (``request_diff.Runner``) on ``workers`` processes, z3 on every ``z3_every``-th (default:
    ``Z3_REQUESTS`` of them); then the coverage checks and both sides of every rule. A
    divergence ``explained`` names is counted apart; up to ``SHOWN`` of the others, one per
    signature, are shrunk."""
    if n < 1:
        raise ValueError(f"the requests campaign needs at least one request, not {n}")
    start = time.perf_counter()
    every = z3_every if z3_every is not None else max(1, n // Z3_REQUESTS)
    out = Outcome("requests", n, seed, options={"workers": workers, "z3_every": every})
    out.tools["z3"] = _z3_version()
    runner = rd.Runner(rd.Options(z3_every=every, shrink=False))
    # Each block starts at a multiple of every period the paths take turns by (profiles, the
    # two builds, the z3 picks): the same outcomes as one run over the whole corpus.
    period = math.lcm(len(PROFILES), 2, every)
    block = period * max(1, BLOCK // period)
    items = corpus(n, seed, boundary=_given(boundary), cases=_given(cases_dir))
    why = explained or (lambda _d: None)
    total, diverged, known = rd.Result(), 0, 0
    kept: list[rd.Divergence] = []  # unexplained, up to KEPT
    _note(progress, f"requests: {n} requests, seed {seed}, {workers} worker(s)")
    while part := list(itertools.islice(items, block)):
        got = runner.run(part, workers=workers)
        for d in got.divergences:
            if why(d) is not None:
                known += 1
                continue
            diverged += 1
            if len(kept) < KEPT:
                kept.append(d)
        got.divergences = []
        total.merge(got)
        _note(
            progress,
            f"requests: {total.requests}/{n} in {time.perf_counter() - start:.0f} s, "
            f"{diverged} unexplained divergences, {known} explained",
        )
    _check_coverage(out, total, n)
    _check_rule_sides(out, total, n)
    out.check(
        total.coverage["engine z3"] >= -(-n // every) // 2,  # the rest lie off invariants
        f"z3 judged {total.coverage['engine z3']} requests",
    )
    bad = rd.dedupe(kept)  # one per signature
    quiet = rd.Runner(rd.Options(shrink=False))
    for d in bad[:SHOWN]:
        d.minimal = rd.shrink(d, quiet, budget=150)
    out.divergences = [d.text() for d in bad[:SHOWN]]
    if diverged > len(out.divergences):
        out.divergences.append(
            f"{diverged} divergences in all, {len(bad)} signatures among the first {len(kept)}"
        )
    out.counts = {
        "requests": total.requests,
        "explained": known,
        **dict(sorted(total.coverage.items())),
    }
    out.options["skipped"] = dict(sorted(total.skipped.items()))
    out.seconds = time.perf_counter() - start
    return out


def _given(path: Path | None) -> Path | None:
    return path if path is not None and path.exists() else None


def _check_coverage(out: Outcome, result: rd.Result, n: int) -> None:
    cov = result.coverage
    out.check(result.requests == n, f"{result.requests} requests judged, not {n}")
    out.check(cov["json"] == n, f"json read {cov['json']} of {n} requests")
    for engine in ("interp", "python"):  # each request judged under two profiles
        out.check(cov[f"engine {engine}"] >= n, f"engine {engine} judged {cov[f'engine {engine}']}")
    why = glue.status()
    if why is not None:
        out.check(why == result.skipped.get("glue"), f"glue skipped for another reason: {why}")
    if n < COVERAGE_FROM:
        out.not_checked.append(f"each path's share of the requests (from {COVERAGE_FROM})")
        return
    if "cpp" not in result.skipped:  # all but the facts beyond int64
        out.check(
            cov["engine cpp"] >= 0.95 * cov["engine interp"],
            f"engine cpp judged {cov['engine cpp']} of {cov['engine interp']}",
        )
    # Floors well under what the corpus gives (about 75% mlir, 45% lint, 20% frontend, half
    # the requests for the glue): a path that silently stops covering fails here.
    floors = {"explicit": 0.99, "mlir": 0.6, "lint": 0.3, "frontend": 0.12}
    for op in OPS:
        floors |= {f"lint {op}": 0.01, f"mlir {op}": 0.01}
    if why is None:
        floors |= {"glue flagtree": 0.15, "glue safe": 0.15}  # each request through one
    if "verifier" not in result.skipped:  # real MLIR 19 here: a third of requests or more
        floors |= {"verifier flagtree": 0.1, "verifier safe": 0.1}
    for path, share in floors.items():
        out.check(cov[path] >= share * n, f"{path} covered {cov[path]} of {n} (floor {share})")


def _check_rule_sides(out: Outcome, result: rd.Result, n: int) -> None:
    for p in PROFILES:
        for rule_id in UNREACHABLE:
            out.check(not result.fired[(p, rule_id, "fires")], f"{rule_id} fired under {p}")
    if n < COVERAGE_FROM:
        out.not_checked.append(f"both sides of every rule (from {COVERAGE_FROM})")
        return
    for p in PROFILES:
        for r in rules_for(p):
            fires, holds = result.fired[(p, r.id, "fires")], result.fired[(p, r.id, "holds")]
            out.check(
                r.id in UNREACHABLE or (fires and holds),
                f"{p} {r.id} seen on one side only (fires {fires}, holds {holds})",
            )


# --- triton ------------------------------------------------------------------------------------

AGREE_FROM = 100  # below, a few known findings can be a fifth of the cases


def triton(
    n: int,
    seed: int = SIZES["triton"].seed,
    *,
    python: str = sys.executable,
    keep: Path | None = None,
    progress: TextIO | None = None,
) -> Outcome:
    """``n`` random view requests judged by the Triton ``python`` imports and by its profile
    (``random_diff.campaign``); up to 3 disagreements shrunk (kept in ``keep`` when given).
    ``Unavailable`` when that interpreter has no Triton."""
    from alias_spec.difftest.triton import random_diff
    from alias_spec.difftest.triton.runner import InterpreterError

    if python == sys.executable and importlib.util.find_spec("triton") is None:
        raise Unavailable("triton is not importable here")
    if python != sys.executable and not Path(python).exists():
        raise Unavailable(f"--python {python} does not exist")
    start = time.perf_counter()
    _note(progress, f"triton: {n} cases, seed {seed}, verified by {python}")
    try:
        got = random_diff.campaign(python, n, seed, shrink_max=3, keep=keep)
    except InterpreterError as exc:
        raise Unavailable(f"--python {python}: {exc}") from None
    out = Outcome(
        "triton", n, seed, options={"python": "installed" if python == sys.executable else python}
    )
    out.tools = {"triton": got["version"], "profile": got["profile"]}
    keys = (
        "cases",
        "agree",
        "disagree",
        "findings",
        "not_modelled",
        "triton_accepted",
        "triton_crashed",
    )
    out.counts = {k: got[k] for k in keys}
    for e in got["shrunk"]:
        verdict = "accepts" if e["triton_ok"] else "rejects"
        out.divergences.append(
            f"Triton {verdict} ({e['triton_error'][:200]!r}), the model says "
            f"{e['model']} {e['fired']}\n  request: "
            f"{json.dumps(e['request'])}"
        )
    if got["disagree"] > len(got["shrunk"]):
        out.divergences.append(f"{got['disagree']} disagreements in all")
    if n >= AGREE_FROM:  # most cases are judged at all
        out.check(got["agree"] >= 0.8 * got["cases"], f"{got['agree']} of {got['cases']} agree")
    else:
        out.not_checked.append(f"four fifths of the cases agree (from {AGREE_FROM})")
    out.seconds = time.perf_counter() - start
    return out


# --- the record --------------------------------------------------------------------------------


def read_record(path: Path) -> dict[str, Any]:
    """The campaigns file (empty when absent); ValueError when it is not one."""
    if not path.exists():
        return {"campaigns": {}}
    try:
        data = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("campaigns"), dict):
        raise ValueError(f"{path}: not a campaigns file (no 'campaigns' object)")
    return data


def write_record(path: Path, results: Sequence[Outcome], date: str) -> None:
    """Each result replaces its campaign's entry; keys sorted, so the file is stable."""
    data = read_record(path)
    data["about"] = (
        "The differential campaigns at the size last run by 'alias-spec dev "
        "campaigns --write' (--full: the sizes CI ran before), one entry each."
    )
    for r in results:
        data["campaigns"][r.name] = r.entry(date)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


# --- the command -------------------------------------------------------------------------------

PROG = "alias-spec dev campaigns"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # One line, as every alias-spec command says a bad argument (no usage block).
        print(f"alias-spec: error: dev campaigns: {one_line(message)}", file=sys.stderr)
        raise SystemExit(2)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a positive number")
    return value


def _parser() -> _Parser:
    e, r, t = SIZES["engines"], SIZES["requests"], SIZES["triton"]
    p = _Parser(
        prog=PROG,
        description="Run the differential campaigns at CI's sample size (default) or at the "
        f"sizes CI ran before (--full), and with --write record each result, dated, in {OUT}. "
        "engines: every case source through every engine (its size is a scale: about that "
        f"many thousand cases; sample {e.sample}, full {e.full}); requests: the request corpus "
        f"through every path (sample {r.sample}, full {r.full}); triton: random view requests "
        f"against the installed Triton's verifiers (sample {t.sample}, full {t.full}). Exit 0 "
        "when every check holds, 1 on a divergence or failed check, 2 on bad arguments.",
    )
    p.add_argument(
        "campaigns", nargs="*", metavar="CAMPAIGN", help=f"{', '.join(NAMES)} (default: all)"
    )
    size = p.add_mutually_exclusive_group()
    size.add_argument("--full", action="store_true", help="the full sizes")
    size.add_argument("--size", type=_positive, metavar="N", help="this size for each campaign")
    p.add_argument("--seed", type=int, metavar="S", help="default: each campaign's own")
    p.add_argument("--write", action="store_true", help="record the results in --out")
    p.add_argument("--out", type=Path, default=OUT, metavar="FILE", help=f"default: {OUT}")
    p.add_argument("--json", action="store_true", help="print the entries as JSON")
    p.add_argument(
        "--python",
        default=sys.executable,
        metavar="PY",
        help="triton: the interpreter whose Triton to test (default: this one)",
    )
    p.add_argument(
        "--workers",
        type=_positive,
        default=min(2, os.cpu_count() or 1),
        metavar="N",
        help="requests: worker processes (default: %(default)s)",
    )
    p.add_argument(
        "--regressions",
        type=Path,
        metavar="DIR",
        help=f"save shrunk divergences here (default: {REGRESSIONS} if it exists; "
        "triton's under DIR/triton)",
    )
    return p


def _run_one(name: str, args: argparse.Namespace, size: int, seed: int) -> Outcome:
    regressions = args.regressions or (REGRESSIONS if REGRESSIONS.is_dir() else None)
    found_by = f"{PROG} {name} --size {size} --seed {seed}"
    if name == "engines":
        return engines(size, seed, regressions=regressions, found_by=found_by, progress=sys.stderr)
    if name == "requests":
        return requests(size, seed, args.workers, progress=sys.stderr)
    keep = regressions / "triton" if regressions is not None else None
    return triton(size, seed, python=args.python, keep=keep, progress=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    p = _parser()
    args = p.parse_args(argv)
    chosen = list(dict.fromkeys(args.campaigns)) or list(NAMES)
    unknown = [c for c in chosen if c not in SIZES]
    if unknown:
        p.error(f"unknown campaign {unknown[0]!r}; choose from {', '.join(NAMES)}")
    if args.size is not None and args.size > MAX_SCALE and "engines" in chosen:
        p.error(f"--size {args.size}: the engines campaign's scale is 1 to {MAX_SCALE}")
    if args.write:
        try:
            read_record(args.out)  # a bad file fails now, not after a long run
        except ValueError as exc:
            p.error(f"--out {exc}")
    results: list[Outcome] = []
    for name in chosen:
        s = SIZES[name]
        size = s.full if args.full else args.size or s.sample
        seed = s.seed if args.seed is None else args.seed
        try:
            got = _run_one(name, args, size, seed)
        except (Unavailable, registry.EngineUnavailable) as exc:
            if not args.campaigns and isinstance(exc, Unavailable):
                print(f"{name}: skipped: {exc}", file=sys.stderr)  # not asked for by name
                continue
            print(f"alias-spec: error: {name}: {one_line(str(exc))}", file=sys.stderr)
            return 2
        except RunError as exc:  # the verifier worker died or ran past its time
            print(f"alias-spec: error: {name}: {one_line(str(exc))}", file=sys.stderr)
            return 2
        results.append(got)
        if not args.json:
            print(got.report(), flush=True)
    date = datetime.date.today().isoformat()
    if args.write and results:
        write_record(args.out, results, date)
        print(f"recorded {', '.join(r.name for r in results)} in {args.out}", file=sys.stderr)
    if args.json:
        print(json.dumps([r.entry(date) for r in results], indent=1, sort_keys=True))
    return 0 if all(r.ok for r in results) else 1
