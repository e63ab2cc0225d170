"""Check the LLVM IR against the plan: every shared-memory address lands in its function's range.

The text is read by LLVM's own parser (``alias_spec.ir.llir``, through llvmlite), and judged in
steps, one module each: which values hold a shared address (``taint.py``), those values rebuilt
for z3 (``evaluator.py``), the accesses (``accesses.py``, TMA and wgmma in ``hopper.py``), each
access's own buffers (``attribution.py``) and guards (``guards.py``); this module places each
function's range and proves every access inside it.
Every address derived from ``@global_smem`` is rebuilt as a z3 bit-vector over the
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
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import z3

from alias_spec.ir.llir import (
    Function,
    LlirError,
    Module,
    Operand,
    read,
)
from alias_spec.ir.ttgir import plain_symbol
from alias_spec.plan import exhaust, hopper
from alias_spec.plan.accesses import accesses
from alias_spec.plan.attribution import Attribution
from alias_spec.plan.evaluator import QUERY_TIMEOUT_MS, Evaluator
from alias_spec.plan.plan import Finding, Note, Report
from alias_spec.plan.races import check_races
from alias_spec.plan.terms import Access

__all__ = ["LlirError", "check_lowering", "read_llir", "Evaluator", "accesses"]


def read_llir(text: str, probe: Any = None) -> Module:
    """The module (LlirError, one line, on text LLVM does not accept). ``probe``: the text's
    parse probe, started earlier (``ir.llir.start_probe``)."""
    return read(text, probe)


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


# What evaluating odd but accepted IR can raise (z3 sort mismatches and the like): a note.
_MISREAD = (z3.Z3Exception, ArithmeticError, LookupError, TypeError, ValueError)

_T = TypeVar("_T")
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


def on_deep_stack(fn: Callable[[], _T]) -> _T:
    """``fn()`` on a thread with room for the evaluator's recursion (values are built
    recursively), its exception re-raised here."""
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["out"] = fn()
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
    return box["out"]


def check_lowering(text: str, path: str, report: Report, num_warps: int | None,
                   kernels: Sequence[str] | None = None, ttgir: Any = None,
                   races: bool = False, probe: Any = None) -> None:  # fmt: skip
    """Add the lowering's findings and notes to ``report`` (in a thread with a deep stack).
    ``kernels``: the TTGIR module's function names (the IR must define one of them); by
    default those the plan names; ``ttgir``: the TTGIR module (its TMA ops size the copies;
    without it they are notes); ``races``: also judge each function's shared accesses for
    races between threads (``races.py``). LlirError (one line) on IR that is not this
    kernel's."""
    module = read_llir(text, probe)
    check_kernel(module, kernels if kernels is not None else ttgir_functions(report))
    on_deep_stack(lambda: _check_lowering(module, path, report, num_warps, ttgir, races))


_BLOCK_ATTR = re.compile(r'"nvvm\.(?:reqntid|maxntid)"')


def _note(report: Report, kind: str, message: str, line: int, column: int = 1) -> None:
    report.notes.append(Note(kind, message, line, column))


def _check_lowering(module: Module, path: str, report: Report, num_warps: int | None,
                    ttgir: Any = None, races: bool = False) -> None:  # fmt: skip

    report.llir_path = path
    checked = pairs = 0
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
        if races:
            try:
                pairs += check_races(fn, found, ev, report, defined)
            except (RecursionError, *_MISREAD) as exc:
                _note(report, "race.unjudged", f"@{fn.name}: races not judged "
                      f"({type(exc).__name__})", fn.line)  # fmt: skip
    report.lowering = f"{checked} shared accesses checked"
    if races:
        report.lowering += f", {pairs} unordered pairs judged for races"


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


def _exhausted(acc: Access, ranges: list[tuple[int, int]], ev: Evaluator) -> bool | str:
    """Whether evaluating the address at every point of its variables' ranges proves it in
    one of the ranges: over all points, then only where its guard lets it happen, then with
    the subterms over values without a range taken at each value of their bounds. "leaves"
    when not, and the address alone (its guard left out) leaves them at some point."""
    assert acc.size is not None
    size = acc.size
    expr = acc.addr.expr

    def inside(got: tuple[int, int] | None) -> bool:
        return got is not None and any(lo <= got[0] and got[1] + size <= hi for lo, hi in ranges)

    memo = ev.exhaust_memo
    alone = exhaust.value_range(expr, ev.var_range, ev.var_signed, memo)
    if inside(alone):
        return True
    if acc.cond is not None and inside(exhaust.value_range(
            expr, ev.var_range, ev.var_signed, memo, acc.cond)):  # fmt: skip
        return True
    if inside(exhaust.value_range(expr, ev.var_range, ev.var_signed, memo, acc.cond,
                                  ev.interval)):  # fmt: skip
        return True
    return "leaves" if alone is not None else False


def _judge(acc: Access, ranges: list[tuple[int, int]],
           ev: Evaluator) -> dict[str, int] | str | None:  # fmt: skip
    """None when the access provably lies in one of the ranges [lo, hi); a witness when it
    provably can leave them (over modelled values only); "unbounded" or "timeout" when that
    cannot be decided."""
    if acc.size is None or not isinstance(acc.addr.expr, z3.BitVecRef) or not acc.addr.smem:
        return "unbounded"
    size = acc.size

    def by_intervals() -> bool:
        lo_a, hi_a = ev.interval(acc.addr.expr)
        return any(lo <= lo_a and hi_a + size <= hi for lo, hi in ranges)

    if by_intervals():
        return None  # proved by interval arithmetic alone
    # A ring slot over a loop-carried phi: its bounds first (the solver would search them on
    # its first satisfiable answer), so that intervals and the exhaustive range can use them.
    if ev.deferred and ev.bound([acc.addr.expr]) and by_intervals():
        return None
    exhausted = _exhausted(acc, ranges, ev)
    if exhausted is True:
        return None
    a = z3.ZeroExt(64 - acc.addr.expr.size(), acc.addr.expr)
    inside = z3.Or(*[z3.And(a >= lo, a + acc.size <= hi) for lo, hi in ranges])
    facts = [z3.Not(inside)]
    # First without the access's guard: most accesses are in range on every thread, and a
    # guard drags in the constraints of its own values (a proof without it holds with it);
    # unless evaluating the address alone found it leaving: then only the guard can keep it in.
    tries = [facts] if acc.cond is None else [facts, facts + [acc.cond]]
    if acc.cond is not None and exhausted == "leaves":
        tries = tries[1:]
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
