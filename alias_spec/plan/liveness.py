"""Liveness of shared-memory buffers, computed here (not taken from Triton).

A *root* is what owns bytes: a ``ttg.local_alloc`` result, an op's scratch, a call's frame.
Every value that can hold a root's bytes is *derived* from it: memdesc views and
``tle.memdesc_alias`` results, pointers (``tle.local_pointers`` and arithmetic on them), async
tokens of copies into it, and whatever carries those through ``scf.for`` / ``scf.if`` /
``scf.while`` region arguments and results, ``cf`` block arguments and ``ttg.warp_specialize``
partition arguments. An op's results are derived from the roots of its operands when their
type can hold shared memory (a memdesc, a pointer, a token); region and branch arguments are
derived from every value that can flow into them, whatever the type.

Program points are positions in the function's textual order. A root is live from the first
to the last position where it or anything derived from it is defined or used, then widened
until stable: over a whole loop (``scf.for``, ``scf.while``, or a ``cf`` branch back to an
earlier block) when the range crosses the loop's boundary, when a derived value is carried
around the loop, or when a derived value is used textually before it is defined; over a whole
``ttg.warp_specialize`` whenever it touches it (partitions run at the same time as the default
region). The ranges are conservative: an over-long range can only raise a false alarm, never
hide an overlap. Flows through a region op are merged across its arguments (an argument is
derived from every operand and yield of that op), which is conservative in the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

from alias_spec.ir.ttgir import BRANCHES, CONCURRENT_OPS, LOOP_OPS, TERMINATORS, Function, Op

# Ops whose results never hold shared-memory bytes although an operand does (they read data).
_DATA_OPS = {"ttg.local_load", "tt.load", "ttng.tmem_load", "tt.reduce", "tt.scan"}
_MEMORY_TYPES = ("memdesc", "!tt.ptr", "token", "!llvm.ptr<3>")


def _base(name: str) -> str:
    """``%r#1`` names a result of ``%r``: results of one op share their roots."""
    return name.split("#", 1)[0]


def holds_memory(op: Op) -> bool:
    if op.name in _DATA_OPS:
        return False
    types = op.result_types()
    return any(t in types for t in _MEMORY_TYPES)


@dataclass
class Span:
    start: int
    end: int
    carried: frozenset[str]  # values carried around the back edge
    always: bool  # concurrent regions: touching it means live over all of it


def spans(fn: Function) -> list[Span]:
    """Loops and concurrent regions of a function, as position ranges."""
    out = []
    for op in fn.ops:
        if op.name in LOOP_OPS:
            out.append(Span(op.pos, op.end, frozenset(op.decls), False))
        elif op.name in CONCURRENT_OPS:
            # Its regions run at once; the op itself (the hand-over of its captures through
            # its own scratch, finished before the regions run on) is not part of that.
            out.append(Span(op.pos + 1, op.end, frozenset(op.decls), True))
        elif op.name in BRANCHES:
            for target in op.targets:
                at = fn.labels.get(target)
                if at is not None and at <= op.pos:
                    label = fn.ops[at]
                    out.append(Span(at, op.pos, frozenset(label.decls), False))
    return out


def derive(fn: Function, roots: set[str]) -> dict[str, set[str]]:
    """For each value, the roots whose bytes it may hold."""
    of: dict[str, set[str]] = {r: {r} for r in roots}
    flows: list[tuple[list[str], list[str]]] = []  # (sources, targets), whatever the type
    terminators: dict[int, list[str]] = {}
    for op in fn.ops:
        if op.name in TERMINATORS and op.parent is not None:
            terminators.setdefault(op.parent, []).extend(op.uses)
    for op in fn.ops:
        if op.end > op.pos and (op.decls or op.results):
            sources = op.uses + terminators.get(op.pos, [])
            flows.append((sources, op.decls + op.results))
        if op.name in BRANCHES:
            for target in op.targets:
                at = fn.labels.get(target)
                if at is not None:
                    flows.append((op.uses, fn.ops[at].decls))
    memory_ops = [op for op in fn.ops if op.results and holds_memory(op)]
    changed = True
    while changed:
        changed = False
        for op in memory_ops:
            got = set().union(*(of.get(_base(u), set()) for u in op.uses))
            for r in op.results:
                if got - of.get(r, set()):
                    of.setdefault(r, set()).update(got)
                    changed = True
        for sources, targets in flows:
            got = set().union(*(of.get(_base(u), set()) for u in sources))
            for t in targets:
                if got - of.get(t, set()):
                    of.setdefault(t, set()).update(got)
                    changed = True
    return of


def positions(fn: Function) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
    """Where each value is defined and where it is used."""
    defs: dict[str, list[int]] = {}
    uses: dict[str, list[int]] = {}
    for op in fn.ops:
        for r in op.results + op.decls:
            defs.setdefault(r, []).append(op.pos)
        for u in op.uses:
            uses.setdefault(_base(u), []).append(op.pos)
    # A region op's terminators use their values at the op too (they flow out of it there).
    return defs, uses


def widen(interval: tuple[int, int], values: set[str], defs, uses, loops: list[Span]):
    """The interval widened over loops and concurrent regions until stable."""
    lo, hi = interval
    early = [
        u for v in values for u in uses.get(v, []) if defs.get(v) and u < min(defs[v])
    ]  # used before defined: reaches the use around a back edge
    changed = True
    while changed:
        changed = False
        for s in loops:
            if hi < s.start or lo > s.end:
                continue
            inside = s.start <= lo and hi <= s.end
            if (
                not inside
                or s.always
                or values & s.carried
                or any(s.start <= u <= s.end for u in early)
            ) and (lo > s.start or hi < s.end):
                lo, hi = min(lo, s.start), max(hi, s.end)
                changed = True
    return lo, hi


def live_ranges(fn: Function, roots: set[str]) -> dict[str, tuple[int, int]]:
    """The live range (first, last position, inclusive) of each root value."""
    of = derive(fn, roots)
    defs, uses = positions(fn)
    loops = spans(fn)
    out = {}
    for r in roots:
        values = {v for v, rs in of.items() if r in rs}
        points = [p for v in values for p in defs.get(v, []) + uses.get(v, [])]
        interval = (min(points), max(points))
        out[r] = widen(interval, values, defs, uses, loops)
    return out


def point_range(fn: Function, pos: int) -> tuple[int, int]:
    """The live range of something used only at one op (scratch, a call's frame), widened over
    the loops and concurrent regions around the op but not over the op's own regions: an op's
    scratch serves the op at its boundary (``ttg.warp_specialize`` hands its captures over
    before the default region runs on; a reduction's combiner region touches no scratch)."""
    defs, uses = positions(fn)
    return widen(
        (pos, pos), set(), defs, uses, [s for s in spans(fn) if s.start not in (pos, pos + 1)]
    )
