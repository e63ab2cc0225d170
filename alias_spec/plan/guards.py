"""The branch conditions that hold wherever a block of an LLVM function runs.

A conditional edge D -> S *guards* every block S dominates when it is the only way into S from
outside S's own region: every other predecessor of S is dominated by S (a back edge). Then no
path reaches such a block without taking D -> S last time D ran, and the condition's SSA value
has not changed since. An access in a block is judged under the guards of the blocks on its
dominator chain: a load of the warp-specialize state behind ``warp id >= 4``, a shared atomic
behind its bounds check, are then judged only on the threads that run them.
"""

from __future__ import annotations

from typing import Protocol

import z3

from alias_spec.ir.llir import Function

MAX_GUARDS = 16  # conditions kept per block: the innermost ones, which matter most


class _Edges(Protocol):
    def edge_condition(self, frm: int, to: int) -> z3.BoolRef | None: ...


def _successors(fn: Function) -> dict[int, list[int]]:
    return {b.index: (fn.instructions[b.instructions[-1]].targets if b.instructions else [])
            for b in fn.blocks}  # fmt: skip


def dominators(fn: Function) -> dict[int, int]:
    """Each reachable block's immediate dominator (the entry's is itself): Cooper, Harvey and
    Kennedy's iteration over reverse post-order."""
    succ = _successors(fn)
    if not fn.blocks:
        return {}
    order: list[int] = []
    seen = {0}
    stack: list[tuple[int, int]] = [(0, 0)]
    while stack:
        b, i = stack[-1]
        nexts = [n for n in succ.get(b, []) if 0 <= n < len(fn.blocks)]
        if i < len(nexts):
            stack[-1] = (b, i + 1)
            if nexts[i] not in seen:
                seen.add(nexts[i])
                stack.append((nexts[i], 0))
        else:
            stack.pop()
            order.append(b)
    order.reverse()
    rank = {b: i for i, b in enumerate(order)}
    preds: dict[int, list[int]] = {b: [] for b in order}
    for b in order:
        for n in succ.get(b, []):
            if n in preds:
                preds[n].append(b)
    idom: dict[int, int] = {0: 0}

    def meet(a: int, b: int) -> int:
        while a != b:
            while rank[a] > rank[b]:
                a = idom[a]
            while rank[b] > rank[a]:
                b = idom[b]
        return a

    changed = True
    while changed:
        changed = False
        for b in order[1:]:
            done = [p for p in preds[b] if p in idom]
            if not done:
                continue
            new = done[0]
            for p in done[1:]:
                new = meet(new, p)
            if idom.get(b) != new:
                idom[b] = new
                changed = True
    return idom


class Guards:
    """The guards of each block of one function, built once."""

    def __init__(self, fn: Function, edges: _Edges) -> None:
        self.fn = fn
        self.edges = edges
        self.idom = dominators(fn)
        self.preds: dict[int, list[int]] = {}
        for b, nexts in _successors(fn).items():
            if b in self.idom:
                for n in nexts:
                    self.preds.setdefault(n, []).append(b)
        self._cache: dict[int, list[z3.BoolRef]] = {}

    def _dominates(self, a: int, b: int) -> bool:
        while True:
            if a == b:
                return True
            up = self.idom.get(b)
            if up is None or up == b:
                return False
            b = up

    def _entry_edge(self, s: int) -> z3.BoolRef | None:
        """The condition of the one edge into ``s`` from outside its region, if it has one."""
        outside = [p for p in self.preds.get(s, []) if not self._dominates(s, p)]
        if len(outside) != 1:
            return None
        d = outside[0]
        term = self.fn.instructions[self.fn.blocks[d].instructions[-1]]
        if term.targets.count(s) != 1:
            return None
        return self.edges.edge_condition(d, s)

    def of(self, block: int) -> list[z3.BoolRef]:
        """The conditions that hold whenever ``block`` runs (empty: none known)."""
        if block in self._cache:
            return self._cache[block]
        out: list[z3.BoolRef] = []
        b = block
        while b in self.idom and b != 0 and len(out) < MAX_GUARDS:
            c = self._entry_edge(b)
            if c is not None:
                out.append(c)
            b = self.idom[b]
        self._cache[block] = out
        return out
