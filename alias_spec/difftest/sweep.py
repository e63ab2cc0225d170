"""Case source: the exhaustive small-scope sweep, every fact tuple of a small scope."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Iterator, Sequence
from functools import cache
from math import prod
from typing import Any

from alias_spec.difftest.outcomes import PROFILES_LIST, Case, Facts, base_facts
from alias_spec.model.catalogue import DEFAULT_PROFILE
from alias_spec.model.errors import RequestError
from alias_spec.model.physical import EMPTY, footprint


@cache
def sweep_geometries(max_elems: int = 8) -> tuple[tuple[int, tuple[tuple[str, int], ...]], ...]:
    """Every distinct footprint of a static view inside an allocation of rank <= 3, dims 1-4
    and at most ``max_elems`` elements (with the view's element count)."""
    seen: dict[tuple[int, tuple[tuple[str, int], ...]], None] = {}
    for rank in (1, 2, 3):
        for alloc in itertools.product(range(1, 5), repeat=rank):
            if prod(alloc) > max_elems:
                continue
            for view_rank in range(1, rank + 1):
                for shape in itertools.product(*[range(d + 1) for d in alloc[rank - view_rank :]]):
                    padded = [1] * (rank - view_rank) + list(shape)
                    ranges = [range(a - s + 1) for a, s in zip(alloc, padded, strict=True)]
                    for offs in itertools.product(*ranges):
                        try:
                            fp = footprint(list(shape), list(alloc), list(offs))
                        except RequestError:
                            continue
                        seen[(prod(shape), tuple(sorted(fp.facts().items())))] = None
    return tuple(seen)


# (src_base, align, swz) placements: element- and swizzle-aligned and misaligned starts.
_PLACEMENTS = ((0, 8, 0), (1, 8, 0), (2, 8, 0), (3, 1, 0), (0, 2, 0), (0, 8, 4), (2, 8, 4),
               (4, 8, 4), (0, 2, 4), (6, 8, 8), (0, 16, 8), (8, 4, 8))  # fmt: skip
_CONTROL_BOOLS = ("src_buffered", "init_given", "src_mutable", "res_mutable", "off_int",
                  "src_static", "res_static")  # fmt: skip


class Sweep:
    """Every fact tuple of a small scope, addressable by index (campaigns sample it).

    Part A, the arithmetic: every small footprint x source bits {0, 8, 16, 24} x result
    bits {0, 8, 16, 32} x result elements 0-3 x offset -1..16 x 12 placements, with the
    control facts valid. Part B, the control facts: every combination of the seven booleans,
    scope and both memory spaces x 16 arithmetic tuples (adjusted to the invariants: a
    non-integer offset is 0, a dynamic side has no elements)."""

    SRC_BITS = (0, 8, 16, 24)
    RES_BITS = (0, 8, 16, 32)
    RES_ELEMS = (0, 1, 2, 3)
    OFFSETS = tuple(range(-1, 17))

    def __init__(self) -> None:
        self.geos = sweep_geometries()
        self.axes: list[Sequence[Any]] = [self.geos, self.SRC_BITS, self.RES_BITS,
                                          self.RES_ELEMS, self.OFFSETS, _PLACEMENTS]  # fmt: skip
        self.size_a = prod(len(a) for a in self.axes)
        self.controls = list(itertools.product((False, True), repeat=len(_CONTROL_BOOLS)))
        self.control_axes = [self.controls, (0, 1), (0, 1, 2), (0, 1, 2)]
        # 16 fixed arithmetic tuples, spread over part A, for part B.
        self.control_arith = [random.Random(k).randrange(self.size_a) for k in range(16)]
        self.size_b = prod(len(a) for a in self.control_axes) * 16

    def __len__(self) -> int:
        return self.size_a + self.size_b

    def __getitem__(self, i: int) -> Facts:
        if i < self.size_a:
            return self._arith(i)
        j = i - self.size_a
        k, j = j % 16, j // 16
        picks = []
        for axis in self.control_axes:
            picks.append(axis[j % len(axis)])
            j //= len(axis)
        bools, scope, src_space, res_space = picks
        f = self._arith(self.control_arith[k])
        f.update(dict(zip(_CONTROL_BOOLS, bools, strict=True)))
        f.update(scope=scope, src_space=src_space, res_space=res_space)
        if not f["off_int"]:
            f["off"] = 0
        if not f["src_static"]:
            f.update(src_elems=0, **EMPTY.facts())
        if not f["res_static"]:
            f["res_elems"] = 0
        return f

    def _arith(self, i: int) -> Facts:
        picks = []
        for axis in self.axes:
            picks.append(axis[i % len(axis)])
            i //= len(axis)
        (elems, geo), src_bits, res_bits, res_elems, off, (base, align, swz) = picks
        f = base_facts()
        f.update(geo)
        f.update(src_elems=elems, src_bits=src_bits, res_bits=res_bits, res_elems=res_elems,
                 off=off, src_base=base, align=align, swz=swz)  # fmt: skip
        return f

    def cases(self, indices: Iterable[int]) -> Iterator[Case]:
        """Judged under the default profile (it holds every alias rule), every fourth tuple
        under each other profile in turn."""
        others = [p for p in PROFILES_LIST if p != DEFAULT_PROFILE]
        for i in indices:
            q, r = divmod(i, 4)
            profile = others[q % len(others)] if r == 3 and others else DEFAULT_PROFILE
            yield Case(self[i], profile, "sweep", f"sweep[{i}]")
