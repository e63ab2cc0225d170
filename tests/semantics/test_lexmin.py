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


# --- optimum and nearest: the linear searches (boundary pairs, GPU corpus offsets, fixes) ---


def test_optimum_minimises_then_maximises_in_order() -> None:
    from alias_spec.semantics.lexmin import optimum

    x, y = z3.Ints("x y")
    found = optimum([x >= 2, y >= 0, x + y <= 10], minimize=[x], maximize=[y])
    assert found.result == z3.sat and found.exact
    assert found.model is not None and _values(found.model, x, y) == (2, 8)
    # Groups built late, by functions, are asserted in their turn.
    found = optimum([x >= 0], lambda: [x <= 5], maximize=lambda: [x])
    assert found.model is not None and _values(found.model, x) == (5,)


def test_optimum_without_a_model() -> None:
    from alias_spec.semantics.lexmin import optimum

    x = z3.Int("x")
    found = optimum([x >= 1, x <= 0], minimize=[x])
    assert found.result == z3.unsat and found.model is None and not found.exact


def test_nearest_takes_the_smaller_of_two_equally_near() -> None:
    from alias_spec.semantics.lexmin import nearest

    x = z3.Int("x")
    multiple_of_8 = [x % 8 == 0, x >= 0]
    assert nearest(x, 12, multiple_of_8) == 8  # 8 and 16 are both 4 away
    assert nearest(x, 13, multiple_of_8) == 16
    assert nearest(x, -5, multiple_of_8) == 0
    assert nearest(x, 3, [x >= 10, x <= 5]) is None


def test_the_frontend_offset_fix_agrees_with_the_solver_fix() -> None:
    """The frontend's z3-free offset search (``frontend/tle/fixes.py``) answers what the one
    solver search (``semantics/fix.py`` through ``lexmin.nearest``) answers: the valid offset
    nearest the requested one, the smaller on ties, or none."""
    from alias_spec.frontend.tle import fixes
    from alias_spec.model.catalogue import rule
    from alias_spec.model.request import parse_request
    from alias_spec.semantics.fix import suggest

    nvmma = {"kind": "nvmma", "swizzle_bytes": 128, "element_bitwidth": 16}
    # (source, result, offset, the fix under flagtree, under safe)
    cases = [
        (([64, 64], "f16", None), ([32, 64], "f16", None), 6000, 4096, 4096),
        (([64, 64], "f16", None), ([32, 64], "f32", None), 4098, 0, 0),
        (([256], "i8", None), ([48], "i32", None), 250, 64, 64),
        # safe also wants the swizzled view on a multiple of its 1024 B repeat.
        (([64, 64], "f16", nvmma), ([16, 64], "f16", nvmma), 1000, 1000, 1024),
        (([64, 64], "f16", None), ([128, 64], "f16", None), 0, None, None),  # none fits
        (([8, 8], "f16", None), ([4, 8], "f16", None), -7, 0, 0),
    ]
    for (src_shape, src_dt, src_lay), (res_shape, res_dt, res_lay), off, *wants in cases:
        src = {"shape": src_shape, "dtype": src_dt}
        res = {"shape": res_shape, "dtype": res_dt}
        if src_lay:
            src["layout"], res["layout"] = src_lay, res_lay
        facts = parse_request({"source": src, "result": res, "alias_offset_bytes": off}).facts
        for profile, want in zip(("flagtree", "safe"), wants, strict=True):
            solver = suggest(facts, profile, rule("alias.range.fits"), res_shape)
            got = solver.get("alias_offset_bytes") if solver else None
            assert got == want, (off, profile, solver)
            assert fixes.nearest_offset(facts, profile).offset == want, (off, profile)
