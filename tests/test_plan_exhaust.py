"""The exhaustive pre-check (``alias_spec.plan.exhaust``): a term's exact range over every
point of its variables' ranges, held to z3's own evaluation of the term at each point."""

from __future__ import annotations

import random

import pytest
import z3

from alias_spec.plan import exhaust

pytest.importorskip("numpy")


def _z3_range(e: z3.BitVecRef, doms: dict[z3.BitVecRef, range]) -> tuple[int, int]:
    """min and max of ``e`` by z3's simplifier at every point (the independent truth)."""
    values = []
    points = [{}]
    for v, dom in doms.items():
        points = [{**p, v: x} for p in points for x in dom]
    for p in points:
        subs = [(v, z3.BitVecVal(x, v.size())) for v, x in p.items()]
        values.append(z3.simplify(z3.substitute(e, *subs)).as_long())  # type: ignore[attr-defined]
    return min(values), max(values)


def _term(rnd: random.Random, xs: list[z3.BitVecRef], depth: int) -> z3.BitVecRef:
    w = xs[0].size()
    if depth == 0 or rnd.random() < 0.2:
        return rnd.choice([*xs, z3.BitVecVal(rnd.randrange(1 << w), w)])
    a, b = _term(rnd, xs, depth - 1), _term(rnd, xs, depth - 1)
    k = z3.BitVecVal(rnd.randrange(1 << w), w)
    cmp = rnd.choice([z3.ULE, z3.ULT, z3.UGE, z3.UGT, lambda p, q: p <= q, lambda p, q: p > q,
                      lambda p, q: p == q])  # fmt: skip
    ops = [
        lambda: a + b, lambda: a - b, lambda: a * b, lambda: a & b, lambda: a | b, lambda: a ^ b,
        lambda: ~a, lambda: -a, lambda: a << (b & 7), lambda: z3.LShR(a, b & 7), lambda: a >> 3,
        lambda: a << b, lambda: z3.LShR(a, b), lambda: a >> b,
        lambda: z3.UDiv(a, b), lambda: z3.URem(a, b), lambda: z3.UDiv(a, 3), lambda: z3.URem(a, 5),
        lambda: z3.Extract(w - 1, 0, z3.ZeroExt(3, a) * 3),
        lambda: z3.Extract(w - 1, 0, z3.SignExt(5, a) >> 2),
        lambda: z3.Concat(z3.Extract(2, 0, a), z3.Extract(w - 1, 3, b)),
        lambda: z3.If(cmp(a, k), b, a), lambda: z3.If(z3.And(cmp(a, b), z3.Not(cmp(b, k))), a, k),
        lambda: z3.If(z3.Or(cmp(a, k), cmp(k, b)), a + 1, b),
    ]  # fmt: skip
    return rnd.choice(ops)()


@pytest.mark.parametrize("seed", range(16))
def test_exact_range_is_z3s(seed: int) -> None:
    rnd = random.Random(seed)
    w = rnd.choice([5, 8, 12])
    x, y = z3.BitVec("x", w), z3.BitVec("y", w)
    rx = sorted(rnd.randrange(1 << w) for _ in range(2))
    ry = sorted(rnd.randrange(1 << w) for _ in range(2))
    rx[1], ry[1] = min(rx[1], rx[0] + 40), min(ry[1], ry[0] + 40)
    ranges = {"x": (rx[0], rx[1]), "y": (ry[0], ry[1])}
    for _ in range(8):
        e = _term(rnd, [x, y], 4)
        got = exhaust.value_range(e, ranges, {})
        doms = {v: range(ranges[str(v)][0], ranges[str(v)][1] + 1)
                for v in (x, y) if any(v.eq(u) for u in exhaust._variables(e))}  # fmt: skip
        assert got == _z3_range(e, doms), e


def test_signed_ranges_take_negative_values() -> None:
    """A loop counter proved in [-1, 2] (signed): its 32-bit values 0xFFFFFFFF, 0, 1, 2."""
    i = z3.BitVec("i", 32)
    e = z3.If(i + 1 <= 2, i + 1, z3.BitVecVal(0, 32))  # the ring's wrap-around select
    assert exhaust.value_range(e, {}, {"i": (-1, 2)}) == (0, 2)
    assert exhaust.value_range(i, {}, {"i": (-1, 2)}) == (0, 0xFFFFFFFF)


def test_what_it_does_not_model_goes_to_the_solver() -> None:
    x, y = z3.BitVec("x", 8), z3.BitVec("y", 8)
    assert exhaust.value_range(x + y, {"x": (0, 3)}, {}) is None  # y has no range
    assert exhaust.value_range(x / 3, {"x": (0, 3)}, {}) is None  # signed division
    wide = z3.BitVec("w", 72)
    assert exhaust.value_range(z3.Extract(7, 0, wide), {"w": (0, 3)}, {}) is None
    big = {"x": (0, 255), "y": (0, 255)}
    assert exhaust.value_range(x + y, big, {}) == (0, 255)  # 65,536 points: still judged
    z = z3.BitVec("z", 8)
    assert exhaust.value_range(x + y + z, {**big, "z": (0, 1)}, {}) is None  # too many points


def test_memo_is_reused_for_the_same_ranges() -> None:
    x = z3.BitVec("x", 16)
    memo: dict = {}
    e = (x ^ (x >> 3)) & 0x3FF
    first = exhaust.value_range(e, {"x": (0, 255)}, {}, memo)
    assert memo and exhaust.value_range(e, {"x": (0, 255)}, {}, memo) == first
    assert exhaust.value_range(e, {"x": (0, 7)}, {}, memo) == _z3_range(e, {x: range(8)})
