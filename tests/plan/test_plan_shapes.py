"""``alias_spec/plan/shapes.py``: a term's nodes, read through z3's C API, say what z3's own
Python objects say of the same term (kind, width, arguments, value, name, parameters)."""

from __future__ import annotations

import random

import pytest
import z3

from alias_spec.plan.shapes import NUMERAL, Shapes


def _term(rnd: random.Random, xs: list[z3.BitVecRef], depth: int) -> z3.BitVecRef:
    w = xs[0].size()
    if depth == 0 or rnd.random() < 0.2:
        return rnd.choice([*xs, z3.BitVecVal(rnd.randrange(1 << w), w)])
    a, b = _term(rnd, xs, depth - 1), _term(rnd, xs, depth - 1)
    return rnd.choice([
        lambda: a + b, lambda: a * b, lambda: a ^ b, lambda: z3.LShR(a, 2),
        lambda: z3.If(z3.And(z3.ULT(a, b), z3.Not(a == 3)), a, b),
        lambda: z3.Extract(w - 1, 0, z3.ZeroExt(4, a) + z3.SignExt(4, b)),
        lambda: z3.Concat(z3.Extract(3, 0, a), z3.Extract(w - 1, 4, b)),
    ])()  # fmt: skip


@pytest.mark.parametrize("seed", range(6))
def test_nodes_are_z3s_view_of_the_term(seed: int) -> None:
    rnd = random.Random(seed)
    xs = [z3.BitVec("x", 12), z3.BitVec("y", 12)]
    shapes = Shapes()
    for _ in range(5):
        e = _term(rnd, xs, 4)
        root = shapes.read(e)
        assert root == e.get_id()
        todo: list[z3.ExprRef] = [e]
        while todo:
            t = todo.pop()
            n = shapes.nodes[t.get_id()]
            assert n.width == (t.size() if z3.is_bv(t) else 0)  # type: ignore[attr-defined]
            if z3.is_bv_value(t):
                assert n.op == NUMERAL and n.value == t.as_long()  # type: ignore[attr-defined]
                continue
            assert n.op == t.decl().kind()
            assert n.kids == tuple(c.get_id() for c in t.children())
            if z3.is_const(t):
                assert n.name == str(t)
            if n.params:
                assert list(n.params) == t.params()
            todo.extend(t.children())
