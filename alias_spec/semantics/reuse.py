"""The reuse planner: the smallest placement of declared buffers in one allocation, found by z3.

Each buffer's offset is its alignment times an integer unknown, so every start is aligned by
construction; every buffer ends inside the allocation; every pair in use at the same time is
disjoint. The allocation's size is minimised by the project's one witness search
(``semantics.lexmin``, bisection over plain solver calls), starting from a first-fit placement
and never below ``reuse.lower_bound``, so a plan is proved smallest when every bisection step
was decided or when it meets the lower bound. The result is checked again by the model's own
``reuse.verify`` before it is returned: a solver bug cannot hand back an overlapping plan.

z3 is imported only when a search is needed: a plan whose first fit meets the lower bound (two
buffers in one phase, say) is found without it, as on a GPU machine that has no z3.
"""

from __future__ import annotations

from collections.abc import Mapping

from alias_spec.model.reuse import (
    Declarations,
    Placement,
    ReuseError,
    conflicts,
    lower_bound,
    verify,
)

STEP_TIMEOUT_MS = 2000


def first_fit(d: Declarations) -> dict[str, int]:
    """Largest first, each at the lowest aligned offset clear of the conflicting buffers placed
    so far: a placement to start the search from (and to fall back on)."""
    pairs = conflicts(d)
    placed: dict[str, tuple[int, int]] = {}
    order = sorted(enumerate(d.buffers), key=lambda ib: (-ib[1].size, ib[0]))
    for _, b in order:
        busy = sorted(placed[n] for n in placed if frozenset((n, b.name)) in pairs)
        at = 0
        for lo, hi in busy:
            if at + b.size <= lo:
                break
            at = max(at, -(-hi // b.align) * b.align)
        placed[b.name] = (at, at + b.size)
    return {n: placed[n][0] for n in (b.name for b in d.buffers)}


def _end(d: Declarations, offsets: Mapping[str, int]) -> int:
    return max(offsets[b.name] + b.size for b in d.buffers)


def plan(d: Declarations, step_timeout_ms: int = STEP_TIMEOUT_MS) -> Placement:
    """The smallest placement z3 finds, or a ReuseError when none fits the capacity."""
    pairs = conflicts(d)
    bound = lower_bound(d)
    start = first_fit(d)
    if bound > d.capacity:
        raise ReuseError(
            "capacity",
            f"the buffers in use together need at least {bound} bytes, more than the "
            f"{d.capacity} available",
        )
    if _end(d, start) == bound:  # first fit meets the bound: smallest, no search needed
        return Placement(tuple(start.items()), bound, bound, True)
    import z3  # the search needs it; an ImportError says so to the caller

    from alias_spec.semantics.lexmin import solve

    total = z3.Int("total")
    k = {b.name: z3.Int(f"k_{b.name}") for b in d.buffers}
    off = {b.name: b.align * k[b.name] for b in d.buffers}
    cons = [total >= bound, total <= min(d.capacity, _end(d, start))]
    for b in d.buffers:
        cons += [k[b.name] >= 0, off[b.name] + b.size <= total]
    for pair in sorted(pairs, key=sorted):  # a fixed order: z3's search depends on it
        x, y = (d.buffer(n) for n in sorted(pair))
        cons.append(z3.Or(off[x.name] + x.size <= off[y.name], off[y.name] + y.size <= off[x.name]))
    # Buffers alike in size, alignment and conflicts are interchangeable: order them.
    nbr: dict[str, set[str]] = {b.name: set() for b in d.buffers}
    for pair in pairs:
        x, y = sorted(pair)
        nbr[x].add(y)
        nbr[y].add(x)
    for i, x in enumerate(d.buffers):
        for y in d.buffers[i + 1 :]:
            same_conflicts = nbr[x.name] - {y.name} == nbr[y.name] - {x.name}
            if (x.size, x.align) == (y.size, y.align) and same_conflicts:
                cons.append(off[x.name] <= off[y.name])
    found = solve(cons, objectives=[total], timeout_ms=step_timeout_ms)
    if found.model is None:
        offsets, size, exact = start, _end(d, start), False
    else:
        m = found.model
        offsets = {n: m.eval(o, model_completion=True).as_long() for n, o in off.items()}
        size, exact = m.eval(total).as_long(), found.exact
    if size > d.capacity:
        why = (
            "no placement fits"
            if found.result == z3.unsat
            else "the planner found no placement within its time bound that fits"
        )
        raise ReuseError("capacity", f"{why} in {d.capacity} bytes (first fit needs {size})")
    problems = verify(d, offsets, size)
    if problems:  # never hand back a wrong plan, whatever the solver said
        raise AssertionError("planner produced a wrong placement: " + "; ".join(problems))
    return Placement(tuple(offsets.items()), size, bound, exact or size == bound)
