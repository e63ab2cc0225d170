"""Check the LLVM IR against the plan: every shared-memory address lands in its function's range.

Every address derived from ``@global_smem`` is rebuilt as a z3 bit-vector over the thread id
(``llvm.nvvm.read.ptx.sreg.tid.x``, bounded by the block size the function requires) and the
values it cannot see through (opaque: function arguments, loads, loop-carried values): address
arithmetic (``getelementptr`` chains, constant expressions, ``ptrtoint`` / ``inttoptr``, add,
sub, mul, and, or, xor, shifts, extensions, ``select``, ``icmp``, phis whose incoming values
are known) is exact. Each access (load, store, atomics, ldmatrix / stmatrix, and inline
``ld.shared`` / ``st.shared`` / ``cp.async`` / mbarrier asm) must then lie inside the range the
plan gives its function: the kernel's ``[0, ttg.shared)``, a callee's frame as placed at each of
its call sites. An access whose size or address is not bounded is a note (the run is partial),
never proved.
"""

from __future__ import annotations

import re
import sys
import threading
from dataclasses import dataclass, field
from typing import Any

import z3

from alias_spec.model.facts import elem_bytes
from alias_spec.plan.plan import Finding, Note, Report

_DEFINE = re.compile(r'^define\b.*?@("(?:[^"\\]|\\.)*"|[\w.$-]+)\((.*)\)(.*)\{\s*$')
_ASSIGN = re.compile(r"^\s*(%[\w.$-]+|%\"[^\"]*\")\s*=\s*(.*)$")
_LABEL = re.compile(r"^([\w.$-]+):")
_ATTRS = re.compile(r"^attributes (#\d+) = \{(.*)\}")
_REQNTID = re.compile(r'"nvvm\.reqntid"="(\d+)(?:,(\d+))?(?:,(\d+))?"')
_MAXNTID = re.compile(r'"nvvm\.maxntid"="(\d+)(?:,(\d+))?(?:,(\d+))?"')
_META = re.compile(r"^(![\w.]+)\s*=\s*(?:distinct\s+)?(.*)$")
_DBG = re.compile(r"!dbg (![\w.]+)")
_INT_TY = re.compile(r"^i(\d+)$")
_CONST_GEP = re.compile(
    r"getelementptr\s+(?:inbounds\s+|nuw\s+|nusw\s+|inrange\(\S+\)\s+)*\((.*)\)$"
)
_SMEM = "@global_smem"
_NAMES = re.compile(r"%[\w.$-]+")
_VECTOR = re.compile(r"<\s*(\d+)\s+x\s+(i\d+)\s*>")
WIDTH = 32  # shared-memory addresses (the data layout's p3:32)
INVARIANT_STEPS = 8  # iterations before widening a loop-carried value's interval
OPT_TIMEOUT_MS = 5_000


class LlirError(ValueError):
    """Text that is not LLVM IR this reader understands (one line)."""


@dataclass
class Value:
    expr: z3.BitVecRef | z3.BoolRef
    smem: bool  # a pointer into shared memory (expr: the byte offset from @global_smem)
    # Depends on a value that is not modelled exactly (an argument, a load, a loop-carried
    # value known only by its bounds): proofs over it hold, witnesses may not be real.
    opaque: bool
    fields: dict[int, Value] | None = None  # an aggregate's known fields (insertvalue)


@dataclass
class Access:
    line: int
    column: int
    kind: str
    size: int | None
    addr: Value
    dbg: str | None
    cond: z3.BoolRef | None = None  # the access happens only when this holds (a predicate)


@dataclass
class LFunction:
    name: str
    line: int
    params: list[tuple[str, str]]
    body: list[tuple[int, str]] = field(default_factory=list)  # (line number, text)
    attr_group: str | None = None
    defs: dict[str, tuple[int, str]] = field(default_factory=dict)
    threads: int | None = None
    block_of: dict[str, str] = field(default_factory=dict)  # value -> its block
    terminators: dict[str, str] = field(default_factory=dict)  # block -> its terminator
    entry: str = ""
    back_edges: set[tuple[str, str]] = field(default_factory=set)  # (from, to) closing a loop

    tainted: set[str] = field(default_factory=set)  # values that may carry a shared address

    def find_taint(self) -> None:
        """Every value computed from ``@global_smem`` by any op, modelled or not, except what
        memory reads and comparisons produce (data, not addresses): an asm or intrinsic that
        takes one and is not modelled is then a note, never silently passed over."""
        data = re.compile(
            r"^(?:(?:tail|musttail|notail)\s+)?(?:load|atomicrmw|cmpxchg|icmp|fcmp)\b"
        )
        # Memory reads (asm or intrinsic) return data, not the address they read.
        reads = re.compile(r"\b(?:ld|atom|ldmatrix)\.|@llvm\.nvvm\.(?:ldmatrix|ld\.)")
        changed = True
        while changed:
            changed = False
            for name, (_, rhs) in self.defs.items():
                if name in self.tainted or data.match(rhs):
                    continue
                if (" asm " in rhs or "@llvm." in rhs) and reads.search(rhs):
                    continue
                if _SMEM in rhs or any(n in self.tainted for n in _NAMES.findall(rhs)):
                    self.tainted.add(name)
                    changed = True

    def find_back_edges(self) -> None:
        """Edges to a block still on the depth-first path from the entry: every cycle of the
        control flow holds one."""
        succ = {b: re.findall(r"label\s+%([\w.$-]+)", t) for b, t in self.terminators.items()}
        on_path: set[str] = set()
        done: set[str] = set()
        stack: list[tuple[str, int]] = [(self.entry, 0)]
        on_path.add(self.entry)
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
                self.back_edges.add((b, n))
            elif n not in done:
                on_path.add(n)
                stack.append((n, 0))


def _split_top(text: str) -> list[str]:
    """Split at commas outside brackets of any kind."""
    out, depth, cur = [], 0, []
    for ch in text:
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out


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


def read_llir(text: str) -> tuple[list[LFunction], dict[str, str], dict[str, int]]:
    """Functions, metadata and each attribute group's thread count."""
    if not isinstance(text, str) or ("define " not in text and "declare " not in text):
        raise LlirError("no LLVM IR function found")
    fns: list[LFunction] = []
    meta: dict[str, str] = {}
    threads: dict[str, int] = {}
    cur: LFunction | None = None
    block = ""
    in_switch = False
    for no, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip()
        if cur is None:
            if line.startswith("define"):
                m = _DEFINE.match(line)
                if not m:
                    raise LlirError(f"line {no}: cannot read this function header")
                params = []
                for p in _split_top(m.group(2)):
                    name = re.search(r"(%[\w.$-]+)\s*$", p)
                    if name:
                        params.append((p[: name.start()].strip(), name.group(1)))
                group = re.search(r"(#\d+)", m.group(3))
                cur = LFunction(m.group(1).strip('"'), no, params,
                                attr_group=group.group(1) if group else None)  # fmt: skip
                fns.append(cur)
                # The entry block is unnamed: it takes the next number after the arguments.
                block = str(sum(1 for _, n in params if re.fullmatch(r"%\d+", n)))
                cur.entry = block
                in_switch = False
                continue
            a = _ATTRS.match(line)
            if a:
                t = _REQNTID.search(a.group(2)) or _MAXNTID.search(a.group(2))
                if t:
                    n = 1
                    for g in t.groups():
                        n *= int(g) if g else 1
                    threads[a.group(1)] = n
                continue
            mm = _META.match(line)
            if mm:
                meta[mm.group(1)] = mm.group(2)
            continue
        if line.startswith("}"):
            cur.find_back_edges()
            cur.find_taint()
            cur = None
            continue
        cur.body.append((no, line))
        if in_switch:  # a switch's cases continue on the following lines
            cur.terminators[block] += " " + line.strip()
            in_switch = "]" not in line
            continue
        lm = _LABEL.match(line)
        if lm:
            block = lm.group(1)
            continue
        m = _ASSIGN.match(line)
        if m:
            cur.defs[m.group(1)] = (no, m.group(2))
            cur.block_of[m.group(1)] = block
        elif re.match(r"\s+(?:br|switch|ret|unreachable|indirectbr)\b", line):
            cur.terminators[block] = line.strip()
            in_switch = line.lstrip().startswith("switch") and "]" not in line
    if cur is not None:
        raise LlirError(f"function @{cur.name} is not closed")
    for f in fns:
        f.threads = threads.get(f.attr_group or "")
    return fns, meta, threads


class Evaluator:
    """Values of one function as z3 terms, built on demand."""

    def __init__(self, fn: LFunction, threads: int | None) -> None:
        self.fn = fn
        self.cache: dict[str, Value] = {}
        self.active: set[str] = set()
        self.constraints: list[z3.BoolRef] = []
        self.threads = threads
        self.tid: z3.BitVecRef | None = None
        self.fresh = 0
        self.pending: set[str] = set()  # phis whose incoming values are being built
        self.hits: list[set[str]] = []  # per phi being built: the pending phis it reached
        self.bounded: dict[str, str] = {}  # loop-carried phi -> its invariant, as text
        # Loop-carried phis whose bounds are not searched yet (only when a proof needs them):
        # var name -> (var, incoming values, incoming edges, phi name)
        self.deferred: dict[str, tuple[z3.BitVecRef, list[Value], list[tuple[str, str]], str]]
        self.deferred = {}
        self._solver: z3.Solver | None = None
        self._synced = 0
        # Cheap bounds for the interval pre-check: a variable's unsigned range, a merge's
        # incoming values (the solver is asked only what intervals cannot show).
        self.var_range: dict[str, tuple[int, int]] = {}
        self.var_merge: dict[str, list[z3.BitVecRef]] = {}
        self.ranges: dict[str, tuple[int, int]] = {}  # found by _interval, not yet published
        # AST id -> (the AST, kept alive so that its id is not reused; its bounds)
        self._memo: dict[int, tuple[z3.ExprRef, tuple[int, int]]] = {}

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
            if lo_bit == 0 and b < 1 << (hi_bit + 1):
                return (a, b)
            return full
        return full

    def solver(self) -> z3.Solver:
        """One solver for the function, holding every constraint found so far."""
        if self._solver is None:
            self._solver = z3.Solver()
            self._solver.set("timeout", 10_000)
        self._solver.add(*self.constraints[self._synced :])
        self._synced = len(self.constraints)
        return self._solver

    def bound(self, exprs: list[z3.ExprRef]) -> bool:
        """Search the bounds of the loop-carried phis these expressions mention (first those
        their incoming values mention); whether any bound was found."""
        found = False
        todo = [c for e in exprs for c in _consts(e) if str(c) in self.deferred]
        for c in todo:
            job = self.deferred.pop(str(c), None)
            if job is None:
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

    def operand(self, ty: str, token: str) -> Value:
        ty, token = ty.strip(), token.strip()
        width = _width(ty)
        if token == _SMEM:
            return Value(z3.BitVecVal(0, WIDTH), True, False)
        if re.fullmatch(r"-?\d+", token):
            return Value(z3.BitVecVal(int(token), width or 64), False, False)
        if token in ("true", "false"):
            return Value(z3.BoolVal(token == "true"), False, False)
        if token in ("null", "zeroinitializer") and width:
            return Value(z3.BitVecVal(0, width), False, False)
        m = _CONST_GEP.match(token)
        if m:
            return self._gep(m.group(1))
        if token.startswith("%"):
            return self.value(token, width or WIDTH)
        vec = _VECTOR.fullmatch(ty)
        if vec and token.startswith("<") and token.endswith(">"):
            out = self._opaque(WIDTH, "vec")
            out.fields = {i: self.operand(*_ty_tok(x)) for i, x in
                          enumerate(_split_top(token[1:-1]))}  # fmt: skip
            return out
        sp = re.fullmatch(r"splat\s*\((.*)\)", token)
        if vec and sp:
            out = self._opaque(WIDTH, "vec")
            lane = self.operand(*_ty_tok(sp.group(1)))
            out.fields = dict.fromkeys(range(int(vec.group(1))), lane)
            return out
        if vec and token == "zeroinitializer":
            out = self._opaque(WIDTH, "vec")
            lane = self.operand(vec.group(2), "0")
            out.fields = dict.fromkeys(range(int(vec.group(1))), lane)
            return out
        return self._opaque(width or WIDTH, "const")

    def value(self, name: str, width: int) -> Value:
        if name in self.cache:
            if name in self.pending:
                for h in self.hits:
                    h.add(name)
            return self.cache[name]
        if name in self.active:  # a cycle not through a phi: not SSA, not modelled
            return self._opaque(width, "loop")
        entry = self.fn.defs.get(name)
        if entry is None:  # a function argument
            return self._opaque(width, "arg")
        rhs = _strip_attachments(entry[1])
        if rhs.startswith("phi "):
            return self._phi(name, rhs)
        self.active.add(name)
        try:
            v = self._eval(entry[1], width)
        finally:
            self.active.discard(name)
        self.cache[name] = v
        return v

    # --- phis: merges, and values carried around a loop ------------------------------------

    def _edge(self, frm: str, to: str) -> z3.BoolRef | None:
        """The condition under which control goes from block ``frm`` to block ``to`` (None:
        always, or unknown, which is the same for a sound bound)."""
        term = self.fn.terminators.get(frm, "")
        m = re.match(r"br\s+i1\s+(\S+),\s*label\s+%([\w.$-]+),\s*label\s+%([\w.$-]+)", term)
        if not m or m.group(2) == m.group(3):
            return None
        c = self.operand("i1", m.group(1))
        if not isinstance(c.expr, z3.BoolRef):
            return None
        if m.group(2) == to:
            return c.expr
        return z3.Not(c.expr) if m.group(3) == to else None

    def _phi(self, name: str, rhs: str) -> Value:
        ty, _, incoming = _type_prefix(re.sub(r"^phi\s+(?:(?:fast|nnan|ninf|nsz)\s+)*", "", rhs))
        pairs = re.findall(r"\[\s*(.+?)\s*,\s*%([\w.$-]+)\s*\]", incoming)
        width = _width(ty)
        if width is None or not pairs:
            v = self._opaque(width or WIDTH, "phi")
            self.cache[name] = v
            return v
        self.fresh += 1
        var = z3.BitVec(f"{name}.{self.fresh}", width)
        guess = ty.startswith("ptr addrspace(3)")
        # Cached before its incoming values are built: a loop reaches it again through them.
        self.cache[name] = Value(var, guess, True)
        self.pending.add(name)
        self.hits.append(set())
        block = self.fn.block_of.get(name, "")
        # Every SSA cycle passes through a phi, and this one is now cached: values being built
        # around it may be built again inside, so that the loop closes here, at the phi.
        active, self.active = self.active, set()
        try:
            incs = [self.operand(ty, tok) for tok, _ in pairs]
        finally:
            self.active = active
            reached = self.hits.pop()
            self.pending.discard(name)
        if not all(isinstance(v.expr, z3.BitVecRef) for v in incs):
            v = self._opaque(width, "phi")
            self.cache[name] = v
            return v
        smem = any(v.smem for v in incs)
        header = any((frm, block) in self.fn.back_edges for _, frm in pairs)
        if not header and name not in reached:
            # A merge: the phi is one of its incoming values, all of this same iteration.
            self.constraints.append(z3.Or([var == _fit(v.expr, width) for v in incs]))  # type: ignore[arg-type]
            self.var_merge[str(var)] = [_fit(v.expr, width) for v in incs]  # type: ignore[arg-type]
            v = Value(var, smem, any(v.opaque for v in incs))
        else:
            # Carried around a loop: its value comes from an earlier iteration, so it is known
            # by the bounds the loop keeps it in (if any are found), never by an equation.
            self.deferred[str(var)] = (var, incs, [(frm, block) for _, frm in pairs], name)
            v = Value(var, smem, True)
        self.cache[name] = v
        return v

    def _extreme(self, e: z3.BitVecRef, facts: list[z3.BoolRef], top: bool) -> int | None:
        """The largest (top) or smallest unsigned value of ``e`` under ``facts``; None when
        no value satisfies them or the solver gives up."""
        opt = z3.Optimize()
        opt.set("timeout", OPT_TIMEOUT_MS)
        opt.add(*facts)
        if top:
            opt.maximize(e)
        else:
            opt.minimize(e)
        if opt.check() != z3.sat:
            return None
        val = opt.model().eval(e, model_completion=True)
        return val.as_long() if z3.is_bv_value(val) else None

    def _invariant(
        self, var: z3.BitVecRef, incs: list[Value], edges: list[tuple[str, str]]
    ) -> list[z3.BoolRef]:
        """An interval invariant of a loop-carried phi: an interval I such that every incoming
        value lies in I whenever the phi does (each under the condition of its edge). Tried
        first without the edges' conditions (a wrapped stage index needs none), then with them
        (a counter bounded by its loop's guard); unsigned, then signed. Proved inductive."""
        conds: list[z3.BoolRef | None] = [None] * len(incs)
        for use_edges in (False, True):
            if use_edges:
                conds = [self._edge(frm, to) for frm, to in edges]
                if all(c is None for c in conds):
                    break
            for signed in (False, True):
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
            return _fit(e, w) ^ flip  # signed order as unsigned order

        def within(lo: int, hi: int) -> z3.BoolRef:
            k = key(var)
            return z3.And(z3.ULE(lo, k), z3.ULE(k, hi))

        def hull(facts: list[z3.BoolRef], only_entering: bool) -> tuple[int, int] | None:
            """The range of the incoming values under ``facts`` (by optimisation)."""
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

        base = list(self.constraints)
        start = hull(base, True)
        if start is None:
            return None
        lo, hi = start
        solver = z3.Solver()
        solver.set("timeout", OPT_TIMEOUT_MS)
        solver.add(*base)
        widened = False
        for step in range(2 * INVARIANT_STEPS):
            if (lo, hi) == (0, top):
                return None
            escaped: int | None = None
            for v, c in zip(incs, conds, strict=True):
                e = key(v.expr)  # type: ignore[arg-type]
                solver.push()
                solver.add(within(lo, hi), z3.Or(z3.ULT(e, lo), z3.UGT(e, hi)))
                if c is not None:
                    solver.add(c)
                r = solver.check()
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
        return s.check() == z3.unsat

    def _gep(self, rest: str) -> Value:
        parts = _split_top(rest)
        if len(parts) < 2:
            return self._opaque(WIDTH, "gep")
        src_ty = parts[0]
        base_ty, base_tok = _ty_tok(parts[1])
        base = self.operand(base_ty, base_tok)
        if not base.smem:
            return Value(base.expr, False, base.opaque)
        offset = base.expr
        opaque = base.opaque
        ty: str | None = src_ty
        for i, idx in enumerate(parts[2:]):
            idx_ty, idx_tok = _ty_tok(idx)
            if ty is None:
                return self._opaque(WIDTH, "gep")
            if i > 0:
                ty = _elem_type(ty)
                if ty is None:
                    return self._opaque(WIDTH, "gep")
            size = type_size(ty)
            if size is None:
                return self._opaque(WIDTH, "gep")
            iv = self.operand(idx_ty, idx_tok)
            if not isinstance(iv.expr, z3.BitVecRef):
                return self._opaque(WIDTH, "gep")
            offset = offset + _fit(iv.expr, WIDTH, signed=True) * size
            opaque = opaque or iv.opaque
        return Value(offset, True, opaque)

    def _eval(self, rhs: str, width: int) -> Value:
        rhs = re.sub(r",\s*!\w+\s+!\S+", "", rhs)  # metadata attachments
        rhs = re.sub(r"\s+#\d+\s*$", "", rhs).strip()
        words = rhs.split()
        if not words:
            return self._opaque(width, "x")
        op = words[0]
        rest = rhs[len(op) :].strip()
        if op == "getelementptr":
            rest = re.sub(r"^(?:inbounds\s+|nuw\s+|nusw\s+|inrange\(\S+\)\s+)*", "", rest)
            return self._gep(rest)
        if op in _BINOPS:
            rest = re.sub(r"^(?:(?:nuw|nsw|exact|disjoint)\s+)*", "", rest)
            ty, _, operands = _type_prefix(rest)
            a_tok, b_tok = (_split_top(operands) + ["", ""])[:2]
            a, b = self.operand(ty, a_tok), self.operand(ty, b_tok)
            if _VECTOR.fullmatch(ty):  # lane by lane, for the lanes known on both sides
                out = self._opaque(WIDTH, "vec")
                out.fields = {}
                for i in set(a.fields or {}) & set(b.fields or {}):
                    x, y = (a.fields or {})[i], (b.fields or {})[i]
                    if isinstance(x.expr, z3.BitVecRef) and isinstance(y.expr, z3.BitVecRef):
                        w = max(x.expr.size(), y.expr.size())
                        out.fields[i] = Value(_BINOPS[op](_fit(x.expr, w), _fit(y.expr, w)),
                                              x.smem or y.smem, x.opaque or y.opaque)  # fmt: skip
                return out
            if ty == "i1" and op in ("and", "or", "xor"):  # predicates combined
                x, y = _as_bool(a.expr), _as_bool(b.expr)
                f = {"and": z3.And, "or": z3.Or, "xor": z3.Xor}[op]
                return Value(f(x, y), False, a.opaque or b.opaque)
            if not (isinstance(a.expr, z3.BitVecRef) and isinstance(b.expr, z3.BitVecRef)):
                return self._opaque(width, "x")
            w = max(a.expr.size(), b.expr.size())
            ea, eb = _fit(a.expr, w), _fit(b.expr, w)
            return Value(_BINOPS[op](ea, eb), a.smem or b.smem, a.opaque or b.opaque)
        if op in ("zext", "sext", "trunc", "ptrtoint", "inttoptr", "bitcast", "freeze",
                  "addrspacecast"):  # fmt: skip
            m = re.match(r"(.*?)\s+(%[\w.$-]+|\S+)\s+to\s+(.+)$", rest)
            if op == "freeze":
                ty, _, tok = _type_prefix(rest)
                return self.operand(ty, tok)
            if not m:
                return self._opaque(width, "x")
            src_ty, tok, dst_ty = m.group(1), m.group(2), m.group(3).strip()
            v = self.operand(src_ty, tok)
            if op == "addrspacecast":
                return self._opaque(WIDTH, "cast")
            if isinstance(v.expr, z3.BoolRef) and op in ("zext", "sext"):
                w = _width(dst_ty) or WIDTH
                one = z3.BitVecVal(1 if op == "zext" else (1 << w) - 1, w)
                return Value(z3.If(v.expr, one, z3.BitVecVal(0, w)), False, v.opaque)
            if not isinstance(v.expr, z3.BitVecRef):
                return self._opaque(width, "x")
            w = _width(dst_ty) or WIDTH
            if w == 1 and op == "trunc":
                return Value(z3.Extract(0, 0, v.expr) == 1, False, v.opaque)
            smem = v.smem or (op == "inttoptr" and dst_ty.startswith("ptr addrspace(3)"))
            return Value(_fit(v.expr, w, signed=(op == "sext")), smem, v.opaque)
        if op == "select":
            parts = _split_top(rest)
            if len(parts) != 3:
                return self._opaque(width, "x")
            c_ty, c_tok = _ty_tok(parts[0])
            cond = self.operand(c_ty, c_tok)
            a = self.operand(*_ty_tok(parts[1]))
            b = self.operand(*_ty_tok(parts[2]))
            if isinstance(a.expr, z3.BoolRef) and isinstance(b.expr, z3.BoolRef):
                c = _as_bool(cond.expr)
                return Value(z3.If(c, a.expr, b.expr), False,
                             cond.opaque or a.opaque or b.opaque)  # fmt: skip
            if not (isinstance(a.expr, z3.BitVecRef) and isinstance(b.expr, z3.BitVecRef)):
                return self._opaque(width, "x")
            cond = Value(_as_bool(cond.expr), cond.smem, cond.opaque)
            w = max(a.expr.size(), b.expr.size())
            return Value(z3.If(cond.expr, _fit(a.expr, w), _fit(b.expr, w)), a.smem or b.smem,
                         cond.opaque or a.opaque or b.opaque)  # fmt: skip
        if op == "icmp":
            pred, _, rest2 = rest.partition(" ")
            pred = pred if pred not in ("samesign",) else rest2.split()[0]
            if rest.startswith("samesign"):
                rest2 = rest2.split(" ", 1)[1]
            ty, _, operands = _type_prefix(rest2)
            a_tok, b_tok = (_split_top(operands) + ["", ""])[:2]
            a, b = self.operand(ty, a_tok), self.operand(ty, b_tok)
            if pred not in _PREDS or not (
                isinstance(a.expr, z3.BitVecRef) and isinstance(b.expr, z3.BitVecRef)
            ):
                return Value(z3.Bool(f"cmp{self.fresh}"), False, True)
            w = max(a.expr.size(), b.expr.size())
            return Value(_PREDS[pred](_fit(a.expr, w), _fit(b.expr, w)), False,
                         a.opaque or b.opaque)  # fmt: skip
        if op == "insertvalue":
            parts = _split_top(rest)
            if len(parts) < 3 or not parts[2].strip().isdigit():
                return self._opaque(width, "x")
            agg_ty, agg_tok = _ty_tok(parts[0])
            agg = self.operand(agg_ty, agg_tok) if agg_tok.startswith("%") else None
            fields = dict(agg.fields or {}) if agg is not None else {}
            fields[int(parts[2])] = self.operand(*_ty_tok(parts[1]))
            out = self._opaque(WIDTH, "agg")
            out.fields = fields
            return out
        if op in ("insertelement", "extractelement"):
            parts = _split_top(rest)
            idx = parts[-1].split()[-1] if parts else ""
            if not idx.isdigit() or len(parts) != (3 if op == "insertelement" else 2):
                return self._opaque(width, "x")
            vec = self.operand(*_ty_tok(parts[0]))
            if op == "extractelement":
                got = (vec.fields or {}).get(int(idx))
                return got if got is not None else self._opaque(width, "x")
            out = self._opaque(WIDTH, "vec")
            out.fields = dict(vec.fields or {})
            out.fields[int(idx)] = self.operand(*_ty_tok(parts[1]))
            return out
        red = re.search(r"@llvm\.vector\.reduce\.(or|add|and|xor)\.v(\d+)i\d+\((.*)\)\s*$", rhs)
        if red:
            vec = self.operand(*_ty_tok(red.group(3)))
            lanes = [(vec.fields or {}).get(i) for i in range(int(red.group(2)))]
            if lanes and all(v is not None and isinstance(v.expr, z3.BitVecRef) for v in lanes):
                acc = lanes[0]
                for v in lanes[1:]:
                    acc = Value(_BINOPS[red.group(1)](acc.expr, v.expr), acc.smem or v.smem,
                                acc.opaque or v.opaque)  # type: ignore[union-attr]  # fmt: skip
                return acc  # type: ignore[return-value]
            return self._opaque(width, "x")
        if op == "extractvalue":
            parts = _split_top(rest)
            if len(parts) == 2 and parts[1].strip().isdigit():
                agg = self.operand(*_ty_tok(parts[0]))
                got = (agg.fields or {}).get(int(parts[1]))
                if got is not None:
                    return got
            return self._opaque(width, "x")
        if "@llvm.nvvm.read.ptx.sreg.tid.x" in rhs:
            return self._tid()
        if "@llvm.nvvm.read.ptx.sreg.laneid" in rhs:
            tid = self._tid()
            return Value(tid.expr & 31, False, tid.opaque)  # type: ignore[operator]
        sh = re.search(r"@llvm\.nvvm\.shfl\.sync\.idx\.i32\((.*)\)\s*$", rhs)
        if sh:
            # A broadcast from one lane of the warp: exact when the value is a function of
            # the thread id alone (then it is that function at the source lane's thread id).
            args = _split_top(sh.group(1))
            if len(args) == 4:
                mask, v, lane, clamp = (self.operand(*_ty_tok(a)) for a in args)
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
        mm = re.search(r"@llvm\.([su])(min|max)\.i\d+\((.*)\)\s*$", rhs)
        if mm:
            args = _split_top(mm.group(3))
            if len(args) == 2:
                a, b = self.operand(*_ty_tok(args[0])), self.operand(*_ty_tok(args[1]))
                if isinstance(a.expr, z3.BitVecRef) and isinstance(b.expr, z3.BitVecRef):
                    w = max(a.expr.size(), b.expr.size())
                    x, y = _fit(a.expr, w), _fit(b.expr, w)
                    less = z3.ULT(x, y) if mm.group(1) == "u" else x < y
                    pick = z3.If(less, x, y) if mm.group(2) == "min" else z3.If(less, y, x)
                    return Value(pick, a.smem or b.smem, a.opaque or b.opaque)
        return self._opaque(width, "x")


def _as_bool(e: z3.ExprRef) -> z3.BoolRef:
    if isinstance(e, z3.BoolRef):
        return e
    assert isinstance(e, z3.BitVecRef)
    return z3.Extract(0, 0, e) == 1


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


def _fit(e: z3.BitVecRef, w: int, signed: bool = False) -> z3.BitVecRef:
    if e.size() == w:
        return e
    if e.size() > w:
        return z3.Extract(w - 1, 0, e)
    return (z3.SignExt if signed else z3.ZeroExt)(w - e.size(), e)


def _type_prefix(text: str) -> tuple[str, str, str]:
    """Split ``TYPE rest`` where TYPE may hold brackets (``<4 x i32>``)."""
    text = text.strip()
    depth = 0
    for i, ch in enumerate(text):
        if ch in "<[{(":
            depth += 1
        elif ch in ">]})":
            depth -= 1
        elif ch == " " and depth == 0:
            head = text[:i]
            if head == "ptr" and text[i:].lstrip().startswith("addrspace("):
                continue
            return head, " ", text[i + 1 :].strip()
    return text, "", ""


def _ty_tok(text: str) -> tuple[str, str]:
    ty, _, tok = _type_prefix(text)
    return ty, tok


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
_ASM_CALL = re.compile(
    r'\basm\s+(?:(?:sideeffect|alignstack|inteldialect|unwind)\s+)*"((?:[^"\\]|\\.)*)"\s*,\s*'
    r'"((?:[^"\\]|\\.)*)"\s*\((.*)\)\s*$'
)
_MEM_OPERAND = re.compile(r"\[\s*\$(\d+)\s*(?:\+\s*(-?(?:0x[0-9a-fA-F]+|\d+))\s*)?\]")
_OPERAND = re.compile(r"\$(\d+)")
_PRED = re.compile(r"^@(!?)\$(\d+)\s+")
_ARG_ATTRS = re.compile(
    r"^(?:(?:nonnull|noundef|readonly|writeonly|readnone|nocapture|immarg|align\s+\d+|"
    r"captures\([^)]*\)|dereferenceable\(\d+\))\s+)*"
)
# Types an asm or intrinsic argument must have to hold a shared address (others are data).
_ADDRESS_TYPES = ("ptr addrspace(3)", "i32", "i64", "{")


def _unescape(text: str) -> str:
    """An LLVM string's hex escapes decoded (asm text uses \\0A, \\09, \\22, \\5C)."""
    return re.sub(r"\\([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), text)


def _asm_size(ins: str) -> int | None:
    """Bytes one thread's access through one address operand of this PTX instruction touches;
    None where that is not readable from the instruction (a note, never clean)."""
    op = ins.split()[0] if ins.split() else ""
    if op.startswith("mbarrier."):
        return 8
    if op.startswith("tensormap."):
        return 128  # a tensor map is 1024 bits
    if op.startswith("cp.async.bulk"):
        return None  # TMA / bulk copies: the box size lives in the descriptor
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


def _strip_attachments(rhs: str) -> str:
    rhs = re.sub(r",\s*!\w+\s+!\S+", "", rhs)
    return re.sub(r"\s+#\d+\s*$", "", rhs).strip()


def _arg(ev: Evaluator, text: str) -> Value | None:
    """An asm or call argument's value, when its type can hold a shared address."""
    ty, tok = _ty_tok(text)
    if not ty.startswith(_ADDRESS_TYPES):
        return None
    tok = _ARG_ATTRS.sub("", tok)
    if ty.startswith("{"):
        v = ev.operand(ty, tok)
        first = (v.fields or {}).get(0)
        return first if first is not None and first.smem else None
    v = ev.operand(ty, tok)
    return v if v.smem and isinstance(v.expr, z3.BitVecRef) else None


def _tainted(ev: Evaluator, text: str) -> bool:
    """Whether an argument may carry a shared address (modelled exactly or not)."""
    tok = _ty_tok(text)[1]
    return _SMEM in tok or any(n in ev.fn.tainted for n in _NAMES.findall(tok))


def _asm_accesses(rhs: str, ev: Evaluator, no: int, col: int, dbg: str | None,
                  out: list[Access], unread: list[str]) -> None:  # fmt: skip
    m = _ASM_CALL.search(rhs)
    if not m:
        unread.append(f"line {no}: inline asm this reader cannot parse")
        return
    text, constraints, args_text = _unescape(m.group(1)), m.group(2), m.group(3)
    outputs = sum(1 for c in constraints.split(",") if c.strip().startswith("="))
    args = _split_top(args_text)
    values: dict[int, Value | None] = {}

    def operand(k: int) -> Value | None:
        if k not in values:
            i = k - outputs
            values[k] = _arg(ev, args[i]) if 0 <= i < len(args) else None
        return values[k]

    def tainted(k: int) -> bool:
        i = k - outputs
        return 0 <= i < len(args) and _tainted(ev, args[i])

    text = re.sub(r"//[^\n]*", "", text)  # comments name operands without using them
    for ins in re.split(r"[;\n]", text):
        # Scope braces and labels open a line; vector operands keep their braces.
        ins = re.sub(r"^(?:[{}]\s*|[\w$]+:\s*)+", "", ins.strip()).strip()
        if not ins or ins.startswith("."):  # empty, or a declaration (.reg)
            continue
        cond: z3.BoolRef | None = None
        pm = _PRED.match(ins)
        if pm:
            k = int(pm.group(2))
            i = k - outputs
            if 0 <= i < len(args):
                p = ev.operand(*_ty_tok(args[i]))
                c = _as_bool(p.expr)
                cond = z3.Not(c) if pm.group(1) else c
            ins = ins[pm.end() :]
        in_brackets = set()
        for mm in _MEM_OPERAND.finditer(ins):
            k = int(mm.group(1))
            in_brackets.add(k)
            v = operand(k)
            if v is None:
                if tainted(k):
                    unread.append(f"line {no}: {ins.split()[0]} on an address computed from "
                                  "shared memory in a way not modelled")  # fmt: skip
                continue
            size = _asm_size(ins)
            if size is None:
                unread.append(f"line {no}: {ins.split()[0]} on a shared address (its size is "
                              "not readable here)")  # fmt: skip
                continue
            off = int(mm.group(2), 0) if mm.group(2) else 0
            expr = _fit(v.expr, WIDTH) + off  # type: ignore[arg-type]
            out.append(Access(no, col, "asm " + ins.split()[0], size,
                              Value(expr, True, v.opaque), dbg, cond))  # fmt: skip
        bare = {int(k) for k in _OPERAND.findall(_MEM_OPERAND.sub("", ins))} - in_brackets
        for k in sorted(bare):
            if operand(k) is not None or tainted(k):
                what = "wgmma operand descriptors" if "wgmma" in ins else ins.split()[0]
                unread.append(f"line {no}: {what} take a shared address as a value "
                              "(not modelled)")  # fmt: skip
                break


def accesses(fn: LFunction, ev: Evaluator, meta: dict[str, str]) -> tuple[list[Access], list[str]]:
    """Every shared-memory access of the function, and lines that touch shared memory in a way
    not modelled (their size or kind unknown)."""
    out: list[Access] = []
    unread: list[str] = []
    for no, line in fn.body:
        m = _ASSIGN.match(line)
        rhs = m.group(2) if m else line.strip()
        rhs = re.sub(r"^(?:tail |musttail |notail )?", "", rhs)
        dbg = _dbg_loc(line, meta)
        col = len(line) - len(line.lstrip()) + 1
        if rhs.startswith("load "):
            parts = _split_top(re.sub(r"^load\s+(?:volatile\s+|atomic\s+)*", "", rhs))
            if len(parts) >= 2 and parts[1].startswith("ptr addrspace(3)"):
                out.append(Access(no, col, "load", type_size(parts[0]),
                                  ev.operand(*_ty_tok(parts[1])), dbg))  # fmt: skip
        elif rhs.startswith("store "):
            parts = _split_top(re.sub(r"^store\s+(?:volatile\s+|atomic\s+)*", "", rhs))
            if len(parts) >= 2 and parts[1].startswith("ptr addrspace(3)"):
                ty = _type_prefix(parts[0])[0]
                out.append(Access(no, col, "store", type_size(ty),
                                  ev.operand(*_ty_tok(parts[1])), dbg))  # fmt: skip
        elif rhs.startswith(("atomicrmw ", "cmpxchg ")):
            body = re.sub(r"^(?:atomicrmw|cmpxchg)\s+(?:volatile\s+)?(?:\w+\s+)?", "", rhs)
            if rhs.startswith("cmpxchg"):
                body = re.sub(r"^(?:weak\s+)?(?:volatile\s+)?", "", rhs[len("cmpxchg ") :])
            parts = _split_top(body)
            if len(parts) >= 2 and parts[0].startswith("ptr addrspace(3)"):
                ty = _type_prefix(parts[1])[0]
                out.append(Access(no, col, "atomic", type_size(ty),
                                  ev.operand(*_ty_tok(parts[0])), dbg))  # fmt: skip
        elif rhs.startswith("call ") or " call " in rhs:
            rhs = _strip_attachments(rhs)
            if " asm " in rhs or re.search(r"\basm\s+(?:sideeffect\s+)?\"", rhs):
                _asm_accesses(rhs, ev, no, col, dbg, out, unread)
                continue
            cm = re.search(r"@([\w.$-]+)\s*\((.*)\)\s*$", rhs)
            if not cm:
                continue
            callee = cm.group(1)
            call_args = _split_top(cm.group(2))
            smem = [v for a in call_args if (v := _arg(ev, a)) is not None]
            if not smem:
                if any(_tainted(ev, a) for a in call_args):
                    unread.append(f"line {no}: @{callee} takes a value computed from a shared "
                                  "address (not modelled)")  # fmt: skip
                continue
            size = _intrinsic_size(callee)
            if size is None or not callee.startswith("llvm."):
                unread.append(f"line {no}: @{callee} takes a shared address (not modelled)")
                continue
            for v in smem[:1]:  # the intrinsics above take one shared address
                out.append(Access(no, col, "call @" + callee, size, v, dbg))
    return out, unread


def _dbg_loc(line: str, meta: dict[str, str]) -> str | None:
    m = _DBG.search(line)
    if not m:
        return None
    loc = meta.get(m.group(1), "")
    lm = re.search(r"line: (\d+), column: (\d+), scope: (![\w.]+)", loc)
    if not lm:
        return None
    file = "?"
    scope = meta.get(lm.group(3), "")
    fm = re.search(r"file: (![\w.]+)", scope)
    if fm:
        fl = re.search(r'filename: "([^"]*)"', meta.get(fm.group(1), ""))
        if fl:
            file = fl.group(1)
    return f"{file}:{lm.group(1)}:{lm.group(2)}"


def placements(report: Report, fn: str) -> list[tuple[int, int, str]] | None:
    """(lo, hi, where) ranges a function's accesses must lie in, one per placement: the
    kernel's [0, ttg.shared); each frame of a callee, nested callers' bases added."""

    def bases(name: str, depth: int = 0) -> list[tuple[int, list[str]]]:
        sites = report.frames.get(name)
        if not sites:
            return [(0, [])]
        if depth > 32:
            return []
        return [
            (base + (offset or 0), [caller, *chain])
            for caller, offset, _ in sites
            for base, chain in bases(caller, depth + 1)
        ]

    sites = report.frames.get(fn)
    if sites and any(o is None or n is None for _, o, n in sites):
        return None  # a frame whose place or size is unknown
    if not sites:
        if report.shared is None:
            return None
        return [(0, report.shared, "the kernel's ttg.shared")]
    frame = min(s for _, _, s in sites if s is not None)
    return [
        (base, base + frame, "its frame as placed by the call in " + " in ".join(
            f"@{c}" for c in chain))
        for base, chain in bases(fn)
    ]  # fmt: skip


# What evaluating misread text can raise (z3 sort mismatches and the like): a note, not a crash.
_MISREAD = (z3.Z3Exception, ArithmeticError, LookupError, TypeError, ValueError)
DEEP_STACK = 512 * 2**20  # values are built recursively: long def-use chains need room
DEEP_RECURSION = 200_000


def check_lowering(text: str, path: str, report: Report, num_warps: int | None) -> None:
    """Add the lowering's findings and notes to ``report`` (in a thread with a deep stack)."""
    box: dict[str, BaseException] = {}

    def work() -> None:
        try:
            _check_lowering(text, path, report, num_warps)
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


def _check_lowering(text: str, path: str, report: Report, num_warps: int | None) -> None:
    fns, meta, _ = read_llir(text)
    report.llir_path = path
    checked = 0
    for fn in fns:
        threads = fn.threads or (num_warps * 32 if num_warps else None)
        ev = Evaluator(fn, threads)
        try:
            found, unread = accesses(fn, ev, meta)
        except RecursionError:
            report.notes.append(
                Note(
                    "lowering.unbounded",
                    f"@{fn.name}: its values are nested too deeply to evaluate (not judged)",
                    fn.line,
                    1,
                )
            )
            continue
        except _MISREAD as exc:
            # Text this reader misreads (types that do not match, say): not judged, said so.
            report.notes.append(
                Note(
                    "lowering.unread",
                    f"@{fn.name}: cannot evaluate its shared addresses ({type(exc).__name__})",
                    fn.line,
                    1,
                )
            )
            continue
        for why in unread:
            report.notes.append(Note("lowering.unread", f"@{fn.name}: {why}", fn.line, 1))
        if not found:
            continue
        ranges = placements(report, fn.name)
        if ranges is None:
            report.notes.append(Note("lowering.unplaced", f"@{fn.name}: no plan range to check "
                                     "its shared accesses against", fn.line, 1))  # fmt: skip
            continue
        if threads is None:
            report.notes.append(Note("lowering.threads", f"@{fn.name}: block size unknown, "
                                     "thread ids bounded by 1024", fn.line, 1))  # fmt: skip
        for lo, hi, where in ranges:
            bad: list[tuple[Access, dict[str, int]]] = []
            for acc in found:
                checked += 1
                try:
                    verdict = _judge(acc, lo, hi, ev)
                except (RecursionError, *_MISREAD):
                    verdict = "unbounded"
                if verdict is None:
                    continue
                if verdict == "unbounded":
                    report.notes.append(
                        Note(
                            "lowering.unbounded",
                            f"@{fn.name}: the {acc.kind} "
                            f"at LLVM IR line {acc.line} has an address or size "
                            "not bounded (not judged)",
                            acc.line,
                            acc.column,
                        )
                    )
                    continue
                bad.append((acc, verdict))
            if bad:
                acc, model = bad[0]
                addr = model["address"]
                report.findings.append(Finding(
                    "lowering.outside",
                    f"@{fn.name} addresses shared bytes [{addr}, {addr + (acc.size or 0)}) "
                    f"outside {where} [{lo}, {hi}) ({acc.kind} at LLVM IR line {acc.line}"
                    f"{', tid.x = ' + str(model['tid.x']) if 'tid.x' in model else ''}); "
                    f"{len(bad)} of {len(found)} shared accesses of the function can",
                    fn.name, acc.line, acc.column, acc.dbg,
                    {"range": [lo, hi], "address": addr, "size": acc.size,
                     "accesses_outside": len(bad), "accesses": len(found), **model},
                ))  # fmt: skip
    report.lowering = f"{checked} shared accesses checked"


def _judge(acc: Access, lo: int, hi: int, ev: Evaluator) -> dict[str, int] | str | None:
    """None when the access provably lies in [lo, hi); a witness when it provably can leave it
    (over modelled values only); "unbounded" when that cannot be decided."""
    if acc.size is None or not isinstance(acc.addr.expr, z3.BitVecRef) or not acc.addr.smem:
        return "unbounded"
    lo_a, hi_a = ev.interval(acc.addr.expr)
    if lo <= lo_a and hi_a + acc.size <= hi:
        return None  # proved by interval arithmetic alone
    a = z3.ZeroExt(64 - acc.addr.expr.size(), acc.addr.expr)
    inside = z3.And(a >= lo, a + acc.size <= hi)
    facts = [z3.Not(inside)] + ([acc.cond] if acc.cond is not None else [])
    for attempt in range(2):
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
        # Not proved: search the bounds of the loop-carried values it depends on, once.
        if attempt == 0 and r == z3.sat and ev.bound(facts):
            continue
        break
    if r != z3.sat or acc.addr.opaque:
        return "unbounded"
    return out
