"""The bisection minimiser: order of objectives, ties, no model."""

from __future__ import annotations

import z3

from alias_spec.semantics.lexmin import lex_minimize


def _xy() -> tuple[z3.ArithRef, z3.ArithRef, z3.BoolRef]:
    x, y = z3.Ints("x y")
    return x, y, z3.And(x >= 1, y >= 1, x * y >= 12)


def _values(m: z3.ModelRef, *terms: z3.ArithRef) -> tuple[int, ...]:
    return tuple(m.eval(t, model_completion=True).as_long() for t in terms)


def test_sum_then_first() -> None:
    x, y, q = _xy()
    m = lex_minimize(q, [x + y, x])
    assert m is not None
    # 3 x 4 and 4 x 3 tie on the sum; the second objective settles it.
    assert _values(m, x, y) == (3, 4)


def test_objective_order_is_lexicographic() -> None:
    x, y, q = _xy()
    m = lex_minimize(q, [x, y])
    assert m is not None and _values(m, x, y) == (1, 12)
    m = lex_minimize(q, [y, x])
    assert m is not None and _values(m, x, y) == (12, 1)


def test_far_optimum_from_a_large_first_model() -> None:
    x, y, q = _xy()
    # The first model may be anywhere above the bound; bisection still reaches the optimum.
    m = lex_minimize(z3.And(q, x <= 10**9), [x - 1, y])
    assert m is not None and _values(m, x, y) == (1, 12)


def test_no_model() -> None:
    x, _, q = _xy()
    assert lex_minimize(z3.And(q, x < 0), [x]) is None
