"""View requests for the differential test against Triton's real verifiers, and their modules.

Every case is a spec request (``op`` = ttg.memdesc_reinterpret, _subslice or _index, both sides
as memdesc type text) plus the MLIR module that holds exactly that op: the source is a function
argument, so the module's verdict is the verdict on the two types and the op. Three families:
``boundary`` (each rule's edge: equal, one step in, one step out), ``near`` (a valid case with
one thing changed) and ``random`` (random draws from the same pools). Generation is
deterministic for a seed.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from alias_spec.model.dtypes import DTYPE_BITS
from alias_spec.model.facts import elem_bytes
from alias_spec.model.memdesc import format_memdesc

SPACE = "#ttg.shared_memory"
MODULE_ATTRS = (
    '"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", '
    '"ttg.threads-per-warp" = 32 : i32'
)
RE, SUB, IDX = "ttg.memdesc_reinterpret", "ttg.memdesc_subslice", "ttg.memdesc_index"


def sw(rank: int, vec: int = 1, per_phase: int = 1, max_phase: int = 1, order=None) -> str:
    order = list(range(rank - 1, -1, -1)) if order is None else order
    return (
        f"#ttg.swizzled_shared<{{vec = {vec}, perPhase = {per_phase}, maxPhase = {max_phase}, "
        f"order = [{', '.join(map(str, order))}]}}>"
    )


def nv(swizzle: int, bits: int, transposed: bool = False) -> str:
    t = "true" if transposed else "false"
    return (
        f"#ttg.nvmma_shared<{{swizzlingByteWidth = {swizzle}, transposed = {t}, "
        f"elementBitWidth = {bits}}}>"
    )


def md(
    shape: list[int], dtype: str, layout: str, mutable: bool = True, alloc: list[int] | None = None
) -> str:
    """A shared memdesc type (the model's one printer)."""
    return format_memdesc(shape, dtype, layout, SPACE, mutable, alloc)


def case(kind: str, op: str, src: str, res: str, **extra: Any) -> dict[str, Any]:
    return {"kind": kind, "request": {"op": op, "source": src, "result": res, **extra}}


def module(request: dict[str, Any]) -> str:
    """The MLIR module holding exactly this request's op."""
    op, src, res = request["op"], request["source"], request["result"]
    args = [f"%src: {src}"]
    body = []
    if op == RE:
        body.append(f"%r = ttg.memdesc_reinterpret %src : {src} -> {res}")
    elif op == SUB:
        offs = ", ".join(str(o) for o in request["offsets"])
        body.append(f"%r = ttg.memdesc_subslice %src[{offs}] : {src} -> {res}")
    else:
        index = request.get("index")
        if index is None:
            args.append("%i: i32")
            name = "%i"
        else:
            body.append(f"%c = arith.constant {index} : i32")
            name = "%c"
        body.append(f"%r = ttg.memdesc_index %src[{name}] : {src} -> {res}")
    lines = [f"module attributes {{{MODULE_ATTRS}}} {{"]
    lines.append(f"  tt.func public @k({', '.join(args)}) {{")
    lines += [f"    {b}" for b in body] + ["    tt.return", "  }", "}", ""]
    return "\n".join(lines)


# --- pools ------------------------------------------------------------------------------------


def layouts_for(rank: int, dtype: str) -> list[str]:
    """Layouts a source of this rank and dtype can carry (some of them invalid on purpose)."""
    bits = DTYPE_BITS[dtype]
    out = [sw(rank)]
    if rank >= 2:
        out += [sw(rank, 8, 1, 8), sw(rank, 4, 2, 4), sw(rank - 1)]
        if bits >= 8:
            out += [nv(128, bits), nv(64, bits), nv(32, bits), nv(0, bits), nv(128, bits, True)]
    return out


POW2 = [1, 2, 4, 8, 16, 32, 64, 128]


# --- reinterpret ----------------------------------------------------------------------------


def _reinterpret_boundary() -> Iterator[dict[str, Any]]:
    for dtype, shape in (("f16", [16, 16]), ("f32", [8, 32]), ("i8", [64, 64]), ("f16", [64])):
        rank = len(shape)
        for lay in layouts_for(rank, dtype)[:3]:
            src = md(shape, dtype, lay)
            n_bytes = elem_bytes(DTYPE_BITS[dtype])
            for v in shape:
                n_bytes *= v
            for rdtype in ("i8", "f16", "f32"):
                eb = elem_bytes(DTYPE_BITS[rdtype])
                for total in (n_bytes // 2, n_bytes, 2 * n_bytes):
                    if total % eb:
                        continue
                    res = md([total // eb], rdtype, sw(1))
                    yield case("boundary", RE, src, res)
            # Mutability, in both directions and both immutable.
            for sm, rm in ((False, True), (True, False), (False, False)):
                yield case(
                    "boundary",
                    RE,
                    md(shape, dtype, lay, sm),
                    md([n_bytes], "i8", sw(1), rm),
                )
    # Leading buffer dims: the storage size counts them.
    for b in (2, 3, 4):
        src = md([b, 16, 16], "f16", sw(2))
        for rows in (16 * b, 16 * b - 16, 16 * b + 16, 32 * b):
            yield case("boundary", RE, src, md([rows, 16], "f16", sw(2)))
    # Subview sources: rows (contiguous), columns (strided), and results up to and past a run.
    for alloc, shape in (([32, 16], [16, 16]), ([16, 32], [16, 16]), ([64, 64], [64, 32])):
        src = md(shape, "f16", sw(2), alloc=alloc)
        run = shape[-1] * 2 if alloc[-1] != shape[-1] else shape[0] * shape[1] * 2
        for total in (run, run + 32, run - 16, shape[0] * shape[1] * 2):
            if total > 0:
                yield case("boundary", RE, src, md([total], "i8", sw(1)))
    # A subview result, and a result with a different element type of the same size.
    yield case(
        "boundary", RE, md([16, 16], "f16", sw(2)), md([16, 16], "f16", sw(2), alloc=[32, 16])
    )
    yield case("boundary", RE, md([16, 16], "f16", sw(2)), md([16, 16], "bf16", sw(2)))
    # Non-power-of-2 leading dims on either side.
    yield case("boundary", RE, md([3, 16], "f16", sw(2)), md([96], "i8", sw(1)))
    yield case("boundary", RE, md([16, 16], "f16", sw(2)), md([3, 16], "f16", sw(2)))
    yield case("boundary", RE, md([6, 16], "f16", sw(2)), md([3, 32], "f16", sw(2)))
    # ... and outside the layout (a buffer dim), where only 3.9's fits rule and type rules speak.
    yield case("boundary", RE, md([3, 16, 16], "f16", sw(2)), md([3, 16, 16], "f16", sw(2)))
    yield case("boundary", RE, md([3, 16, 16], "f16", sw(2)), md([3, 256], "f16", sw(1)))
    yield case("boundary", RE, md([3, 64], "f16", sw(1)), md([3, 64], "f16", sw(1)))
    yield case("boundary", RE, md([3, 64], "f16", sw(2)), md([3, 64], "f16", sw(1)))


# --- index ----------------------------------------------------------------------------------


def _index_boundary() -> Iterator[dict[str, Any]]:
    for b in (1, 2, 3, 4):
        for dtype in ("f16", "i8"):
            for lay2, lay3 in ((sw(2), sw(3)), (sw(2, 8, 1, 8), sw(3, 8, 1, 8, [2, 1, 0]))):
                src_same = md([b, 16, 64], dtype, lay2)
                res_same = md([16, 64], dtype, lay2)
                for idx in (0, b - 1, b, -1, None):
                    yield case("boundary", IDX, src_same, res_same, index=idx)
                # A rank-3 layout on the source, rank-2 on the result (3.6 only).
                yield case("boundary", IDX, md([b, 16, 64], dtype, lay3), res_same, index=0)
    src = md([2, 16, 64], "f16", sw(2))
    yield case("boundary", IDX, src, md([16, 32], "f16", sw(2)), index=0)
    yield case("boundary", IDX, src, md([16, 64], "bf16", sw(2)), index=0)
    yield case("boundary", IDX, src, md([2, 16, 64], "f16", sw(2)), index=0)
    yield case("boundary", IDX, src, md([16, 64], "f16", sw(2), alloc=[2, 16, 64]), index=1)
    yield case(
        "boundary", IDX, md([2, 16, 64], "f16", sw(2), False), md([16, 64], "f16", sw(2)), index=1
    )
    # Subview sources: trimming only the leading dim, or an inner dim.
    yield case(
        "boundary",
        IDX,
        md([2, 16, 64], "f16", sw(2), alloc=[4, 16, 64]),
        md([16, 64], "f16", sw(2)),
        index=1,
    )
    yield case(
        "boundary",
        IDX,
        md([2, 8, 64], "f16", sw(2), alloc=[2, 16, 64]),
        md([8, 64], "f16", sw(2)),
        index=1,
    )
    # The type of an earlier index view (alloc shape of higher rank).
    yield case(
        "boundary",
        IDX,
        md([16, 64], "f16", sw(1), alloc=[2, 16, 64]),
        md([64], "f16", sw(1)),
        index=0,
    )
    # A 1-D result from a 2-D source with a 1-D layout.
    yield case("boundary", IDX, md([4, 64], "f16", sw(1)), md([64], "f16", sw(1)), index=3)
    yield case("boundary", IDX, md([4, 64], "f16", sw(2)), md([64], "f16", sw(1)), index=3)


# --- subslice -------------------------------------------------------------------------------


def _subslice_boundary() -> Iterator[dict[str, Any]]:
    shape = [64, 64]
    for dtype in ("f16", "i8"):
        for lay in layouts_for(2, dtype):
            src = md(shape, dtype, lay)
            for dim in (0, 1):
                for size in (8, 16, 32):
                    dst = list(shape)
                    dst[dim] = size
                    res = md(dst, dtype, lay, alloc=shape)
                    for off in (0, size, size // 2, 64 - size, 64, 64 + size):
                        offs = [0, 0]
                        offs[dim] = off
                        yield case("boundary", SUB, src, res, offsets=offs)
            # Row splits across a swizzle pattern.
            for rows in (1, 2, 4):
                res = md([rows, 64], dtype, lay, alloc=shape)
                yield case("boundary", SUB, src, res, offsets=[rows, 0])
    lay = sw(2)
    src = md([64, 64], "f16", lay)
    # Both dims split; an unsplit dim with an offset; identity with an offset.
    yield case("boundary", SUB, src, md([16, 32], "f16", lay, alloc=[64, 64]), offsets=[16, 32])
    yield case("boundary", SUB, src, md([16, 64], "f16", lay, alloc=[64, 64]), offsets=[16, 8])
    yield case("boundary", SUB, src, md([64, 64], "f16", lay, alloc=[64, 64]), offsets=[0, 8])
    yield case("boundary", SUB, src, md([64, 64], "f16", lay), offsets=[0, 0])
    # Result type mismatches: alloc shape, element type, layout, rank, offsets rank.
    yield case("boundary", SUB, src, md([16, 64], "f16", lay), offsets=[16, 0])
    yield case("boundary", SUB, src, md([16, 64], "f16", lay, alloc=[128, 64]), offsets=[16, 0])
    yield case("boundary", SUB, src, md([16, 64], "bf16", lay, alloc=[64, 64]), offsets=[16, 0])
    yield case(
        "boundary", SUB, src, md([16, 64], "f16", sw(2, 8, 1, 8), alloc=[64, 64]), offsets=[16, 0]
    )
    yield case("boundary", SUB, src, md([16, 64], "f16", lay, alloc=[64, 64]), offsets=[16])
    # Subview sources: inside, past the view but inside the allocation, larger than the view.
    sub = md([16, 64], "f16", lay, alloc=[64, 64])
    for dst_rows, off in ((8, 0), (8, 8), (8, 16), (32, 0), (16, 0)):
        yield case(
            "boundary", SUB, sub, md([dst_rows, 64], "f16", lay, alloc=[64, 64]), offsets=[off, 0]
        )
    # Buffer dims (layout of lower rank) and 3-D layouts.
    for lay3, lay_b in ((sw(3), sw(2)),):
        for offs, dst in (([1, 0, 0], [1, 64, 64]), ([0, 32, 0], [2, 32, 64])):
            yield case(
                "boundary",
                SUB,
                md([2, 64, 64], "f16", lay3),
                md(dst, "f16", lay3, alloc=[2, 64, 64]),
                offsets=offs,
            )
            yield case(
                "boundary",
                SUB,
                md([2, 64, 64], "f16", lay_b),
                md(dst, "f16", lay_b, alloc=[2, 64, 64]),
                offsets=offs,
            )
    # Non-power-of-2 leading source dims, 1-D sources, immutable sources.
    yield case(
        "boundary",
        SUB,
        md([48, 64], "f16", lay),
        md([16, 64], "f16", lay, alloc=[48, 64]),
        offsets=[32, 0],
    )
    yield case(
        "boundary",
        SUB,
        md([48, 64], "f16", lay),
        md([32, 64], "f16", lay, alloc=[48, 64]),
        offsets=[32, 0],
    )
    yield case("boundary", SUB, src, md([48, 64], "f16", lay, alloc=[64, 64]), offsets=[0, 0])
    yield case(
        "boundary", SUB, md([64], "f16", sw(1)), md([16], "f16", sw(1), alloc=[64]), offsets=[48]
    )
    yield case(
        "boundary", SUB, md([64], "f16", sw(1)), md([16], "f16", sw(1), alloc=[64]), offsets=[56]
    )
    yield case(
        "boundary",
        SUB,
        md([64, 64], "f16", lay, False),
        md([16, 64], "f16", lay, False, alloc=[64, 64]),
        offsets=[16, 0],
    )


# --- types ----------------------------------------------------------------------------------


def _type_boundary() -> Iterator[dict[str, Any]]:
    """Types through an identity-sized reinterpret (3.6 judges only the types there)."""
    for shape in ([3, 16], [16, 3], [0, 16], [16, 0], [3], [0], [1, 1], [48, 64], [2, 2, 16, 16]):
        lay = sw(min(len(shape), 2))
        yield case("boundary", RE, md(shape, "f16", lay), md(shape, "f16", lay))
    for alloc in ([3, 16, 16], [16, 24], [8, 16], [16]):
        shape = [16, 16] if len(alloc) != 1 else [16, 16]
        yield case("boundary", RE, md(shape, "f16", sw(2), alloc=alloc), md([512], "i8", sw(1)))
    for dtype in ("i1", "i16", "f64"):
        yield case("boundary", RE, md([64, 64], dtype, sw(2)), md([64, 64], dtype, sw(2)))
    yield case("boundary", RE, md([16, 16], "f16", sw(3)), md([512], "i8", sw(1)))
    yield case("boundary", RE, md([64, 32], "i8", nv(128, 8)), md([2048], "i8", sw(1)))
    yield case("boundary", RE, md([32, 64], "i8", nv(128, 8, True)), md([2048], "i8", sw(1)))


def boundary() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for gen in (_reinterpret_boundary, _index_boundary, _subslice_boundary, _type_boundary):
        out.extend(gen())
    return out


# --- near misses and random draws -------------------------------------------------------------


def _valid_seed(rng: random.Random) -> dict[str, Any]:
    """A request every release accepts (a starting point for one mutation)."""
    kind = rng.choice([RE, SUB, IDX])
    dtype = rng.choice(["f16", "i8", "f32"])
    rows, cols = rng.choice([8, 16, 32, 64]), rng.choice([32, 64, 128])
    lay = rng.choice([sw(2), sw(2, 8, 1, 8), nv(128, DTYPE_BITS[dtype])])
    if kind == RE:
        n = rows * cols
        return case("near", RE, md([rows, cols], dtype, lay), md([n], dtype, sw(1)))
    if kind == IDX:
        b = rng.choice([2, 3, 4])
        return case("near", IDX, md([b, rows, cols], dtype, lay), md([rows, cols], dtype, lay),
                    index=rng.randrange(b))  # fmt: skip
    size = max(rows // 2, 8)
    return case("near", SUB, md([rows, cols], dtype, lay), md([size, cols], dtype, lay,
                alloc=[rows, cols]), offsets=[size * rng.randrange(rows // size), 0])  # fmt: skip


def _mutate(rng: random.Random, c: dict[str, Any]) -> dict[str, Any]:
    r = dict(c["request"])
    op = r["op"]
    choice = rng.randrange(6)
    if choice == 0:
        r["result"] = r["result"].replace(", mutable", "")
    elif choice == 1:
        r["source"] = r["source"].replace(", mutable", "")
    elif choice == 2 and op == SUB:
        offs = list(r["offsets"])
        offs[0] += rng.choice([1, 4, 8, 64])
        r["offsets"] = offs
    elif choice == 2 and op == IDX:
        r["index"] = rng.choice([-1, 7, None, 100])
    elif choice == 3:
        r["result"] = r["result"].replace("xf16", "xbf16").replace("xi8", "xi16")
    elif choice == 4:
        text = r["result"]
        head = text.split("x", 1)
        r["result"] = head[0] + "x" + head[1] if rng.random() < 0.5 else text.replace("<", "<2x", 1)
    else:
        r["result"] = (
            r["result"].replace("maxPhase = 1", "maxPhase = 8").replace("vec = 1", "vec = 8")
        )
    return {"kind": "near", "request": r}


def near(rng: random.Random, count: int) -> list[dict[str, Any]]:
    out = []
    for _ in range(count):
        seed = _valid_seed(rng)
        out.append(seed)
        out.append(_mutate(rng, seed))
    return out


def _random_case(rng: random.Random) -> dict[str, Any]:
    op = rng.choice([RE, SUB, IDX])
    dtype = rng.choice(["f16", "i8", "f32", "bf16"])
    rank = rng.choice([1, 2, 2, 3])
    shape = [rng.choice(POW2[1:] + [3, 6]) for _ in range(rank)]
    lay = rng.choice(layouts_for(rank, dtype))
    mut = rng.random() < 0.85
    if op == RE:
        rrank = rng.choice([1, 2])
        rshape = [rng.choice(POW2[2:]) for _ in range(rrank)]
        rdtype = rng.choice(["f16", "i8", "f32"])
        rlay = rng.choice(layouts_for(rrank, rdtype))
        return case("random", RE, md(shape, dtype, lay, mut),
                    md(rshape, rdtype, rlay, rng.random() < 0.85))  # fmt: skip
    if op == IDX:
        rshape = shape[1:] or [1]
        res_lay = lay if rng.random() < 0.6 else rng.choice(layouts_for(len(rshape), dtype))
        idx = rng.choice([0, 1, shape[0] - 1, shape[0], None])
        return case("random", IDX, md(shape, dtype, lay, mut), md(rshape, dtype, res_lay, mut),
                    index=idx)  # fmt: skip
    dst = [d if rng.random() < 0.6 else max(d // rng.choice([2, 4]), 1) for d in shape]
    offs = [rng.choice([0, t, 2 * t, s - t, s, t // 2]) if t != s else rng.choice([0, 0, 0, t])
            for s, t in zip(shape, dst, strict=True)]  # fmt: skip
    return case("random", SUB, md(shape, dtype, lay, mut), md(dst, dtype, lay, mut, alloc=shape),
                offsets=offs)  # fmt: skip


def _random_layout(rng: random.Random, rank: int, dtype: str) -> str:
    bits = DTYPE_BITS[dtype]
    if rank >= 2 and bits >= 8 and rng.random() < 0.4:
        return nv(rng.choice([0, 32, 64, 128]), bits, rng.random() < 0.3)
    lrank = rank if rank == 1 or rng.random() < 0.8 else rank - 1
    order = list(range(lrank))
    rng.shuffle(order)
    return sw(lrank, rng.choice([1, 2, 4, 8]), rng.choice([1, 2, 4]), rng.choice([1, 2, 4, 8]),
              order)  # fmt: skip


def _random_split(rng: random.Random) -> dict[str, Any]:
    """Subslices of swizzled and NVMMA sources: the swizzle and tile rules' hard part."""
    dtype = rng.choice(["f16", "i8", "f32"])
    rank = rng.choice([2, 2, 3])
    shape = [rng.choice([2, 4, 8, 16, 32, 64, 128]) for _ in range(rank)]
    lay = _random_layout(rng, rank, dtype)
    dst, offs = [], []
    for d in shape:
        if rng.random() < 0.5:
            t = max(d >> rng.randint(1, 3), 1)
            dst.append(t)
            offs.append(
                t * rng.randrange(max(d // t, 1)) + (rng.choice([0, 0, 0, 1]) if t > 1 else 0)
            )
        else:
            dst.append(d)
            offs.append(0)
    return case(
        "random", SUB, md(shape, dtype, lay), md(dst, dtype, lay, alloc=shape), offsets=offs
    )


def random_cases(rng: random.Random, count: int) -> list[dict[str, Any]]:
    return [_random_case(rng) if rng.random() < 0.6 else _random_split(rng) for _ in range(count)]


def all_cases(seed: int = 0, near_count: int = 150, random_count: int = 600) -> list[dict]:
    """Every case with a stable id (``kind-number``)."""
    rng = random.Random(seed)
    cases = boundary() + near(rng, near_count) + random_cases(rng, random_count)
    seen: set[str] = set()
    out = []
    for c in cases:
        key = repr(sorted(c["request"].items()))
        if key in seen:
            continue
        seen.add(key)
        out.append({"id": f"{c['kind']}-{len(out):04d}", **c})
    return out
