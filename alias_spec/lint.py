"""`alias-spec lint`: find unsafe shared-memory views in a TTGIR or MLIR dump.

Every ``ttg.memdesc_reinterpret``, ``ttg.memdesc_subslice``, ``ttg.memdesc_index`` and
``tle.memdesc_alias`` is followed back through the views before it (``memdesc_trans`` and
``memdesc_reshape`` included) to its ``ttg.local_alloc``, turned into one spec request and judged
by the chosen profile. Each violated rule is a finding at the op's line and column, with the
rule, the values that broke it, a fix, and the kernel source line when the dump carries
locations. Exit status: 0 clean, 1 findings, 2 unreadable input.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from math import prod
from pathlib import Path
from typing import Any

from .catalogue import PROFILES, RULES, rule, rules_for
from .errors import RequestError
from .interp import check_facts
from .mlir_views import (
    JUDGED,
    MlirError,
    Module,
    Op,
    Place,
    alloc_alignment,
    element_bytes,
    memdesc_side,
    read_module,
    side_bytes,
    view_start,
)
from .request import parse_request

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
TOOL = "alias-spec lint"
INFO_URI = "https://github.com/flagos-ai/FlagTree"

# What to change when a rule without a solver-backed fix fires (keyed by rule id prefix,
# longest match wins). Advice only: the rules themselves live in the catalogue.
HINTS: dict[str, str] = {
    "alias.range": "shrink the result or move it so that it ends inside the source view",
    "alias.offset": "choose an offset that is non-negative, aligned and inside the source",
    "alias.mutability": "make the result immutable, or view a mutable source",
    "alias.address": "start the view on a multiple of its element width from the allocation",
    "alias.base.aligned": "start the swizzled view on a multiple of its swizzle repeat",
    "alias.space": "view the source in its own memory space",
    "triton.op.stock": "lower tle.memdesc_alias to a Gluon recipe (reinterpret + index)",
    "triton.type.pow2": "use power-of-2 dims (only a leading buffer dim may be any size)",
    "triton.type": "fix the memdesc type (rank, layout rank, alloc shape, power-of-2 dims)",
    "triton.reinterpret.same_size": "reinterpret to exactly the source's byte size",
    "triton.reinterpret.no_subview": "reinterpret the parent descriptor, then take the subview",
    "triton.reinterpret.fits": "reinterpret to at most the source view's byte size",
    "triton.reinterpret.owned": "reinterpret only a contiguous part of a subview source",
    "triton.reinterpret.mutability": "keep the source's mutability",
    "triton.reinterpret": "reinterpret the whole parent descriptor",
    "triton.index.encoding": "give the result the source's layout (a layout without the "
    "leading buffer dim)",
    "triton.index": "index a whole multi-buffered allocation; the result is shape[1:]",
    "triton.subslice.bounds": "keep offset + size within the source in every dim",
    "triton.subslice.start": "keep every offset below the source size",
    "triton.subslice.tile": "use offsets that are multiples of the result size",
    "triton.subslice.swizzle": "split along whole swizzle patterns (rows in multiples of "
    "perPhase x maxPhase)",
    "triton.subslice": "take a subslice with the source's layout, alloc shape and element type",
}


@dataclass
class Finding:
    rule: str
    message: str
    op: str
    result: str
    line: int
    column: int
    values: dict[str, Any]
    fix: str
    source: str | None  # kernel source "file:line:col" from the op's location
    # Error when the view's bytes leave its allocation; warning when they stay inside it
    # (the view breaks the profile, e.g. it is larger than its own source view, but touches
    # no byte outside the allocation).
    level: str = "error"

    def to_json(self) -> dict[str, Any]:
        out = dict(self.__dict__)
        if out["source"] is None:
            del out["source"]
        return out


@dataclass
class Report:
    path: str
    profile: str
    views: int = 0
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _hint(rule_id: str) -> str:
    best = ""
    for prefix in HINTS:
        if rule_id.startswith(prefix) and len(prefix) > len(best):
            best = prefix
    return HINTS[best] if best else rule(rule_id).prose


def _fix(rule_id: str, op: Op, facts: dict[str, Any], profile: str) -> str:
    r = rule(rule_id)
    if r.fix == "offset" and op.name == "tle.memdesc_alias":
        try:
            from solver.fix import suggest

            got = suggest(facts, profile, r)
        except Exception:  # no solver available: fall back to advice
            got = None
        if got and "alias_offset_bytes" in got:
            return f"use offset_bytes = {got['alias_offset_bytes']}"
    return _hint(rule_id)


def _untraced(side: dict[str, Any], aliases: dict[str, str]) -> Place:
    alloc = side.get("alloc_shape") or side["shape"]
    return Place("?", 0, 0, tuple(0 for _ in alloc), alloc_alignment(side, aliases), True,
                 side_bytes(side, alloc=True))  # fmt: skip


def _escapes(place: Place, src: dict[str, Any], facts: dict[str, Any]) -> bool:
    """The judged view's bytes (as the request's facts place them) leave the allocation."""
    if not place.size or not facts.get("off_int"):
        return False
    start = view_start(place, src) + int(facts["off"])
    end = start + int(facts["res_elems"]) * ((int(facts["res_bits"]) + 7) // 8)
    return start < 0 or end > place.size


def _request(op: Op, src: dict[str, Any], res: dict[str, Any], place: Place, consts) -> dict:
    source = dict(src)
    alloc = source.get("alloc_shape") or source["shape"]
    if place.offsets is not None and len(place.offsets) == len(alloc) and any(place.offsets):
        source["view_offsets"] = list(place.offsets)
    if place.base:
        source["base_offset_bytes"] = place.base
    source["alloc_alignment"] = place.align
    req: dict[str, Any] = {"op": op.name, "source": source, "result": dict(res)}
    if op.name == "tle.memdesc_alias":
        req["alias_offset_bytes"] = op.attrs.get("offset_bytes", 0)
    elif op.name == "ttg.memdesc_subslice":
        req["offsets"] = op.attrs.get("offsets", [])
    elif op.name == "ttg.memdesc_index":
        index = op.operands[1] if len(op.operands) > 1 else None
        req["index"] = consts.get(index) if index else None
    return req


def _next_place(op: Op, place: Place, src: dict[str, Any], res: dict[str, Any], consts) -> Place:
    """Where the op's result lives, following Triton 3.6's lowering of each view."""
    res_alloc = res.get("alloc_shape") or res["shape"]
    zeros = tuple(0 for _ in res_alloc)
    start = view_start(place, src)
    if op.name == "tle.memdesc_alias":
        return Place(place.root, place.root_line, start + int(op.attrs.get("offset_bytes", 0)),
                     zeros, place.align, place.exact, place.size)  # fmt: skip
    if op.name == "ttg.memdesc_reinterpret":
        # The result is a fresh descriptor at the source view's first byte.
        return Place(place.root, place.root_line, start, zeros, place.align, place.exact,
                     place.size)  # fmt: skip
    if op.name == "ttg.memdesc_index":
        index = consts.get(op.operands[1]) if len(op.operands) > 1 else None
        exact = place.exact and index is not None
        if index is None:
            d0 = src["shape"][0] or 0
            index = 1 if d0 >= 2 else 0
        size = prod(int(d or 0) for d in res["shape"]) * element_bytes(res)
        return Place(place.root, place.root_line, start + index * size, zeros, place.align, exact,
                     place.size)  # fmt: skip
    if op.name == "ttg.memdesc_subslice":
        offs = op.attrs.get("offsets", [])
        new = None
        if place.offsets is not None and len(place.offsets) >= len(offs):
            pad = len(place.offsets) - len(offs)
            new = tuple(o + (offs[i - pad] if i >= pad else 0) for i, o in enumerate(place.offsets))
        return Place(place.root, place.root_line, place.base, new, place.align, place.exact,
                     place.size)  # fmt: skip
    # trans / reshape: the same bytes; known only when the source is a whole dense block.
    dense = place.offsets is not None and not any(place.offsets)
    return Place(place.root, place.root_line, start, zeros if dense else None, place.align,
                 place.exact, place.size)  # fmt: skip


def lint_module(module: Module, path: str, profile: str) -> Report:
    report = Report(path, profile)
    for ops, consts in zip(module.functions, module.constants, strict=False):
        places: dict[str, tuple[dict[str, Any], Place]] = {}
        for op in ops:
            try:
                _visit(op, module, consts, places, report, profile)
            except (RequestError, ValueError) as exc:
                report.notes.append(f"line {op.line}: {op.name} not judged: {exc}")
    return report


def _visit(op: Op, module: Module, consts, places, report: Report, profile: str) -> None:
    aliases = module.aliases
    if op.res_type is None:
        return
    res = memdesc_side(op.res_type, aliases)
    if op.name == "ttg.local_alloc":
        alloc = res.get("alloc_shape") or res["shape"]
        zeros = tuple(0 for _ in alloc)
        align = alloc_alignment(res, aliases)
        places[op.result] = (
            res,
            Place(op.result, op.line, 0, zeros, align, True, side_bytes(res, alloc=True)),
        )
        return
    src_name = op.operands[0] if op.operands else None
    src_text = op.src_type
    if src_text is None and src_name in places:
        src = places[src_name][0]
    elif src_text is not None:
        src = memdesc_side(src_text, aliases)
    else:
        report.notes.append(f"line {op.line}: {op.name} has no source type; skipped")
        return
    if src_name in places:
        place = places[src_name][1]
    else:
        place = _untraced(src, aliases)
        report.notes.append(
            f"line {op.line}: source {src_name} of {op.name} is not traced to a "
            "ttg.local_alloc (an argument or loop value); judged as its own allocation"
        )
    if op.name in JUDGED:
        report.views += 1
        request = _request(op, src, res, place, consts)
        request["attributes"] = {k: v for k, v in aliases.items() if v.startswith("#")}
        parsed = parse_request(request)
        verdict = check_facts(parsed.facts, profile)
        level = "error" if _escapes(place, src, parsed.facts) else "warning"
        for v in verdict.violations:
            report.findings.append(
                Finding(
                    rule=v.rule,
                    message=v.message,
                    op=op.name,
                    result=op.result,
                    line=op.line,
                    column=op.column,
                    values=dict(v.values),
                    fix=_fix(v.rule, op, parsed.facts, profile),
                    source=op.loc,
                    level=level if v.rule.startswith("alias.range") else "error",
                )
            )
    places[op.result] = (res, _next_place(op, place, src, res, consts))


# --- output ---------------------------------------------------------------------------------


def to_text(report: Report) -> str:
    lines = []
    for f in report.findings:
        values = ", ".join(f"{k}={v}" for k, v in f.values.items())
        lines.append(
            f"{report.path}:{f.line}:{f.column}: {f.level}: {f.message} [{f.rule}] "
            f"({f.op} {f.result}{'; ' + values if values else ''})"
        )
        lines.append(f"  fix: {f.fix}")
        if f.source:
            lines.append(f"  kernel source: {f.source}")
    n = len(report.findings)
    lines.append(
        f"{n} finding{'s' if n != 1 else ''} in {report.views} view"
        f"{'s' if report.views != 1 else ''} (profile {report.profile})"
    )
    return "\n".join(lines)


def to_json(report: Report) -> dict[str, Any]:
    return {
        "file": report.path,
        "profile": report.profile,
        "views": report.views,
        "findings": [f.to_json() for f in report.findings],
        "notes": report.notes,
    }


def to_sarif(report: Report) -> dict[str, Any]:
    """A SARIF 2.1.0 log: one run, the profile's rules as reportingDescriptors."""
    rules = list(rules_for(report.profile)) or list(RULES)
    index = {r.id: i for i, r in enumerate(rules)}
    uri = "stdin" if report.path == "-" else Path(report.path).as_posix()
    results = []
    for f in report.findings:
        result: dict[str, Any] = {
            "ruleId": f.rule,
            "level": f.level,
            "message": {"text": f"{f.message} ({f.op} {f.result}). Fix: {f.fix}"},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": uri},
                        "region": {"startLine": f.line, "startColumn": f.column},
                    }
                }
            ],
            "properties": {"values": f.values, "op": f.op},
        }
        if f.rule in index:
            result["ruleIndex"] = index[f.rule]
        if f.source:
            file, _, rest = f.source.rpartition(":")
            file2, _, line = file.rpartition(":")
            if line.isdigit() and rest.isdigit():
                result["relatedLocations"] = [
                    {
                        "id": 0,
                        "message": {"text": "kernel source"},
                        "physicalLocation": {
                            "artifactLocation": {"uri": file2},
                            "region": {"startLine": max(int(line), 1),
                                       "startColumn": max(int(rest), 1)},
                        },
                    }
                ]  # fmt: skip
        results.append(result)
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": TOOL,
                        "informationUri": INFO_URI,
                        "rules": [
                            {
                                "id": r.id,
                                "name": r.id.replace(".", "_"),
                                "shortDescription": {"text": r.title},
                                "fullDescription": {"text": r.prose},
                                "defaultConfiguration": {"level": "error"},
                                "properties": {"provenance": r.provenance},
                            }
                            for r in rules
                        ],
                    }
                },
                "results": results,
                "properties": {"profile": report.profile, "views": report.views},
            }
        ],
    }


def lint_text(text: str, path: str, profile: str) -> Report:
    return lint_module(read_module(text), path, profile)


def main(path: str, profile: str, fmt: str) -> int:
    """Lint one dump; 0 clean, 1 findings, 2 unreadable input (one line on stderr)."""
    if profile not in PROFILES:
        print(f"alias-spec lint: unknown profile {profile!r}", file=sys.stderr)
        return 2
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            text = Path(path).read_text()
        report = lint_text(text, path, profile)
    except (OSError, UnicodeDecodeError, MlirError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        print(f"alias-spec lint: cannot read {path}: {reason}", file=sys.stderr)
        return 2
    if fmt == "json":
        print(json.dumps(to_json(report), indent=2))
    elif fmt == "sarif":
        print(json.dumps(to_sarif(report), indent=2))
    else:
        print(to_text(report))
    return 1 if report.findings else 0
