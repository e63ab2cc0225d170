"""Case sources: facts valid by construction, raw random facts and near misses.

Valid-by-construction facts describe a request every rule of every profile accepts (the case
carries that expected verdict, so even agreeing engines are checked against it). Raw facts
are any typed values: outside the invariants, at int64 extremes, beyond int64. Perturbed facts
move one to three facts of a valid request.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from math import gcd, prod
from typing import Any

from alias_spec.difftest.outcomes import (
    ALIAS_PROFILES,
    BOOLS,
    INT64_MIN,
    NAMES,
    Case,
    Facts,
    base_facts,
    profile_of,
)
from alias_spec.model.errors import RequestError
from alias_spec.model.facts import INT32_MAX, INT64_MAX
from alias_spec.model.physical import footprint


def _bits_for(rng: random.Random, eb: int) -> int:
    """A bit width whose byte width ceil(bits / 8) is eb."""
    return rng.choice([8 * eb, 8 * eb - rng.randint(0, 7)]) if eb > 0 else 0


def small_geometry(rng: random.Random, max_dim: int = 16) -> tuple[int, dict[str, int]]:
    """(element count, footprint facts) of a random static view inside a real allocation."""
    while True:
        rank = rng.randint(1, 4)
        alloc = [rng.choice([1, 2, 3, 4, 8, max_dim]) for _ in range(rank)]
        view_rank = rng.randint(1, rank)
        shape = [rng.randint(0, d) if rng.random() < 0.3 else rng.randint(1, d)
                 for d in alloc[rank - view_rank:]]  # fmt: skip
        padded = [1] * (rank - view_rank) + shape
        offsets = [rng.randint(0, a - s) for a, s in zip(alloc, padded, strict=True)]
        try:
            return prod(shape), footprint(shape, alloc, offsets).facts()
        except RequestError:  # more strided levels than modelled
            continue


def big_geometry(rng: random.Random) -> tuple[int, dict[str, int]]:
    """Nested runs with strides and counts up to int64 scale, in the footprint's normal form
    (real levels innermost, each leaving a gap after its runs; padding levels outermost)."""
    while True:
        run = rng.choice([1, 7, 2**20, 2**40, 2**61])
        levels = rng.randint(0, 3)
        c, p = [1, 1, 1], [0, 0, 0]
        extent = run
        for lvl in (2, 1, 0)[:levels]:
            c[lvl] = rng.choice([2, 3, 32])
            p[lvl] = extent + rng.choice([1, 5, 2**30, 2**33])
            extent += (c[lvl] - 1) * p[lvl]
        for lvl in range(3 - levels):
            p[lvl] = extent
        elems = c[0] * c[1] * c[2] * run
        start = rng.choice([0, 3, 2**40])
        geo = {"src_start": start, "run": run, "p0": p[0], "c0": c[0], "p1": p[1],
               "c1": c[1], "p2": p[2], "c2": c[2]}  # fmt: skip
        if max(elems, extent, start) <= INT64_MAX:
            return elems, geo


def valid_facts(rng: random.Random) -> Facts:
    """Facts of a request that every rule of every profile accepts, by construction."""
    while True:
        src_eb = rng.choice([1, 1, 2, 2, 4, 8, 3])
        res_eb = rng.choice([1, 1, 2, 4, 4, 8, 16, 7])
        elems, geo = big_geometry(rng) if rng.random() < 0.15 else small_geometry(rng)
        run_b = geo["run"] * src_eb
        if run_b == 0 or elems * src_eb > INT64_MAX:
            continue  # nothing to alias, or alias.size.static
        cap = run_b // res_eb
        res_elems = (
            0
            if rng.random() < 0.1
            else rng.choice(
                [cap, rng.randint(min(1, cap), cap), rng.randint(min(1, cap), max(1, cap // 4))]
            )
        )
        res_elems = min(res_elems, cap)
        res_bytes = res_elems * res_eb
        p = [geo[f"p{i}"] * src_eb for i in range(3)]
        c = [geo[f"c{i}"] for i in range(3)]
        run_start = sum(rng.randrange(ci) * pi for ci, pi in zip(c, p, strict=True))
        slack = run_b - res_bytes
        # The offset inside the run must keep off a multiple of the result element width.
        first = (-run_start) % res_eb
        if first > slack:
            run_start, first = 0, 0
        t = first + res_eb * rng.randint(0, (slack - first) // res_eb)
        t = rng.choice([t, t, first, first + res_eb * ((slack - first) // res_eb)])
        if run_start + t + res_bytes > elems * src_eb:
            # Past the logical size (a strided view): alias.range.fits judges the dense
            # size, so fall back to the first run.
            run_start, t = 0, t - first
        off = run_start + t
        swz = rng.choice([0, 0, 256, 512, 1024, 2 ** rng.randint(0, 12)])
        step = res_eb * (swz or 1) // gcd(res_eb, swz or 1)
        start_b = geo["src_start"] * src_eb
        src_base = (-(start_b + off)) % step + step * rng.choice([0, 0, 1, rng.randint(0, 99)])
        align = step * rng.choice([1, 2, 4, 1024 // step if step < 1024 else 1])
        if src_base + start_b + off + res_bytes > INT32_MAX:
            continue  # alias.address.i32: the whole result must be 32-bit addressable
        src_mutable = rng.random() < 0.8
        facts = base_facts()
        facts.update(
            src_mutable=src_mutable, res_mutable=src_mutable and rng.random() < 0.8, off=off,
            src_bits=_bits_for(rng, src_eb), res_bits=_bits_for(rng, res_eb),
            src_elems=elems, res_elems=res_elems, src_base=src_base, align=align, swz=swz,
            **geo,
        )  # fmt: skip
        return facts


def valid_cases(rng: random.Random, n: int) -> Iterator[Case]:
    for i in range(n):
        profile = ALIAS_PROFILES[i % len(ALIAS_PROFILES)]
        yield Case(valid_facts(rng), profile, "valid", expect=())


# --- raw random facts ---------------------------------------------------------------

EDGES = (0, 1, -1, 2, 7, 8, 9, 15, 16, 255, 256, 1024, INT32_MAX, INT32_MAX + 1, -(2**31),
         2**32, 2**62, INT64_MAX, INT64_MAX - 1, INT64_MIN, INT64_MIN + 1)  # fmt: skip


def _raw_int(rng: random.Random) -> int:
    r = rng.random()
    if r < 0.35:
        return rng.choice(EDGES)
    if r < 0.7:
        return rng.randint(-20, 300)
    if r < 0.97:
        return rng.randint(INT64_MIN, INT64_MAX)
    return rng.choice([INT64_MAX + 1, INT64_MIN - 1, 2**100, -(2**80)])  # beyond int64


def raw_facts(rng: random.Random) -> Facts:
    """Any typed facts: invariants or not, int64 extremes, a few beyond int64."""
    return {n: (rng.random() < 0.7) if n in BOOLS else _raw_int(rng) for n in NAMES}


def perturbed_facts(rng: random.Random) -> Facts:
    """A valid request with one to three facts moved: near misses of every kind."""
    f = valid_facts(rng)
    for name in rng.sample(NAMES, rng.randint(1, 3)):
        if name in BOOLS:
            f[name] = not f[name]
        else:
            v = int(f[name])
            f[name] = rng.choice([v + 1, v - 1, 0, -v, v * 2, v // 2, _raw_int(rng),
                                  rng.randint(-4, 4)])  # fmt: skip
    return f


def random_cases(rng: random.Random, n: int) -> Iterator[Case]:
    for i in range(n):
        if rng.random() < 0.5:
            yield Case(raw_facts(rng), profile_of(i), "random")
        else:
            yield Case(perturbed_facts(rng), profile_of(i), "perturbed")


def facts_strategy() -> Any:
    """Hypothesis strategy: raw typed facts, or a valid request with some facts replaced."""
    from hypothesis import strategies as st

    ints = st.one_of(
        st.sampled_from(EDGES),
        st.integers(-20, 300),
        st.integers(INT64_MIN, INT64_MAX),
        st.integers(-(2**70), 2**70),
    )
    raw = st.fixed_dictionaries({n: st.booleans() if n in BOOLS else ints for n in NAMES})

    @st.composite
    def near_valid(draw: Any) -> Facts:
        f = valid_facts(draw(st.randoms(use_true_random=False)))
        names = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=3, unique=True))
        for n in names:
            f[n] = draw(st.booleans() if n in BOOLS else ints)
        return f

    return st.one_of(raw, near_valid())
