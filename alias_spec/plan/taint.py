"""Which values of an LLVM function may hold a shared-memory address (the taint), and the sizes
of LLVM types: the first step of the lowering check (``llir.py``). A value is tainted when it is
derived from ``@global_smem`` (or a shared pointer); the evaluator (``evaluator.py``) rebuilds
only tainted values and the integers they are made of.
"""

from __future__ import annotations

import re
from typing import Any

from alias_spec.ir.llir import (
    Function,
    Instruction,
    Operand,
    split_top,
    type_bytes,
)
from alias_spec.plan.terms import WIDTH

SMEM = "global_smem"

_INT_TY = re.compile(r"^i(\d+)$")

VECTOR = re.compile(r"<\s*(\d+)\s+x\s+(i\d+)\s*>")


def type_size(ty: str, datalayout: str = "") -> int | None:
    """Bytes a load or store of the LLVM type ``ty`` touches, its store size under the module's
    ``datalayout`` (None for what is not a sized type): LLVM's own answer, so a vector of
    sub-byte elements packs (``<32 x i1>``: 4 bytes) where an array does not (``[32 x i1]``:
    32)."""
    got = type_bytes(ty, datalayout)
    return None if got is None else got.store


def alloc_size(ty: str, datalayout: str = "") -> int | None:
    """The stride of ``ty`` in a getelementptr or an array (its alloc size: ``i24`` takes 4
    bytes), under the module's ``datalayout``; None for what is not a sized type."""
    got = type_bytes(ty, datalayout)
    return None if got is None else got.alloc


def elem_type(ty: str) -> str | None:
    m = re.fullmatch(r"[<\[]\s*\d+\s+x\s+(.+?)\s*[>\]]", ty.strip())
    return m.group(1) if m else None


def int_width(ty: str) -> int | None:
    ty = ty.strip()
    m = _INT_TY.match(ty)
    if m:
        return int(m.group(1))
    if ty.startswith("ptr addrspace(3)"):
        return WIDTH
    if ty.startswith("ptr"):
        return 64
    return None


def shared_type(ty: str) -> bool:
    return ty.startswith("ptr addrspace(3)") or "ptr addrspace(3)" in ty and ty[:1] in "<{["


def _mentions_smem(op: Operand) -> bool:
    if op.kind == "global":
        return op.name == SMEM or shared_type(op.type)
    return any(_mentions_smem(e) for e in op.elems)


# Memory reads return data, not the address they read; comparisons return data.
_DATA_OPS = {"load", "atomicrmw", "cmpxchg", "icmp", "fcmp"}

# wgmma returns its accumulators (data), whatever its descriptors hold.
_READS = re.compile(r"\b(?:ld|atom|ldmatrix|wgmma)\.|^llvm\.nvvm\.(?:ldmatrix|ld\.)")


def back_edges(fn: Function) -> set[tuple[int, int]]:
    """Edges to a block still on the depth-first path from the entry: every cycle of the
    control flow holds one."""
    succ = {b.index: (fn.instructions[b.instructions[-1]].targets if b.instructions else [])
            for b in fn.blocks}  # fmt: skip
    out: set[tuple[int, int]] = set()
    if not fn.blocks:
        return out
    on_path, done = {0}, set()
    stack: list[tuple[int, int]] = [(0, 0)]
    while stack:
        b, i = stack[-1]
        nexts = succ.get(b, [])
        if i >= len(nexts):
            stack.pop()
            on_path.discard(b)
            done.add(b)
            continue
        stack[-1] = (b, i + 1)
        n = nexts[i]
        if n in on_path:
            out.add((b, n))
        elif n not in done and n >= 0:
            on_path.add(n)
            stack.append((n, 0))
    return out


# A value's taint: absent (none of it carries a shared address), ``None`` (all of it may) or,
# for an aggregate, the set of its top-level fields that may.
Taint = frozenset[int] | None


def find_taint(fn: Function) -> dict[int, Taint]:
    """Every value computed from ``@global_smem`` (or typed as a shared pointer) by any op,
    modelled or not, except what memory reads and comparisons produce (data, not addresses):
    a use of one that is not modelled is then a note, never silently passed over.

    Field-sensitive on aggregates: ``insertvalue`` / ``extractvalue`` move taint field by field,
    and inline asm whose text names no operand (``wgmma.wait_group``: its outputs tied to its
    inputs, a register fence) passes each tied input's taint to its output alone. A field that
    cannot be told apart is tainted with the whole value."""
    # A worklist over def-use edges: a value's taint only grows (at most once per field), and
    # its users are looked at again each time it does (linear in practice; a sweep to a fixed
    # point is quadratic on long chains of loop-carried values).
    users: dict[int, list[int]] = {}
    for ins in fn.instructions:
        for o in ins.operands:
            for ref in _value_refs(o):
                users.setdefault(ref, []).append(ins.index)
    tainted: dict[int, Taint] = {}
    todo = list(range(len(fn.instructions)))
    while todo:
        idx = todo.pop()
        ins = fn.instructions[idx]
        got = _transfer(ins, tainted, fn)
        if got is _CLEAN:
            continue
        old = tainted.get(idx, _CLEAN)
        new = _join(old, got)  # type: ignore[arg-type]
        if old is not _CLEAN and new == old:
            continue
        tainted[idx] = new
        todo.extend(users.get(idx, ()))
    return tainted


_CLEAN: Any = object()  # no taint (a sentinel: ``None`` is "all of it")


def _join(a: Taint | object, b: Taint | object) -> Taint | object:
    if a is _CLEAN:
        return b
    if b is _CLEAN:
        return a
    if a is None or b is None:
        return None
    return a | b  # type: ignore[operator]


def aggregate(ty: str) -> bool:
    return ty.strip().startswith(("{", "<{"))


def _struct_fields(ty: str) -> list[str] | None:
    """A struct type's top-level field types (None: not a struct this reader splits)."""
    ty = ty.strip()
    if ty.startswith("<{") and ty.endswith("}>"):
        ty = ty[1:-1]
    if not (ty.startswith("{") and ty.endswith("}")):
        return None
    return split_top(ty[1:-1])


def _typed_taint(ty: str) -> Taint | object:
    """Taint a value has by its type alone: a shared pointer, or an aggregate holding some
    (those fields; nested ones taint their whole top-level field)."""
    if not shared_type(ty) and "ptr addrspace(3)" not in ty:
        return _CLEAN
    fields = _struct_fields(ty)
    if fields is None:
        return None
    return frozenset(i for i, f in enumerate(fields) if "ptr addrspace(3)" in f) or None


def _operand_taint(op: Operand, tainted: dict[int, Taint], fn: Function) -> Taint | object:
    if op.kind == "value":
        return tainted.get(op.ref, _CLEAN)
    return None if uses_smem(op, set(), fn) else _CLEAN


_NAMES_OPERAND = re.compile(r"\$(?:\d|\{)")

_TIED = re.compile(r"^\d+$")


def asm_pass_through(ins: Instruction) -> dict[int, int] | None:
    """Output index -> the input index it carries unchanged, for inline asm whose text
    (comments aside) names no operand: it cannot read its inputs or write its outputs, so
    an output tied to an input (constraint ``"k"``) leaves the asm holding that input's value,
    and an untied one holds nothing computed from them. None for any other asm (its outputs
    are then computed from all its inputs) or one writing memory (an ``=*m`` output)."""
    c = ins.callee
    if c is None or c.kind != "asm":
        return None
    if _NAMES_OPERAND.search(re.sub(r"//[^\n]*", "", c.text)):
        return None
    parts = [x.strip() for x in c.constraints.split(",")]
    outs = [x for x in parts if x.startswith("=")]
    if any("*" in x for x in outs) or any(x.startswith("*") for x in parts):
        return None
    ins_cons = [x for x in parts if not x.startswith(("=", "~"))]
    tied: dict[int, int] = {}
    for i, x in enumerate(ins_cons):
        if _TIED.match(x) and int(x) < len(outs):
            tied[int(x)] = i
    return tied


def _transfer(ins: Instruction, tainted: dict[int, Taint], fn: Function) -> Taint | object:
    """The taint of the instruction's result from its operands' (monotone in them)."""
    out = _typed_taint(ins.type)
    ops = [_operand_taint(o, tainted, fn) for o in ins.operands]
    if ins.opcode == "insertvalue" and len(ops) == 2 and ins.indices:
        agg, part, first = ops[0], ops[1], ins.indices[0]
        if isinstance(agg, frozenset) and len(ins.indices) == 1:
            agg = agg - {first} or _CLEAN  # the field is overwritten
        if part is not _CLEAN:
            agg = _join(agg, frozenset({first}))
        return _join(out, agg)
    if ins.opcode == "extractvalue" and ops and ins.indices:
        agg = ops[0]
        hit = agg is None or (isinstance(agg, frozenset) and ins.indices[0] in agg)
        return _join(out, None) if hit else out
    if ins.opcode == "call" and ins.callee is not None and ins.callee.kind == "asm":
        tied = asm_pass_through(ins)
        if tied is not None:
            got: Taint | object = _CLEAN
            for o, i in tied.items():
                if i < len(ops) and ops[i] is not _CLEAN:
                    got = _join(got, frozenset({o}) if aggregate(ins.type) else None)
            return _join(out, got)
    if aggregate(ins.type) and ins.opcode in ("phi", "freeze", "select"):
        # Merges of aggregates merge their fields (a select's condition is data).
        for t in ops[1:] if ins.opcode == "select" else ops:
            out = _join(out, t)
        return out
    if _carries(ins) and any(t is not _CLEAN for t in ops):
        return None
    return out


def _value_refs(op: Operand) -> list[int]:
    """The instructions whose results an operand names (constant expressions hold none)."""
    return [op.ref] if op.kind == "value" else []


def _carries(ins: Instruction) -> bool:
    """Whether the result of ``ins`` can carry a shared address from its operands: not what
    memory reads and comparisons return (data), unless typed as a shared pointer."""
    if shared_type(ins.type):
        return True
    if ins.opcode in _DATA_OPS:
        return False
    if ins.opcode == "call" and ins.callee is not None:
        c = ins.callee
        if (c.kind == "asm" and _READS.search(c.text)) or (
            c.kind == "function" and _READS.search(c.name)
        ):
            return False
    return True


def uses_smem(op: Operand, tainted: set[int], fn: Function) -> bool:
    """Whether an operand may carry a shared address."""
    if op.kind == "value":
        return op.ref in tainted
    if op.kind == "arg":
        return 0 <= op.ref < len(fn.params) and shared_type(fn.params[op.ref].type)
    return _mentions_smem(op)
