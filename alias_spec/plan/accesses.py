"""The shared-memory accesses of an LLVM function, each with its address, size, predicate and
the locations its address was computed at: loads, stores, atomics, NVVM intrinsics (ldmatrix,
stmatrix, cp.async, bulk copies), inline PTX (``ld.shared``, ``st.shared``, ``cp.async``,
mbarrier, wgmma and TMA through ``hopper.py``) and calls. A shared address used in a way not
followed is said, never dropped.
"""

from __future__ import annotations

import re

import z3

from alias_spec.ir.llir import (
    Function,
    Instruction,
    Operand,
)
from alias_spec.plan import hopper
from alias_spec.plan.evaluator import FOLLOWED, Evaluator
from alias_spec.plan.guards import Guards
from alias_spec.plan.taint import (
    type_size,
)
from alias_spec.plan.terms import WIDTH, Access, Value, address_arg, as_bool, fit

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

    return hopper.bulk_copy_size(ptx, args, ev)


def source_buffer(ptx: str, args: list[Operand],
                  ev: Evaluator) -> list[tuple[int, int, str]] | None:  # fmt: skip
    """The buffer a TMA store's box must lie in (its TTGIR op's source); None for any other
    instruction, or where it is not known (``hopper.py``)."""

    own = hopper.store_source_buffer(ptx, args, ev)
    return [own] if own is not None else None


def shared_address_as_value(ptx: str, args: list[Operand], ev: Evaluator) -> str | None:
    """The note for a PTX instruction that takes a shared address as a value, outside
    brackets (None: modelled). ``hopper.py`` decodes wgmma's operand descriptors."""

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
            if name.startswith("tensormap.replace.tile.box_dim"):
                why = hopper.box_dim_note(ptx, args, ev)
                if why:
                    unread.append(f"line {no}: {why}")
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
    # Loads that run as part of the op their address was computed for (``_beside``).
    beside: set[int] = set()
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
        if made and ins.opcode == "load" and _beside(fn, ins, made):
            beside.update(id(acc) for acc in new)
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
                moved = [o for o in other if o not in live]
                if moved and id(acc) in beside:
                    # It runs where that op's own loads run: its buffers are live there.
                    acc.within = acc.within + moved
                else:
                    acc.moved = moved
    return out, unread


def _beside(fn: Function, ins: Instruction, made: tuple[str, ...]) -> bool:
    """Whether a load runs as part of the op its address was computed for, though its location
    names another op (LLVM splits a vector load and gives the pieces the location of the op
    that uses them): earlier in its block, with nothing between that writes memory, calls or
    waits, stands a load or store at the location of that op. Then the load reads what that
    op's own access would read at that point, where that op's buffers are live."""
    block = fn.blocks[ins.block].instructions if ins.block < len(fn.blocks) else []
    # A block's instructions are consecutive in textual order.
    at = ins.index - block[0] if block else -1
    if not 0 < at < len(block) or block[at] != ins.index:
        return False
    for j in reversed(block[max(0, at - _BESIDE) : at]):
        prev = fn.instructions[j]
        if prev.opcode in ("load", "store") and prev.dbg in made:
            return True
        if prev.opcode in _EFFECTS:
            return False
    return False


_BESIDE = 256  # instructions looked back over for that op's access

# What may write memory, synchronise threads or run unknown code between a load and the op its
# address belongs to.
_EFFECTS = {"store", "call", "atomicrmw", "cmpxchg", "fence", "invoke", "callbr", "va_arg"}


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
                              else op, type_size(ty, ev.fn.datalayout), ev.operand(ptr),
                              ins.dbg))  # fmt: skip
        elif ev.uses_shared(ptr):
            unread.append(f"line {no}: the {op} through a {_space(ptr.type)} pointer "
                          "computed from a shared address (not modelled)")  # fmt: skip
        if op == "store" and ops[0].type.startswith("ptr") and ev.uses_shared(ops[0]):
            unread.append(f"line {no}: a shared pointer stored to memory (its later uses "
                          "are not followed)")  # fmt: skip
    elif op == "call" and ins.callee is not None:
        _call_accesses(ins, ev, out, unread, defined)
    elif op not in FOLLOWED and any(ev.uses_shared(o) for o in ops):
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
