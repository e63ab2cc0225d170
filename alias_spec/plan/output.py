"""The plan validator's report as text, JSON and SARIF 2.1.0 (the shared reporter of
``alias_spec.ir.report``; a lowering finding's or note's line is one of the LLVM IR)."""

from __future__ import annotations

from typing import Any

from alias_spec.ir import report as out
from alias_spec.ir.report import SARIF_SCHEMA as SARIF_SCHEMA
from alias_spec.plan.plan import Report

TOOL = "alias-spec plan"
RULES: dict[str, tuple[str, str]] = {
    "plan.capacity": (
        "The plan needs more shared memory than the target gives a block",
        "The plan's ttg.shared exceeds the shared memory one block may use on the module's "
        "target: the kernel cannot launch.",
    ),
    "plan.overlap": (
        "Two live buffers share bytes",
        "Two buffers of different roots (allocations, scratch, call frames) are live at the "
        "same program point and their byte ranges in the allocator's plan overlap.",
    ),
    "plan.bounds": (
        "A buffer lies outside its space",
        "A buffer's byte range leaves the kernel's ttg.shared or, in a callee, its call frame.",
    ),
    "plan.size": (
        "An allocation is smaller than its type",
        "The allocator's size for an allocation is below what its memdesc type's elements need.",
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
    "plan.ambiguous": "The allocator's output cannot tell functions that look alike apart",
    "plan.pointer": "A shared-memory pointer made from an integer no buffer flows into",
    "plan.removed": "Allocations the release's passes delete before allocating",
    "lowering.unread": "Shared-memory use in the LLVM IR that is not modelled",
    "lowering.unbounded": "An address or access size that could not be bounded",
    "lowering.unplaced": "A function with no range in the plan",
    "lowering.threads": "The block size is unknown",
    "lowering.absent": "No LLVM IR beside the TTGIR: the addresses were not checked",
}
# A plan too large to launch breaks no byte of memory: a warning, as its findings are.
WARNINGS = {"plan.capacity"}
KINDS = [
    out.Kind(k, title, prose, "warning" if k in WARNINGS else "error")
    for k, (title, prose) in RULES.items()
] + [out.Kind(k, title, None, "note") for k, title in NOTES.items()]


def exit_status(report: Report) -> int:
    """0 proved clean, 1 findings, 3 partly judged."""
    return {"clean": 0, "findings": 1, "partial": 3}[report.status]


def _run(report: Report, llir_path: str | None) -> out.Run:
    def where(kind: str) -> str | None:
        return llir_path if kind.startswith("lowering.") else None

    props = {"status": report.status, "plan_from": report.plan_from, "shared": report.shared}
    return out.Run(TOOL, report.path, report.findings, report.notes, KINDS, props, where)


def to_text(report: Report) -> str:
    nf = len(report.findings)
    verdict = {"clean": "proved clean", "findings": f"{nf} finding{'s' if nf != 1 else ''}",
               "partial": "partly judged (see the notes)"}[report.status]  # fmt: skip
    summary = (
        f"{verdict}: {len(report.buffers)} buffer{'s' if len(report.buffers) != 1 else ''}, "
        f"ttg.shared {report.shared if report.shared is not None else 'unknown'}, plan from "
        f"{report.plan_from}; lowering: {report.lowering}"
    )
    return out.to_text(_run(report, report.llir_path), summary)


def to_json(report: Report) -> dict[str, Any]:
    fields = {
        "status": report.status,
        "plan_from": report.plan_from,
        "shared": report.shared,
        "lowering": report.lowering,
        "buffers": [b.to_json() for b in report.buffers],
    }
    return out.to_json(_run(report, report.llir_path), fields)


def to_sarif(report: Report, llir_path: str | None = None) -> dict[str, Any]:
    """One run: the finding kinds as rules (level error), then the note kinds (level note)."""
    return out.to_sarif(_run(report, llir_path))
