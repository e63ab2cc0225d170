"""Every shared-memory address of one LLVM function rebuilt as a z3 bit-vector over the thread
id (``llvm.nvvm.read.ptx.sreg.tid.x``, bounded by the block size) and the values it cannot see
through (opaque: function arguments, loads, loop-carried values, bounded where a loop's
invariant bounds them). Address arithmetic (``getelementptr`` chains, constant expressions,
casts, integer operations, ``select``, ``icmp``, phis, vector lanes) is exact. Queries are asked
over the constraints that bear on them, each with a timeout; a function's search of loop bounds
has a budget.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from typing import Any

import z3

from alias_spec.ir.llir import (
    Function,
    Instruction,
    Operand,
)
from alias_spec.plan.attribution import Attribution
from alias_spec.plan.shapes import MEMO_KEY, NUMERAL, OTHER, Node, Shapes
from alias_spec.plan.taint import (
    SMEM,
    VECTOR,
    aggregate,
    alloc_size,
    asm_pass_through,
    back_edges,
    elem_type,
    find_taint,
    int_width,
    shared_type,
    uses_smem,
)
from alias_spec.plan.terms import WIDTH, Access, Value, as_bool, bv_size, fit, name_of

INVARIANT_STEPS = 8  # iterations before widening a loop-carried value's interval

OPT_TIMEOUT_MS = 1_000  # one optimisation or check while searching a loop bound

QUERY_TIMEOUT_MS = 10_000  # one access's proof

BOUND_BUDGET_S = 20.0  # a function's whole search of loop bounds; past it: not bounded


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
        # A loop-carried value's signed bounds (for one that may be negative), and the values
        # of terms the exhaustive pre-check evaluated (exhaust.py), per set of ranges.
        self.var_signed: dict[str, tuple[int, int]] = {}
        self.signed_found: dict[str, tuple[int, int]] = {}
        # The nodes of the terms bounded (each term kept alive there, so ids are not reused),
        # shared with the exhaustive pre-check; node id -> its bounds; the same under narrowed
        # variable ranges (a select's branch), per set of ranges.
        self.shapes = Shapes()
        self.exhaust_memo: dict[Any, Any] = {MEMO_KEY: self.shapes}
        self._memo: dict[int, tuple[int, int]] = {}
        self._env_memo: dict[tuple[Any, ...], dict[int, tuple[int, int]]] = {}
        # The search of loop bounds stops here; a query that ran out of time sets ``gave_up``.
        self.deadline: float | None = None
        self.gave_up = False
        self.ttgir: Any = None  # the TTGIR module, when given (hopper.py reads its TMA ops)
        self.modelled: list[Access] = []  # accesses hopper.py adds (TMA boxes, wgmma operands)
        self.buffers: list[Any] = []  # the plan's buffers (hopper.py finds an operand's own)
        self.attribution: Attribution | None = None  # each access's buffers, by location

    def uses_shared(self, op: Operand) -> bool:
        return uses_smem(op, self.tainted, self.fn)

    # --- interval arithmetic ----------------------------------------------------------------

    def interval(self, e: z3.BitVecRef, depth: int = 0,
                 env: dict[str, tuple[int, int]] | None = None) -> tuple[int, int]:  # fmt: skip
        """Unsigned bounds of ``e`` by interval arithmetic (sound; the full range when an
        operation may wrap or is not modelled here). ``env``: variables' ranges narrowed by the
        conditions of the selects on the way down (their values in that branch only). Walked
        over the term's nodes (``shapes.py``), read once."""
        return self._iv(self.shapes.read(e), depth, env)

    def _iv(self, i: int, depth: int, env: dict[str, tuple[int, int]] | None) -> tuple[int, int]:
        n = self.shapes.nodes[i]
        memo = self._memo if not env else self._env_memo.setdefault(_env_key(env), {})
        got = memo.get(i)
        if got is not None:
            return got
        full = (0, (1 << n.width) - 1)
        if depth > 200:
            return full
        out = full
        if n.op == NUMERAL:
            out = (n.value, n.value)
        elif n.name:
            if env and n.name in env:
                out = env[n.name]
            elif n.name in self.var_range:
                out = self.var_range[n.name]
            elif n.name in self.var_merge:
                parts = [self.interval(x, depth + 1, env) for x in self.var_merge[n.name]]
                out = (min(a for a, _ in parts), max(b for _, b in parts))
        elif n.op != OTHER:
            out = self._interval_op(n, depth, env)
        memo[i] = out
        return out

    def _compared(self, c: int, holds: bool, depth: int,
                  env: dict[str, tuple[int, int]] | None
                  ) -> tuple[int, int, int] | None:  # fmt: skip
        """The term (its node id) condition ``c`` compares with a constant, and its unsigned
        bounds where ``c`` is ``holds`` (None when ``c`` is no such comparison)."""
        nodes = self.shapes.nodes
        while nodes[c].op == z3.Z3_OP_NOT:
            c, holds = nodes[c].kids[0], not holds
        k = nodes[c].op
        if k not in _NARROWING:
            return None
        x, y = nodes[c].kids
        if nodes[x].op == NUMERAL and nodes[y].op != NUMERAL:  # k < x is x > k
            x, y, k = y, x, _MIRROR[k]
        if nodes[y].op != NUMERAL:
            return None
        bound = nodes[y].value
        a, b = self._iv(x, depth + 1, env)
        if k in _SIGNED:
            w = nodes[x].width
            if b >= 1 << (w - 1) or bound >= 1 << (w - 1):
                return None  # signed is unsigned on non-negative values only
        le = k in (z3.Z3_OP_ULEQ, z3.Z3_OP_SLEQ, z3.Z3_OP_ULT, z3.Z3_OP_SLT)
        strict = k in (z3.Z3_OP_ULT, z3.Z3_OP_SLT, z3.Z3_OP_UGT, z3.Z3_OP_SGT)
        if not holds:  # x <= k fails: x > k, and so on
            le, strict = not le, not strict
        lo, hi = (a, min(b, bound - strict)) if le else (max(a, bound + strict), b)
        return x, lo, hi

    def _narrowed(self, c: int, holds: bool, depth: int,
                  env: dict[str, tuple[int, int]] | None
                  ) -> tuple[bool, dict[str, tuple[int, int]] | None]:  # fmt: skip
        """Whether condition ``c`` can be ``holds`` (False only when intervals show it
        cannot), and ``env`` with the variable of ``c`` narrowed to the values for which it is
        (None when nothing is learnt). Learnt from a comparison of ``x`` with a constant,
        where ``x`` is the variable plus a constant that does not wrap, maybe zero-extended."""
        got = self._compared(c, holds, depth, env)
        if got is None:
            return True, None
        x, lo, hi = got
        if lo > hi:
            return False, None
        nodes = self.shapes.nodes
        out = dict(env or {})
        while True:  # back through constant additions and lossless casts, to a variable
            n = nodes[x]
            if n.name:
                out[n.name] = (lo, hi)
                return True, out
            if n.op == z3.Z3_OP_ZERO_EXT:
                x = n.kids[0]
            elif (
                n.op == z3.Z3_OP_BADD
                and len(n.kids) == 2
                and any(nodes[k].op == NUMERAL for k in n.kids)
            ):
                const, y = n.kids if nodes[n.kids[0]].op == NUMERAL else n.kids[::-1]
                c0 = nodes[const].value
                ya, yb = self._iv(y, depth + 1, env)
                if yb + c0 >= 1 << n.width:
                    return True, None  # the sum may wrap
                x, lo, hi = y, max(ya, lo - c0), min(yb, hi - c0)
                if lo > hi:
                    return False, None
            else:
                return True, None

    def _interval_op(self, n: Node, depth: int,
                     env: dict[str, tuple[int, int]] | None) -> tuple[int, int]:  # fmt: skip
        w = n.width
        full = (0, (1 << w) - 1)
        k = n.op
        kids = n.kids
        nodes = self.shapes.nodes

        def iv(x: int, inner: dict[str, tuple[int, int]] | None = env) -> tuple[int, int]:
            return self._iv(x, depth + 1, inner)

        def fits(lo: int, hi: int) -> tuple[int, int]:
            return (lo, hi) if 0 <= lo <= hi <= full[1] else full

        def const(x: int) -> int | None:
            return nodes[x].value if nodes[x].op == NUMERAL else None

        if k == z3.Z3_OP_BADD:
            parts = [iv(x) for x in kids]
            return fits(sum(a for a, _ in parts), sum(b for _, b in parts))
        if k == z3.Z3_OP_BMUL:
            lo, hi = 1, 1
            for a, b in (iv(x) for x in kids):
                lo, hi = lo * a, hi * b
            return fits(lo, hi)
        if k == z3.Z3_OP_BSUB and len(kids) == 2:
            c = self._remainder_of(kids[0], kids[1])
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
        if k in (z3.Z3_OP_BSHL, z3.Z3_OP_BLSHR) and const(kids[1]) is not None:
            s = nodes[kids[1]].value
            a, b = iv(kids[0])
            return fits(a << s, b << s) if k == z3.Z3_OP_BSHL else (a >> s, b >> s)
        if k in (z3.Z3_OP_BUDIV, z3.Z3_OP_BUDIV_I, z3.Z3_OP_BUREM, z3.Z3_OP_BUREM_I) and (
            (const(kids[1]) or 0) > 0
        ):
            c = nodes[kids[1]].value
            a, b = iv(kids[0])
            if k in (z3.Z3_OP_BUDIV, z3.Z3_OP_BUDIV_I):
                return (a // c, b // c)
            return (a, b) if b < c else (0, c - 1)
        if k == z3.Z3_OP_ITE:
            # Each branch under what its condition says (the select of a ring's wrap-around,
            # i + 1 <= n ? i + 1 : 0, stays in the ring); a branch never taken adds nothing.
            parts = []
            for holds, branch in ((True, kids[1]), (False, kids[2])):
                taken, narrowed = self._narrowed(kids[0], holds, depth, env)
                if taken:
                    a, b = iv(branch, narrowed if narrowed is not None else env)
                    same = self._compared(kids[0], holds, depth, env)
                    if same is not None and same[0] == branch:
                        # The branch is the compared term itself (i + 1 <= n ? i + 1 : 0):
                        # bounded by the comparison, whether or not its sum wraps.
                        a, b = max(a, same[1]), min(b, same[2])
                    if a <= b:
                        parts.append((a, b))
            if not parts:
                return full
            return (min(a for a, _ in parts), max(b for _, b in parts))
        if k == z3.Z3_OP_ZERO_EXT:
            return iv(kids[0])
        if k == z3.Z3_OP_SIGN_EXT:
            a, b = iv(kids[0])
            return (a, b) if b < 1 << (nodes[kids[0]].width - 1) else full
        if k == z3.Z3_OP_EXTRACT:
            hi_bit, lo_bit = n.params
            a, b = iv(kids[0])
            if a >> (hi_bit + 1) == b >> (hi_bit + 1):
                # The bits above the field do not vary: x mod 2^(hi+1) is monotone on [a, b].
                low = (1 << (hi_bit + 1)) - 1
                return ((a & low) >> lo_bit, (b & low) >> lo_bit)
            return full
        if k == z3.Z3_OP_CONCAT:
            out = (0, 0)
            for x in kids:  # high part first: each part shifts what came before
                (a, b), m = iv(x), nodes[x].width
                # h * 2^m + l over h in [lo0, hi0], l in [a, b]: least and greatest at the ends.
                out = ((out[0] << m) + a, (out[1] << m) + b)
            return out
        return full

    def _remainder_of(self, x: int, y: int) -> int | None:
        """c when node ``y`` is ``(x udiv c) * c`` (either operand order) with a constant
        c > 0 (z3 shares equal terms: one id)."""
        nodes = self.shapes.nodes
        if nodes[y].op != z3.Z3_OP_BMUL or len(nodes[y].kids) != 2:
            return None
        for q, c in (nodes[y].kids, nodes[y].kids[::-1]):
            nq, nc = nodes[q], nodes[c]
            if (
                nc.op == NUMERAL
                and nc.value > 0
                and nq.op in (z3.Z3_OP_BUDIV, z3.Z3_OP_BUDIV_I)
                and nq.kids == (x, c)
            ):
                return nc.value
        return None

    # --- solvers --------------------------------------------------------------------------------

    def relevant(self, exprs: Sequence[z3.ExprRef]) -> list[z3.BoolRef]:
        """The constraints that bear on ``exprs``: those sharing a variable with them, closed
        over shared variables (a merge's equation only through the merge itself). A query
        over this slice is one over fewer facts (a proof on it holds with all of them), and
        its size is that of the values involved, not of the whole function: each loop's bound
        search stays local (linear work, not quadratic)."""
        for i in range(len(self._cvars), len(self.constraints)):
            names = frozenset(c.decl().name() for c in free_vars(self.constraints[i]))
            self._cvars.append(names)
            # A merge's equation is reached from the merge alone: it constrains nothing else
            # (the merge is free otherwise), and reached from its operands it would drag in
            # every merge built on them (a thread id's: the whole function's arithmetic).
            for n in [self._defines[i]] if i in self._defines else names:
                self._by_var.setdefault(n, []).append(i)
        todo = list({c.decl().name() for e in exprs for c in free_vars(e)})
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
        todo = [c for e in exprs for c in free_vars(e) if name_of(c) in self.deferred]
        for c in todo:
            job = self.deferred.pop(name_of(c), None)
            if job is None or self._out_of_time():
                continue
            var, incs, edges, name = job
            found |= self.bound([v.expr for v in incs])
            got = self._invariant(var, incs, edges)
            if got:
                self.constraints.extend(got)
                self._memo.clear()
                self._env_memo.clear()
                rng = self.ranges.pop(str(var), None)
                if rng is not None:
                    self.var_range[str(var)] = rng
                srng = self.signed_found.pop(str(var), None)
                if srng is not None:
                    self.var_signed[str(var)] = srng
                self.bounded[name] = " and ".join(str(g) for g in got)
                found = True
        return found

    def _opaque(self, width: int, why: str) -> Value:
        self.fresh += 1
        return Value(z3.BitVec(f"{why}{self.fresh}", width), False, True)

    def thread_id(self) -> z3.BitVecRef:
        """The thread id the addresses are functions of (made, with its bound, if no address
        read it yet)."""
        expr = self._tid().expr
        assert isinstance(expr, z3.BitVecRef)
        return expr

    def _tid(self) -> Value:
        if self.tid is None:
            self.tid = z3.BitVec("tid.x", 32)
            bound = self.threads if self.threads else 1024  # the hardware's largest block
            self.constraints.append(z3.ULT(self.tid, z3.BitVecVal(bound, 32)))
            self.var_range["tid.x"] = (0, bound - 1)
        return Value(self.tid, False, self.threads is None)

    # --- operands and values ----------------------------------------------------------------

    def operand(self, op: Operand, width: int | None = None) -> Value:
        w = int_width(op.type) or width
        kind = op.kind
        if kind == "value":
            return self.value(op.ref, w or WIDTH)
        if kind == "global":
            if op.name == SMEM:
                return Value(z3.BitVecVal(0, WIDTH), True, False)
            return self._opaque(w or WIDTH, "global")
        if kind == "int":
            return Value(z3.BitVecVal(op.value or 0, w or 64), False, False)
        if kind == "bool":
            return Value(z3.BoolVal(bool(op.value)), False, False)
        if kind == "null" and w:
            return Value(z3.BitVecVal(0, w), False, False)
        vec = VECTOR.fullmatch(op.type)
        if kind == "null" and vec:
            zero = z3.BitVecVal(0, int_width(vec.group(2)) or WIDTH)
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
            v = self._eval(ins, int_width(ins.type) or width)
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
        width = int_width(ins.type)
        vec = VECTOR.fullmatch(ins.type.strip())
        if (width is None and vec is not None and ins.operands
                and len(ins.incoming) == len(ins.operands)):  # fmt: skip
            return self._vector_phi(ins, int(vec.group(1)), int_width(vec.group(2)) or WIDTH)
        if width is None or not ins.operands or len(ins.incoming) != len(ins.operands):
            v = self._opaque(width or WIDTH, "phi")
            self.cache[idx] = v
            return v
        self.fresh += 1
        var = z3.BitVec(f"{name}.{self.fresh}", width)
        incs, reached = self._incoming(ins, Value(var, shared_type(ins.type), True), width)
        if not all(isinstance(v.expr, z3.BitVecRef) for v in incs):
            v = self._opaque(width, "phi")
            self.cache[idx] = v
            return v
        v = self._joined(ins, var, incs, reached, name)
        self.cache[idx] = v
        return v

    def _incoming(self, ins: Instruction, placeholder: Value,
                  width: int | None = None) -> tuple[list[Value], set[int]]:  # fmt: skip
        """The phi's incoming values, built with ``placeholder`` cached for it (a loop reaches
        it again through them), and the pending phis reached meanwhile."""
        idx = ins.index
        self.cache[idx] = placeholder
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
        return incs, reached

    def _joined(self, ins: Instruction, var: z3.BitVecRef, incs: list[Value], reached: set[int],
                name: str) -> Value:  # fmt: skip
        """The phi ``var`` (a value, or one lane of a vector) over its incoming values."""
        smem = any(v.smem for v in incs)
        header = any((frm, ins.block) in self.back_edges for frm in ins.incoming)
        if not header and ins.index not in reached:
            # A merge: the phi is one of its incoming values, all of this same iteration.
            fitted = [fit(v.expr, var.size()) for v in incs]  # type: ignore[arg-type]
            self._defines[len(self.constraints)] = str(var)
            self.constraints.append(z3.Or([var == f for f in fitted]))
            self.var_merge[str(var)] = fitted
            return Value(var, smem, any(v.opaque for v in incs))
        # Carried around a loop: its value comes from an earlier iteration, so it is known
        # by the bounds the loop keeps it in (if any are found), never by an equation.
        edges = [(frm, ins.block) for frm in ins.incoming]
        self.deferred[str(var)] = (var, incs, edges, name)
        return Value(var, smem, True)

    def _vector_phi(self, ins: Instruction, n: int, width: int) -> Value:
        """A phi of integer vectors, lane by lane: LLVM packs several ring counters of a
        pipelined loop into one vector (each lane a slot index, wrapped by a lane-wise select),
        so each lane is a phi of its own. A lane some incoming value does not know is unknown."""
        name = ins.name or f"%{ins.index}"
        self.fresh += 1
        lanes = [z3.BitVec(f"{name}[{i}].{self.fresh}", width) for i in range(n)]
        out = self._opaque(WIDTH, "vec")
        out.fields = {i: Value(var, False, True) for i, var in enumerate(lanes)}
        incs, reached = self._incoming(ins, out)
        for i, var in enumerate(lanes):
            got = [(v.fields or {}).get(i) for v in incs]
            if all(g is not None and isinstance(g.expr, z3.BitVecRef) for g in got):
                out.fields[i] = self._joined(ins, var, got, reached, f"{name}[{i}]")  # type: ignore[arg-type]
        return out

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
                else:
                    self.signed_found[str(var)] = (lo - half, hi - half)
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
                ty = elem_type(ty)
                if ty is None:
                    return self._opaque(WIDTH, "gep")
            size = alloc_size(ty, self.fn.datalayout)  # a GEP steps by alloc sizes
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
        if VECTOR.fullmatch(ty):  # lane by lane, for the lanes known on both sides
            out = self._opaque(WIDTH, "vec")
            out.fields = {}
            for i in set(a.fields or {}) & set(b.fields or {}):
                x, y = (a.fields or {})[i], (b.fields or {})[i]
                if isinstance(x.expr, z3.BitVecRef) and isinstance(y.expr, z3.BitVecRef):
                    w = max(bv_size(x.expr), bv_size(y.expr))
                    out.fields[i] = Value(_BINOPS[op](fit(x.expr, w), fit(y.expr, w)),
                                          x.smem or y.smem, x.opaque or y.opaque)  # fmt: skip
            return out
        if ty == "i1" and op in ("and", "or", "xor"):  # predicates combined
            f = {"and": z3.And, "or": z3.Or, "xor": z3.Xor}[op]
            return Value(f(as_bool(a.expr), as_bool(b.expr)), False, a.opaque or b.opaque)
        if not (isinstance(a.expr, z3.BitVecRef) and isinstance(b.expr, z3.BitVecRef)):
            return self._opaque(width, "x")
        w = max(bv_size(a.expr), bv_size(b.expr))
        ea, eb = fit(a.expr, w), fit(b.expr, w)
        return Value(_BINOPS[op](ea, eb), a.smem or b.smem, a.opaque or b.opaque)

    def _cast(self, op: str, src: Operand, dst_ty: str) -> Value:
        width = int_width(dst_ty) or WIDTH
        if op == "addrspacecast":
            # Out of (or into) shared memory: the generic address is not the shared offset.
            self.operand(src)
            return self._opaque(width, "cast")
        v = self.operand(src)
        lanes = VECTOR.fullmatch(dst_ty)
        if lanes and v.fields is not None and op in ("zext", "sext", "trunc"):
            # Lane by lane (3.9 computes two ring slots as one vector urem of a truncation).
            lane_w = int_width(lanes.group(2)) or WIDTH
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
        if op == "select" and len(ops) == 3 and VECTOR.fullmatch(ins.type.strip()):
            return self._lanewise(ops[1], ops[2], ops[0], "select")
        if op == "icmp" and len(ops) == 2 and VECTOR.fullmatch(ops[0].type.strip()):
            return self._lanewise(ops[0], ops[1], None, ins.predicate)
        if op == "select" and len(ops) == 3:
            cond = self.operand(ops[0])
            a, b = self.operand(ops[1]), self.operand(ops[2])
            if isinstance(a.expr, z3.BoolRef) and isinstance(b.expr, z3.BoolRef):
                return Value(z3.If(as_bool(cond.expr), a.expr, b.expr), False,
                             cond.opaque or a.opaque or b.opaque)  # fmt: skip
            if not (isinstance(a.expr, z3.BitVecRef) and isinstance(b.expr, z3.BitVecRef)):
                return self._opaque(width, "x")
            w = max(bv_size(a.expr), bv_size(b.expr))
            return Value(z3.If(as_bool(cond.expr), fit(a.expr, w), fit(b.expr, w)),
                         a.smem or b.smem, cond.opaque or a.opaque or b.opaque)  # fmt: skip
        if op == "icmp" and len(ops) == 2:
            a, b = self.operand(ops[0]), self.operand(ops[1])
            if ins.predicate not in _PREDS or not (
                isinstance(a.expr, z3.BitVecRef) and isinstance(b.expr, z3.BitVecRef)
            ):
                self.fresh += 1
                return Value(z3.Bool(f"cmp{self.fresh}"), False, True)
            w = max(bv_size(a.expr), bv_size(b.expr))
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
            if not aggregate(ins.type):
                i = tied.get(0)
                return self.operand(ops[i]) if i is not None and i < len(ops) else (
                    self._opaque(width, "x"))  # fmt: skip
            out = self._opaque(WIDTH, "agg")
            out.fields = {o: self.operand(ops[i]) for o, i in tied.items() if i < len(ops)}
            return out
        return self._opaque(width, "x")

    def _lanewise(self, a_op: Operand, b_op: Operand, c_op: Operand | None, how: str) -> Value:
        """A vector ``select`` (``how``; ``c_op``: its condition, a vector or one i1 for all
        lanes) or ``icmp`` (``how``: its predicate), lane by lane, for the lanes known."""
        a, b = self.operand(a_op), self.operand(b_op)
        cond = self.operand(c_op) if c_op is not None else None
        out = self._opaque(WIDTH, "vec")
        out.fields = {}
        for i in set(a.fields or {}) & set(b.fields or {}):
            x, y = (a.fields or {})[i], (b.fields or {})[i]
            if not (isinstance(x.expr, z3.BitVecRef) and isinstance(y.expr, z3.BitVecRef)):
                continue
            w = max(bv_size(x.expr), bv_size(y.expr))
            ex, ey = fit(x.expr, w), fit(y.expr, w)
            if cond is None:
                if how in _PREDS:
                    out.fields[i] = Value(_PREDS[how](ex, ey), False, x.opaque or y.opaque)
                continue
            c = cond if cond.fields is None else cond.fields.get(i)
            if c is None or not isinstance(c.expr, z3.BoolRef):
                continue
            out.fields[i] = Value(z3.If(c.expr, ex, ey), x.smem or y.smem,
                                  c.opaque or x.opaque or y.opaque)  # fmt: skip
        return out

    def _shuffle(self, ins: Instruction) -> Value:
        """Lane i of the result is lane mask[i] of the two inputs laid end to end; a poison or
        undef mask lane, or a lane not known, is left out (not known)."""
        out = self._opaque(WIDTH, "vec")
        out.fields = {}
        vec = VECTOR.fullmatch(ins.operands[0].type)
        masks = list(SHUFFLE_MASK.finditer(ins.text.split(", !", 1)[0]))
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
                w = max(bv_size(a.expr), bv_size(b.expr))
                x, y = fit(a.expr, w), fit(b.expr, w)
                less = z3.ULT(x, y) if mm.group(1) == "u" else x < y
                pick = z3.If(less, x, y) if mm.group(2) == "min" else z3.If(less, y, x)
                return Value(pick, a.smem or b.smem, a.opaque or b.opaque)
        if re.fullmatch(r"llvm\.bitreverse\.i\d+", callee) and len(args) == 1:
            # Bit i is bit w-1-i (Triton's swizzles of a layout's lane bits use it).
            x = self.operand(args[0])
            if isinstance(x.expr, z3.BitVecRef):
                e, n = x.expr, x.expr.size()
                bits = [z3.Extract(i, i, e) for i in range(n)]
                return Value(z3.Concat(*bits) if n > 1 else e, False, x.opaque)
        if _CTA_UNIFORM.fullmatch(callee):
            # The same for every thread of the CTA (its id, the grid's and block's sizes): a
            # value the races check may share between two threads, like a kernel argument.
            return self._opaque(width, "const")
        return self._opaque(width, "x")


# Terms asked for their variables, by id, each kept alive so that its id is not reused: an
# address is asked once per way of judging it (intervals, the exhaustive range, the solver).
_FREE: dict[int, tuple[z3.ExprRef, list[z3.ExprRef]]] = {}
_FREE_MAX = 1 << 16


# Special registers every thread of one CTA reads alike.
_CTA_UNIFORM = re.compile(
    r"llvm\.nvvm\.read\.ptx\.sreg\.(?:ctaid|nctaid|ntid|clusterid|nclusterid|cluster_ctaid"
    r"|cluster_nctaid|cluster_ctarank|cluster_nctarank)(?:\.[xyzw])?"
)


def free_vars(e: z3.ExprRef) -> list[z3.ExprRef]:
    """The free constants (variables) of ``e`` (``_free_vars``, remembered)."""
    key = e.get_id()
    got = _FREE.get(key)
    if got is not None and got[0].eq(e):
        return list(got[1])
    if len(_FREE) >= _FREE_MAX:
        _FREE.clear()
    # A term plus a number (a party's end: its start plus its size) has its term's variables,
    # which are usually remembered already (followed down a chain of such sums in a loop: no
    # recursion on a deep one).
    inner = e
    while z3.is_app_of(inner, z3.Z3_OP_BADD) and inner.num_args() == 2 and z3.is_bv_value(
            inner.arg(1)):  # fmt: skip
        inner = inner.arg(0)
    out = free_vars(inner) if inner is not e else _free_vars(e)
    _FREE[key] = (e, out)
    return list(out)


def _free_vars(e: z3.ExprRef) -> list[z3.ExprRef]:
    """The free constants (variables) of ``e``. Walked through z3's C API: the children of a
    term are kept alive by the term, and a Python wrapper per node cost more than the
    queries."""
    ctx = e.ctx_ref()
    seen: set[int] = set()
    out = []
    todo = [e.as_ast()]
    while todo:
        a = todo.pop()
        i = z3.Z3_get_ast_id(ctx, a)
        if i in seen:
            continue
        seen.add(i)
        if z3.Z3_get_ast_kind(ctx, a) != z3.Z3_APP_AST:
            continue
        n = z3.Z3_get_app_num_args(ctx, a)
        if n:
            todo.extend(z3.Z3_get_app_arg(ctx, a, k) for k in range(n))
        elif z3.Z3_get_decl_kind(ctx, z3.Z3_get_app_decl(ctx, a)) == z3.Z3_OP_UNINTERPRETED:
            out.append(z3.z3._to_expr_ref(a, e.ctx))
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


# Comparisons a select's condition narrows a variable by; the signed ones only where both
# sides are non-negative.
_SIGNED = (z3.Z3_OP_SLEQ, z3.Z3_OP_SLT, z3.Z3_OP_SGEQ, z3.Z3_OP_SGT)
_NARROWING = (z3.Z3_OP_ULEQ, z3.Z3_OP_ULT, z3.Z3_OP_UGEQ, z3.Z3_OP_UGT, *_SIGNED)
_MIRROR = {
    z3.Z3_OP_ULEQ: z3.Z3_OP_UGEQ, z3.Z3_OP_UGEQ: z3.Z3_OP_ULEQ,
    z3.Z3_OP_ULT: z3.Z3_OP_UGT, z3.Z3_OP_UGT: z3.Z3_OP_ULT,
    z3.Z3_OP_SLEQ: z3.Z3_OP_SGEQ, z3.Z3_OP_SGEQ: z3.Z3_OP_SLEQ,
    z3.Z3_OP_SLT: z3.Z3_OP_SGT, z3.Z3_OP_SGT: z3.Z3_OP_SLT,
}  # fmt: skip


def _env_key(env: dict[str, tuple[int, int]]) -> tuple[Any, ...]:
    return tuple(sorted(env.items()))


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
FOLLOWED = {
    "getelementptr", "freeze", "select", "phi", "icmp", "insertvalue", "extractvalue",
    "insertelement", "extractelement", "shufflevector", "br", "switch", *_CASTS, *_BINOPS,
}  # fmt: skip

# A shufflevector's mask: its lanes written out, or all zero (then its lane count first).
SHUFFLE_MASK = re.compile(r"<(\d+) x i32> (?:<([^<>]*)>|zeroinitializer)\s*(?:,|$)")
