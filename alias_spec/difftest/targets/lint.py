"""``lint``: an IR module with one function per request: a ``ttg.local_alloc`` of the source's
allocation (or of a root buffer, then a ``tle.memdesc_alias`` at the source's base, whose
layout gives the source's alignment: 16 or an NVMMA swizzle repeat), a ``ttg.memdesc_subslice``
to the source view when it is one, then the request's op (``tle.memdesc_alias``,
``ttg.memdesc_reinterpret``, ``ttg.memdesc_subslice``, or ``ttg.memdesc_index`` with a
constant or a function argument as index). Read by ``alias-spec lint`` (one module per profile
and chunk); the facts and unknown facts it judges the op with, and its findings, are compared.

IR cannot say: what MLIR text cannot (``targets/mlir.py``), no layout, an offset that is no
int64, a scope or init_value, a request that defines its own attribute aliases.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from alias_spec.difftest.outcomes import Diff, compare_outcomes, compare_rules, expected_rules
from alias_spec.difftest.outcomes import PathOutcome as Outcome
from alias_spec.difftest.requests import ALIAS, IDX, RE, SUB
from alias_spec.difftest.targets import (
    Batch,
    Judges,
    attributes,
    by_op,
    default_alignment,
    nothing_missing,
    static,
)
from alias_spec.difftest.targets.mlir import SOURCE_ONLY, Names, side_text
from alias_spec.engines.base import INT64_MIN
from alias_spec.frontend.tle.args import is_int
from alias_spec.model.catalogue import PROFILES
from alias_spec.model.dtypes import DTYPE_BITS
from alias_spec.model.facts import INT64_MAX, OPS, elem_bytes
from alias_spec.model.layouts import Layout
from alias_spec.model.physical import DEFAULT_ALIGNMENT

NAME = "lint"
OP_ALIAS = OPS[ALIAS]


@dataclass
class Module:
    """One function per request: its text and the SSA name of the judged op."""

    funcs: list[str] = field(default_factory=list)
    names: Names = field(default_factory=Names)
    judged: list[str] = field(default_factory=list)  # function name -> judged op result

    def text(self) -> str:
        aliases = [f"{k} = {v}" for k, v in self.names.attrs.items()]
        body = "\n".join(self.funcs)
        return "\n".join([*aliases, "module {", body, "}", ""])


def root_layout(align: int) -> dict[str, Any] | None:
    """A root allocation layout whose allocation alignment is ``align`` (16 or an NVMMA swizzle
    repeat); None if no layout gives that alignment."""
    if align == DEFAULT_ALIGNMENT:
        return {"kind": "swizzled", "vec": 1, "per_phase": 1, "max_phase": 1, "order": [1, 0]}
    for swz in (32, 64, 128):
        if Layout("nvmma", swz).swizzle_repeat == align:
            return {
                "kind": "nvmma",
                "swizzle_bytes": swz,
                "transposed": False,
                "element_bitwidth": 8,
                "rank": 2,
            }
    return None


class _NoInit:
    """``init_value`` absent, null or false (``0 == False`` in Python: compared by identity)."""

    def __contains__(self, v: Any) -> bool:
        return v is None or v is False


_NO_INIT = _NoInit()


def lint_function(req: dict[str, Any], fname: str, names: Names, out: str = "%out") -> str | None:
    """A function whose last view is the request's op on a source placed as the request says,
    or None when an IR module cannot express the request."""
    op = req.get("op", ALIAS)
    if op not in (ALIAS, RE, SUB, IDX):
        return None
    src, res = req["source"], req["result"]
    if op == ALIAS:
        off = req.get("alias_offset_bytes", 0)
        if not is_int(off) or not INT64_MIN <= off <= INT64_MAX:
            return None
        if req.get("scope", "smem") != "smem" or req.get("init_value", None) not in _NO_INIT:
            return None
    for who, side in (("source", src), ("result", res)):
        if not isinstance(side, dict) or side.get("layout") is None:
            return None  # no layout: an IR type always has one
        if who == "result" and set(side) & set(SOURCE_ONLY):
            return None
    attrs = attributes(req)
    base = src.get("base_offset_bytes", 0)
    align = src.get("alloc_alignment", default_alignment(src, attrs))
    if not is_int(base) or base < 0 or not is_int(align):
        return None
    plain = {k: v for k, v in src.items() if k not in SOURCE_ONLY}
    alloc_shape = src.get("alloc_shape") or src.get("shape")
    offs = src.get("view_offsets")
    subview = "alloc_shape" in src or (offs is not None and any(offs))
    whole = {k: v for k, v in plain.items() if k != "alloc_shape"}
    whole["shape"] = alloc_shape
    src_t = side_text(plain, "source", names.name, attrs)
    res_t = side_text(res, "result", names.name, attrs)
    whole_t = side_text(whole, "source", names.name, attrs)
    if src_t is None or res_t is None or whole_t is None or not static(alloc_shape):
        return None
    if offs is not None and (not static(offs) or len(offs) != len(alloc_shape)):
        return None
    args = ["%i: i32"] if op == IDX and req.get("index") is None else []
    lines = [f"  tt.func @{fname}({', '.join(args)}) {{"]
    if base == 0 and align == default_alignment(src, attrs):
        lines.append(f"    %a = ttg.local_alloc : () -> {whole_t}")
    else:
        root_lay = root_layout(align)
        if root_lay is None:
            return None
        if not isinstance(src["dtype"], str) or src["dtype"] not in DTYPE_BITS:
            return None
        elem = elem_bytes(DTYPE_BITS[src["dtype"]])
        rows = (base + math.prod(alloc_shape) * elem) // 128 + 1
        root_t = side_text(
            {"shape": [rows, 128], "dtype": "i8", "layout": root_lay}, "source", names.name, attrs
        )
        lines.append(f"    %r = ttg.local_alloc : () -> {root_t}")
        lines.append(
            f"    %a = tle.memdesc_alias %r {{offset_bytes = {base} : i64}} : {root_t} -> {whole_t}"
        )
    cur = "%a"
    if subview:
        o = ", ".join(str(x) for x in (offs or [0] * len(alloc_shape)))
        lines.append(f"    %v = ttg.memdesc_subslice %a[{o}] : {whole_t} -> {src_t}")
        cur = "%v"
    if op == ALIAS:
        lines.append(
            f"    {out} = tle.memdesc_alias {cur} {{offset_bytes = "
            f"{req.get('alias_offset_bytes', 0)} : i64}} : {src_t} -> {res_t}"
        )
    elif op == RE:
        lines.append(f"    {out} = ttg.memdesc_reinterpret {cur} : {src_t} -> {res_t}")
    elif op == SUB:
        offsets = req.get("offsets")
        if not isinstance(offsets, list) or not all(is_int(x) for x in offsets):
            return None
        o = ", ".join(str(x) for x in offsets)
        lines.append(f"    {out} = ttg.memdesc_subslice {cur}[{o}] : {src_t} -> {res_t}")
    else:
        index = req.get("index")
        if index is None:
            idx = "%i"
        elif is_int(index) and INT64_MIN <= index <= INT64_MAX:
            ty = "i32" if -(2**31) <= index < 2**31 else "i64"
            lines.append(f"    %c = arith.constant {index} : {ty}")
            idx = "%c"
        else:
            return None
        lines.append(f"    {out} = ttg.memdesc_index {cur}[{idx}] : {src_t} -> {res_t}")
    lines += ["    tt.return", "  }"]
    return "\n".join(lines)


def lint_outcomes(
    reqs: Sequence[dict[str, Any] | None], profiles: Sequence[str]
) -> list[Outcome | None]:
    """Each expressible request's view judged by lint (None where it cannot be written):
    one module per profile holding one function per request, its judged op named ``%o<i>``."""
    from alias_spec.lint import lint as lint_mod

    out: list[Outcome | None] = [None] * len(reqs)
    modules: dict[str, Module] = {}
    for i, (req, profile) in enumerate(zip(reqs, profiles, strict=True)):
        if req is None or req.get("attributes"):
            continue  # a request's own attribute aliases would clash across functions
        mod = modules.setdefault(profile, Module(names=Names()))
        fn = lint_function(req, f"f{i}", mod.names, f"%o{i}")
        if fn is None:
            continue
        mod.funcs.append(fn)
        mod.judged.append(f"%o{i}")
    for profile, mod in modules.items():
        if not mod.funcs:
            continue
        # Fixes (z3) are not compared: each finding gets its rule's advice instead.
        report = lint_mod.lint_text(mod.text(), "request", profile, fixes=False)
        seen: dict[str, list[tuple[Any, frozenset[str]]]] = {}
        for j in report.judged:  # each view at each place lint judged it at
            seen.setdefault(j.result, []).append((j.facts, j.unknown))
        findings: dict[str, list[str]] = {}
        for f in report.findings:
            findings.setdefault(f.result, []).append(f.rule)
        unread = {n.result: n.message for n in report.notices if n.kind == "lint.unread"}
        for name in mod.judged:
            i = int(name[2:])
            if name in unread:
                out[i] = Outcome(error=unread[name])
            elif len(seen.get(name, [])) != 1:
                out[i] = Outcome(error=f"lint judged the view at {len(seen.get(name, []))} places")
            else:
                facts, unknown = seen[name][0]
                out[i] = Outcome(
                    facts=facts, unknown=unknown, verdicts={profile: tuple(findings.get(name, []))}
                )
    return out


status = prepare = nothing_missing  # lint is part of the package


def outcomes(batch: Batch) -> list[Outcome | None]:
    # The profiles take turns, so that a run sees each one's findings.
    profiles = [
        list(PROFILES)[(batch.start + i) % len(PROFILES)] for i in range(len(batch.canonical))
    ]
    return lint_outcomes(batch.canonical, profiles)


def labels(batch: Batch, i: int) -> tuple[str, ...]:
    return by_op(NAME, batch, i)


def compare(ref: Outcome, got: Outcome, judges: Judges) -> Diff | str | None:
    """The facts and unknown facts lint judged the view with, then its findings against the
    reference verdict."""
    diff = compare_outcomes(ref, got)
    if diff is not None or not got.verdicts or ref.facts is None:
        return diff
    from alias_spec.lint.lint import RANGE_PREFIX

    for profile, rules in got.verdicts.items():
        want, _ = expected_rules(judges.interp, ref, profile)
        if ref.facts.get("op") != OP_ALIAS:
            # lint judges a stock view's range rules by where the chain of views lands in its
            # allocation (not by its own source view): compared elsewhere.
            want = tuple(r for r in want if not r.startswith(RANGE_PREFIX))
            rules = tuple(r for r in rules if not r.startswith(RANGE_PREFIX))
        found = compare_rules(profile, want, rules)
        diff = found if found is not None else diff
    return diff
