"""Shared-memory races between the threads of one CTA (``alias-spec plan --races``).

Two accesses race when two different threads may make them to a common byte, at least one
writes (two atomics do not race), and nothing orders them. Between CTA barriers
(``barrier.sync 0`` in any of its LLVM forms) every thread runs its own way, so two accesses
are unordered exactly when a path of the function's control flow leads from one to the other
without passing a barrier; a path around a loop's back edge puts them in different iterations.
Each unordered pair is a z3 question over two thread ids (``tid.x`` and ``tid.x'``, distinct,
each below the block size) and the values the addresses depend on: the kernel's arguments and
constants are the same for both threads; every other value (loaded data, loop-carried values,
merges) is taken afresh for the second thread, with the constraints the evaluator knows of it.
A satisfiable question is a finding with the byte and the two thread ids z3 found.

What is not judged is a note (the verdict is partial), never clean: asynchronous shared accesses
(cp.async, TMA, wgmma operands, mbarrier operations: their proxies and waits are not followed
here), named or counted barriers (warp-specialized partitions), calls to functions that touch
shared memory, an access whose address is not bounded, a question the solver cannot decide
within ``PAIR_TIMEOUT_MS``, pairs past a function's ``BUDGET_S``, and a function with more
unordered pairs than ``MAX_PAIRS``. Assumed, and said in the guide:
barriers are reached by every thread of the CTA (Triton places them so), and the two threads of
one access of one instruction in the same iteration write the same values (a layout's
replicated elements), so such a self-pair is not reported.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

import z3

from alias_spec.ir.llir import Function, Instruction
from alias_spec.plan.evaluator import Evaluator, free_vars
from alias_spec.plan.plan import Finding, Note, Report
from alias_spec.plan.taint import back_edges
from alias_spec.plan.terms import Access

MAX_PAIRS = 4_000  # unordered pairs judged per function; past it: a note
PAIR_TIMEOUT_MS = 2_000  # one pair's question
BUDGET_S = 30.0  # a function's pairs together; those left past it: a note
# Values the same for every thread of the CTA: the kernel's arguments and constants the
# evaluator does not fold (the evaluator's names for them).
_UNIFORM = re.compile(r"^(?:arg|const)\d+$")
_CTA_CALLS = ("llvm.nvvm.barrier0", "llvm.nvvm.barrier.cta.sync.aligned.all",
              "llvm.nvvm.barrier.cta.sync.all")  # fmt: skip
_BARRIER_ASM = re.compile(r"\b(?:bar|barrier)(?:\.cta)?\.(?:sync|red|arrive)\b")
_CTA_ASM = re.compile(r"^\s*(?:bar|barrier)(?:\.cta)?\.sync(?:\.aligned)?\s+0\s*;?\s*$")
# Generic-proxy accesses the check orders, by the start of ``Access.kind``: reads, writes,
# atomics. Every other shared access is asynchronous or a barrier's (not judged).
_READS = ("load", "call @llvm.nvvm.ldmatrix", "asm ld.shared", "asm ldmatrix")
_WRITES = ("store", "call @llvm.nvvm.stmatrix", "asm st.shared", "asm stmatrix")
_ATOMICS = ("atomic", "asm atom.shared", "asm red.shared", "asm atom", "asm red")


def _role(kind: str) -> str | None:
    """ "read", "write", "atomic", or None: not a generic-proxy access."""
    for role, starts in (("atomic", _ATOMICS), ("write", _WRITES), ("read", _READS)):
        if kind.startswith(starts):
            return role
    return None


def barrier(ins: Instruction) -> str | None:
    """ "cta" for a barrier of the whole CTA, "other" for a named or counted one (or an arrive),
    None for an instruction that is no barrier."""
    callee = ins.callee.name if ins.callee is not None else ""
    text = ins.text if "asm" in ins.text else ""
    if callee.startswith(_CTA_CALLS):
        args = ins.operands
        return "cta" if not args or all(a.value == 0 for a in args) else "other"
    if callee.startswith("llvm.nvvm.barrier"):
        return "other"
    if text and _BARRIER_ASM.search(text):
        asm = text.split('"')[1] if text.count('"') >= 2 else text
        return "cta" if _CTA_ASM.match(asm.replace("\\0A", "").replace("\\09", " ")) else "other"
    return None


@dataclass(frozen=True)
class _Pair:
    first: Access
    second: Access
    crossed: bool  # the path goes around a back edge: different iterations


def unordered(fn: Function, at: dict[int, list[Access]], barriers: set[int]) -> list[_Pair]:
    """Every pair of accesses with a barrier-free path from the first to the second (by the
    instructions ``at`` maps to their accesses)."""
    where = {i: (b.index, k) for b in fn.blocks for k, i in enumerate(b.instructions)}
    loops = back_edges(fn)
    out: list[_Pair] = []
    seen: set[tuple[int, int, bool]] = set()
    for start in sorted(at):
        if start not in where:
            continue
        reached: dict[int, set[bool]] = {}
        block, pos = where[start]
        todo = [(block, pos + 1, False)]
        visited: set[tuple[int, bool]] = set()
        while todo:
            b, k, crossed = todo.pop()
            ins_list = fn.blocks[b].instructions
            stopped = False
            for i in ins_list[k:]:
                if i in barriers:
                    stopped = True
                    break
                if i in at:
                    reached.setdefault(i, set()).add(crossed)
            if stopped or not ins_list:
                continue
            for n in fn.instructions[ins_list[-1]].targets:
                c = crossed or (b, n) in loops
                if n >= 0 and (n, c) not in visited:
                    visited.add((n, c))
                    todo.append((n, 0, c))
        for other, flags in reached.items():
            for crossed in flags:
                for a in at[start]:
                    for c in at[other]:
                        key = (id(a), id(c), crossed)
                        if key in seen or (id(c), id(a), crossed) in seen:
                            continue
                        seen.add(key)
                        out.append(_Pair(a, c, crossed))
    return out


def _conflict(p: _Pair) -> bool:
    """At least one of the two writes, and they are not both atomic."""
    roles = {_role(p.first.kind), _role(p.second.kind)}
    return roles != {"read"} and roles != {"atomic"}


def _renamed(e: z3.ExprRef, subst: list[tuple[z3.ExprRef, z3.ExprRef]]) -> z3.ExprRef:
    return z3.substitute(e, *subst) if subst else e


def _second_thread(exprs: list[z3.ExprRef], tid: z3.ExprRef) -> list[tuple[z3.ExprRef, z3.ExprRef]]:
    """The substitution that makes the second thread's copy: its own thread id and its own
    copy of every value that is not the same for all threads."""
    out = []
    for v in {x.get_id(): x for e in [*exprs, tid] for x in free_vars(e)}.values():
        name = v.decl().name()
        if _UNIFORM.match(name):
            continue
        out.append((v, z3.BitVec(name + "'", v.size())))  # type: ignore[attr-defined]
    return out


def _overlap(a: Access, b: Access, ev: Evaluator) -> tuple[str, dict[str, int]]:
    """("sat", witness), ("unsat", {}) or ("unknown", {}) for two threads making ``a`` and
    ``b`` to a common byte."""
    assert a.size is not None and b.size is not None
    ea, eb = a.addr.expr, b.addr.expr
    assert isinstance(ea, z3.BitVecRef) and isinstance(eb, z3.BitVecRef)
    first = [ea] + ([a.cond] if a.cond is not None else [])
    second = [eb] + ([b.cond] if b.cond is not None else [])
    tid = ev.thread_id()  # made, with its bound, where no address needed it
    facts_a = ev.relevant([*first, tid])
    facts_b = ev.relevant([*second, tid])
    subst = _second_thread(second + facts_b, tid)
    tid2 = next(n for o, n in subst if o.eq(tid))
    x = z3.ZeroExt(64 - ea.size(), ea)
    y = z3.ZeroExt(64 - eb.size(), _renamed(eb, subst))  # type: ignore[arg-type]
    s = z3.Solver()
    s.set("timeout", PAIR_TIMEOUT_MS)
    s.add(*facts_a, *(_renamed(f, subst) for f in facts_b))
    if a.cond is not None:
        s.add(a.cond)
    if b.cond is not None:
        s.add(_renamed(b.cond, subst))
    s.add(tid != tid2, z3.ULT(x, y + b.size), z3.ULT(y, x + a.size))
    r = s.check()
    if r != z3.sat:
        return ("unsat" if r == z3.unsat else "unknown"), {}
    m = s.model()
    xa, yb = (m.eval(v, model_completion=True).as_long() for v in (x, y))  # type: ignore[attr-defined]
    return "sat", {"byte": max(xa, yb), "tid.x": m.eval(tid, model_completion=True).as_long(),
                   "tid.x'": m.eval(tid2, model_completion=True).as_long()}  # type: ignore[attr-defined]  # fmt: skip


def check_races(fn: Function, found: list[Access], ev: Evaluator, report: Report,
                defined: set[str]) -> int:  # fmt: skip
    """Judge one function's generic shared accesses for races; findings and notes go to the
    report. Returns how many unordered pairs were judged."""
    by_line: dict[int, int] = {}
    for ins in fn.instructions:
        by_line.setdefault(ins.line, ins.index)
    barriers: set[int] = set()
    other_barriers = []
    for ins in fn.instructions:
        kind = barrier(ins)
        if kind == "cta":
            barriers.add(ins.index)
        elif kind == "other":
            other_barriers.append(ins)
    calls = [ins for ins in fn.instructions if ins.callee is not None
             and ins.callee.name in defined]  # fmt: skip
    unjudged = [a for a in found if _role(a.kind) is None]
    where = f"@{fn.name}"
    if other_barriers:
        ins = other_barriers[0]
        report.notes.append(Note("race.unjudged", f"{where}: races not judged: it has named or "
                                 f"counted barriers (LLVM IR line {ins.line}: warp-specialized "
                                 "partitions), whose pairing is not followed", ins.line,
                                 ins.column, fn.name))  # fmt: skip
        return 0
    if calls:
        report.notes.append(Note("race.unjudged", f"{where}: races not judged across its calls "
                                 f"(@{calls[0].callee.name} at LLVM IR line {calls[0].line})",
                                 calls[0].line, calls[0].column, fn.name))  # fmt: skip
    if unjudged:
        kinds = sorted({a.kind.split(" (")[0] for a in unjudged})
        report.notes.append(Note("race.unjudged", f"{where}: the ordering of {len(unjudged)} "
                                 "asynchronous or barrier shared accesses is not judged ("
                                 f"{', '.join(kinds[:4])}{', ...' if len(kinds) > 4 else ''})",
                                 unjudged[0].line, unjudged[0].column, fn.name))  # fmt: skip
    at: dict[int, list[Access]] = {}
    for a in found:
        role = _role(a.kind)
        if role is None or a.line not in by_line:
            continue
        at.setdefault(by_line[a.line], []).append(a)
    pairs = [p for p in unordered(fn, at, barriers) if _conflict(p)]
    if len(pairs) > MAX_PAIRS:
        report.notes.append(Note("race.unjudged", f"{where}: {len(pairs)} unordered pairs of "
                                 f"shared accesses; the first {MAX_PAIRS} judged", fn.line, 1,
                                 fn.name))  # fmt: skip
        pairs = pairs[:MAX_PAIRS]
    undecided: list[_Pair] = []
    deadline = time.monotonic() + BUDGET_S
    for p in pairs:
        a, b = p.first, p.second
        if time.monotonic() > deadline:
            undecided.append(p)  # out of time: said with the undecided
            continue
        if (a.size is None or b.size is None or not isinstance(a.addr.expr, z3.BitVecRef)
                or not isinstance(b.addr.expr, z3.BitVecRef)):  # fmt: skip
            undecided.append(p)
            continue
        verdict, w = _overlap(a, b, ev)
        if verdict == "unknown":
            undecided.append(p)
        elif verdict == "sat":
            _finding(fn, p, w, report)
            return len(pairs)  # one race a function: the first, with its witness
    if undecided:
        a, b = undecided[0].first, undecided[0].second
        report.notes.append(Note("race.unjudged", f"{where}: {len(undecided)} unordered pairs "
                                 f"not decided, the first the {a.kind} at LLVM IR line {a.line} "
                                 f"and the {b.kind} at line {b.line}", a.line, a.column,
                                 fn.name))  # fmt: skip
    return len(pairs)


def _finding(fn: Function, p: _Pair, w: dict[str, int], report: Report) -> None:
    a, b = p.first, p.second
    t1, t2 = w["tid.x"], w["tid.x'"]
    when = " in different iterations of a loop" if p.crossed else ""
    src = f" (kernel source {a.dbg} and {b.dbg})" if a.dbg or b.dbg else ""
    report.findings.append(Finding(
        "plan.race",
        f"@{fn.name}: the {a.kind} at LLVM IR line {a.line} by thread {t1} and the "
        f"{b.kind} at line {b.line} by thread {t2} touch shared byte {w['byte']}"
        f"{when} with no CTA barrier between them{src}",
        fn.name, a.line, a.column, a.dbg,
        {"byte": w["byte"], "threads": [t1, t2], "lines": [a.line, b.line],
         "sources": [a.dbg, b.dbg], "crossed_loop": p.crossed},
    ))  # fmt: skip
