"""The reference interpreter: evaluates the catalogue's formulas directly on facts."""

from __future__ import annotations

from collections.abc import Mapping

from alias_spec.model import dsl
from alias_spec.model.catalogue import Rule, compiled, rules_for
from alias_spec.model.facts import expand
from alias_spec.model.verdict import Verdict, Violation


def violated(rule: Rule, facts: Mapping[str, int | bool]) -> bool:
    guard, formula = compiled(rule.id)
    return bool(dsl.evaluate(guard, facts)) and not dsl.evaluate(formula, facts)


def report_values(rule: Rule, facts: Mapping[str, int | bool]) -> dict[str, int | bool]:
    return {name: dsl.evaluate(expand(name), facts) for name in rule.values}


def check_facts(facts: Mapping[str, int | bool], profile: str, engine: str = "interp") -> Verdict:
    violations = [
        Violation(rule=r.id, message=r.message, values=report_values(r, facts))
        for r in rules_for(profile)
        if violated(r, facts)
    ]
    return Verdict(valid=not violations, profile=profile, engine=engine, violations=violations)
