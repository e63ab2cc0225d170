"""Shared-memory reuse: buffers declared with when each is in use, placed in one allocation.

A kernel author declares buffers (shape, element width, layout alignment) and when each is in
use, either as named *phases* of the kernel (two buffers conflict when they share a phase) or as
TLX-style *groups* (``shared``: the members may overlap; ``distinct``: they may not; groups
nest, and two buffers conflict when the innermost group holding both is distinct). A placement
gives each buffer a byte offset in one allocation. This module holds the data, the conflict
relation, what a placement must satisfy (``verify``) and TLX's greedy rule (``greedy``) to
compare against. Pure Python, as the frontend needs it; the z3 planner that finds the smallest
placement is ``alias_spec.semantics.reuse``.

A placement is right when every buffer starts on its alignment (16 bytes, the element width,
the NVMMA swizzle repeat: what the alias rules ``alias.address.aligned`` and
``alias.base.aligned`` and the 3.6 lowering's ``base.align16`` ask of a view's start), lies
inside the allocation, and no two conflicting buffers share a byte. A buffer's bytes are its
physical footprint (``physical.allocation_bytes``: a padded layout's padding included), the
bytes Triton itself reserves for it, not its logical shape times its element bytes.

Every input is bounded (``MAX_BUFFERS``, ``MAX_PHASES``, ``MAX_USES``, ``MAX_PADDINGS``), and
nothing here is quadratic in the phases: the conflicts come from one bit set of phases per
buffer, the lower bound from one pass over the uses.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from math import prod
from typing import Any

from alias_spec.model.errors import RequestError, shown
from alias_spec.model.facts import elem_bytes
from alias_spec.model.layouts import NVMMA_SWIZZLES
from alias_spec.model.physical import (
    DEFAULT_ALIGNMENT,
    allocation_bytes,
    base_alignment,
    swizzle_repeat,
)
from alias_spec.model.targets import SHARED_PER_BLOCK

# The most shared memory one block may use on sm_90 (H100, H200): 227 KiB.
SMEM_PER_BLOCK = SHARED_PER_BLOCK[90]
# Bounds that keep planning a bounded search.
MAX_BUFFERS = 256
MAX_DEPTH = 16
MAX_PHASES = 1 << 16
MAX_USES = 1 << 20  # (buffer, phase) pairs in all, as written
MAX_PADDINGS = 8  # (interval, padding) pairs of one padded layout
# Phases an error line names at most.
SHOWN_PHASES = 8


class ReuseError(RequestError):
    """A declaration that cannot be planned; names the part of it that is wrong."""


@dataclass(frozen=True)
class Buffer:
    """One buffer to place: ``bits`` per element, ``swizzle`` the NVMMA swizzle width in bytes
    of its layout (0 for none), ``padding`` a padded layout's (interval, padding) pairs in
    elements (empty for any other layout)."""

    name: str
    shape: tuple[int, ...]
    bits: int
    swizzle: int = 0
    alignment: int = DEFAULT_ALIGNMENT  # what the layout itself states (a linear layout may)
    padding: tuple[tuple[int, int], ...] = ()

    @property
    def size(self) -> int:
        """The bytes the buffer occupies: its physical footprint, padding included."""
        return allocation_bytes(self.bits, prod(self.shape), self.padding)

    @property
    def logical_size(self) -> int:
        """Its logical shape's bytes (smaller than ``size`` under a padded layout)."""
        return prod(self.shape) * elem_bytes(self.bits)

    @property
    def align(self) -> int:
        """Where the buffer may start: the allocation alignment its layout asks for (16 bytes,
        the swizzle repeat), which also covers its element width (at most 8 bytes)."""
        return max(base_alignment(swizzle_repeat(self.swizzle), self.alignment),
                   elem_bytes(self.bits))  # fmt: skip


@dataclass(frozen=True)
class Group:
    """TLX's ``reuse_group``: ``kind`` is "shared" or "distinct"; members are buffer names or
    nested groups."""

    kind: str
    members: tuple[str | Group, ...]


@dataclass(frozen=True)
class Declarations:
    """Buffers and when each is in use: ``uses`` maps each buffer to the phases it is live in
    (with ``phases`` listing the kernel's phases), or ``groups`` is a group tree."""

    buffers: tuple[Buffer, ...]
    phases: tuple[str, ...] = ()
    uses: tuple[tuple[str, tuple[str, ...]], ...] = ()
    groups: Group | None = None
    capacity: int = SMEM_PER_BLOCK

    @functools.cached_property
    def by_name(self) -> dict[str, Buffer]:
        return {b.name: b for b in self.buffers}

    def buffer(self, name: str) -> Buffer:
        return self.by_name[name]


@dataclass(frozen=True)
class Placement:
    """Offsets in one allocation of ``total`` bytes. ``lower_bound`` is a size no placement
    can beat; ``optimal`` says the planner proved ``total`` smallest."""

    offsets: tuple[tuple[str, int], ...]
    total: int
    lower_bound: int
    optimal: bool

    def offset(self, name: str) -> int:
        return dict(self.offsets)[name]


def _int(value: Any, fld: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ReuseError(fld, f"must be an integer >= {low}, got {shown(value)}")
    return value


def _pow2(value: Any, fld: str, what: str) -> int:
    n = _int(value, fld, 1)
    if n & (n - 1):
        raise ReuseError(fld, f"a padded layout's {what} must be a power of 2, got {n}")
    return n


def _padding(value: Any, fld: str) -> tuple[tuple[int, int], ...]:
    """A padded layout's (interval, padding) pairs, as Triton accepts them: powers of 2, each
    interval once."""
    if not isinstance(value, (list, tuple)) or len(value) > MAX_PADDINGS:
        raise ReuseError(fld, f"padding must be a list of at most {MAX_PADDINGS} pairs")
    out: list[tuple[int, int]] = []
    for pair in value:
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise ReuseError(fld, f"a padding entry is an (interval, padding) pair, got "
                                  f"{shown(pair)}")  # fmt: skip
        interval, pad = _pow2(pair[0], fld, "interval"), _pow2(pair[1], fld, "padding")
        if max(interval, pad) > 2**31 or any(interval == i for i, _ in out):
            raise ReuseError(fld, f"padding pair {[interval, pad]} is too large or its interval "
                                  "repeated")  # fmt: skip
        out.append((interval, pad))
    return tuple(out)


def buffer(
    name: Any,
    shape: Any,
    bits: Any,
    swizzle: Any = 0,
    alignment: Any = DEFAULT_ALIGNMENT,
    padding: Any = (),
) -> Buffer:
    """A checked Buffer; a ReuseError names the bad part (``buffers[name].shape``, ...)."""
    if not isinstance(name, str) or not name.isidentifier():
        raise ReuseError("buffers", f"a buffer name must be an identifier, got {shown(name)}")
    where = f"buffers.{name}"
    if not isinstance(shape, (list, tuple)) or not shape or len(shape) > 8:
        raise ReuseError(f"{where}.shape", f"must be a list of 1 to 8 dims, got {shown(shape)}")
    dims = tuple(_int(d, f"{where}.shape", 1) for d in shape)
    width = _int(bits, f"{where}.dtype", 8)
    if width % 8 or width > 64:
        raise ReuseError(f"{where}.dtype", f"must be 8, 16, 32 or 64 bits wide, got {width}")
    if swizzle not in NVMMA_SWIZZLES:
        raise ReuseError(f"{where}.layout", f"NVMMA swizzle must be one of {NVMMA_SWIZZLES}")
    align = _int(alignment, f"{where}.layout", 1)
    if align & (align - 1) or align > 2**20:
        raise ReuseError(f"{where}.layout", f"alignment must be a power of 2, got {align}")
    if padding and swizzle:
        raise ReuseError(f"{where}.layout", "a layout is either padded or NVMMA-swizzled")
    pads = _padding(padding, f"{where}.layout")
    if prod(dims) > 2**31:
        raise ReuseError(f"{where}.shape", f"{prod(dims)} elements is more than shared memory "
                                           "can hold")  # fmt: skip
    b = Buffer(name, dims, width, swizzle, align, pads)
    if b.size > 2**31:
        raise ReuseError(f"{where}.shape", f"{b.size} bytes is more than shared memory can hold")
    return b


def _group(value: Any, names: set[str], seen: list[str], depth: int) -> Group | str:
    if isinstance(value, str):
        if value not in names:
            raise ReuseError("groups", f"unknown buffer {shown(value)}")
        seen.append(value)
        return value
    if depth >= MAX_DEPTH:  # the outermost group is at depth 0: MAX_DEPTH groups nest
        raise ReuseError("groups", f"groups nest deeper than {MAX_DEPTH}")
    if (
        not isinstance(value, Group)
        or value.kind not in ("shared", "distinct")
        or not isinstance(value.members, tuple)
    ):
        raise ReuseError("groups", f"expected a buffer name or a reuse group, got {shown(value)}")
    if not value.members:
        raise ReuseError("groups", f"an empty {value.kind} group")
    members = tuple(_group(m, names, seen, depth + 1) for m in value.members)
    return Group(value.kind, members)


def declare(
    buffers: Sequence[Buffer],
    uses: Mapping[str, Iterable[str]] | None = None,
    phases: Sequence[str] | None = None,
    groups: Group | None = None,
    capacity: int = SMEM_PER_BLOCK,
) -> Declarations:
    """Checked declarations. Give ``uses`` (buffer name to the phases it is in use in, the
    phases listed in ``phases``) or ``groups``, not both."""
    if not isinstance(buffers, (list, tuple)) or not buffers:
        raise ReuseError("buffers", "declare at least one buffer")
    if len(buffers) > MAX_BUFFERS:
        raise ReuseError("buffers", f"at most {MAX_BUFFERS} buffers, got {len(buffers)}")
    names = [b.name for b in buffers]
    for n in names:
        if names.count(n) > 1:
            raise ReuseError(f"buffers.{n}", "declared twice")
    cap = _int(capacity, "capacity", 1)
    if (uses is None) == (groups is None):
        raise ReuseError("uses", "give either uses (with phases) or groups, not both")
    if groups is not None:
        seen: list[str] = []
        tree = _group(groups, set(names), seen, 0)
        if not isinstance(tree, Group):
            tree = Group("shared", (tree,))
        for n in names:
            if seen.count(n) != 1:
                problem = "not in any group" if n not in seen else "in more than one group"
                raise ReuseError(f"buffers.{n}", problem)
        return Declarations(tuple(buffers), groups=tree, capacity=cap)
    if not isinstance(phases, (list, tuple)) or not phases:
        raise ReuseError("phases", "list the kernel's phases")
    if len(phases) > MAX_PHASES:
        raise ReuseError("phases", f"at most {MAX_PHASES} phases, got {len(phases)}")
    known = tuple(str(p) for p in phases)
    lookup = frozenset(known)  # membership in O(1): a tuple made declaring quadratic
    if not isinstance(uses, Mapping):
        raise ReuseError("uses", f"must map buffer names to phases, got {shown(uses)}")
    table = []
    written = 0
    for n in names:
        if n not in uses:
            raise ReuseError(f"uses.{n}", "missing: say in which phases the buffer is in use")
        got = uses[n]
        if not isinstance(got, (str, list, tuple)):
            raise ReuseError(f"uses.{n}", f"must be a phase or a list of phases, got {shown(got)}")
        got = (got,) if isinstance(got, str) else tuple(got)
        if not got:
            raise ReuseError(f"uses.{n}", "the buffer is in use in no phase")
        written += len(got)
        if written > MAX_USES:
            raise ReuseError("uses", f"at most {MAX_USES} (buffer, phase) uses in all")
        for p in got:
            if not isinstance(p, str) or p not in lookup:
                raise ReuseError(f"uses.{n}", f"unknown phase {shown(p)}; {_some(known)}")
        table.append((n, tuple(dict.fromkeys(got))))
    for n in uses:
        if n not in names:
            raise ReuseError("uses", f"unknown buffer {shown(n)}")
    return Declarations(tuple(buffers), known, tuple(table), capacity=cap)


def _some(known: tuple[str, ...]) -> str:
    """The declared phases for an error line: all of a few, the first of many."""
    if len(known) <= SHOWN_PHASES:
        return f"phases: {list(known)}"
    return f"phases: {list(known[:SHOWN_PHASES])} and {len(known) - SHOWN_PHASES} more"


def _leaves(g: Group | str) -> list[str]:
    return [g] if isinstance(g, str) else [n for m in g.members for n in _leaves(m)]


@functools.lru_cache(maxsize=64)
def conflicts(d: Declarations) -> frozenset[frozenset[str]]:
    """Pairs of buffers in use at the same time (that must not share a byte). Memoised: the
    planner, its first fit and ``verify`` all ask for the same declarations' pairs."""
    out: set[frozenset[str]] = set()
    if d.groups is not None:

        def walk(g: Group | str) -> None:
            if isinstance(g, str):
                return
            if g.kind == "distinct":
                parts = [_leaves(m) for m in g.members]
                for a, b in combinations(parts, 2):
                    out.update(frozenset((x, y)) for x in a for y in b)
            for m in g.members:
                walk(m)

        walk(d.groups)
        return frozenset(out)
    # One bit per phase: two buffers conflict when their bit sets meet. Building the sets is
    # linear in the uses; each pair test is one big-integer AND (phases / 64 words).
    index = {p: i for i, p in reversed(list(enumerate(d.phases)))}
    masks: dict[str, int] = {}
    for n, ps in d.uses:
        bits = bytearray(len(d.phases) // 8 + 1)  # a bit per phase
        for p in ps:
            i = index[p]
            bits[i >> 3] |= 1 << (i & 7)
        masks[n] = int.from_bytes(bits, "little")
    for a, b in combinations(masks, 2):
        if masks[a] & masks[b]:
            out.add(frozenset((a, b)))
    return frozenset(out)


def lower_bound(d: Declarations) -> int:
    """A size no placement can beat: the biggest set of buffers in use together (a phase, or a
    distinct group's sum of its members' bounds), each at least its own size."""
    size = {b.name: b.size for b in d.buffers}
    if d.groups is not None:

        def bound(g: Group | str) -> int:
            if isinstance(g, str):
                return size[g]
            parts = [bound(m) for m in g.members]
            return sum(parts) if g.kind == "distinct" else max(parts)

        return bound(d.groups)
    index = {p: i for i, p in reversed(list(enumerate(d.phases)))}
    live = [0] * len(d.phases)  # bytes in use per phase, summed in one pass over the uses
    for n, ps in d.uses:
        for p in ps:
            live[index[p]] += size[n]
    return max(live)


def alignment(d: Declarations) -> int:
    """The alignment the allocation holding the plan needs: the largest a buffer asks for."""
    return max(b.align for b in d.buffers)


def root_swizzle(d: Declarations) -> int:
    """The narrowest NVMMA swizzle whose allocation alignment (its repeat) covers every buffer,
    0 when the default alignment does; a ReuseError when no NVMMA layout aligns that far."""
    need = alignment(d)
    if need <= base_alignment(0):
        return 0
    for swizzle in sorted(s for s in NVMMA_SWIZZLES if s):
        if base_alignment(swizzle_repeat(swizzle)) >= need:
            return swizzle
    worst = max(d.buffers, key=lambda b: b.align)
    raise ReuseError(
        f"buffers.{worst.name}.layout",
        f"needs {need}-byte alignment; one allocation can be aligned to "
        f"{swizzle_repeat(max(NVMMA_SWIZZLES))} bytes at most",
    )


def verify(d: Declarations, offsets: Mapping[str, int], total: int) -> list[str]:
    """What is wrong with a placement, one line each (empty: right): a start off its
    alignment, a buffer past the allocation's end or the capacity, two buffers in use at the
    same time sharing bytes."""
    problems = []
    if total > d.capacity:
        problems.append(f"the plan needs {total} bytes, more than the {d.capacity} available")
    for b in d.buffers:
        o = offsets[b.name]
        if o < 0 or o % b.align:
            problems.append(f"{b.name} starts at byte {o}, not a multiple of {b.align}")
        if o + b.size > total:
            problems.append(f"{b.name} [{o}, {o + b.size}) ends past the {total}-byte allocation")
    for pair in sorted(conflicts(d), key=sorted):
        a, b = (d.buffer(n) for n in sorted(pair))
        lo = max(offsets[a.name], offsets[b.name])
        hi = min(offsets[a.name] + a.size, offsets[b.name] + b.size)
        if lo < hi:
            problems.append(
                f"{a.name} and {b.name} are in use together and share bytes [{lo}, {hi})"
            )
    return problems


def greedy(d: Declarations, aligned: bool = False) -> tuple[dict[str, int], int]:
    """TLX's rule on a group tree: a shared group puts its members at one offset (size: the
    largest), a distinct group one after another (size: the sum). It ignores alignment, so a
    member after an odd-sized one may start off its alignment (``verify`` says so);
    ``aligned`` rounds each start up to what the member needs, the least a fixed greedy rule
    would do."""
    if d.groups is None:
        raise ReuseError("groups", "the greedy rule needs a group tree")
    size = {b.name: b.size for b in d.buffers}
    align = {b.name: b.align if aligned else 1 for b in d.buffers}
    offsets: dict[str, int] = {}

    def need(g: Group | str) -> int:
        return align[g] if isinstance(g, str) else max(need(m) for m in g.members)

    def place(g: Group | str, at: int) -> int:
        """Place ``g`` at ``at``; return where its last member ends."""
        if isinstance(g, str):
            offsets[g] = at
            return at + size[g]
        if g.kind == "shared":
            return max(place(m, at) for m in g.members)
        end = at
        for m in g.members:
            end = place(m, -(-end // need(m)) * need(m))
        return end

    total = place(d.groups, 0)
    return offsets, total
