"""Real view requests for the rule pages of stock Triton rules, found by a search.

z3's examples live in fact space, and the facts of a ``ttg.memdesc_*`` op (types, layouts,
alloc shapes, offsets) have no inverse that alias_spec/semantics/witness.py could write. So the
examples of
the ``triton.*`` rules come from a finite family of concrete requests instead: a few seeds
(reinterprets, an index and subslices every profile accepts, and a ``tle.memdesc_alias``), every
request one edit away from a seed, and, for a rule those do not reach alone, every request one
edit away from the ones where it fires with others. An edit changes one thing: a dim, the
element type, the layout, mutability, the alloc shape or the memory space of the source, the
result or both; an offset, the index or the op. Each candidate is parsed by the request parser
and judged by the catalogue (the reference interpreter), and the choice is the least in a fixed
order, so it depends on nothing but the spec.

Memdesc text and the one-op MLIR module come from the differential test's case builder
(``alias_spec.difftest.triton.cases``), so that the docs show requests in the exact form Triton
was run on.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import cache
from math import prod
from types import ModuleType
from typing import Any

from alias_spec.model.catalogue import PROFILES, rules_for
from alias_spec.model.dtypes import DTYPE_BITS
from alias_spec.model.errors import RequestError
from alias_spec.model.facts import Facts
from alias_spec.model.interp import violated
from alias_spec.model.layouts import NVMMA_SWIZZLES
from alias_spec.model.request import parse_request

RE, SUB, IDX, ALIAS = "reinterpret", "subslice", "index", "alias"
OP_NAMES = {
    RE: "ttg.memdesc_reinterpret",
    SUB: "ttg.memdesc_subslice",
    IDX: "ttg.memdesc_index",
    ALIAS: "tle.memdesc_alias",
}
DTYPES = ("f16", "bf16", "f32", "i8", "i1")
DIMS = (0, 1, 2, 3, 4, 6, 8, 16, 32, 64)
OFFSETS = (0, 1, 2, 4, 8, 12, 16, 32)
INDICES = (0, 1, 2, -1, None)
TMEM = "#ttng.tensor_memory"
# Where the case builder lives (it is moving out of tests/): first importable wins.
CASE_MODULES = ("alias_spec.difftest.triton.cases", "tests.alias_spec/difftest/triton.cases")


def case_module() -> ModuleType:
    """The differential test's case builder (memdesc text, one-op modules)."""
    for name in CASE_MODULES:
        try:
            return importlib.import_module(name)
        except ModuleNotFoundError:
            continue
    raise RuntimeError(f"the docs' view examples need one of {', '.join(CASE_MODULES)}")


# A layout: ("sw", rank, vec, perPhase, maxPhase) or ("nv", swizzle bytes, transposed).
Layout = tuple[Any, ...]


@dataclass(frozen=True)
class Side:
    shape: tuple[int, ...]
    dtype: str
    layout: Layout
    mutable: bool = True
    alloc: tuple[int, ...] | None = None
    space: str = "smem"

    def text(self) -> str:
        cases = case_module()
        if self.layout[0] == "sw":
            lay = cases.sw(*self.layout[1:])
        else:
            lay = cases.nv(self.layout[1], DTYPE_BITS[self.dtype], self.layout[2])
        alloc = None if self.alloc is None else list(self.alloc)
        text = cases.md(list(self.shape), self.dtype, lay, self.mutable, alloc)
        return text.replace(cases.SPACE, TMEM) if self.space == "tmem" else text


@dataclass(frozen=True)
class View:
    op: str
    src: Side
    res: Side
    offsets: tuple[int, ...] = ()  # subslice
    index: int | None = 0  # index (None: a runtime value)
    offset_bytes: int = 0  # alias

    def request(self) -> dict[str, Any]:
        req: dict[str, Any] = {"op": OP_NAMES[self.op]}
        if self.op == ALIAS:
            req = {}  # the default op: no "op" key, as alias requests are written
        req.update(source=self.src.text(), result=self.res.text())
        if self.op == SUB:
            req["offsets"] = list(self.offsets)
        elif self.op == IDX:
            req["index"] = self.index
        elif self.op == ALIAS:
            req["alias_offset_bytes"] = self.offset_bytes
        return req

    def size(self) -> tuple[int, int]:
        """(zero dims, elements): empty shapes are legal but read as a trick, so they come
        last among requests of one depth."""
        dims = self.src.shape + self.res.shape
        elems = prod(self.src.alloc or self.src.shape) + prod(self.res.alloc or self.res.shape)
        return (dims.count(0), elems)


def _sw(rank: int) -> Layout:
    return ("sw", rank, 1, 1, 1)


_NV = ("nv", 128, False)
# Valid under every profile (tests/docgen/test_docs.py checks), except the alias request, which
# stock Triton rejects as not its op. The NVMMA ones (a row and a column split) put the rules
# on swizzled rows one edit away.
SEEDS: tuple[View, ...] = (
    View(RE, Side((16, 16), "f16", _sw(2)), Side((16, 16), "f16", _sw(2))),
    View(IDX, Side((2, 16, 16), "f16", _sw(2)), Side((16, 16), "f16", _sw(2)), index=1),
    View(SUB, Side((16, 16), "f16", _sw(2)), Side((8, 16), "f16", _sw(2), alloc=(16, 16)), (8, 0)),
    View(RE, Side((8, 64), "f16", _NV), Side((8, 64), "f16", _NV)),
    View(SUB, Side((16, 64), "f16", _NV), Side((8, 64), "f16", _NV, alloc=(16, 64)), (8, 0)),
    View(SUB, Side((8, 64), "f16", _NV), Side((8, 32), "f16", _NV, alloc=(8, 64)), (0, 32)),
    View(ALIAS, Side((64,), "f32", _sw(1)), Side((16,), "f32", _sw(1)), offset_bytes=64),
)


# --- edits ----------------------------------------------------------------------------------


def _layouts(s: Side) -> Iterator[Layout]:
    r = len(s.shape)
    for k in (r - 1, r, r + 1):
        if k >= 1:
            yield _sw(k)
    if r >= 2:
        yield ("sw", r, 8, 1, 8)
        for swz in NVMMA_SWIZZLES:
            yield ("nv", swz, False)
        yield ("nv", 128, True)


def _allocs(s: Side) -> Iterator[tuple[int, ...] | None]:
    shape = s.shape
    if s.alloc is not None:
        yield None
    for i, d in enumerate(shape):
        yield shape[:i] + (2 * d,) + shape[i + 1 :]
        if d >= 2:
            yield shape[:i] + (d // 2,) + shape[i + 1 :]
        if d >= 2 and d % 2 == 0:
            yield shape[:i] + (3 * d // 2,) + shape[i + 1 :]
    yield (2, *shape)
    if len(shape) >= 2:
        yield shape[1:]


def side_edits(s: Side) -> Iterator[Side]:
    """Every side one edit away (some of them ill-formed on purpose)."""
    for i, d in enumerate(s.shape):
        for v in DIMS:
            if v != d:
                yield replace(s, shape=s.shape[:i] + (v,) + s.shape[i + 1 :])
    for v in (1, 2, 3):
        yield replace(s, shape=(v, *s.shape))
    if len(s.shape) >= 2:
        yield replace(s, shape=s.shape[1:])
    for dt in DTYPES:
        if dt != s.dtype:
            yield replace(s, dtype=dt)
    for lay in _layouts(s):
        if lay != s.layout:
            yield replace(s, layout=lay)
    yield replace(s, mutable=not s.mutable)
    for alloc in _allocs(s):
        if alloc != s.alloc:
            yield replace(s, alloc=alloc)
    yield replace(s, space="smem" if s.space == "tmem" else "tmem")


def _joint(v: View) -> Iterator[View]:
    """The same edit on both sides: a type change that keeps the op's shape relation."""
    for dt in DTYPES:
        if dt != v.src.dtype or dt != v.res.dtype:
            yield replace(v, src=replace(v.src, dtype=dt), res=replace(v.res, dtype=dt))
    yield replace(v, src=replace(v.src, mutable=not v.src.mutable),
                  res=replace(v.res, mutable=not v.res.mutable))  # fmt: skip
    space = "smem" if v.src.space == "tmem" else "tmem"
    yield replace(v, src=replace(v.src, space=space), res=replace(v.res, space=space))
    # The last k dims of both sides (k up to the shorter rank).
    for k in range(1, min(len(v.src.shape), len(v.res.shape)) + 1):
        i, j = len(v.src.shape) - k, len(v.res.shape) - k
        for d in DIMS:
            if d != v.src.shape[i] or d != v.res.shape[j]:
                src = replace(v.src, shape=v.src.shape[:i] + (d,) + v.src.shape[i + 1 :])
                res = replace(v.res, shape=v.res.shape[:j] + (d,) + v.res.shape[j + 1 :])
                yield replace(v, src=src, res=res)
    for lay in _layouts(v.src):
        if v.src.layout != v.res.layout or lay != v.src.layout:
            if len(v.src.shape) == len(v.res.shape):
                yield replace(v, src=replace(v.src, layout=lay), res=replace(v.res, layout=lay))


def view_edits(v: View) -> Iterator[View]:
    """Every view one edit away."""
    for s in side_edits(v.src):
        yield replace(v, src=s)
    for s in side_edits(v.res):
        yield replace(v, res=s)
    yield from _joint(v)
    if v.op == SUB:
        for i, o in enumerate(v.offsets):
            for x in OFFSETS:
                if x != o:
                    yield replace(v, offsets=v.offsets[:i] + (x,) + v.offsets[i + 1 :])
        if v.offsets:
            yield replace(v, offsets=v.offsets[:-1])
        yield replace(v, offsets=(*v.offsets, 0))
    elif v.op == IDX:
        for x in INDICES:
            if x != v.index:
                yield replace(v, index=x)
    for op in (RE, SUB, IDX, ALIAS):
        if op != v.op:
            yield replace(v, op=op, offsets=tuple(0 for _ in v.src.shape), index=0,
                          offset_bytes=0)  # fmt: skip


# --- the search -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    view: View
    depth: int  # edits from its seed
    parent: Candidate | None
    request: dict[str, Any]
    text: str  # the request as canonical JSON: the last tie-break
    facts: Facts


class Family:
    """The candidates, built level by level and judged once each."""

    def __init__(self) -> None:
        self.seen: dict[str, Candidate | None] = {}
        self.crashes: list[str] = []  # requests the parser fails on without a RequestError
        self.level0 = self._grow([(v, 0, None) for v in SEEDS])
        self.level1 = self._grow(
            (e, 1, c) for c in self.level0 if c.view.op != ALIAS for e in view_edits(c.view)
        )
        # The alias seed only changes op: its other edits are alias requests, which break
        # nothing but triton.op.stock, and the seed itself shows that.
        self.level1 += self._grow(
            (replace(c.view, op=op, offsets=(0,) * len(c.view.src.shape), offset_bytes=0), 1, c)
            for c in self.level0
            if c.view.op == ALIAS
            for op in (RE, SUB, IDX)
        )
        self._verdicts: dict[tuple[str, str], list[str]] = {}

    def _grow(self, items: Any) -> list[Candidate]:
        out: list[Candidate] = []
        for view, depth, parent in items:
            c = self.candidate(view, depth, parent)
            if c is not None:
                out.append(c)
        return out

    def candidate(self, view: View, depth: int, parent: Candidate | None) -> Candidate | None:
        """A new, parseable candidate (None for one already seen or that does not parse)."""
        req = view.request()
        text = json.dumps(req, sort_keys=True)
        if text in self.seen:
            return None
        try:
            facts = dict(parse_request(req).facts)
        except RequestError:
            self.seen[text] = None
            return None
        except Exception as exc:  # noqa: BLE001 - a parser crash is its bug, not an example
            self.crashes.append(f"{type(exc).__name__}: {exc} on {text}")
            self.seen[text] = None
            return None
        c = Candidate(view, depth, parent, req, text, facts)
        self.seen[text] = c
        return c

    def verdict(self, c: Candidate, profile: str) -> list[str]:
        k = (c.text, profile)
        if k not in self._verdicts:
            self._verdicts[k] = [r.id for r in rules_for(profile) if violated(r, c.facts)]
        return self._verdicts[k]

    def key(self, c: Candidate) -> tuple[Any, ...]:
        """The order examples are chosen in: fewest edits, no empty dims, fewest violations
        over all profiles (a request that breaks only what it shows), fewest elements."""
        zeros, elems = c.view.size()
        broken = sum(len(self.verdict(c, p)) for p in PROFILES)
        return (c.depth, zeros, broken, elems, len(c.text), c.text)

    def neighbours(self, c: Candidate) -> list[Candidate]:
        out = []
        for e in view_edits(c.view):
            n = self.candidate(e, c.depth + 1, c)
            if n is None:
                req = e.request()
                n = self.seen.get(json.dumps(req, sort_keys=True))
                if n is None:
                    continue
                # Seen before at another depth: judged the same, reached from here.
                n = replace(n, depth=c.depth + 1, parent=c)
            out.append(n)
        return out


@cache
def family() -> Family:
    return Family()


@dataclass(frozen=True)
class Example:
    fails: dict[str, Any] | None
    alone: bool
    passes: dict[str, Any] | None


def rule_example(rule_id: str, profile: str) -> Example:
    """The least request violating ``rule_id`` under ``profile`` (alone if the family has one)
    and the least request one edit from it (else its nearest valid ancestor) that passes."""
    fam = family()
    near = fam.level0 + fam.level1

    def alone(c: Candidate) -> bool:
        return fam.verdict(c, profile) == [rule_id]

    def fires(c: Candidate) -> bool:
        return rule_id in fam.verdict(c, profile)

    best = min((c for c in near if alone(c)), key=fam.key, default=None)
    firing = [c for c in near if fires(c)]
    if best is None:
        second = [n for c in sorted(firing, key=fam.key) for n in fam.neighbours(c)]
        best = min((c for c in second if alone(c)), key=fam.key, default=None)
        firing += [c for c in second if fires(c)]
    if best is None:
        if not firing:
            return Example(None, False, None)
        bad = min(firing, key=lambda c: (len(fam.verdict(c, profile)), *fam.key(c)))
        return Example(bad.request, False, _passing(fam, bad, profile))
    return Example(best.request, True, _passing(fam, best, profile))


def _passing(fam: Family, bad: Candidate, profile: str) -> dict[str, Any] | None:
    """The least request one edit from the failing one that the profile accepts: of the same
    op first, and among those the one it was made from (the edit between them is what
    breaks the rule); else its nearest accepted ancestor."""
    ok = [n for n in fam.neighbours(bad) if not fam.verdict(n, profile)]

    def key(c: Candidate) -> tuple[Any, ...]:
        changed = sum(c.request.get(k) != bad.request.get(k) for k in c.request | bad.request)
        parent = bad.parent is not None and c.text == bad.parent.text
        return (c.view.op != bad.view.op, not parent, changed, *fam.key(c)[1:])

    if ok:
        return min(ok, key=key).request
    c = bad.parent
    while c is not None and fam.verdict(c, profile):
        c = c.parent
    return None if c is None else c.request


def separating(a: str, b: str) -> dict[str, Any] | None:
    """The least request of the one-edit family that profile ``a`` accepts and ``b`` rejects."""
    fam = family()
    ok = [c for c in fam.level0 + fam.level1 if not fam.verdict(c, a) and fam.verdict(c, b)]
    return min(ok, key=fam.key).request if ok else None


def digest_text() -> str:
    """What the examples depend on besides the catalogue: this search, the request parser and
    the case builder's text (as syntax trees, so that formatting does not count)."""
    from alias_spec.model import dtypes, layouts, memdesc, physical, request, triton_facts

    parts = [ast.dump(ast.parse(inspect.getsource(m))) for m in (
        request, memdesc, layouts, physical, dtypes, triton_facts,
        importlib.import_module(__name__))]  # fmt: skip
    cases = case_module()
    parts += [ast.dump(ast.parse(inspect.getsource(f))) for f in (cases.md, cases.sw, cases.nv)]
    parts.append(json.dumps(sorted(PROFILES)))
    return "\n".join(parts)


def module_text(request: dict[str, Any]) -> str | None:
    """The one-op MLIR module of a view request (None for an alias request)."""
    if request.get("op") not in (OP_NAMES[RE], OP_NAMES[SUB], OP_NAMES[IDX]):
        return None
    return str(case_module().module(request))
