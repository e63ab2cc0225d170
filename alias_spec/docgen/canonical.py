"""Deterministic examples from z3: the facts nearest a preferred request.

z3 only answers sat/unsat questions ("can fact x keep this value?", "is there a value within
distance d?"), and the answer is the unique fact dict those answers pin down, not whatever
model a solver version happens to return.
"""

from __future__ import annotations

from collections.abc import Callable

import z3

from alias_spec.model.facts import FACTS, Facts
from alias_spec.semantics.lexmin import nearest_by_bisection
from alias_spec.semantics.witness import family
from alias_spec.semantics.z3expr import fact_vars, invariants


def _val(v: int | bool) -> z3.ExprRef:
    return z3.BoolVal(v) if isinstance(v, bool) else z3.IntVal(v)


class _Query:
    """Constraints plus pins, each question asked of a fresh solver: z3's non-incremental
    strategy for nonlinear integers decides these where its incremental core can stall."""

    def __init__(self, *constraints: z3.BoolRef) -> None:
        self.constraints = list(constraints)

    def add(self, c: z3.BoolRef) -> None:
        self.constraints.append(c)

    def sat(self, *extra: z3.BoolRef) -> bool:
        s = z3.Solver()
        s.add(*self.constraints, *extra)
        r = s.check()
        if r == z3.unknown:
            raise RuntimeError(f"z3 could not decide a docs example query: {s.reason_unknown()}")
        if r == z3.sat:
            self.model = s.model()
        return r == z3.sat


def canonical(
    constraint: Callable[[dict[str, z3.ExprRef]], z3.BoolRef],
    prefer: Facts,
    last: tuple[str, ...] = (),
) -> Facts | None:
    """The facts satisfying ``constraint`` (and the invariants) nearest ``prefer``, or None.

    Facts are fixed one at a time, in FACTS order with ``last`` moved to the end: each keeps its
    preferred value when it still can, else takes the nearest value possible (the smaller on a
    tie). The answer depends only on which queries are satisfiable."""
    env = fact_vars()
    q = _Query(invariants(env), family(env), constraint(env))
    if not q.sat():
        return None
    names = [f.name for f in FACTS if f.name not in last] + [n for n in last if n in env]
    wants = {n: prefer.get(n, False if z3.is_bool(env[n]) else 0) for n in names}
    _pin(q, env, names, wants)
    assert q.sat()
    out: Facts = {}
    for name, v in env.items():
        val = q.model.eval(v, model_completion=True)
        out[name] = z3.is_true(val) if z3.is_bool(val) else val.as_long()
    return out


def _pin(q: _Query, env: dict[str, z3.ExprRef], names: list[str], wants: Facts) -> None:
    """Greedy pinning in order, asked in batches: a batch that can keep every preferred value
    answers all its one-at-a-time questions at once (each prefix of it is satisfiable too), so
    only batches holding a fact that must move are split."""
    if not names:
        return
    pins = [env[n] == _val(wants[n]) for n in names]
    if q.sat(*pins):
        for p in pins:
            q.add(p)
        return
    if len(names) > 1:
        half = len(names) // 2
        _pin(q, env, names[:half], wants)
        _pin(q, env, names[half:], wants)
        return
    v, want = env[names[0]], wants[names[0]]
    if z3.is_bool(v):
        q.add(v == z3.BoolVal(not want))
    else:
        q.add(v == nearest_by_bisection(q.sat, v, int(want)))
