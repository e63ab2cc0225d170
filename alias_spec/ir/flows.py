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

``bindings`` is the one statement of what region ops and branches bind, position by position
(each region argument, region result and block argument with the values that flow into it):
the graph's exact ``scf.for`` and ``scf.if`` edges are read from it, and lint follows views
through it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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


# Region ops whose region arguments and results are bound to known operands, and the ops that
# leave their regions with values.
_WS = "ttg.warp_specialize"
CONTROL_OPS = {"scf.for", "scf.if", "scf.while", _WS}
_EXITS = {"scf.yield", "scf.condition", "ttg.warp_yield"}


@dataclass(frozen=True)
class Incoming:
    """One value that can flow into a block argument or region result."""

    value: str  # SSA name
    via: str  # how it gets there: "init operand", "yield operand", "branch operand", ...
    line: int
    at: int = -1  # position of the op that passes it (a yield, a branch), -1: the region op


@dataclass
class Binding:
    """A block argument or region result and every value that can flow into it."""

    target: str
    what: str  # e.g. "iter_arg of the scf.for at line 17", for messages
    line: int
    incoming: list[Incoming]


def bindings(fn: Function) -> list[Binding]:
    """What each region op and each branch binds, by MLIR's region semantics for each kind:
    every region argument, region result and block argument with the values that can flow
    into it, position by position."""
    out: list[Binding] = []
    exits = _exits(fn)
    for c in fn.ops:
        if c.name in CONTROL_OPS:
            out += _bind(c, exits)
    # Block arguments: every branch of the same region that targets the block.
    to: dict[tuple[int | None, int, str], list[tuple[list[str], int, int]]] = {}
    for op in fn.ops:
        for target, args in zip(op.targets, op.succ_args, strict=False):
            to.setdefault((op.parent, op.region, target), []).append((args, op.line, op.pos))
    for label in fn.ops:
        if not label.name.startswith("^"):
            continue
        name = label.name[1:]
        for i, arg in enumerate(label.decls):
            got = [Incoming(ops[i], f"operand of the branch to ^{name}", line, at)
                   for ops, line, at in to.get((label.parent, label.region, name), [])
                   if i < len(ops)]  # fmt: skip
            if got:
                out.append(Binding(arg, f"argument of block ^{name} (line {label.line})",
                                   label.line, got))  # fmt: skip
    return out


def _exits(fn: Function, owner: Op | None = None) -> dict[tuple[int, int], list[Op]]:
    """The ops that leave a region with values, by (region op, region): of every region op,
    or of ``owner`` alone."""
    ops = fn.ops if owner is None else fn.ops[owner.pos + 1 : owner.end + 1]
    exits: dict[tuple[int, int], list[Op]] = {}
    for op in ops:
        if op.name in _EXITS and op.parent is not None:
            exits.setdefault((op.parent, op.region), []).append(op)
    return exits


def _bind(c: Op, exits: dict[tuple[int, int], list[Op]]) -> list[Binding]:
    """The bindings one region op makes."""
    out: list[Binding] = []
    where = f"the {c.name} at line {c.line}"

    def leaving(region: int, name: str) -> list[tuple[list[str], int]]:
        found = [t for t in exits.get((c.pos, region), []) if t.name == name]
        # scf.condition's first operand is the condition, not a forwarded value.
        return [(t.uses[1:] if name == "scf.condition" else t.uses, t.line, t.pos)
                for t in found]  # fmt: skip

    carried = c.inits[1:] if c.name == "scf.for" else c.inits  # not the induction variable
    if c.name == "scf.for":
        # An iter_arg is its init on entry and the matching yield operand after each trip; the
        # loop's result is the iter_arg's last value.
        for i, (arg, init) in enumerate(carried):
            inc = [Incoming(init, "init operand", c.line)]
            inc += [Incoming(ys[i], "yield operand", ln, at)
                    for ys, ln, at in leaving(0, "scf.yield") if i < len(ys)]  # fmt: skip
            out.append(Binding(arg, f"iter_arg of {where}", c.line, inc))
            if i < len(c.results):
                out.append(Binding(c.results[i], f"result of {where}", c.line,
                                   [Incoming(arg, "loop-carried value", c.line)]))  # fmt: skip
    elif c.name == "scf.if":
        for i, res in enumerate(c.results):
            inc = [Incoming(ys[i], f"{'then' if r == 0 else 'else'} yield operand", ln, at)
                   for r in range(c.regions) for ys, ln, at in leaving(r, "scf.yield")
                   if i < len(ys)]  # fmt: skip
            out.append(Binding(res, f"result of {where}", c.line, inc))
    elif c.name == "scf.while":
        # "before" arguments: the inits, then the "do" region's yields; "do" arguments and
        # the results: what scf.condition forwards.
        conds = leaving(0, "scf.condition")
        for i, (arg, init) in enumerate(carried):
            inc = [Incoming(init, "init operand", c.line)]
            inc += [Incoming(ys[i], "yield operand", ln, at)
                    for ys, ln, at in leaving(1, "scf.yield") if i < len(ys)]  # fmt: skip
            out.append(Binding(arg, f"before-region argument of {where}", c.line, inc))
        after = c.region_args[1] if len(c.region_args) > 1 else []
        for targets, what in ((after, "do-region argument"), (c.results, "result")):
            for i, t in enumerate(targets):
                inc = [Incoming(ys[i], "scf.condition operand", ln, at)
                       for ys, ln, at in conds if i < len(ys)]  # fmt: skip
                out.append(Binding(t, f"{what} of {where}", c.line, inc))
    else:  # ttg.warp_specialize: region 0 is the default one, then one per partition
        for r, args in enumerate(c.region_args[1:], 1):
            for i, arg in enumerate(args):
                if i < len(c.uses):
                    inc = [Incoming(c.uses[i], "captured operand", c.line)]
                    out.append(Binding(arg, f"argument of partition {r - 1} of {where}", c.line,
                                       inc))  # fmt: skip
        for i, res in enumerate(c.results):
            inc = [Incoming(ys[i], "ttg.warp_yield operand", ln, at)
                   for ys, ln, at in leaving(0, "ttg.warp_yield") if i < len(ys)]  # fmt: skip
            out.append(Binding(res, f"result of {where}", c.line, inc))
    return out


def _base(name: str) -> str:
    """``%r#1`` names a result of ``%r``."""
    return name.split("#", 1)[0]


def holds_memory(op: Op) -> bool:
    if op.name in _DATA_OPS:
        return False
    text = op.text
    if not any(t in text for t in _MEMORY_TYPES):
        return False  # its result types are part of its text (most ops: no types read)
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
        """An ``scf.if`` or ``scf.for`` of the regular shape: what ``bindings`` says, position
        by position. Any other region op, or one whose yields do not match its results:
        every operand and yield into every region argument and result."""
        exact = op.name in ("scf.if", "scf.for") and all(len(t.uses) == len(results)
                                                          for t in terms)  # fmt: skip
        if op.name == "scf.if":
            exact = exact and not op.decls
        elif op.name == "scf.for":
            inits = dict(op.inits)
            carried = op.decls[1:]
            exact = (exact and len(terms) == 1 and len(carried) == len(results)
                     and all(d in inits for d in carried))  # fmt: skip
        if not exact:
            sources = op.uses + [u for t in terms for u in t.uses]
            self._link(sources, op.decls + results)
            return
        if op.name == "scf.for":
            # The bounds and step flow into the induction variable only.
            seeds = set(op.init_uses[1 : len(op.decls)])
            self._link([u for k, u in enumerate(op.uses) if k not in seeds], op.decls[:1])
        for b in _bind(op, _exits(self.fn, op)):
            for inc in b.incoming:
                self._link([inc.value], [b.target])
                if op.name == "scf.if":
                    self._yields.append((inc.at, inc.value, b.target))

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


def flows_of(fn: Function) -> Flows:
    """The value graph of ``fn``, built on first use and kept on the function: liveness and
    attribution read the same one (a module's ops do not change once read)."""
    got = fn.flows
    if not isinstance(got, Flows) or got.fn is not fn:
        got = fn.flows = Flows(fn)
    return got
