"""Recover a kernel's shared-memory plan and prove it: no two live buffers share a byte.

The plan comes from the Triton release itself (``runner.allocate``: its allocation pass, run
on the TTGIR) or, for a module that already carries ``allocation.offset`` attributes (a
FlagTree dump), from those attributes. Each buffer is a root with a byte range relative to its
function's base: a ``ttg.local_alloc`` (views and ``tle.memdesc_alias`` results belong to it),
an op's scratch, a call's frame (the callee's whole plan, placed at the call's offset).

Sizes come from the allocator's debug output, matched to each function by its buffers' op,
offset and what tells them apart (a call's callee, an allocation's type), never by file order;
functions the output cannot tell apart get a note, not a guess. An allocation's size below
what its memdesc type's elements need is a contradiction: a finding (``plan.size``), and the
proof goes on with the type's bytes.

The proof, per function: every buffer lies inside the function's space (the kernel's
``ttg.shared``, a callee's frame size), and two buffers of different roots that are live
together share no byte: their live ranges (``liveness.py``) meet, or they lie in different
regions of one ``ttg.warp_specialize``. A call's frame is live at the call, so everything live
across the call must avoid it. The pairs are found by a sweep, not by testing every pair.
"""

from __future__ import annotations

import heapq
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field, replace
from typing import Any

from alias_spec.ir.memdesc_type import dense_bytes, first_memdesc
from alias_spec.ir.report import Finding, Note
from alias_spec.ir.ttgir import Function, Module, Op, TtgirError, read_module
from alias_spec.model.dtypes import DTYPE_BITS
from alias_spec.model.physical import packed_bytes
from alias_spec.model.targets import capability, shared_per_block
from alias_spec.plan.liveness import (
    concurrent_regions,
    derive,
    function_range,
    live_ranges,
    point_range,
)

ALLOC_OPS = {"ttg.local_alloc"}
AT_LEAST_ONE = "at least its first byte (its size is unknown)"
CALL_OPS = {"tt.call"}
_DEBUG_BUFFER = re.compile(
    r"^-- buffer (\d+); value: (?:%[\w#:.$-]+(?:, %[\w#:.$-]+)* = )?\"?([\w.]+)"
)
_DEBUG_RANGE = re.compile(r"^-- (\d+) (\d+) (\d+) interval")
_DEBUG_DONE = re.compile(r"^Allocated: (\d+)")
# A buffer live over the whole function (the warp-specialize state bytes Triton places on the
# function itself): its range line has no value line before it.
_DEBUG_WHOLE = re.compile(r"^-- \d+ (\d+) (\d+) interval 0 18446744073709551615$", re.M)
_SHARED_PTR = re.compile(r"!tt\.ptr<[^<>]*,\s*3\s*>")
_NUM_CTAS = re.compile(r'"ttg\.num-ctas"\s*=\s*(\d+)')
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
    # The warp-specialize regions the live range lies in (liveness.concurrent_regions).
    regions: tuple[tuple[int, int, int], ...] = ()

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
    seconds: dict[str, float] = field(default_factory=dict)  # each pipeline stage's time

    @property
    def status(self) -> str:
        if self.findings:
            return "findings"
        return "partial" if self.notes else "clean"


# --- the plan ---------------------------------------------------------------------------------


def type_bytes(op: Op, aliases: dict[str, str]) -> int | None:
    """An allocation's size from its memdesc type, where the layout places elements densely
    (a padded layout adds bytes this reader does not model: None)."""
    return dense_bytes(op.result_types() or op.text, aliases, context=op.text)


def _debug_blocks(text: str) -> list[tuple[list[tuple[str, int, int, str]], int | None]]:
    """The allocator's debug output as one entry per function: its buffers (op name, size,
    offset, what tells it apart: see ``_signature``) in buffer-id order and the function's
    allocated size."""
    blocks: list[tuple[list[tuple[str, int, int, str]], int | None]] = []
    names: dict[int, tuple[str, str]] = {}
    ranges: dict[int, tuple[int, int]] = {}

    def close(total: int | None) -> None:
        buffers = [(*names[i][:1], *ranges[i], names[i][1]) for i in sorted(ranges)
                   if i in names]  # fmt: skip
        blocks.append((buffers, total))  # type: ignore[arg-type]

    for line in text.splitlines():
        b = _DEBUG_BUFFER.match(line)
        if b:
            if int(b.group(1)) == 0 and ranges:  # a new function without a closing line
                close(None)
                names, ranges = {}, {}
            names[int(b.group(1))] = (b.group(2), _signature(b.group(2), line[b.end() :]))
            continue
        r = _DEBUG_RANGE.match(line)
        if r:
            ranges[int(r.group(1))] = (int(r.group(2)), int(r.group(3)))
            continue
        d = _DEBUG_DONE.match(line)
        if d:
            close(int(d.group(1)))
            names, ranges = {}, {}
    return blocks


def type_min_bytes(op: Op, text: str) -> int | None:
    """The fewest bytes an allocation's memdesc type can live in: every element's bits, packed
    (any layout, padded ones included, takes at least that). None where the type does not say
    (a shape or element type this reader does not know, tensor memory) or where one CTA holds
    only part of it (``text``, the module, says ``ttg.num-ctas`` > 1)."""
    ctas = _NUM_CTAS.search(text)
    if ctas and int(ctas.group(1)) > 1:
        return None
    md = first_memdesc(op.result_types() or op.text)
    if md is None or "tensor_memory" in op.text:
        return None
    bits = DTYPE_BITS.get(md["dtype"])
    if bits is None or any(d is None for d in md["shape"]):
        return None
    count = 1
    for d in md["shape"]:
        count *= d
    return packed_bytes(bits, count)


def parse_debug(text: str) -> list[tuple[list[tuple[str, int, int]], int | None]]:
    """The allocator's debug output as one entry per function: its buffers (op name, size,
    offset) in buffer-id order and the function's allocated size."""
    return [([b[:3] for b in buffers], total) for buffers, total in _debug_blocks(text)]


def _signature(name: str, rest: str) -> str:
    """What tells two buffers of the same op and offset apart across functions, read the same
    from a debug line and from the printed op: a call's callee, an allocation's shape and
    element type. Two callees whose buffers differ only there must not get each other's
    sizes."""
    if name in CALL_OPS:
        m = _CALLEE.search(rest)
        if not m:
            return ""
        symbol = m.group(1)
        if symbol.startswith('"'):  # a quoted name, its escapes undone as the reader does
            symbol = re.sub(r"\\(.)", r"\1", symbol[1:-1])
        return "@" + symbol
    if name in ALLOC_OPS:
        md = first_memdesc(rest)
        if md is None:
            return ""
        return "x".join("?" if d is None else str(d) for d in [*md["shape"], md["dtype"]])
    return ""


def _alloc_ops(fn: Function) -> list[Op]:
    return [op for op in fn.ops if "allocation.offset" in op.attrs or op.name in ALLOC_OPS]


def _op_signature(op: Op) -> str:
    if op.name in CALL_OPS:
        return "@" + (callee_of(op) or "")
    return _signature(op.name, op.result_types() or op.text)


def _debug_sizes(module: Module, debug: str) -> tuple[dict[int, int], dict[str, int], list[str]]:
    """Sizes the allocator reported: {id(op): size}, {function: allocated size}, and the
    functions left without (several functions look alike to the debug output but their
    blocks differ: which block is whose is not known). A block belongs to the function with
    the same multiset of (op, offset, signature)."""
    sizes: dict[int, int] = {}
    fn_sizes: dict[str, int] = {}
    unsure: list[str] = []
    if not debug:
        return sizes, fn_sizes, unsure
    placed = {fn.name: [(op, (op.name, op.attrs["allocation.offset"], _op_signature(op)))
                        for op in _alloc_ops(fn) if "allocation.offset" in op.attrs]
              for fn in module.functions}  # fmt: skip
    fns_by_key: dict[tuple, list[Function]] = {}
    for fn in module.functions:
        fns_by_key.setdefault(tuple(sorted(k for _, k in placed[fn.name])), []).append(fn)
    by_key: dict[tuple, list[tuple[list[tuple[str, int, int, str]], int | None]]] = {}
    for buffers, total in _debug_blocks(debug):
        key = tuple(sorted((name, offset, sig) for name, _, offset, sig in buffers))
        by_key.setdefault(key, []).append((buffers, total))
    for key, blocks in by_key.items():
        fns = fns_by_key.get(key, [])
        alike = all(_same(blocks[0], b) for b in blocks[1:])
        if len(fns) > 1 and not alike:
            unsure.extend(f.name for f in fns)
            continue
        for fn, (buffers, total) in zip(fns, blocks, strict=False):
            if total is not None:
                fn_sizes[fn.name] = total
            queue: dict[tuple[str, int, str], list[int]] = {}
            for name, size, offset, sig in reversed(buffers):  # popped from the end: id order
                queue.setdefault((name, offset, sig), []).append(size)
            for op, k in placed[fn.name]:
                q = queue.get(k)
                if q:
                    sizes[id(op)] = q.pop()
    return sizes, fn_sizes, unsure


def _same(a: tuple[list, int | None], b: tuple[list, int | None]) -> bool:
    """Two debug blocks that give every buffer the same size (in id order) and one total."""
    return a[1] == b[1] and [x[:3] for x in a[0]] == [x[:3] for x in b[0]]


def callee_of(op: Op) -> str | None:
    """The symbol a call names, as the reader decoded it (a quoted name may hold anything)."""
    return op.callee


def _map_ops(source: Module, planned: Module) -> dict[int, Op] | str:
    """Each op of the planned module that carries an offset, to the same op of the source
    (same function, same op name, same occurrence); a one-line reason if they do not match."""
    out: dict[int, Op] = {}
    sources = {f.name: f for f in reversed(source.functions)}  # the first of a name, as before
    for pfn in planned.functions:
        sfn = sources.get(pfn.name)
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
    source: Module, planned: Module, debug: str, report: Report, planned_text: str = ""
) -> tuple[Module, list[Buffer]]:
    """The buffers of every function, placed on the ops of the module analysed for liveness
    (the source when its ops map one to one onto the planned module, else the planned one)."""
    sizes, fn_sizes, unsure = _debug_sizes(planned, debug)
    for name in unsure:
        fn = planned.function(name)
        report.notes.append(Note("plan.ambiguous", f"@{name}: the allocator's output does not "
                                 "say which of several functions that look alike this is; "
                                 "sizes from the types only", fn.line if fn else 1, 1))  # fmt: skip
    mapping = _map_ops(source, planned) if source is not planned else {}
    analysed = source
    if isinstance(mapping, str):
        report.notes.append(Note("plan.positions", f"{mapping}: lines and columns below are "
                                 "those of the module after allocation", 1, 1))  # fmt: skip
        analysed, mapping = planned, {}
    buffers: list[Buffer] = []
    analysed_fns = {f.name: f for f in reversed(analysed.functions)}
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
            if pop.name in ALLOC_OPS and size is not None:
                size, size_from = _size_against_type(pop, op, size, size_from, pfn.name,
                                                     planned_text, analysed, report)  # fmt: skip
            kind = "alloc" if pop.name in ALLOC_OPS else "frame" if pop.name in CALL_OPS else (
                "scratch")  # fmt: skip
            buf = Buffer(kind, pfn.name, op, offset, size, size_from)
            if kind == "frame":
                buf.callee = callee_of(pop)
            buffers.append(buf)
        if "allocation.offset" in pfn.attrs:
            buffers.append(_state_buffer(pfn, analysed_fns.get(pfn.name, pfn), debug))
    # Frame sizes missing from the allocator: the callee's extent, when all of it is known.
    by_fn: dict[str, list[Buffer]] = {}
    for buf in buffers:
        by_fn.setdefault(buf.function, []).append(buf)
    known_fns = {f.name for f in planned.functions}
    for buf in buffers:
        if buf.kind == "frame" and buf.size is None and buf.callee:
            inner = by_fn.get(buf.callee, [])
            if inner and all(b.offset is not None and b.size is not None for b in inner):
                buf.size = max(b.offset + b.size for b in inner)  # type: ignore[operator]
                buf.size_from = "callee's buffers"
            elif not inner and buf.callee in known_fns:
                buf.size, buf.size_from = 0, "callee's buffers"  # a callee of no buffers
    return analysed, buffers


def _size_against_type(
    pop: Op,
    op: Op,
    size: int,
    size_from: str,
    function: str,
    planned_text: str,
    module: Module,
    report: Report,
) -> tuple[int, str]:
    """An allocation's size checked against its type: fewer bytes than the type's elements
    need is a contradiction (a plan proved with it would hide every overlap past that size).
    It is a finding, and the proof goes on with the type's bytes, the larger: sound."""
    need = type_min_bytes(pop, planned_text)
    if need is None or size >= need:
        return size, size_from
    what = "allocation.size" if size_from == "attribute" else f"the {size_from}'s size"
    result = pop.results[0] if pop.results else pop.name
    report.findings.append(Finding(
        "plan.size",
        f"{result} ({pop.name}): {what} is {size} bytes, fewer than its type's elements "
        f"need ({need} bytes)",
        function, op.line, op.column, module.source(op),
        {"size": size, "size_from": size_from, "type_bytes": need},
    ))  # fmt: skip
    return need, f"type (the {size_from} says {size}, too few)"


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
    by_fn: dict[str, list[Buffer]] = {}
    for buf in buffers:
        by_fn.setdefault(buf.function, []).append(buf)
        if buf.kind == "frame" and buf.callee:
            frames.setdefault(buf.callee, []).append(buf)
    for fn in module.functions:
        mine = by_fn.get(fn.name, [])
        if not mine:
            continue
        roots = {b.op.results[0] for b in mine if b.kind == "alloc" and b.op.results}
        ranges = live_ranges(fn, roots) if roots else {}
        _unknown_pointers(fn, roots, report)
        for b in mine:
            if b.kind == "alloc" and b.op.results:
                b.live = ranges[b.op.results[0]]
            else:
                b.live = function_range(fn) if b.kind == "state" else point_range(fn, b.op.pos)
            b.regions = concurrent_regions(fn, b.live)
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
        for i, j in overlapping_pairs(sized):
            _overlap(fn, module, sized[i], sized[j], report)


def _unknown_pointers(fn: Function, roots: set[str], report: Report) -> None:
    """A shared-memory pointer made from an integer no buffer flows into: which bytes it
    reaches is not known, so no plan around it is proved."""
    made = [op for op in fn.ops if op.name == "tt.int_to_ptr" and _SHARED_PTR.search(
        op.result_types())]  # fmt: skip
    if not made:
        return
    derived = derive(fn, roots) if roots else {}
    for op in made:
        if not any(r in derived for r in op.results):
            what = op.results[0] if op.results else op.name
            report.notes.append(Note("plan.pointer", f"@{fn.name}: {what} is a shared-memory "
                                     "pointer made from an integer no buffer flows into: what "
                                     "it reaches is not judged", op.line, op.column))  # fmt: skip


def _root(b: Buffer) -> str:
    return f"{b.kind}:{b.op.pos}"


def overlapping_pairs(items: list[Buffer]) -> list[tuple[int, int]]:
    """The pairs (i < j) of buffers of one function that are live together and share a byte,
    in index order. Live together: the live ranges meet, or the two lie in different regions
    of one ``ttg.warp_specialize``. A sweep by live start over an index of the live buffers'
    byte ranges: O((n + pairs) log n), not one test per pair."""
    out: list[tuple[int, int]] = []
    ids = [i for i, b in enumerate(items) if b.size and b.offset is not None]
    _sweep(items, ids, 0, out)
    return sorted(out)


def _sweep(items: list[Buffer], ids: list[int], depth: int, out: list[tuple[int, int]]) -> None:
    """One level of concurrent regions. A buffer that lies in no region below this level
    takes part with its live range; one inside a region of a ``ttg.warp_specialize`` at this
    level takes part with the op's whole span (its partners outside the op are live over all
    of it or none), in the region's group. Pairs of one group are judged one level down, with
    their own ranges: that region runs in order."""
    group: dict[int, tuple[int, int, int] | None] = {}
    members: dict[tuple[int, int, int] | None, list[int]] = {}
    for i in ids:
        regions = items[i].regions
        key = regions[depth] if len(regions) > depth else None
        group[i] = key
        members.setdefault(key, []).append(i)
    index: dict[tuple[int, int, int] | None, _Bytes] = {
        key: _Bytes([_span(items[i]) for i in ms], ms) for key, ms in members.items()
    }

    def live(i: int) -> tuple[int, int]:
        key = group[i]
        return items[i].live if key is None else (key[0], key[1])

    order = sorted(ids, key=lambda i: live(i)[0])
    ending: list[tuple[int, int]] = []  # (last live position, id) of the buffers inserted
    active: dict[tuple[int, int, int] | None, int] = {}  # group: how many of it are live
    for i in order:
        lo = live(i)[0]
        while ending and ending[0][0] < lo:
            _, j = heapq.heappop(ending)
            index[group[j]].remove(j)
            active[group[j]] -= 1
            if not active[group[j]]:
                del active[group[j]]
        mine = group[i]
        off, end = _span(items[i])
        for key in active:
            if key is None or key != mine:
                for j in index[key].meeting(off, end):
                    if _root(items[i]) != _root(items[j]):
                        out.append((min(i, j), max(i, j)))
        index[mine].insert(i)
        active[mine] = active.get(mine, 0) + 1
        heapq.heappush(ending, (live(i)[1], i))
    for key, ms in members.items():
        if key is not None and len(ms) > 1:
            _sweep(items, ms, depth + 1, out)


def _span(b: Buffer) -> tuple[int, int]:
    assert b.offset is not None and b.size is not None
    return b.offset, b.offset + b.size


class _Bytes:
    """The byte ranges [offset, end) of a fixed set of buffers, some of them marked live:
    which live ones meet a given range. A segment tree over the ranges' end points holds each
    live range on O(log n) nodes (a point query collects those that contain the point) and a
    count of live range starts per node (a range query descends into nonzero nodes only)."""

    def __init__(self, spans: list[tuple[int, int]], ids: list[int]) -> None:
        self.coords = sorted({c for sp in spans for c in sp})
        self.span = dict(zip(ids, spans, strict=True))
        n = max(len(self.coords), 1)
        self.size = 1 << (n - 1).bit_length()
        self.cover: list[set[int] | None] = [None] * (2 * self.size)
        self.count = [0] * (2 * self.size)
        self.starts: dict[int, set[int]] = {}  # leaf: the live ids starting there

    def _nodes(self, i: int) -> list[int]:
        off, end = self.span[i]
        lo = bisect_left(self.coords, off) + self.size
        hi = bisect_left(self.coords, end) + self.size
        nodes = []
        while lo < hi:
            if lo & 1:
                nodes.append(lo)
                lo += 1
            if hi & 1:
                hi -= 1
                nodes.append(hi)
            lo >>= 1
            hi >>= 1
        return nodes

    def _count(self, i: int, step: int) -> int:
        leaf = bisect_left(self.coords, self.span[i][0])
        node = leaf + self.size
        while node:
            self.count[node] += step
            node >>= 1
        return leaf

    def insert(self, i: int) -> None:
        for node in self._nodes(i):
            if self.cover[node] is None:
                self.cover[node] = set()
            self.cover[node].add(i)  # type: ignore[union-attr]
        self.starts.setdefault(self._count(i, 1), set()).add(i)

    def remove(self, i: int) -> None:
        for node in self._nodes(i):
            self.cover[node].discard(i)  # type: ignore[union-attr]
        self.starts[self._count(i, -1)].discard(i)

    def meeting(self, lo: int, hi: int) -> list[int]:
        """The live ids whose range meets [lo, hi): those that contain lo, and those that
        start inside (lo, hi)."""
        out: list[int] = []
        coords = self.coords
        leaf = bisect_right(coords, lo) - 1
        if 0 <= leaf < len(coords) - 1:
            node = leaf + self.size
            while node:
                if self.cover[node]:
                    out.extend(self.cover[node])  # type: ignore[arg-type]
                node >>= 1
        first, last = bisect_right(coords, lo), bisect_left(coords, hi)  # leaves [first, last)
        if first < last:
            todo = [(1, 0, self.size)]
            while todo:
                node, a, b = todo.pop()
                if b <= first or last <= a or not self.count[node]:
                    continue
                if b - a == 1:
                    out.extend(self.starts.get(a, ()))
                    continue
                mid = (a + b) // 2
                todo.append((2 * node, a, mid))
                todo.append((2 * node + 1, mid, b))
        return out


def _overlap(fn: Function, module: Module, a: Buffer, b: Buffer, report: Report) -> None:
    """Report two buffers that are live together and share bytes."""
    assert a.offset is not None and a.size is not None
    assert b.offset is not None and b.size is not None
    lo, hi = max(a.offset, b.offset), min(a.offset + a.size, b.offset + b.size)
    # The program point: where the later of the two comes alive.
    at = _point(fn, max(a.live[0], b.live[0]))
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


def _capacity(target: str | None, shared: int | None, report: Report) -> None:
    """The first thing to say of a plan larger than the target lets one block use: the kernel
    cannot launch (an autotuner compiles such configurations and skips them at launch)."""
    limit = shared_per_block(target)
    if shared is None or limit is None or shared <= limit:
        return
    report.findings.insert(0, Finding(
        "plan.capacity",
        f"the plan needs {shared} bytes of shared memory; sm_{capability(target)} lets one "
        f"block use at most {limit}: the kernel cannot launch",
        None, 1, 1, None, {"shared": shared, "limit": limit}, "warning",
    ))  # fmt: skip


@dataclass
class Allocation:
    """What the allocation stage gives: the module with its offsets, the allocator's debug
    text, where the plan comes from, and what the release's passes before it removed."""

    planned: Module
    debug: str
    plan_from: str
    text: str  # the module text the plan is read from
    removed: list[str] = field(default_factory=list)
    prepasses: str = ""


def check_source(text: str) -> None:
    """TtgirError (one line) when the text is not TTGIR: another stage of the compiler, or a
    literal MLIR refuses."""
    from alias_spec.ir import kind

    why = kind.problem(text)
    if why is not None:
        raise TtgirError(why)


def read_source(text: str) -> Module:
    """The TTGIR module; TtgirError (one line) when it is not TTGIR (``check_source``)."""
    check_source(text)
    return read_module(text)


def may_need_allocation(text: str, allocated: tuple[str, str, str] | None) -> bool:
    """Whether ``allocate_plan`` may ask the release for this module's allocation: a module
    with no ``allocation.`` attribute anywhere in its text is not planned (``Module.planned``)."""
    return allocated is None and "allocation." not in text


def allocate_plan(source: Module, text: str, path: str, python: str | None = None,
                  allocated: tuple[str, str, str] | None = None,
                  prepasses: str = "auto", pending: Any = None) -> Allocation:  # fmt: skip
    """The plan's offsets: the module's own ``allocation.offset`` attributes, ``allocated``
    (module text, debug text, version), or the allocation the release of ``python`` runs
    (``runner.allocate``; AllocationError on failure, naming ``--python`` where the dump
    comes from another release). ``pending``: that allocation asked for earlier
    (``runner.request``), its answer read here or dropped."""
    from alias_spec.ir import kind
    from alias_spec.plan.runner import AllocationError, allocate

    if (source.planned or allocated is not None) and pending is not None:
        pending.drop()
        pending = None
    if source.planned and allocated is None:
        return Allocation(source, "", "the module's allocation.offset attributes", text)
    removed: list[str] = []
    used = ""
    if allocated is None:
        try:
            done = allocate(text, python, prepasses=prepasses, pending=pending)
        except AllocationError as exc:  # a dump of another release: say to pass --python
            hint = kind.allocation_hint(text, str(exc))
            if hint is None:
                raise
            raise AllocationError(f"{exc}; {hint}") from None
        allocated = (done.module, done.debug, done.version)
        removed, used = done.removed, done.prepasses
    kind.warn_release(text, allocated[2], path)
    return Allocation(read_module(allocated[0]), allocated[1], f"triton {allocated[2]}",
                      allocated[0], removed, used)  # fmt: skip


def start_report(source: Module, plan: Allocation, path: str) -> Report:
    """The report, with what is said before any buffer is judged: the target's capacity,
    buffers the release's passes delete, a module without ``ttg.shared``, tensor memory."""
    planned = plan.planned
    report = Report(path, plan.plan_from, planned.shared)
    _capacity(source.target or planned.target, planned.shared, report)
    for line in plan.removed:
        # The plan of a module the kernel is not: buffers deleted before the allocation are
        # not judged, or (as written) the offsets are not those the pipeline would give.
        report.notes.append(Note("plan.removed", (
            f"the release's passes before the allocation delete {line}: not judged"
            if plan.prepasses == "release" else
            f"the release's passes before the allocation would delete {line}: judged as "
            "written, whose offsets the release's pipeline does not give"), 1, 1))  # fmt: skip
    if planned.shared is None and any(_alloc_ops(f) for f in planned.functions):
        report.notes.append(Note("plan.unbounded", "the module has no ttg.shared: bounds not "
                                 "judged", 1, 1))  # fmt: skip
    tmem = next((op for f in source.functions for op in f.ops if op.name == "ttng.tmem_alloc"),
                None)  # fmt: skip
    if tmem is not None:
        report.notes.append(Note("plan.tmem", "tensor memory allocations are not judged "
                                 "(only shared memory is)", tmem.line, tmem.column))  # fmt: skip
    return report


def record_frames(buffers: list[Buffer], report: Report) -> None:
    """Each callee's frame per call site, for the lowering check."""
    for b in buffers:
        if b.kind == "frame" and b.callee:
            report.frames.setdefault(b.callee, []).append((b.function, b.offset, b.size))


def check_plan(
    text: str,
    path: str,
    python: str | None = None,
    allocated: tuple[str, str, str] | None = None,
    prepasses: str = "auto",
) -> tuple[Report, Module, list[Buffer]]:
    """Recover and prove the plan of a TTGIR module: the pipeline's stages up to the proof
    (``pipeline.py``). ``allocated`` (module text, debug text, version) skips running Triton;
    else ``prepasses`` says what runs before its allocation (``runner.allocate``). Raises
    TtgirError / AllocationError on unreadable input."""
    source = read_source(text)
    plan = allocate_plan(source, text, path, python, allocated, prepasses)
    report = start_report(source, plan, path)
    analysed, buffers = build_plan(source, plan.planned, plan.debug, report, plan.text)
    report.buffers = buffers
    prove(analysed, buffers, report)
    record_frames(buffers, report)
    return report, analysed, buffers
