"""A corpus of requests for the request-level differential test (``request_diff.py``).

Every request is JSON in the form ``alias-spec check`` reads; ``request_diff`` writes each one
every other way a user can (MLIR memdesc text, an IR module for lint, a ``tle.gpu.alloc`` call)
and compares what each path makes of it. The corpus is deterministic for a seed and mixes:

- seeds the caller names (the tests pass the z3 boundary corpus and the case folder), the fixed
  edges of ``semantics.boundary``, the verdict cases (a folder of case files) and the one-edit
  family of stock view requests that documents every Triton rule (``view_examples``);
- edge requests per rule: offsets on both sides of alignment, range, i32 and int64 limits,
  sizes whose byte products land just under and just over int64, zero and dynamic dims,
  sub-byte element types (``i1``, ``{"bits": 0}``), subslice sources (``alloc_shape`` +
  ``view_offsets``), sources that are aliases (``base_offset_bytes``), NVMMA and swizzled
  layouts, every stock view op with edge operands;
- random requests drawn from the same vocabulary, each followed by its one-step neighbours
  (one integer nudged by one), so that every edge a random request sits near is seen from
  both sides.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from alias_spec.model.dtypes import DTYPE_BITS
from alias_spec.model.facts import INT32_MAX, INT64_MAX, OPS, elem_bytes
from alias_spec.model.layouts import NVMMA_SWIZZLES

ALIAS, RE, SUB, IDX = sorted(OPS, key=OPS.__getitem__)
NAMED_DTYPES = tuple(sorted(DTYPE_BITS))
COMMON_DTYPES = ("i1", "i8", "fp16", "bf16", "f16", "fp32", "f32", "i32", "i64", "fp8e4nv")
BIT_DTYPES = (0, 1, 4, 7, 8, 12, 16, 24, 32, 64, 2**31)
DIMS = (1, 1, 2, 3, 4, 4, 8, 8, 16, 16, 32, 64, 128, 5, 6, 12, 0)
SPACES = ("smem", "smem", "smem", "smem", "smem", "smem", "tmem", "global")


def _dtype(rng: random.Random) -> Any:
    r = rng.random()
    if r < 0.75:
        return rng.choice(COMMON_DTYPES)
    if r < 0.92:
        return rng.choice(NAMED_DTYPES)
    return {"bits": rng.choice(BIT_DTYPES)}


def swizzled(rank: int, vec: int = 1, per_phase: int = 1, max_phase: int = 1) -> dict[str, Any]:
    """A swizzled shared layout as JSON, every key spelled out (row-major order)."""
    return {
        "kind": "swizzled",
        "vec": vec,
        "per_phase": per_phase,
        "max_phase": max_phase,
        "order": list(range(rank - 1, -1, -1)),
    }


def nvmma(swizzle: int, bits: int, rank: int = 2, transposed: bool = False) -> dict[str, Any]:
    """An NVMMA shared layout as JSON, every key spelled out."""
    return {
        "kind": "nvmma",
        "swizzle_bytes": swizzle,
        "transposed": transposed,
        "element_bitwidth": bits,
        "rank": rank,
    }


def _elem_bits(dtype: Any) -> int:
    if isinstance(dtype, dict):
        return int(dtype.get("bits", 0))
    return DTYPE_BITS.get(str(dtype), 16)


def _layout(rng: random.Random, rank: int, dtype: Any) -> Any:
    """None, a swizzled or NVMMA layout (JSON or attribute text), or a padded one (text: a
    layout the spec does not model). The layout's rank is the shape's or one less."""
    lrank = rank - 1 if rank > 1 and rng.random() < 0.15 else rank
    r = rng.random()
    if r < 0.2:
        return None
    if r < 0.5:
        mp = rng.choice((1, 1, 2, 4, 8))
        return swizzled(lrank, rng.choice((1, 2, 4, 8)), rng.choice((1, 2)), mp)
    if r < 0.85 and lrank >= 1:
        bits = _elem_bits(dtype) if rng.random() < 0.8 else rng.choice((8, 16, 32))
        return nvmma(rng.choice(NVMMA_SWIZZLES), min(bits, 64), max(lrank, 1), rng.random() < 0.2)
    if r < 0.95:
        order = ", ".join(str(d) for d in range(lrank - 1, -1, -1))
        return f"#ttg.padded_shared<[32:+4] {{order = [{order}]}}>"
    return f"#ttg.swizzled_shared<{{vec = 2, perPhase = 1, maxPhase = 2, order = [{lrank - 1}]}}>"


def _shape(rng: random.Random, rank: int) -> list[int]:
    return [rng.choice(DIMS) for _ in range(rank)]


def _source(rng: random.Random) -> dict[str, Any]:
    """A source side: a whole allocation, a subslice of one, or a view with leading buffer
    dims left out of its shape."""
    rank = rng.choice((1, 2, 2, 2, 3, 3, 4))
    alloc = [max(d, 1) for d in _shape(rng, rank)]
    dtype = _dtype(rng)
    src: dict[str, Any] = {"shape": list(alloc), "dtype": dtype}
    r = rng.random()
    if r < 0.35:
        view_rank = rank if rng.random() < 0.8 else rng.randint(1, rank)
        lead = rank - view_rank
        shape = [rng.randint(1, a) if rng.random() < 0.9 else 0 for a in alloc[lead:]]
        padded = [1] * lead + shape
        offsets = [rng.randint(0, a - s) for a, s in zip(alloc, padded, strict=True)]
        if rng.random() < 0.05:  # out of bounds: every path must reject it
            offsets[-1] += alloc[-1]
        src.update(shape=shape, alloc_shape=alloc, view_offsets=offsets)
    elif r < 0.42:
        src["alloc_shape"] = alloc
    lay = _layout(rng, len(src["shape"]), dtype)
    if lay is not None:
        src["layout"] = lay
    if rng.random() < 0.15:
        src["base_offset_bytes"] = rng.choice((0, 1, 2, 16, 64, 128, 1000, 1024, INT32_MAX - 4096))
    if rng.random() < 0.1:
        src["alloc_alignment"] = rng.choice((1, 2, 4, 16, 128, 256, 512, 1024, 3))
    if rng.random() < 0.1:
        src["mutable"] = rng.random() < 0.3
    if rng.random() < 0.06:
        src["space"] = rng.choice(SPACES)
    if rng.random() < 0.03:
        src["kind"] = rng.choice(("tensor", "pointer", "buffered_tensor"))
    if rng.random() < 0.03:
        i = rng.randrange(len(src["shape"]))
        src["shape"][i] = rng.choice((None, "?", -1))
        src.pop("view_offsets", None)
        src.pop("alloc_shape", None)
    return src


def _bytes(side: dict[str, Any]) -> int:
    """The side's logical byte size (0 when not static), for choosing edge offsets."""
    n = 1
    for d in side["shape"]:
        if not isinstance(d, int) or d < 0:
            return 0
        n *= d
    return n * elem_bytes(_elem_bits(side["dtype"]))


def _result(rng: random.Random, src: dict[str, Any]) -> dict[str, Any]:
    rank = rng.choice((1, 1, 2, 2, 2, 3))
    dtype = _dtype(rng) if rng.random() < 0.6 else src["dtype"]
    shape = _shape(rng, rank)
    if rng.random() < 0.3 and isinstance(src["shape"][-1], int):
        shape[-1] = max(src["shape"][-1], 1)
    res: dict[str, Any] = {"shape": shape, "dtype": dtype}
    lay = _layout(rng, rank, dtype)
    if lay is not None:
        res["layout"] = lay
    if rng.random() < 0.08:
        res["mutable"] = rng.random() < 0.3
    if rng.random() < 0.05:
        res["space"] = rng.choice(SPACES)
    if rng.random() < 0.03:
        res["shape"][0] = rng.choice((None, "?", -1, -4))
    if rng.random() < 0.05:
        res["alloc_shape"] = [d * 2 if isinstance(d, int) and d > 0 else 1 for d in shape]
    return res


def _offset(rng: random.Random, src: dict[str, Any], res: dict[str, Any]) -> Any:
    sb, rb = _bytes(src), _bytes(res)
    eb = max(elem_bytes(_elem_bits(res["dtype"])), 1)
    edges = [
        0,
        eb,
        sb - rb,
        sb - rb + 1,
        sb - rb + eb,
        sb - rb - eb,
        sb,
        -1,
        -eb,
        1,
        INT32_MAX,
        INT32_MAX + 1,
        INT32_MAX - rb,
        16,
        128,
        1024,
    ]
    r = rng.random()
    if r < 0.6:
        return rng.choice(edges)
    if r < 0.95:
        return rng.randrange(0, max(sb, 1) + 1, rng.choice((1, eb, 16, 128)))
    return rng.choice((True, False, 4.0, "4", None, [4], INT64_MAX, INT64_MAX + 1, -(2**63)))


def alias_request(rng: random.Random) -> dict[str, Any]:
    src = _source(rng)
    res = _result(rng, src)
    req: dict[str, Any] = {"source": src, "result": res}
    if rng.random() < 0.95:
        req["alias_offset_bytes"] = _offset(rng, src, res)
    if rng.random() < 0.04:
        req["scope"] = rng.choice(("smem", "tmem"))
    if rng.random() < 0.04:
        req["init_value"] = rng.choice((0, 1.5, None, False, True))
    return req


def view_request(rng: random.Random) -> dict[str, Any]:
    """A stock Triton view: reinterpret, subslice or index of a source side."""
    op = rng.choice((RE, SUB, SUB, IDX, IDX))
    src = _source(rng)
    shape = src["shape"]
    if op == RE:
        res = _result(rng, src)
        if rng.random() < 0.3 and _bytes(src):
            res = {"shape": [_bytes(src)], "dtype": "i8"}
            lay = _layout(rng, 1, "i8")
            if lay is not None:
                res["layout"] = lay
        return {"op": op, "source": src, "result": res}
    res = {"dtype": src["dtype"] if rng.random() < 0.9 else _dtype(rng)}
    if "layout" in src and rng.random() < 0.8:
        res["layout"] = src["layout"]
    if op == SUB:
        dims = [d if isinstance(d, int) else 4 for d in shape]
        out = [max(d // rng.choice((1, 1, 2, 4)), 0) for d in dims]
        offsets = []
        for d, t in zip(dims, out, strict=True):
            step = max(t, 1)
            offsets.append(
                rng.randrange(0, max(d - t, 0) + 1, step)
                if rng.random() < 0.85
                else rng.choice((1, d, t, -1, d - t + 1))
            )
        if rng.random() < 0.05:
            offsets = offsets[:-1]
        res["shape"] = out
        res["alloc_shape"] = src.get("alloc_shape") or [
            d if isinstance(d, int) and d >= 0 else 1 for d in shape
        ]
        if rng.random() < 0.1:
            res.pop("alloc_shape")
        return {"op": op, "source": src, "result": res, "offsets": offsets}
    res["shape"] = list(shape[1:]) or [1]
    if rng.random() < 0.05:
        res["shape"] = list(shape)
    req = {"op": op, "source": src, "result": res}
    d0 = shape[0] if isinstance(shape[0], int) else 2
    r = rng.random()
    if r < 0.75:
        req["index"] = rng.choice((0, 1, max(d0 - 1, 0), d0, d0 + 1, -1))
    elif r < 0.95:
        req["index"] = None
    return req


def _edge_requests() -> Iterator[tuple[str, dict[str, Any]]]:
    """Hand-written edges: the i32 and int64 limits, sub-byte and zero-bit types, zero and
    empty dims, subslice sources with one to four strided levels, NVMMA bases."""
    big = INT32_MAX
    for off in (big - 16, big - 15, big - 8, big - 1, big, big + 1, big + 8):
        yield (
            "i32 offset",
            {
                "source": {"shape": [big + 64], "dtype": "i8"},
                "result": {"shape": [16], "dtype": "i8"},
                "alias_offset_bytes": off,
            },
        )
    for base in (big - 1040, big - 1039, big - 1024, big - 1023, big - 16):
        yield (
            "i32 address",
            {
                "source": {"shape": [1024], "dtype": "i8", "base_offset_bytes": base},
                "result": {"shape": [16], "dtype": "i8"},
                "alias_offset_bytes": 1008,
            },
        )
    for shape, dtype in (
        ([INT64_MAX], "i8"),
        ([2**62, 2], "i8"),
        ([2**62 - 1, 2], "i8"),
        ([2**31, 2**32], "i16"),
        ([2**31, 2**31], "i16"),
        ([2**61], "fp32"),
        ([2**61 - 1], "fp32"),
        ([2**60, 8], "i8"),
        ([3, 3074457345618258603], "i8"),
        ([INT64_MAX // 8 + 1], "i64"),
        ([2**63], "i8"),
        ([2**64], "i8"),
        ([2**40, 2**40], {"bits": 8}),
        ([2**62], {"bits": 16}),
        ([2**62], {"bits": 9}),
        ([2**62], {"bits": 2**31}),
    ):
        for side in ("source", "result"):
            big_side = {"shape": shape, "dtype": dtype}
            small = {"shape": [64], "dtype": "i8"}
            req = (
                {"source": big_side, "result": small}
                if side == "source"
                else {"source": small, "result": big_side}
            )
            yield f"int64 {side} size", {**req, "alias_offset_bytes": 0}
            yield f"int64 {side} size, reinterpret", {"op": RE, **req}
    for bits in (0, 1, 4, 7, 8, 9, 15, 16, 17):
        for off in (0, 1, 2, 3):
            yield (
                "sub-byte",
                {
                    "source": {"shape": [64], "dtype": "i8"},
                    "result": {"shape": [4], "dtype": {"bits": bits}},
                    "alias_offset_bytes": off,
                },
            )
    for name in ("i1", "int1"):
        yield (
            "i1",
            {
                "source": {"shape": [8, 8], "dtype": name},
                "result": {"shape": [8], "dtype": name},
                "alias_offset_bytes": 56,
            },
        )
    for shape in ([0], [0, 4], [4, 0], [1], [0, 0]):
        yield (
            "empty dims",
            {
                "source": {"shape": [64], "dtype": "i8"},
                "result": {"shape": shape, "dtype": "i8"},
                "alias_offset_bytes": 64,
            },
        )
        yield (
            "empty source",
            {"source": {"shape": shape, "dtype": "i8"}, "result": {"shape": [1], "dtype": "i8"}},
        )
    # Subslice sources: 1, 2, 3 and 4 strided levels (4 is more than the model holds).
    alloc = [4, 4, 4, 8]
    for shape, offs in (
        ([4, 4, 4, 4], [0, 0, 0, 4]),
        ([4, 4, 2, 4], [0, 0, 2, 4]),
        ([4, 2, 2, 4], [0, 2, 2, 4]),
        ([2, 2, 2, 4], [2, 2, 2, 4]),
    ):
        for off in (0, 8, 16, 24, 32, 64):
            yield (
                "strided source",
                {
                    "source": {
                        "shape": shape,
                        "dtype": "fp16",
                        "alloc_shape": alloc,
                        "view_offsets": offs,
                    },
                    "result": {"shape": [4], "dtype": "fp16"},
                    "alias_offset_bytes": off,
                },
            )
    for swz in NVMMA_SWIZZLES:
        for off in (0, 128, 256, 512, 1024, 2048):
            yield (
                "nvmma base",
                {
                    "source": {"shape": [64, 64], "dtype": "fp16", "layout": nvmma(128, 16)},
                    "result": {"shape": [16, 64], "dtype": "fp16", "layout": nvmma(swz, 16)},
                    "alias_offset_bytes": off,
                },
            )


def _seed_requests(boundary: Path | None, cases: Path | None) -> Iterator[tuple[str, Any]]:
    """Requests already in the repository (inputs only: their own tests check verdicts): the
    boundary corpus file and the case folder the caller names, the fixed edges, the view
    examples."""
    if boundary is not None and boundary.is_file():
        for line in boundary.read_text().splitlines():
            case = json.loads(line)
            yield f"boundary: {case['name']}", case["request"]
    try:
        from alias_spec.semantics.boundary import fixed_edges
    except ImportError:  # z3 missing: the fixed edges are optional inputs
        fixed_edges = None
    if fixed_edges is not None:
        for name, req in fixed_edges():
            yield f"fixed edge: {name}", req
    for path in sorted(cases.glob("*.json")) if cases is not None else ():
        try:
            yield f"case: {path.name}", json.loads(path.read_text())["request"]
        except (OSError, ValueError, KeyError):
            continue
    from alias_spec.difftest.view_examples import family

    fam = family()
    for c in fam.level0 + fam.level1:
        yield "view family", c.request


def _ints(obj: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], int]]:
    """(path, value) of every integer inside a request (bools excluded)."""
    if isinstance(obj, bool):
        return
    if isinstance(obj, int):
        yield path, obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            if k not in ("kind",):
                yield from _ints(v, (*path, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _ints(v, (*path, i))


def _set(obj: Any, path: tuple[Any, ...], value: Any) -> Any:
    """A copy of ``obj`` with the value at ``path`` replaced."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(obj, list):
        out = list(obj)
        out[head] = _set(obj[head], rest, value)
        return out
    out2 = dict(obj)
    out2[head] = _set(obj[head], rest, value)
    return out2


def neighbours(req: Any, rng: random.Random, k: int) -> list[Any]:
    """Up to ``k`` requests one integer step away (+1 or -1) from ``req``."""
    ints = list(_ints(req))
    out = []
    for path, v in rng.sample(ints, min(k, len(ints))):
        out.append(_set(req, path, v + rng.choice((-1, 1))))
    return out


def corpus(
    n: int,
    seed: int = 0,
    seeds: bool = True,
    boundary: Path | None = None,
    cases: Path | None = None,
) -> Iterator[tuple[str, Any]]:
    """``n`` (tag, request) pairs, deterministic for ``seed``: the seeds (the boundary corpus
    file and case folder given, the fixed edges, the view examples) and the hand-written edges
    first (when ``seeds``), then random requests, each followed by two of its one-step
    neighbours."""
    rng = random.Random(seed)
    made = 0
    if seeds:
        for tag, req in (*_seed_requests(boundary, cases), *_edge_requests()):
            if made >= n:
                return
            yield tag, req
            made += 1
    while made < n:
        is_view = rng.random() < 0.35
        req = view_request(rng) if is_view else alias_request(rng)
        tag = f"random {req.get('op', ALIAS)}"
        for i, r in enumerate([req, *neighbours(req, rng, 2)]):
            if made >= n:
                return
            yield (tag if i == 0 else tag + " neighbour"), r
            made += 1
