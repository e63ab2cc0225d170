"""Generate the GPU corpus: valid alias requests with the byte addresses the spec predicts.

Each case is a root allocation, an optional view of it (static or runtime index, slice) and a
chain of one to three aliases. The structure is sampled; every offset is chosen by z3 over the
spec's facts (smallest, largest, zero, or nearest a random point among the offsets that every
rule of the 'safe' profile accepts), so the corpus probes the boundaries of the valid region.
Every step is checked three ways before it is written: the spec's request parser and
interpreter, the frontend's own fact computation (alias_spec.frontend.tle.place) and the generated
recipe predicate. The expected map gives, for each element of the last alias in row-major
order, the byte offset from the allocation's start where Triton's layout puts it.

    alias-spec dev gpu-corpus --out tests/gpu/corpus.json
"""

from __future__ import annotations

import argparse
import json
import random
from math import prod
from pathlib import Path
from typing import Any

import z3

from alias_spec.frontend.tle.place import LayoutInfo, Place, alias_facts, recipe_facts
from alias_spec.generated import recipes
from alias_spec.model import recipes as recipe_model
from alias_spec.model.dtypes import DTYPE_BITS, GPU_DTYPES
from alias_spec.model.facts import Facts, elem_bytes
from alias_spec.model.interp import check_facts
from alias_spec.model.physical import swizzle_repeat
from alias_spec.model.request import parse_request
from alias_spec.semantics.lexmin import optimum
from alias_spec.semantics.z3expr import fact_vars, invariants, pin, to_z3, valid

PROFILE = "safe"
TV = 306
DTYPES = list(GPU_DTYPES)
MAX_ROOT_BYTES = 64 * 1024
MAX_RESULT_ELEMS = 8192
OFFSET_KINDS = ("min_pos", "max", "zero", "random", "random", "max")


def _eb(dtype: str) -> int:
    """Bytes per element of a corpus dtype."""
    return elem_bytes(DTYPE_BITS[dtype])


# ---------------------------------------------------------------------------------------------
# Layouts: JSON form, what the facts need, and where each element lands (element offsets).


def swizzled(vec: int, per_phase: int, max_phase: int, order: list[int]) -> dict[str, Any]:
    return {
        "kind": "swizzled",
        "vec": vec,
        "per_phase": per_phase,
        "max_phase": max_phase,
        "order": order,
    }


def nvmma(swizzle: int, bits: int, rank: int) -> dict[str, Any]:
    return {"kind": "nvmma", "swizzle_bytes": swizzle, "element_bitwidth": bits, "rank": rank}


def info(layout: dict[str, Any]) -> LayoutInfo:
    if layout["kind"] == "nvmma":
        return LayoutInfo(
            "nvmma",
            layout["rank"],
            swizzle_bytes=layout["swizzle_bytes"],
            bits=layout["element_bitwidth"],
        )
    order = layout["order"]
    return LayoutInfo(
        "swizzled",
        len(order),
        max_phase=layout["max_phase"],
        row_major=order == sorted(order, reverse=True),
    )


def spec_layout(layout: dict[str, Any]) -> dict[str, Any]:
    if layout["kind"] == "nvmma":
        return {"kind": "nvmma", "swizzle_bytes": layout["swizzle_bytes"]}
    return {"kind": "swizzled"}


def element_offsets(layout: dict[str, Any], shape: list[int], eb: int) -> list[int]:
    """Element offset (from the view's start) of each element, in row-major logical order."""
    rank = len(shape)
    idx = [[]]  # type: list[list[int]]
    for d in shape:
        idx = [i + [k] for i in idx for k in range(d)]
    if layout["kind"] == "nvmma":
        s = layout["swizzle_bytes"]
        cols = shape[-1]
        rows = prod(shape[:-1])
        tile = (s if s else 16) // eb
        vec, per_phase, max_phase = 16 // eb, (128 // s if s else 1), (s // 16 if s else 1)
        out = []
        for i in idx:
            row = 0
            for d in range(rank - 1):
                row = row * shape[d] + i[d]
            c = i[-1]
            t, cc = divmod(c, tile)
            xor = (vec * ((row // per_phase) % max_phase)) % tile
            out.append(t * rows * tile + row * tile + (cc ^ xor))
        assert cols % tile == 0 or rank == 1
        return out
    order = layout["order"]
    lrank = len(order)
    lead = rank - lrank
    strides = [0] * rank
    step = 1
    for d in order:
        strides[lead + d] = step
        step *= shape[lead + d]
    for d in range(lead - 1, -1, -1):
        strides[d] = step
        step *= shape[d]
    vec, per_phase, max_phase = layout["vec"], layout["per_phase"], layout["max_phase"]
    out = []
    for i in idx:
        i = list(i)
        if lrank >= 2:
            fast, slow = lead + order[0], lead + order[1]
            xor = (vec * ((i[slow] // per_phase) % max_phase)) % shape[fast]
            i[fast] ^= xor
        out.append(sum(a * b for a, b in zip(i, strides, strict=True)))
    return out


def runs(byte_offsets: list[int], eb: int) -> list[list[int]]:
    """[[first byte, element count], ...]: consecutive elements eb bytes apart share a run."""
    out: list[list[int]] = []
    for b in byte_offsets:
        if out and out[-1][0] + out[-1][1] * eb == b:
            out[-1][1] += 1
        else:
            out.append([b, 1])
    return out


# ---------------------------------------------------------------------------------------------
# Structure sampling.


def pow2s(lo: int, hi: int) -> list[int]:
    return [1 << k for k in range(lo.bit_length() - 1, hi.bit_length()) if lo <= 1 << k <= hi]


def sample_layout(
    rng: random.Random, shape: list[int], bits: int, layout_rank: int
) -> dict[str, Any]:
    """A layout the map formulas cover (NVMMA only where its tiling is unambiguous)."""
    eb = elem_bytes(bits)
    inner = shape[-1] * eb
    outer_rows = prod(shape[len(shape) - layout_rank : -1]) if layout_rank >= 2 else 1
    options = ["ident", "swz"]
    if layout_rank >= 2:
        swz = [s for s in (32, 64, 128) if inner % s == 0 and (layout_rank == 2 or inner == s)]
        if swz and outer_rows >= 8:
            options += ["nvmma"] * 4
        if inner == 16:
            options.append("nvmma0")
    kind = rng.choice(options)
    if kind == "nvmma":
        return nvmma(max(swz) if rng.random() < 0.6 else rng.choice(swz), bits, layout_rank)
    if kind == "nvmma0":
        return nvmma(0, bits, layout_rank)
    order = list(range(layout_rank - 1, -1, -1))
    if kind == "ident" or layout_rank == 1:
        if layout_rank == 2 and rng.random() < 0.2:
            order = [0, 1]
        return swizzled(1, 1, 1, order)
    vec = rng.choice([v for v in (1, 2, 4, 8) if v * eb <= 16])
    return swizzled(vec, rng.choice([1, 2, 4]), rng.choice([1, 2, 4, 8]), order)


def sample_root(rng: random.Random) -> dict[str, Any]:
    while True:
        dtype = rng.choice(DTYPES)
        eb = _eb(dtype)
        rank = rng.choice([1, 2, 2, 3, 3])
        if rank == 1:
            shape = [rng.choice(pow2s(64 // eb or 1, 8192 // eb))]
            layout_rank = 1
        else:
            cols = rng.choice(pow2s(max(1, 16 // eb), 256 // eb))
            rows = rng.choice(pow2s(8, 128))
            if rank == 2:
                shape = [rows, cols]
                layout_rank = 2
            else:
                shape = [rng.choice([2, 3, 4, 5]), rows, cols]
                layout_rank = 2 if shape[0] in (3, 5) or rng.random() < 0.6 else 3
        if prod(shape) * eb <= MAX_ROOT_BYTES and prod(shape) * eb >= 256:
            layout = sample_layout(rng, shape, DTYPE_BITS[dtype], layout_rank)
            return {"shape": shape, "dtype": dtype, "layout": layout}


def sample_view(rng: random.Random, root: dict[str, Any]) -> dict[str, Any]:
    shape, lay = root["shape"], root["layout"]
    lrank = info(lay).rank
    choices = ["none", "none", "slice", "slice"]
    if lrank < len(shape):  # Gluon's index keeps the layout, so it drops a buffer dim only
        choices += ["index", "index", "index_rt"]
    kind = rng.choice(choices)
    if kind == "index":
        return {"op": "index", "i": rng.randrange(shape[0]), "runtime": False}
    if kind == "index_rt":
        return {"op": "index", "i": shape[0] - 1, "runtime": True}
    if kind == "slice":
        d0 = shape[0]
        buffer_dim = lrank < len(shape)
        pattern = 1
        if not buffer_dim:
            pattern = 8 if lay["kind"] == "nvmma" else lay["per_phase"] * lay["max_phase"]
        lengths = [n for n in pow2s(max(1, pattern), d0) if n < d0 and d0 % n == 0]
        if lengths:
            n = rng.choice(lengths)
            return {"op": "slice", "start": n * rng.randrange(d0 // n), "length": n, "dim": 0}
    return {"op": "none"}


def sample_result(
    rng: random.Random, max_bytes: int, align: int
) -> tuple[list[int], str, dict[str, Any]] | None:
    swizzles = [s for s in (32, 64, 128) if swizzle_repeat(s) <= align]
    for _ in range(50):
        dtype = rng.choice(DTYPES)
        eb = _eb(dtype)
        budget = min(max_bytes // eb, MAX_RESULT_ELEMS)
        if budget < 2:
            continue
        if swizzles and rng.random() < 0.6:
            # An NVMMA tile the source's alignment admits: rows of 32 to 256 bytes, 8 or more.
            swizzle = swizzles[-1] if rng.random() < 0.5 else rng.choice(swizzles)
            rank = rng.choice([2, 2, 3])
            row_bytes = swizzle if rank == 3 else swizzle * rng.choice([1, 1, 2])
            if row_bytes % eb:
                continue
            shape = [rng.choice([8, 16, 32, 64]), row_bytes // eb]
            if rank == 3:
                shape = [rng.choice([1, 2, 4])] + shape
            if prod(shape) <= budget:
                return shape, dtype, nvmma(swizzle, DTYPE_BITS[dtype], rank)
            continue
        rank = rng.choice([1, 2, 2, 3])
        shape = [rng.choice(pow2s(1, 64)) for _ in range(rank)]
        if rank >= 2:
            shape[-1] = rng.choice(pow2s(1, 128))
        if 2 <= prod(shape) <= budget:
            return shape, dtype, sample_layout(rng, shape, DTYPE_BITS[dtype], rank)
    return None


# ---------------------------------------------------------------------------------------------
# Offsets by z3, and the three-way check of every step.


def lowering_terms(env: dict[str, Any], rfacts: Facts) -> list[Any]:
    """The generated lowering's support conditions as z3 terms (recipe facts pinned; none of
    them depends on the offset except through the spec facts)."""
    full = dict(env)
    for f in recipe_model.RECIPE_FACTS:
        v = rfacts[f.name]
        full[f.name] = z3.BoolVal(bool(v)) if isinstance(v, bool) else z3.IntVal(int(v))
    return [to_z3(recipe_model.expand(s.formula), full) for s in recipe_model.SUPPORT]


def solve_offset(facts: Facts, rfacts: Facts, kind: str, rng: random.Random) -> int | None:
    env = fact_vars()
    base = [invariants(env), valid(PROFILE, env), env["off_int"], *pin(env, facts, skip=("off",))]
    base += lowering_terms(env, rfacts)
    off = env["off"]
    low: list[z3.ArithRef] = [off]
    high: list[z3.ArithRef] = []
    if kind == "zero":
        base.append(off == 0)
        low = []
    elif kind == "min_pos":
        base.append(off >= 1)
    elif kind == "max":
        low, high = [], [off]
    else:
        src_bytes = int(facts["src_elems"]) * elem_bytes(int(facts["src_bits"]))
        base.append(off >= rng.randrange(max(1, src_bytes)))
    found = optimum(base, minimize=low, maximize=high)
    if found.model is None:
        return None
    return found.model.eval(off, model_completion=True).as_long()


def source_side(src: dict[str, Any]) -> dict[str, Any]:
    out = {
        k: v
        for k, v in src.items()
        if k
        in ("shape", "dtype", "alloc_shape", "view_offsets", "base_offset_bytes", "alloc_alignment")
    }
    out["layout"] = spec_layout(src["layout"])
    return out


def step_facts(
    src: dict[str, Any], place: Place, res: dict[str, Any], off: int
) -> tuple[dict[str, Any], Facts]:
    """The spec request for one alias step and its facts, cross-checked with the frontend's."""
    request = {
        "source": source_side(src),
        "result": {
            "shape": res["shape"],
            "dtype": res["dtype"],
            "layout": spec_layout(res["layout"]),
        },
        "alias_offset_bytes": off,
    }
    facts = parse_request(request).facts
    from alias_spec.frontend.tle.place import SourceView

    view = SourceView(True, 0, True, DTYPE_BITS[src["dtype"]], tuple(src["shape"]), place, False)
    res_bits, res_lay = DTYPE_BITS[res["dtype"]], info(res["layout"])
    mine = alias_facts(view, 0, False, res["shape"], res_bits, res_lay, off)
    # The frontend computes the alias facts; view-op facts are the parser's business.
    if any(facts.get(k) != v for k, v in mine.items()):
        diff = {k: (facts.get(k), v) for k, v in mine.items() if facts.get(k) != v}
        raise AssertionError(f"frontend facts differ from the spec's: {diff}")
    return request, facts


def build_case(rng: random.Random, ident: str) -> dict[str, Any] | None:
    root = sample_root(rng)
    eb0 = _eb(root["dtype"])
    lay0 = info(root["layout"])
    alloc_bytes = prod(root["shape"]) * eb0
    place = Place.root(root["shape"], lay0, eb0)
    view = sample_view(rng, root)
    src: dict[str, Any] = {
        "shape": list(root["shape"]),
        "dtype": root["dtype"],
        "layout": root["layout"],
    }
    src["alloc_alignment"] = lay0.base_alignment
    extra = 0  # bytes a runtime index adds at run time
    if view["op"] == "index":
        i = view["i"]
        inner = root["shape"][1:]
        if view["runtime"]:
            place = place.index(tuple(root["shape"]), None)
            extra = i * prod(inner) * eb0
            src.update(shape=inner, alloc_alignment=place.align)
        else:
            place = place.index(tuple(root["shape"]), i)
            src.update(shape=inner, base_offset_bytes=place.base)
    elif view["op"] == "slice":
        shape = list(root["shape"])
        shape[0] = view["length"]
        offsets = [view["start"]] + [0] * (len(shape) - 1)
        src.update(shape=shape, alloc_shape=root["shape"], view_offsets=offsets)
        place = place.slice(len(shape), view["start"], 0)
        if not place.model_holds(tuple(shape)):
            return None
    n_chain = rng.choice([1, 1, 2, 2, 3])
    chain, requests, steps_recipes = [], [], []
    for _ in range(n_chain):
        src_bytes = prod(src["shape"]) * _eb(src["dtype"])
        picked = sample_result(rng, src_bytes, place.align)
        if picked is None:
            return None
        shape, dtype, layout = picked
        res = {"shape": shape, "dtype": dtype, "layout": layout}
        _, facts = step_facts(src, place, res, 0)
        src_view = SourceViewFor(src, place)
        rf0 = recipe_facts(src_view, shape, info(layout), 0, TV)
        off = solve_offset(facts, rf0, rng.choice(OFFSET_KINDS), rng)
        if off is None:
            off = solve_offset(facts, rf0, "min_pos", rng)
        if off is None:
            return None
        request, facts = step_facts(src, place, res, off)
        if not check_facts(facts, PROFILE).valid:
            raise AssertionError(f"z3 picked an offset the interpreter rejects: {request}")
        rf = dict(facts, **recipe_facts(src_view, shape, info(layout), off, TV))
        if recipes.unsupported(rf):
            return None
        steps_recipes.append(recipes.choose(rf))
        chain.append({**res, "offset": off})
        requests.append(request)
        eb = _eb(dtype)
        place = place.rebased(tuple(src["shape"]), off, info(layout), eb, shape)
        src = {"shape": shape, "dtype": dtype, "layout": layout, "base_offset_bytes": place.base}
        src["alloc_alignment"] = place.align
    final = chain[-1]
    eb = _eb(final["dtype"])
    abs_off = place.base + extra
    byte_offsets = [abs_off + e * eb for e in element_offsets(final["layout"], final["shape"], eb)]
    res_bytes = prod(final["shape"]) * eb
    assert max(byte_offsets) + eb <= alloc_bytes and min(byte_offsets) == abs_off
    assert sorted(byte_offsets) == list(range(abs_off, abs_off + res_bytes, eb)), (
        "layout map is not a permutation"
    )
    return {
        "id": ident,
        "root": root,
        "view": view,
        "chain": chain,
        "recipes": steps_recipes,
        "requests": requests,
        "expect": {
            "alloc_bytes": alloc_bytes,
            "abs_off": abs_off,
            "res_bytes": res_bytes,
            "elem_bytes": eb,
            "map": runs(byte_offsets, eb),
        },
    }


def SourceViewFor(src: dict[str, Any], place: Place) -> Any:  # noqa: N802 - reads like a type
    from alias_spec.frontend.tle.place import SourceView

    alloc = list(src.get("alloc_shape", src["shape"]))
    subview = alloc != list(src["shape"])
    lrank = info(src["layout"]).rank
    bits = DTYPE_BITS[src["dtype"]]
    return SourceView(True, 0, True, bits, tuple(src["shape"]), place, subview, tuple(alloc), lrank)


def generate(count: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    cases: list[dict[str, Any]] = []
    while len(cases) < count:
        case = build_case(rng, f"c{len(cases):04d}")
        if case is not None:
            cases.append(case)
    return cases


def summary(cases: list[dict[str, Any]]) -> dict[str, Any]:
    def count(key: Any) -> dict[str, int]:
        out: dict[str, int] = {}
        for c in cases:
            for k in key(c):
                out[str(k)] = out.get(str(k), 0) + 1
        return dict(sorted(out.items()))

    return {
        "cases": len(cases),
        "result_dtypes": count(lambda c: [s["dtype"] for s in c["chain"]]),
        "result_ranks": count(lambda c: [len(s["shape"]) for s in c["chain"]]),
        "result_layouts": count(
            lambda c: [
                s["layout"]["kind"] + str(s["layout"].get("swizzle_bytes", "")) for s in c["chain"]
            ]
        ),
        "views": count(lambda c: [c["view"]["op"] + ("_rt" if c["view"].get("runtime") else "")]),
        "chain_lengths": count(lambda c: [len(c["chain"])]),
        "recipes": count(lambda c: c["recipes"]),
        "zero_offsets": sum(1 for c in cases for s in c["chain"] if s["offset"] == 0),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="alias-spec dev gpu-corpus", description=__doc__.splitlines()[0]
    )
    ap.add_argument("--out", type=Path, default=Path("tests/gpu/corpus.json"))
    ap.add_argument("--count", type=int, default=320)
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args(argv)
    cases = generate(args.count, args.seed)
    doc = {
        "profile": PROFILE,
        "triton": "3.6",
        "seed": args.seed,
        "summary": summary(cases),
        "cases": cases,
    }
    args.out.write_text(json.dumps(doc, separators=(",", ":")) + "\n")
    print(json.dumps(doc["summary"], indent=1))
    return 0
