"""Turning solver models back into requests people can read and re-run.

Witness searches add ``family`` constraints so that every model maps onto a request of a
fixed shape: a source view of rank 4 (alloc [c0, p0/p1, p1/p2, p2], view [c0, c1, c2, run]),
a rank-1 result, named dtypes where the width has one, an NVMMA layout where ``swz > 0``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import z3

from alias_spec.model.dtypes import WIDTHS, triton_name
from alias_spec.model.facts import Facts, elem_bytes
from alias_spec.model.layouts import NVMMA_SWIZZLES
from alias_spec.model.physical import swizzle_bytes, swizzle_repeat

SPACE_NAMES = {0: "smem", 1: "tmem", 2: "global"}
SCOPE_NAMES = {0: "smem", 1: "tmem"}


def family(env: Mapping[str, z3.ExprRef]) -> z3.BoolRef:
    """Facts that :func:`to_request` can rebuild exactly."""
    e = env
    return z3.And(
        e["op"] == 0,  # OP_ALIAS: to_request writes alias requests
        z3.Or(*[e["swz"] == swizzle_repeat(w) for w in NVMMA_SWIZZLES]),
        z3.Implies(
            e["run"] >= 1,
            z3.And(
                e["p0"] % e["p1"] == 0,
                e["p1"] % e["p2"] == 0,
                e["c1"] <= e["p0"] / e["p1"],
                e["c2"] <= e["p1"] / e["p2"],
            ),
        ),
        # An empty view keeps the canonical empty geometry.
        z3.Implies(
            e["run"] == 0, z3.And(e["c0"] == 1, e["c1"] == 1, e["c2"] == 1, e["src_start"] == 0)
        ),
    )


def small(env: Mapping[str, z3.ExprRef], bound: int = 4096) -> z3.BoolRef:
    """Keep witnesses readable: every integer fact within [-bound, bound]."""
    return z3.And(*[z3.And(v >= -bound, v <= bound) for v in env.values() if z3.is_int(v)])


def realistic(env: Mapping[str, z3.ExprRef], bound: int = 4096) -> z3.BoolRef:
    """What a kernel would write, preferred where a witness exists: byte-sized element types
    of a real dtype (8 to 64 bits) and power-of-2 shape pieces (so the rebuilt view's dims and
    alloc dims are powers of 2), on top of :func:`small`."""
    pow2 = [1 << k for k in range(bound.bit_length())]
    widths = [w for w in WIDTHS if w >= 8]

    def one_of(v: z3.ExprRef, values: list[int]) -> z3.BoolRef:
        return z3.Or(*[v == x for x in values])

    pieces = [env[n] for n in ("c0", "c1", "c2", "run", "p0", "p1", "p2") if n in env]
    return z3.And(
        small(env, bound),
        *[one_of(env[n], widths) for n in ("src_bits", "res_bits") if n in env],
        *[one_of(v, [0, *pow2]) for v in pieces],
    )


def _dtype(bits: int) -> Any:
    return triton_name(bits) or {"bits": bits}


def to_request(f: Facts) -> dict[str, Any]:
    """A JSON request with exactly these facts (up to the footprint's normal form)."""
    src: dict[str, Any] = {
        "kind": "buffered_tensor" if f["src_buffered"] else "tensor",
        "dtype": _dtype(int(f["src_bits"])),
        "space": SPACE_NAMES[int(f["src_space"])],
        "mutable": bool(f["src_mutable"]),
        "alloc_alignment": int(f["align"]),
    }
    src_eb = elem_bytes(int(f["src_bits"]))
    base = int(f["src_base"]) + int(f["src_start"]) * src_eb
    if base:
        src["base_offset_bytes"] = base
    run = int(f["run"])
    if not f["src_static"]:
        src["shape"] = [None]
    elif run == 0:
        src["shape"] = [0]
    else:
        p0, p1, p2 = int(f["p0"]), int(f["p1"]), int(f["p2"])
        c0, c1, c2 = int(f["c0"]), int(f["c1"]), int(f["c2"])
        src["shape"] = [c0, c1, c2, run]
        src["alloc_shape"] = [c0, p0 // p1, p1 // p2, p2]
    res: dict[str, Any] = {
        "shape": [int(f["res_elems"])] if f["res_static"] else [None],
        "dtype": _dtype(int(f["res_bits"])),
        "space": SPACE_NAMES[int(f["res_space"])],
        "mutable": bool(f["res_mutable"]),
    }
    if f["swz"]:
        res["layout"] = {"kind": "nvmma", "swizzle_bytes": swizzle_bytes(int(f["swz"]))}
    req: dict[str, Any] = {
        "source": src,
        "result": res,
        "scope": SCOPE_NAMES[int(f["scope"])],
        "alias_offset_bytes": int(f["off"]) if f["off_int"] else "not-an-integer",
    }
    if f["init_given"]:
        req["init_value"] = True
    return req
