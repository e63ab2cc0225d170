"""Exact bounds of a shared address by evaluating it at every point of its variables' ranges.

Most addresses of a compiled kernel are functions of the thread id alone (at most 1024 values)
and of a ring slot or a loop counter whose range the evaluator has proved. Interval arithmetic
over-approximates such a function (a swizzle's XOR, two terms of the same bits added), and the
solver then answers what evaluating the function at each of those few thousand points answers
exactly: this module does that evaluation, vectorised with numpy, before any query. Each
variable takes every value of its proved range, whatever the constraints between them, so the
range found holds every value the address can take (a superset when the constraints exclude
points): an address whose range lies in its buffer is proved in range; any other goes to the
solver, which knows the constraints.

Sound by construction, and returns None (the caller asks the solver) for what it does not
model: a term wider than 64 bits, a signed division, a variable without a proved range, more
than ``MAX_POINTS`` points, or numpy missing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import z3

from alias_spec.plan.evaluator import free_vars
from alias_spec.plan.shapes import MEMO_KEY, NUMERAL, OTHER, Node, Shapes
from alias_spec.plan.terms import bv_size, name_of

MAX_POINTS = 1 << 16
# Points up to which a subterm's values are kept for the next address of the same function
# (the thread id's arithmetic recurs in every access): beyond, memory would grow too fast.
MEMO_POINTS = 1 << 12


class Unmodelled(Exception):
    """A term this evaluator does not model."""


def value_range(
    e: z3.BitVecRef,
    var_range: dict[str, tuple[int, int]],
    var_signed: dict[str, tuple[int, int]],
    memo: dict[Any, Any] | None = None,
    cond: z3.BoolRef | None = None,
    interval: Callable[[z3.BitVecRef], tuple[int, int]] | None = None,
) -> tuple[int, int] | None:
    """The least and greatest unsigned value of ``e`` over every point of its variables'
    ranges (``var_range``: unsigned bounds; ``var_signed``: signed bounds, for a value that
    may be negative), or None when that cannot be computed here. ``memo``: kept across calls
    for one set of ranges (the caller's, per function). ``cond``: only the points where it
    holds (an access's guard: the lanes that make it); None too when no point does.
    ``interval``: sound bounds of a term; with it, a subterm over a variable without a range
    (a loop-carried slot behind its wrap-around select) becomes one more axis taking every
    value of its bounds, as if it were a variable of its own (``Planner``)."""
    try:
        import numpy as np
    except ImportError:
        return None
    if bv_size(e) > 64:
        return None
    names: list[tuple[str, int, int, int]] = []  # name, width, low, high (signed or not)
    seen: set[str] = set()
    unknown = False
    for v in _variables(e) + (_variables(cond) if cond is not None else []):
        name, w = name_of(v), v.size()
        if name in seen:
            continue
        seen.add(name)
        if name in var_range:
            lo, hi = var_range[name]
        elif name in var_signed:
            lo, hi = var_signed[name]
        else:
            unknown = True
            continue
        if w > 64 or hi < lo:
            return None
        names.append((name, w, lo, hi))
    # Nodes are facts of a term alone: read once per memo, whatever the axes.
    shapes = memo.setdefault(MEMO_KEY, Shapes()) if memo is not None else Shapes()
    abstract: dict[int, tuple[str, z3.ExprRef]] = {}
    if unknown:
        if interval is None:
            return None
        known = {n for n, _, _, _ in names}
        planned: dict[int, tuple[str, int, int, int, z3.ExprRef]] = {}
        planner = Planner(known, interval)
        for t in (e, cond) if cond is not None else (e,):
            got = planner.axes(t)
            if got is None:
                return None
            planned.update(got)
        for i, (name, w, lo, hi, t) in planned.items():
            abstract[i] = (name, t)
            names.append((name, w, lo, hi))
        memo = None  # values of terms that stand for an axis here are not theirs elsewhere
    points = 1
    for _, _, lo, hi in names:
        points *= hi - lo + 1
        if points > MAX_POINTS:
            return None
    key = tuple(sorted((n, lo, hi) for n, _, lo, hi in names))
    keep = memo is not None and points <= MEMO_POINTS
    cache = memo.setdefault(key, {}) if keep and memo is not None else {}
    try:
        # Wrapping is the semantics here (bit-vector arithmetic), not an error to report.
        with np.errstate(all="ignore"):
            env = grid(np, [(n, axis(np, lo, hi, w)) for n, w, lo, hi in names])
            ev = Eval(np, env, cache, shapes, {i: n for i, (n, _) in abstract.items()})
            out = np.broadcast_to(ev.run(shapes.read(e)), (points,))
            if cond is not None:
                where = np.asarray(ev.run(shapes.read(cond)), dtype=bool)
                out = out[np.broadcast_to(where, (points,))]
    except (Unmodelled, OverflowError, ValueError, TypeError):
        return None
    if out.size == 0:
        return None
    return int(out.min()), int(out.max())


def _mask(w: int) -> int:
    return (1 << w) - 1


def axis(np: Any, lo: int, hi: int, width: int) -> Any:
    """Every value of [lo, hi] (signed bounds as their bit patterns) as ``width``-bit values."""
    return np.arange(lo, hi + 1, dtype=np.int64).astype(np.uint64) & np.uint64(_mask(width))


def grid(np: Any, axes: list[tuple[str, Any]]) -> dict[str, Any]:
    """Every combination of the axes' values: per name, its value at each point, flat."""
    if not axes:
        return {}
    grids = np.meshgrid(*[values for _, values in axes], indexing="ij")
    return {name: g.reshape(-1) for (name, _), g in zip(axes, grids, strict=True)}


def _variables(e: z3.ExprRef) -> list[z3.ExprRef]:
    return free_vars(e)


class Eval:
    """Values of terms as numpy arrays (bit-vectors as uint64 below their width's mask,
    Booleans as bool), one entry per point, over their nodes (``shapes.Shapes``)."""

    def __init__(self, np: Any, env: dict[str, Any], cache: dict[int, Any], shapes: Shapes,
                 axes: dict[int, str] | None = None) -> None:  # fmt: skip
        self.np = np
        self.env = env
        self.cache = cache  # node id -> its values (the nodes' terms live as long as shapes)
        self.nodes = shapes.nodes
        self.axes = axes or {}  # node id -> the axis standing for it

    def run(self, i: int) -> Any:
        got = self.cache.get(i)
        if got is not None:
            return got
        axis = self.axes.get(i)
        if axis is not None:
            value = self.env[axis]
            if self.nodes[i].width == 0:
                value = value != self.np.uint64(0)
        else:
            value = self._value(self.nodes[i])
        self.cache[i] = value
        return value

    def _value(self, n: Node) -> Any:
        np = self.np
        k = n.op
        if k == NUMERAL:
            return np.uint64(n.value)
        if k == z3.Z3_OP_TRUE:
            return np.bool_(True)
        if k == z3.Z3_OP_FALSE:
            return np.bool_(False)
        if n.name:
            if n.name not in self.env:
                raise Unmodelled(n.name)
            return self.env[n.name]
        if k == OTHER:
            raise Unmodelled("not an application")
        kids = n.kids
        if n.width == 0:
            return self._bool(k, kids)
        w = n.width
        if w > 64:
            raise Unmodelled("wider than 64 bits")
        m = np.uint64(_mask(w))
        if k == z3.Z3_OP_ITE:
            return np.where(self.run(kids[0]), self.run(kids[1]), self.run(kids[2]))
        if k == z3.Z3_OP_EXTRACT:
            lo = n.params[1]
            return (self.run(kids[0]) >> np.uint64(lo)) & m
        if k == z3.Z3_OP_CONCAT:
            out = np.uint64(0)
            for x in kids:
                out = (out << np.uint64(self.nodes[x].width)) | self.run(x)
            return out & m
        if k == z3.Z3_OP_ZERO_EXT:
            return self.run(kids[0])
        if k == z3.Z3_OP_SIGN_EXT:
            inner = self.nodes[kids[0]].width
            x = self.run(kids[0])
            top = (x >> np.uint64(inner - 1)) & np.uint64(1)
            return (x | (top * np.uint64(_mask(w) ^ _mask(inner)))) & m
        vals = [self.run(x) for x in kids]
        if k == z3.Z3_OP_BADD:
            out = vals[0]
            for v in vals[1:]:
                out = out + v
            return out & m
        if k == z3.Z3_OP_BMUL:
            out = vals[0]
            for v in vals[1:]:
                out = out * v
            return out & m
        if k == z3.Z3_OP_BSUB:
            return (vals[0] - vals[1]) & m
        if k == z3.Z3_OP_BNEG:
            return (np.uint64(0) - vals[0]) & m
        if k == z3.Z3_OP_BNOT:
            return ~vals[0] & m
        if k in (z3.Z3_OP_BAND, z3.Z3_OP_BOR, z3.Z3_OP_BXOR):
            out = vals[0]
            for v in vals[1:]:
                out = out & v if k == z3.Z3_OP_BAND else out | v if k == z3.Z3_OP_BOR else out ^ v
            return out
        if k in (z3.Z3_OP_BSHL, z3.Z3_OP_BLSHR, z3.Z3_OP_BASHR):
            x, s = vals
            big = s >= np.uint64(w)
            s = np.minimum(s, np.uint64(w - 1))
            if k == z3.Z3_OP_BSHL:
                return np.where(big, np.uint64(0), (x << s) & m)
            if k == z3.Z3_OP_BLSHR:
                return np.where(big, np.uint64(0), x >> s)
            top = (x >> np.uint64(w - 1)) & np.uint64(1)
            fill = top * m  # all ones when negative
            shifted = (x >> s) | (fill & ~(m >> s))
            return np.where(big, fill, shifted) & m
        if k in (z3.Z3_OP_BUDIV, z3.Z3_OP_BUDIV_I, z3.Z3_OP_BUREM, z3.Z3_OP_BUREM_I):
            x, d = vals
            zero = d == np.uint64(0)
            if k in (z3.Z3_OP_BUDIV_I, z3.Z3_OP_BUREM_I) and np.any(zero):
                raise Unmodelled("division by zero left unspecified")
            safe = np.where(zero, np.uint64(1), d)
            if k in (z3.Z3_OP_BUDIV, z3.Z3_OP_BUDIV_I):
                return np.where(zero, m, x // safe)
            return np.where(zero, x, x % safe)
        raise Unmodelled(f"op {k}")

    def _bool(self, k: int, kids: tuple[int, ...]) -> Any:
        np = self.np
        if k == z3.Z3_OP_NOT:
            return ~np.asarray(self.run(kids[0]), dtype=bool)
        if k in (z3.Z3_OP_AND, z3.Z3_OP_OR):
            out = np.asarray(self.run(kids[0]), dtype=bool)
            for x in kids[1:]:
                v = np.asarray(self.run(x), dtype=bool)
                out = out & v if k == z3.Z3_OP_AND else out | v
            return out
        if k in (z3.Z3_OP_EQ, z3.Z3_OP_DISTINCT) and len(kids) == 2:
            a, b = self.run(kids[0]), self.run(kids[1])
            return (a == b) if k == z3.Z3_OP_EQ else (a != b)
        unsigned = {z3.Z3_OP_ULEQ: "le", z3.Z3_OP_ULT: "lt", z3.Z3_OP_UGEQ: "ge",
                    z3.Z3_OP_UGT: "gt"}  # fmt: skip
        signed = {z3.Z3_OP_SLEQ: "le", z3.Z3_OP_SLT: "lt", z3.Z3_OP_SGEQ: "ge",
                  z3.Z3_OP_SGT: "gt"}  # fmt: skip
        if k in unsigned or k in signed:
            a, b = self.run(kids[0]), self.run(kids[1])
            if k in signed:  # signed order is unsigned order with the sign bit flipped
                flip = np.uint64(1 << (self.nodes[kids[0]].width - 1))
                a, b = a ^ flip, b ^ flip
            op = unsigned.get(k) or signed[k]
            return {"le": a <= b, "lt": a < b, "ge": a >= b, "gt": a > b}[op]
        raise Unmodelled("a Boolean operation")


class Planner:
    """Which subterms stand for axes of their own: the smallest ones over a variable without
    a range that have bounds of at most ``MAX_POINTS`` values (a bit-vector, by ``interval``)
    or are a condition (both truth values). Sound: the term takes at most the values of its
    bounds at each point, and letting it take each of them independently of the other axes
    only adds points."""

    def __init__(self, known: set[str], interval: Callable[[z3.BitVecRef], tuple[int, int]]
                 ) -> None:  # fmt: skip
        self.known = known
        self.interval = interval
        self.seen: dict[int, dict[int, tuple[str, int, int, int, z3.ExprRef]] | None] = {}

    def axes(self, t: z3.ExprRef) -> dict[int, tuple[str, int, int, int, z3.ExprRef]] | None:
        """The axes evaluating ``t`` needs ({} when its variables all have ranges), or None
        when it cannot be evaluated here."""
        key = t.get_id()
        if key in self.seen:
            return self.seen[key]
        self.seen[key] = None  # a term is a DAG, not a cycle: this only guards depth
        out = self._axes(t)
        self.seen[key] = out
        return out

    def _axes(self, t: z3.ExprRef) -> dict[int, tuple[str, int, int, int, z3.ExprRef]] | None:
        if z3.is_const(t) and not z3.is_bv_value(t) and name_of(t) in self.known:
            return {}
        if z3.is_bv_value(t) or z3.is_true(t) or z3.is_false(t):
            return {}
        if z3.is_app(t) and not z3.is_const(t):
            parts: dict[int, tuple[str, int, int, int, z3.ExprRef]] = {}
            for c in t.children():
                got = self.axes(c)
                if got is None:
                    parts = {}
                    break
                parts.update(got)
            else:
                if _points(parts) <= MAX_POINTS:
                    return parts
        return self._own(t)

    def _own(self, t: z3.ExprRef) -> dict[int, tuple[str, int, int, int, z3.ExprRef]] | None:
        """``t`` as an axis of its own (None when its bounds are too wide)."""
        name = f"#{t.get_id()}"
        if z3.is_bool(t):
            return {t.get_id(): (name, 1, 0, 1, t)}
        if not z3.is_bv(t) or t.size() > 64:  # type: ignore[attr-defined]
            return None
        lo, hi = self.interval(t)  # type: ignore[arg-type]
        if hi < lo or hi - lo >= MAX_POINTS:
            return None
        return {t.get_id(): (name, t.size(), lo, hi, t)}  # type: ignore[attr-defined]


def _points(axes: dict[int, tuple[str, int, int, int, z3.ExprRef]]) -> int:
    n = 1
    for _, _, lo, hi, _ in axes.values():
        n *= hi - lo + 1
    return n
