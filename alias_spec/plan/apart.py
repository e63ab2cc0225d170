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

Where the bounds meet (one buffer, written and read by all threads), each access is evaluated
at every thread id and every point of its other values (``Threads``): the bytes it may touch
as sorted runs, and for narrow accesses a table of the warps that touch each byte. Runs of the
two apart (a ring's slots: each access touches a few slots of one wide range) or no byte
touched by two threads of different warps (any two, for an access still in flight) is a
proof too.

The ranges are those the evaluator has proved (``var_range``, ``var_signed``, a merge's
incoming values), each implied by a constraint the pair's question holds, so this never
decides a pair the solver would not decide alike.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any, NamedTuple

import z3

from alias_spec.plan import exhaust
from alias_spec.plan.evaluator import Evaluator, free_vars
from alias_spec.plan.terms import bv_size


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
        full = (1 << bv_size(e)) - 1
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


class Touched(NamedTuple):
    """What one access may touch over all its points: ``starts`` and ``ends``, the sorted
    disjoint runs [start, end) of bytes; ``warps``, the per-byte table of warps where every
    thread's span is at most ``MAX_SPAN`` bytes (else None)."""

    starts: Any
    ends: Any
    warps: Table | None


def _runs(starts: Any, ends: Any) -> tuple[Any, Any]:
    """The spans [starts[i], ends[i]) merged into sorted disjoint runs."""
    import numpy as np

    order = np.argsort(starts, kind="stable")
    s, e = starts[order], np.maximum.accumulate(ends[order])
    # A run starts where a span begins past every earlier span's end.
    new = np.concatenate(([True], s[1:] > e[:-1]))
    at = np.flatnonzero(new)
    last = np.concatenate((at[1:] - 1, [s.size - 1]))
    return s[at], e[last]


def _runs_meet(a: Touched, b: Touched) -> bool:
    """Whether some run of ``a`` and some run of ``b`` share a byte."""
    import numpy as np

    if a.starts.size == 0 or b.starts.size == 0:
        return False
    # For each run of a, the first run of b ending past its start: they meet where it also
    # starts before a's end.
    i = np.searchsorted(b.ends, a.starts, side="right")
    ok = i < b.starts.size
    return bool(np.any(b.starts[i[ok]] < a.ends[ok]))


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
        self._shapes = ev.shapes  # the evaluator's: terms read once, kept alive (ids not reused)
        # (lo id, hi id, guard id or -1) -> the terms (kept alive so that their ids are not
        # reused) and what the access touches, None when not known here
        self._memo: dict[tuple[int, int, int], tuple[Any, Touched | None]] = {}
        self._key = _ranges_key(ev)
        self._planner: exhaust.Planner | None = None  # shared: the accesses share subterms

    def _touched(self, lo: z3.BitVecRef, hi: z3.BitVecRef,
                 cond: z3.BoolRef | None) -> Touched | None:  # fmt: skip
        if _ranges_key(self.ev) != self._key:  # a range proved since: tighter tables
            self._memo.clear()
            self._planner = None
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

    def _table(self, lo: z3.BitVecRef, hi: z3.BitVecRef,
               cond: z3.BoolRef | None) -> Touched | None:  # fmt: skip
        """None where not known here: a term wider than 64 bits, too many points, a span
        empty or wrapped; no warp table where a span is wider than ``MAX_SPAN``."""
        import numpy as np

        ev = self.ev
        tid = ev.thread_id().decl().name()
        ranges = {**ev.var_signed, **ev.var_range}
        if lo.size() > 64 or hi.size() > 64 or tid not in ranges:
            return None
        if self._planner is None:
            self._planner = exhaust.Planner(set(ranges), ev.interval)
        planner = self._planner
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
            env = exhaust.grid(np, [(n, exhaust.axis(np, a, b, w)) for n, a, b, w in dims])
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
        if np.any(ends <= starts):
            return None
        runs = _runs(starts, ends)
        span = ends - starts
        if np.any(span > np.uint64(MAX_SPAN)):
            return Touched(*runs, None)
        width = int(span.max()) if span.size else 0
        touched = np.concatenate([(starts + np.uint64(k))[span > np.uint64(k)]
                                  for k in range(width)] or [np.zeros(0, np.uint64)])  # fmt: skip
        who = np.concatenate([warps[span > np.uint64(k)] for k in range(width)]
                             or [np.zeros(0, np.uint64)])  # fmt: skip
        order = np.argsort(touched, kind="stable")
        touched, bits = touched[order], np.left_shift(np.uint64(1), who[order])
        if touched.size == 0:
            return Touched(*runs, (touched, bits))
        first = np.concatenate(([True], touched[1:] != touched[:-1]))
        starts_at = np.flatnonzero(first)
        return Touched(*runs, (touched[starts_at], np.bitwise_or.reduceat(bits, starts_at)))

    def apart(
        self,
        a: tuple[z3.BitVecRef, z3.BitVecRef, z3.BoolRef | None],
        b: tuple[z3.BitVecRef, z3.BitVecRef, z3.BoolRef | None],
        any_thread: bool,
    ) -> bool:
        """Whether no byte of ``a`` by one thread is a byte of ``b`` by another of a different
        warp (``any_thread``: by any thread, the same one included)."""
        got_a, got_b = self._touched(*a), self._touched(*b)
        if got_a is None or got_b is None:
            return False
        if not _runs_meet(got_a, got_b):
            return True
        ta, tb = got_a.warps, got_b.warps
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


# Values tried for a variable with no proved range when a witness is sought (a kernel
# argument such as a length, which the pair's constraints may only require to be positive):
# any value is a real one, so a point that meets every constraint is a model. Few: each
# multiplies the points evaluated; zero, small, a tile's edges, the sign bit's edges, -1.
CANDIDATES = (0, 1, 2, 64, 65, 4096, (1 << 31) - 1, 1 << 31, (1 << 32) - 1)

MAX_ROWS = 1 << 16  # points of one party evaluated in the search for a witness
Side = tuple[z3.BitVecRef, z3.BitVecRef, list[z3.BoolRef]]  # first byte, end, constraints
Rows = tuple[Any, Any, Any]  # per point meeting every constraint: first byte, end, thread id


class Witnesses:
    """Models of a pair's question found without the solver: each party evaluated at every
    point of its variables (every value of a proved range, else ``CANDIDATES``) with all its
    constraints, and two points whose bytes meet joined. The question's parties share no
    variable (the caller checks it), so two such points are a model of it: "sat" is what the
    solver would answer, with a witness of the same form. None where no point is found here
    (the solver is asked)."""

    def __init__(self, ev: Evaluator) -> None:
        self.ev = ev
        self._shapes = ev.shapes  # the evaluator's: terms read once, kept alive (ids not reused)
        # (term ids, warps) -> the terms (kept alive so that their ids are not reused) and
        # the side's rows (a party is in many pairs)
        self._memo: dict[tuple[Any, ...], tuple[Side, Rows | None]] = {}
        self._key = _ranges_key(ev)

    def _rows(self, side: Side, warps: frozenset[int] | None) -> Rows | None:
        if _ranges_key(self.ev) != self._key:
            self._memo.clear()
            self._key = _ranges_key(self.ev)
        key = (side[0].get_id(), side[1].get_id(), *(c.get_id() for c in side[2]), warps)
        got = self._memo.get(key)
        if got is None:
            got = self._memo[key] = (side, self._evaluated(side, warps))
        return got[1]

    def _evaluated(self, side: Side, warps: frozenset[int] | None) -> Rows | None:
        import numpy as np

        ev = self.ev
        lo, hi, constraints = side
        tid = ev.thread_id()
        widths: dict[str, int] = {}
        for t in (lo, hi, *constraints, tid):
            for v in free_vars(t):
                widths[v.decl().name()] = v.size()
        if any(w > 64 for w in widths.values()):
            return None
        dims = []
        points = 1
        for n, w in sorted(widths.items()):
            got = ev.var_range.get(n) or ev.var_signed.get(n)
            if got is not None:
                if got[1] < got[0]:
                    return None
                vals = exhaust.axis(np, got[0], got[1], w)
            else:
                vals = np.array(sorted({c & ((1 << w) - 1) for c in CANDIDATES}), dtype=np.uint64)
            points *= vals.size
            if points > MAX_ROWS:
                return None
            dims.append((n, vals))
        with np.errstate(all="ignore"):
            env = exhaust.grid(np, dims)
            run = exhaust.Eval(np, env, {}, self._shapes)
            ok = np.ones(points, dtype=bool)
            for c in constraints:
                ok &= np.broadcast_to(np.asarray(run.run(self._shapes.read(c)), dtype=bool),
                                      (points,))  # fmt: skip
            starts = np.broadcast_to(run.run(self._shapes.read(lo)), (points,))
            ends = np.broadcast_to(run.run(self._shapes.read(hi)), (points,))
        tids = env[tid.decl().name()]
        if warps is not None:
            ok &= np.isin(tids >> np.uint64(5), np.array(sorted(warps), dtype=np.uint64))
        starts, ends, tids = starts[ok], ends[ok], tids[ok]
        order = np.argsort(starts, kind="stable")  # sorted once: joined in many pairs
        return starts[order], ends[order], tids[order]

    def find(self, a: Side, b: Side, any_thread: bool,
             warps: tuple[frozenset[int], frozenset[int]] | None = None,
             ) -> dict[str, int] | None:  # fmt: skip
        """A point of ``a`` and one of ``b`` (its own copies of the variables) whose bytes
        meet (``lo_a < hi_b`` and ``lo_b < hi_a``), of threads of different warps unless
        ``any_thread``: the byte, both thread ids; None where none is found."""
        try:
            ra = self._rows(a, warps[0] if warps else None)
            rb = self._rows(b, warps[1] if warps else None) if ra is not None else None
        except (exhaust.Unmodelled, OverflowError, ValueError, TypeError, ImportError):
            return None
        if ra is None or rb is None or ra[0].size == 0 or rb[0].size == 0:
            return None
        import numpy as np

        if any_thread:
            return _joined(ra, rb)
        # Two threads of different warps: a's points of one warp against b's of the others.
        warp = np.uint64(5)
        for w in np.unique(ra[2] >> warp):
            mine = (ra[2] >> warp) == w
            other = (rb[2] >> warp) != w
            got = _joined(tuple(x[mine] for x in ra), tuple(x[other] for x in rb))  # type: ignore[arg-type]
            if got is not None:
                return got
        return None


def _joined(ra: Rows, rb: Rows) -> dict[str, int] | None:
    """A point of ``ra`` and one of ``rb`` whose bytes meet, as a witness, or None."""
    import numpy as np

    if ra[0].size == 0 or rb[0].size == 0:
        return None
    # ``_rows`` gives its points sorted by their first byte.
    lo_a, hi_a, tid_a = ra
    # Among a's points starting before b's end, the one reaching furthest: it meets b's
    # bytes if any of them does.
    reach = np.maximum.accumulate(hi_a)
    where = np.maximum.accumulate(np.where(hi_a == reach, np.arange(hi_a.size), 0))
    k = np.searchsorted(lo_a, rb[1], side="left") - 1
    can = k >= 0
    idx = np.flatnonzero(can)
    hit = idx[reach[k[can]] > rb[0][can]]
    if hit.size == 0:
        return None
    j = int(hit[0])
    i = int(where[k[j]])
    return {"byte": int(max(lo_a[i], rb[0][j])), "tid.x": int(tid_a[i]),
            "tid.x'": int(rb[2][j])}  # fmt: skip


_WITNESSES: weakref.WeakKeyDictionary[Evaluator, Witnesses] = weakref.WeakKeyDictionary()


def witnesses(ev: Evaluator) -> Witnesses:
    """The witness search of ``ev``'s function's pairs (one per evaluator)."""
    return _per_evaluator(_WITNESSES, ev, Witnesses)  # type: ignore[no-any-return]
