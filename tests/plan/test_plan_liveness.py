"""Liveness as Triton's programs need it: pending TMA stores, buffers of one ``scf.if`` branch,
the warp-specialize state bytes and the default region's order, and widening on range tables.

Real kernels (``tests/plan/cases/liveness/*.json``, written by ``tools/plan/liveness/make_cases.py`` with Triton
3.6) carry their expected verdict; the small modules below carry theirs in the test. They are
judged from the stored allocation (module with ``allocation.offset``), so no Triton is needed.
"""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import pytest

from alias_spec.ir.ttgir import read_module
from alias_spec.plan import liveness
from alias_spec.plan.liveness import Span, live_ranges
from alias_spec.plan.plan import check_plan
from tests.paths import PLAN_CASES

CASES = PLAN_CASES
LIVENESS = sorted((CASES / "liveness").glob("*.json"))


def _judge_case(path: Path):
    rec = json.loads(path.read_text())
    a = rec["alloc"]
    report, _, buffers = check_plan(rec["ttgir"], f"{rec['name']}.ttgir",
                                    allocated=(a["module"], a["debug"], a["version"]))  # fmt: skip
    return rec, report, buffers


@pytest.mark.parametrize("path", LIVENESS, ids=lambda p: p.stem)
def test_real_kernel_verdict(path: Path) -> None:
    assert _verdict(path) == _expected(path)


def _expected(path: Path) -> str:
    return json.loads(path.read_text())["expect"]


def _verdict(path: Path) -> str:
    _, report, _ = _judge_case(path)
    rules = sorted({f.rule for f in report.findings})
    return ",".join(rules) if rules else report.status


def test_cases_are_there() -> None:
    names = {p.stem for p in LIVENESS}
    assert {"tma_store_pending", "tma_store_waited", "branch_buffers_unique"} <= names


def test_pending_tma_store_names_both_buffers() -> None:
    _, report, _ = _judge_case(CASES / "liveness" / "tma_store_pending.json")
    (finding,) = report.findings
    assert [b.split()[0] for b in finding.values["buffers"]] == ["%a", "%b_10"]


# --- small modules ------------------------------------------------------------------------------

MEMDESC = "!ttg.memdesc<256xf32, #shared, #smem, mutable>"
DESC = "!tt.tensordesc<tensor<256xf32, #shared>>"
HEADER = (
    "#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>\n"
    "#smem = #ttg.shared_memory\n"
    'module attributes {"ttg.num-warps" = 4 : i32, ttg.shared = 4096 : i32} {\n'
    "  tt.func public @k(%d: DESC, %n: i32, %c: i1) FUNC{\n"
)
FOOTER = "    tt.return\n  }\n}\n"


def _module(body: str, func_attrs: str = "") -> str:
    head = HEADER.replace("DESC", DESC).replace("FUNC", func_attrs)
    return head + body + FOOTER


def _alloc(name: str, offset: int, indent: str = "    ") -> str:
    return (f"{indent}{name} = ttg.local_alloc {{allocation.offset = {offset} : i32}} : "
            f"() -> {MEMDESC}\n")  # fmt: skip


def _store(name: str, indent: str = "    ") -> str:
    return f"{indent}ttng.async_tma_copy_local_to_global %d[%n] {name} : {DESC}, {MEMDESC}\n"


def _wait(pendings: int, indent: str = "    ") -> str:
    return f"{indent}ttng.async_tma_store_wait {{pendings = {pendings} : i32}}\n"


def _load(name: str, indent: str = "    ") -> str:
    return f"{indent}%v{name[1:]} = ttg.local_load {name} : {MEMDESC} -> tensor<256xf32>\n"


def _rules(body: str, func_attrs: str = "") -> list[str]:
    report, _, _ = check_plan(_module(body, func_attrs), "k.ttgir")
    return [f.rule for f in report.findings]


def _ranges(body: str) -> dict[str, tuple[int, int]]:
    fn = read_module(_module(body)).functions[0]
    return live_ranges(fn, {op.results[0] for op in fn.ops if op.name == "ttg.local_alloc"})


def test_store_is_done_at_a_wait_for_zero_pending() -> None:
    body = _alloc("%a", 0) + _store("%a") + _wait(0) + _alloc("%b", 0) + _load("%b")
    assert _rules(body) == []
    body = _alloc("%a", 0) + _store("%a") + _alloc("%b", 0) + _load("%b") + _wait(0)
    assert _rules(body) == ["plan.overlap"]


def test_no_wait_reads_the_source_to_the_end() -> None:
    body = _alloc("%a", 0) + _store("%a") + _alloc("%b", 0) + _load("%b")
    assert _rules(body) == ["plan.overlap"]


def test_pendings_count_the_stores_issued_since() -> None:
    # After %a's store one more store is issued: a wait allowing 1 pending retires %a's.
    two = _alloc("%a", 0) + _store("%a") + _alloc("%e", 1024) + _store("%e") + _wait(1)
    assert _rules(two + _alloc("%b", 0) + _load("%b")) == []
    # A wait allowing 1 right after %a's own store does not: %a's may be the one pending.
    one = _alloc("%a", 0) + _store("%a") + _wait(1)
    assert _rules(one + _alloc("%b", 0) + _load("%b")) == ["plan.overlap"]
    # The newest store (%e) is not retired by the wait allowing 1.
    assert _rules(two + _alloc("%b", 1024) + _load("%b")) == ["plan.overlap"]


def test_a_wait_that_may_not_run_does_not_count() -> None:
    body = (_alloc("%a", 0) + _store("%a") + "    scf.if %c {\n" + _wait(0, "      ")
            + "    }\n" + _alloc("%b", 0) + _load("%b"))  # fmt: skip
    assert _rules(body) == ["plan.overlap"]
    in_loop = (_alloc("%a", 0) + _store("%a") + "    scf.for %i = %n to %n step %n : i32 {\n"
               + _wait(0, "      ") + "    }\n" + _alloc("%b", 0) + _load("%b"))  # fmt: skip
    assert _rules(in_loop) == ["plan.overlap"]


def test_store_in_a_loop_is_live_over_the_loop_until_the_wait_after_it() -> None:
    body = (_alloc("%a", 0) + "    scf.for %i = %n to %n step %n : i32 {\n"
            + _alloc("%t", 1024, "      ") + _load("%t", "      ") + _store("%a", "      ")
            + "    }\n" + _wait(0) + _alloc("%b", 0) + _load("%b"))  # fmt: skip
    r = _ranges(body)
    assert r["%a"] == (0, 5)  # to the wait after the loop (position 5)
    assert r["%b"][0] > r["%a"][1]
    assert _rules(body) == []


def test_wait_after_a_partition_is_by_other_warps() -> None:
    body = (_alloc("%a", 0) + "    ttg.warp_specialize(%a)\n    default {\n"
            "      ttg.warp_yield\n    }\n"
            f"    partition0(%p: {MEMDESC}) num_warps(1) {{\n" + _store("%p", "      ")
            + "      ttg.warp_return\n" + f"    }} : ({MEMDESC}) -> ()\n" + _wait(0)
            + _alloc("%b", 0) + _load("%b"))  # fmt: skip
    assert _rules(body) == ["plan.overlap"]
    default = body.replace("      ttg.warp_yield\n", _store("%a", "      ") + "      ttg."
                           "warp_yield\n").replace(_store("%p", "      "), "")  # fmt: skip
    assert _rules(default) == []  # the default warps go on past the op to the wait


IF_BODY = (
    f"    %r:2 = scf.if %c -> ({MEMDESC}, tensor<256xf32>) {{\n"
    + _alloc("%x", 0, "      ")
    + _load("%x", "      ")
    + f"      scf.yield %x, %vx : {MEMDESC}, tensor<256xf32>\n"
    + "    } else {\n"
    + _alloc("%y", 0, "      ")
    + _load("%y", "      ")
    + f"      scf.yield %y, %vy : {MEMDESC}, tensor<256xf32>\n"
    + "    }\n"
)


def test_buffers_of_two_branches_are_not_live_together() -> None:
    use_data = "    %w = arith.addf %r#1, %r#1 : tensor<256xf32>\n"
    r = _ranges(IF_BODY + use_data)
    assert r["%x"] == (1, 2) and r["%y"] == (4, 5)  # their yields read nothing
    assert _rules(IF_BODY + use_data) == []


def test_a_branch_buffer_read_after_the_if_is_live_there() -> None:
    use_buf = f"    %w = ttg.local_load %r#0 : {MEMDESC} -> tensor<256xf32>\n"
    r = _ranges(IF_BODY + use_buf)
    assert r["%x"] == (1, 7) and r["%y"] == (4, 7)  # the load after the if
    assert _rules(IF_BODY + use_buf) == ["plan.overlap"]  # one range each: conservative


def test_an_unread_result_does_not_keep_an_outer_buffer() -> None:
    body = (_alloc("%o", 0) + f"    %r = scf.if %c -> ({MEMDESC}) {{\n" + _alloc("%x", 0, "      ")
            + _load("%x", "      ") + f"      scf.yield %x : {MEMDESC}\n    }} else {{\n"
            + f"      scf.yield %o : {MEMDESC}\n    }}\n")  # fmt: skip
    assert _ranges(body)["%o"] == (0, 0)


# --- warp specialization ------------------------------------------------------------------------

WS = (
    "    ttg.warp_specialize(%a) attributes {allocation.offset = 1024 : i32}\n"
    "    default {\n"
    "DEFAULT"
    "      ttg.warp_yield\n"
    "    }\n"
    f"    partition0(%p: {MEMDESC}) num_warps(1) {{\n"
    "PARTITION"
    "      ttg.warp_return\n"
    f"    }} : ({MEMDESC}) -> ()\n"
)


def _ws(default: str, partition: str = "") -> str:
    return _alloc("%a", 0) + WS.replace("DEFAULT", default).replace("PARTITION", partition)


def test_default_region_runs_in_order() -> None:
    default = (_alloc("%d", 1024, "      ") + _load("%d", "      ") + _alloc("%e", 1024, "      ")
               + _load("%e", "      "))  # fmt: skip
    assert _rules(_ws(default)) == []


def test_partition_buffer_is_live_over_the_whole_op() -> None:
    partition = _alloc("%q", 1024, "      ") + _load("%q", "      ")
    default = _alloc("%d", 1024, "      ") + _load("%d", "      ")
    assert _rules(_ws(default, partition)) == ["plan.overlap"]


WS2 = (
    "    ttg.warp_specialize(%a) attributes {allocation.offset = 1024 : i32}\n"
    "    default {\n"
    "DEFAULT"
    "      ttg.warp_yield\n"
    "    }\n"
    f"    partition0(%p: {MEMDESC}) num_warps(1) {{\n"
    "PART0"
    "      ttg.warp_return\n"
    "    }\n"
    f"    partition1(%q: {MEMDESC}) num_warps(1) {{\n"
    "PART1"
    "      ttg.warp_return\n"
    f"    }} : ({MEMDESC}) -> ()\n"
)


def _ws2(default: str = "", part0: str = "", part1: str = "") -> str:
    return _alloc("%a", 0) + (WS2.replace("DEFAULT", default).replace("PART0", part0)
                              .replace("PART1", part1))  # fmt: skip


def _in(*parts: str) -> str:
    """Statements moved into a region (one indent deeper)."""
    return "".join("  " + p for p in parts)


def test_a_partition_runs_in_order() -> None:
    # Two buffers of one partition, one after the other, on the same bytes: clean (Triton
    # places the lit test's unused partition1 buffers so).
    part = _in(_alloc("%x", 1024), _load("%x"), _alloc("%y", 1024), _load("%y"))
    assert _rules(_ws2(part1=part)) == []
    unused = _in(_alloc("%x", 1024), _alloc("%y", 1024))
    assert _rules(_ws2(part1=unused)) == []
    # Live together inside the partition: an overlap.
    both = _in(_alloc("%x", 1024), _alloc("%y", 1024), _load("%x"), _load("%y"))
    assert _rules(_ws2(part1=both)) == ["plan.overlap"]


@pytest.mark.parametrize("where", [("part0", "part1"), ("default", "part1"), ("default", "part0")])
def test_buffers_of_two_regions_are_live_together(where: tuple[str, str]) -> None:
    # Each read at once, in its own region: the regions run at the same time.
    first = _in(_alloc("%x", 1024), _load("%x"))
    second = _in(_alloc("%y", 1024), _load("%y"))
    assert _rules(_ws2(**{where[0]: first, where[1]: second})) == ["plan.overlap"]
    moved = second.replace("offset = 1024", "offset = 2048")
    assert _rules(_ws2(**{where[0]: first, where[1]: moved})) == []


def test_a_partition_buffer_meets_what_lives_across_the_op() -> None:
    # %a is captured and read after the op: live over all of it, partitions included.
    part = _in(_alloc("%x", 0), _load("%x"))
    body = _ws2(part0=part) + _load("%a")
    assert _rules(body) == ["plan.overlap"]
    # Read only before the op: the partition may reuse its bytes.
    before = _alloc("%a", 0) + _load("%a") + WS2.replace("ttg.warp_specialize(%a)",
                                                         "ttg.warp_specialize(%a0)")  # fmt: skip
    before = _alloc("%a0", 2048) + before.replace("DEFAULT", "").replace("PART1", "").replace(
        "PART0", part)  # fmt: skip
    assert _rules(before) == []


def test_warp_specialize_state_bytes_are_listed_and_judged() -> None:
    attrs = "attributes {allocation.offset = 1536 : i32} "
    body = _ws("") + _alloc("%b", 1536) + _load("%b")
    report, _, buffers = check_plan(_module(body, attrs), "k.ttgir")
    (state,) = [b for b in buffers if b.kind == "state"]
    assert state.offset == 1536 and state.live == (0, len(read_module(_module(body)).functions[0]
                                                         .ops) - 1)  # fmt: skip
    assert [f.rule for f in report.findings] == ["plan.overlap"]
    assert "warp-specialize state" in report.findings[0].message
    assert _rules(body.replace("1536", "1792"), attrs) == []


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
