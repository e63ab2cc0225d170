"""Cheap proofs that two parties of a race pair touch no common byte (``races.py``).

Most unordered pairs of a kernel are of different buffers, or of parts of one buffer that no
value of their variables brings together: each party's bytes lie in bounds found without the
solver, and the two bounds are apart. The bounds of a term are its interval (the evaluator's
interval arithmetic) or, where that is too wide, its exact least and greatest value over every
point of its variables' proved ranges (``exhaust.py``). Each variable takes every value of its
range, independently of the others and of the other party's, so the bounds hold for any two
threads and any values the pair's question could pick (its constraints only remove points):
bounds apart are a proof that the question is unsatisfiable. Bounds that meet decide nothing
(the solver is asked).

The ranges are those the evaluator has proved (``var_range``, ``var_signed``, a merge's
incoming values), each implied by a constraint the pair's question holds, so this never
decides a pair the solver would not decide alike.
"""

from __future__ import annotations

import weakref
from typing import Any

import z3

from alias_spec.plan import exhaust
from alias_spec.plan.evaluator import Evaluator, free_vars
from alias_spec.plan.shapes import Shapes


class Bounds:
    """Unsigned bounds of terms of one function, remembered per term (the parties' terms recur
    in many pairs). Ranges only grow tighter as the evaluator proves bounds, so a cached bound
    stays sound; it is dropped when the evaluator's ranges change anyway (a cheap key)."""

    def __init__(self, ev: Evaluator) -> None:
        self.ev = ev
        # (term id, guard id or -1) -> the term and guard (kept alive so that their ids are not
        # reused) and the bounds found, or None
        self._memo: dict[tuple[int, int], tuple[z3.ExprRef, z3.ExprRef | None,
                                                tuple[int, int] | None]] = {}  # fmt: skip
        self._key = self._ranges_key()

    def _ranges_key(self) -> tuple[int, int, int]:
        ev = self.ev
        return (len(ev.var_range), len(ev.var_signed), len(ev.var_merge))

    def of(self, e: z3.BitVecRef, cond: z3.BoolRef | None = None) -> tuple[int, int] | None:
        """Sound unsigned bounds of ``e`` where ``cond`` holds (None: every point), or None
        when none are known tighter than the full range."""
        key = self._ranges_key()
        if key != self._key:
            self._memo.clear()
            self._key = key
        k = (e.get_id(), -1 if cond is None else cond.get_id())
        got = self._memo.get(k)
        if got is not None:
            return got[2]
        out = self._bounds(e, cond)
        self._memo[k] = (e, cond, out)
        return out

    def _bounds(self, e: z3.BitVecRef, cond: z3.BoolRef | None) -> tuple[int, int] | None:
        ev = self.ev
        full = (1 << e.size()) - 1
        lo, hi = ev.interval(e)
        # The exact range over the variables' points is tighter where the term is a swizzle or
        # sums terms of the same bits; it is only worth it where the interval is wide.
        exact = exhaust.value_range(e, ev.var_range, ev.var_signed, ev.exhaust_memo)
        if exact is not None:
            lo, hi = max(lo, exact[0]), min(hi, exact[1])
        if cond is not None:
            # Only the points where the access's guard holds; no point at all: not used (the
            # solver decides an access that never runs).
            guarded = exhaust.value_range(e, ev.var_range, ev.var_signed, ev.exhaust_memo, cond)
            if guarded is not None:
                lo, hi = max(lo, guarded[0]), min(hi, guarded[1])
        if lo > hi or (lo, hi) == (0, full):
            return None
        return lo, hi


def disjoint(bounds: Bounds, a: tuple[z3.BitVecRef, z3.BitVecRef, z3.BoolRef | None],
             b: tuple[z3.BitVecRef, z3.BitVecRef, z3.BoolRef | None]) -> bool:  # fmt: skip
    """Whether the bytes [lo, hi) of ``a`` and of ``b`` (each with its access's guard) are
    apart for every value of their variables: one party's end at most the other's start.
    The pair's question asks ``lo_a < hi_b and lo_b < hi_a`` (unsigned); bounds that make
    either false everywhere prove it unsatisfiable."""
    lo_a, hi_a, cond_a = a
    lo_b, hi_b, cond_b = b
    for lo, cl, hi, ch in ((lo_a, cond_a, hi_b, cond_b), (lo_b, cond_b, hi_a, cond_a)):
        start, end = bounds.of(lo, cl), bounds.of(hi, ch)
        if start is not None and end is not None and end[1] <= start[0]:
            return True
    return False


_BOUNDS: weakref.WeakKeyDictionary[Evaluator, Bounds] = weakref.WeakKeyDictionary()


def bounds(ev: Evaluator) -> Bounds:
    """The bounds of the terms of ``ev``'s function (one memo per evaluator)."""
    got = _BOUNDS.get(ev)
    if got is None:
        got = _BOUNDS[ev] = Bounds(ev)
    return got


MAX_SPAN = 64  # bytes an access may touch per thread for the thread-by-thread check


class Threads:
    """Each thread's bytes of an access whose address and guard are functions of the thread id
    alone (most accesses of a kernel with no loop-carried slot), evaluated at every thread id
    of the block (``exhaust.py``'s evaluator): two such accesses meet for two threads of
    different warps exactly where some byte is touched by both from different warps, which a
    table of warps per byte shows without the solver. Only a meeting nowhere decides (the
    solver is asked otherwise, for its witness)."""

    def __init__(self, ev: Evaluator) -> None:
        self.ev = ev
        self._shapes = Shapes()  # keeps the terms read alive: node ids are not reused
        self._cache: dict[int, Any] = {}
        # (lo id, hi id, guard id or -1) -> per byte touched, the warps touching it (a mask)
        self._memo: dict[tuple[int, int, int], dict[int, int] | None] = {}

    def _warps(self, lo: z3.BitVecRef, hi: z3.BitVecRef,
               cond: z3.BoolRef | None) -> dict[int, int] | None:  # fmt: skip
        """Byte -> the mask of warps with a thread that touches it; None where not known here
        (a term over other values, not modelled, a span empty or wider than ``MAX_SPAN``)."""
        key = (lo.get_id(), hi.get_id(), -1 if cond is None else cond.get_id())
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = out = self._table(lo, hi, cond)
        return out

    def _table(self, lo: z3.BitVecRef, hi: z3.BitVecRef,
               cond: z3.BoolRef | None) -> dict[int, int] | None:  # fmt: skip
        try:
            import numpy as np
        except ImportError:
            return None
        tid = self.ev.thread_id()
        name = tid.decl().name()
        terms: list[z3.ExprRef] = [lo, hi] + ([cond] if cond is not None else [])
        if any(v.decl().name() != name for t in terms for v in free_vars(t)):
            return None
        if lo.size() > 64 or hi.size() > 64 or name not in self.ev.var_range:
            return None
        first, last = self.ev.var_range[name]
        ids = np.arange(first, last + 1, dtype=np.uint64)
        run = exhaust._Eval(np, {name: ids}, self._cache, self._shapes)
        try:
            with np.errstate(all="ignore"):
                starts = np.broadcast_to(run.run(self._shapes.read(lo)), ids.shape)
                ends = np.broadcast_to(run.run(self._shapes.read(hi)), ids.shape)
                made = (np.broadcast_to(np.asarray(run.run(self._shapes.read(cond)), dtype=bool),
                                        ids.shape) if cond is not None
                        else np.ones(ids.shape, dtype=bool))  # fmt: skip
        except (exhaust._Unmodelled, OverflowError, ValueError, TypeError):
            return None
        starts, ends, warps = starts[made], ends[made], (ids >> np.uint64(5))[made]
        # An empty or wrapped span: the question's two comparisons do not mean a common
        # byte there; a wide one: too many bytes to list.
        if np.any(ends <= starts) or np.any(ends - starts > np.uint64(MAX_SPAN)):
            return None
        table: dict[int, int] = {}
        for s, e, w in zip(starts.tolist(), ends.tolist(), warps.tolist(), strict=True):
            bit = 1 << w
            for byte in range(s, e):
                table[byte] = table.get(byte, 0) | bit
        return table

    def apart(
        self,
        a: tuple[z3.BitVecRef, z3.BitVecRef, z3.BoolRef | None],
        b: tuple[z3.BitVecRef, z3.BitVecRef, z3.BoolRef | None],
        any_thread: bool,
    ) -> bool:
        """Whether no byte of ``a`` by one thread is a byte of ``b`` by another of a different
        warp (``any_thread``: by any thread, the same one included)."""
        ta, tb = self._warps(*a), self._warps(*b)
        if ta is None or tb is None:
            return False
        for byte in ta.keys() & tb.keys():
            wa, wb = ta[byte], tb[byte]
            if any_thread or wa != wb or wa & (wa - 1):
                return False  # two threads of different warps (or any two) meet here
        return True


_THREADS: weakref.WeakKeyDictionary[Evaluator, Threads] = weakref.WeakKeyDictionary()


def threads(ev: Evaluator) -> Threads:
    """The thread-by-thread bytes of ``ev``'s function's accesses (one memo per evaluator)."""
    got = _THREADS.get(ev)
    if got is None:
        got = _THREADS[ev] = Threads(ev)
    return got


_NAMES: dict[int, tuple[z3.ExprRef, frozenset[str]]] = {}
_NAMES_MAX = 1 << 16


def names_of(e: z3.ExprRef) -> frozenset[str]:
    """The names of the free variables of ``e``, remembered per term (a party's bytes are in
    many pairs); the term is kept with them so that its id is not reused meanwhile."""
    got = _NAMES.get(e.get_id())
    if got is not None and got[0].eq(e):
        return got[1]
    if len(_NAMES) >= _NAMES_MAX:
        _NAMES.clear()
    out = frozenset(v.decl().name() for v in free_vars(e))
    _NAMES[e.get_id()] = (e, out)
    return out
