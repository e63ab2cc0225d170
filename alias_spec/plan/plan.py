"""Recover a kernel's shared-memory plan and prove it: no two live buffers share a byte.

The plan comes from the Triton release itself (``runner.allocate``: its allocation pass, run
on the TTGIR) or, for a module that already carries ``allocation.offset`` attributes (a
FlagTree dump), from those attributes. Each buffer is a root with a byte range relative to its
function's base: a ``ttg.local_alloc`` (views and ``tle.memdesc_alias`` results belong to it),
an op's scratch, a call's frame (the callee's whole plan, placed at the call's offset).

The proof, per function: every buffer lies inside the function's space (the kernel's
``ttg.shared``, a callee's frame size), and two buffers of different roots whose live ranges
(``liveness.py``) meet share no byte. A call's frame is live at the call, so everything live
across the call must avoid it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from alias_spec.ir.report import Finding, Note
from alias_spec.ir.ttgir import Function, Module, Op, read_module
from alias_spec.model.dtypes import DTYPE_BITS
from alias_spec.model.facts import elem_bytes
from alias_spec.plan.liveness import function_range, live_ranges, point_range

ALLOC_OPS = {"ttg.local_alloc"}
AT_LEAST_ONE = "at least its first byte (its size is unknown)"
CALL_OPS = {"tt.call"}
_MEMDESC = re.compile(r"!ttg\.memdesc<((?:[^,>x]+x)*)([a-zA-Z]\w*)\s*(?:,\s*([^,>]+))?")
_DEBUG_BUFFER = re.compile(
    r"^-- buffer (\d+); value: (?:%[\w#:.$-]+(?:, %[\w#:.$-]+)* = )?\"?([\w.]+)"
)
_DEBUG_RANGE = re.compile(r"^-- (\d+) (\d+) (\d+) interval")
_DEBUG_DONE = re.compile(r"^Allocated: (\d+)")
# A buffer live over the whole function (the warp-specialize state bytes Triton places on the
# function itself): its range line has no value line before it.
_DEBUG_WHOLE = re.compile(r"^-- \d+ (\d+) (\d+) interval 0 18446744073709551615$", re.M)
_CALLEE = re.compile(r'@("(?:[^"\\]|\\.)*"|[\w.$-]+)')


@dataclass
class Buffer:
    kind: str  # "alloc", "scratch", "frame"
    function: str
    op: Op
    offset: int | None
    size: int | None
    size_from: str  # "allocator", "attribute", "type", or why it is unknown
    live: tuple[int, int] = (0, 0)
    callee: str | None = None

    @property
    def label(self) -> str:
        result = self.op.results[0] if self.op.results else ""
        if self.kind == "alloc":
            return f"{result} ({self.op.name})"
        if self.kind == "state":
            return f"warp-specialize state of @{self.function}"
        if self.kind == "frame":
            return f"frame of call @{self.callee}"
        return f"scratch of {self.op.name}{' ' + result if result else ''}"

    def bytes(self) -> str:
        if self.offset is None or self.size is None:
            return "[?]"
        if self.size_from == AT_LEAST_ONE:
            return f"[{self.offset}, {self.offset + 1} or more)"
        return f"[{self.offset}, {self.offset + self.size})"

    def to_json(self) -> dict[str, Any]:
        return {
            "buffer": self.label,
            "kind": self.kind,
            "function": self.function,
            "offset": self.offset,
            "size": self.size,
            "size_from": self.size_from,
            "line": self.op.line,
            "live": list(self.live),
        }


@dataclass
class Report:
    path: str
    plan_from: str  # "triton X.Y.Z" or "the module's allocation.offset attributes"
    shared: int | None
    buffers: list[Buffer] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)  # each one: something not judged
    # callee -> (caller, frame offset, frame size) per call site; None where unknown
    frames: dict[str, list[tuple[str, int | None, int | None]]] = field(default_factory=dict)
    lowering: str = "not checked"
    llir_path: str | None = None

    @property
    def status(self) -> str:
        if self.findings:
            return "findings"
        return "partial" if self.notes else "clean"


# --- the plan ---------------------------------------------------------------------------------


def _elem_bytes(dtype: str) -> int | None:
    bits = DTYPE_BITS.get(dtype)
    if bits is None:
        return None
    return elem_bytes(bits) if bits % 8 == 0 or bits < 8 else None


def type_bytes(op: Op, aliases: dict[str, str]) -> int | None:
    """An allocation's size from its memdesc type, where the layout places elements densely
    (a padded layout adds bytes this reader does not model: None)."""
    m = _MEMDESC.search(op.result_types() or op.text)
    if not m:
        return None
    dims_text, dtype, layout = m.group(1), m.group(2), (m.group(3) or "").strip()
    layout_text = aliases.get(layout, layout)
    if "padded" in layout_text or "tensor_memory" in op.text or "#ttng.tensor" in layout_text:
        return None
    dims = [d for d in dims_text.split("x") if d]
    if not all(d.isdigit() for d in dims):
        return None
    size = _elem_bytes(dtype)
    if size is None:
        return None
    for d in dims:
        size *= int(d)
    return size


def parse_debug(text: str) -> list[tuple[list[tuple[str, int, int]], int | None]]:
    """The allocator's debug output as one entry per function: its buffers (op name, size,
    offset) in buffer-id order and the function's allocated size."""
    blocks: list[tuple[list[tuple[str, int, int]], int | None]] = []
    names: dict[int, str] = {}
    ranges: dict[int, tuple[int, int]] = {}
    for line in text.splitlines():
        b = _DEBUG_BUFFER.match(line)
        if b:
            if int(b.group(1)) == 0 and ranges:  # a new function without a closing line
                blocks.append(([(names[i], *ranges[i]) for i in sorted(ranges) if i in names],
                               None))  # fmt: skip
                names, ranges = {}, {}
            names[int(b.group(1))] = b.group(2)
            continue
        r = _DEBUG_RANGE.match(line)
        if r:
            ranges[int(r.group(1))] = (int(r.group(2)), int(r.group(3)))
            continue
        d = _DEBUG_DONE.match(line)
        if d:
            buffers = [(names[i], *ranges[i]) for i in sorted(ranges) if i in names]
            blocks.append((buffers, int(d.group(1))))
            names, ranges = {}, {}
    return blocks


def _alloc_ops(fn: Function) -> list[Op]:
    return [op for op in fn.ops if "allocation.offset" in op.attrs or op.name in ALLOC_OPS]


def _debug_sizes(module: Module, debug: str) -> tuple[dict[int, int], dict[str, int]]:
    """Sizes the allocator reported: {id(op): size} and {function: allocated size}, matching
    each debug block to the function with the same (op, offset) multiset."""
    sizes: dict[int, int] = {}
    fn_sizes: dict[str, int] = {}
    keys = {
        fn.name: sorted((op.name, op.attrs.get("allocation.offset", -1)) for op in _alloc_ops(fn)
                        if "allocation.offset" in op.attrs)
        for fn in module.functions
    }  # fmt: skip
    used: set[str] = set()
    for buffers, total in parse_debug(debug):
        key = sorted((name, offset) for name, _, offset in buffers)
        fn = next((f for f in module.functions if f.name not in used and keys[f.name] == key),
                  None)  # fmt: skip
        if fn is None:
            continue
        used.add(fn.name)
        if total is not None:
            fn_sizes[fn.name] = total
        queue: dict[tuple[str, int], list[int]] = {}
        for name, size, offset in buffers:
            queue.setdefault((name, offset), []).append(size)
        for op in _alloc_ops(fn):
            q = queue.get((op.name, op.attrs.get("allocation.offset", -1)))
            if q:
                sizes[id(op)] = q.pop(0)
    return sizes, fn_sizes


def callee_of(op: Op) -> str | None:
    m = _CALLEE.search(op.head)
    return m.group(1).strip('"') if m else None


def _map_ops(source: Module, planned: Module) -> dict[int, Op] | str:
    """Each op of the planned module that carries an offset, to the same op of the source
    (same function, same op name, same occurrence); a one-line reason if they do not match."""
    out: dict[int, Op] = {}
    for pfn in planned.functions:
        sfn = source.function(pfn.name)
        if sfn is None:
            return f"the allocation pass added function @{pfn.name}"
        names = {op.name for op in _alloc_ops(pfn)}
        for name in names:
            p_ops = [op for op in pfn.ops if op.name == name]
            s_ops = [op for op in sfn.ops if op.name == name]
            if len(p_ops) != len(s_ops):
                return (f"the allocation pass changed the {name} ops of @{pfn.name} "
                        f"({len(s_ops)} before, {len(p_ops)} after)")  # fmt: skip
            for p, s in zip(p_ops, s_ops, strict=True):
                out[id(p)] = s
    return out


def build_plan(
    source: Module, planned: Module, debug: str, report: Report
) -> tuple[Module, list[Buffer]]:
    """The buffers of every function, placed on the ops of the module analysed for liveness
    (the source when its ops map one to one onto the planned module, else the planned one)."""
    sizes, fn_sizes = _debug_sizes(planned, debug)
    mapping = _map_ops(source, planned) if source is not planned else {}
    analysed = source
    if isinstance(mapping, str):
        report.notes.append(Note("plan.positions", f"{mapping}: lines and columns below are "
                                 "those of the module after allocation", 1, 1))  # fmt: skip
        analysed, mapping = planned, {}
    buffers: list[Buffer] = []
    for pfn in planned.functions:
        for pop in _alloc_ops(pfn):
            op = mapping.get(id(pop), pop) if analysed is source else pop
            offset = pop.attrs.get("allocation.offset")
            if id(pop) in sizes:
                size, size_from = sizes[id(pop)], "allocator"
            elif "allocation.size" in pop.attrs:
                size, size_from = pop.attrs["allocation.size"], "attribute"
            elif pop.name in ALLOC_OPS:
                size = type_bytes(pop, planned.loc_aliases)
                size_from = "type" if size is not None else "unknown"
            elif pop.name in CALL_OPS:
                callee = callee_of(pop)
                size = fn_sizes.get(callee or "")
                size_from = "allocator" if size is not None else "unknown"
            else:
                size, size_from = None, "unknown"
            kind = "alloc" if pop.name in ALLOC_OPS else "frame" if pop.name in CALL_OPS else (
                "scratch")  # fmt: skip
            buf = Buffer(kind, pfn.name, op, offset, size, size_from)
            if kind == "frame":
                buf.callee = callee_of(pop)
            buffers.append(buf)
        if "allocation.offset" in pfn.attrs:
            buffers.append(_state_buffer(pfn, analysed.function(pfn.name) or pfn, debug))
    # Frame sizes missing from the allocator: the callee's extent, when all of it is known.
    for buf in buffers:
        if buf.kind == "frame" and buf.size is None and buf.callee:
            inner = [b for b in buffers if b.function == buf.callee]
            if inner and all(b.offset is not None and b.size is not None for b in inner):
                buf.size = max(b.offset + b.size for b in inner)  # type: ignore[operator]
                buf.size_from = "callee's buffers"
            elif not inner:
                buf.size, buf.size_from = 0, "callee's buffers"
    return analysed, buffers


def _state_buffer(planned: Function, fn: Function, debug: str) -> Buffer:
    """The bytes Triton places on a function that holds ``ttg.warp_specialize`` (one state byte
    per partition warp, read by the partitions' warps while they wait): live over the whole
    function. Its size comes from the allocator's debug output (the range at this offset that
    spans the whole function)."""
    offset = planned.attrs["allocation.offset"]
    sizes = [int(m.group(1)) for m in _DEBUG_WHOLE.finditer(debug) if int(m.group(2)) == offset]
    size = planned.attrs.get("allocation.size", max(sizes) if sizes else None)
    size_from = ("attribute" if "allocation.size" in planned.attrs else
                 "allocator" if sizes else "unknown")  # fmt: skip
    op = Op("tt.func", -1, fn.line, 1, [], [], [], f"tt.func @{fn.name}")
    return Buffer("state", planned.name, op, offset, size, size_from)


# --- the proof --------------------------------------------------------------------------------


def _point(fn: Function, pos: int) -> Op:
    """The op at a position (a label stands for the block it opens)."""
    return fn.ops[pos]


def prove(module: Module, buffers: list[Buffer], report: Report) -> None:
    shared = report.shared
    frames: dict[str, list[Buffer]] = {}
    for buf in buffers:
        if buf.kind == "frame" and buf.callee:
            frames.setdefault(buf.callee, []).append(buf)
    for fn in module.functions:
        mine = [b for b in buffers if b.function == fn.name]
        if not mine:
            continue
        roots = {b.op.results[0] for b in mine if b.kind == "alloc" and b.op.results}
        ranges = live_ranges(fn, roots) if roots else {}
        for b in mine:
            if b.kind == "alloc" and b.op.results:
                b.live = ranges[b.op.results[0]]
            else:
                b.live = function_range(fn) if b.kind == "state" else point_range(fn, b.op.pos)
        calls = frames.get(fn.name, [])
        limit, space = (shared, "ttg.shared") if not calls else (None, "its frame")
        if calls:
            known = [c.size for c in calls if c.size is not None]
            limit = min(known) if len(known) == len(calls) else None
        for b in mine:
            if b.offset is None or b.size is None:
                report.notes.append(Note("plan.unsized", f"{b.label} in @{fn.name}: "
                                         f"{'offset' if b.offset is None else 'size'} unknown "
                                         "(not judged)", b.op.line, b.op.column))  # fmt: skip
                continue
            if limit is None:
                report.notes.append(Note("plan.unbounded", f"@{fn.name}: the size of {space} "
                                         "is unknown, bounds not judged", b.op.line,
                                         b.op.column))  # fmt: skip
                break
            if b.offset < 0 or b.offset + b.size > limit:
                report.findings.append(Finding(
                    "plan.bounds",
                    f"{b.label} at bytes {b.bytes()} lies outside {space} [0, {limit})",
                    fn.name, b.op.line, b.op.column, module.source(b.op),
                    {"offset": b.offset, "size": b.size, "limit": limit},
                ))  # fmt: skip
        # A buffer whose size is unknown still holds its first byte: the allocator places
        # only buffers of nonzero size. Overlaps on that byte are findings all the same.
        sized = [b if b.size is not None else replace(b, size=1, size_from=AT_LEAST_ONE)
                 for b in mine if b.offset is not None]  # fmt: skip
        for i, a in enumerate(sized):
            for b in sized[i + 1 :]:
                _overlap(fn, module, a, b, report)


def _root(b: Buffer) -> str:
    return f"{b.kind}:{b.op.pos}"


def _overlap(fn: Function, module: Module, a: Buffer, b: Buffer, report: Report) -> None:
    if _root(a) == _root(b) or a.size == 0 or b.size == 0:
        return
    lo_live, hi_live = max(a.live[0], b.live[0]), min(a.live[1], b.live[1])
    if lo_live > hi_live:
        return
    assert a.offset is not None and a.size is not None
    assert b.offset is not None and b.size is not None
    lo, hi = max(a.offset, b.offset), min(a.offset + a.size, b.offset + b.size)
    if lo >= hi:
        return
    # The program point: where the later of the two comes alive while the other is live.
    at = _point(fn, lo_live)
    first, second = (a, b) if a.live[0] <= b.live[0] else (b, a)
    report.findings.append(Finding(
        "plan.overlap",
        f"{second.label} at bytes {second.bytes()} overlaps {first.label} at bytes "
        f"{first.bytes()} while both are live: bytes [{lo}, {hi}) shared",
        fn.name, at.line, at.column, module.source(at),
        {"buffers": [first.label, second.label], "ranges": [first.bytes(), second.bytes()],
         "overlap": [lo, hi], "live": [list(first.live), list(second.live)],
         "defined_at": [first.op.line, second.op.line]},
    ))  # fmt: skip


def check_plan(
    text: str, path: str, python: str | None = None, allocated: tuple[str, str, str] | None = None
) -> tuple[Report, Module, list[Buffer]]:
    """Recover and prove the plan of a TTGIR module. ``allocated`` (module text, debug text,
    version) skips running Triton. Raises TtgirError / AllocationError on unreadable input."""
    from alias_spec.plan.runner import allocate

    source = read_module(text)
    if "allocation.offset" in text and allocated is None:
        planned, debug, plan_from = source, "", "the module's allocation.offset attributes"
    else:
        if allocated is None:
            done = allocate(text, python)
            allocated = (done.module, done.debug, done.version)
        planned = read_module(allocated[0])
        debug, plan_from = allocated[1], f"triton {allocated[2]}"
    report = Report(path, plan_from, planned.shared)
    if planned.shared is None and any(_alloc_ops(f) for f in planned.functions):
        report.notes.append(Note("plan.unbounded", "the module has no ttg.shared: bounds not "
                                 "judged", 1, 1))  # fmt: skip
    tmem = next((op for f in source.functions for op in f.ops if op.name == "ttng.tmem_alloc"),
                None)  # fmt: skip
    if tmem is not None:
        report.notes.append(Note("plan.tmem", "tensor memory allocations are not judged "
                                 "(only shared memory is)", tmem.line, tmem.column))  # fmt: skip
    analysed, buffers = build_plan(source, planned, debug, report)
    report.buffers = buffers
    prove(analysed, buffers, report)
    for b in buffers:
        if b.kind == "frame" and b.callee:
            report.frames.setdefault(b.callee, []).append((b.function, b.offset, b.size))
    return report, analysed, buffers
