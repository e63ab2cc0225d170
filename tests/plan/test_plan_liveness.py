"""Liveness as Triton's programs need it, where a case file cannot say it: the buffers a
finding names, the warp-specialize state's place and range, and properties of the widening and
the overlap sweep over random inputs.

The verdicts and live ranges of small modules (pending TMA stores, buffers of one ``scf.if``
branch, warp-specialize regions) and of real kernels (``tests/plan/cases/text/liveness/``,
written by ``tools/plan/liveness/make_cases.py`` with Triton 3.6, judged from the stored
allocation) are text cases: ``tests/plan/cases/text/``, compared by ``test_plan_cases.py``.
"""

from __future__ import annotations

import gzip
import json
import random

import pytest

from alias_spec.ir.ttgir import read_module
from alias_spec.plan import liveness
from alias_spec.plan.liveness import Span
from alias_spec.plan.plan import check_plan
from tests.paths import PLAN_CASES
from tests.plan import expect

CASES = PLAN_CASES


def test_pending_tma_store_names_both_buffers() -> None:
    report = expect.judge(expect.CASES / "liveness" / "tma_store_pending.ttgir").report
    assert report is not None
    (finding,) = report.findings
    assert [b.split()[0] for b in finding.values["buffers"]] == ["%a", "%b_10"]


# --- warp specialization ------------------------------------------------------------------------


def test_warp_specialize_state_bytes_are_listed_and_judged() -> None:
    path = expect.CASES / "warp_specialize" / "state_bytes_overlap.ttgir"
    report = expect.judge(path).report
    assert report is not None
    (state,) = [b for b in report.buffers if b.kind == "state"]
    ops = read_module(path.read_text()).functions[0].ops
    assert state.offset == 1536 and state.live == (0, len(ops) - 1)
    assert [f.rule for f in report.findings] == ["plan.overlap"]
    assert "warp-specialize state" in report.findings[0].message


def test_state_bytes_of_the_corpus_kernel_come_from_the_allocator() -> None:
    path = CASES / "corpus" / "3.6" / "gluon_warp_specialized.json.gz"
    with gzip.open(path, "rt", encoding="utf-8") as f:
        rec = json.load(f)
    a = rec["alloc"]
    report, _, buffers = check_plan(rec["ttgir"], "k.ttgir",
                                    allocated=(a["module"], a["debug"], a["version"]))  # fmt: skip
    (state,) = [b for b in buffers if b.kind == "state"]
    assert (state.offset, state.size, state.size_from) == (1656, 4, "allocator")
    assert report.status == "clean"


# --- widening on range tables -------------------------------------------------------------------


def _naive(lo: int, hi: int, spans: list[Span], carried: set[int], every: bool):
    """The widening as a plain fixpoint over every span (the definition)."""
    while True:
        old = (lo, hi)
        for k, s in enumerate(spans):
            if hi < s.start or lo > s.end:
                continue
            inside = s.start <= lo and hi <= s.end
            if not (lo > s.start or hi < s.end):
                continue
            in_region = s.always and s.region_of(lo, hi) is not None
            if not inside or k in carried or every or (s.always and not in_region):
                lo, hi = min(lo, s.start), max(hi, s.end)
        if (lo, hi) == old:
            return lo, hi


def test_widening_matches_the_plain_fixpoint() -> None:
    rnd = random.Random(17)
    for _ in range(3000):
        n = rnd.randint(1, 8)
        spans = []
        for _ in range(n):
            a, b = sorted(rnd.sample(range(40), 2))
            always = rnd.random() < 0.2
            cuts = sorted(rnd.sample(range(a, b), min(rnd.randint(0, 3), b - a)))
            bounds = [a, *[c + 1 for c in cuts], b + 1]
            regions = tuple((x, y - 1) for x, y in zip(bounds, bounds[1:], strict=False))
            spans.append(Span(a, b, frozenset({"%v"}) if rnd.random() < 0.3 else frozenset(),
                              always, regions[0][1] if always else -1,
                              regions if always else ()))  # fmt: skip
        index = liveness._Index(spans)
        lo = rnd.randint(0, 39)
        hi = rnd.randint(lo, 39)
        carried = {k for k, s in enumerate(spans) if s.carried}
        every = rnd.random() < 0.2
        triggers = [s for s in spans if s.carried]
        got = liveness._widen(lo, hi, index, triggers, every)
        assert got == _naive(lo, hi, spans, carried, every), (lo, hi, spans, every)


# --- the overlap sweep ---------------------------------------------------------------------------

# Concurrent ops on a time line of 0..59, as liveness.spans gives them: (first, last, regions).
_WS_OPS = [
    (10, 30, ((10, 15), (16, 22), (23, 30))),
    (17, 21, ((17, 18), (19, 21))),  # inside region 1 of the first
    (40, 50, ((40, 44), (45, 50))),
]


def _widened(lo: int, hi: int) -> tuple[tuple[int, int], tuple[tuple[int, int, int], ...]]:
    """A range widened as liveness widens it over concurrent ops, and the regions it lies in."""
    while True:
        old = (lo, hi)
        for a, b, regions in _WS_OPS:
            touches = a <= hi and lo <= b and (lo > a or hi < b)
            inside = any(x <= lo and hi <= y for x, y in regions)
            if touches and not inside:
                lo, hi = min(lo, a), max(hi, b)
        if (lo, hi) == old:
            break
    chain = tuple((a, b, i) for a, b, regions in _WS_OPS if a <= lo and hi <= b
                  for i, (x, y) in enumerate(regions) if x <= lo and hi <= y)  # fmt: skip
    return (lo, hi), chain


def test_sweep_finds_exactly_the_pairs_of_the_definition() -> None:
    from alias_spec.ir.ttgir import Op
    from alias_spec.plan.plan import Buffer, overlapping_pairs

    rnd = random.Random(23)
    for _ in range(400):
        items = []
        for k in range(rnd.randint(1, 30)):
            lo = rnd.randint(0, 59)
            live, chain = _widened(lo, min(59, lo + rnd.randint(0, 12)))
            op = Op("ttg.local_alloc", k, k + 1, 1, [f"%b{k}"], [], [], "")
            size = rnd.choice([0, 1, 16, 64, 256])
            items.append(Buffer("alloc", "k", op, rnd.randrange(0, 1024, 16), size, "type",
                                live, regions=chain))  # fmt: skip
        want = []
        for i, a in enumerate(items):
            for j in range(i + 1, len(items)):
                b = items[j]
                bytes_meet = (a.size and b.size and a.offset < b.offset + b.size
                              and b.offset < a.offset + a.size)  # fmt: skip
                # In two different regions of one concurrent op: they run at the same time.
                split = any(x[:2] == y[:2] and x[2] != y[2] for x in a.regions
                            for y in b.regions)  # fmt: skip
                together = split or max(a.live[0], b.live[0]) <= min(a.live[1], b.live[1])
                if bytes_meet and together:
                    want.append((i, j))
        assert overlapping_pairs(items) == want


def test_scaling_module_is_clean_and_placed_as_triton_places_it() -> None:
    from tools.plan.scaling import scaling_allocs

    report, _, buffers = check_plan(scaling_allocs(300), "scaling.ttgir")
    assert report.status == "clean" and len(buffers) == 301
    pytest.importorskip("triton")
    from alias_spec.plan.runner import allocate

    text = scaling_allocs(20, planned=False)
    done = allocate(text, prepasses="none")
    report, _, buffers = check_plan(text, "scaling.ttgir",
                                    allocated=(done.module, done.debug, done.version))  # fmt: skip
    assert report.status == "clean"
    # The stored plan (planned=True) is the one Triton gives the same module.
    planned = {b.op.results[0]: b.offset for b in check_plan(scaling_allocs(20), "s")[2]}
    assert {b.op.results[0]: b.offset for b in buffers} == planned
    assert report.shared == read_module(scaling_allocs(20)).shared
