"""The value-flow graph of a TTGIR function: which values may hold the shared-memory bytes of
which others. One graph for every consumer (plan's liveness, its buffer attribution, hopper's
operand owners), so that each op's pass-through is written once.

An edge runs from a value to each value that may hold what it holds. An op's results hold what
its operands hold when their type can hold shared memory (a memdesc, a pointer, a token);
except where the op's pass-through is exact, position by position:

- ``ttng.warp_group_dot_wait``: result i is operand i (the accumulator result holds no operand
  buffer, so a loop's accumulator does not keep its ring alive);
- ``scf.for``: iter_arg i and result i are init i or yield i (never another position);
- ``scf.if``: result i is what each branch yields in position i.

Other region ops (``scf.while``, ``ttg.warp_specialize``) merge all their operands and yields
into all their region arguments and results: conservative. ``cf`` branches pass their
operands to the target block's arguments. A pointer made an integer keeps its buffer through
any later op on the integer (see ``PTR_TO_INT``).
"""

from __future__ import annotations

import re

from alias_spec.ir.ttgir import BRANCHES, TERMINATORS, Function, Op

# Ops whose results never hold shared-memory bytes although an operand does (they read data).
_DATA_OPS = {"ttg.local_load", "tt.load", "ttng.tmem_load", "tt.reduce", "tt.scan"}
_MEMORY_TYPES = ("memdesc", "!tt.ptr", "token", "!llvm.ptr<3>")
# A pointer made an integer still holds its buffer's bytes: through this op, and from then on
# through any op on the integer (arithmetic, splats, region arguments), until tt.int_to_ptr.
PTR_TO_INT = "tt.ptr_to_int"
# Ops whose result i is operand i, for every i: the wait hands back its operands unchanged.
_POSITIONAL = {"ttng.warp_group_dot_wait"}
_MULTI = re.compile(r"^\s*(%[\w.$-]+):(\d+)\s*=")


def _base(name: str) -> str:
    """``%r#1`` names a result of ``%r``."""
    return name.split("#", 1)[0]


def holds_memory(op: Op) -> bool:
    if op.name in _DATA_OPS:
        return False
    types = op.result_types()
    return any(t in types for t in _MEMORY_TYPES)


def result_names(op: Op) -> list[str]:
    """An op's results one by one: ``%r:2 = ...`` gives ``%r#0`` and ``%r#1``."""
    m = _MULTI.match(op.head)
    if m and len(op.results) == 1 and op.results[0] == m.group(1):
        return [f"{m.group(1)}#{i}" for i in range(int(m.group(2)))]
    return list(op.results)


def label_index(fn: Function) -> dict[tuple[int | None, str], int]:
    """Block labels by (region owner, name): a branch targets a block of its own region."""
    return {(op.parent, op.name[1:]): op.pos for op in fn.ops if op.name.startswith("^")}


def branch_target(fn: Function, labels: dict[tuple[int | None, str], int], op: Op, name: str):
    at = labels.get((op.parent, name))
    if at is None and op.parent is None:
        at = fn.labels.get(name)
    return at


class Flows:
    """The value graph of one function: an edge from a value to each value that may hold
    what it holds, and where each value is defined and used."""

    def __init__(self, fn: Function) -> None:
        self.fn = fn
        self.known: set[str] = set()
        for op in fn.ops:
            self.known.update(op.results)
            self.known.update(result_names(op))
            self.known.update(op.decls)
        self.edges: dict[str, list[str]] = {}
        # Edges followed only from an integer made of a pointer (see PTR_TO_INT): every op's
        # operands to its results.
        self.loose: dict[str, list[str]] = {}
        self.ints: set[str] = set()
        self.defs: dict[str, list[int]] = {}
        self.uses: dict[str, list[int]] = {}
        self._yields: list[tuple[int, str, str]] = []  # scf.if yields: (position, value, result)
        labels = label_index(fn)
        yields: dict[int, list[Op]] = {}
        for op in fn.ops:
            if op.name in TERMINATORS and op.parent is not None:
                yields.setdefault(op.parent, []).append(op)
        for op in fn.ops:
            results = result_names(op)
            if results != op.results:  # %r:N: a bare %r (not printed so) holds all of them
                for r in results:
                    self.edges.setdefault(r, []).extend(op.results)
            region = op.end > op.pos
            if not region:
                for r in results:
                    self.defs.setdefault(r, []).append(op.pos)
            for d in op.decls:
                self.defs.setdefault(d, []).append(op.pos)
            for u in op.uses:
                self.uses.setdefault(self.norm(u), []).append(op.pos)
            if region and (op.decls or results):
                self._region_flows(op, results, yields.get(op.pos, []))
            elif op.name in _POSITIONAL and len(op.uses) == len(results):
                for u, r in zip(op.uses, results, strict=True):
                    self._link([u], [r])
            elif results and (holds_memory(op) or op.name == PTR_TO_INT):
                self._link(op.uses, results)
                if op.name == PTR_TO_INT:
                    self.ints.update(results)
            elif results and op.name not in _DATA_OPS:
                for u in op.uses:
                    self.loose.setdefault(self.norm(u), []).extend(results)
            if op.name in BRANCHES:
                for target in op.targets:
                    at = branch_target(fn, labels, op, target)
                    if at is not None:
                        self._link(op.uses, fn.ops[at].decls)
        for pos, u, r in self._yields:
            at = self.uses.get(self.norm(u), [])
            if r not in self.uses and pos in at:  # a result nobody reads: nor does its yield
                at.remove(pos)

    def norm(self, name: str) -> str:
        if name in self.known:
            return name
        base = _base(name)
        return base if base in self.known or "#" in name else name

    def _link(self, sources: list[str], targets: list[str]) -> None:
        if not targets:
            return
        for s in sources:
            self.edges.setdefault(self.norm(s), []).extend(targets)

    def _region_flows(self, op: Op, results: list[str], terms: list[Op]) -> None:
        if op.name == "scf.if" and not op.decls and all(len(t.uses) == len(results)
                                                        for t in terms):  # fmt: skip
            # Each result is what the branches yield in its position.
            for t in terms:
                for u, r in zip(t.uses, results, strict=True):
                    self._link([u], [r])
                    self._yields.append((t.pos, u, r))
            return
        if op.name == "scf.for" and self._for_flows(op, results, terms):
            return
        sources = op.uses + [u for t in terms for u in t.uses]
        self._link(sources, op.decls + results)

    def _for_flows(self, op: Op, results: list[str], terms: list[Op]) -> bool:
        """``scf.for``, position by position: iter_arg i and result i hold init i (a loop that
        runs no iteration returns it) and yield i. The bounds flow into the induction variable
        only. False (nothing linked) when the op's shape is not that."""
        inits = dict(op.inits)
        carried = op.decls[1:]
        if (len(carried) != len(results) or len(terms) != 1
                or len(terms[0].uses) != len(results)
                or any(d not in inits for d in carried)):  # fmt: skip
            return False
        seeds = set(op.init_uses[1 : len(op.decls)])
        self._link([u for k, u in enumerate(op.uses) if k not in seeds], op.decls[:1])
        for d, r, y in zip(carried, results, terms[0].uses, strict=True):
            self._link([inits[d], y], [d, r])
        return True

    def reach(self, root: str) -> set[str]:
        """Every value derived from a root."""
        seen = {root}
        todo = [root]
        edges, loose = self.edges, self.loose
        ints: set[str] = set()  # reached values that are integers made of a pointer
        while todo:
            v = todo.pop()
            as_int = v in ints or v in self.ints
            for t in edges.get(v, ()):
                if as_int and t not in ints:
                    ints.add(t)
                    seen.discard(t)  # visit again: its integer edges count now
                if t not in seen:
                    seen.add(t)
                    todo.append(t)
            if as_int:
                for t in loose.get(v, ()):
                    if t not in ints:
                        ints.add(t)
                        seen.discard(t)
                    if t not in seen:
                        seen.add(t)
                        todo.append(t)
        return seen
