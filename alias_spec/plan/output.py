"""The plan validator's report as text, JSON and SARIF 2.1.0."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path
from typing import Any

from alias_spec.plan.plan import Report

TOOL = "alias-spec plan"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
RULES: dict[str, tuple[str, str]] = {
    "plan.overlap": (
        "Two live buffers share bytes",
        "Two buffers of different roots (allocations, scratch, call frames) are live at the "
        "same program point and their byte ranges in the allocator's plan overlap.",
    ),
    "plan.bounds": (
        "A buffer lies outside its space",
        "A buffer's byte range leaves the kernel's ttg.shared or, in a callee, its call frame.",
    ),
    "lowering.outside": (
        "The code addresses shared memory outside its function's range",
        "An address the LLVM IR computes from @global_smem can leave the range the plan gives "
        "the function: the kernel's [0, ttg.shared), a callee's frame at its call site.",
    ),
}
NOTES: dict[str, str] = {
    "plan.positions": "Positions are those of the module after allocation",
    "plan.unsized": "A buffer's offset or size is unknown",
    "plan.unbounded": "A function's space is unknown",
    "plan.tmem": "Tensor memory is not judged",
    "lowering.unread": "Shared-memory use in the LLVM IR that is not modelled",
    "lowering.unbounded": "An address or access size that could not be bounded",
    "lowering.unplaced": "A function with no range in the plan",
    "lowering.threads": "The block size is unknown",
}


def exit_status(report: Report) -> int:
    """0 proved clean, 1 findings, 3 partly judged."""
    return {"clean": 0, "findings": 1, "partial": 3}[report.status]


def to_text(report: Report) -> str:
    lines = []
    for f in report.findings:
        where = report.llir_path if f.rule.startswith("lowering.") and report.llir_path else (
            report.path)  # fmt: skip
        lines.append(f"{where}:{f.line}:{f.column}: error: {f.message} [{f.rule}] "
                     f"(@{f.function})")  # fmt: skip
        if f.source:
            lines.append(f"  kernel source: {f.source}")
    for n in report.notes:
        where = report.llir_path if n.kind.startswith("lowering.") and report.llir_path else (
            report.path)  # fmt: skip
        lines.append(f"{where}:{n.line}:{n.column}: note: {n.message} [{n.kind}]")
    nf = len(report.findings)
    verdict = {"clean": "proved clean", "findings": f"{nf} finding{'s' if nf != 1 else ''}",
               "partial": "partly judged (see the notes)"}[report.status]  # fmt: skip
    lines.append(
        f"{verdict}: {len(report.buffers)} buffer{'s' if len(report.buffers) != 1 else ''}, "
        f"ttg.shared {report.shared if report.shared is not None else 'unknown'}, plan from "
        f"{report.plan_from}; lowering: {report.lowering}"
    )
    return "\n".join(lines)


def to_json(report: Report) -> dict[str, Any]:
    return {
        "file": report.path,
        "status": report.status,
        "plan_from": report.plan_from,
        "shared": report.shared,
        "lowering": report.lowering,
        "buffers": [b.to_json() for b in report.buffers],
        "findings": [f.to_json() for f in report.findings],
        "notes": [n.to_json() for n in report.notes],
    }


def _location(uri: str, line: int, column: int) -> dict[str, Any]:
    return {"physicalLocation": {"artifactLocation": {"uri": uri},
                                 "region": {"startLine": max(line, 1),
                                            "startColumn": max(column, 1)}}}  # fmt: skip


def to_sarif(report: Report, llir_path: str | None = None) -> dict[str, Any]:
    """One run: the finding kinds as rules (level error), then the note kinds (level note)."""
    ids = list(RULES) + list(NOTES)
    uri = "stdin" if report.path == "-" else Path(report.path).as_posix()
    llir_uri = Path(llir_path).as_posix() if llir_path else uri
    results = []
    for f in report.findings:
        where = llir_uri if f.rule.startswith("lowering.") else uri
        result: dict[str, Any] = {
            "ruleId": f.rule,
            "ruleIndex": ids.index(f.rule),
            "level": "error",
            "message": {"text": f.message},
            "locations": [_location(where, f.line, f.column)],
            "properties": {"values": f.values, "function": f.function},
        }
        if f.source:
            file, _, col = f.source.rpartition(":")
            file, _, line = file.rpartition(":")
            if line.isdigit() and col.isdigit():
                related = _location(file, int(line), int(col))
                result["relatedLocations"] = [
                    {"id": 0, "message": {"text": "kernel source"}, **related}
                ]
        results.append(result)
    for n in report.notes:
        where = llir_uri if n.kind.startswith("lowering.") else uri
        results.append({
            "ruleId": n.kind,
            "ruleIndex": ids.index(n.kind),
            "level": "note",
            "message": {"text": n.message},
            "locations": [_location(where, n.line, n.column)],
        })  # fmt: skip
    rules = [
        {"id": k, "name": k.replace(".", "_"), "shortDescription": {"text": title},
         "fullDescription": {"text": prose}, "defaultConfiguration": {"level": "error"}}
        for k, (title, prose) in RULES.items()
    ] + [
        {"id": k, "name": k.replace(".", "_"), "shortDescription": {"text": title},
         "defaultConfiguration": {"level": "note"}}
        for k, title in NOTES.items()
    ]  # fmt: skip
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": TOOL, "version": _version(), "rules": rules}},
                "results": results,
                "properties": {
                    "status": report.status,
                    "plan_from": report.plan_from,
                    "shared": report.shared,
                },  # fmt: skip
            }
        ],
    }


def _version() -> str:
    try:
        return importlib.metadata.version("tle-alias-spec")
    except importlib.metadata.PackageNotFoundError:
        return "0+unknown"
