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

    def no_solver(timeout_ms: int) -> None:
        raise AssertionError("the solver was asked")

    monkeypatch.setattr(races, "one_shot_solver", no_solver)
    apart = races._overlap(_party(tid * 4, 1), _party(_bv(512) + tid * 4, 2), ev)
    assert apart == ("unsat", {})
    # The meeting is found by evaluating each party over its points (a model, no solver).
    verdict, witness = races._overlap(_party(a, 1), _party(b, 2), ev)
    assert verdict == "sat" and witness == {"byte": 4096, "tid.x": 3, "tid.x'": 70}
    # Over a value both threads share (a kernel argument) the parties are not evaluated apart:
    # the solver is asked.
    n = z3.BitVec("arg0", 32)
    shared_a, shared_b = z3.If(tid == 3, n, tid * 4), z3.If(tid == 70, n, _bv(8192) + tid * 4)
    with pytest.raises(AssertionError, match="solver was asked"):
        races._overlap(_party(shared_a, 1), _party(shared_b, 2), ev)


def test_a_warp_s_own_shuffle_is_apart_without_the_solver(monkeypatch: pytest.MonkeyPatch) -> None:
    """Thread by thread: each thread writes its word, then reads its warp neighbour's. Two
    threads of one warp meet (not a pair: a warp runs converged); in flight (any two threads)
    they are a pair, which the solver finds."""
    ev = _ev()
    tid = ev.thread_id()
    mine, neighbour = _party(tid * 4, 1), _party(((tid & ~31) | ((tid + 1) & 31)) * 4, 2)
    verdict, witness = races._overlap(mine, neighbour, ev, any_thread=True)
    assert verdict == "sat" and witness["tid.x"] // 32 == witness["tid.x'"] // 32

    def no_solver(timeout_ms: int) -> None:
        raise AssertionError("the solver was asked")

    monkeypatch.setattr(races, "one_shot_solver", no_solver)
    assert races._overlap(mine, neighbour, ev) == ("unsat", {})


def _wide(lo: z3.BitVecRef, size: int) -> tuple[z3.BitVecRef, z3.BitVecRef, z3.BoolRef | None]:
    """A wgmma operand's bytes: [first, last + 1), wider than the warp table's span."""
    return lo, lo + size, None


def test_ring_slots_apart_by_their_runs() -> None:
    """A wgmma reads one 2 KiB tile of a 4-slot ring (slots 16 KiB apart, the slot a loop
    value in [0, 3]); a copy writes bytes between two of its tiles. The bounds of the read
    cover the copy's bytes; its runs (one per slot) do not."""
    ev = _ev()
    tid = ev.thread_id()
    slot = z3.BitVec("slot", 32)
    ev.var_range["slot"] = (0, 3)
    read = _wide(_bv(2048) + slot * 16384, 2048)
    copy = _span(_bv(16384) + (tid & 127) * 16, 16)  # bytes 16384 to 18431
    assert not disjoint(bounds(ev), read, copy)
    assert threads(ev).apart(read, copy, any_thread=True)
    assert threads(ev).apart(copy, read, any_thread=False)
    # One byte into the next tile (slot 1 starts at 18432): the runs meet.
    late = _span(_bv(16385) + (tid & 127) * 16, 16)
    assert not threads(ev).apart(read, late, any_thread=True)
    # Slot 4 is not in the range; with it (another function), the read covers bytes past 67584.
    past = _span(_bv(67584) + tid, 1)
    assert threads(ev).apart(read, past, any_thread=True)
    ev = _ev()
    ev.var_range["slot"] = (0, 4)
    assert not threads(ev).apart(read, past, any_thread=True)


def test_runs_merge_and_meet() -> None:
    import numpy as np

    from alias_spec.plan.apart import Touched, _runs, _runs_meet

    u = np.uint64
    starts, ends = np.array([8, 0, 4, 20], dtype=u), np.array([12, 4, 6, 24], dtype=u)
    s, e = _runs(starts, ends)
    # [0, 4) and [4, 6) touch: one run; [8, 12) and [20, 24) apart.
    assert s.tolist() == [0, 8, 20] and e.tolist() == [6, 12, 24]
    a = Touched(s, e, None)

    def one(lo: int, hi: int) -> Touched:
        return Touched(np.array([lo], dtype=u), np.array([hi], dtype=u), None)

    assert not _runs_meet(a, one(6, 8)) and not _runs_meet(a, one(12, 20))
    assert _runs_meet(a, one(5, 7)) and _runs_meet(a, one(11, 21)) and _runs_meet(one(0, 99), a)
    assert not _runs_meet(a, one(24, 30)) and _runs_meet(a, one(23, 30))


def test_a_witness_meets_every_constraint() -> None:
    """The witness search evaluates each party with all its constraints: a meeting only at
    points a constraint excludes is not found (and the solver proves the pair apart)."""
    from alias_spec.plan.apart import witnesses

    ev = _ev()
    tid = ev.thread_id()
    a, b = _two_threads(tid)
    low = z3.ULT(tid, 64)  # the second party's thread 70 is excluded
    assert witnesses(ev).find((a, a + 4, []), (b, b + 4, [low]), any_thread=False) is None
    assert witnesses(ev).find((a, a + 4, []), (b, b + 4, []), any_thread=False) == {
        "byte": 4096, "tid.x": 3, "tid.x'": 70}  # fmt: skip
    guarded = Access(2, 1, "store float", 4, Value(b, True, False), None, cond=low)
    other = races._Party(guarded, b, b + 4, "write", None, "generic")
    assert races._overlap(_party(a, 1), other, ev) == ("unsat", {})
    # Two lanes of one warp meet: no pair of threads of different warps; any two threads do.
    lanes = z3.If(tid == 4, _bv(12), tid * 4)
    side = (lanes, lanes + 4, [])
    assert witnesses(ev).find(side, side, any_thread=False) is None
    assert witnesses(ev).find(side, side, any_thread=True) is not None
    # Only the warps each thread may be of: warp 2 against warp 0 (thread 3) finds none.
    only = (frozenset({2}), frozenset({0, 1, 2, 3}))
    assert witnesses(ev).find((a, a + 4, []), (b, b + 4, []), False, only) is None


def test_a_value_with_no_range_takes_candidate_values() -> None:
    """A kernel argument with no proved range takes a few values (any is real); a constraint
    none of them meets leaves the pair to the solver, which finds the model."""
    from alias_spec.plan.apart import witnesses

    ev = _ev()
    tid = ev.thread_id()
    n = z3.BitVec("arg1", 32)
    mine = (tid * 4, tid * 4 + 4, [])
    theirs = (_bv(64), _bv(68), [z3.UGT(n, 63)])
    got = witnesses(ev).find(mine, theirs, any_thread=True)
    assert got is not None and got["byte"] == 64 and got["tid.x"] == 16
    odd = (_bv(64), _bv(68), [n == 12345])
    assert witnesses(ev).find(mine, odd, any_thread=True) is None
    write = Access(2, 1, "store float", 4, Value(_bv(64), True, False), None, cond=n == 12345)
    verdict, w = races._overlap(_party(tid * 4, 1),
                                races._Party(write, _bv(64), _bv(68), "write", None, "generic"),
                                ev)  # fmt: skip
    assert verdict == "sat" and w["byte"] == 64 and w["tid.x"] // 32 != w["tid.x'"] // 32


def test_free_vars_of_a_term_plus_a_number_are_the_terms() -> None:
    """A party's end (its start plus a size) is asked for the start's variables: the same
    variables as a walk of the whole term finds, and none when the term is a number."""
    from alias_spec.plan.evaluator import _free_vars, free_vars

    x, y, tid = z3.BitVecs("x y tid.x", 32)
    for e in (x + 4, (x * y + tid) + 16, z3.BitVecVal(8, 32) + 4, (x + y) + 1, x + y,
              z3.Extract(31, 0, z3.ZeroExt(8, tid) + 2) + 3):  # fmt: skip
        want = sorted(str(v) for v in _free_vars(e))
        assert sorted(str(v) for v in free_vars(e)) == want, e
        assert sorted(str(v) for v in free_vars(e)) == want, e  # remembered alike
    assert free_vars(z3.BitVecVal(8, 32) + 4) == []
    deep = x * y
    for k in range(5000):  # a chain deeper than the interpreter's recursion limit
        deep = deep + (k + 1)
    assert sorted(str(v) for v in free_vars(deep)) == ["x", "y"]
