"""Liveness of shared-memory buffers, computed here (not taken from Triton).

A *root* is what owns bytes: a ``ttg.local_alloc`` result, an op's scratch, a call's frame.
Every value that can hold a root's bytes is *derived* from it: memdesc views and
``tle.memdesc_alias`` results, pointers (``tle.local_pointers`` and arithmetic on them), async
tokens of copies into it, and whatever carries those through ``scf.for`` / ``scf.if`` /
``scf.while`` region arguments and results, ``cf`` block arguments and ``ttg.warp_specialize``
partition arguments: the value-flow graph of ``alias_spec.ir.flows``, exact where the op is
(``scf.for`` and ``scf.if`` position by position, ``warp_group_dot_wait`` operand i to result
i), conservative elsewhere.

Program points are positions in the function's textual order. A root is live from the first
to the last position where it or anything derived from it is defined or used. A region op's
results are not a point of their own: they come alive where the op ends, which is only ever
seen through their uses (so a buffer allocated in one branch of an ``scf.if`` is not live in
the other branch unless a result that holds it is used after the op). An asynchronous
operation uses its buffers until the wait that retires it on every path (``_retired``): a TMA
store's source, an async wgmma's operands, a cp.async's destination, a TMA load's destination
(until a wait on its mbarrier).

The range is then widened until stable: over a whole loop (``scf.for``, ``scf.while``, or a
``cf`` branch back to an earlier block) when the range crosses the loop's boundary, when a
derived value is carried around the loop, or when a derived value is used textually before
it is defined; over a whole ``ttg.warp_specialize`` whenever it touches it, except a range that
lies inside one of its regions (the default region or a partition): that region's warps run it
in order. Such a range stays as it is and says which region it lies in
(``concurrent_regions``): the proof holds it live together with everything of the op's other
regions, which run at the same time. The ranges are conservative: an over-long range can only
raise a false alarm, never hide an overlap.

The work is about linear in the function's size: the flows are a graph walked once per root
(each root's walk visits only what it reaches), and a widening step asks two precomputed
range tables which loops a range partly covers instead of scanning every loop.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field

from alias_spec.ir.flows import Flows, branch_target, flows_of, label_index
from alias_spec.ir.memdesc_type import first_memdesc
from alias_spec.ir.ttgir import BRANCHES, CONCURRENT_OPS, LOOP_OPS, TERMINATORS, Function, Op

# Asynchronous TMA ops that read a shared-memory source after they issue (one bulk async-group
# each, committed by every thread); ``ttng.async_tma_store_wait {pendings = N}`` waits until at
# most the N newest groups of the executing thread are still reading. Same names 3.6 to 3.9.
ASYNC_STORES = {
    "ttng.async_tma_copy_local_to_global",
    "ttng.async_tma_reduce",
    "ttng.async_tma_scatter",
}
STORE_WAIT = "ttng.async_tma_store_wait"
# cp.async (global to shared, asynchronous): each copy joins the group the next commit closes;
# ``ttg.async_wait {num = N}`` waits until at most the N newest groups are in flight.
ASYNC_COPIES = {"ttg.async_copy_global_to_local"}
ASYNC_COMMIT = "ttg.async_commit_group"
ASYNC_WAIT = "ttg.async_wait"
_NUM = re.compile(r"\bnum\s*=\s*(\d+)")
# TMA loads (global to shared): the destination is written until a ``ttng.wait_barrier`` on
# the mbarrier the load completes on (matched by the barrier's root in the value-flow graph).
TMA_LOADS = {"ttng.async_tma_copy_global_to_local", "ttng.async_tma_gather"}
BARRIER_WAIT = "ttng.wait_barrier"
# wgmma issued asynchronously (one wgmma group each); the wait keeps the N newest in flight.
ASYNC_DOT = "ttng.warp_group_dot"
DOT_WAIT = "ttng.warp_group_dot_wait"
_IS_ASYNC = re.compile(r"\bisAsync\s*=\s*true\b")
_PENDINGS = re.compile(r"\bpendings\s*=\s*(\d+)")
_MULTI = re.compile(r"^\s*(%[\w.$-]+):(\d+)\s*=")
_DEFAULT_END = "ttg.warp_yield"


@dataclass
class Span:
    start: int
    end: int
    carried: frozenset[str]  # values carried around the back edge
    always: bool  # concurrent regions: touching it means live over all of it
    default_end: int = -1  # concurrent: the last position of the default region
    # Concurrent: each region's (first, last) position, the default region first. Each region
    # runs in order on its own warps; the regions run at the same time.
    regions: tuple[tuple[int, int], ...] = ()

    def __post_init__(self) -> None:
        if self.always and not self.regions and self.default_end >= 0:
            self.regions = ((self.start, self.default_end),)

    def region_of(self, lo: int, hi: int) -> int | None:
        """The region that holds the range whole, if one does."""
        for i, (a, b) in enumerate(self.regions):
            if a <= lo and hi <= b:
                return i
        return None


def spans(fn: Function) -> list[Span]:
    """Loops and concurrent regions of a function, as position ranges."""
    out = []
    labels = label_index(fn)
    for op in fn.ops:
        if op.name in LOOP_OPS:
            out.append(Span(op.pos, op.end, frozenset(op.decls), False))
        elif op.name in CONCURRENT_OPS:
            # Its regions run at once; the op itself (the hand-over of its captures through
            # its own scratch, finished before the regions run on) is not part of that.
            ends = [o for o in fn.ops[op.pos + 1 : op.end + 1]
                    if o.parent == op.pos and o.name in TERMINATORS]  # fmt: skip
            default_end = next((o.pos for o in ends if o.name == _DEFAULT_END), -1)
            regions, first = [], op.pos + 1
            for o in ends:
                regions.append((first, o.pos))
                first = o.pos + 1
            out.append(Span(op.pos + 1, op.end, frozenset(op.decls), True, default_end,
                            tuple(regions)))  # fmt: skip
        elif op.name in BRANCHES:
            for target in op.targets:
                at = branch_target(fn, labels, op, target)
                if at is not None and at <= op.pos:
                    label = fn.ops[at]
                    out.append(Span(at, op.pos, frozenset(label.decls), False))
    return out


def _store_done(fn: Function, store: Op) -> int:
    """The first position where an async TMA store is certainly done reading its source (see
    ``_retired``): each store is a bulk group of its own."""
    return _retired(fn, store, grouped=False)


def is_async_dot(op: Op) -> bool:
    """An asynchronous wgmma: it reads its shared operands until a wait retires it."""
    return op.name == ASYNC_DOT and _IS_ASYNC.search(op.head + " " + op.tail) is not None


def _dot_done(fn: Function, dot: Op) -> int:
    """The first position where an asynchronous wgmma is certainly done reading its operands:
    each is a group of its own, ``ttng.warp_group_dot_wait {pendings = N}`` leaves the N
    newest in flight. The wait need not name the operands (Gluon's ``deps`` may leave them
    out)."""
    return _retired(fn, dot, grouped=False, counts=is_async_dot, wait=DOT_WAIT)


def _copy_done(fn: Function, copy: Op) -> int:
    """The first position where a cp.async copy into shared memory has certainly landed: it
    joins the group the next ``ttg.async_commit_group`` closes, and ``ttg.async_wait {num =
    N}`` waits for every group but the N newest. Gluon's wait takes no token, so this is the
    only way to know how long the destination is written."""
    return _retired(fn, copy, grouped=True)


def barrier_roots(fn: Function, flows: Flows) -> list[set[str]]:
    """Every value derived from each mbarrier allocation of the function."""
    return [flows.reach(op.results[0]) for op in fn.ops
            if op.name == "ttg.local_alloc" and op.results and _is_barrier(op)]  # fmt: skip


def _is_barrier(alloc: Op) -> bool:
    """An mbarrier is a 64-bit word in shared memory: its allocations are the i64 ones."""
    md = first_memdesc(alloc.result_types() or alloc.text)
    return md is not None and md["dtype"] == "i64"


def _load_done(fn: Function, load: Op, barriers: list[set[str]]) -> int:
    """The first position where a TMA load has certainly landed: a wait on an mbarrier the load
    completes on, reached by every path from the load; or the end of the first loop or
    warp-specialize op on every path that waits on it inside (the pipeliner's prologue loads
    are waited on in the loop, a loop's own loads in a later iteration, a worker's by another
    partition: their protocol is not followed here, the load is taken as landed by that op's
    end). A wait only in a branch does not count. Never waited on, it runs until the
    function's end."""
    ops = fn.ops
    last = len(ops) - 1
    mine = [b for b in barriers if any(u in b for u in load.uses)]
    if not mine:
        return last

    def waits(op: Op) -> bool:
        return op.name == BARRIER_WAIT and bool(op.uses) and any(op.uses[0] in b for b in mine)

    def waits_inside(op: Op) -> bool:
        return any(waits(o) for o in ops[op.pos : op.end + 1])

    parent, q = load.parent, load.end + 1
    while True:
        while q < len(ops) and ops[q].parent == parent:
            op = ops[q]
            if op.name in TERMINATORS or op.name in BRANCHES or op.name.startswith("^"):
                break
            if waits(op):
                return op.pos
            if (op.name in LOOP_OPS or op.name in CONCURRENT_OPS) and waits_inside(op):
                return op.end
            q = op.end + 1
        if parent is None:
            return last
        owner = ops[parent]
        if (owner.name in LOOP_OPS or owner.name in CONCURRENT_OPS) and waits_inside(owner):
            return owner.end
        parent, q = owner.parent, owner.end + 1


def _is_store(op: Op) -> bool:
    return op.name in ASYNC_STORES


def _retired(fn: Function, issued: Op, grouped: bool, counts=_is_store,
             wait: str | None = None) -> int:  # fmt: skip
    """The first position where an async operation is certainly done: a wait that every path
    from the op reaches, with fewer pending groups allowed than groups closed since (counting
    only what every path does). Ops in regions that may not run (branches, loop bodies) do
    not count; an op in a loop body is done at a wait after the loop at the latest. A wait by
    other warps (after a warp-specialize partition) does not count. Without such a wait the
    operation runs until the function's end. ``grouped``: the op joins the group the next
    commit closes (cp.async); else it is a group of its own and ``counts`` says which ops
    open another (TMA stores, async wgmmas), ``wait`` which op retires them."""
    ops = fn.ops
    last = len(ops) - 1
    count = -1 if grouped else 0  # groups closed after the op's own (-1: its own still open)
    wait, pending = (ASYNC_WAIT, _NUM) if grouped else (wait or STORE_WAIT, _PENDINGS)
    parent = issued.parent
    q = issued.end + 1
    inside = issued
    while True:
        while q < len(ops) and ops[q].parent == parent:
            op = ops[q]
            if op.name in TERMINATORS or op.name in BRANCHES or op.name.startswith("^"):
                break
            if (grouped and op.name == ASYNC_COMMIT) or (not grouped and counts(op)):
                count += 1
            elif op.name == wait:
                m = pending.search(op.head)
                if m and count >= 0 and int(m.group(1)) <= count:
                    return op.pos
            q = op.end + 1
        if parent is None:
            return last
        owner = ops[parent]
        if owner.name in CONCURRENT_OPS:
            yield_at = next((o.pos for o in ops[owner.pos + 1 : owner.end + 1]
                             if o.parent == owner.pos and o.name == _DEFAULT_END),
                            -1)  # fmt: skip
            if not inside.pos < yield_at:
                return last  # a partition: the warps after the op are others
        inside, parent, q = owner, owner.parent, owner.end + 1


@dataclass
class _Index:
    """Range tables over a function's spans."""

    spans: list[Span]
    by_end: list[int] = field(default_factory=list)  # span ends, sorted
    min_start: list[list[int]] = field(default_factory=list)  # sparse table over by_end order
    by_start: list[int] = field(default_factory=list)
    max_end: list[list[int]] = field(default_factory=list)
    always: list[Span] = field(default_factory=list)
    carried: dict[str, list[Span]] = field(default_factory=dict)
    starts_upto: list[int] = field(default_factory=list)  # prefix max end, by start order
    ends_from: list[int] = field(default_factory=list)  # suffix min start, by end order

    def __post_init__(self) -> None:
        plain = self.spans
        e_order = sorted(plain, key=lambda s: s.end)
        s_order = sorted(plain, key=lambda s: s.start)
        self.by_end = [s.end for s in e_order]
        self.by_start = [s.start for s in s_order]
        self.min_start = _sparse([s.start for s in e_order], min)
        self.max_end = _sparse([s.end for s in s_order], max)
        run = -1
        for s in s_order:
            run = max(run, s.end)
            self.starts_upto.append(run)
        run = 1 << 62
        back: list[int] = []
        for s in reversed(e_order):
            run = min(run, s.start)
            back.append(run)
        self.ends_from = back[::-1]
        self.always = [s for s in plain if s.always]
        for s in plain:
            for v in s.carried:
                self.carried.setdefault(v, []).append(s)

    def partial(self, lo: int, hi: int) -> tuple[int, int]:
        """The range grown over every span that it partly covers (one step)."""
        # Ends in [lo, hi) and starts in (lo, hi]: a span ending at hi or starting at lo
        # either lies inside the range or holds it.
        i, j = bisect_left(self.by_end, lo), bisect_left(self.by_end, hi)
        if i < j:
            lo = min(lo, _query(self.min_start, i, j, min))
        i, j = bisect_right(self.by_start, lo), bisect_right(self.by_start, hi)
        if i < j:
            hi = max(hi, _query(self.max_end, i, j, max))
        return lo, hi

    def around(self, lo: int, hi: int) -> tuple[int, int]:
        """The range grown over every span that holds it (one step)."""
        j = bisect_right(self.by_start, lo)
        if j:
            hi = max(hi, self.starts_upto[j - 1])
        i = bisect_left(self.by_end, hi)
        if i < len(self.by_end):
            lo = min(lo, self.ends_from[i])
        return lo, hi


def _sparse(values: list[int], pick) -> list[list[int]]:
    table = [values]
    k = 1
    while 2 * k <= len(values):
        prev = table[-1]
        table.append([pick(prev[i], prev[i + k]) for i in range(len(values) - 2 * k + 1)])
        k *= 2
    return table


def _query(table: list[list[int]], i: int, j: int, pick) -> int:
    """pick over values[i:j] (j > i)."""
    k = (j - i).bit_length() - 1
    return pick(table[k][i], table[k][j - (1 << k)])


def _widen(lo: int, hi: int, index: _Index, triggers: list[Span], every: bool):
    """The range widened until stable: over spans it partly covers, and over spans that hold
    it when they trigger (concurrent ones, those carrying a derived value; every one when a
    derived value is used before it is defined)."""
    while True:
        old = (lo, hi)
        lo, hi = index.partial(lo, hi)
        if every:
            lo, hi = index.around(lo, hi)
        for s in triggers:
            if s.start <= lo and hi <= s.end and (lo > s.start or hi < s.end):
                lo, hi = s.start, s.end
        for s in index.always:
            if s.start <= hi and lo <= s.end and (lo > s.start or hi < s.end):
                if s.region_of(lo, hi) is not None:
                    continue  # inside one region: its warps run it in order
                lo, hi = min(lo, s.start), max(hi, s.end)
        if (lo, hi) == old:
            return lo, hi


def widen(interval: tuple[int, int], values: set[str], defs, uses, loops: list[Span]):
    """The interval widened over loops and concurrent regions until stable."""
    index = _Index(loops)
    early = any(u < min(defs[v]) for v in values if defs.get(v) for u in uses.get(v, ()))
    triggers = [s for v in values for s in index.carried.get(v, ())]
    return _widen(interval[0], interval[1], index, triggers, early)


class Liveness:
    """Everything one function's ranges need, computed once."""

    def __init__(self, fn: Function) -> None:
        self.fn = fn
        self.size = len(fn.ops)
        self.flows = flows_of(fn)
        # An asynchronous TMA store or wgmma reads its operands, a cp.async or a TMA load
        # writes its destination, until the wait that retires it.
        barriers: list[set[str]] | None = None
        for op in fn.ops:
            if op.name in ASYNC_STORES:
                done = _store_done(fn, op)
            elif op.name in ASYNC_COPIES:
                done = _copy_done(fn, op)
            elif op.name in TMA_LOADS:
                if barriers is None:
                    barriers = barrier_roots(fn, self.flows)
                done = _load_done(fn, op, barriers)
            elif is_async_dot(op):
                done = _dot_done(fn, op)
            else:
                continue
            for u in op.uses:
                self.flows.uses.setdefault(self.flows.norm(u), []).append(done)
        self.index = _Index(spans(fn))
        self._always_cache: list[Span] | None = None
        self._always_starts: list[int] = []
        self._always_parent: list[int] = []

    def range_of(self, values: set[str]) -> tuple[int, int]:
        """The widened range of a root whose derived values are given."""
        flows, index = self.flows, self.index
        lo, hi = 1 << 62, -1
        early = False
        triggers: list[Span] = []
        for v in values:
            d = flows.defs.get(v, ())
            u = flows.uses.get(v, ())
            if d:
                first = min(d)
                lo, hi = min(lo, first), max(hi, max(d))
                if u and min(u) < first:
                    early = True  # used before defined: reaches the use around a back edge
            if u:
                lo, hi = min(lo, min(u)), max(hi, max(u))
            triggers.extend(index.carried.get(v, ()))
        if hi < 0:
            return (0, 0)
        return _widen(lo, hi, index, triggers, early)

    def point(self, pos: int) -> tuple[int, int]:
        return _widen(pos, pos, self.index, [], False)

    def regions(self, live: tuple[int, int]) -> tuple[tuple[int, int, int], ...]:
        """The concurrent regions a widened range lies in, outermost first, each as
        (first, last position of the concurrent op's regions, region index)."""
        lo, hi = live
        if not self._always:
            return ()
        at = bisect_right(self._always_starts, lo) - 1
        out = []
        while at >= 0:
            s = self._always[at]
            if s.start <= lo and hi <= s.end:
                r = s.region_of(lo, hi)
                if r is not None:
                    out.append((s.start, s.end, r))
            at = self._always_parent[at]
        return tuple(reversed(out))

    @property
    def _always(self) -> list[Span]:
        if self._always_cache is None:
            # Concurrent ops nest (a region holds whole ops): a tree, kept by start.
            order = sorted(self.index.always, key=lambda s: (s.start, -s.end))
            parents: list[int] = []
            stack: list[int] = []
            for i, s in enumerate(order):
                while stack and order[stack[-1]].end < s.start:
                    stack.pop()
                parents.append(stack[-1] if stack else -1)
                stack.append(i)
            self._always_cache = order
            self._always_starts = [s.start for s in order]
            self._always_parent = parents
        return self._always_cache


_cache: list[Liveness] = []


def _liveness(fn: Function) -> Liveness:
    """One function's tables, kept while the same function is asked about (the proof asks for
    every buffer of a function in turn)."""
    if _cache and _cache[0].fn is fn and _cache[0].size == len(fn.ops):
        return _cache[0]
    _cache[:] = [Liveness(fn)]
    return _cache[0]


def derive(fn: Function, roots: set[str]) -> dict[str, set[str]]:
    """For each value, the roots whose bytes it may hold."""
    flows = _liveness(fn).flows
    of: dict[str, set[str]] = {}
    for r in roots:
        for v in flows.reach(r):
            of.setdefault(v, set()).add(r)
    return of


def positions(fn: Function) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
    """Where each value is defined and where it is used."""
    flows = _liveness(fn).flows
    return flows.defs, flows.uses


def live_ranges(fn: Function, roots: set[str]) -> dict[str, tuple[int, int]]:
    """The live range (first, last position, inclusive) of each root value."""
    values: dict[str, set[str]] = {r: set() for r in roots}
    for v, rs in derive(fn, roots).items():
        for r in rs:
            values.setdefault(r, set()).add(v)
    live = _liveness(fn)
    return {r: live.range_of(values[r] | {r}) for r in roots}


def point_range(fn: Function, pos: int) -> tuple[int, int]:
    """The live range of something used only at one op (scratch, a call's frame), widened over
    the loops and concurrent regions around the op but not over the op's own regions: an op's
    scratch serves the op at its boundary (``ttg.warp_specialize`` hands its captures over
    before the default region runs on; a reduction's combiner region touches no scratch). The
    op's own loop holds the point without being triggered, and a concurrent op's regions start
    after it, so the plain widening already leaves them out."""
    return _liveness(fn).point(pos)


def concurrent_regions(fn: Function, live: tuple[int, int]) -> tuple[tuple[int, int, int], ...]:
    """The ``ttg.warp_specialize`` regions a live range lies in whole, outermost first, as
    (first, last position of the op's regions, region index). Two buffers in different regions
    of one op are live together whatever their ranges: the regions run at the same time. Two in
    the same region compare ranges: that region's warps run it in order."""
    return _liveness(fn).regions(live)


def function_range(fn: Function) -> tuple[int, int]:
    """Live over the whole function (a buffer Triton places for the function itself)."""
    return (0, max(len(fn.ops) - 1, 0))
