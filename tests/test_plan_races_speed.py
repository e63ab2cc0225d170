"""The race check's cheap proofs before the solver (``alias_spec/plan/apart.py``): a pair whose
bytes are apart by their bounds is proved with no question asked; a pair that may meet, even
for only two threads, is never decided there (the solver finds its witness)."""

from __future__ import annotations

from typing import Any

import pytest
import z3

from alias_spec.plan import races
from alias_spec.plan.apart import bounds, disjoint, threads
from alias_spec.plan.evaluator import Evaluator
from alias_spec.plan.llir import read_llir
from alias_spec.plan.terms import Access, Value

_LLIR = """define ptx_kernel void @k() "nvvm.reqntid"="128" {
  ret void
}
"""


def _ev() -> Evaluator:
    return Evaluator(read_llir(_LLIR).functions[0], 128)


def _span(lo: z3.BitVecRef, size: int = 4,
          cond: z3.BoolRef | None = None) -> tuple[z3.BitVecRef, z3.BitVecRef, z3.BoolRef | None]:  # fmt: skip
    return lo, lo + size, cond


def _bv(n: int) -> z3.BitVecRef:
    return z3.BitVecVal(n, 32)


def test_two_buffers_are_apart() -> None:
    ev = _ev()
    tid = ev.thread_id()
    assert disjoint(bounds(ev), _span(tid * 4), _span(_bv(1024) + tid * 4))
    # The other order, and touching ends (the first's last byte 511, the second's first 512).
    assert disjoint(bounds(ev), _span(_bv(512) + tid * 4), _span(tid * 4))


def test_bytes_apart_only_by_their_exact_range() -> None:
    """Interval arithmetic takes a sum of two terms of the same bits as wide as both; the
    points of the thread id show it constant (63: word 63, bytes 252 to 255)."""
    ev = _ev()
    tid = ev.thread_id()
    low = tid & 63
    word = low + (low ^ 63)
    assert ev.interval(word * 4 + 4)[1] > 256  # the interval alone decides nothing
    assert disjoint(bounds(ev), _span(word * 4), _span(_bv(256) + low * 4))
    assert not disjoint(bounds(ev), _span(word * 4), _span(_bv(252) + low * 4))


def test_a_guard_narrows_the_bytes() -> None:
    ev = _ev()
    tid = ev.thread_id()
    half = z3.ULT(tid, 64)
    # Unguarded the first reaches byte 511; only threads below 64 make it: bytes below 256.
    assert not disjoint(bounds(ev), _span(tid * 4), _span(_bv(256) + tid * 4))
    assert disjoint(bounds(ev), _span(tid * 4, cond=half), _span(_bv(256) + tid * 4))


def test_bytes_that_meet_are_not_decided() -> None:
    ev = _ev()
    tid = ev.thread_id()
    assert not disjoint(bounds(ev), _span(tid * 4), _span(_bv(508) - tid * 4))
    assert not disjoint(bounds(ev), _span(tid * 4), _span(tid * 4))
    # One byte shared with the first's last.
    assert not disjoint(bounds(ev), _span(tid * 4), _span(_bv(511) + tid * 4))


def _two_threads(tid: z3.BitVecRef) -> tuple[z3.BitVecRef, z3.BitVecRef]:
    """Thread 3 by the first access and thread 70 by the second touch byte 4096; no two other
    threads meet."""
    a = z3.If(tid == 3, _bv(4096), tid * 4)
    b = z3.If(tid == 70, _bv(4096), _bv(8192) + tid * 4)
    return a, b


def test_a_pair_that_meets_for_two_threads_only_is_not_decided() -> None:
    ev = _ev()
    a, b = _two_threads(ev.thread_id())
    assert not disjoint(bounds(ev), _span(a), _span(b))


def test_a_value_with_no_proved_range_decides_nothing() -> None:
    ev = _ev()
    slot = z3.BitVec("slot", 32)  # a loop-carried value whose bounds were not found
    assert not disjoint(bounds(ev), _span((slot & 1) * 4096), _span(_bv(1 << 20) + slot))
    # With its range proved (as the evaluator publishes it), the pair is apart.
    ev.var_range["slot"] = (0, 1)
    assert disjoint(bounds(ev), _span((slot & 1) * 4096), _span(_bv(1 << 20) + slot))


def test_thread_by_thread_a_layout_conversion_is_apart() -> None:
    """Each thread writes its own word and reads another's of its own warp (a shuffle inside
    a warp): no two threads of different warps meet, though both span the whole buffer."""
    ev = _ev()
    tid = ev.thread_id()
    mine = tid * 4
    neighbour = ((tid & ~31) | ((tid + 1) & 31)) * 4
    assert not disjoint(bounds(ev), _span(mine), _span(neighbour))
    assert threads(ev).apart(_span(mine), _span(neighbour), any_thread=False)
    # Any two threads (an access still in flight): thread t and thread t's neighbour meet.
    assert not threads(ev).apart(_span(mine), _span(neighbour), any_thread=True)


def test_thread_by_thread_two_warps_meeting_are_not_apart() -> None:
    ev = _ev()
    tid = ev.thread_id()
    a, b = _two_threads(tid)
    assert not threads(ev).apart(_span(a), _span(b), any_thread=False)
    # Thread 3 (warp 0) and thread 35 (warp 1) of one access meet at word 3.
    same = z3.If(tid == 35, _bv(12), tid * 4)
    assert not threads(ev).apart(_span(same), _span(same), any_thread=False)
    # Two lanes of one warp meeting are not a pair (a warp runs converged).
    lanes = z3.If(tid == 4, _bv(12), tid * 4)
    assert threads(ev).apart(_span(lanes), _span(lanes), any_thread=False)
    assert not threads(ev).apart(_span(lanes), _span(lanes), any_thread=True)


def test_thread_by_thread_guards_and_other_values() -> None:
    ev = _ev()
    tid = ev.thread_id()
    # Only warp 0 writes word 0; every thread reads it: warp 1 meets warp 0's write.
    assert not threads(ev).apart(_span(_bv(0), cond=z3.ULT(tid, 32)), _span(_bv(0)), False)
    # Only thread 0 writes it and only warp 0 reads it: one warp, no pair.
    assert threads(ev).apart(_span(_bv(0), cond=tid == 0),
                             _span(_bv(0), cond=z3.ULT(tid, 32)), False)  # fmt: skip
    # A term over another value: over every point of its range, or of a subterm's bounds.
    slot, free = z3.BitVec("slot", 32), z3.BitVec("free", 32)
    assert not threads(ev).apart(_span(tid * 4), _span(_bv(512) + slot * 4), False)
    assert threads(ev).apart(_span(tid * 4), _span(_bv(512) + z3.URem(free, 3) * 4), False)
    ev.var_range["slot"] = (0, 1)
    assert threads(ev).apart(_span(tid * 4), _span(_bv(512) + slot * 4), False)
    assert not threads(ev).apart(_span(tid * 4), _span(_bv(508) + slot * 4), False)
    # A slot's word written by one thread of each warp: two warps meet there.
    ring = z3.If(tid & 31 == 0, slot * 4, _bv(1 << 20) + tid * 4)
    assert not threads(ev).apart(_span(ring), _span(ring), False)
    # Nor an empty span (the question's comparisons do not mean a common byte there).
    assert not threads(ev).apart((tid * 4, tid * 4, None), _span(_bv(1 << 20)), False)


def _party(lo: z3.BitVecRef, line: int) -> Any:
    access = Access(line, 1, "store float", 4, Value(lo, True, False), None)
    return races._Party(access, lo, lo + 4, "write", None, "generic")


def test_the_pair_question_skips_the_solver_only_when_apart(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ev = _ev()
    tid = ev.thread_id()
    a, b = _two_threads(tid)
    verdict, witness = races._overlap(_party(a, 1), _party(b, 2), ev)
    assert verdict == "sat" and witness["byte"] == 4096
    assert {witness["tid.x"], witness["tid.x'"]} == {3, 70}

    def no_solver() -> None:
        raise AssertionError("the solver was asked")

    monkeypatch.setattr(z3, "Solver", no_solver)
    apart = races._overlap(_party(tid * 4, 1), _party(_bv(512) + tid * 4, 2), ev)
    assert apart == ("unsat", {})
    with pytest.raises(AssertionError, match="solver was asked"):
        races._overlap(_party(a, 1), _party(b, 2), ev)


def test_a_warp_s_own_shuffle_is_apart_without_the_solver(monkeypatch: pytest.MonkeyPatch) -> None:
    """Thread by thread: each thread writes its word, then reads its warp neighbour's. Two
    threads of one warp meet (not a pair: a warp runs converged); in flight (any two threads)
    they are a pair, which the solver finds."""
    ev = _ev()
    tid = ev.thread_id()
    mine, neighbour = _party(tid * 4, 1), _party(((tid & ~31) | ((tid + 1) & 31)) * 4, 2)
    verdict, witness = races._overlap(mine, neighbour, ev, any_thread=True)
    assert verdict == "sat" and witness["tid.x"] // 32 == witness["tid.x'"] // 32

    def no_solver() -> None:
        raise AssertionError("the solver was asked")

    monkeypatch.setattr(z3, "Solver", no_solver)
    assert races._overlap(mine, neighbour, ev) == ("unsat", {})
