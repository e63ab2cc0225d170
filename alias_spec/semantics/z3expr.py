"""The rule language rendered as z3 terms over mathematical integers."""

from __future__ import annotations

from collections.abc import Mapping

import z3

from alias_spec.model import dsl
from alias_spec.model.catalogue import Rule, compiled, rules_for
from alias_spec.model.facts import FACTS, INVARIANTS, Facts, expand

Env = Mapping[str, z3.ExprRef]


def fact_vars(prefix: str = "") -> dict[str, z3.ExprRef]:
    """Fresh z3 constants for every primitive fact."""
    return {f.name: (z3.Bool if f.sort == dsl.BOOL else z3.Int)(prefix + f.name) for f in FACTS}


def to_z3(e: dsl.Expr, env: Env) -> z3.ExprRef:
    op = e.op
    if op == "const":
        return z3.BoolVal(e.value) if isinstance(e.value, bool) else z3.IntVal(int(e.value))  # type: ignore[arg-type]
    if op == "var":
        return env[str(e.value)]
    args = [to_z3(a, env) for a in e.args]
    if op == "and":
        return z3.And(*args)
    if op == "or":
        return z3.Or(*args)
    if op == "not":
        return z3.Not(args[0])
    if op == "ite":
        return z3.If(args[0], args[1], args[2])
    a, b = args
    return {
        "+": lambda: a + b,
        "-": lambda: a - b,
        "*": lambda: a * b,
        "//": lambda: a / b,  # Euclidean on Ints; equals floor for positive divisors
        "%": lambda: a % b,
        "<": lambda: a < b,
        "<=": lambda: a <= b,
        ">": lambda: a > b,
        ">=": lambda: a >= b,
        "==": lambda: a == b,
        "!=": lambda: a != b,
    }[op]()


def term(text: str, env: Env) -> z3.ExprRef:
    return to_z3(expand(text), env)


def invariants(env: Env) -> z3.BoolRef:
    return z3.And(*[term(t, env) for t in INVARIANTS])


def holds(r: Rule, env: Env) -> z3.BoolRef:
    """The rule is satisfied: its guard is false or its formula is true."""
    guard, formula = compiled(r.id)
    return z3.Implies(to_z3(guard, env), to_z3(formula, env))


def fires(r: Rule, env: Env) -> z3.BoolRef:
    return z3.Not(holds(r, env))


def valid(profile: str, env: Env) -> z3.BoolRef:
    return z3.And(*[holds(r, env) for r in rules_for(profile)])


def pin(env: Env, facts: Facts, skip: tuple[str, ...] = ()) -> list[z3.BoolRef]:
    """Equalities fixing the z3 facts to concrete values."""
    out = []
    for name, v in facts.items():
        if name in skip or name not in env:
            continue
        out.append(env[name] == (z3.BoolVal(v) if isinstance(v, bool) else z3.IntVal(v)))
    return out


def model_facts(model: z3.ModelRef, env: Env) -> Facts:
    out: Facts = {}
    for name, v in env.items():
        val = z3.simplify(model.eval(v, model_completion=True))
        out[name] = z3.is_true(val) if z3.is_bool(val) else val.as_long()
    return out
