"""Which buffer each shared-memory access of the LLVM IR belongs to.

Triton lowers every TTGIR op at the op's own location, so an LLVM IR access and the op that
made it share a ``file:line:col``. The ops of the access's function found there name the
buffers the access may touch: the roots their operands are derived from (the value-flow graph
of ``alias_spec.ir.flows``), the buffer a ``ttg.local_alloc`` fills, and the op's own scratch.
An access is judged against those buffers (offsets relative to its function's base), not only
against the function's whole range: a ring slot past the ring's end lands inside ``ttg.shared``
but outside the ring.

An access is *unattributed* (``None``) when that cannot be said: no location, no TTGIR op there
that touches shared memory, or one that reads a shared value no placed buffer holds (a callee's
memdesc argument, a buffer whose place or size is unknown). Its caller then judges it against
the function's range and says that it did.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from alias_spec.ir.flows import Flows, flows_of
from alias_spec.ir.ttgir import CONCURRENT_OPS, Module, Op, op_locations, plain_symbol, same_file

# An owned byte range relative to the function's base: (offset, end, label).
Owned = tuple[int, int, str]

# A type in shared memory: a memdesc (tensor memory's too: never judged here), a pointer into
# address space 3.
_SHARED_TYPE = re.compile(r"!ttg\.memdesc<|!tt\.ptr<[^<>]*,\s*3\s*>|!llvm\.ptr<3>")
# Buffer kinds an op owns itself (its result's bytes, its scratch, a warp-specialize's state).
_OWN_KINDS = ("alloc", "scratch", "state")


@dataclass
class _Function:
    """One TTGIR function's owners: per placed root, every value derived from it."""

    roots: list[tuple[set[str], Owned]] = field(default_factory=list)
    own: dict[int, list[Owned]] = field(default_factory=dict)  # op position -> its own bytes
    unplaced: set[str] = field(default_factory=set)  # values of roots without a known place
    # The warp-specialize state: read and written by the code that starts and ends the
    # partitions, which carries the function's own location or none.
    state: list[Owned] = field(default_factory=list)
    live: dict[Owned, tuple[int, int]] = field(default_factory=dict)  # each buffer's range


class Attribution:
    """The buffers of one LLVM function's accesses, found by location in the TTGIR module."""

    def __init__(self, module: Module | None, buffers: list[Any], llvm_name: str,
                 frameless: bool = False) -> None:  # fmt: skip
        self.module = module
        self.buffers = buffers
        self.name = llvm_name
        # A callee without a frame addresses its memdesc arguments from the kernel's base:
        # they hold what the callers pass them (offsets relative to the same base).
        self.frameless = frameless
        self._located: dict[tuple[int, int], list[tuple[str, str, Op]]] | None = None
        self._functions: dict[str, _Function] = {}
        self._own_state: list[Owned] | None = None

    # --- the index --------------------------------------------------------------------------

    def located(self, line: int, col: int) -> list[tuple[str, str, Op]]:
        """(file, TTGIR function, op) of every op located at (line, col)."""
        if self._located is None:
            self._located = {}
            for f in self.module.functions if self.module is not None else ():
                for op in f.ops:
                    for file, ln, c in op_locations(op, self.module):
                        self._located.setdefault((ln, c), []).append((file, f.name, op))
        return self._located.get((line, col), [])

    def ops_at(self, dbg: str | None, names: tuple[str, ...] | None = None) -> list[tuple[str, Op]]:
        """(TTGIR function, op) of the ops at an LLVM IR location ``file:line:col``, only those
        named ``names`` when given."""
        if dbg is None or self.module is None or dbg.count(":") < 2:
            return []
        file, line, col = dbg.rsplit(":", 2)
        if not (line.isdigit() and col.isdigit()):
            return []
        return [(fn, op) for f, fn, op in self.located(int(line), int(col))
                if (names is None or op.name in names) and same_file(f, file)]  # fmt: skip

    def _function(self, name: str) -> _Function:
        if name not in self._functions:
            out = _Function()
            fn = self.module.function(name) if self.module is not None else None
            if fn is not None:
                flows = flows_of(fn)
                for b in self.buffers:
                    if b.function != name:
                        continue
                    placed = b.offset is not None and bool(b.size)
                    owned = (b.offset, b.offset + b.size, b.label) if placed else None
                    if owned is not None:
                        out.live[owned] = b.live
                    if b.kind == "alloc" and b.op.results:
                        values = flows.reach(b.op.results[0])
                        if owned is None:
                            out.unplaced |= values
                        else:
                            out.roots.append((values, owned))
                    if b.kind == "state" and owned is not None:
                        out.state.append(owned)
                    elif b.kind in _OWN_KINDS and owned is not None:
                        out.own.setdefault(b.op.pos, []).append(owned)
            self._functions[name] = out
            if fn is not None and self.frameless and plain_symbol(name) == self.name:
                self._argument_roots(fn, flows, out)
        return self._functions[name]

    def _argument_roots(self, fn: Any, flows: Flows, out: _Function) -> None:
        """A memdesc argument holds the buffers its callers pass there (every call site, by
        symbol); one a caller cannot place leaves the argument's values unplaced."""
        me = plain_symbol(fn.name)
        for caller in self.module.functions if self.module is not None else ():
            for op in caller.ops:
                if op.callee is None or plain_symbol(op.callee) != me:
                    continue
                if caller.name == fn.name:
                    continue  # recursion: Triton has none; do not chase it
                held = self._function(caller.name)
                for arg, passed in zip(fn.args, op.uses, strict=False):
                    values = flows.reach(arg)
                    if passed in held.unplaced:
                        out.unplaced |= values
                    for got, owned in held.roots:
                        if passed in got:
                            out.roots.append((values, owned))

    # --- questions --------------------------------------------------------------------------

    def operand(self, fn: str, op: Op, index: int) -> Owned | None:
        """The one placed buffer operand ``index`` of ``op`` is derived from, else None."""
        if len(op.uses) <= index:
            return None
        mine = {o for values, o in self._function(fn).roots if op.uses[index] in values}
        return mine.pop() if len(mine) == 1 else None

    def operand_at(self, dbg: str | None, names: tuple[str, ...], index: int) -> Owned | None:
        """The buffer operand ``index`` of the ops named ``names`` at the location reads: only
        when every such op is of this LLVM function and all name the one buffer."""
        found = self.ops_at(dbg, names)
        got: set[Owned] = set()
        for fn, op in found:
            if plain_symbol(fn) != self.name:
                return None
            o = self.operand(fn, op, index)
            if o is None:
                return None
            got.add(o)
        return got.pop() if len(got) == 1 else None

    def buffers_at(self, dbg: str | None) -> list[Owned] | None:
        """Every buffer an access at this location may touch, or None (unattributed). Where no
        op there touches shared memory (the function's return, no location at all), only the
        function's warp-specialize state can be."""
        found = [(fn, op) for fn, op in self.ops_at(dbg) if plain_symbol(fn) == self.name]
        state = self._state()
        out: set[Owned] = set()
        for fn, op in found:
            f = self._function(fn)
            mine = set(f.own.get(op.pos, ()))
            if op.name in CONCURRENT_OPS:
                mine |= set(f.state)  # the partitions' dispatch reads the state here too
            shared_uses = False
            for u in op.uses:
                if u in f.unplaced:
                    return None  # a buffer without a place: nothing to judge against
                held = {o for values, o in f.roots if u in values}
                shared_uses |= bool(held)
                mine |= held
            if not shared_uses and not mine and _reads_shared(op):
                return None  # a shared operand no placed buffer holds
            out |= mine
        if out and state and dbg is not None and dbg.endswith(":0"):
            # Column 0 is a whole line: the kernel's own location, which Triton gives the code
            # it writes itself (the partitions' dispatch, which reads the state, and the
            # barriers it sets up), not an op of the kernel's source.
            out |= set(state)
        return sorted(out) if out else state

    def buffers_made_at(self, locations: tuple[str, ...]) -> list[Owned]:
        """The buffers the ops at the locations where an access's address was computed name,
        together (LLVM may move an access's location onto a neighbour's op; its address
        arithmetic keeps the op's)."""
        return sorted({o for d in locations for o in self.buffers_at(d) or ()})

    def live_at(self, dbg: str | None, owned: list[Owned]) -> list[Owned]:
        """Those of ``owned`` live at an op of this function at the location."""
        out = []
        for fn, op in self.ops_at(dbg):
            if plain_symbol(fn) != self.name:
                continue
            live = self._function(fn).live
            out += [o for o in owned if o in live and live[o][0] <= op.pos <= live[o][1]
                    and o not in out]  # fmt: skip
        return out

    def _state(self) -> list[Owned] | None:
        """The warp-specialize state of the TTGIR function this LLVM function lowers (found
        once: every access asks)."""
        if self._own_state is None:
            self._own_state = []
            for f in self.module.functions if self.module is not None else ():
                if plain_symbol(f.name) == self.name:
                    self._own_state = self._function(f.name).state
                    break
        return self._own_state or None


def _reads_shared(op: Op) -> bool:
    """Whether the op takes a shared value as an operand (its type before any ``->``): a view
    made of a function argument, say. Ops that only make a shared value take none."""
    text = op.text
    colon = text.find(" : ")
    types = text[colon:] if colon >= 0 else text
    types = types.rsplit("->", 1)[0] if "->" in types else types
    return bool(op.uses) and _SHARED_TYPE.search(types) is not None
