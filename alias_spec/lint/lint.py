"""`alias-spec lint`: find unsafe shared-memory views in a TTGIR or MLIR dump.

Every ``ttg.memdesc_reinterpret``, ``ttg.memdesc_subslice``, ``ttg.memdesc_index`` and
``tle.memdesc_alias`` is followed back through the views before it (``memdesc_trans`` and
``memdesc_reshape`` included) and through control flow (loop-carried values, ``scf.if`` /
``scf.while`` results, block arguments, warp-specialize captures) to its allocation, turned into
one spec request per place its source can have, and judged by the chosen profile. A stock view
op is one step of a chain (the frontend lowers one alias to several), so its range rules are
judged by where it lands: its byte offset accumulated back to its allocation. Each violated
rule is a finding at the op's line and column, with the rule, the values that broke it, a fix,
and the kernel source line when the dump carries locations. What lint cannot judge (a source it
cannot trace, a layout or memory the spec does not model) is a notice naming the reason and the
rules left unjudged. Exit status, as ``alias-spec check``'s: 0 every view judged and no finding,
1 findings, 2 unreadable input, 3 no finding but some view or rule not judged (a notice).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field, replace
from math import prod
from typing import Any

from alias_spec.engines import registry
from alias_spec.ir import report as out
from alias_spec.ir.flows import Binding, Incoming
from alias_spec.ir.report import SARIF_SCHEMA as SARIF_SCHEMA
from alias_spec.ir.report import Finding, Note
from alias_spec.lint.mlir_views import (
    ALLOC_OPS,
    JUDGED,
    Function,
    MlirError,
    Module,
    Op,
    Place,
    alloc_alignment,
    element_bytes,
    memdesc_side,
    read_module,
    shown,
    side_bytes,
    unmodelled_layout,
    view_start,
)
from alias_spec.model.catalogue import PROFILES, RULES, rule, rules_for
from alias_spec.model.describe import describe
from alias_spec.model.errors import RequestError
from alias_spec.model.facts import elem_bytes
from alias_spec.model.request import Request, parse_request
from alias_spec.model.unknown import BYTE_FACTS as BYTE_FACTS
from alias_spec.model.unknown import LAYOUT_FACTS as LAYOUT_FACTS
from alias_spec.model.unknown import (
    PLACEMENT_FACTS,
    unjudged_rules,
    unmodelled_facts,
)
from alias_spec.model.verdict import Violation

TOOL = "alias-spec lint"


# Notice kinds, reported at SARIF level "note": what lint could not judge, and why.
NOTICES: dict[str, tuple[str, str]] = {
    "lint.untraced": (
        "View source not traced to an allocation",
        "The view's source could not be followed to one allocation (a function argument, "
        "values from different allocations, a place that changes on every iteration); the "
        "view is judged as if its source were its own allocation, and the rules that need "
        "the allocation's start are not judged.",
    ),
    "lint.unmodelled": (
        "Layout or memory the spec does not model",
        "The view or its allocation uses a layout other than swizzled or NVMMA shared, or "
        "tensor memory: where its bytes lie is unknown, so only the rules that do not need it "
        "are judged.",
    ),
    "lint.unread": (
        "View not judged",
        "The op's types, an attribute or a constant operand could not be read into a spec "
        "request; views built on its result are not traced.",
    ),
}


# Lint's notice is the shared "not judged" note (kept under its old name).
Notice = Note


@dataclass(frozen=True)
class Judged:
    """One view judged at one place: its op's result, the facts and the facts it could not
    know that it was judged with (what the request-level differential compares)."""

    result: str
    facts: dict[str, Any]
    unknown: frozenset[str]


@dataclass
class Report:
    path: str
    profile: str
    views: int = 0
    findings: list[Finding] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)
    judged: list[Judged] = field(default_factory=list)

    @property
    def notes(self) -> list[str]:
        return [str(n) for n in self.notices]


def _hint(rule_id: str) -> str:
    r = rule(rule_id)  # the catalogue keeps each rule's advice with the rule
    return r.hint or r.prose


def _fix(rule_id: str, op: Op, facts: dict[str, Any], profile: str, res_shape: Any = None) -> str:
    """The fix check gives (``semantics.fix.suggest``: the nearest offset, index or result
    size satisfying every offset and size rule), in the op's terms; the rule's advice when
    there is none or it would change nothing."""
    r = rule(rule_id)
    if r.fix:
        shape = res_shape if isinstance(res_shape, list) else None
        try:
            from alias_spec.semantics.fix import suggest
        except ImportError:  # z3 is not installed: the rule's advice instead
            return _hint(rule_id)
        text = _fix_text(suggest(facts, profile, r, shape), facts, shape)
        if text is not None:
            return text
    return _hint(rule_id)


def _fix_text(got: dict[str, Any] | None, facts: dict[str, Any], shape: Any) -> str | None:
    if not got:
        return None
    if "alias_offset_bytes" in got and got["alias_offset_bytes"] != facts.get("off"):
        return f"use offset_bytes = {got['alias_offset_bytes']}"
    if "index" in got and got["index"] != facts.get("idx"):
        return f"use index {got['index']}"
    if "result.shape[0]" in got and shape and got["result.shape[0]"] != shape[0]:
        return f"make the result's leading dim {got['result.shape[0]']}"
    return None


def _implied(facts: dict[str, Any], profile: str, ids: list[str]) -> dict[str, str]:
    """Which of these violations (all on ``facts``) another implies (semantics.fix)."""
    if len(ids) < 2:
        return {}
    try:
        from alias_spec.semantics.fix import implied_by
    except ImportError:  # z3 is not installed: every finding stands on its own
        return {}
    return implied_by(facts, profile, ids)


def _escapes(place: Place, src: dict[str, Any], facts: dict[str, Any]) -> bool:
    """The judged view's bytes (as the request's facts place them) leave the allocation."""
    if not place.size or not facts.get("off_int"):
        return False
    start = view_start(place, src) + int(facts["off"])
    end = start + int(facts["res_elems"]) * elem_bytes(int(facts["res_bits"]))
    return start < 0 or end > place.size


# Rules that compare the bytes a view covers with the bytes of its source.
RANGE_PREFIX = "alias.range."


@dataclass(frozen=True)
class Landing:
    """Where a view's bytes lie in its root allocation: bytes [start, start + span) hold every
    element it covers (a strided subview covers only some of them)."""

    start: int
    span: int
    size: int  # bytes of the allocation

    @property
    def escapes(self) -> bool:
        return self.start < 0 or self.start + self.span > self.size


def _span_elems(res: dict[str, Any], offsets: tuple[int, ...]) -> int | None:
    """Elements from a view's first covered element to one past its last, in its alloc shape
    (row-major); None when a dim is dynamic or the offsets do not match the alloc shape."""
    shape = res["shape"]
    alloc = res.get("alloc_shape") or shape
    if any(d is None or d < 0 for d in [*shape, *alloc]) or len(offsets) != len(alloc):
        return None
    if len(alloc) < len(shape):
        return None
    dims = [1] * (len(alloc) - len(shape)) + [int(d) for d in shape]
    if 0 in dims:
        return 0
    stride = [prod(int(a) for a in alloc[i + 1 :]) for i in range(len(alloc))]
    return sum((d - 1) * s for d, s in zip(dims, stride, strict=True)) + 1


def _landings(
    op: Op, place: Place, src: dict[str, Any], res: dict[str, Any], consts: dict[str, int]
) -> list[Landing] | None:
    """Where the op's result lands in its root allocation, for one place of its source (one
    landing per place the result can have: a runtime index has several); None when that is
    not known (the allocation's size, or the result's position in it)."""
    if place.size <= 0 or place.model is not None:
        return None
    out = []
    for q in _next_places(op, place, src, res, consts, None):
        span = _span_elems(res, q.offsets) if q.offsets is not None else None
        if span is None:
            return None
        out.append(Landing(view_start(q, res), span * element_bytes(res), q.size))
    return out


def _landing_request(land: Landing) -> dict[str, Any]:
    """The range question for a landed view as a spec request: its bytes as an alias of the
    whole allocation's bytes (both read as i8: the range rules compare bytes only)."""
    return {
        "source": {"shape": [land.size], "dtype": "i8"},
        "result": {"shape": [land.span], "dtype": "i8"},
        "alias_offset_bytes": land.start,
    }


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


# --- tracing --------------------------------------------------------------------------------
# Every memdesc value of a function gets the set of places it can have. A view maps each place
# of its source to its own; a block argument or region result (a Binding) is the union of what
# flows into it. Sets only grow, so iterating to a fixed point ends; a value that reaches more
# than CAP places, or places in different allocations, or that takes any value that is not
# traced, becomes Untraced with the reason.

CAP = 16
MAX_ROUNDS = 64


@dataclass(frozen=True)
class Untraced:
    reason: str  # what the value is, and why that has no known allocation ("X is <reason>")


Value = frozenset[Place] | Untraced


def _own_place(side: dict[str, Any], aliases: dict[str, str], why: str) -> Place:
    """An untraced value taken as its own allocation (where that starts is unknown)."""
    alloc = side.get("alloc_shape") or side["shape"]
    return Place("?", 0, 0, tuple(0 for _ in alloc), alloc_alignment(side, aliases), True,
                 side_bytes(side, alloc=True), why=why)  # fmt: skip


_MEMORY = {"tmem": "tensor memory", "global": "global memory"}


def _model(
    op: Op, src: dict[str, Any] | None, res: dict[str, Any], aliases: dict[str, str]
) -> str | None:
    """What of this op's types the spec does not model (None: everything is modelled)."""
    for who, side in (("source", src), ("result", res)):
        if side is None:
            continue
        where = f"the {who} of {op.name} {shown(op.result)}, line {op.line}"
        space = side.get("space", "smem")
        if space != "smem":
            return f"{_MEMORY.get(space, space)} ({where})"
        lay = unmodelled_layout(side, aliases)
        if lay:
            return f"layout {lay} ({where})"
    return None


def _next_places(
    op: Op, place: Place, src: dict[str, Any], res: dict[str, Any], consts: dict[str, int],
    model: str | None,
) -> list[Place]:  # fmt: skip
    """Where the op's result lives, following Triton 3.6's lowering of each view."""
    res_alloc = res.get("alloc_shape") or res["shape"]
    zeros = tuple(0 for _ in res_alloc)
    start = view_start(place, src)
    keep = replace(place, model=place.model or model)
    if op.name == "tle.memdesc_alias":
        return [replace(keep, base=start + int(op.attrs.get("offset_bytes", 0)), offsets=zeros)]
    if op.name == "ttg.memdesc_reinterpret":
        # The result is a fresh descriptor at the source view's first byte.
        return [replace(keep, base=start, offsets=zeros)]
    if op.name == "ttg.memdesc_index":
        size = prod(int(d or 0) for d in res["shape"]) * element_bytes(res)
        index = consts.get(op.operands[1]) if len(op.operands) > 1 else None
        if index is not None:
            return [replace(keep, base=start + index * size, offsets=zeros)]
        d0 = src["shape"][0]
        if d0 is None or d0 < 1:
            # Unknown buffer count: the spec's representative, buffer 1 (request.py).
            return [replace(keep, base=start + size, offsets=zeros, exact=False)]
        # A runtime index selects any of the d0 buffers (keeping it in bounds is the
        # program's duty, as request.py assumes). Later views are judged at buffers 0, 1 and
        # d0 - 1: the first start, the least aligned start (every rule's alignment test is a
        # power-of-2 modulus, and buffer i starts at i x a power-of-2 size) and the farthest
        # end (range and i32 rules grow with the start), so no other buffer can fail a rule
        # these three pass.
        return [replace(keep, base=start + i * size, offsets=zeros) for i in sorted({0, 1, d0 - 1})
                if i < d0]  # fmt: skip
    if op.name == "ttg.memdesc_subslice":
        offs = op.attrs.get("offsets", [])
        new = None
        if place.offsets is not None and len(place.offsets) >= len(offs):
            pad = len(place.offsets) - len(offs)
            new = tuple(o + (offs[i - pad] if i >= pad else 0) for i, o in enumerate(place.offsets))
        return [replace(keep, offsets=new)]
    # trans / reshape / tmem_subslice: the same bytes; known only for a whole dense block.
    dense = place.offsets is not None and not any(place.offsets)
    return [replace(keep, base=start, offsets=zeros if dense else None)]


class _Tracer:
    """The places of every memdesc value of one function, by a fixed point over its ops and
    bindings."""

    def __init__(self, fn: Function, aliases: dict[str, str]) -> None:
        self.fn = fn
        self.aliases = aliases
        self.values: dict[str, Value] = {}
        self.produced = {op.result for op in fn.ops} | {b.target for b in fn.bindings}
        self.sides: dict[int, tuple[dict[str, Any] | None, dict[str, Any]] | Exception] = {}
        self.side_of: dict[str, dict[str, Any]] = {}
        for op in fn.ops:
            try:
                res = memdesc_side(op.res_type, aliases) if op.res_type else None
                src = memdesc_side(op.src_type, aliases) if op.src_type else None
            except (RequestError, ValueError) as exc:
                self.sides[id(op)] = exc
                continue
            if res is None:
                self.sides[id(op)] = ValueError("no memdesc result type")
                continue
            self.sides[id(op)] = (src, res)
            self.side_of[op.result] = res

    def side(self, op: Op) -> tuple[dict[str, Any] | None, dict[str, Any]]:
        got = self.sides[id(op)]
        if isinstance(got, Exception):
            raise got
        src, res = got
        if src is None and op.name not in ALLOC_OPS and op.operands:
            src = self.side_of.get(op.operands[0])
        return src, res

    def lookup(self, name: str) -> Value | None:
        """The value's places; None while nothing has reached it yet."""
        if name in self.values:
            return self.values[name]
        if name in self.produced:
            return None
        what = self.fn.defs.get(name)
        if what:
            return Untraced(what)
        return Untraced(f"not defined in function @{self.fn.name}")

    def _transfer(self, op: Op) -> Value | None:
        # A type or layout that cannot be read (at any step: sides, layout, alignment) leaves
        # the result untraced with the reason, never a traceback.
        try:
            return self._transfer_read(op)
        except (RequestError, ValueError) as exc:
            return Untraced(f"the result of the {op.name} at line {op.line}, not read: {exc}")

    def _transfer_read(self, op: Op) -> Value | None:
        src, res = self.side(op)
        aliases = self.aliases
        unread = _unread(op, self.fn)
        if unread is not None:
            return Untraced(f"the result of the {op.name} at line {op.line}, not read: {unread}")
        if op.name in ALLOC_OPS:
            model = _model(op, None, res, aliases)
            zeros = tuple(0 for _ in res.get("alloc_shape") or res["shape"])
            size = side_bytes(res, alloc=True) if model is None else 0  # 0: unknown
            align = alloc_alignment(res, aliases)
            return frozenset({Place(op.result, op.line, 0, zeros, align, True, size, model=model)})
        if not op.operands or src is None:
            return Untraced(f"the result of the {op.name} at line {op.line}, which has no "
                            "source type")  # fmt: skip
        got = self.lookup(op.operands[0])
        if got is None:
            return None
        if isinstance(got, Untraced):
            why = f"{shown(op.operands[0])} is {got.reason}"
            places = [_own_place(src, aliases, why)]
        else:
            places = sorted(got, key=_order)
        model = _model(op, src, res, aliases)
        out: set[Place] = set()
        for p in places:
            out.update(_next_places(op, p, src, res, self.fn.constants, model))
        if len(out) > CAP:
            return Untraced(f"the result of the {op.name} at line {op.line}, which can be at "
                            f"more than {CAP} places")  # fmt: skip
        return frozenset(out)

    def _join(self, b: Binding) -> Value | None:
        places: set[Place] = set()
        roots: dict[str, Incoming] = {}
        for inc in b.incoming:
            got = self.lookup(inc.value)
            if got is None:
                continue
            where = f"{inc.via} {shown(inc.value)} (line {inc.line})"
            if isinstance(got, Untraced):
                inner = f"{shown(inc.value)} is {got.reason}"
                return Untraced(f"the {b.what}, and its {where} is not traced: {inner}")
            for p in got:
                if p.why is not None:
                    return Untraced(f"the {b.what}, and its {where} is not traced: {p.why}")
                roots.setdefault(p.root, inc)
            places |= got
        if not places:
            return None
        if len(roots) > 1:
            parts = ", ".join(
                f"{inc.via} {shown(inc.value)} (line {inc.line}) views {shown(root)}"
                for root, inc in roots.items()
            )
            return Untraced(f"the {b.what}, and its values come from different "
                            f"allocations: {parts}")  # fmt: skip
        if len(places) > CAP:
            later = ", ".join(f"{i.via} {shown(i.value)} (line {i.line})" for i in b.incoming[1:])
            return Untraced(f"the {b.what}, and its place changes on every iteration "
                            f"through {later or 'its operands'}")  # fmt: skip
        return frozenset(places)

    def run(self) -> None:
        steps: list[tuple[str, Binding | Op]] = [(b.target, b) for b in self.fn.bindings]
        steps += [(op.result, op) for op in self.fn.ops]
        for _ in range(MAX_ROUNDS):
            changed: list[str] = []
            for target, step in steps:
                old = self.values.get(target)
                if isinstance(old, Untraced):
                    continue  # the top of the lattice: nothing can change it
                new = self._join(step) if isinstance(step, Binding) else self._transfer(step)
                if new is not None and new != old:
                    self.values[target] = new
                    changed.append(target)
            if not changed:
                return
        for target in changed:  # still moving: give up on these only
            self.values[target] = Untraced(f"not settled after {MAX_ROUNDS} rounds")


def _order(p: Place) -> tuple[Any, ...]:
    return (p.root, p.base, p.offsets or (), p.exact)


# --- judging --------------------------------------------------------------------------------


def _unknown(op: Op, place: Place, model: str | None, parsed: Request) -> frozenset[str]:
    """What lint cannot know of this view: what its request cannot (``parsed.unknown``), where
    an untraced source starts, and, when the bytes it views are not modelled (on the way to it
    too, also for a view whose own layouts are modelled), what check leaves unknown for an
    unmodelled view: everything the byte and layout models give, less what its layouts
    state."""
    out = set(parsed.unknown)
    if place.why is not None:
        out |= PLACEMENT_FACTS
    if model is not None:
        out |= unmodelled_facts(op.name, *parsed.layouts)
    return frozenset(out)


def _unread(op: Op, fn: Function) -> str | None:
    """Why an attribute or constant operand of the op could not be read (None: all read)."""
    if "unread" in op.attrs:
        return str(op.attrs["unread"])
    if op.name == "ttg.memdesc_index" and len(op.operands) > 1:
        return fn.unread.get(op.operands[1])
    return None


def _judge(op: Op, tracer: _Tracer, report: Report, profile: str, fixes: bool) -> None:
    aliases = tracer.aliases
    unread = _unread(op, tracer.fn)
    if unread is not None:
        report.notices.append(_notice(op, "lint.unread", f"not judged: {unread}"))
        return
    src, res = tracer.side(op)
    if src is None:
        report.notices.append(_notice(op, "lint.unread", "has no source type; not judged"))
        return
    src_name = op.operands[0] if op.operands else "?"
    got = tracer.lookup(src_name)
    if not isinstance(got, frozenset):
        reason = got.reason if isinstance(got, Untraced) else "reached by no traced value"
        places = [_own_place(src, aliases, f"{shown(src_name)} is {reason}")]
    else:
        places = sorted(got, key=_order)
    report.views += 1
    model = _model(op, src, res, aliases)
    consts = tracer.fn.constants
    # A stock view op is one step of a chain (the frontend lowers one alias to several); what
    # matters is where the chain lands, so its range rules are judged against its root
    # allocation rather than its own source view. A tle.memdesc_alias is the user's alias
    # itself: it must stay inside its source view (FlagTree's design), so it keeps its own.
    by_root = op.name != "tle.memdesc_alias" and any(
        r.id.startswith(RANGE_PREFIX) for r in rules_for(profile)
    )
    found: dict[str, tuple[Violation, dict[str, Any], list[tuple[Place, bool]], str | None]] = {}
    landed: dict[int, list[Landing]] = {}  # view start -> where the result lands from there
    skipped: set[str] = set()
    for place in places:
        here = place.model or model
        request = _request(op, src, res, place, consts)
        request["attributes"] = {k: v for k, v in aliases.items() if v.startswith("#")}
        parsed = parse_request(request)
        unknown = _unknown(op, place, here, parsed)
        violations, not_judged = registry.judge_facts(parsed.facts, profile, unknown)
        if by_root and here is not None:
            # A chain step's range rules are judged where the chain lands in its root, which
            # bytes the spec does not model cannot place: its offset and sizes there are unknown.
            landing = frozenset({"off", "src_elems", "res_elems"})
            unplaced = [r for r in unjudged_rules(parsed.facts, profile, landing)
                        if r.startswith(RANGE_PREFIX)]  # fmt: skip
            violations = [v for v in violations if v.rule not in unplaced]
            not_judged = list(dict.fromkeys([*not_judged, *unplaced]))
        report.judged.append(Judged(shown(op.result), dict(parsed.facts), unknown))
        escapes = here is None and _escapes(place, src, parsed.facts)
        lands = _landings(op, place, src, res, consts) if by_root and here is None else None
        # (violation, the facts it was judged on, what implies it on those facts)
        judged = [(v, parsed.facts) for v in violations]
        if lands is not None:
            landed[view_start(place, src)] = lands
            judged = [(v, f) for v, f in judged if not v.rule.startswith(RANGE_PREFIX)]
            not_judged = [r for r in not_judged if not r.startswith(RANGE_PREFIX)]
            for land in lands:
                land_facts = parse_request(_landing_request(land)).facts
                got, left = registry.judge_facts(land_facts, profile, frozenset())
                judged += [(v, land_facts) for v in got if v.rule.startswith(RANGE_PREFIX)]
                not_judged += [r for r in left if r.startswith(RANGE_PREFIX)]
            escapes = any(land.escapes for land in lands)
        skipped.update(not_judged)
        new = [(v, f) for v, f in judged if v.rule not in found]
        groups: dict[int, list[str]] = {}
        for v, f in new:
            groups.setdefault(id(f), []).append(v.rule)
        facts_of = {id(f): f for _, f in new}
        implied = {r: by for key, ids in groups.items()
                   for r, by in _implied(facts_of[key], profile, ids).items()}  # fmt: skip
        for v, _ in judged:
            # The fix is the op's own (its offset, index or result in its own request).
            first, facts, at, by = found.get(v.rule, (v, parsed.facts, [], implied.get(v.rule)))
            if (place, escapes) not in at:
                at = [*at, (place, escapes)]
            found[v.rule] = (first, facts, at, by)
    for rule_id, (v, facts, at, by) in found.items():
        escapes = any(esc for _, esc in at)
        report.findings.append(
            Finding(
                rule=v.rule,
                message=v.message,
                function=tracer.fn.name,
                op=op.name,
                result=shown(op.result),
                line=op.line,
                column=op.column,
                values=dict(v.values),
                values_text=describe(dict(v.values)),
                fix=_fix(v.rule, op, facts, profile, res.get("shape")) if fixes else _hint(v.rule),
                source=op.loc,
                level=("error" if escapes else "warning")
                if rule_id.startswith("alias.range")
                else "error",
                context=_context(
                    src_name, src, places, at, landed if rule_id.startswith(RANGE_PREFIX) else {}
                ),  # fmt: skip
                implied_by=by if by in found else None,
            )
        )
    why = places[0].why
    here = places[0].model or model
    if why is None and not (here and skipped):
        return
    parts = []
    if why is not None:
        parts.append(f"source {shown(src_name)} is not traced to an allocation: {why}; "
                     "judged as its own allocation")  # fmt: skip
    if here:
        parts.append(f"the spec does not model {here}")
    if skipped:
        parts.append("not judged: " + ", ".join(sorted(skipped)))
    kind = "lint.untraced" if why is not None else "lint.unmodelled"
    report.notices.append(_notice(op, kind, "; ".join(parts)))


def _context(
    name: str,
    src: dict[str, Any],
    places: list[Place],
    at: list[tuple[Place, bool]],
    landed: dict[int, list[Landing]],
) -> str | None:
    """Where the source can be, when that matters: it can be at several places and the rule
    fails at some of them only, or the view leaves the allocation from some of them; and,
    for a view judged by where it lands, the bytes it covers in its allocation."""
    out = _places_context(name, src, places, at)
    failed = {view_start(p, src) for p, _ in at}
    spans = sorted(
        {(land.start, land.start + land.span, land.size)
         for start, lands in landed.items() if start in failed for land in lands
         if land.escapes}
    )  # fmt: skip
    if spans:
        root = shown(places[0].root)
        covers = ", ".join(f"[{a}, {b})" for a, b, _ in spans)
        where = "its own type's allocation" if root == "?" else root
        text = f"the view covers bytes {covers} of {where} ({spans[0][2]} bytes)"
        out = f"{out}; {text}" if out else text
    return out


def _places_context(
    name: str, src: dict[str, Any], places: list[Place], at: list[tuple[Place, bool]]
) -> str | None:
    if len(places) < 2:
        return None
    starts = sorted({view_start(p, src) for p in places})
    fails = sorted({view_start(p, src) for p, _ in at})
    leaves = sorted({view_start(p, src) for p, esc in at if esc})
    if fails == starts and not leaves:
        return None
    out = f"source {shown(name)} can start at byte {_list(starts)} of {shown(places[0].root)}"
    if fails != starts and fails != leaves:
        out += f"; the rule fails at byte {_list(fails)}"
    if leaves:
        out += f"; from byte {_list(leaves)} the view leaves the allocation"
    return out


def _list(xs: list[int]) -> str:
    return ", ".join(str(x) for x in xs)


def _notice(op: Op, kind: str, message: str) -> Notice:
    return Note(kind, f"{op.name} {shown(op.result)}: {message}", op.line, op.column,
                op=op.name, result=shown(op.result))  # fmt: skip


def lint_module(module: Module, path: str, profile: str, fixes: bool = True) -> Report:
    """Every judged op of ``module``; ``fixes=False`` gives each finding its rule's advice
    instead of asking z3 for the nearest fix."""
    report = Report(path, profile)
    for fn in module.functions:
        tracer = _Tracer(fn, module.aliases)
        tracer.run()
        for op in fn.ops:
            if op.name not in JUDGED:
                continue
            try:
                _judge(op, tracer, report, profile, fixes)
            except (RequestError, ValueError) as exc:
                report.notices.append(_notice(op, "lint.unread", f"not judged: {exc}"))
    return report


# --- output ---------------------------------------------------------------------------------


def _run(report: Report) -> out.Run:
    """The report as the shared reporter's run: the profile's rules, then the notice kinds."""
    rules = list(rules_for(report.profile)) or list(RULES)
    kinds = [out.Kind(r.id, r.title, r.prose, "error", {"provenance": r.provenance})
             for r in rules]  # fmt: skip
    kinds += [out.Kind(k, title, prose, "note") for k, (title, prose) in NOTICES.items()]
    return out.Run(TOOL, report.path, report.findings, report.notices, kinds,
                   {"profile": report.profile, "views": report.views},
                   level_in_json=True)  # fmt: skip


def to_text(report: Report) -> str:
    n = len(report.findings)
    k = len(report.notices)
    summary = (
        f"{n} finding{'s' if n != 1 else ''} in {report.views} view"
        f"{'s' if report.views != 1 else ''} (profile {report.profile})"
        + (f", {k} note{'s' if k != 1 else ''}" if k else "")
    )
    return out.to_text(_run(report), summary)


def to_json(report: Report) -> dict[str, Any]:
    got = out.to_json(_run(report), {"profile": report.profile, "views": report.views},
                      notes_key="notices")  # fmt: skip
    # "notes" (the notices as lines of text) stays where it always was, before "notices".
    notices = got.pop("notices")
    return {**got, "notes": report.notes, "notices": notices}


def to_sarif(report: Report) -> dict[str, Any]:
    """A SARIF 2.1.0 log: one run, the profile's rules as reportingDescriptors, then the
    notice kinds (results at level "note")."""
    return out.to_sarif(_run(report))


def lint_text(text: str, path: str, profile: str, fixes: bool = True) -> Report:
    return lint_module(read_module(text), path, profile, fixes)


def exit_status(report: Report) -> int:
    """1 findings; else 3 when anything was not judged (every notice names something lint
    could not judge, as check's "partial"); else 0: clean only when everything was judged."""
    if report.findings:
        return 1
    return 3 if report.notices else 0


def main(path: str, profile: str, fmt: str) -> int:
    """Lint one dump; exit status as ``exit_status`` (2 unreadable input: one line on stderr in the
    command line's style, ``alias-spec: error: WHERE: problem``; WHERE is the file, ``input``
    for stdin, or the option at fault)."""
    from alias_spec.ir.inputs import InputError, read_text, shown

    name = shown(path)
    if profile not in PROFILES:
        _error(f"--profile: unknown profile {profile!r}")
        return 2
    try:
        text = read_text(path)  # bounded, as every command's input
    except InputError as exc:
        _error(str(exc))
        return 2
    try:
        report = lint_text(text, path, profile)
    except MlirError as exc:  # read, but not a module this reader understands
        _error(f"{name}: {exc}")
        return 2
    if fmt == "json":
        print(json.dumps(to_json(report), indent=2))
    elif fmt == "sarif":
        print(json.dumps(to_sarif(report), indent=2))
    else:
        print(to_text(report))
    return exit_status(report)


def _error(text: str) -> None:
    line = " ".join(f"alias-spec: error: {text}".split())
    print(line.encode("ascii", "backslashreplace").decode(), file=sys.stderr)
