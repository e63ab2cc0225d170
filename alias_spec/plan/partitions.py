"""Warp-specialized partitions, for the race check: which warps may run each block, and what
each barrier orders (``races.py``).

Triton lowers ``gl.warp_specialize`` into one function whose warps split early: a branch on
the warp id (``tid.x / 32``, often broadcast from lane 0 by ``shfl.sync.idx``) sends the
default partition's warps one way and the worker warps into a loop that reads, per warp, a
state byte from a table in shared memory (``table[warp - first]``) and switches on it to the
partition that warp runs (or to the exit). The default partition writes the table with
constant stores before the CTA barrier the workers wait on.

Which warps may run a block is a forward data flow over the control flow graph, every warp of
the CTA at the entry: a branch or switch on the warp id narrows each edge to the warps its
condition lets through; a switch on a byte loaded from a constant offset plus the warp id (the
table) sends each warp to the cases of the constant values ever stored to its byte, and to the
default where a value stored is no case or none is stored. Any other branch lets every warp
through both ways. The result is an over-approximation (a warp may be said to run a block it
never reaches, never the other way), assuming what Triton's lowering guarantees: the table is
written only by those constant stores (the plan check proves every other access stays in its
own buffer) and read after them. The *groups* are the classes of warps that may run the same
blocks; a function with one group (every warp runs every block) is not partitioned.

A barrier (``barrier.sync`` / ``bar.sync`` in its LLVM forms) has an id and a thread count, or
takes every thread of the CTA. One that takes every thread orders any two threads' accesses
on either side of it. A counted one orders the threads that may reach a barrier of its id when
every barrier of that id has the same constant count and that count is the number of those
threads (32 per warp that may reach one): each of its instances then takes every one of them
(a count never reached would hang, and no access after it would run). Anything else (a count
or id not constant, an id shared by barriers of different counts or by a whole-CTA one, a count
that matches no set of warps, an arrive, a reduction) is *unproved*: the pairs it would order
are not judged.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from alias_spec.ir.llir import Function, Instruction, Operand
from alias_spec.plan.taint import type_size

WARP = 32  # threads a warp
MAX_WARPS = 32  # a CTA's at most (1024 threads)
_SYNC_ASM = re.compile(
    r"^\s*(?P<op>bar|barrier)(?:\.cta)?\.(?P<kind>sync|arrive|red)(?:\.aligned)?"
    r"\s+(?P<id>[^,;\s]+)\s*(?:,\s*(?P<count>[^,;\s]+)\s*)?;?\s*$"
)
_CASE = re.compile(r"\bi\d+\s+(-?\d+)\s*,\s*label\b")


@dataclass(frozen=True)
class Barrier:
    """One barrier instruction: its id and thread count (``count`` None: every thread of the
    CTA), or why it is not read (``why``: then the rest means nothing)."""

    index: int  # the instruction
    line: int
    block: int
    id: int | None
    count: int | None
    why: str = ""  # not "": an arrive, a reduction, an operand not constant

    @property
    def whole(self) -> bool:
        return not self.why and self.count is None


@dataclass
class Partitions:
    """Which warps may run each block, and the barriers' scopes."""

    warps: int  # the CTA's
    runs: dict[int, frozenset[int]]  # block -> the warps that may run it
    groups: list[frozenset[int]]  # the classes of warps that may run the same blocks
    barriers: list[Barrier] = field(default_factory=list)
    # Barriers that order every thread that reaches them: the whole-CTA ones, and the counted
    # ones proved to take every warp that may reach their id (their instruction -> those warps).
    scope: dict[int, frozenset[int]] = field(default_factory=dict)
    unproved: dict[int, str] = field(default_factory=dict)  # barrier instruction -> why
    odd: set[int] = field(default_factory=set)  # unproved: a count that fits no warps

    def culprit(self) -> int:
        """The unproved barrier to name first: one whose own count fits no warps, else the
        first."""
        return min(self.unproved, key=lambda i: (i not in self.odd, i))

    @property
    def split(self) -> bool:
        """The warps run different blocks (warp-specialized partitions)."""
        return len(self.groups) > 1

    def blocks(self, group: frozenset[int]) -> set[int]:
        """The blocks some warp of ``group`` may run."""
        return {b for b, ws in self.runs.items() if ws & group}

    def orders(self, group: frozenset[int]) -> set[int]:
        """The barrier instructions that order two threads of ``group``."""
        return {i for i, ws in self.scope.items() if group <= ws}

    def loose(self, group: frozenset[int]) -> list[int]:
        """The unproved barriers some warp of ``group`` may reach."""
        by = {b.index: b for b in self.barriers}
        return sorted(i for i in self.unproved if self.runs.get(by[i].block, frozenset()) & group)


def _int(op: Operand | None) -> int | None:
    return op.value if op is not None and op.kind == "int" else None


def _asm_text(ins: Instruction) -> str:
    c = ins.callee
    if c is not None and c.kind == "asm" and c.text:
        text = c.text
    elif "asm" in ins.text and ins.text.count('"') >= 2:
        text = ins.text.split('"')[1]
    else:
        return ""
    return text.replace("\\0A", "\n").replace("\\09", " ").replace("\\22", '"')


def barrier_of(ins: Instruction) -> Barrier | None:
    """The barrier ``ins`` is, or None."""
    name = ins.callee.name if ins.callee is not None and ins.callee.kind != "asm" else ""
    args = ins.operands

    def made(id_: int | None, count: int | None, why: str = "") -> Barrier:
        if not why and id_ is None:
            why = "its barrier id is not a constant"
        return Barrier(ins.index, ins.line, ins.block, id_, count, why)

    if name.startswith("llvm.nvvm.barrier0"):
        return made(0, None)  # also its .popc / .and / .or reductions: every thread
    if name.startswith("llvm.nvvm.barrier"):
        if "arrive" in name:
            return made(_int(args[0]) if args else None, None, "an arrive (it does not wait)")
        if ".red" in name:
            return made(_int(args[0]) if args else None, None, "a reduction barrier")
        id_ = _int(args[0]) if args else 0
        if name.endswith(".all") or (len(args) <= 1 and ".count" not in name):
            return made(id_, None)
        count = _int(args[1]) if len(args) > 1 else None
        return made(id_, count, "" if count is not None else "its thread count is not a constant")
    text = _asm_text(ins)
    if not text or not re.search(r"\b(?:bar|barrier)(?:\.cta)?\.(?:sync|red|arrive)\b", text):
        return None
    lines = [s for s in re.split(r"[;\n]", text) if s.strip()]
    m = _SYNC_ASM.match(lines[0] + ";") if len(lines) == 1 else None
    if m is None:
        return made(None, None, "inline asm this reader does not parse")

    def value(tok: str | None) -> int | None:
        if tok is None:
            return None
        if tok.startswith("$") and tok[1:].isdigit():
            k = int(tok[1:])
            return _int(args[k]) if k < len(args) else None
        return int(tok, 0) if re.fullmatch(r"\d+|0x[0-9a-fA-F]+", tok) else None

    id_ = value(m.group("id"))
    if m.group("kind") != "sync":
        why = "an arrive (it does not wait)" if m.group("kind") == "arrive" else "a reduction"
        return made(id_, None, why)
    if m.group("count") is None:
        return made(id_, None)
    count = value(m.group("count"))
    return made(id_, count, "" if count is not None else "its thread count is not a constant")


def _warp_values(fn: Function) -> set[int]:
    """The instructions whose value is the warp id, ``tid.x / 32``."""
    tid = "llvm.nvvm.read.ptx.sreg.tid.x"
    tids = {i.index for i in fn.instructions if i.callee is not None and i.callee.name == tid}
    out: set[int] = set()
    for i in fn.instructions:  # textual order: SSA definitions come before their uses here
        a = i.operands
        if len(a) == 2 and a[0].kind == "value" and a[0].ref in tids:
            if (i.opcode, _int(a[1])) in (("lshr", 5), ("udiv", 32)):
                out.add(i.index)
        # A shuffle from a lane of the same warp: every lane's warp id is the same.
        name = i.callee.name if i.callee is not None else ""
        if name.startswith("llvm.nvvm.shfl.sync.idx") and len(a) == 4:
            if a[1].kind == "value" and a[1].ref in out and _int(a[3]) == 31:
                out.add(i.index)
    return out


# Warp ids and the constants compared with them are small: signed and unsigned agree.
_PRED: dict[str, Callable[[int, int], bool]] = {
    "eq": operator.eq, "ne": operator.ne, "ult": operator.lt, "ule": operator.le,
    "ugt": operator.gt, "uge": operator.ge, "slt": operator.lt, "sle": operator.le,
    "sgt": operator.gt, "sge": operator.ge,
}  # fmt: skip
_SWAP = {"ult": "ugt", "ule": "uge", "ugt": "ult", "uge": "ule", "slt": "sgt", "sle": "sge",
         "sgt": "slt", "sge": "sle", "eq": "eq", "ne": "ne"}  # fmt: skip


def _on_warp(fn: Function, cond: Operand, warp: set[int], n: int) -> frozenset[int] | None:
    """The warps for which ``cond`` (an icmp of the warp id and a constant) holds, or None."""
    if cond.kind != "value":
        return None
    c = fn.instructions[cond.ref]
    if c.opcode != "icmp" or len(c.operands) != 2 or c.predicate not in _PRED:
        return None
    x, k = c.operands
    pred = c.predicate
    if x.kind == "int":
        x, k, pred = k, x, _SWAP[pred]
    bound = _int(k)
    if x.kind != "value" or x.ref not in warp or bound is None or not 0 <= bound < 2**16:
        return None
    return frozenset(w for w in range(n) if _PRED[pred](w, bound))


def _linear(fn: Function, op: Operand, warp: set[int], depth: int = 0) -> tuple[int, int] | None:
    """A shared byte address as (constant, 0) or (constant, 1): constant + warp id; None
    otherwise (only i8 steps are read: the table's)."""
    if depth > 8:
        return None
    if op.kind == "global" and op.name == "global_smem":
        return 0, 0
    if op.kind == "int":
        return None
    if op.kind == "value" and op.ref in warp:
        return 0, 1
    if op.kind == "expr" and op.opcode == "getelementptr" and len(op.elems) == 2:
        base, off = _linear(fn, op.elems[0], warp, depth + 1), _int(op.elems[1])
        return None if base is None or off is None else (base[0] + off, base[1])
    if op.kind != "value":
        return None
    ins = fn.instructions[op.ref]
    if ins.opcode != "getelementptr" or len(ins.operands) != 2 or ins.source_type != "i8":
        return None
    base = _linear(fn, ins.operands[0], warp, depth + 1)
    off = ins.operands[1]
    if base is None:
        return None
    k = _int(off)
    if k is not None:
        k = k - 2**32 if k >= 2**31 else k  # an i32 offset printed unsigned
        return base[0] + k, base[1]
    step = _linear(fn, off, warp, depth + 1) if off.kind == "value" and off.ref in warp else None
    return (base[0], base[1] + 1) if step == (0, 1) and base[1] == 0 else None


def _table(fn: Function, warp: set[int]) -> dict[int, set[int] | None]:
    """Shared byte -> the constants stored to it by i8 stores at constant addresses (None: a
    store of another kind writes it too, so what it holds is not known)."""
    out: dict[int, set[int] | None] = {}
    for i in fn.instructions:
        if i.opcode != "store" or len(i.operands) != 2:
            continue
        addr = _linear(fn, i.operands[1], warp)
        if addr is None or addr[1] != 0:
            continue  # the plan check proves such a store inside a buffer of its own
        v, size = _int(i.operands[0]), type_size(i.operands[0].type, fn.datalayout)
        if i.operands[0].type == "i8" and v is not None:
            held = out.setdefault(addr[0], set())
            if held is not None:
                held.add(v % 256)
        else:
            for k in range(addr[0], addr[0] + (size or 16)):
                out[k] = None
    return out


def _edges(fn: Function, b: int, ws: frozenset[int], warp: set[int], n: int,
           table: dict[int, set[int] | None]) -> list[tuple[int, frozenset[int]]]:  # fmt: skip
    """Block ``b``'s successors, each with the warps of ``ws`` that may take that edge."""
    if not fn.blocks[b].instructions:
        return []
    term = fn.instructions[fn.blocks[b].instructions[-1]]
    targets = term.targets
    if term.opcode == "br" and len(targets) == 2 and term.operands:
        on = _on_warp(fn, term.operands[0], warp, n)
        if on is not None:
            return [(targets[0], ws & on), (targets[1], ws - on)]
    if term.opcode == "switch" and targets and term.operands:
        cases = [int(v) for v in _CASE.findall(term.text)]
        if len(cases) == len(targets) - 1:
            by_warp = _switch(fn, term.operands[0], warp, n, table)
            if by_warp is not None:
                bits = int(term.operands[0].type[1:]) if term.operands[0].type[1:].isdigit() else 8
                cases = [c % 2**bits for c in cases]

                # A warp whose byte is not known (no constant stored, or another store) may
                # take any edge.
                def takes(w: int, c: int | None) -> bool:
                    seen = by_warp[w]
                    if not seen:
                        return True
                    return c in seen if c is not None else bool(seen - set(cases))

                out = [(t, frozenset(w for w in ws if takes(w, c)))
                       for t, c in zip(targets[1:], cases, strict=True)]  # fmt: skip
                out.append((targets[0], frozenset(w for w in ws if takes(w, None))))
                return out
    return [(t, ws) for t in targets]


def _switch(fn: Function, value: Operand, warp: set[int], n: int,
            table: dict[int, set[int] | None]) -> dict[int, set[int]] | None:  # fmt: skip
    """Warp -> the values a switch on ``value`` may see in it (empty: not known), or None."""
    if value.kind != "value":
        return None
    if value.ref in warp:
        return {w: {w} for w in range(n)}
    load = fn.instructions[value.ref]
    if load.opcode != "load" or load.type != "i8" or not load.operands:
        return None
    addr = _linear(fn, load.operands[0], warp)
    if addr is None or addr[1] != 1:
        return None
    return {w: set(table.get(addr[0] + w) or set()) for w in range(n)}


def partitions(fn: Function) -> Partitions:
    """The warps that may run each block of ``fn`` and the scope of each barrier."""
    n = min(max((fn.threads or MAX_WARPS * WARP) // WARP, 1), MAX_WARPS)
    everyone = frozenset(range(n))
    runs: dict[int, frozenset[int]] = {}
    warp = _warp_values(fn)
    if fn.blocks:
        table = _table(fn, warp) if warp else {}
        runs[0] = everyone
        todo = [0]
        while todo:
            b = todo.pop()
            for t, ws in _edges(fn, b, runs[b], warp, n, table):
                if t < 0 or not ws:
                    continue
                new = runs.get(t, frozenset()) | ws
                if new != runs.get(t):
                    runs[t] = new
                    todo.append(t)
    # The groups: warps told apart by the blocks they may run.
    sig: dict[frozenset[int], set[int]] = {}
    for w in everyone:
        sig.setdefault(frozenset(b for b, ws in runs.items() if w in ws), set()).add(w)
    groups = sorted((frozenset(ws) for ws in sig.values()), key=min)
    parts = Partitions(n, runs, groups)
    _scopes(fn, parts)
    return parts


def _scopes(fn: Function, parts: Partitions) -> None:
    """Each barrier's scope, or why it is unproved (``Partitions.scope`` / ``unproved``)."""
    found = [b for b in (barrier_of(i) for i in fn.instructions) if b is not None]
    parts.barriers = found
    by_id: dict[int, list[Barrier]] = {}
    # An arrive or a barrier not read takes part in its id's instances: that id orders
    # nothing proved (any id, where its own is not a constant).
    tainted = {b.id for b in found if b.why}
    for b in found:
        if b.why:
            parts.unproved[b.index] = b.why
        elif None in tainted or b.id in tainted:
            parts.unproved[b.index] = (f"barrier {b.id} is also the id of a barrier not read "
                                       "(an arrive, or an id not a constant)")  # fmt: skip
        elif b.id is not None:
            by_id.setdefault(b.id, []).append(b)
    everyone = frozenset(range(parts.warps))
    for id_, bs in by_id.items():
        sizes = {b.count for b in bs}
        reach = frozenset().union(*(parts.runs.get(b.block, frozenset()) for b in bs))
        if sizes == {None}:
            for b in bs:
                parts.scope[b.index] = everyone  # waits for every thread of the CTA
            continue
        why = ""
        if None in sizes:
            why = f"barrier {id_} is also a whole-CTA barrier elsewhere"
        elif len(sizes) > 1:
            listed = ", ".join(str(c) for c in sorted(c for c in sizes if c is not None))
            why = f"barrier {id_} has different thread counts ({listed})"
        else:
            count = next(iter(sizes))
            assert count is not None
            if count != WARP * len(reach):
                why = (f"its count ({count} threads) is not the {WARP * len(reach)} threads "
                       f"of the warps that may reach barrier {id_} ({span(reach)})")  # fmt: skip
        for b in bs:
            if not why:
                parts.scope[b.index] = reach
                continue
            # Among several counts, the one that fits no warps that may reach it is named
            # first (``Partitions.culprit``).
            own = len(parts.runs.get(b.block, frozenset())) * WARP
            if len(sizes) > 1 and b.count is not None and b.count != own:
                parts.unproved[b.index] = (f"its count ({b.count} threads) is not the "
                                           f"{own} threads of the warps that may reach it, "
                                           f"and {why}")  # fmt: skip
                parts.odd.add(b.index)
            else:
                parts.unproved[b.index] = why


def _span(ws: frozenset[int]) -> str:
    """Warps as ranges: "0-3, 6"."""
    out: list[str] = []
    for w in sorted(ws):
        if out and out[-1].split("-")[-1] == str(w - 1):
            out[-1] = f"{out[-1].split('-')[0]}-{w}"
        else:
            out.append(str(w))
    return ", ".join(out)


def span(ws: frozenset[int]) -> str:
    """Warps as ranges, for messages: "warps 0-3"."""
    return ("warp " if len(ws) == 1 else "warps ") + _span(ws)


CAP = 16  # whole-CTA barriers counted along a path; past it: "at least CAP" (told apart from none)


def counts(fn: Function, parts: Partitions, group: frozenset[int],
           wanted: set[int]) -> dict[int, set[tuple[int, ...]]]:  # fmt: skip
    """For each instruction of ``wanted`` that a warp of ``group`` may run: how many barriers
    of each id that takes every thread of the CTA it may have passed when it gets there (one
    tuple a path, capped at ``CAP``). Every thread passes each such barrier's instances in
    turn, so two accesses of two threads that passed different numbers of one id's instances
    are ordered by the later one's last."""
    everyone = frozenset(range(parts.warps))
    ids = sorted({b.id for b in parts.barriers
                  if b.id is not None and parts.scope.get(b.index) == everyone})  # fmt: skip
    which = {b.index: ids.index(b.id) for b in parts.barriers
             if b.id is not None and parts.scope.get(b.index) == everyone}  # fmt: skip
    blocks = parts.blocks(group)
    out: dict[int, set[tuple[int, ...]]] = {}
    seen: set[tuple[int, tuple[int, ...]]] = set()
    todo: list[tuple[int, tuple[int, ...]]] = [(0, (0,) * len(ids))] if 0 in blocks else []
    while todo:
        b, c = todo.pop()
        if (b, c) in seen:
            continue
        seen.add((b, c))
        ins = fn.blocks[b].instructions
        for i in ins:
            if i in wanted:
                out.setdefault(i, set()).add(c)
            k = which.get(i)
            if k is not None:
                c = (*c[:k], min(c[k] + 1, CAP), *c[k + 1 :])
        for t in fn.instructions[ins[-1]].targets if ins else []:
            if t in blocks:
                todo.append((t, c))
    return out


def apart(first: set[tuple[int, ...]], second: set[tuple[int, ...]]) -> bool:
    """Every way of getting to one access and every way to the other passed a different
    number of some whole-CTA barrier's instances (``counts``): the two are ordered."""
    return bool(first and second) and all(any(x != y for x, y in zip(a, b, strict=True))
                                          for a in first for b in second)  # fmt: skip
