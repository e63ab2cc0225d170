"""Translation validation of the generated C++ arithmetic (``alias_rules.h``), Alive2-style.

The C++ header evaluates each rule with int64 facts widened to ``__int128``, floor division
and modulo built from C's truncating ``/`` and ``%`` (0 for a zero divisor), and ``&&``/``||``
short-circuits. Here those semantics are written as z3 terms, walked from the same trees the
generator prints (``gen_cpp.cpp_trees``), and compared with the integer spec
(``z3expr.to_z3``) for every int64 assignment of the facts that satisfies
``facts.INVARIANTS``.

One monolithic query (bit-vectors tied to integers through ``BV2Int``) does not finish in
minutes even for ``(bits + 7) // 8``; nor do 128-bit multiply-overflow checks in pure
bit-vectors. So each rule is proved in four parts, each a z3 query of milliseconds to a
second, which together give the claim:

``helper`` (once)
    Bit-vectors: for a positive divisor the C++ floor helpers equal Euclidean division (z3's
    integer ``div``/``mod``) built from the same truncating quotient and remainder, whatever
    those are. Integers: the helpers return 0 for a zero divisor, |a // b| <= |a| and
    |a % b| < |b| otherwise.
``overflow`` (integers, ALL int64 inputs, no invariants, every node)
    The exact value of every ``__int128`` result fits in ``__int128``, and no truncating
    division is INT128_MIN / -1. A 128-bit two's-complement result whose exact value fits
    is that exact value, so every C++ node computes its integer value. (Divisions by a
    non-constant divisor are cut to fresh integers within the ``helper`` bounds.)
``divisors`` (integers, under the invariants)
    Every divisor the C++ reaches (its guard and the short-circuits before it hold) is
    positive: the zero-divisor branch is dead and floor division equals the spec's there.
``logic`` (bit-vectors, all inputs)
    The C++ "fires" term equals the spec's own formula evaluated with the C++ arithmetic.
    Both share every arithmetic subterm, so this checks what the printer produced:
    negation pushed to the leaves, operands, short-circuit shape, widths, constants.

By ``overflow`` and ``divisors`` each evaluated 128-bit node holds the spec's integer
value (``helper`` at divisions), so the C++ result is the spec's formula over integers,
which ``logic`` ties to the printed C++. The integer parts quantify over bounded integers,
exactly the values BV2Int takes on the 64-bit inputs (``int_facts``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import z3

from alias_spec.backends.gen_cpp import cpp_trees
from alias_spec.model import dsl
from alias_spec.model.catalogue import RULES, compiled
from alias_spec.model.facts import FACTS, INVARIANTS, Facts, expand
from alias_spec.semantics.z3expr import to_z3

WIDTH = 128  # __int128
FACT_BITS = 64
INT128_MIN = -(2 ** (WIDTH - 1))
INT128_MAX = 2 ** (WIDTH - 1) - 1
ARITH = ("+", "-", "*", "//", "%")
_CMP: dict[str, Callable[[Any, Any], Any]] = {
    "<": lambda a, b: a < b,  # signed on bit-vectors
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
}


# --- the C++ helpers, in bit-vector semantics ------------------------------------------------


def floor_div(a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BitVecRef:
    """``detail::floor_div``: truncating quotient, minus one when the remainder is non-zero
    and its sign differs from the divisor's; 0 for a zero divisor."""
    q, r = a / b, z3.SRem(a, b)  # z3's / on bit-vectors is bvsdiv (truncating)
    fix = z3.And(r != 0, (r < 0) != (b < 0))
    return z3.If(b == 0, z3.BitVecVal(0, a.size()), z3.If(fix, q - 1, q))


def floor_mod(a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BitVecRef:
    """``detail::floor_mod``: truncating remainder moved into the divisor's sign."""
    r = z3.SRem(a, b)
    fix = z3.And(r != 0, (r < 0) != (b < 0))
    return z3.If(b == 0, z3.BitVecVal(0, a.size()), z3.If(fix, r + b, r))


# --- inputs ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Inputs:
    """One assignment of the facts: int64 bit-vectors, their integer values, bools."""

    bv: dict[str, z3.ExprRef]  # int facts: BitVec 64; bool facts: Bool
    ints: dict[str, z3.ExprRef]  # int facts: BV2Int(signed) of the same bit-vector
    leaves: dict[int, z3.BitVecRef]  # id of a plain z3.Int marker -> its 128-bit widening
    markers: dict[str, z3.ExprRef]  # int facts: plain z3.Int markers (for to_z3 terms)


def inputs() -> Inputs:
    bv: dict[str, z3.ExprRef] = {}
    ints: dict[str, z3.ExprRef] = {}
    markers: dict[str, z3.ExprRef] = {}
    leaves: dict[int, z3.BitVecRef] = {}
    for f in FACTS:
        if f.sort == dsl.BOOL:
            bv[f.name] = ints[f.name] = markers[f.name] = z3.Bool(f.name)
            continue
        x = z3.BitVec(f.name, FACT_BITS)
        bv[f.name] = x
        ints[f.name] = z3.BV2Int(x, is_signed=True)
        m = z3.Int("int_" + f.name)
        markers[f.name] = m
        leaves[m.get_id()] = z3.SignExt(WIDTH - FACT_BITS, x)
    return Inputs(bv, ints, leaves, markers)


# --- the generated C++, as bit-vector terms -------------------------------------------------


@dataclass(frozen=True)
class Node:
    """An arithmetic subterm the C++ evaluates, and the conditions (dsl, each true) on the
    path that reaches it."""

    expr: dsl.Expr
    path: tuple[dsl.Expr, ...]


class CppTerm:
    """Walks a C++ tree into bit-vector terms, recording every arithmetic node with its path.

    ``mul_bits`` below 128 models a broken rendering that multiplies in a narrower type
    (used by the tests to show the proof can fail)."""

    def __init__(self, inp: Inputs, mul_bits: int = WIDTH) -> None:
        self.inp = inp
        self.mul_bits = mul_bits
        self.nodes: list[Node] = []

    def bool_(self, e: dsl.Expr, path: tuple[dsl.Expr, ...]) -> z3.BoolRef:
        op = e.op
        if op == "const":
            return z3.BoolVal(bool(e.value))
        if op == "var":
            return self.inp.bv[str(e.value)]  # type: ignore[return-value]
        if op in ("and", "or"):
            parts, cur = [], path
            for a in e.args:
                parts.append(self.bool_(a, cur))
                # The next operand runs only when this one did not decide the result.
                cur = cur + ((a,) if op == "and" else (dsl.Expr("not", (a,)),))
            return z3.And(*parts) if op == "and" else z3.Or(*parts)
        if op == "not":
            return z3.Not(self.bool_(e.args[0], path))
        if op == "ite":
            c, t, f = e.args
            return z3.If(
                self.bool_(c, path),
                self.bool_(t, path + (c,)),
                self.bool_(f, path + (dsl.Expr("not", (c,)),)),
            )
        if op in _CMP:
            if dsl.sort_of(e.args[0], _sorts()) == dsl.BOOL:
                a, b = (self.bool_(x, path) for x in e.args)
            else:
                a, b = (self.int_(x, path) for x in e.args)
            return _CMP[op](a, b)
        raise ValueError(f"not a condition: {dsl.to_text(e)}")

    def int_(self, e: dsl.Expr, path: tuple[dsl.Expr, ...]) -> z3.BitVecRef:
        op = e.op
        if op == "const":
            return z3.BitVecVal(int(e.value), WIDTH)  # type: ignore[arg-type]
        if op == "var":
            return z3.SignExt(WIDTH - FACT_BITS, self.inp.bv[str(e.value)])  # type: ignore[arg-type]
        if op == "ite":
            c, t, f = e.args
            return z3.If(
                self.bool_(c, path),
                self.int_(t, path + (c,)),
                self.int_(f, path + (dsl.Expr("not", (c,)),)),
            )
        a, b = (self.int_(x, path) for x in e.args)
        self.nodes.append(Node(e, path))
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            if self.mul_bits < WIDTH:
                lo = [z3.Extract(self.mul_bits - 1, 0, x) for x in (a, b)]
                return z3.SignExt(WIDTH - self.mul_bits, lo[0] * lo[1])
            return a * b
        if op == "//":
            return floor_div(a, b)
        if op == "%":
            return floor_mod(a, b)
        raise ValueError(f"not an integer term: {dsl.to_text(e)}")


# --- the spec's integer term, evaluated with the C++ arithmetic -----------------------------


def with_cpp_arith(t: z3.ExprRef, inp: Inputs) -> z3.ExprRef:
    """Re-evaluate a ``to_z3`` term (over ``inp.markers``) in 128-bit bit-vectors with the
    C++ floor helpers. Subterms come out identical to ``CppTerm``'s, so only the logical
    structure is left to compare."""
    cache: dict[int, z3.ExprRef] = {}

    def go(u: z3.ExprRef) -> z3.ExprRef:
        key = u.get_id()
        if key in cache:
            return cache[key]
        k = u.decl().kind()
        kids = [go(c) for c in u.children()]
        out: z3.ExprRef
        if z3.is_int_value(u):
            out = z3.BitVecVal(u.as_long(), WIDTH)  # type: ignore[attr-defined]
        elif key in inp.leaves:
            out = inp.leaves[key]
        elif z3.is_const(u) and z3.is_bool(u):
            out = u
        elif k == z3.Z3_OP_AND:
            out = z3.And(*kids)
        elif k == z3.Z3_OP_OR:
            out = z3.Or(*kids)
        elif k == z3.Z3_OP_NOT:
            out = z3.Not(kids[0])
        elif k == z3.Z3_OP_IMPLIES:
            out = z3.Implies(kids[0], kids[1])
        elif k == z3.Z3_OP_ITE:
            out = z3.If(kids[0], kids[1], kids[2])
        elif k == z3.Z3_OP_EQ:
            out = kids[0] == kids[1]
        elif k == z3.Z3_OP_DISTINCT:
            out = kids[0] != kids[1]
        elif k in _Z3_BIN:
            out = _Z3_BIN[k](kids[0], kids[1])
        else:
            raise ValueError(f"unexpected term {u}")
        cache[key] = out
        return out

    return go(t)


_Z3_BIN: dict[int, Callable[[Any, Any], Any]] = {
    z3.Z3_OP_ADD: lambda a, b: a + b,
    z3.Z3_OP_SUB: lambda a, b: a - b,
    z3.Z3_OP_MUL: lambda a, b: a * b,
    z3.Z3_OP_IDIV: floor_div,
    z3.Z3_OP_MOD: floor_mod,
    z3.Z3_OP_LT: lambda a, b: a < b,
    z3.Z3_OP_LE: lambda a, b: a <= b,
    z3.Z3_OP_GT: lambda a, b: a > b,
    z3.Z3_OP_GE: lambda a, b: a >= b,
}


def _sorts() -> dict[str, str]:
    return {f.name: f.sort for f in FACTS}


# --- the three parts ------------------------------------------------------------------------


@dataclass
class Part:
    name: str
    status: str  # "proved", "failed" or "unknown"
    seconds: float
    counterexample: Facts | None = None
    detail: str = ""


def _solve(
    claim_negation: z3.BoolRef, timeout_ms: int, hyps: Sequence[z3.BoolRef] = ()
) -> tuple[z3.CheckSatResult, z3.ModelRef | None, float]:
    s = z3.Solver()
    s.set("timeout", timeout_ms)
    s.add(*hyps)
    s.add(claim_negation)
    t0 = time.perf_counter()
    res = s.check()
    dt = time.perf_counter() - t0
    return res, (s.model() if res == z3.sat else None), dt


def _facts_of(model: z3.ModelRef, inp: Inputs) -> Facts:
    out: Facts = {}
    for name, v in inp.bv.items():
        val = model.eval(v, model_completion=True)
        out[name] = z3.is_true(val) if z3.is_bool(val) else val.as_signed_long()  # type: ignore[attr-defined]
    return out


def _status(res: z3.CheckSatResult) -> str:
    if res == z3.unsat:
        return "proved"
    return "failed" if res == z3.sat else "unknown"


def prove_logic(
    rule_id: str,
    timeout_ms: int = 60_000,
    mul_bits: int = WIDTH,
    trees: tuple[dsl.Expr, dsl.Expr] | None = None,
) -> Part:
    """The C++ "fires" term (``trees``: the header's, unless a test passes others) equals
    the spec's formula evaluated with the C++ arithmetic, for every input."""
    inp = inputs()
    guard, fire = trees or cpp_trees(rule_id)
    cpp = CppTerm(inp, mul_bits)
    c_guard = cpp.bool_(guard, ())
    c_fires = z3.And(c_guard, cpp.bool_(fire, (guard,)))
    g, f = compiled(rule_id)
    spec = z3.And(to_z3(g, inp.markers), z3.Not(to_z3(f, inp.markers)))
    s_fires = with_cpp_arith(spec, inp)
    res, model, dt = _solve(c_fires != s_fires, timeout_ms)
    cex = _facts_of(model, inp) if model is not None else None
    return Part("logic", _status(res), dt, cex)


def _int_range_ok(value: z3.ArithRef, bits: int = WIDTH) -> z3.BoolRef:
    return z3.And(value >= -(2 ** (bits - 1)), value <= 2 ** (bits - 1) - 1)


def int_facts() -> tuple[dict[str, z3.ExprRef], list[z3.BoolRef]]:
    """Integer facts over exactly the values BV2Int takes on the 64-bit inputs.

    Plain bounded integers rather than BV2Int terms: z3 gives up on the integer queries
    below within minutes when they mention BV2Int, and answers them in milliseconds this way.
    """
    env: dict[str, z3.ExprRef] = {}
    bounds: list[z3.BoolRef] = []
    for f in FACTS:
        if f.sort == dsl.BOOL:
            env[f.name] = z3.Bool(f.name)
        else:
            x = z3.Int(f.name)
            env[f.name] = x
            bounds.append(_int_range_ok(x, FACT_BITS))
    return env, bounds


def _int_model_facts(model: z3.ModelRef, env: Mapping[str, z3.ExprRef]) -> Facts:
    out: Facts = {}
    for name, v in env.items():
        val = model.eval(v, model_completion=True)
        out[name] = z3.is_true(val) if z3.is_bool(val) else val.as_long()  # type: ignore[attr-defined]
    return out


def _trunc_floor(a: z3.ArithRef, b: z3.ArithRef) -> tuple[z3.ArithRef, ...]:
    """The C++ helpers over exact integers: (truncating quotient, floor quotient, floor
    remainder). C++ / truncates toward zero and % takes the dividend's sign."""
    abs_a, abs_b = z3.If(a < 0, -a, a), z3.If(b < 0, -b, b)
    q0 = z3.If((a < 0) != (b < 0), -(abs_a / abs_b), abs_a / abs_b)
    r0 = z3.If(a < 0, -(abs_a % abs_b), abs_a % abs_b)
    fix = z3.And(r0 != 0, (r0 < 0) != (b < 0))
    zero = z3.IntVal(0)
    return (
        z3.If(b == 0, zero, q0),
        z3.If(b == 0, zero, z3.If(fix, q0 - 1, q0)),
        z3.If(b == 0, zero, z3.If(fix, r0 + b, r0)),
    )


def _abs(x: z3.ArithRef) -> z3.ArithRef:
    return z3.If(x < 0, -x, x)


class CppInt:
    """The C++ code over exact integers, recording every result with the bits it has.

    A division by a non-constant divisor is cut: its result becomes a fresh integer bounded
    as the helper lemmas (``prove_helper``) show, |a // b| <= |a| and |a % b| < |b| (both 0
    for b == 0). That over-approximates, so a range proved here holds for the real values,
    and it keeps z3 away from nested non-linear div/mod chains it cannot bound."""

    def __init__(self, env: Mapping[str, z3.ExprRef], mul_bits: int = WIDTH) -> None:
        self.env = env
        self.mul_bits = mul_bits
        self.bad: list[tuple[str, z3.BoolRef]] = []  # (what, how it would overflow)
        self.cuts: list[z3.BoolRef] = []

    def _fits(self, label: str, v: z3.ArithRef, bits: int = WIDTH) -> None:
        self.bad.append((label, z3.Not(_int_range_ok(v, bits))))

    def eval(self, e: dsl.Expr) -> z3.ExprRef:
        op = e.op
        if op == "const":
            return z3.BoolVal(e.value) if isinstance(e.value, bool) else z3.IntVal(int(e.value))  # type: ignore[arg-type]
        if op == "var":
            return self.env[str(e.value)]
        kids = [self.eval(a) for a in e.args]
        if op not in ARITH:
            return _LOGIC[op](kids)
        a, b = kids
        label = dsl.to_text(e)
        if op in ("+", "-", "*"):
            v = a + b if op == "+" else a - b if op == "-" else a * b
            self._fits(label, v, self.mul_bits if op == "*" else WIDTH)
            return v
        divisor = e.args[1]
        if divisor.op == "const" and int(divisor.value) > 0:  # type: ignore[arg-type]
            # Floor and z3's Euclidean division agree for a positive divisor.
            return a / b if op == "//" else a % b
        v = z3.FreshInt("cut")
        zero = z3.And(b == 0, v == 0)
        if op == "//":
            self.cuts.append(z3.Or(zero, z3.And(b != 0, _abs(v) <= _abs(a))))
        else:
            self.cuts.append(z3.Or(zero, z3.And(b != 0, _abs(v) < _abs(b))))
        # INT128_MIN / -1 is the one truncating division that overflows.
        self.bad.append((label + " (INT128_MIN / -1)", z3.And(a == INT128_MIN, b == -1)))
        self._fits(label, v)
        return v


_LOGIC: dict[str, Callable[[list[Any]], Any]] = {
    "and": lambda k: z3.And(*k),
    "or": lambda k: z3.Or(*k),
    "not": lambda k: z3.Not(k[0]),
    "ite": lambda k: z3.If(k[0], k[1], k[2]),
    "<": lambda k: k[0] < k[1],
    "<=": lambda k: k[0] <= k[1],
    ">": lambda k: k[0] > k[1],
    ">=": lambda k: k[0] >= k[1],
    "==": lambda k: k[0] == k[1],
    "!=": lambda k: k[0] != k[1],
}


def prove_overflow(rule_id: str, timeout_ms: int = 60_000, mul_bits: int = WIDTH) -> Part:
    """No __int128 operation overflows, for ALL int64 facts (no invariants, every node
    whether or not a short-circuit skips it): each exact result fits its C++ type."""
    env, bounds = int_facts()
    model_ = CppInt(env, mul_bits)
    for tree in cpp_trees(rule_id):
        model_.eval(tree)
    if not model_.bad:
        return Part("overflow", "proved", 0.0, detail="no arithmetic")
    res, model, dt = _solve(z3.Or(*[b for _, b in model_.bad]), timeout_ms, bounds + model_.cuts)
    cex, detail = None, f"{len(model_.bad)} checks"
    if model is not None:
        cex = _int_model_facts(model, env)
        hit = [lab for lab, b in model_.bad if z3.is_true(model.eval(b, True))]
        detail = "overflows: " + "; ".join(hit[:3])
    return Part("overflow", _status(res), dt, cex, detail)


def prove_divisors(rule_id: str, timeout_ms: int = 60_000) -> Part:
    """Under the invariants, every divisor the C++ reaches (its guard and the short-circuits
    before it hold) is positive: the zero-divisor branch is dead and floor division equals
    the spec's division there. Earlier divisions on a path are covered by the same query, so
    reading the path with the spec's division is exact."""
    env, bounds = int_facts()
    inp = inputs()
    guard, fire = cpp_trees(rule_id)
    cpp = CppTerm(inp)
    cpp.bool_(guard, ())
    cpp.bool_(fire, (guard,))
    inv = [to_z3(expand(t), env) for t in INVARIANTS]
    bad: list[z3.BoolRef] = []
    labels: list[str] = []
    for node in cpp.nodes:
        if node.expr.op not in ("//", "%"):
            continue
        path = [to_z3(c, env) for c in node.path]
        bad.append(z3.And(*path, to_z3(node.expr.args[1], env) <= 0))
        labels.append(dsl.to_text(node.expr))
    if not bad:
        return Part("divisors", "proved", 0.0, detail="no division")
    res, model, dt = _solve(z3.Or(*bad), timeout_ms, bounds + inv)
    cex, detail = None, f"{len(bad)} divisions"
    if model is not None:
        cex = _int_model_facts(model, env)
        hit = [lab for lab, b in zip(labels, bad, strict=True) if z3.is_true(model.eval(b, True))]
        detail = "divisor not positive: " + "; ".join(hit[:3])
    return Part("divisors", _status(res), dt, cex, detail)


_HELPER: Part | None = None


def prove_helper(timeout_ms: int = 60_000) -> Part:
    """For b > 0 the floor helpers equal Euclidean division built from the same truncating
    quotient q and remainder r; q and r are left free, so this holds whatever they are."""
    global _HELPER
    if _HELPER is not None:
        return _HELPER
    a, b, q, r = z3.BitVecs("a b q r", WIDTH)

    def floor_pair(q: z3.BitVecRef, r: z3.BitVecRef) -> tuple[z3.BitVecRef, z3.BitVecRef]:
        fix = z3.And(r != 0, (r < 0) != (b < 0))
        return z3.If(fix, q - 1, q), z3.If(fix, r + b, r)

    def euclid_pair(q: z3.BitVecRef, r: z3.BitVecRef) -> tuple[z3.BitVecRef, z3.BitVecRef]:
        # Euclidean: remainder in [0, |b|); the quotient moves one step away from r's side.
        neg = r < 0
        absb = z3.If(b < 0, -b, b)
        return z3.If(neg, z3.If(b > 0, q - 1, q + 1), q), z3.If(neg, r + absb, r)

    fq, fr = floor_pair(q, r)
    eq, er = euclid_pair(q, r)
    # The helper's zero test is dead for b > 0; checking the real terms keeps them honest.
    real = z3.And(
        floor_div(a, b) == z3.If(b == 0, 0, floor_pair(a / b, z3.SRem(a, b))[0]),
        floor_mod(a, b) == z3.If(b == 0, 0, floor_pair(a / b, z3.SRem(a, b))[1]),
    )
    res, _, dt = _solve(z3.Not(z3.Implies(b > 0, z3.And(fq == eq, fr == er, real))), timeout_ms)
    # Over exact integers: the bounds CppInt cuts non-constant divisions to, and the zero case.
    x, y = z3.Ints("x y")
    _, fl, fm = _trunc_floor(x, y)
    status, dt2 = _status(res), 0.0
    for claim in (
        z3.Implies(y == 0, z3.And(fl == 0, fm == 0)),
        z3.Implies(y != 0, _abs(fl) <= _abs(x)),
        z3.Implies(y != 0, _abs(fm) < _abs(y)),
        z3.Implies(y > 0, fl == x / y),  # floor is z3's division for a positive divisor
    ):
        r2, _, t2 = _solve(z3.Not(claim), timeout_ms)
        dt2 += t2
        if status == "proved":
            status = _status(r2)
    _HELPER = Part("helper", status, dt + dt2)
    return _HELPER


# --- entry points ---------------------------------------------------------------------------


def prove_rule(rule_id: str, timeout_ms: int = 60_000, mul_bits: int = WIDTH) -> dict[str, Any]:
    """Prove one rule; ``status`` is proved only when every part is. Parts run cheapest
    first and stop at the first one not proved."""
    steps: list[Callable[[], Part]] = [
        lambda: prove_helper(timeout_ms),
        lambda: prove_overflow(rule_id, timeout_ms, mul_bits),
        lambda: prove_divisors(rule_id, timeout_ms),
        lambda: prove_logic(rule_id, timeout_ms, mul_bits),
    ]
    parts: list[Part] = []
    for step in steps:
        parts.append(step())
        if parts[-1].status != "proved":
            break
    failed = parts[-1] if parts[-1].status != "proved" else None
    return {
        "rule": rule_id,
        "status": failed.status if failed else "proved",
        "seconds": round(sum(p.seconds for p in parts), 3),
        "counterexample": failed.counterexample if failed else None,
        "failed_part": failed.name if failed else None,
        "detail": failed.detail if failed else "",
        "parts": {p.name: {"status": p.status, "seconds": round(p.seconds, 3)} for p in parts},
    }


def prove_all(
    rule_ids: Sequence[str] | None = None, timeout_ms: int = 60_000
) -> list[dict[str, Any]]:
    ids = list(rule_ids) if rule_ids else [r.id for r in RULES]
    return [prove_rule(i, timeout_ms) for i in ids]


def format_results(results: Sequence[Mapping[str, Any]]) -> str:
    lines = []
    for r in results:
        line = f"{r['status']:7} {r['seconds']:7.2f}s  {r['rule']}"
        if r["status"] != "proved":
            line += f"  [{r['failed_part']}] {r['detail']}".rstrip()
            if r["counterexample"]:
                line += f"\n          counterexample: {r['counterexample']}"
        lines.append(line)
    return "\n".join(lines)


def summary(results: Sequence[Mapping[str, Any]], seconds: float) -> str:
    """The closing line: how many rules were proved, failed (a counterexample) or left
    unknown (a solver timeout)."""
    st = [r["status"] for r in results]
    return (
        f"{len(st)} rules in {seconds:.1f} s: {st.count('proved')} proved, "
        f"{st.count('failed')} failed, {st.count('unknown')} unknown"
    )


def main(rule_ids: Sequence[str] | None = None, timeout_ms: int = 60_000) -> int:
    """CLI entry: one line per rule as soon as it is decided (flushed, so a redirected run
    shows its progress), then a summary line; exit status 1 unless every rule is proved."""
    start = time.perf_counter()
    results = []
    for rule_id in list(rule_ids) if rule_ids else [r.id for r in RULES]:
        results.append(prove_rule(rule_id, timeout_ms))
        print(format_results(results[-1:]), flush=True)
    print(summary(results, time.perf_counter() - start), flush=True)
    return 0 if all(r["status"] == "proved" for r in results) else 1
