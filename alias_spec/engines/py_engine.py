"""The Python engine: the generated pure-Python checks (``generated/alias_checks.py``)."""

from __future__ import annotations

from alias_spec.generated import alias_checks
from alias_spec.model.facts import Facts
from alias_spec.model.verdict import Verdict, Violation


def check_facts(facts: Facts, profile: str) -> Verdict:
    """Judge one fact dict with the generated module (engine "python")."""
    if profile not in alias_checks.PROFILES:
        names = ", ".join(alias_checks.PROFILES)
        raise KeyError(f"unknown profile {profile!r}; choose one of {names}")
    violations = [
        Violation(rule=v.rule, message=v.message, values=dict(v.values))
        for v in alias_checks.check(facts, profile)
    ]
    return Verdict(valid=not violations, profile=profile, engine="python", violations=violations)
