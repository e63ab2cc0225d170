"""Case source: JSON requests through the request parser.

Random requests are mostly well-formed and sometimes not (odd dtypes, layouts, offsets of
every JSON type, memdesc type text); the parser must judge or reject each, and what it accepts
is judged by every engine. Hand-made requests go first.
"""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from alias_spec.difftest.outcomes import Case, check_types, profile_of
from alias_spec.model.errors import RequestError
from alias_spec.model.facts import INT32_MAX, INT64_MAX
from alias_spec.model.memdesc import format_memdesc
from alias_spec.model.request import parse_request

_DTYPES = ("i1", "i8", "fp8e4nv", "fp16", "bf16", "f32", "fp32", "i64", "f64", {"bits": 4},
           {"bits": 0}, {"bits": 24}, {"bits": 56}, {"bits": 2**31})  # fmt: skip
_LAYOUTS = (
    None,
    None,
    {"kind": "nvmma", "swizzle_bytes": 128},
    {"kind": "nvmma", "swizzle_bytes": 32},
    {"kind": "nvmma", "swizzle_bytes": 0},
    {"kind": "swizzled"},
    "#ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16}>",
    "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>",
    "#shared",
)
_OFFSETS = (0, 0, 1, 2, 4, 8, 16, 64, 128, 1024, 4096, -1, INT32_MAX, INT32_MAX + 1,
            INT64_MAX, INT64_MAX + 1, 2**100, True, False, 4.0, "4", None)  # fmt: skip


def _side_dims(rng: random.Random, alloc: list[int]) -> tuple[list[Any], list[int]]:
    rank = len(alloc)
    view_rank = rng.randint(1, rank)
    shape = [rng.randint(0, d) if rng.random() < 0.2 else rng.randint(1, d)
             for d in alloc[rank - view_rank:]]  # fmt: skip
    padded = [1] * (rank - view_rank) + shape
    return shape, [rng.randint(0, a - s) for a, s in zip(alloc, padded, strict=True)]


def random_request(rng: random.Random) -> dict[str, Any]:
    """A JSON request, mostly well-formed, sometimes not (the parser must then reject it)."""
    rank = rng.randint(1, 3)
    alloc = [rng.choice([1, 2, 4, 8, 16, 32, 64, 128, 3]) for _ in range(rank)]
    shape, offsets = _side_dims(rng, alloc)
    src: dict[str, Any] = {"shape": shape, "dtype": rng.choice(_DTYPES)}
    if rng.random() < 0.5:
        src["alloc_shape"] = alloc
        src["view_offsets"] = offsets
    if rng.random() < 0.1:
        src["shape"] = [rng.choice([None, "?", -1, 2**62, 2**63])] + shape[1:]
    for key, choices in (
        ("space", ("smem", "smem", "smem", "tmem", "global")),
        ("mutable", (True, True, False)),
        ("layout", _LAYOUTS),
        ("base_offset_bytes", (0, 0, 2, 16, 128, INT32_MAX - 64)),
        ("alloc_alignment", (16, 1, 2, 1024, 128)),
        ("kind", ("buffered_tensor", "buffered_tensor", "tensor")),
    ):
        if rng.random() < 0.4:
            src[key] = rng.choice(choices)
    res: dict[str, Any] = {
        "shape": [
            rng.choice([0, 1, 2, 4, 8, 16, 64, 128, 2**61]) for _ in range(rng.randint(1, 2))
        ],
        "dtype": rng.choice(_DTYPES),
    }
    for key, choices in (("space", ("smem", "smem", "tmem")), ("mutable", (True, False)),
                         ("layout", _LAYOUTS)):  # fmt: skip
        if rng.random() < 0.4:
            res[key] = rng.choice(choices)
    req: dict[str, Any] = {"source": src, "result": res}
    if rng.random() < 0.9:
        req["alias_offset_bytes"] = rng.choice(_OFFSETS) if rng.random() < 0.5 else \
            rng.randrange(0, 4096, rng.choice([1, 2, 4, 16, 128]))  # fmt: skip
    if rng.random() < 0.1:
        req["scope"] = rng.choice(["smem", "tmem"])
    if rng.random() < 0.05:
        req["init_value"] = rng.choice([0, 1.5, None, False])
    if rng.random() < 0.2:
        req["source"] = _memdesc_text(src, rng)
    return req


def _memdesc_text(src: dict[str, Any], rng: random.Random) -> Any:
    dtype = src["dtype"]
    shape = src["shape"]
    if not isinstance(dtype, str) or not all(isinstance(d, int) and d >= 0 for d in shape):
        return src
    space = {"smem": "#ttg.shared_memory", "tmem": "#ttng.tensor_memory",
             "global": "#global"}[src.get("space", "smem")]  # fmt: skip
    layout = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>"
    alloc = src["alloc_shape"] if "alloc_shape" in src and rng.random() < 0.5 else None
    return format_memdesc(shape, dtype, layout, space, bool(src.get("mutable", True)), alloc,
                          keep_alloc=True)  # fmt: skip


def seed_requests(cases_dir: Path | None = None) -> list[tuple[str, Any]]:
    """Hand-made requests: the fixed boundary requests and, given ``cases_dir``, the request of
    every verdict-case file in it (a checkout keeps them in tests/cases; reused as inputs only,
    their own tests check their verdicts)."""
    out: list[tuple[str, Any]] = []
    try:
        from alias_spec.semantics.boundary import fixed_edges

        out += [(f"fixed edge: {name}", req) for name, req in fixed_edges()]
    except ImportError:  # the fixed edges are optional inputs
        pass
    for path in sorted(cases_dir.glob("*.json")) if cases_dir is not None else ():
        try:
            out.append((path.name, json.loads(path.read_text())["request"]))
        except (OSError, ValueError, KeyError, TypeError):  # not a case file: not a seed
            continue
    return out


def request_cases(
    rng: random.Random, n: int, stats: Counter | None = None, cases_dir: Path | None = None
) -> Iterator[Case]:
    """Requests through ``parse_request``: the seeds first (``seed_requests``), then random
    ones. Rejected requests (RequestError) are counted in ``stats`` and not judged."""
    seeds = seed_requests(cases_dir)
    produced = 0
    for i in itertools.count():
        if produced >= n:
            return
        if i < len(seeds):
            note, req = seeds[i]
        else:
            note, req = "random request", random_request(rng)
        try:
            facts = parse_request(req).facts
        except RequestError:
            if stats is not None:
                stats["request rejected"] += 1
            continue
        check_types(facts)
        produced += 1
        yield Case(facts, profile_of(i), "request", note, request=req)
