"""The reference interpreter: evaluates the catalogue's formulas directly on facts."""

from __future__ import annotations

from alias_spec.model import dsl
from alias_spec.model.catalogue import Rule, compiled, rules_for
from alias_spec.model.facts import Facts, expand
from alias_spec.model.verdict import Verdict, Violation


def violated(rule: Rule, facts: Facts) -> bool:
    guard, formula = compiled(rule.id)
    return bool(dsl.evaluate(guard, facts)) and not dsl.evaluate(formula, facts)


def report_values(rule: Rule, facts: Facts) -> Facts:
    return {name: dsl.evaluate(expand(name), facts) for name in rule.values}


def check_facts(facts: Facts, profile: str, engine: str = "interp") -> Verdict:
    violations = [
        Violation(rule=r.id, message=r.message, values=report_values(r, facts))
        for r in rules_for(profile)
        if violated(r, facts)
    ]
    return Verdict(valid=not violations, profile=profile, engine=engine, violations=violations)
