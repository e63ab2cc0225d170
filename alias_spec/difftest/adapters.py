"""The engines of a campaign: fast forms of the registry's engines, all giving an Outcome.

The registry (``alias_spec.engines.registry``) is the one list of engines; a campaign may
compare any of them, each judging through its Verdict. Millions of cases need faster forms of
the same engines, so four have one here (what ``ENGINES`` names):

- ``interp``: the interpreter rule by rule, memoised per rule on the facts that rule reads (its
  guard's and formula's free variables); ``dsl.evaluate`` reads nothing else, so the memo is
  exact.
- ``python``: the generated module ``alias_spec.generated.alias_checks`` without Verdicts.
- ``cpp``: the generated header through the compiled harness, batched per profile.
- ``z3``: the solver's terms (``alias_spec.semantics.z3expr.fires``) evaluated by z3 on the
  concrete facts: every rule's term is packed into one integer-valued term, substituted and
  simplified. Where z3 cannot reduce it (a zero divisor), the registry's z3 engine decides.

``z3-solver`` is the registry's z3 engine itself on every case (slow; used on boundary cases).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from alias_spec.difftest.outcomes import (
    BOOLS,
    ZERO_DIVISION,
    Case,
    Outcome,
    disagree,
    in_int64,
    restrict,
    satisfies_invariants,
)
from alias_spec.engines import registry
from alias_spec.model import catalogue, dsl
from alias_spec.model.catalogue import PROFILES, compiled, rules_for
from alias_spec.model.facts import Facts
from alias_spec.model.interp import violated

# The registry's engines with a fast form here (a campaign's engines, in report order).
ENGINES: tuple[str, ...] = ("interp", "python", "cpp", "z3")
SOLVER = "z3-solver"  # the registry's z3 engine, beside the fast z3 evaluation
# Engines defined only on facts that satisfy the spec's invariants (z3 reasons under them).
INVARIANT_DOMAIN = frozenset({"z3", SOLVER})


def choices() -> tuple[str, ...]:
    """Every name a campaign accepts: the registry's engines and the solver form of z3."""
    return (*registry.NAMES, SOLVER)


def enabled_rules() -> dict[str, frozenset[str]]:
    return {p: frozenset(r.id for r in rules_for(p)) for p in PROFILES}


class InterpEngine:
    """The interpreter, rule by rule, memoised on each rule's free variables."""

    MEMO_LIMIT = 200_000

    def __init__(self) -> None:
        self._enabled = enabled_rules()
        self._rules = []
        for r in catalogue.RULES:
            guard, formula = compiled(r.id)
            names = tuple(sorted(dsl.free_vars(guard) | dsl.free_vars(formula)))
            self._rules.append((r, names, {}))

    def __call__(self, facts: Facts, profile: str) -> Outcome:
        enabled = self._enabled[profile]
        out = []
        for r, names, memo in self._rules:
            if r.id not in enabled:
                continue
            key = tuple(facts[n] for n in names)
            hit = memo.get(key)
            if hit is None:
                if len(memo) > self.MEMO_LIMIT:
                    memo.clear()
                try:
                    hit = violated(r, facts)
                except ZeroDivisionError:
                    hit = ZERO_DIVISION
                memo[key] = hit
            if hit == ZERO_DIVISION:
                return ZERO_DIVISION
            if hit:
                out.append(r.id)
        return tuple(out)


def python_engine(module: Any = None) -> Callable[[Facts, str], Outcome]:
    """The generated Python checks (or another module generated the same way)."""
    if module is None:
        from alias_spec.generated import alias_checks as module

    check = module.check

    def run(facts: Facts, profile: str) -> Outcome:
        try:
            return tuple(v.rule for v in check(facts, profile))
        except Exception as exc:  # noqa: BLE001 - any error is an outcome to compare
            return f"raises {type(exc).__name__}"

    return run


def cpp_batch(cases: Sequence[Case], sanitize: bool = False) -> list[Outcome]:
    """The compiled header on every int64 case, one harness run per profile."""
    from alias_spec.engines import cpp_engine

    out: list[Outcome] = [None] * len(cases)
    groups: dict[str, list[int]] = {}
    for i, c in enumerate(cases):
        if in_int64(c.facts):
            groups.setdefault(c.profile, []).append(i)
    for profile, idx in groups.items():
        got = cpp_engine.check_batch([cases[i].facts for i in idx], profile, sanitize=sanitize)
        for i, ids in zip(idx, got, strict=True):
            out[i] = tuple(ids)
    return out


class Z3Engine:
    """z3's reading of the rules, evaluated on concrete facts.

    The registry's ``z3`` engine (``alias_spec.semantics.check``) asks, per rule, whether
    ``fires(rule)`` is satisfiable with every fact pinned. With every fact pinned the term is
    ground, so z3's simplifier decides it; one substitution of a term packing all rules as bits
    does the whole catalogue at once."""

    def __init__(self) -> None:
        import z3

        from alias_spec.semantics.z3expr import fact_vars, fires

        self._z3 = z3
        self._env = fact_vars()
        self._rules = list(catalogue.RULES)
        bits = [
            z3.If(fires(r, self._env), z3.IntVal(1 << i), z3.IntVal(0))
            for i, r in enumerate(self._rules)
        ]
        self._packed = z3.Sum(*bits)
        self._enabled = enabled_rules()
        self.fallbacks = 0

    def __call__(self, facts: Facts, profile: str) -> Outcome:
        z3 = self._z3
        subs = [
            (v, z3.BoolVal(bool(facts[n])) if n in BOOLS else z3.IntVal(int(facts[n])))
            for n, v in self._env.items()
        ]
        value = z3.simplify(z3.substitute(self._packed, *subs))
        if not z3.is_int_value(value):
            self.fallbacks += 1
            return z3_solver(facts, profile)
        mask = value.as_long()
        enabled = self._enabled[profile]
        return tuple(r.id for i, r in enumerate(self._rules) if mask >> i & 1 and r.id in enabled)


def z3_solver(facts: Facts, profile: str) -> Outcome:
    """The registry's z3 engine (``alias-spec check --engine z3``), without fix suggestions."""
    return tuple(registry.get("z3")(facts, profile).rule_ids())


def verdict_engine(name: str) -> Callable[[Facts, str], Outcome]:
    """A registry engine without a fast form: its Verdict's rule ids, or the error it raised."""
    judge = registry.get(name)

    def run(facts: Facts, profile: str) -> Outcome:
        try:
            return tuple(judge(facts, profile).rule_ids())
        except Exception as exc:  # noqa: BLE001 - any error is an outcome to compare
            return f"raises {type(exc).__name__}"

    return run


class Engines:
    """The engines of one campaign, and a judge of single cases (for shrinking/replay)."""

    def __init__(self, names: Sequence[str], sanitize: bool = False) -> None:
        unknown = [n for n in names if n not in choices()]
        if unknown:
            raise ValueError(f"unknown engines {unknown}; choose from {', '.join(choices())}")
        for name in names:
            why = registry.unavailable(name)
            if why is not None:  # before any case is judged: one line, what to install
                raise registry.EngineUnavailable(name, why, registry.remedy(name))
        self.names = list(names)
        self.sanitize = sanitize
        self.interp = InterpEngine() if "interp" in names else None
        self.python = python_engine() if "python" in names else None
        self.z3 = Z3Engine() if "z3" in names else None
        self.others = {n: verdict_engine(n) for n in names if n not in (*ENGINES, SOLVER)}

    def outcomes(self, case: Case) -> dict[str, Outcome]:
        out: dict[str, Outcome] = {}
        for name in self.names:
            out[name] = self.one(name, case)
        return restrict(out)

    def one(self, name: str, case: Case) -> Outcome:
        """``name``'s outcome on one case (None outside its domain)."""
        f, p = case.facts, case.profile
        if name == "interp":
            assert self.interp is not None
            return self.interp(f, p)
        if name == "python":
            assert self.python is not None
            return self.python(f, p)
        if name == "cpp":
            return cpp_batch([case], self.sanitize)[0]
        if name in self.others:
            return self.others[name](f, p)
        if not satisfies_invariants(f):
            return None
        if name == "z3":
            assert self.z3 is not None
            return self.z3(f, p)
        return z3_solver(f, p)

    def diverges(self, case: Case) -> bool:
        return disagree(self.outcomes(case), case.expect)
