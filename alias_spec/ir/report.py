"""What a checker of compiler output says, and its one reporter: text, JSON and SARIF 2.1.0.

Lint and the plan validator both report ``Finding``s (a rule broken at a line of the input)
and ``Note``s (something not judged, and why: a run with notes is never called clean). The
reporter renders a ``Run`` (one input's findings and notes with the kinds they use) the same
way for both, so that the two commands' outputs keep one shape: a finding line
``FILE:LINE:COL: LEVEL: MESSAGE [RULE] (WHAT)`` followed by indented detail lines, a note line
``FILE:LINE:COL: note: MESSAGE [KIND]``, and a SARIF run whose rules are the finding rules then
the note kinds.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"
LEVELS = ("error", "warning")  # a finding's levels; notes are SARIF level "note"


@dataclass
class Finding:
    """A rule broken at one place of the input. The first seven fields are what every checker
    gives; the rest are set by checkers that have them (None: not given, left out of JSON)."""

    rule: str
    message: str
    function: str | None  # the function the place is in (None: not known)
    line: int  # 1-based
    column: int  # 1-based
    source: str | None = None  # the kernel source "file:line:col" the place comes from
    values: dict[str, Any] = field(default_factory=dict)  # the values that broke the rule
    # "error", or "warning" for a rule broken without touching bytes outside the allocation.
    level: str = "error"
    op: str | None = None  # the op the finding is on, and its result as the input names it
    result: str | None = None
    fix: str | None = None  # what to change
    context: str | None = None  # where the op's source can be, when that matters
    implied_by: str | None = None  # another finding's rule that fails wherever this one does
    values_text: str | None = None  # the values as the user reads them

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "rule": self.rule,
            "message": self.message,
            "function": self.function,
            "line": self.line,
            "column": self.column,
            "source": self.source,
            "values": self.values,
        }
        for key in _FINDING_EXTRAS:
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        return out


# Optional fields JSON shows only when set; "level" only where a checker uses more than one.
_FINDING_EXTRAS = ("op", "result", "fix", "context", "implied_by", "values_text")


@dataclass
class Note:
    """Something not judged, and why (``kind`` names what kind of gap it is)."""

    kind: str
    message: str
    line: int
    column: int
    function: str | None = None
    op: str | None = None
    result: str | None = None

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "message": self.message, "line": self.line,
                               "column": self.column}  # fmt: skip
        for key in ("function", "op", "result"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        return out


@dataclass(frozen=True)
class Kind:
    """A finding rule or a note kind, as SARIF's ``rules`` array describes it."""

    id: str
    title: str
    prose: str | None = None
    level: str = "error"  # the default level: "error" for a rule, "note" for a note kind
    properties: dict[str, Any] | None = None


@dataclass
class Run:
    """One input's report as the reporter sees it."""

    tool: str  # e.g. "alias-spec lint"
    path: str  # the input ("-" for stdin)
    findings: list[Finding]
    notes: list[Note]
    kinds: list[Kind]  # rules, then note kinds: SARIF's rules, in this order
    properties: dict[str, Any] = field(default_factory=dict)  # SARIF run properties
    # The file a finding's or note's line is in, by its rule or kind (None: ``path``); the
    # plan validator's lowering findings are lines of the LLVM IR.
    where: Callable[[str], str | None] = field(default=lambda _: None)
    level_in_json: bool = False  # show each finding's level in JSON (lint: error or warning)

    def file_of(self, kind: str) -> str:
        return self.where(kind) or self.path


# --- text -------------------------------------------------------------------------------------


def finding_lines(run: Run, f: Finding) -> list[str]:
    """One finding: its line, then its detail lines (what implies it or its fix, where its
    source can be, the kernel source line)."""
    if f.op is not None:
        values = f.values_text or ""
        what = f"{f.op} {f.result or ''}{'; ' + values if values else ''}"
    else:
        what = f"@{f.function}" if f.function is not None else ""
    also = "also: " if f.implied_by else ""
    lines = [f"{run.file_of(f.rule)}:{f.line}:{f.column}: {f.level}: {also}{f.message} "
             f"[{f.rule}]" + (f" ({what})" if what else "")]  # fmt: skip
    if f.implied_by:
        lines.append(f"  implied by {f.implied_by}: it fails only where {f.implied_by} "
                     "fails on these sizes, and that rule's fix fixes it")  # fmt: skip
    elif f.fix:
        lines.append(f"  fix: {f.fix}")
    if f.context:
        lines.append(f"  places: {f.context}")
    if f.source:
        lines.append(f"  kernel source: {f.source}")
    return lines


def to_text(run: Run, summary: str) -> str:
    """Findings, then notes, then the checker's one-line summary."""
    lines: list[str] = []
    for f in run.findings:
        lines += finding_lines(run, f)
    for n in run.notes:
        lines.append(f"{run.file_of(n.kind)}:{n.line}:{n.column}: note: {n.message} [{n.kind}]")
    lines.append(summary)
    return "\n".join(lines)


# --- JSON -------------------------------------------------------------------------------------


def finding_json(run: Run, f: Finding) -> dict[str, Any]:
    out = f.to_json()
    if run.level_in_json:
        out["level"] = f.level
    return out


def to_json(run: Run, fields: dict[str, Any], notes_key: str = "notes") -> dict[str, Any]:
    """``{"file", **fields, "findings", notes_key}``: the checker's own fields first."""
    return {
        "file": run.path,
        **fields,
        "findings": [finding_json(run, f) for f in run.findings],
        notes_key: [n.to_json() for n in run.notes],
    }


# --- SARIF ------------------------------------------------------------------------------------


def _uri(path: str) -> str:
    return "stdin" if path == "-" else Path(path).as_posix()


def _location(uri: str, line: int, column: int) -> dict[str, Any]:
    return {"physicalLocation": {"artifactLocation": {"uri": uri},
                                 "region": {"startLine": max(line, 1),
                                            "startColumn": max(column, 1)}}}  # fmt: skip


def source_location(source: str | None) -> dict[str, Any] | None:
    """A kernel source ``file:line:col`` as a SARIF location (None when it is not one)."""
    if not source:
        return None
    file, _, col = source.rpartition(":")
    file, _, line = file.rpartition(":")
    if not (file and line.isdigit() and col.isdigit()):
        return None
    return _location(file, int(line), int(col))


def sarif_message(f: Finding) -> str:
    text = f.message
    if f.op is not None:
        text += f" ({f.op} {f.result or ''})"
    if f.fix:
        text += f". Fix: {f.fix}"
    if f.context:
        text += f". Places: {f.context}"
    return text


def to_sarif(run: Run) -> dict[str, Any]:
    """A SARIF 2.1.0 log of one run: the kinds as reportingDescriptors, each finding a result
    at its level, each note a result at level "note"."""
    index = {k.id: i for i, k in enumerate(run.kinds)}
    results: list[dict[str, Any]] = []
    for f in run.findings:
        props: dict[str, Any] = {"values": f.values}
        if f.values_text is not None:
            props["valuesText"] = f.values_text
        if f.op is not None:
            props["op"] = f.op
        if f.function is not None:
            props["function"] = f.function
        if f.implied_by:
            props["impliedBy"] = f.implied_by
        result: dict[str, Any] = {"ruleId": f.rule}
        if f.rule in index:
            result["ruleIndex"] = index[f.rule]
        result |= {
            "level": f.level if f.level in LEVELS else "error",
            "message": {"text": sarif_message(f)},
            "locations": [_location(_uri(run.file_of(f.rule)), f.line, f.column)],
            "properties": props,
        }
        related = source_location(f.source)
        if related is not None:
            result["relatedLocations"] = [
                {"id": 0, "message": {"text": "kernel source"}, **related}
            ]
        results.append(result)
    for n in run.notes:
        note: dict[str, Any] = {"ruleId": n.kind}
        if n.kind in index:
            note["ruleIndex"] = index[n.kind]
        note |= {
            "level": "note",
            "message": {"text": n.message},
            "locations": [_location(_uri(run.file_of(n.kind)), n.line, n.column)],
        }
        props = {k: v for k, v in (("op", n.op), ("function", n.function)) if v is not None}
        if props:
            note["properties"] = props
        results.append(note)
    return {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": run.tool,
                        "version": tool_version(),
                        "rules": [_descriptor(k) for k in run.kinds],
                    }
                },
                "results": results,
                "properties": run.properties,
            }
        ],
    }


def _descriptor(k: Kind) -> dict[str, Any]:
    out: dict[str, Any] = {"id": k.id, "name": k.id.replace(".", "_"),
                           "shortDescription": {"text": k.title}}  # fmt: skip
    if k.prose is not None:
        out["fullDescription"] = {"text": k.prose}
    out["defaultConfiguration"] = {"level": k.level}
    if k.properties is not None:
        out["properties"] = k.properties
    return out


def tool_version() -> str:
    """The installed package's version (code scanning shows it beside each run)."""
    try:
        return importlib.metadata.version("tle-alias-spec")
    except importlib.metadata.PackageNotFoundError:  # run from a checkout without installing
        return "0+unknown"
