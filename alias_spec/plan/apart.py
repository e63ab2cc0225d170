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

Where the bounds meet (one buffer, written and read by all threads), the two accesses are
compared thread by thread (``Threads``): each one's bytes at every thread id and every point of
its other values, as a table of the warps that touch each byte; no byte touched by two threads
of different warps (any two, for an access still in flight) is a proof too.

The ranges are those the evaluator has proved (``var_range``, ``var_signed``, a merge's
incoming values), each implied by a constraint the pair's question holds, so this never
decides a pair the solver would not decide alike.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import z3

from alias_spec.plan import exhaust
from alias_spec.plan.evaluator import Evaluator, free_vars
from alias_spec.plan.shapes import Shapes


def _ranges_key(ev: Evaluator) -> tuple[int, int, int]:
    """Changes when the evaluator publishes a range (ranges are only added)."""
    return len(ev.var_range), len(ev.var_signed), len(ev.var_merge)


class Bounds:
    """Unsigned bounds of terms of one function, remembered per term (the parties' terms recur
    in many pairs). Ranges only grow tighter as the evaluator proves bounds, so a cached bound
    stays sound; it is dropped when a range is added anyway (tighter ones may follow)."""

    def __init__(self, ev: Evaluator) -> None:
        self.ev = ev
        # (term id, guard id or -1) -> the term and guard (kept alive so that their ids are not
        # reused) and the bounds found, or None
        self._memo: dict[tuple[int, int], tuple[z3.ExprRef, z3.ExprRef | None,
                                                tuple[int, int] | None]] = {}  # fmt: skip
        self._key = _ranges_key(ev)

    def of(self, e: z3.BitVecRef, cond: z3.BoolRef | None = None) -> tuple[int, int] | None:
        """Sound unsigned bounds of ``e`` where ``cond`` holds (None: every point), or None
        when none are known tighter than the full range."""
        key = _ranges_key(self.ev)
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


def _per_evaluator(table: weakref.WeakKeyDictionary[Evaluator, Any], ev: Evaluator,
                   make: Callable[[Evaluator], Any]) -> Any:  # fmt: skip
    """``table``'s entry for ``ev``, made on first use (dropped with the evaluator)."""
    got = table.get(ev)
    if got is None:
        got = table[ev] = make(ev)
    return got


def bounds(ev: Evaluator) -> Bounds:
    """The bounds of the terms of ``ev``'s function (one memo per evaluator)."""
    return _per_evaluator(_BOUNDS, ev, Bounds)  # type: ignore[no-any-return]


MAX_SPAN = 64  # bytes an access may touch per thread for the thread-by-thread check
MAX_TABLE = 1 << 14  # points (thread ids times the other values' axes) of one access's table

Table = tuple[Any, Any]  # the bytes touched (sorted), and per byte the mask of warps touching it


class Threads:
    """Each thread's bytes of an access, evaluated at every thread id of the block and every
    point of its other values' ranges (``exhaust.py``'s evaluator; a subterm over a value with
    no range, or a guard not modelled, becomes an axis taking every value of its bounds). The
    table of warps per byte over-approximates what the access touches; two accesses meet for
    two threads of different warps only where some byte is in both tables from different
    warps, which the tables show without the solver. Each access's other values take their
    points independently of the other access's (a value both share included): more points,
    so a meeting nowhere is a proof; a meeting decides nothing (the solver is asked)."""

    def __init__(self, ev: Evaluator) -> None:
        self.ev = ev
        self._shapes = Shapes()  # keeps the terms read alive: node ids are not reused
        # (lo id, hi id, guard id or -1) -> the terms (kept alive so that their ids are not
        # reused) and the access's table, None when not known here
        self._memo: dict[tuple[int, int, int], tuple[Any, Table | None]] = {}
        self._key = _ranges_key(ev)

    def _warps(self, lo: z3.BitVecRef, hi: z3.BitVecRef, cond: z3.BoolRef | None) -> Table | None:
        if _ranges_key(self.ev) != self._key:  # a range proved since: tighter tables
            self._memo.clear()
            self._key = _ranges_key(self.ev)
        key = (lo.get_id(), hi.get_id(), -1 if cond is None else cond.get_id())
        if key in self._memo:
            return self._memo[key][1]
        try:
            out = self._table(lo, hi, cond)
        except (exhaust.Unmodelled, OverflowError, ValueError, TypeError, ImportError):
            out = None
        self._memo[key] = ((lo, hi, cond), out)
        return out

    def _table(self, lo: z3.BitVecRef, hi: z3.BitVecRef, cond: z3.BoolRef | None) -> Table | None:
        """None where not known here: a term wider than 64 bits, too many points, a span
        empty or wider than ``MAX_SPAN``."""
        import numpy as np

        ev = self.ev
        tid = ev.thread_id().decl().name()
        ranges = {**ev.var_signed, **ev.var_range}
        if lo.size() > 64 or hi.size() > 64 or tid not in ranges:
            return None
        planner = exhaust.Planner(set(ranges), ev.interval)
        axes: dict[int, tuple[str, int, int, int, z3.ExprRef]] = {}
        for t in (lo, hi):
            got = planner.axes(t)
            if got is None:
                return None
            axes.update(got)
        # A guard not modelled is left out: the access at more points.
        guard = planner.axes(cond) if cond is not None else None
        if guard is not None:
            axes.update(guard)
        # The variables with ranges (the thread id always: its warp is wanted), with widths.
        terms = [lo, hi] + ([cond] if guard is not None and cond is not None else [])
        widths = {v.decl().name(): v.size() for t in terms for v in free_vars(t)}
        widths[tid] = ev.thread_id().size()
        dims = [(n, *ranges[n], widths[n]) for n in sorted(widths) if n in ranges]
        dims += [(name, a, b, w) for name, w, a, b, _ in axes.values()]
        points = 1
        for _, a, b, _ in dims:
            points *= b - a + 1
        if points > MAX_TABLE or points < 1:
            return None
        with np.errstate(all="ignore"):
            grids = np.meshgrid(*[np.arange(a, b + 1, dtype=np.int64).astype(np.uint64)
                                  & np.uint64((1 << w) - 1) for _, a, b, w in dims],
                                indexing="ij")  # fmt: skip
            env = {d[0]: g.reshape(-1) for d, g in zip(dims, grids, strict=True)}
            run = exhaust.Eval(np, env, {}, self._shapes,
                                {i: a[0] for i, a in axes.items()})  # fmt: skip
            starts = np.broadcast_to(run.run(self._shapes.read(lo)), (points,))
            ends = np.broadcast_to(run.run(self._shapes.read(hi)), (points,))
            warps = env[tid] >> np.uint64(5)
            if guard is not None:
                assert cond is not None
                made = np.broadcast_to(np.asarray(run.run(self._shapes.read(cond)), dtype=bool),
                                       (points,))  # fmt: skip
                starts, ends, warps = starts[made], ends[made], warps[made]
        # An empty or wrapped span: the question's two comparisons do not mean a common byte
        # there; a wide one: too many bytes to list.
        span = ends - starts
        if np.any(ends <= starts) or np.any(span > np.uint64(MAX_SPAN)):
            return None
        width = int(span.max()) if span.size else 0
        touched = np.concatenate([(starts + np.uint64(k))[span > np.uint64(k)]
                                  for k in range(width)] or [np.zeros(0, np.uint64)])  # fmt: skip
        who = np.concatenate([warps[span > np.uint64(k)] for k in range(width)]
                             or [np.zeros(0, np.uint64)])  # fmt: skip
        order = np.argsort(touched, kind="stable")
        touched, bits = touched[order], np.left_shift(np.uint64(1), who[order])
        if touched.size == 0:
            return touched, bits
        first = np.concatenate(([True], touched[1:] != touched[:-1]))
        starts_at = np.flatnonzero(first)
        return touched[starts_at], np.bitwise_or.reduceat(bits, starts_at)

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
        import numpy as np

        _, ia, ib = np.intersect1d(ta[0], tb[0], assume_unique=True, return_indices=True)
        if any_thread:
            return ia.size == 0
        wa, wb = ta[1][ia], tb[1][ib]
        # Two threads of different warps: the masks differ, or one holds two warps.
        return not np.any((wa != wb) | ((wa & (wa - np.uint64(1))) != 0))


_THREADS: weakref.WeakKeyDictionary[Evaluator, Threads] = weakref.WeakKeyDictionary()


def threads(ev: Evaluator) -> Threads:
    """The thread-by-thread bytes of ``ev``'s function's accesses (one memo per evaluator)."""
    return _per_evaluator(_THREADS, ev, Threads)  # type: ignore[no-any-return]


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
