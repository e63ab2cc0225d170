"""The verdict: the stable output format every engine returns."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


class Violation(BaseModel):
    rule: str
    message: str
    values: dict[str, int | bool]
    fix: dict[str, Any] | None = None


class Verdict(BaseModel):
    valid: bool
    profile: str
    engine: str
    violations: list[Violation]
    notes: list[str] = []

    def rule_ids(self) -> list[str]:
        return [v.rule for v in self.violations]

    def to_json(self) -> dict[str, Any]:
        out = self.model_dump()
        for v in out["violations"]:
            if v["fix"] is None:
                del v["fix"]
        if not out["notes"]:
            del out["notes"]
        return out
