"""``alias-spec plan --races`` on warp-specialized kernels: the partitions (which warps run
which blocks, ``alias_spec/plan/partitions.py``) and the named / counted barriers each orders.

Independent truths: the corpus kernel ``gluon_warp_specialized`` as Triton built it (its
default partition's reduction orders its 4 warps by ``barrier.sync 0, 128``; its partitions
meet only through the whole-CTA ``barrier.sync 1`` and mbarriers) has no race; deleting the
count barrier between the reduction's shared store and the load after it leaves two warps of
that partition unordered on one word (a race by construction); hand-written kernels whose
races and orders are known by construction.
"""

from __future__ import annotations

import gzip
import json
import re
from typing import Any

import pytest

from tests.paths import PLAN_CASES

CORPUS = PLAN_CASES / "corpus"
VERSIONS = sorted(p.parent.name for p in CORPUS.glob("*/gluon_warp_specialized.json.gz"))
_COUNT = re.compile(r"^.*call void @llvm\.nvvm\.barrier\.cta\.sync\.aligned\.count\(i32 0, i32 128\).*$",
                    re.M)  # fmt: skip


def _deep(fn: Any) -> Any:
    from alias_spec.plan.llir import on_deep_stack

    return on_deep_stack(fn)


def _kernel(version: str) -> dict[str, Any]:
    path = CORPUS / version / "gluon_warp_specialized.json.gz"
    return json.loads(gzip.decompress(path.read_bytes()))  # type: ignore[no-any-return]


def _judge(d: dict[str, Any], llir: str | None = None) -> Any:
    from alias_spec.plan.api import check_texts

    a = d["alloc"]
    allocated = (a["module"], a["debug"], a["version"])
    return _deep(lambda: check_texts(d["ttgir"], llir or d["llir"], allocated=allocated,
                                     races=True))  # fmt: skip


def _races(report: Any) -> list[Any]:
    return [f for f in report.findings if f.rule in ("plan.race", "plan.race.proxy")]


def _unjudged(report: Any) -> list[str]:
    return [n.message for n in report.notes if n.kind == "race.unjudged"]


def _last_count_barrier(llir: str) -> re.Match[str]:
    """The default partition's last ``barrier.sync 0, 128``: between the reduction's shared
    store of each warp's partial sum and every thread's load of it."""
    found = list(_COUNT.finditer(llir))
    assert found, "no count barrier"
    return found[-1]


@pytest.mark.parametrize("version", VERSIONS)
def test_the_corpus_kernel_is_judged_with_no_race(version: str) -> None:
    pytest.importorskip("llvmlite")
    report = _judge(_kernel(version))
    assert not _races(report), [f.message for f in report.findings]
    notes = _unjudged(report)
    # No longer the blanket note: its pairs are judged ...
    assert not any("races not judged" in n for n in notes), notes
    m = re.search(r"(\d+) unordered pairs judged for races", report.lowering)
    assert m and int(m.group(1)) > 0, report.lowering
    # ... every barrier proved (no "named or counted" note) ...
    assert not any("named or counted" in n for n in notes), notes
    # ... and what stays open is said: the ring the producer partition fills and the default
    # reads, ordered by mbarriers only (not followed across partitions): partial, not clean.
    assert report.status == "partial"
    assert any("two warp-specialized partitions" in n and "ldmatrix" in n and "stmatrix" in n
               for n in notes), notes  # fmt: skip


@pytest.mark.parametrize("version", VERSIONS)
def test_deleting_the_default_partitions_count_barrier_is_a_race(version: str) -> None:
    pytest.importorskip("llvmlite")
    d = _kernel(version)
    m = _last_count_barrier(d["llir"])
    mutant = d["llir"][: m.start()] + d["llir"][m.end() + 1 :]
    found = _races(_judge(d, mutant))
    assert len(found) == 1, [f.message for f in found]
    f = found[0]
    t1, t2 = f.values["threads"]
    # Two threads of the default partition (warps 0-3), of different warps.
    assert 0 <= t1 < 128 and 0 <= t2 < 128 and t1 // 32 != t2 // 32, (t1, t2)
    assert f.values["warps"] == [0, 1, 2, 3]
    assert "partition of warps 0-3" in f.message
    # The word of the reduction's scratch the two touch: a warp's partial sum.
    assert 1536 <= f.values["byte"] < 1552


@pytest.mark.parametrize("version", VERSIONS)
def test_a_count_that_fits_no_partition_is_partial_naming_it(version: str) -> None:
    pytest.importorskip("llvmlite")
    d = _kernel(version)
    m = _last_count_barrier(d["llir"])
    line = d["llir"][: m.start()].count("\n") + 1
    odd = m.group(0).replace("i32 128)", "i32 96)")
    mutant = d["llir"][: m.start()] + odd + d["llir"][m.end() :]
    report = _judge(d, mutant)
    assert not _races(report), [f.message for f in report.findings]
    assert report.status == "partial"
    named = [n for n in _unjudged(report) if "named or counted" in n]
    assert named and f"LLVM IR line {line} " in named[0] and "96 threads" in named[0], named
    # The pairs it would have ordered are not asked: partial already, a common byte of theirs
    # could be no finding (they are late), so only a proof apart could come of asking.
    assert any("unordered pairs not asked (they could only be proved apart" in n
               for n in _unjudged(report))  # fmt: skip


# Hand-written kernels: 128 threads (warps 0-3); warps 0-1 run FIRST, warps 2-3 SECOND.
_KERNEL = """@global_smem = external addrspace(3) global [0 x i8], align 16
define ptx_kernel void @k(ptr addrspace(1) %0) "nvvm.reqntid"="128" {{
  %t = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %w0 = lshr i32 %t, 5
  %w = tail call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 -1, i32 %w0, i32 0, i32 31)
  %c = icmp ult i32 %w, 2
  br i1 %c, label %first, label %second
first:
{first}
  br label %done
second:
{second}
  br label %done
done:
  ret void
}}
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.shfl.sync.idx.i32(i32, i32, i32, i32)
declare void @llvm.nvvm.barrier.cta.sync.aligned.count(i32, i32)
declare void @llvm.nvvm.barrier.cta.sync.all(i32)
"""
# Each thread stores word t, then every thread loads word 5 (threads 0-63: a race unless a
# barrier of warps 0-1 is between).
_STORE_LOAD = """  %p = getelementptr float, ptr addrspace(3) @global_smem, i32 %t
  store float 1.0, ptr addrspace(3) %p, align 4
{between}
  %q = getelementptr float, ptr addrspace(3) @global_smem, i32 5
  %v = load float, ptr addrspace(3) %q, align 4"""
_COUNT_64 = "  tail call void @llvm.nvvm.barrier.cta.sync.aligned.count(i32 1, i32 64)"


def _function(first: str, second: str = "") -> Any:
    pytest.importorskip("llvmlite")
    from alias_spec.ir.llir import read

    return read(_KERNEL.format(first=first, second=second)).functions[0]


def _check(first: str, second: str = "") -> Any:
    pytest.importorskip("llvmlite")
    from alias_spec.plan.llir import check_lowering
    from alias_spec.plan.plan import Report

    report = Report("k.ttgir", "test", 512)
    text = _KERNEL.format(first=first, second=second)
    _deep(lambda: check_lowering(text, "k.llir", report, 4, kernels=["k"], races=True))
    return report


def test_the_warps_of_each_block() -> None:
    from alias_spec.plan.partitions import partitions

    fn = _function(_STORE_LOAD.format(between=_COUNT_64))
    parts = partitions(fn)
    names = {b.name: b.index for b in fn.blocks}
    assert parts.warps == 4 and parts.split
    assert parts.groups == [frozenset({0, 1}), frozenset({2, 3})]
    assert parts.runs[names["first"]] == {0, 1} and parts.runs[names["second"]] == {2, 3}
    assert parts.runs[0] == parts.runs[names["done"]] == {0, 1, 2, 3}
    # The count barrier takes the 64 threads of warps 0-1: it orders that partition alone.
    (bar,) = parts.barriers
    assert (bar.id, bar.count) == (1, 64) and parts.scope == {bar.index: {0, 1}}
    assert parts.orders(frozenset({0, 1})) == {bar.index} and not parts.orders(frozenset({2, 3}))


def test_a_count_of_other_warps_is_unproved() -> None:
    from alias_spec.plan.partitions import partitions

    parts = partitions(_function(_STORE_LOAD.format(between=_COUNT_64.replace("64)", "96)"))))
    (bar,) = parts.barriers
    assert not parts.scope and "96 threads" in parts.unproved[bar.index]
    assert parts.loose(frozenset({0, 1})) == [bar.index] and not parts.loose(frozenset({2, 3}))
    # One id used by both partitions with one count: the 64 threads are not the 128 that
    # may reach barrier 1.
    both = partitions(_function(_COUNT_64, _COUNT_64))
    assert not both.scope and len(both.unproved) == 2


_TABLE = """@global_smem = external addrspace(3) global [0 x i8], align 16
define ptx_kernel void @k() "nvvm.reqntid"="128" {
  %t = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %w0 = lshr i32 %t, 5
  %w = tail call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 -1, i32 %w0, i32 0, i32 31)
  %c = icmp ult i32 %w, 2
  br i1 %c, label %default, label %loop
loop:
  tail call void @llvm.nvvm.barrier.cta.sync.all(i32 1)
  %a = getelementptr i8, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, i32 64), i32 %w
  %b = getelementptr i8, ptr addrspace(3) %a, i32 -2
  %s = load i8, ptr addrspace(3) %b, align 1
  switch i8 %s, label %idle [
    i8 0, label %p0
    i8 1, label %p1
    i8 9, label %exit
  ]
idle:
  br label %loop
p0:
  br label %loop
p1:
  br label %loop
default:
  store i8 0, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, i32 64), align 1
  store i8 1, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, i32 65), align 1
  tail call void @llvm.nvvm.barrier.cta.sync.all(i32 1)
  store i8 9, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, i32 64), align 1
  store i8 9, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, i32 65), align 1
  tail call void @llvm.nvvm.barrier.cta.sync.all(i32 1)
  br label %exit
exit:
  ret void
}
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.shfl.sync.idx.i32(i32, i32, i32, i32)
declare void @llvm.nvvm.barrier.cta.sync.all(i32)
"""


def test_a_table_of_partitions_as_triton_lowers_it() -> None:
    """The worker warps (2-3 here) switch on their byte of a table the default partition
    (warps 0-1) writes: warp 2 reads 0 then 9, warp 3 reads 1 then 9."""
    pytest.importorskip("llvmlite")
    from alias_spec.ir.llir import read
    from alias_spec.plan.partitions import partitions

    text = _TABLE
    fn = read(text).functions[0]
    parts = partitions(fn)
    names = {b.name: b.index for b in fn.blocks}
    assert parts.runs[names["p0"]] == {2} and parts.runs[names["p1"]] == {3}
    assert names["idle"] not in parts.runs  # no warp's byte holds another value
    assert parts.runs[names["loop"]] == {2, 3} and parts.runs[names["default"]] == {0, 1}
    assert parts.groups == [frozenset({0, 1}), frozenset({2}), frozenset({3})]
    # barrier.sync 1 with every thread of the CTA: orders them all.
    assert all(ws == {0, 1, 2, 3} for ws in parts.scope.values()) and len(parts.scope) == 3


def test_a_table_byte_written_otherwise_is_not_known() -> None:
    """The bytes of warps 2 and 3 also written by an i16 store: both may take every edge."""
    pytest.importorskip("llvmlite")
    from alias_spec.ir.llir import read
    from alias_spec.plan.partitions import partitions

    text = _TABLE.replace(
        "  tail call void @llvm.nvvm.barrier.cta.sync.all(i32 1)\n  store i8 9",
        "  store i16 7, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, "
        "i32 64), align 1\n  tail call void @llvm.nvvm.barrier.cta.sync.all(i32 1)\n  store i8 9",
    )
    assert text != _TABLE
    fn = read(text).functions[0]
    parts = partitions(fn)
    names = {b.name: b.index for b in fn.blocks}
    assert parts.runs[names["p0"]] == {2, 3} and parts.runs[names["p1"]] == {2, 3}
    assert parts.runs[names["idle"]] == {2, 3}


@pytest.mark.parametrize(
    ("between", "orders"),
    [
        ('  call void asm sideeffect "bar.sync 1, 64;", ""()', True),
        ('  call void asm sideeffect "barrier.sync.aligned $0, $1;", "r,r"(i32 1, i32 64)', True),
        ('  call void asm sideeffect "bar.arrive 1, 64;", ""()', False),
        ('  call void asm sideeffect "@%p bar.sync 1, 64;", ""()', False),  # not read
    ],
)
def test_inline_asm_barriers(between: str, orders: bool) -> None:
    report = _check(_STORE_LOAD.format(between=between))
    assert not _races(report)
    assert report.status == ("clean" if orders else "partial"), report.notes
    if not orders:
        assert any("named or counted" in n and "line 11 " in n for n in _unjudged(report))


def test_a_race_inside_a_partition_is_found() -> None:
    report = _check(_STORE_LOAD.format(between=""))
    found = _races(report)
    assert len(found) == 1, report.notes
    t1, t2 = found[0].values["threads"]
    assert 0 <= t1 < 64 and 0 <= t2 < 64 and t1 // 32 != t2 // 32
    assert found[0].values["warps"] == [0, 1]


def test_the_partitions_count_barrier_orders_it() -> None:
    report = _check(_STORE_LOAD.format(between=_COUNT_64))
    assert not _races(report) and report.status == "clean", report.notes


def test_a_count_barrier_that_fits_no_partition_is_partial() -> None:
    report = _check(_STORE_LOAD.format(between=_COUNT_64.replace("64)", "96)")))
    assert not _races(report) and report.status == "partial"
    notes = _unjudged(report)
    assert any("named or counted" in n and "LLVM IR line 11 " in n for n in notes), notes
    # Partial already: the pair the barrier would order (late) is counted, not asked.
    assert any("1 unordered pairs not asked" in n for n in notes), notes


def test_two_partitions_on_one_word_are_partial_not_clean() -> None:
    # Thread t of warps 0-1 and thread t + 64 of warps 2-3 store word t: nothing orders the
    # two partitions (an mbarrier could: not followed), so a note, never clean.
    first = """  %p = getelementptr float, ptr addrspace(3) @global_smem, i32 %t
  store float 1.0, ptr addrspace(3) %p, align 4"""
    second = """  %u = sub i32 %t, 64
  %p2 = getelementptr float, ptr addrspace(3) @global_smem, i32 %u
  store float 2.0, ptr addrspace(3) %p2, align 4"""
    report = _check(first, second)
    assert not _races(report) and report.status == "partial"
    assert any("two warp-specialized partitions" in n for n in _unjudged(report))
    # Apart (thread t + 64 stores word t + 64): no common byte, clean.
    apart = _check(first, second.replace("sub i32 %t, 64", "add i32 %t, 0"))
    assert not _races(apart) and apart.status == "clean", apart.notes


def test_a_whole_cta_barrier_orders_two_partitions() -> None:
    first = """  %p = getelementptr float, ptr addrspace(3) @global_smem, i32 %t
  store float 1.0, ptr addrspace(3) %p, align 4
  tail call void @llvm.nvvm.barrier.cta.sync.all(i32 1)"""
    second = """  tail call void @llvm.nvvm.barrier.cta.sync.all(i32 1)
  %u = sub i32 %t, 64
  %p2 = getelementptr float, ptr addrspace(3) @global_smem, i32 %u
  %v = load float, ptr addrspace(3) %p2, align 4"""
    report = _check(first, second)
    assert not _races(report) and report.status == "clean", report.notes
