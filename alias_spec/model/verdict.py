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
    valid: bool  # no judged rule fires
    profile: str
    engine: str
    violations: list[Violation]
    notes: list[str] = []
    # Rules the request's facts cannot decide (a layout or memory the spec does not model),
    # and why; a verdict with any is "partial", never plainly "valid".
    not_judged: list[str] = []
    not_judged_reason: str = ""

    @property
    def status(self) -> str:
        """One of: invalid (a rule fires), partial (none of the judged rules fires, some rules
        are not judged) or valid (every rule of the profile judged, none fires)."""
        if not self.valid:
            return "invalid"
        return "partial" if self.not_judged else "valid"

    def rule_ids(self) -> list[str]:
        return [v.rule for v in self.violations]

    def to_json(self) -> dict[str, Any]:
        dumped = self.model_dump()
        out = {"valid": dumped.pop("valid"), "status": self.status, **dumped}
        for v in out["violations"]:
            if v["fix"] is None:
                del v["fix"]
        for key in ("notes", "not_judged", "not_judged_reason"):
            if not out[key]:
                del out[key]
        return out
