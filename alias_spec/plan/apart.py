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

import z3

from alias_spec.plan import exhaust
from alias_spec.plan.evaluator import Evaluator


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
