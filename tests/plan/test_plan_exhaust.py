"""The exhaustive pre-check (``alias_spec.plan.exhaust``): a term's exact range over every
point of its variables' ranges, held to z3's own evaluation of the term at each point."""

from __future__ import annotations

import random

import pytest
import z3

from alias_spec.plan import exhaust

pytest.importorskip("numpy")


def _z3_range(e: z3.BitVecRef, doms: dict[z3.BitVecRef, range],
              cond: z3.BoolRef | None = None) -> tuple[int, int] | None:  # fmt: skip
    """min and max of ``e`` by z3's simplifier at every point (the independent truth), only
    at the points where ``cond`` simplifies to true when given (None: at no point)."""
    values = []
    points = [{}]
    for v, dom in doms.items():
        points = [{**p, v: x} for p in points for x in dom]
    for p in points:
        subs = [(v, z3.BitVecVal(x, v.size())) for v, x in p.items()]
        if cond is None or z3.is_true(z3.simplify(z3.substitute(cond, *subs))):
            values.append(z3.simplify(z3.substitute(e, *subs)).as_long())  # type: ignore[attr-defined]
    return (min(values), max(values)) if values else None


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


@pytest.mark.parametrize("seed", range(8))
def test_range_under_a_guard_is_z3s(seed: int) -> None:
    """Only the points where an access's guard holds: a lane's store past its buffer that
    its guard forbids is not counted, and no point at all gives None (the solver decides)."""
    rnd = random.Random(100 + seed)
    w = 8
    x, y = z3.BitVec("x", w), z3.BitVec("y", w)
    ranges = {"x": (0, 40), "y": (3, 20)}
    doms = {x: range(0, 41), y: range(3, 21)}
    for _ in range(6):
        e = _term(rnd, [x, y], 3)
        k = z3.BitVecVal(rnd.randrange(1 << w), w)
        cond = rnd.choice([z3.ULT(x, k), z3.And(z3.ULT(x & 127, 16), (y & 3) == 0), x == y,
                           z3.ULT(x, 0)])  # fmt: skip
        assert exhaust.value_range(e, ranges, {}, None, cond) == _z3_range(e, doms, cond)


def test_a_guarded_lane_is_proved_without_the_solver() -> None:
    """``(tid & 127) * 4`` leaves a 64-byte buffer, but only lanes with ``tid & 127 < 16``
    store: every address they make is in [0, 64)."""
    tid = z3.BitVec("tid.x", 32)
    addr = (tid & 127) * 4
    assert exhaust.value_range(addr, {"tid.x": (0, 255)}, {}) == (0, 508)
    guard = z3.ULT(tid & 127, 16)
    assert exhaust.value_range(addr, {"tid.x": (0, 255)}, {}, None, guard) == (0, 60)


@pytest.mark.parametrize("seed", range(8))
def test_a_subterm_over_a_value_without_a_range_stands_for_its_bounds(seed: int) -> None:
    """A term over ``x`` (a range) and ``u`` (none): the subterms over ``u`` become axes of
    their bounds (given here exactly, by evaluating them everywhere), and the range found
    holds every value the term takes (z3 evaluates it at every point, the independent truth)."""
    rnd = random.Random(200 + seed)
    w = 5
    x, u = z3.BitVec("x", w), z3.BitVec("u", w)
    ranges = {"x": (3, 17)}
    doms = {x: range(3, 18), u: range(1 << w)}

    def bounds(t: z3.BitVecRef) -> tuple[int, int]:
        used = {str(v) for v in exhaust._variables(t)}
        return (
            _z3_range(t, {v: d for v, d in doms.items() if str(v) in used})
            if used
            else (z3.simplify(t).as_long(), z3.simplify(t).as_long())
        )  # type: ignore[attr-defined]

    judged = 0
    for _ in range(10):
        e = _term(rnd, [x, u], 3)
        got = exhaust.value_range(e, ranges, {}, None, None, bounds)
        if not any(str(v) == "u" for v in exhaust._variables(e)):
            continue
        assert exhaust.value_range(e, ranges, {}) is None  # without bounds: to the solver
        if got is None:
            continue
        judged += 1
        truth = _z3_range(e, doms)
        assert truth is not None
        assert got[0] <= truth[0] and truth[1] <= got[1], e
    assert judged > 0


def test_a_ring_slot_behind_its_wrap_around_is_judged_without_its_range() -> None:
    """``(slot << 12) + swizzle(tid)``, the slot a loop-carried select ``i + 1 > 4 ? 0 : i + 1``
    of an ``i`` with no proved range: the select is one axis of its bounds [0, 4]."""
    tid, i = z3.BitVec("tid.x", 32), z3.BitVec("i", 32)
    slot = z3.If(z3.ULT(4, i + 1), z3.BitVecVal(0, 32), i + 1)
    addr = ((tid & 255) << 4 ^ (tid & 24) << 1) + (slot << 12)

    def bounds(t: z3.BitVecRef) -> tuple[int, int]:
        return (0, 4) if t.eq(slot) else (0, (1 << t.size()) - 1)

    assert exhaust.value_range(addr, {"tid.x": (0, 255)}, {}, None, None, bounds) == (0, 20464)
