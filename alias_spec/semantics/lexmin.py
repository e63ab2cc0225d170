"""Lexicographic minimisation by bisection over plain solver calls.

z3's Optimize gives up (or takes minutes) on the byte-size products of the view facts, and
where several models tie it picks one by its own heuristics. Bisecting each objective in
turn with bounded satisfiability checks is fast on these small values and settles the
objectives one after the other, so the witness is the same wherever the bisection finishes.
"""

from __future__ import annotations

import z3


def lex_minimize(
    query: z3.BoolRef,
    objectives: list[z3.ArithRef],
    timeout_ms: int = 20000,
) -> z3.ModelRef | None:
    """A model of ``query`` minimising ``objectives`` in order (each assumed >= 0), or None
    when ``query`` has no model the solver finds. A check that times out counts as no
    improvement, so the answer is then a model, if not the smallest."""
    s = z3.Solver()
    s.set("timeout", timeout_ms)
    s.add(query)
    if s.check() != z3.sat:
        return None
    model = s.model()
    for obj in objectives:
        hi = model.eval(obj, model_completion=True).as_long()
        lo = 0
        while lo < hi:
            mid = (lo + hi) // 2
            s.push()
            s.add(obj <= mid)
            if s.check() == z3.sat:
                model = s.model()
                hi = model.eval(obj, model_completion=True).as_long()
            else:
                lo = mid + 1
            s.pop()
        s.add(obj == hi)
    return model
