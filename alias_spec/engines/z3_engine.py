"""The z3 engine: the solver's reading of the rules (``alias_spec.semantics``).

Its verdict is ``semantics.check.check_facts`` without fixes (one satisfiability query per
rule; fixes are a separate step, which the command line attaches to any engine's verdict). Its
domain is the facts that satisfy the spec's invariants (z3 reasons under them).

Its outcome is z3's terms (``semantics.z3expr.fires``) evaluated by z3 on the concrete facts:
with every fact pinned each rule's term is ground, so z3's simplifier decides it; one
substitution of a term packing all rules as bits does the whole catalogue at once. Where z3
cannot reduce it (a zero divisor), the verdict decides. ``Z3SolverEngine`` (the campaign's
``z3-solver``) is the same engine whose outcome is always its verdict's (slow; used on
boundary cases). Nothing imports z3 until an engine judges or prepares.
"""

from __future__ import annotations

from typing import Any

from alias_spec.engines.base import (
    Engine,
    Outcome,
    enabled_rules,
    satisfies_invariants,
)
from alias_spec.model import catalogue, dsl
from alias_spec.model.facts import FACTS, Facts
from alias_spec.model.verdict import Verdict

BOOLS = frozenset(f.name for f in FACTS if f.sort == dsl.BOOL)


class Z3Engine(Engine):
    """The solver's verdict; its outcome by z3's simplifier on the packed, ground terms."""

    name = "z3"
    sampled = True

    def __init__(self) -> None:
        self._packed: Any = None
        self.fallbacks = 0  # outcomes z3's simplifier could not reduce (the verdict decided)

    def judge(self, facts: Facts, profile: str) -> Verdict:
        from alias_spec.semantics.check import check_facts

        return check_facts(facts, profile, with_fixes=False)

    def in_domain(self, facts: Facts) -> bool:
        return satisfies_invariants(facts)

    def solver_outcome(self, facts: Facts, profile: str) -> Outcome:
        """The verdict's rule ids (one query per rule), None outside the domain."""
        if not self.in_domain(facts):
            return None
        return tuple(self.judge(facts, profile).rule_ids())

    def prepare(self) -> None:
        if self._packed is not None:
            return
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

    def outcome(self, facts: Facts, profile: str) -> Outcome:
        if not self.in_domain(facts):
            return None
        self.prepare()
        z3 = self._z3
        subs = [
            (v, z3.BoolVal(bool(facts[n])) if n in BOOLS else z3.IntVal(int(facts[n])))
            for n, v in self._env.items()
        ]
        value = z3.simplify(z3.substitute(self._packed, *subs))
        if not z3.is_int_value(value):
            self.fallbacks += 1
            return tuple(self.judge(facts, profile).rule_ids())
        mask = value.as_long()
        enabled = self._enabled[profile]
        return tuple(r.id for i, r in enumerate(self._rules) if mask >> i & 1 and r.id in enabled)


class Z3SolverEngine(Z3Engine):
    """The z3 engine whose outcome is its verdict's (``alias-spec check --engine z3``)."""

    name = "z3-solver"

    def prepare(self) -> None:
        pass

    def outcome(self, facts: Facts, profile: str) -> Outcome:
        return self.solver_outcome(facts, profile)
