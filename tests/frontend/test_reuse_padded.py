"""Issue 18's planner case: two 64x64 f16 buffers of a PaddedSharedLayout (8 elements after
every 64) in use in one phase. Triton reserves 9,200 bytes for each (tests/reuse_sizes), so the
planner must place them disjoint at that size: the first at [0, 9200), the second from 9200.
The old planner sized them by their logical 8,192 bytes and overlapped them (448 values of the
first lie in the second's bytes; on an H200 the corruption showed, tests/gpu).

The placement is checked on the model, then in the TTGIR of the kernel ``alloc_reuse`` builds
(compiled for sm_90 on the CPU): each padded view's byte offset in the one allocation, read off
the IR's own ops, and its padded span must be disjoint from the other's and inside the
allocation. The same reading of the old placement's kernel finds the overlap.
"""

from __future__ import annotations

import json
import re
from itertools import pairwise
from math import prod

import pytest

from tests.paths import GPU

pytest.importorskip("triton")
from triton.experimental.gluon import language as gl  # noqa: E402

from alias_spec.frontend.tle.reuse import declarations, placement  # noqa: E402
from alias_spec.model import reuse  # noqa: E402
from alias_spec.semantics.reuse import plan  # noqa: E402
from tests.gpu import reuse_padded_kernel as rpk  # noqa: E402

SPAN = 9200  # Triton's bytes for one buffer: (4096 + 63 x 8) slots of 2 bytes
ELEM_BYTES = {"i8": 1, "f16": 2, "bf16": 2, "f32": 4}


def test_model_places_padded_buffers_by_their_physical_size() -> None:
    pad = ((64, 8),)
    a = reuse.buffer("a", [64, 64], 16, padding=pad)
    b = reuse.buffer("b", [64, 64], 16, padding=pad)
    assert (a.size, a.logical_size) == (SPAN, 8192)
    d = reuse.declare([a, b], {"a": "both", "b": "both"}, ["both"])
    assert reuse.lower_bound(d) == 2 * SPAN
    where = plan(d)
    got = (where.offset("a"), where.offset("b"), where.total, where.optimal)
    assert got == (0, SPAN, 2 * SPAN, True)
    # The old placement is caught by the model's own check.
    assert reuse.verify(d, {"a": 0, "b": 8192}, 2 * 8192 + 1008)


def test_frontend_plan_places_the_second_at_9200() -> None:
    d, layouts = declarations(rpk.plan())
    assert [type(lay).__name__ for lay in layouts] == ["PaddedSharedLayout"] * 2
    where = placement(d)
    assert (where.offset("a"), where.offset("b"), where.total) == (0, SPAN, 2 * SPAN)


_TYPE = re.compile(r"!ttg\.memdesc<([0-9x]+)x(i8|f16|bf16|f32), (#\w+)")


def _memdesc(text: str) -> tuple[int, str]:
    """(bytes, layout alias) of a memdesc type text (dense: elements x element bytes)."""
    m = _TYPE.search(text)
    assert m is not None, text
    dims = [int(x) for x in m.group(1).split("x")]
    return prod(dims) * ELEM_BYTES[m.group(2)], m.group(3)


def padded_views(ttgir: str) -> tuple[int, list[int]]:
    """(allocation bytes, byte offset of each padded f16 view) as the TTGIR places them: a
    reinterpret keeps its source's offset, an index adds index x the result's bytes."""
    consts = {m[0]: int(m[1]) for m in re.findall(r"(%\w+) = arith\.constant (\d+) : i32", ttgir)}
    padded = set(re.findall(r"^(#\w+) = #ttg\.padded_shared", ttgir, re.M))
    at: dict[str, int] = {}
    alloc, views = 0, []
    for line in ttgir.splitlines():
        line = line.strip()
        if m := re.match(r"(%\w+) = ttg\.local_alloc : \(\) -> (.*)", line):
            assert not at, "one allocation expected"
            at[m[1]], alloc = 0, _memdesc(m[2])[0]
        elif m := re.match(r"(%\w+) = ttg\.memdesc_reinterpret (%\w+) : .* -> (.*)", line):
            at[m[1]] = at[m[2]]
            if _memdesc(m[3])[1] in padded:
                views.append(at[m[1]])
        elif m := re.match(r"(%\w+) = ttg\.memdesc_index (%\w+)\[(%\w+)\] : .* -> (.*)", line):
            at[m[1]] = at[m[2]] + consts[m[3]] * _memdesc(m[4])[0]
    return alloc, views


def _disjoint(starts: list[int]) -> bool:
    spans = sorted((s, s + SPAN) for s in starts)
    return all(e <= s for (_, e), (s, _) in pairwise(spans))


def test_alloc_reuse_views_are_disjoint_in_the_ttgir() -> None:
    kernel = rpk.compile_cpu("planned")
    alloc, views = padded_views(kernel.asm["ttgir"])
    assert views == [0, SPAN]
    assert _disjoint(views) and max(views) + SPAN <= alloc
    assert kernel.metadata.shared == 2 * SPAN == alloc


def test_the_old_placement_overlaps_in_the_ttgir() -> None:
    # The reading above is not vacuous: the seeded kernel's views are found to overlap.
    alloc, views = padded_views(rpk.compile_cpu("seeded").asm["ttgir"])
    assert views == [0, 8192] and not _disjoint(views) and 8192 + SPAN <= alloc


def test_expected_corruption_of_the_old_placement() -> None:
    # Rows 57..63 of the first buffer (448 values) lie in bytes [8192, 9200); 8 of each row's
    # 64 fall in the second buffer's padding, which its stores never write.
    assert rpk.expected_wrong("seeded") == 7 * 56
    assert rpk.expected_wrong("planned") == 0


def test_kernel_script_compiles_without_a_gpu(capsys: pytest.CaptureFixture[str]) -> None:
    assert rpk.main(["--compile-only", "--seeded"]) == 0
    out = capsys.readouterr().out
    assert '"second_at": 9200' in out and '"second_at": 8192' in out
    assert gl.PaddedSharedLayout  # the layout kind this file is about exists on this release


def test_committed_h200_result_shows_the_padded_case() -> None:
    """The padded pair as measured on an H200 (``python -m tests.gpu.reuse_padded_kernel --seeded``):
    placed at its physical footprint it is byte-exact; at the old logical offsets the first
    buffer loses the values under the second's rows (56 of the 448 lie in its padding)."""
    path = GPU / "results" / "reuse_padded_h200.json"
    doc = json.loads(path.read_text())
    assert "H200" in doc["device"] and doc["triton"].startswith("3.6"), doc
    planned, seeded = doc["planned"], doc["seeded"]
    assert (planned["second_at"], planned["shared"], planned["wrong"]) == (9200, 18400, 0)
    assert (seeded["second_at"], seeded["wrong_a"], seeded["wrong_b"]) == (8192, 392, 0)
