"""The Python engine: the generated pure-Python checks (``generated/alias_checks.py``).

Its outcome calls the generated module's ``check`` without building Verdicts; any error it
raises is an outcome to compare. ``PythonEngine(module)`` judges with another module
generated the same way (the mutation tester's mutants).
"""

from __future__ import annotations

from types import ModuleType

from alias_spec.engines.base import Engine, Outcome
from alias_spec.generated import alias_checks
from alias_spec.model.facts import Facts
from alias_spec.model.verdict import Verdict, Violation


def check_facts(facts: Facts, profile: str, module: ModuleType = alias_checks) -> Verdict:
    """Judge one fact dict with the generated module (engine "python")."""
    if profile not in module.PROFILES:
        names = ", ".join(module.PROFILES)
        raise KeyError(f"unknown profile {profile!r}; choose one of {names}")
    violations = [
        Violation(rule=v.rule, message=v.message, values=dict(v.values))
        for v in module.check(facts, profile)
    ]
    return Verdict(valid=not violations, profile=profile, engine="python", violations=violations)


class PythonEngine(Engine):
    """The generated Python checks (or another module generated the same way)."""

    name = "python"

    def __init__(self, module: ModuleType | None = None) -> None:
        self.module = alias_checks if module is None else module
        self._check = self.module.check

    def judge(self, facts: Facts, profile: str) -> Verdict:
        return check_facts(facts, profile, self.module)

    def outcome(self, facts: Facts, profile: str) -> Outcome:
        try:
            return tuple(v.rule for v in self._check(facts, profile))
        except Exception as exc:  # noqa: BLE001 - any error is an outcome to compare
            return f"raises {type(exc).__name__}"
