"""Check the LLVM IR against the plan: every shared-memory address lands in its function's range.

The text is read by LLVM's own parser (``alias_spec.ir.llir``, through llvmlite); this module
evaluates it. Every address derived from ``@global_smem`` is rebuilt as a z3 bit-vector over the
thread id (``llvm.nvvm.read.ptx.sreg.tid.x``, bounded by the block size the function requires)
and the values it cannot see through (opaque: function arguments, loads, loop-carried values):
address arithmetic (``getelementptr`` chains, constant expressions, ``ptrtoint`` /
``inttoptr``, add, sub, mul, and, or, xor, shifts, extensions, ``select``, ``icmp``, phis
whose incoming values are known) is exact. Each access (load, store, atomics, ldmatrix /
stmatrix, and inline ``ld.shared`` / ``st.shared`` / ``cp.async`` / mbarrier asm) must then lie
inside the range the plan gives its function: the kernel's ``[0, ttg.shared)``, a callee's frame
as placed at each of its call sites (and a wgmma operand or TMA box inside its own buffer).

What is not judged is a note (the run is partial), never proved: an access whose size or
address is not bounded, a shared access the evaluator does not model (through a generic pointer,
inline asm on an address not derived from ``@global_smem``), any other use of a shared address
it does not understand, a call to a function the module only declares (other than LLVM's
intrinsics and CUDA's libraries), an indirect call, a callee with no frame in the plan, a
block-size attribute it cannot read, and a solver query that runs out of time. LLVM IR that
defines no function, or none of the TTGIR's, is an error (not evidence about this kernel).
Callees are matched to the plan's frames by symbol, however either side quotes it.

Work is bounded and about linear in the IR: each query has a timeout, each function a budget
for the search of loop bounds, and every query is asked over the constraints that bear on it
(those sharing a variable with it), not over all those of the function.
"""

from __future__ import annotations

import re
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import z3

from alias_spec.ir.llir import (
    Function,
    Instruction,
    LlirError,
    Module,
    Operand,
    read,
    split_top,
)
from alias_spec.ir.ttgir import plain_symbol
from alias_spec.model.facts import elem_bytes
from alias_spec.plan.attribution import Attribution
from alias_spec.plan.guards import Guards
from alias_spec.plan.plan import Finding, Note, Report
from alias_spec.plan.terms import WIDTH, Access, Value, address_arg, as_bool, fit

__all__ = ["LlirError", "check_lowering", "read_llir", "Evaluator", "accesses"]

_SMEM = "global_smem"
_INT_TY = re.compile(r"^i(\d+)$")
_VECTOR = re.compile(r"<\s*(\d+)\s+x\s+(i\d+)\s*>")
INVARIANT_STEPS = 8  # iterations before widening a loop-carried value's interval
OPT_TIMEOUT_MS = 1_000  # one optimisation or check while searching a loop bound
QUERY_TIMEOUT_MS = 10_000  # one access's proof
BOUND_BUDGET_S = 20.0  # a function's whole search of loop bounds; past it: not bounded


def read_llir(text: str) -> Module:
    """The module (LlirError, one line, on text LLVM does not accept)."""
    return read(text)


# --- types -------------------------------------------------------------------------------------


def type_size(ty: str) -> int | None:
    """Store size in bytes of an LLVM type (None for what is not modelled)."""
    ty = ty.strip()
    m = _INT_TY.match(ty)
    if m:
        return elem_bytes(int(m.group(1)))  # an iN stores in ceil(N / 8) bytes
    simple = {"half": 2, "bfloat": 2, "float": 4, "double": 8, "ptr": 8}
    if ty in simple:
        return simple[ty]
    if ty.startswith("ptr addrspace(3)"):
        return 4
    if ty.startswith("ptr addrspace("):
        return 8
    m = re.fullmatch(r"[<\[]\s*(\d+)\s+x\s+(.+?)\s*[>\]]", ty)
    if m:
        inner = type_size(m.group(2))
        return None if inner is None else int(m.group(1)) * inner
    return None


def _elem_type(ty: str) -> str | None:
    m = re.fullmatch(r"[<\[]\s*\d+\s+x\s+(.+?)\s*[>\]]", ty.strip())
    return m.group(1) if m else None


def _width(ty: str) -> int | None:
    ty = ty.strip()
    m = _INT_TY.match(ty)
    if m:
        return int(m.group(1))
    if ty.startswith("ptr addrspace(3)"):
        return WIDTH
    if ty.startswith("ptr"):
        return 64
    return None


def _shared_type(ty: str) -> bool:
    return ty.startswith("ptr addrspace(3)") or "ptr addrspace(3)" in ty and ty[:1] in "<{["


# --- the control flow and the values that may carry a shared address ---------------------------


def _mentions_smem(op: Operand) -> bool:
    if op.kind == "global":
        return op.name == _SMEM or _shared_type(op.type)
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


def _aggregate(ty: str) -> bool:
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
    if not _shared_type(ty) and "ptr addrspace(3)" not in ty:
        return _CLEAN
    fields = _struct_fields(ty)
    if fields is None:
        return None
    return frozenset(i for i, f in enumerate(fields) if "ptr addrspace(3)" in f) or None


def _operand_taint(op: Operand, tainted: dict[int, Taint], fn: Function) -> Taint | object:
    if op.kind == "value":
        return tainted.get(op.ref, _CLEAN)
    return None if _uses(op, set(), fn) else _CLEAN


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
                    got = _join(got, frozenset({o}) if _aggregate(ins.type) else None)
            return _join(out, got)
    if _aggregate(ins.type) and ins.opcode in ("phi", "freeze", "select"):
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
    if _shared_type(ins.type):
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


def _uses(op: Operand, tainted: set[int], fn: Function) -> bool:
    """Whether an operand may carry a shared address."""
    if op.kind == "value":
        return op.ref in tainted
    if op.kind == "arg":
        return 0 <= op.ref < len(fn.params) and _shared_type(fn.params[op.ref].type)
    return _mentions_smem(op)


# --- the evaluator -------------------------------------------------------------------------------


class Evaluator:
    """Values of one function as z3 terms, built on demand."""

    def __init__(self, fn: Function, threads: int | None) -> None:
        self.fn = fn
        self.back_edges = back_edges(fn)
        self.tainted = find_taint(fn)
        self.cache: dict[int, Value] = {}
        self.active: set[int] = set()
        self.constraints: list[z3.BoolRef] = []
        self.threads = threads
        self.tid: z3.BitVecRef | None = None
        self.fresh = 0
        self.pending: set[int] = set()  # phis whose incoming values are being built
        self.hits: list[set[int]] = []  # per phi being built: the pending phis it reached
        self.bounded: dict[str, str] = {}  # loop-carried phi -> its invariant, as text
        # Loop-carried phis whose bounds are not searched yet (only when a proof needs them):
        # var name -> (var, incoming values, incoming edges, phi name)
        self.deferred: dict[str, tuple[z3.BitVecRef, list[Value], list[tuple[int, int]], str]]
        self.deferred = {}
        self._solver: z3.Solver | None = None
        self._synced = 0
        # Per constraint: its variables' names; per name: the constraints that mention it.
        self._cvars: list[frozenset[str]] = []
        self._by_var: dict[str, list[int]] = {}
        self._defines: dict[int, str] = {}  # a merge's equation -> the merge's name
        # Cheap bounds for the interval pre-check: a variable's unsigned range, a merge's
        # incoming values (the solver is asked only what intervals cannot show).
        self.var_range: dict[str, tuple[int, int]] = {}
        self.var_merge: dict[str, list[z3.BitVecRef]] = {}
        self.ranges: dict[str, tuple[int, int]] = {}  # found by _interval, not yet published
        # AST id -> (the AST, kept alive so that its id is not reused; its bounds)
        self._memo: dict[int, tuple[z3.ExprRef, tuple[int, int]]] = {}
        # The search of loop bounds stops here; a query that ran out of time sets ``gave_up``.
        self.deadline: float | None = None
        self.gave_up = False
        self.ttgir: Any = None  # the TTGIR module, when given (hopper.py reads its TMA ops)
        self.modelled: list[Access] = []  # accesses hopper.py adds (TMA boxes, wgmma operands)
        self.buffers: list[Any] = []  # the plan's buffers (hopper.py finds an operand's own)
        self.attribution: Attribution | None = None  # each access's buffers, by location

    def uses_shared(self, op: Operand) -> bool:
        return _uses(op, self.tainted, self.fn)

    # --- interval arithmetic ----------------------------------------------------------------

    def interval(self, e: z3.BitVecRef, depth: int = 0) -> tuple[int, int]:
        """Unsigned bounds of ``e`` by interval arithmetic (sound; the full range when an
        operation may wrap or is not modelled here)."""
        w = e.size()
        full = (0, (1 << w) - 1)
        key = e.get_id()
        if key in self._memo:
            return self._memo[key][1]
        if depth > 200:
            return full
        out = full
        if z3.is_bv_value(e):
            out = (e.as_long(), e.as_long())  # type: ignore[attr-defined]
        elif z3.is_const(e):
            name = str(e)
            if name in self.var_range:
                out = self.var_range[name]
            elif name in self.var_merge:
                parts = [self.interval(x, depth + 1) for x in self.var_merge[name]]
                out = (min(a for a, _ in parts), max(b for _, b in parts))
        else:
            out = self._interval_op(e, w, depth)
        self._memo[key] = (e, out)
        return out

    def _interval_op(self, e: z3.BitVecRef, w: int, depth: int) -> tuple[int, int]:
        full = (0, (1 << w) - 1)
        k = e.decl().kind()
        kids = e.children()

        def iv(x: z3.ExprRef) -> tuple[int, int]:
            return self.interval(x, depth + 1)  # type: ignore[arg-type]

        def fits(lo: int, hi: int) -> tuple[int, int]:
            return (lo, hi) if 0 <= lo <= hi <= full[1] else full

        if k == z3.Z3_OP_BADD:
            parts = [iv(x) for x in kids]
            return fits(sum(a for a, _ in parts), sum(b for _, b in parts))
        if k == z3.Z3_OP_BMUL:
            lo, hi = 1, 1
            for a, b in (iv(x) for x in kids):
                lo, hi = lo * a, hi * b
            return fits(lo, hi)
        if k == z3.Z3_OP_BSUB and len(kids) == 2:
            c = _remainder_of(kids[0], kids[1])
            if c is not None:  # x - (x / c) * c, the compiler's spelling of x % c
                return (0, c - 1)
            (a0, a1), (b0, b1) = iv(kids[0]), iv(kids[1])
            return fits(a0 - b1, a1 - b0) if a0 >= b1 else full
        if k == z3.Z3_OP_BAND:
            return (0, min(b for _, b in (iv(x) for x in kids)))
        if k in (z3.Z3_OP_BOR, z3.Z3_OP_BXOR):
            parts = [iv(x) for x in kids]
            top = (1 << max(b for _, b in parts).bit_length()) - 1
            if k == z3.Z3_OP_BOR:
                return (max(a for a, _ in parts), min(top, sum(b for _, b in parts)))
            return (0, top)
        if k in (z3.Z3_OP_BSHL, z3.Z3_OP_BLSHR) and z3.is_bv_value(kids[1]):
            n = kids[1].as_long()  # type: ignore[attr-defined]
            a, b = iv(kids[0])
            return fits(a << n, b << n) if k == z3.Z3_OP_BSHL else (a >> n, b >> n)
        if k in (z3.Z3_OP_BUDIV, z3.Z3_OP_BUDIV_I, z3.Z3_OP_BUREM, z3.Z3_OP_BUREM_I) and (
            z3.is_bv_value(kids[1]) and kids[1].as_long() > 0  # type: ignore[attr-defined]
        ):
            c = kids[1].as_long()  # type: ignore[attr-defined]
            a, b = iv(kids[0])
            if k in (z3.Z3_OP_BUDIV, z3.Z3_OP_BUDIV_I):
                return (a // c, b // c)
            return (a, b) if b < c else (0, c - 1)
        if k == z3.Z3_OP_ITE:
            (a0, a1), (b0, b1) = iv(kids[1]), iv(kids[2])
            return (min(a0, b0), max(a1, b1))
        if k == z3.Z3_OP_ZERO_EXT:
            return iv(kids[0])
        if k == z3.Z3_OP_SIGN_EXT:
            a, b = iv(kids[0])
            return (a, b) if b < 1 << (kids[0].size() - 1) else full  # type: ignore[attr-defined]
        if k == z3.Z3_OP_EXTRACT:
            hi_bit, lo_bit = e.params()
            a, b = iv(kids[0])
            if a >> (hi_bit + 1) == b >> (hi_bit + 1):
                # The bits above the field do not vary: x mod 2^(hi+1) is monotone on [a, b].
                low = (1 << (hi_bit + 1)) - 1
                return ((a & low) >> lo_bit, (b & low) >> lo_bit)
            return full
        if k == z3.Z3_OP_CONCAT:
            out = (0, 0)
            for x in kids:  # high part first: each part shifts what came before
                (a, b), n = iv(x), x.size()  # type: ignore[attr-defined]
                # h * 2^n + l over h in [lo0, hi0], l in [a, b]: least and greatest at the ends.
                out = ((out[0] << n) + a, (out[1] << n) + b)
            return out
        return full

    # --- solvers --------------------------------------------------------------------------------

    def relevant(self, exprs: Sequence[z3.ExprRef]) -> list[z3.BoolRef]:
        """The constraints that bear on ``exprs``: those sharing a variable with them, closed
        over shared variables (a merge's equation only through the merge itself). A query
        over this slice is one over fewer facts (a proof on it holds with all of them), and
        its size is that of the values involved, not of the whole function: each loop's bound
        search stays local (linear work, not quadratic)."""
        for i in range(len(self._cvars), len(self.constraints)):
            names = frozenset(c.decl().name() for c in _consts(self.constraints[i]))
            self._cvars.append(names)
            # A merge's equation is reached from the merge alone: it constrains nothing else
            # (the merge is free otherwise), and reached from its operands it would drag in
            # every merge built on them (a thread id's: the whole function's arithmetic).
            for n in [self._defines[i]] if i in self._defines else names:
                self._by_var.setdefault(n, []).append(i)
        todo = list({c.decl().name() for e in exprs for c in _consts(e)})
        seen_vars, picked = set(todo), set()
        while todo:
            for i in self._by_var.get(todo.pop(), ()):
                if i in picked:
                    continue
                picked.add(i)
                for n in self._cvars[i] - seen_vars:
                    seen_vars.add(n)
                    todo.append(n)
        return [self.constraints[i] for i in sorted(picked)]

    def solver(self) -> z3.Solver:
        """One solver for the function, holding every constraint found so far."""
        if self._solver is None:
            self._solver = z3.Solver()
            self._solver.set("timeout", QUERY_TIMEOUT_MS)
        self._solver.add(*self.constraints[self._synced :])
        self._synced = len(self.constraints)
        return self._solver

    def _out_of_time(self) -> bool:
        if self.deadline is None:
            self.deadline = time.monotonic() + BOUND_BUDGET_S
        if time.monotonic() > self.deadline:
            self.gave_up = True
            return True
        return False

    def bound(self, exprs: list[z3.ExprRef]) -> bool:
        """Search the bounds of the loop-carried phis these expressions mention (first those
        their incoming values mention); whether any bound was found."""
        found = False
        todo = [c for e in exprs for c in _consts(e) if str(c) in self.deferred]
        for c in todo:
            job = self.deferred.pop(str(c), None)
            if job is None or self._out_of_time():
                continue
            var, incs, edges, name = job
            found |= self.bound([v.expr for v in incs])
            got = self._invariant(var, incs, edges)
            if got:
                self.constraints.extend(got)
                self._memo.clear()
                rng = self.ranges.pop(str(var), None)
                if rng is not None:
                    self.var_range[str(var)] = rng
                self.bounded[name] = " and ".join(str(g) for g in got)
                found = True
        return found

    def _opaque(self, width: int, why: str) -> Value:
        self.fresh += 1
        return Value(z3.BitVec(f"{why}{self.fresh}", width), False, True)

    def _tid(self) -> Value:
        if self.tid is None:
            self.tid = z3.BitVec("tid.x", 32)
            bound = self.threads if self.threads else 1024  # the hardware's largest block
            self.constraints.append(z3.ULT(self.tid, z3.BitVecVal(bound, 32)))
            self.var_range["tid.x"] = (0, bound - 1)
        return Value(self.tid, False, self.threads is None)

    # --- operands and values ----------------------------------------------------------------

    def operand(self, op: Operand, width: int | None = None) -> Value:
        w = _width(op.type) or width
        kind = op.kind
        if kind == "value":
            return self.value(op.ref, w or WIDTH)
        if kind == "global":
            if op.name == _SMEM:
                return Value(z3.BitVecVal(0, WIDTH), True, False)
            return self._opaque(w or WIDTH, "global")
        if kind == "int":
            return Value(z3.BitVecVal(op.value or 0, w or 64), False, False)
        if kind == "bool":
            return Value(z3.BoolVal(bool(op.value)), False, False)
        if kind == "null" and w:
            return Value(z3.BitVecVal(0, w), False, False)
        vec = _VECTOR.fullmatch(op.type)
        if kind == "null" and vec:
            zero = z3.BitVecVal(0, _width(vec.group(2)) or WIDTH)
            return self._lanes(int(vec.group(1)), Value(zero, False, False))
        if kind == "vector" and vec:
            out = self._opaque(WIDTH, "vec")
            out.fields = {i: self.operand(x) for i, x in enumerate(op.elems)}
            return out
        if kind == "splat" and vec and op.elems:
            return self._lanes(int(vec.group(1)), self.operand(op.elems[0]))
        if kind == "expr":
            return self._expr(op, w or WIDTH)
        return self._opaque(w or WIDTH, "arg" if kind == "arg" else "const")

    def _lanes(self, n: int, lane: Value) -> Value:
        out = self._opaque(WIDTH, "vec")
        out.fields = dict.fromkeys(range(n), lane)
        return out

    def _expr(self, op: Operand, width: int) -> Value:
        """A constant expression (LLVM folds address arithmetic on @global_smem into them)."""
        if op.opcode == "getelementptr" and op.elems:
            return self._gep(op.text, op.elems[0], op.elems[1:])
        if op.opcode in _CASTS and op.elems:
            return self._cast(op.opcode, op.elems[0], op.type)
        if op.opcode in _BINOPS and len(op.elems) == 2:
            return self._binop(op.opcode, op.type, op.elems[0], op.elems[1], width)
        return self._opaque(width, "const")

    def value(self, idx: int, width: int) -> Value:
        if idx in self.cache:
            if idx in self.pending:
                for h in self.hits:
                    h.add(idx)
            return self.cache[idx]
        if idx in self.active:  # a cycle not through a phi: not SSA, not modelled
            return self._opaque(width, "loop")
        if not 0 <= idx < len(self.fn.instructions):
            return self._opaque(width, "x")
        ins = self.fn.instructions[idx]
        if ins.opcode == "phi":
            return self._phi(ins)
        self.active.add(idx)
        try:
            v = self._eval(ins, _width(ins.type) or width)
        finally:
            self.active.discard(idx)
        self.cache[idx] = v
        return v

    # --- phis: merges, and values carried around a loop ------------------------------------

    def edge_condition(self, frm: int, to: int) -> z3.BoolRef | None:
        """The condition under which control goes from block ``frm`` to block ``to`` (None:
        always, or unknown, which is the same for a sound bound)."""
        if not 0 <= frm < len(self.fn.blocks) or not self.fn.blocks[frm].instructions:
            return None
        term = self.fn.instructions[self.fn.blocks[frm].instructions[-1]]
        if term.opcode != "br" or len(term.targets) != 2 or term.targets[0] == term.targets[1]:
            return None
        c = self.operand(term.operands[0])
        if not isinstance(c.expr, z3.BoolRef):
            return None
        if term.targets[0] == to:
            return c.expr
        return z3.Not(c.expr) if term.targets[1] == to else None

    def _phi(self, ins: Instruction) -> Value:
        name, idx = ins.name or f"%{ins.index}", ins.index
        width = _width(ins.type)
        if width is None or not ins.operands or len(ins.incoming) != len(ins.operands):
            v = self._opaque(width or WIDTH, "phi")
            self.cache[idx] = v
            return v
        self.fresh += 1
        var = z3.BitVec(f"{name}.{self.fresh}", width)
        guess = _shared_type(ins.type)
        # Cached before its incoming values are built: a loop reaches it again through them.
        self.cache[idx] = Value(var, guess, True)
        self.pending.add(idx)
        self.hits.append(set())
        # Every SSA cycle passes through a phi, and this one is now cached: values being built
        # around it may be built again inside, so that the loop closes here, at the phi.
        active, self.active = self.active, set()
        try:
            incs = [self.operand(o, width) for o in ins.operands]
        finally:
            self.active = active
            reached = self.hits.pop()
            self.pending.discard(idx)
        if not all(isinstance(v.expr, z3.BitVecRef) for v in incs):
            v = self._opaque(width, "phi")
            self.cache[idx] = v
            return v
        smem = any(v.smem for v in incs)
        header = any((frm, ins.block) in self.back_edges for frm in ins.incoming)
        if not header and idx not in reached:
            # A merge: the phi is one of its incoming values, all of this same iteration.
            fitted = [fit(v.expr, width) for v in incs]  # type: ignore[arg-type]
            self._defines[len(self.constraints)] = str(var)
            self.constraints.append(z3.Or([var == f for f in fitted]))
            self.var_merge[str(var)] = fitted
            v = Value(var, smem, any(v.opaque for v in incs))
        else:
            # Carried around a loop: its value comes from an earlier iteration, so it is known
            # by the bounds the loop keeps it in (if any are found), never by an equation.
            edges = [(frm, ins.block) for frm in ins.incoming]
            self.deferred[str(var)] = (var, incs, edges, name)
            v = Value(var, smem, True)
        self.cache[idx] = v
        return v

    def _check(self, s: z3.Solver) -> Any:
        r = s.check()
        if r == z3.unknown:
            self.gave_up = True
        return r

    def _extreme(self, e: z3.BitVecRef, facts: list[z3.BoolRef], top: bool) -> int | None:
        """The largest (top) or smallest unsigned value of ``e`` under ``facts``; None when
        no value satisfies them or the solver gives up. Interval arithmetic first, then a
        binary search of solver checks (each bounded by its timeout)."""
        lo, hi = self.interval(e)
        if lo == hi:
            return lo
        s = z3.Solver()
        s.set("timeout", OPT_TIMEOUT_MS)
        s.add(*facts)
        if self._check(s) != z3.sat:
            return None
        best = s.model().eval(e, model_completion=True)
        if not z3.is_bv_value(best):
            return None
        val = best.as_long()  # type: ignore[attr-defined]
        # Invariant: val is reachable; nothing beyond the far end of [lo, hi] is.
        lo, hi = (val, hi) if top else (lo, val)
        for _ in range(e.size() + 2):
            if lo >= hi or self._out_of_time():
                break
            mid = (lo + hi + 1) // 2 if top else (lo + hi) // 2
            s.push()
            s.add(z3.UGE(e, mid) if top else z3.ULE(e, mid))
            r = self._check(s)
            if r == z3.sat:
                got = s.model().eval(e, model_completion=True).as_long()  # type: ignore[attr-defined]
                lo, hi = (got, hi) if top else (lo, got)
            s.pop()
            if r == z3.unknown:
                return None
            if r == z3.unsat:
                lo, hi = (lo, mid - 1) if top else (mid + 1, hi)
        if lo != hi:
            return None
        return lo

    def _invariant(
        self, var: z3.BitVecRef, incs: list[Value], edges: list[tuple[int, int]]
    ) -> list[z3.BoolRef]:
        """An interval invariant of a loop-carried phi: an interval I such that every incoming
        value lies in I whenever the phi does (each under the condition of its edge). Tried
        first without the edges' conditions (a wrapped stage index needs none), then with them
        (a counter bounded by its loop's guard); unsigned, then signed. Proved inductive."""
        conds: list[z3.BoolRef | None] = [None] * len(incs)
        for use_edges in (False, True):
            if use_edges:
                conds = [self.edge_condition(frm, to) for frm, to in edges]
                if all(c is None for c in conds):
                    break
            for signed in (False, True):
                if self._out_of_time():
                    return []
                found = self._interval(var, incs, conds, signed, widen=use_edges)
                if found is not None:
                    return [found]
        return []

    def _interval(self, var: z3.BitVecRef, incs: list[Value],
                  conds: list[z3.BoolRef | None], signed: bool,
                  widen: bool) -> z3.BoolRef | None:  # fmt: skip
        w = var.size()
        top = (1 << w) - 1
        flip = z3.BitVecVal(1 << (w - 1) if signed else 0, w)

        def key(e: z3.BitVecRef) -> z3.BitVecRef:
            return fit(e, w) ^ flip  # signed order as unsigned order

        def within(lo: int, hi: int) -> z3.BoolRef:
            k = key(var)
            return z3.And(z3.ULE(lo, k), z3.ULE(k, hi))

        def hull(facts: list[z3.BoolRef], only_entering: bool) -> tuple[int, int] | None:
            """The range of the incoming values under ``facts``."""
            got = []
            for v, c in zip(incs, conds, strict=True):
                e = key(v.expr)  # type: ignore[arg-type]
                if only_entering and _mentions(e, var):
                    continue
                f = facts + ([c] if c is not None else [])
                const = z3.simplify(e)
                if z3.is_bv_value(const):
                    got.append((const.as_long(), const.as_long()))  # type: ignore[attr-defined]
                    continue
                a, b = self._extreme(e, f, False), self._extreme(e, f, True)
                if a is None or b is None:
                    if self._unsat(f):
                        continue  # an edge never taken under these facts
                    return None
                got.append((a, b))
            if not got:
                return None
            return min(a for a, _ in got), max(b for _, b in got)

        base = self.relevant([var, *(v.expr for v in incs), *(c for c in conds if c is not None)])
        start = hull(base, True)
        if start is None:
            return None
        lo, hi = start
        solver = z3.Solver()
        solver.set("timeout", OPT_TIMEOUT_MS)
        solver.add(*base)
        widened = False
        for step in range(2 * INVARIANT_STEPS):
            if (lo, hi) == (0, top) or self._out_of_time():
                return None
            escaped: int | None = None
            for v, c in zip(incs, conds, strict=True):
                e = key(v.expr)  # type: ignore[arg-type]
                solver.push()
                solver.add(within(lo, hi), z3.Or(z3.ULT(e, lo), z3.UGT(e, hi)))
                if c is not None:
                    solver.add(c)
                r = self._check(solver)
                if r == z3.sat:
                    escaped = solver.model().eval(e, model_completion=True).as_long()
                solver.pop()
                if r == z3.unknown:
                    return None
                if escaped is not None:
                    break
            if escaped is None:
                # Inductive. Its unsigned range feeds the interval pre-check.
                half = 1 << (w - 1)
                if not signed:
                    self.ranges[str(var)] = (lo, hi)
                elif lo >= half:  # a signed interval of non-negative values
                    self.ranges[str(var)] = (lo - half, hi - half)
                return within(lo, hi)
            up = escaped > hi
            lo, hi = min(lo, escaped), max(hi, escaped)
            if step + 1 >= INVARIANT_STEPS:
                if widened or not widen:
                    return None
                widened = True  # once: as far as the loop's guards let the value go
                wide = hull(base + [within(lo, top) if up else within(0, hi)], False)
                if wide is None:
                    return None
                lo, hi = min(lo, wide[0]), max(hi, wide[1])
        return None

    def _unsat(self, facts: list[z3.BoolRef]) -> bool:
        s = z3.Solver()
        s.set("timeout", OPT_TIMEOUT_MS)
        s.add(*facts)
        return self._check(s) == z3.unsat

    # --- instructions ---------------------------------------------------------------------------

    def _gep(self, source_type: str, base_op: Operand, indices: list[Operand]) -> Value:
        base = self.operand(base_op)
        if not base.smem:
            return Value(base.expr, False, base.opaque)
        if not source_type:
            return self._opaque(WIDTH, "gep")
        offset = base.expr
        opaque = base.opaque
        ty: str | None = source_type
        for i, idx in enumerate(indices):
            if ty is None:
                return self._opaque(WIDTH, "gep")
            if i > 0:
                ty = _elem_type(ty)
                if ty is None:
                    return self._opaque(WIDTH, "gep")
            size = type_size(ty)
            if size is None:
                return self._opaque(WIDTH, "gep")
            iv = self.operand(idx)
            if not isinstance(iv.expr, z3.BitVecRef):
                return self._opaque(WIDTH, "gep")
            offset = offset + fit(iv.expr, WIDTH, signed=True) * size
            opaque = opaque or iv.opaque
        return Value(offset, True, opaque)

    def _binop(self, op: str, ty: str, a_op: Operand, b_op: Operand, width: int) -> Value:
        a, b = self.operand(a_op), self.operand(b_op)
        if _VECTOR.fullmatch(ty):  # lane by lane, for the lanes known on both sides
            out = self._opaque(WIDTH, "vec")
            out.fields = {}
            for i in set(a.fields or {}) & set(b.fields or {}):
                x, y = (a.fields or {})[i], (b.fields or {})[i]
                if isinstance(x.expr, z3.BitVecRef) and isinstance(y.expr, z3.BitVecRef):
                    w = max(x.expr.size(), y.expr.size())
                    out.fields[i] = Value(_BINOPS[op](fit(x.expr, w), fit(y.expr, w)),
                                          x.smem or y.smem, x.opaque or y.opaque)  # fmt: skip
            return out
        if ty == "i1" and op in ("and", "or", "xor"):  # predicates combined
            f = {"and": z3.And, "or": z3.Or, "xor": z3.Xor}[op]
            return Value(f(as_bool(a.expr), as_bool(b.expr)), False, a.opaque or b.opaque)
        if not (isinstance(a.expr, z3.BitVecRef) and isinstance(b.expr, z3.BitVecRef)):
            return self._opaque(width, "x")
        w = max(a.expr.size(), b.expr.size())
        ea, eb = fit(a.expr, w), fit(b.expr, w)
        return Value(_BINOPS[op](ea, eb), a.smem or b.smem, a.opaque or b.opaque)

    def _cast(self, op: str, src: Operand, dst_ty: str) -> Value:
        width = _width(dst_ty) or WIDTH
        if op == "addrspacecast":
            # Out of (or into) shared memory: the generic address is not the shared offset.
            self.operand(src)
            return self._opaque(width, "cast")
        v = self.operand(src)
        lanes = _VECTOR.fullmatch(dst_ty)
        if lanes and v.fields is not None and op in ("zext", "sext", "trunc"):
            # Lane by lane (3.9 computes two ring slots as one vector urem of a truncation).
            lane_w = _width(lanes.group(2)) or WIDTH
            out = self._opaque(WIDTH, "vec")
            out.fields = {}
            for i, x in v.fields.items():
                if isinstance(x.expr, z3.BitVecRef) and lane_w > 1:
                    out.fields[i] = Value(fit(x.expr, lane_w, signed=(op == "sext")), x.smem,
                                          x.opaque)  # fmt: skip
            return out
        if isinstance(v.expr, z3.BoolRef) and op in ("zext", "sext"):
            one = z3.BitVecVal(1 if op == "zext" else (1 << width) - 1, width)
            return Value(z3.If(v.expr, one, z3.BitVecVal(0, width)), False, v.opaque)
        if op == "bitcast" and v.fields is not None:
            return v
        if not isinstance(v.expr, z3.BitVecRef):
            return self._opaque(width, "x")
        if width == 1 and op == "trunc":
            return Value(z3.Extract(0, 0, v.expr) == 1, False, v.opaque)
        smem = v.smem or (op == "inttoptr" and dst_ty.startswith("ptr addrspace(3)"))
        return Value(fit(v.expr, width, signed=(op == "sext")), smem, v.opaque)

    def _eval(self, ins: Instruction, width: int) -> Value:
        op, ops = ins.opcode, ins.operands
        if op == "getelementptr" and ops:
            return self._gep(ins.source_type, ops[0], ops[1:])
        if op in _BINOPS and len(ops) == 2:
            return self._binop(op, ins.type, ops[0], ops[1], width)
        if op == "freeze" and ops:
            return self.operand(ops[0])
        if op in _CASTS and ops:
            return self._cast(op, ops[0], ins.type)
        if op == "select" and len(ops) == 3:
            cond = self.operand(ops[0])
            a, b = self.operand(ops[1]), self.operand(ops[2])
            if isinstance(a.expr, z3.BoolRef) and isinstance(b.expr, z3.BoolRef):
                return Value(z3.If(as_bool(cond.expr), a.expr, b.expr), False,
                             cond.opaque or a.opaque or b.opaque)  # fmt: skip
            if not (isinstance(a.expr, z3.BitVecRef) and isinstance(b.expr, z3.BitVecRef)):
                return self._opaque(width, "x")
            w = max(a.expr.size(), b.expr.size())
            return Value(z3.If(as_bool(cond.expr), fit(a.expr, w), fit(b.expr, w)),
                         a.smem or b.smem, cond.opaque or a.opaque or b.opaque)  # fmt: skip
        if op == "icmp" and len(ops) == 2:
            a, b = self.operand(ops[0]), self.operand(ops[1])
            if ins.predicate not in _PREDS or not (
                isinstance(a.expr, z3.BitVecRef) and isinstance(b.expr, z3.BitVecRef)
            ):
                self.fresh += 1
                return Value(z3.Bool(f"cmp{self.fresh}"), False, True)
            w = max(a.expr.size(), b.expr.size())
            return Value(_PREDS[ins.predicate](fit(a.expr, w), fit(b.expr, w)), False,
                         a.opaque or b.opaque)  # fmt: skip
        if op == "insertvalue" and len(ops) == 2 and len(ins.indices) == 1:
            agg = self.operand(ops[0]) if ops[0].kind == "value" else None
            fields = dict(agg.fields or {}) if agg is not None else {}
            fields[ins.indices[0]] = self.operand(ops[1])
            out = self._opaque(WIDTH, "agg")
            out.fields = fields
            return out
        if op == "extractvalue" and len(ops) == 1 and len(ins.indices) == 1:
            got = (self.operand(ops[0]).fields or {}).get(ins.indices[0])
            return got if got is not None else self._opaque(width, "x")
        if op == "insertelement" and len(ops) == 3 and ops[2].kind == "int":
            vec = self.operand(ops[0])
            out = self._opaque(WIDTH, "vec")
            out.fields = dict(vec.fields or {})
            out.fields[ops[2].value or 0] = self.operand(ops[1])
            return out
        if op == "extractelement" and len(ops) == 2 and ops[1].kind == "int":
            got = (self.operand(ops[0]).fields or {}).get(ops[1].value or 0)
            return got if got is not None else self._opaque(width, "x")
        if op == "shufflevector" and len(ops) == 2:
            return self._shuffle(ins)
        if op == "call" and ins.callee is not None and ins.callee.kind == "function":
            return self._intrinsic(ins.callee.name, ops, width)
        tied = asm_pass_through(ins) if op == "call" else None
        if tied is not None:
            # A register fence: each tied output is its input's value; the others unknown.
            if not _aggregate(ins.type):
                i = tied.get(0)
                return self.operand(ops[i]) if i is not None and i < len(ops) else (
                    self._opaque(width, "x"))  # fmt: skip
            out = self._opaque(WIDTH, "agg")
            out.fields = {o: self.operand(ops[i]) for o, i in tied.items() if i < len(ops)}
            return out
        return self._opaque(width, "x")

    def _shuffle(self, ins: Instruction) -> Value:
        """Lane i of the result is lane mask[i] of the two inputs laid end to end; a poison or
        undef mask lane, or a lane not known, is left out (not known)."""
        out = self._opaque(WIDTH, "vec")
        out.fields = {}
        vec = _VECTOR.fullmatch(ins.operands[0].type)
        masks = list(_SHUFFLE_MASK.finditer(ins.text.split(", !", 1)[0]))
        if vec is None or not masks:
            return out
        n = int(vec.group(1))
        a, b = (self.operand(o) for o in ins.operands)
        count, lanes = int(masks[-1].group(1)), masks[-1].group(2)
        picks: list[int | None] = [0] * count
        if lanes is not None:
            picks = [int(x) if x.lstrip("-").isdigit() else None
                     for x in re.findall(r"i32\s+(-?\d+|poison|undef)", lanes)]  # fmt: skip
        for i, k in enumerate(picks):
            if k is None or k < 0:
                continue
            src = a if k < n else b
            got = (src.fields or {}).get(k if k < n else k - n)
            if got is not None:
                out.fields[i] = got
        return out

    def _intrinsic(self, callee: str, args: list[Operand], width: int) -> Value:
        if callee == "llvm.nvvm.read.ptx.sreg.tid.x":
            return self._tid()
        if callee == "llvm.nvvm.read.ptx.sreg.laneid":
            tid = self._tid()
            return Value(tid.expr & 31, False, tid.opaque)  # type: ignore[operator]
        red = re.fullmatch(r"llvm\.vector\.reduce\.(or|add|and|xor)\.v(\d+)i\d+", callee)
        if red and len(args) == 1:
            vec = self.operand(args[0])
            lanes = [(vec.fields or {}).get(i) for i in range(int(red.group(2)))]
            if lanes and all(v is not None and isinstance(v.expr, z3.BitVecRef) for v in lanes):
                acc = lanes[0]
                for v in lanes[1:]:
                    acc = Value(_BINOPS[red.group(1)](acc.expr, v.expr), acc.smem or v.smem,
                                acc.opaque or v.opaque)  # type: ignore[union-attr]  # fmt: skip
                return acc  # type: ignore[return-value]
            return self._opaque(width, "x")
        if callee == "llvm.nvvm.shfl.sync.idx.i32" and len(args) == 4:
            # A broadcast from one lane of the warp: exact when the value is a function of
            # the thread id alone (then it is that function at the source lane's thread id).
            mask, v, lane, clamp = (self.operand(a) for a in args)
            consts = [z3.simplify(x.expr) for x in (mask, lane, clamp)]
            if (
                isinstance(v.expr, z3.BitVecRef)
                and not v.opaque
                and all(z3.is_bv_value(c) for c in consts)
                and consts[0].as_long() == 0xFFFFFFFF  # type: ignore[union-attr]
                and consts[2].as_long() == 31  # type: ignore[union-attr]
                and consts[1].as_long() < 32  # type: ignore[union-attr]
            ):
                if self.tid is None:
                    return v
                src = (self.tid & ~31) | consts[1].as_long()  # type: ignore[union-attr]
                return Value(z3.substitute(v.expr, (self.tid, src)), v.smem, False)
            return self._opaque(width, "x")
        mm = re.fullmatch(r"llvm\.([su])(min|max)\.i\d+", callee)
        if mm and len(args) == 2:
            a, b = self.operand(args[0]), self.operand(args[1])
            if isinstance(a.expr, z3.BitVecRef) and isinstance(b.expr, z3.BitVecRef):
                w = max(a.expr.size(), b.expr.size())
                x, y = fit(a.expr, w), fit(b.expr, w)
                less = z3.ULT(x, y) if mm.group(1) == "u" else x < y
                pick = z3.If(less, x, y) if mm.group(2) == "min" else z3.If(less, y, x)
                return Value(pick, a.smem or b.smem, a.opaque or b.opaque)
        return self._opaque(width, "x")


def _remainder_of(x: z3.ExprRef, y: z3.ExprRef) -> int | None:
    """c when ``y`` is ``(x udiv c) * c`` (either operand order) with a constant c > 0."""
    if y.decl().kind() != z3.Z3_OP_BMUL or len(y.children()) != 2:
        return None
    for q, c in (y.children(), reversed(y.children())):
        if (
            z3.is_bv_value(c)
            and c.as_long() > 0  # type: ignore[attr-defined]
            and q.decl().kind() in (z3.Z3_OP_BUDIV, z3.Z3_OP_BUDIV_I)
            and q.children()[0].eq(x)
            and q.children()[1].eq(c)
        ):
            return c.as_long()  # type: ignore[attr-defined]
    return None


def _consts(e: z3.ExprRef) -> list[z3.ExprRef]:
    """The free constants (variables) of ``e``."""
    seen: set[int] = set()
    out = []
    todo = [e]
    while todo:
        x = todo.pop()
        if x.get_id() in seen:
            continue
        seen.add(x.get_id())
        if z3.is_const(x) and x.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            out.append(x)
        todo.extend(x.children())
    return out


def _mentions(e: z3.ExprRef, var: z3.ExprRef) -> bool:
    """Whether ``var`` occurs in ``e``."""
    seen: set[int] = set()
    todo = [e]
    while todo:
        x = todo.pop()
        if x.get_id() in seen:
            continue
        seen.add(x.get_id())
        if z3.is_const(x) and x.eq(var):
            return True
        todo.extend(x.children())
    return False


_CASTS = ("zext", "sext", "trunc", "ptrtoint", "inttoptr", "bitcast", "addrspacecast")
_BINOPS: dict[str, Any] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "and": lambda a, b: a & b,
    "or": lambda a, b: a | b,
    "xor": lambda a, b: a ^ b,
    "shl": lambda a, b: a << b,
    "lshr": lambda a, b: z3.LShR(a, b),
    "ashr": lambda a, b: a >> b,
    "udiv": lambda a, b: z3.UDiv(a, b),
    "sdiv": lambda a, b: a / b,
    "srem": lambda a, b: z3.SRem(a, b),
    "urem": lambda a, b: z3.URem(a, b),
}
_PREDS: dict[str, Any] = {
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "ult": z3.ULT,
    "ule": z3.ULE,
    "ugt": z3.UGT,
    "uge": z3.UGE,
    "slt": lambda a, b: a < b,
    "sle": lambda a, b: a <= b,
    "sgt": lambda a, b: a > b,
    "sge": lambda a, b: a >= b,
}
# Ops whose use of a shared address the evaluator follows (the address flows into their
# result, or they only compare or branch on it); any other use of one is a note.
_FOLLOWED = {
    "getelementptr", "freeze", "select", "phi", "icmp", "insertvalue", "extractvalue",
    "insertelement", "extractelement", "shufflevector", "br", "switch", *_CASTS, *_BINOPS,
}  # fmt: skip


# --- inline PTX ---------------------------------------------------------------------------------

_ASM_SIZE = [
    (re.compile(r"\.b128\b"), 16),
    (re.compile(r"\.v4\.(?:b|u|s|f)32"), 16),
    (re.compile(r"\.v2\.(?:b|u|s|f)64"), 16),
    (re.compile(r"\.v8\.(?:b|u|s|f)16"), 16),
    (re.compile(r"\.v2\.(?:b|u|s|f)32"), 8),
    (re.compile(r"\.v4\.(?:b|u|s|f)16"), 8),
    (re.compile(r"\.v2\.(?:b|u|s|f)16"), 4),
    (re.compile(r"\.v4\.(?:b|u|s)8"), 4),
    (re.compile(r"\.v2\.(?:b|u|s)8"), 2),
    (re.compile(r"\.(?:b|u|s|f)64"), 8),
    (re.compile(r"\.(?:b|u|s|f)32"), 4),
    (re.compile(r"\.(?:b|u|s|f|bf)16"), 2),
    (re.compile(r"\.(?:b|u|s)8"), 1),
]
_BRACKETS = re.compile(r"\[([^\[\]]*)\]")
# A shufflevector's mask: its lanes written out, or all zero (then its lane count first).
_SHUFFLE_MASK = re.compile(r"<(\d+) x i32> (?:<([^<>]*)>|zeroinitializer)\s*(?:,|$)")
_SIMPLE_ADDRESS = re.compile(r"^\s*\$(\d+)\s*(?:\+\s*(-?(?:0x[0-9a-fA-F]+|\d+))\s*)?$")
_OPERAND = re.compile(r"\$(\d+)")
_NAMES_SHARED = re.compile(r"\bcvta(?:\.to)?\.shared\b|\bglobal_smem\b")
_PRED = re.compile(r"^@(!?)\$(\d+)\s+")


def _shared_op(op: str) -> bool:
    """A PTX instruction whose bracketed operand is (or may be) a shared-memory address."""
    return ".shared" in op or op.startswith(("ldmatrix", "stmatrix", "mbarrier.", "cp.async."))


def bulk_copy_size(ptx: str, args: list[Operand], ev: Evaluator) -> int | None:
    """Bytes a ``cp.async.bulk`` (TMA) instruction surely touches at its shared operands
    (None: a note "its size is not readable here"). The box size lives in the tensor map:
    ``hopper.py`` takes it from the TTGIR op at the same location."""
    from alias_spec.plan import hopper

    return hopper.bulk_copy_size(ptx, args, ev)


def source_buffer(ptx: str, args: list[Operand],
                  ev: Evaluator) -> list[tuple[int, int, str]] | None:  # fmt: skip
    """The buffer a TMA store's box must lie in (its TTGIR op's source); None for any other
    instruction, or where it is not known (``hopper.py``)."""
    from alias_spec.plan import hopper

    own = hopper.store_source_buffer(ptx, args, ev)
    return [own] if own is not None else None


def shared_address_as_value(ptx: str, args: list[Operand], ev: Evaluator) -> str | None:
    """The note for a PTX instruction that takes a shared address as a value, outside
    brackets (None: modelled). ``hopper.py`` decodes wgmma's operand descriptors."""
    from alias_spec.plan import hopper

    return hopper.shared_address_as_value(ptx, args, ev)


def _asm_size(ins: str, args: list[Operand], ev: Evaluator) -> int | None:
    """Bytes one thread's access through one address operand of this PTX instruction touches;
    None where that is not readable from the instruction (a note, never clean)."""
    op = ins.split()[0] if ins.split() else ""
    if op.startswith("mbarrier."):
        return 8
    if op.startswith("tcgen05."):
        from alias_spec.plan import hopper

        return hopper.tcgen05_size(op)
    if op.startswith("tensormap."):
        return 128  # a tensor map is 1024 bits
    if op.startswith("cp.async.bulk"):
        return bulk_copy_size(ins, args, ev)
    if op.startswith("cp.async"):
        m = re.search(r"\]\s*,\s*(0x[0-9a-fA-F]+|\d+)", ins)
        return int(m.group(1), 0) if m else None
    if op.startswith(("ldmatrix", "stmatrix")):
        return 16 if ".m8n8" in op else None  # each thread names one 16-byte row
    if op.startswith(("ld.", "st.", "atom.", "red.")) and ".shared" in op:
        for pat, size in _ASM_SIZE:
            if pat.search(op):
                return size
    return None


def _intrinsic_size(callee: str) -> int | None:
    if "matrix.sync.aligned.m8n8" in callee:
        return 16
    if ".mbarrier." in callee:
        return 8
    m = re.search(r"cp\.async\.(?:ca|cg)\.shared\.global\.(\d+)", callee)
    return int(m.group(1)) if m else None


def _asm_accesses(ins: Instruction, ev: Evaluator, out: list[Access], unread: list[str]) -> None:
    assert ins.callee is not None
    no, col, dbg = ins.line, ins.column, ins.dbg
    text, constraints, args = ins.callee.text, ins.callee.constraints, ins.operands
    outputs = sum(1 for c in constraints.split(",") if c.strip().startswith("="))
    values: dict[int, Value | None] = {}

    def operand(k: int) -> Value | None:
        if k not in values:
            i = k - outputs
            values[k] = address_arg(ev, args[i]) if 0 <= i < len(args) else None
        return values[k]

    def tainted(k: int) -> bool:
        i = k - outputs
        return 0 <= i < len(args) and ev.uses_shared(args[i])

    text = re.sub(r"//[^\n]*", "", text)  # comments name operands without using them
    noted = len(unread)
    for ptx in re.split(r"[;\n]", text):
        # Scope braces and labels open a line; vector operands keep their braces.
        ptx = re.sub(r"^(?:[{}]\s*|[\w$]+:\s*)+", "", ptx.strip()).strip()
        if not ptx or ptx.startswith("."):  # empty, or a declaration (.reg)
            continue
        cond: z3.BoolRef | None = None
        pm = _PRED.match(ptx)
        if pm:
            i = int(pm.group(2)) - outputs
            if 0 <= i < len(args):
                c = as_bool(ev.operand(args[i]).expr)
                cond = z3.Not(c) if pm.group(1) else c
            ptx = ptx[pm.end() :]
        name = ptx.split()[0] if ptx.split() else ""
        shared_op = _shared_op(name)
        in_brackets: set[int] = set()
        for mm in _BRACKETS.finditer(ptx):
            inner = mm.group(1)
            simple = _SIMPLE_ADDRESS.match(inner)
            named = {int(k) for k in _OPERAND.findall(inner)}
            in_brackets |= named
            if not simple:
                # An address built inside the asm (a register, a literal, a sum of operands):
                # unknown, unless it names no shared value in an op that is not a shared one.
                if any(tainted(k) or operand(k) is not None for k in named) or (
                    shared_op and not named
                ):
                    unread.append(f"line {no}: {name} on an address this reader cannot "
                                  "follow (not judged)")  # fmt: skip
                continue
            k = int(simple.group(1))
            v = operand(k)
            if v is None:
                if tainted(k):
                    unread.append(f"line {no}: {name} on an address computed from "
                                  "shared memory in a way not modelled")  # fmt: skip
                elif shared_op and not _other_space(args, k - outputs):
                    unread.append(f"line {no}: {name} on an address not derived from "
                                  "@global_smem (not judged)")  # fmt: skip
                continue
            size = _asm_size(ptx, args, ev)
            if size is None:
                unread.append(f"line {no}: {name} on a shared address (its size is "
                              "not readable here)")  # fmt: skip
                continue
            off = int(simple.group(2), 0) if simple.group(2) else 0
            expr = fit(v.expr, WIDTH) + off  # type: ignore[arg-type]
            out.append(Access(no, col, "asm " + name, size, Value(expr, True, v.opaque),
                              dbg, cond, source_buffer(ptx, args, ev)))  # fmt: skip
        bare = {int(k) for k in _OPERAND.findall(_BRACKETS.sub("", ptx))} - in_brackets
        for k in sorted(bare):
            if operand(k) is not None or tainted(k):
                why = shared_address_as_value(ptx, args, ev)
                if why:
                    unread.append(f"line {no}: {why}")
                break
    if len(unread) == noted and _NAMES_SHARED.search(text):
        # An address the asm makes itself (the shared base by name, a generic pointer from
        # cvta.shared): its accesses are not followed, so none of them is judged.
        unread.append(f"line {no}: inline asm that takes a shared address itself "
                      "(cvta.shared or @global_smem by name): not judged")  # fmt: skip


# --- accesses -------------------------------------------------------------------------------------

_MEMORY = {"load": (0, None), "store": (1, 0), "atomicrmw": (0, 1), "cmpxchg": (0, 1)}


def accesses(fn: Function, ev: Evaluator,
             defined: set[str] | None = None) -> tuple[list[Access], list[str]]:  # fmt: skip
    """Every shared-memory access of the function, and the instructions that touch shared
    memory in a way not modelled (their size, kind or address unknown). ``defined``: the
    module's function definitions (a call to a function it only declares is then a note,
    unless a known library that never touches shared memory)."""
    out: list[Access] = []
    unread: list[str] = []
    guards = Guards(fn, ev)
    for ins in fn.instructions:
        first, modelled = len(out), len(ev.modelled)
        _instruction_accesses(ins, ev, out, unread, defined)
        new = out[first:] + ev.modelled[modelled:]
        if not new:
            continue
        made = _address_locations(ins, ev)
        for acc in new:
            acc.cond = _guarded(acc.cond, guards.of(ins.block))
            acc.made_at = made
    out += ev.modelled  # what the Hopper hooks modelled (TMA boxes, wgmma operands)
    ev.modelled = []
    if ev.attribution is not None:
        for acc in out:
            made = ev.attribution.buffers_made_at(acc.made_at)
            if acc.within is None:
                acc.within = ev.attribution.buffers_at(acc.dbg)
            if acc.within is None:
                acc.within = made or None  # no op at its own location: where its address was
            else:
                # A neighbour live where the access's own op runs is one it can corrupt: not
                # excused. One dead there is the op its location was moved from.
                other = [o for o in made if o not in acc.within]
                live = ev.attribution.live_at(acc.dbg, other)
                acc.moved = [o for o in other if o not in live]
    return out, unread


def _address_locations(ins: Instruction, ev: Evaluator) -> tuple[str, ...]:
    """The locations of the instructions that computed the instruction's shared addresses,
    other than its own: each address operand's chain of ``getelementptr`` and casts back to
    its first pointer (LLVM gives the pieces of a split access new offsets at the access's
    location, on top of the op's own base)."""
    out: list[str] = []
    todo = [o for o in ins.operands if o.kind == "value" and ev.uses_shared(o)]
    seen: set[int] = set()
    while todo and len(seen) < _CHAIN:
        o = todo.pop()
        if not 0 <= o.ref < len(ev.fn.instructions) or o.ref in seen:
            continue
        seen.add(o.ref)
        src = ev.fn.instructions[o.ref]
        if src.dbg is not None and src.dbg != ins.dbg and src.dbg not in out:
            out.append(src.dbg)
        if src.opcode in _ADDRESS_STEPS and src.operands and src.operands[0].kind == "value":
            todo.append(src.operands[0])
    return tuple(out)


# How an address is carried from its base (the base pointer first), and how far it is followed.
_ADDRESS_STEPS = {"getelementptr", "bitcast", "addrspacecast", "inttoptr", "ptrtoint"}
_CHAIN = 16


def _instruction_accesses(ins: Instruction, ev: Evaluator, out: list[Access], unread: list[str],
                         defined: set[str] | None) -> None:  # fmt: skip
    op, ops, no = ins.opcode, ins.operands, ins.line
    if op in _MEMORY and len(ops) > max(i for i in _MEMORY[op] if i is not None):
        at, sized = _MEMORY[op]
        ptr = ops[at]
        ty = ins.type if sized is None else ops[sized].type
        if ptr.type.startswith("ptr addrspace(3)"):
            out.append(Access(no, ins.column, "atomic" if op in ("atomicrmw", "cmpxchg")
                              else op, type_size(ty), ev.operand(ptr), ins.dbg))  # fmt: skip
        elif ev.uses_shared(ptr):
            unread.append(f"line {no}: the {op} through a {_space(ptr.type)} pointer "
                          "computed from a shared address (not modelled)")  # fmt: skip
        if op == "store" and ops[0].type.startswith("ptr") and ev.uses_shared(ops[0]):
            unread.append(f"line {no}: a shared pointer stored to memory (its later uses "
                          "are not followed)")  # fmt: skip
    elif op == "call" and ins.callee is not None:
        _call_accesses(ins, ev, out, unread, defined)
    elif op not in _FOLLOWED and any(ev.uses_shared(o) for o in ops):
        unread.append(f"line {no}: {op} uses a value computed from a shared address "
                      "(not modelled)")  # fmt: skip


def _guarded(cond: z3.BoolRef | None, guards: list[z3.BoolRef]) -> z3.BoolRef | None:
    """The access's own predicate and the branch conditions that hold where it runs."""
    parts = ([cond] if cond is not None else []) + guards
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else z3.And(*parts)


def _other_space(args: list[Operand], i: int) -> bool:
    """The asm argument is a pointer into an address space that is not shared memory (the
    global side of a copy): typed so by LLVM, it cannot name a shared byte."""
    if not 0 <= i < len(args):
        return False
    m = re.match(r"ptr addrspace\((\d+)\)", args[i].type)
    return bool(m) and m.group(1) not in ("0", "3")


def _space(ty: str) -> str:
    m = re.match(r"ptr addrspace\((\d+)\)", ty)
    return f"addrspace({m.group(1)})" if m else "generic"


# Declared callees that never touch shared memory: LLVM's intrinsics (those taking a shared
# address are judged or noted by their arguments), CUDA's libdevice math, the NVVM reflection
# query, and the device printf and assert Triton emits (their buffers are local).
_LIBRARY = re.compile(r"^(?:llvm\.|__nv_|__nvvm_reflect$|vprintf$|__assertfail$)")


def _call_accesses(ins: Instruction, ev: Evaluator, out: list[Access], unread: list[str],
                   defined: set[str] | None = None) -> None:  # fmt: skip
    callee, no = ins.callee, ins.line
    assert callee is not None
    if callee.kind == "asm":
        _asm_accesses(ins, ev, out, unread)
        return
    if callee.kind != "function":
        what = "takes a shared address" if any(ev.uses_shared(a) for a in ins.operands) else (
            "calls a function this reader cannot name")  # fmt: skip
        unread.append(f"line {no}: an indirect call {what} (its shared accesses not judged)")
        return
    name = callee.name
    if defined is not None and name not in defined and not _LIBRARY.match(name):
        unread.append(f"line {no}: @{name} is only declared here (what it does to shared memory "
                      "is not judged)")  # fmt: skip
        return
    smem = [v for a in ins.operands if (v := address_arg(ev, a)) is not None]
    if not smem:
        if any(ev.uses_shared(a) for a in ins.operands):
            unread.append(f"line {no}: @{name} takes a value computed from a shared "
                          "address (not modelled)")  # fmt: skip
        return
    size = _intrinsic_size(name)
    if size is None or not name.startswith("llvm."):
        unread.append(f"line {no}: @{name} takes a shared address (not modelled)")
        return
    out.append(Access(no, ins.column, "call @" + name, size, smem[0], ins.dbg))


Sites = dict[str, list[tuple[str, int | None, int | None]]]


def frames(report: Report) -> Sites:
    """Callee -> (caller, frame offset, frame size) per call site, names plain (unquoted,
    escapes decoded): the TTGIR quotes a symbol that LLVM IR names bare, and the other way
    round. Read from the frame buffers' calls (their decoded symbol), else ``report.frames``."""
    out: Sites = {}
    for b in report.buffers:
        callee = getattr(b.op, "callee", None) or b.callee
        if b.kind == "frame" and callee:
            out.setdefault(plain_symbol(callee), []).append(
                (plain_symbol(b.function), b.offset, b.size)
            )
    if out:
        return out
    for callee, sites in report.frames.items():
        out.setdefault(plain_symbol(callee), []).extend(
            (plain_symbol(c), o, n) for c, o, n in sites
        )
    return out


KERNEL_RANGE = "the kernel's ttg.shared"


def placements(report: Report, fn: str, called: bool = False,
               sites: Sites | None = None) -> list[tuple[int, int, str]] | None:  # fmt: skip
    """(lo, hi, where) ranges a function's accesses must lie in, one per placement: the
    kernel's [0, ttg.shared); each frame of a callee, nested callers' bases added. None when
    no range is known: a frame whose place or size is unknown, or a function that is called
    (``called``: by the module, or internal to it) but has no frame in the plan, which is not
    the kernel and whose base is then unknown."""
    table = frames(report) if sites is None else sites

    def bases(name: str, depth: int = 0) -> list[tuple[int, list[str]]]:
        here = table.get(name)
        if not here:
            return [(0, [])]
        if depth > 32:
            return []
        return [
            (base + (offset or 0), [caller, *chain])
            for caller, offset, _ in here
            for base, chain in bases(caller, depth + 1)
        ]

    fn = plain_symbol(fn)
    mine = table.get(fn)
    if mine and any(o is None or n is None for _, o, n in mine):
        return None  # a frame whose place or size is unknown
    if not mine:
        if report.shared is None or called:
            return None
        return [(0, report.shared, KERNEL_RANGE)]
    frame = min(s for _, _, s in mine if s is not None)
    return [
        (base, base + frame, "its frame as placed by the call in " + " in ".join(
            f"@{c}" for c in chain))
        for base, chain in bases(fn)
    ]  # fmt: skip


# --- the check ---------------------------------------------------------------------------------

# What evaluating odd but accepted IR can raise (z3 sort mismatches and the like): a note.
_MISREAD = (z3.Z3Exception, ArithmeticError, LookupError, TypeError, ValueError)
DEEP_STACK = 512 * 2**20  # values are built recursively: long def-use chains need room
DEEP_RECURSION = 200_000


def ttgir_functions(report: Report) -> list[str]:
    """The TTGIR functions the plan names (owners of buffers, callers and callees of frames):
    the kernel among them whenever it has a buffer or calls a function that has one."""
    names = [b.function for b in report.buffers]
    for callee, sites in frames(report).items():
        names += [callee, *(c for c, _, _ in sites)]
    return list(dict.fromkeys(plain_symbol(n) for n in names))


def check_kernel(module: Module, kernels: Sequence[str] | None) -> None:
    """LlirError unless the IR defines a function and, when the TTGIR's function names are
    given, one of them: IR of another kernel is not evidence about this one."""
    if not module.functions:
        what = "only declarations" if module.declarations else "nothing"
        raise LlirError(f"the LLVM IR defines no function ({what}): not the lowering of a kernel")
    if not kernels:
        return
    wanted = {plain_symbol(k) for k in kernels}
    have = [f.name for f in module.functions]
    if not wanted & set(have):
        shown = ", ".join("@" + n for n in have[:3]) + (", ..." if len(have) > 3 else "")
        first = plain_symbol(kernels[0])
        raise LlirError(f"defines no function of the TTGIR module (@{first}); it "
                        f"defines {shown}: the LLVM IR of another kernel?")  # fmt: skip


def check_lowering(text: str, path: str, report: Report, num_warps: int | None,
                   kernels: Sequence[str] | None = None, ttgir: Any = None) -> None:  # fmt: skip
    """Add the lowering's findings and notes to ``report`` (in a thread with a deep stack).
    ``kernels``: the TTGIR module's function names (the IR must define one of them); by
    default those the plan names; ``ttgir``: the TTGIR module (its TMA ops size the copies;
    without it they are notes). LlirError (one line) on IR that is not this kernel's."""
    module = read_llir(text)
    check_kernel(module, kernels if kernels is not None else ttgir_functions(report))
    box: dict[str, BaseException] = {}

    def work() -> None:
        try:
            _check_lowering(module, path, report, num_warps, ttgir)
        except BaseException as exc:  # handed to the caller's thread
            box["error"] = exc

    old_stack, old_limit = threading.stack_size(), sys.getrecursionlimit()
    try:
        threading.stack_size(DEEP_STACK)
        sys.setrecursionlimit(max(old_limit, DEEP_RECURSION))
        t = threading.Thread(target=work, name="alias-spec-plan-lowering")
        t.start()
        t.join()
    finally:
        threading.stack_size(old_stack)
        sys.setrecursionlimit(old_limit)
    if "error" in box:
        raise box["error"]


_BLOCK_ATTR = re.compile(r'"nvvm\.(?:reqntid|maxntid)"')


def _note(report: Report, kind: str, message: str, line: int, column: int = 1) -> None:
    report.notes.append(Note(kind, message, line, column))


def _check_lowering(module: Module, path: str, report: Report, num_warps: int | None,
                    ttgir: Any = None) -> None:  # fmt: skip
    from alias_spec.plan import hopper

    report.llir_path = path
    checked = 0
    sites = frames(report)
    defined = {f.name for f in module.functions}
    typed = {plain_symbol(f.name) for f in ttgir.functions} if ttgir is not None else set()
    called = {ins.callee.name for f in module.functions for ins in f.instructions
              if ins.callee is not None and ins.callee.kind == "function"}  # fmt: skip
    for fn in module.functions:
        threads = fn.threads or (num_warps * 32 if num_warps else None)
        if fn.threads is None and _BLOCK_ATTR.search(fn.attributes):
            # The launch's block size is stated but not readable: the TTGIR's warps may
            # undercount it, so thread ids get the hardware's bound, and a note.
            threads = None
            _note(report, "lowering.threads", f"@{fn.name}: its block-size attribute is not "
                  "readable here, thread ids bounded by 1024", fn.line)  # fmt: skip
        inner = fn.name in called or fn.linkage in ("internal", "private")
        ranges = placements(report, fn.name, inner, sites)
        frameless = ranges is None and inner and fn.name not in sites
        if frameless and report.shared is not None and plain_symbol(fn.name) in typed:
            # A TTGIR function without scratch has no frame: what it addresses is its
            # arguments' and its callers' buffers, from the kernel's base. (One the TTGIR does
            # not have, LLVM's own, has a base nobody states.)
            ranges = [(0, report.shared, KERNEL_RANGE + " (a callee without a frame)")]
        try:
            ev = Evaluator(fn, threads)
            ev.ttgir = ttgir
            ev.buffers = report.buffers
            ev.attribution = Attribution(ttgir, report.buffers, fn.name, frameless)
            found, unread = accesses(fn, ev, defined)
        except RecursionError:
            _note(report, "lowering.unbounded",
                  f"@{fn.name}: its values are nested too deeply to evaluate (not judged)",
                  fn.line)  # fmt: skip
            continue
        except _MISREAD as exc:
            _note(report, "lowering.unread",
                  f"@{fn.name}: cannot evaluate its shared addresses ({type(exc).__name__})",
                  fn.line)  # fmt: skip
            continue
        for why in unread:
            _note(report, "lowering.unread", f"@{fn.name}: {why}", fn.line)
        if not found:
            continue
        ranges = hopper.tmem_slot_range(fn, ranges)
        if ranges is None:
            why = " (a callee without a frame in the plan)" if frameless else ""
            _note(report, "lowering.unplaced", f"@{fn.name}: no plan range to check its shared "
                  f"accesses against{why}", fn.line)  # fmt: skip
            continue
        if threads is None and not _BLOCK_ATTR.search(fn.attributes):
            _note(report, "lowering.threads", f"@{fn.name}: block size unknown, thread ids "
                  "bounded by 1024", fn.line)  # fmt: skip
        for lo, hi, where in ranges:
            _judge_all(fn, found, lo, hi, where, ev, report)
            checked += len(found)
    report.lowering = f"{checked} shared accesses checked"


def _judge_all(fn: Function, found: list[Access], lo: int, hi: int, where: str, ev: Evaluator,
               report: Report) -> None:  # fmt: skip
    """Each access against its own buffers (offsets from the function's base ``lo``), inside
    the placement [lo, hi); an unattributed one against [lo, hi) alone."""
    bad: list[tuple[Access, dict[str, int], list[tuple[int, int]], str]] = []
    for acc in found:
        ranges, a_where = [(lo, hi)], where
        if acc.within:
            # Its own buffers: a read that strays into a neighbour inside the range is as
            # wrong as one past it.
            ranges = [(max(lo, lo + b_lo), min(hi, lo + b_hi)) for b_lo, b_hi, _ in acc.within]
            labels = [label for _, _, label in acc.within]
            a_where = ("its buffer " if len(labels) == 1 else "its buffers ") + ", ".join(labels)
        try:
            verdict = _judge(acc, ranges, ev)
        except (RecursionError, *_MISREAD):
            verdict = "unbounded"
        if verdict is None:
            continue
        if isinstance(verdict, dict) and acc.moved:
            wider = ranges + [(max(lo, lo + a), min(hi, lo + b)) for a, b, _ in acc.moved]
            try:
                inside = _judge(acc, wider, ev) is None
            except (RecursionError, *_MISREAD):
                inside = False
            if inside:
                names = ", ".join(label for _, _, label in acc.moved)
                _note(report, "lowering.unbounded", f"@{fn.name}: the {acc.kind} at LLVM IR "
                      f"line {acc.line} can leave {a_where} but stays in {names}, which its "
                      "address was computed for at another op's location (LLVM may have "
                      "moved the access's location; not judged)", acc.line, acc.column)  # fmt: skip
                continue
        if isinstance(verdict, str):
            shown = ", ".join(f"[{a}, {b})" for a, b in ranges)
            why = {
                "timeout": "the solver ran out of time",
                "opaque": f"can leave {a_where} {shown} for some values of what its address "
                "depends on that are known only by their bounds (a loop-carried value, an "
                "argument)",
            }.get(verdict, "has an address or size not bounded")
            _note(report, "lowering.unbounded", f"@{fn.name}: the {acc.kind} at LLVM IR line "
                  f"{acc.line} {why} (not judged)", acc.line, acc.column)  # fmt: skip
            continue
        bad.append((acc, verdict, ranges, a_where))
    if bad:
        # The finding shows the widest access that leaves (a TMA box before the 8 bytes its
        # instruction's plain operand stands for): the first of them in the function.
        acc, model, ranges, own = max(bad, key=lambda b: b[0].size or 0)
        addr = model["address"]
        shown = ", ".join(f"[{a}, {b})" for a, b in ranges)
        if own != where and not where.startswith(KERNEL_RANGE):
            shown += f", in {where}"  # which placement of a callee
        where = own
        report.findings.append(Finding(
            "lowering.outside",
            f"@{fn.name} addresses shared bytes [{addr}, {addr + (acc.size or 0)}) "
            f"outside {where} {shown} ({acc.kind} at LLVM IR line {acc.line}"
            f"{', tid.x = ' + str(model['tid.x']) if 'tid.x' in model else ''}); "
            f"{len(bad)} of {len(found)} shared accesses of the function can",
            fn.name, acc.line, acc.column, acc.dbg,
            {"range": list(ranges[0]), "ranges": [list(r) for r in ranges], "address": addr,
             "size": acc.size, "accesses_outside": len(bad), "accesses": len(found), **model},
        ))  # fmt: skip


def _query(facts: list[z3.BoolRef], ev: Evaluator) -> Any:
    """Whether ``facts`` can hold, over the constraints that bear on them (unsat there is
    unsat with all); when they can, the bounds of the loop-carried values they depend on are
    searched once and the question asked again."""
    r = z3.unknown
    for attempt in range(2):
        s = z3.Solver()
        s.set("timeout", QUERY_TIMEOUT_MS)
        s.add(*ev.relevant(facts), *facts)
        r = s.check()
        if r == z3.unsat:
            return r
        if attempt == 0 and r == z3.sat and ev.bound(facts):
            continue
        break
    return r


def _judge(acc: Access, ranges: list[tuple[int, int]],
           ev: Evaluator) -> dict[str, int] | str | None:  # fmt: skip
    """None when the access provably lies in one of the ranges [lo, hi); a witness when it
    provably can leave them (over modelled values only); "unbounded" or "timeout" when that
    cannot be decided."""
    if acc.size is None or not isinstance(acc.addr.expr, z3.BitVecRef) or not acc.addr.smem:
        return "unbounded"
    lo_a, hi_a = ev.interval(acc.addr.expr)
    if any(lo <= lo_a and hi_a + acc.size <= hi for lo, hi in ranges):
        return None  # proved by interval arithmetic alone
    a = z3.ZeroExt(64 - acc.addr.expr.size(), acc.addr.expr)
    inside = z3.Or(*[z3.And(a >= lo, a + acc.size <= hi) for lo, hi in ranges])
    facts = [z3.Not(inside)]
    # First without the access's guard: most accesses are in range on every thread, and a
    # guard drags in the constraints of its own values (a proof without it holds with it).
    tries = [facts] if acc.cond is None else [facts, facts + [acc.cond]]
    r = z3.unknown
    for facts in tries:
        r = _query(facts, ev)
        if r == z3.unsat:
            return None
    if r == z3.unknown:
        return "timeout"
    if r != z3.sat:
        return "unbounded"
    if acc.addr.opaque:
        return "opaque"  # it can leave, over values known only by their bounds
    # A witness: taken from the solver holding every constraint, so that it satisfies all.
    s = ev.solver()
    s.push()
    s.add(*facts)
    r = s.check()
    out: dict[str, int] = {}
    if r == z3.sat:
        m = s.model()
        out["address"] = m.eval(a, model_completion=True).as_long()
        if ev.tid is not None:
            out["tid.x"] = m.eval(ev.tid, model_completion=True).as_long()
    s.pop()
    if r == z3.unsat:
        return None
    return out if r == z3.sat else "timeout"


Hook = Callable[[str, list[Operand], Evaluator], Any]  # the shape of the two PTX hooks above
