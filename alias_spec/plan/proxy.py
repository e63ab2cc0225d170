"""Proxy fences, for the race check: which paths carry a generic access to an asynchronous one
unfenced (``races.py``).

Shared memory has two proxies on sm_90: the generic one (``ld``/``st.shared``, ``ldmatrix``,
``stmatrix``, atomics, ``tensormap.replace``) and the async one (TMA loads and stores,
``cp.async.bulk``, wgmma operands read through their descriptors). The PTX memory model orders
a generic access before an asynchronous one to the same bytes only when a proxy fence
(``fence.proxy.async``, its ``.shared::cta`` / ``.shared::cluster`` forms, the release-only
``fence.proxy.async::generic.release``) lies on the causality path between them: made by the
accessing thread after its access, or by the issuing thread after the barrier that orders the
two (Triton puts one after the generic stores and before the barrier: ``fence_async_shared``
before a TMA store or a wgmma whose operand a generic store wrote; its proxy-fence pass puts one
before a TMA load into bytes a generic access touched). An asynchronous write then read through
the generic proxy is ordered by the wait that completes it (no fence), and an asynchronous read
then a generic write by its ``wait_group`` (``races.py`` follows both).

This module walks the control flow from each generic access and says which asynchronous
accesses some path reaches with no proxy fence on it: ``unfenced``. A path through a fence is
ordered across the proxies; whether a barrier orders its two threads is the plain race check's
question. A fence a thread may skip (a predicated one) or a branch that depends on the thread
makes the path not ``sure``: a pair found over it is undecided, never a finding.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from alias_spec.ir.llir import Function, Instruction
from alias_spec.plan.mbarrier import statements

NONE, MAYBE, FENCED = 0, 1, 2  # what a path has passed since the generic access
# Generic-to-async proxy fences over shared memory (``.global`` alone covers global memory;
# an ``acquire`` one orders the other way: async before generic).
_FENCE_ASM = re.compile(r"^(@!?[\w$%]+\s+)?fence\.proxy\.async(?:\.shared::(?:cta|cluster)"
                        r"|::generic\.release\.sync_restrict::shared::\w+\.\w+)?\s*$")  # fmt: skip
_FENCE_CALL = re.compile(r"^llvm\.nvvm\.fence\.proxy\.async(?:\.shared_(?:cta|cluster)|"
                         r"_generic\.release\.[\w.]*)?$")  # fmt: skip


def fence(ins: Instruction) -> int:
    """FENCED for a proxy fence every thread that runs the instruction makes, MAYBE for one
    under a predicate (a thread may skip it), NONE for any other instruction."""
    callee = ins.callee
    if callee is None:
        return NONE
    if callee.kind != "asm":
        return FENCED if _FENCE_CALL.match(callee.name) and "acquire" not in callee.name else NONE
    found = NONE
    for s in statements(callee.text):
        m = _FENCE_ASM.match(s)
        if m:
            found = max(found, MAYBE if m.group(1) else FENCED)
    return found


@dataclass(frozen=True)
class Reach:
    """An asynchronous access a path from a generic one reaches unfenced: around a back edge
    (``crossed``: a later iteration), and whether the path surely runs so (no predicated fence
    skipped, no branch that depends on the thread taken)."""

    second: int
    crossed: bool
    sure: bool


def unfenced(fn: Function, firsts: set[int], seconds: set[int], loops: set[tuple[int, int]],
             steady: Callable[[int], bool]) -> dict[int, set[Reach]]:  # fmt: skip
    """For each generic access in ``firsts``, the asynchronous accesses of ``seconds`` some path
    reaches with no proxy fence on it (``steady(b)``: block b ends in a branch every thread
    takes the same way)."""
    where = {i: (b.index, k) for b in fn.blocks for k, i in enumerate(b.instructions)}
    fences = {i.index: f for i in fn.instructions if (f := fence(i))}
    out: dict[int, set[Reach]] = {}
    for start in sorted(firsts):
        if start not in where:
            continue
        block, pos = where[start]
        # (block, first position, a predicated fence passed, crossed a back edge, sure)
        todo = [(block, pos + 1, False, False, True)]
        visited: set[tuple[int, bool, bool, bool]] = set()
        while todo:
            b, k, maybe, crossed, sure = todo.pop()
            ins_list = fn.blocks[b].instructions
            fenced = False
            for i in ins_list[k:]:
                if fences.get(i) == FENCED:
                    fenced = True  # ordered across the proxies from here on
                    break
                maybe = maybe or i in fences
                if i in seconds:
                    out.setdefault(start, set()).add(Reach(i, crossed, sure and not maybe))
            if fenced or not ins_list:
                continue
            targets = fn.instructions[ins_list[-1]].targets
            s = sure and (len(targets) < 2 or steady(b))
            for n in targets:
                c = crossed or (b, n) in loops
                state = (n, maybe, c, s)
                if n >= 0 and state not in visited:
                    visited.add(state)
                    todo.append((n, 0, maybe, c, s))
    return out
