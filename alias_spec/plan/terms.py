"""The terms ``alias-spec plan`` builds of LLVM IR values and the shared accesses it judges:
shared by the evaluator (``llir.py``) and the Hopper models (``hopper.py``), which import them
from here and not from each other."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import z3

from alias_spec.ir.llir import Operand

WIDTH = 32  # shared-memory addresses (the data layout's p3:32)
# Types an asm or intrinsic argument must have to hold a shared address (others are data).
_ADDRESS_TYPES = ("ptr addrspace(3)", "i32", "i64", "{")


def name_of(v: z3.ExprRef) -> str:
    """A constant's name, as ``str`` prints it, read through z3's C API (its printer costs
    some ten times more, and variables are named on every judging of an address)."""
    ctx = v.ctx_ref()
    decl = z3.Z3_get_app_decl(ctx, v.as_ast())
    return z3.Z3_get_symbol_string(ctx, z3.Z3_get_decl_name(ctx, decl))


_ONE_SHOT: list[z3.Tactic] = []


def one_shot_solver(timeout_ms: int) -> z3.Solver:
    """A solver for one quantifier-free bit-vector question asked once (no push or pop):
    simplified, unconstrained terms eliminated, bit-blasted to SAT. Complete like z3's default
    solver (the same sat and unsat answers, models included) and about twice as fast on the
    race check's satisfiable pair questions."""
    if not _ONE_SHOT:
        _ONE_SHOT.append(z3.Then("simplify", "propagate-values", "solve-eqs", "elim-uncnstr",
                                 "bit-blast", "sat"))  # fmt: skip
    s = _ONE_SHOT[0].solver()
    s.set("timeout", timeout_ms)
    return s


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
    # The buffers the access may touch, (offset, end, label) relative to its function's base:
    # what the TTGIR ops at its location read, fill or own (attribution.py; hopper.py names
    # one operand's). None: unattributed, judged against the function's range alone.
    within: list[tuple[int, int, str]] | None = None
    # Where the address operands were computed, when elsewhere: LLVM may give an access the
    # location of a neighbour it was merged or split with, rarely the address arithmetic.
    made_at: tuple[str, ...] = ()
    # The buffers named at those locations, not at its own, and dead where its own op runs:
    # an access that leaves its own buffers but stays in these is a note (LLVM moved its
    # location onto another op's, most likely), never clean.
    moved: list[tuple[int, int, str]] = field(default_factory=list)


def bv_size(e: z3.BitVecRef) -> int:
    """``e.size()`` without its sort's Python wrapper (made and finalised per call: a hot
    path of the evaluator)."""
    ctx = e.ctx_ref()
    return int(z3.Z3_get_bv_sort_size(ctx, z3.Z3_get_sort(ctx, e.as_ast())))


def fit(e: z3.BitVecRef, w: int, signed: bool = False) -> z3.BitVecRef:
    n = bv_size(e)
    if n == w:
        return e
    if n > w:
        return z3.Extract(w - 1, 0, e)
    return (z3.SignExt if signed else z3.ZeroExt)(w - n, e)


def as_bool(e: z3.ExprRef) -> z3.BoolRef:
    if isinstance(e, z3.BoolRef):
        return e
    assert isinstance(e, z3.BitVecRef)
    return z3.Extract(0, 0, e) == 1


def address_arg(ev: Any, op: Operand) -> Value | None:
    """An asm or call argument's value, when its type can hold a shared address."""
    if not op.type.startswith(_ADDRESS_TYPES):
        return None
    v = ev.operand(op)
    if op.type.startswith("{"):
        first = (v.fields or {}).get(0)
        return first if first is not None and first.smem else None
    return v if v.smem and isinstance(v.expr, z3.BitVecRef) else None
