"""The one witness search: a model of some constraints, its objectives minimised in order.

Every witness, counterexample and nearest point the project records comes from here: the
theorems' models (bounded first, ``theorems.py``), the smallest Triton and recipe witnesses
(``triton_theorems.py``, ``recipe_theorems.py``), the boundary pairs and edges
(``boundary.py``, ``difftest/z3_boundary.py``), the fuzzer's small witnesses, the GPU
corpus's offsets (``difftest/gpu_corpus.py``) and the nearest fixes (``fix.py``). Constraints
are asserted group by group in the order given, so a search with no objectives is exactly one
solver call on them.

Two ways to minimise, one interface. :func:`solve` bisects each objective in turn with bounded
satisfiability checks: z3's Optimize gives up (or takes minutes) on the byte-size products of
the view facts, and where several models tie it picks one by its own heuristics, while the
bisection is fast on these small values and settles the objectives one after the other, so the
witness is the same wherever the bisection finishes. :func:`optimum` hands linear objectives
(a distance with the non-linear facts pinned, one offset) to z3's Optimize, which is exact and
fast there; :func:`nearest` is the nearest value of one term to a start.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

import z3

from alias_spec.model.facts import Facts

# Constraints asserted together, or a function building them when their turn comes. z3's
# models depend on the order terms are created in and asserted, so a search that builds some
# constraints only after asserting others keeps doing so, and keeps its witnesses.
Group = Sequence[z3.BoolRef] | Callable[[], Sequence[z3.BoolRef]]
# Objectives, or a function building them once every group is asserted (same reason).
Objectives = Sequence[z3.ArithRef] | Callable[[], Sequence[z3.ArithRef]]


class Found(NamedTuple):
    """A search's answer. ``solver`` keeps the search's terms alive for as long as the caller
    holds this: z3 reuses the ids of freed terms, and later models depend on those ids, so a
    caller that reads the model while the solver lives must keep doing so."""

    result: z3.CheckSatResult
    model: z3.ModelRef | None
    solver: z3.Solver | z3.Optimize
    # Every bisection step was decided (sat or unsat): the objectives are proved minimal. A
    # step that timed out counts as no improvement and leaves this False.
    exact: bool = True


def solve(
    *groups: Group,
    objectives: Sequence[z3.ArithRef] = (),
    timeout_ms: int = 20000,
) -> Found:
    """The solver's answer on the constraint ``groups`` (asserted one group at a time, in
    order) and, when sat, a model minimising ``objectives`` in order (each assumed >= 0). A
    check that times out counts as no improvement, so the model is then a model, if not the
    smallest."""
    s = z3.Solver()
    s.set("timeout", timeout_ms)
    for group in groups:
        s.add(*(group() if callable(group) else group))
    result = s.check()
    if result != z3.sat:
        return Found(result, None, s)
    model = s.model()
    exact = True
    for obj in objectives:
        hi = model.eval(obj, model_completion=True).as_long()
        lo = 0
        while lo < hi:
            mid = (lo + hi) // 2
            s.push()
            s.add(obj <= mid)
            step = s.check()
            if step == z3.sat:
                model = s.model()
                hi = model.eval(obj, model_completion=True).as_long()
            else:
                exact = exact and step == z3.unsat
                lo = mid + 1
            s.pop()
        s.add(obj == hi)
    return Found(result, model, s, exact)


def search(
    *groups: Group,
    env: Mapping[str, z3.ExprRef],
    objectives: Sequence[z3.ArithRef] = (),
    timeout_ms: int = 20000,
) -> Facts | None:
    """The values of ``env`` in :func:`solve`'s model (read while its solver lives), or None
    when it finds none."""
    found = solve(*groups, objectives=objectives, timeout_ms=timeout_ms)
    # Imported here: the reuse planner uses solve() on the GPU machine, which has no pydantic
    # (that the rule catalogue behind z3expr needs).
    from alias_spec.semantics.z3expr import model_facts

    return None if found.model is None else model_facts(found.model, env)


def lex_minimize(
    query: z3.BoolRef,
    objectives: list[z3.ArithRef],
    timeout_ms: int = 20000,
) -> z3.ModelRef | None:
    """A model of ``query`` minimising ``objectives`` in order, or None when ``query`` has no
    model the solver finds (:func:`solve` on one constraint)."""
    return solve([query], objectives=objectives, timeout_ms=timeout_ms).model


def optimum(
    *groups: Group,
    minimize: Objectives = (),
    maximize: Objectives = (),
    timeout_ms: int | None = None,
) -> Found:
    """z3's Optimize on the constraint ``groups`` (asserted one group at a time, in order):
    ``minimize`` then ``maximize``, each in order, lexicographically. For linear objectives
    only (see the module's note); ``exact`` is False when the answer is not ``sat``. Without a
    time limit it runs until z3 decides."""
    opt = z3.Optimize()
    if timeout_ms is not None:
        opt.set("timeout", timeout_ms)
    for group in groups:
        opt.add(*(group() if callable(group) else group))
    for obj in minimize() if callable(minimize) else minimize:
        opt.minimize(obj)
    for obj in maximize() if callable(maximize) else maximize:
        opt.maximize(obj)
    result = opt.check()
    if result != z3.sat:
        return Found(result, None, opt, False)
    return Found(result, opt.model(), opt)


def nearest(
    target: z3.ArithRef,
    start: int,
    constraints: Sequence[z3.BoolRef],
    timeout_ms: int | None = None,
) -> int | None:
    """The value of ``target`` nearest ``start`` under ``constraints`` (the smaller of two
    equally near ones, so the answer is stable), or None when none satisfies them."""
    dist = z3.Int("__dist")
    found = optimum(
        constraints,
        [dist >= target - start, dist >= start - target],
        minimize=[dist, target],
        timeout_ms=timeout_ms,
    )
    if found.model is None:
        return None
    return found.model.eval(target, model_completion=True).as_long()


def nearest_by_bisection(sat: Callable[..., bool], target: z3.ArithRef, start: int) -> int:
    """:func:`nearest` for non-linear constraints, asked as plain yes/no questions: ``sat(*extra)``
    says whether the caller's constraints hold with ``extra`` added (a fresh solver each time,
    where z3's incremental core can stall on non-linear integers). The distance is bisected, so
    the answer (the smaller of two equally near values) depends only on which questions are
    satisfiable. The caller has checked that some value satisfies them."""

    def within(d: int) -> bool:
        return sat(target >= start - d, target <= start + d)

    if sat(target == start):
        return start
    hi = 1
    while not within(hi):
        hi *= 2
    lo = hi // 2  # not within lo
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if within(mid):
            hi = mid
        else:
            lo = mid
    return start - hi if sat(target == start - hi) else start + hi
