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
from dataclasses import dataclass, field
from typing import Any

import z3

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
WIDTH = 32  # shared-memory addresses (the data layout's p3:32)


class LlirError(ValueError):
    """Text that is not LLVM IR this reader understands (one line)."""


@dataclass
class Value:
    expr: z3.BitVecRef | z3.BoolRef
    smem: bool  # a pointer into shared memory (expr: the byte offset from @global_smem)
    opaque: bool  # depends on a value that is not modelled


@dataclass
class Access:
    line: int
    column: int
    kind: str
    size: int | None
    addr: Value
    dbg: str | None


@dataclass
class LFunction:
    name: str
    line: int
    params: list[tuple[str, str]]
    body: list[tuple[int, str]] = field(default_factory=list)  # (line number, text)
    attr_group: str | None = None
    defs: dict[str, tuple[int, str]] = field(default_factory=dict)
    threads: int | None = None


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
        return (int(m.group(1)) + 7) // 8
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
            cur = None
            continue
        cur.body.append((no, line))
        m = _ASSIGN.match(line)
        if m:
            cur.defs[m.group(1)] = (no, m.group(2))
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

    def _opaque(self, width: int, why: str) -> Value:
        self.fresh += 1
        return Value(z3.BitVec(f"{why}{self.fresh}", width), False, True)

    def _tid(self) -> Value:
        if self.tid is None:
            self.tid = z3.BitVec("tid.x", 32)
            bound = self.threads if self.threads else 1024  # the hardware's largest block
            self.constraints.append(z3.ULT(self.tid, z3.BitVecVal(bound, 32)))
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
        return self._opaque(width or WIDTH, "const")

    def value(self, name: str, width: int) -> Value:
        if name in self.cache:
            return self.cache[name]
        if name in self.active:  # a cycle: a loop-carried value
            return self._opaque(width, "loop")
        entry = self.fn.defs.get(name)
        if entry is None:  # a function argument
            return self._opaque(width, "arg")
        self.active.add(name)
        try:
            v = self._eval(entry[1], width)
        finally:
            self.active.discard(name)
        self.cache[name] = v
        return v

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
            if not isinstance(v.expr, z3.BitVecRef):
                return self._opaque(width, "x")
            w = _width(dst_ty) or WIDTH
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
            if not (isinstance(cond.expr, z3.BoolRef) and isinstance(a.expr, z3.BitVecRef)
                    and isinstance(b.expr, z3.BitVecRef)):  # fmt: skip
                return self._opaque(width, "x")
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
        if op == "phi":
            ty, _, incoming = _type_prefix(rest)
            values = []
            for pair in re.findall(r"\[\s*([^,\]]+?)\s*,\s*%[\w.$-]+\s*\]", incoming):
                values.append(self.operand(ty, pair))
            if not values or not all(isinstance(v.expr, z3.BitVecRef) for v in values):
                return self._opaque(width, "phi")
            w = max(v.expr.size() for v in values)  # type: ignore[union-attr]
            self.fresh += 1
            var = z3.BitVec(f"phi{self.fresh}", w)
            self.constraints.append(z3.Or([var == _fit(v.expr, w) for v in values]))
            return Value(var, any(v.smem for v in values), any(v.opaque for v in values))
        if "@llvm.nvvm.read.ptx.sreg.tid.x" in rhs:
            return self._tid()
        if "@llvm.nvvm.read.ptx.sreg.laneid" in rhs:
            lane = self._opaque(32, "lane")
            self.constraints.append(z3.ULT(lane.expr, 32))
            return Value(lane.expr, False, False)
        return self._opaque(width, "x")


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
    (re.compile(r"\.v4\.(?:b|u|s|f)32"), 16),
    (re.compile(r"\.v2\.(?:b|u|s|f)64"), 16),
    (re.compile(r"\.v2\.(?:b|u|s|f)32"), 8),
    (re.compile(r"\.v4\.(?:b|u|s|f)16"), 8),
    (re.compile(r"\.v2\.(?:b|u|s|f)16"), 4),
    (re.compile(r"\.(?:b|u|s|f)64"), 8),
    (re.compile(r"\.(?:b|u|s|f)32"), 4),
    (re.compile(r"\.(?:b|u|s|f)16"), 2),
    (re.compile(r"\.(?:b|u|s)8"), 1),
]


def _asm_size(asm: str) -> int | None:
    if "mbarrier" in asm:
        return 8
    if "cp.async" in asm and "bulk" not in asm:
        m = re.search(r"\],\s*(0x[0-9a-fA-F]+|\d+)", asm)
        return int(m.group(1), 0) if m else None
    if ("ld.shared" in asm or "st.shared" in asm or "atom.shared" in asm) and "bulk" not in asm:
        for pat, size in _ASM_SIZE:
            if pat.search(asm):
                return size
    return None


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
            args_at = rhs.rfind("(")
            smem_args = re.findall(r"ptr addrspace\(3\)\s+(?:[\w()]+\s+)*?(%[\w.$-]+|@global_smem)",
                                   rhs)  # fmt: skip
            if not smem_args:
                # An i32 operand computed from a shared pointer (ptrtoint) feeds asm too.
                ints = re.findall(r"\bi32\s+(%[\w.$-]+)", rhs[args_at:] if args_at > 0 else "")
                smem_ints = [t for t in ints if ev.operand("i32", t).smem]
                if smem_ints and "asm" in rhs:
                    size = _asm_size(rhs)
                    for t in smem_ints:
                        if size is None:
                            unread.append(f"line {no}: inline asm on a shared address "
                                          "(size not modelled)")  # fmt: skip
                        else:
                            out.append(Access(no, col, "asm", size, ev.operand("i32", t), dbg))
                elif smem_ints:
                    unread.append(f"line {no}: a call takes a shared address (not modelled)")
                continue
            if "matrix.sync" in rhs:
                size: int | None = 16
            elif "asm" in rhs:
                size = _asm_size(rhs)
            else:
                size = None
            for tok in smem_args:
                if size is None:
                    unread.append(f"line {no}: a call takes a shared pointer (not modelled)")
                    break
                out.append(Access(no, col, "call", size, ev.operand("ptr addrspace(3)", tok),
                                  dbg))  # fmt: skip
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


def check_lowering(text: str, path: str, report: Report, num_warps: int | None) -> None:
    """Add the lowering's findings and notes to ``report``."""
    fns, meta, _ = read_llir(text)
    report.llir_path = path
    checked = 0
    for fn in fns:
        threads = fn.threads or (num_warps * 32 if num_warps else None)
        ev = Evaluator(fn, threads)
        found, unread = accesses(fn, ev, meta)
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
                verdict = _judge(acc, lo, hi, ev)
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
    a = z3.ZeroExt(64 - acc.addr.expr.size(), acc.addr.expr)
    inside = z3.And(a >= lo, a + acc.size <= hi)
    s = z3.Solver()
    s.set("timeout", 10_000)
    s.add(*ev.constraints)
    s.add(z3.Not(inside))
    r = s.check()
    if r == z3.unsat:
        return None
    if r != z3.sat or acc.addr.opaque:
        return "unbounded"
    m = s.model()
    out = {"address": m.eval(a, model_completion=True).as_long()}
    if ev.tid is not None:
        out["tid.x"] = m.eval(ev.tid, model_completion=True).as_long()
    return out
