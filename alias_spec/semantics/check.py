"""The z3 engine: judge a request by asking the solver whether each rule can fail."""

from __future__ import annotations

import z3

from alias_spec.model.catalogue import rules_for
from alias_spec.model.facts import Facts
from alias_spec.model.interp import report_values
from alias_spec.model.verdict import Verdict, Violation
from alias_spec.semantics.fix import suggest
from alias_spec.semantics.z3expr import fact_vars, fires, pin


def check_facts(facts: Facts, profile: str, with_fixes: bool = True) -> Verdict:
    env = fact_vars()
    s = z3.Solver()
    s.add(*pin(env, facts))
    violations = []
    for r in rules_for(profile):
        s.push()
        s.add(fires(r, env))
        result = s.check()
        s.pop()
        if result == z3.unknown:
            raise RuntimeError(f"z3 could not decide {r.id}")
        if result == z3.sat:
            fix = suggest(facts, profile, r) if with_fixes else None
            violations.append(
                Violation(rule=r.id, message=r.message, values=report_values(r, facts), fix=fix)
            )
    return Verdict(valid=not violations, profile=profile, engine="z3", violations=violations)
