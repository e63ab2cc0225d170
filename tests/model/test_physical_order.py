"""The physical footprint under a layout's order and NVMMA transposition and blocks, against
element positions enumerated from the layouts' definitions and against what Triton 3.9's
reinterpret verifier measures ("N contiguous bytes available", read off its diagnostics).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alias_spec.difftest.triton.cases import RE, md, module, nv, sw
from alias_spec.difftest.triton.runner import InterpreterError, triton_version, verify_modules
from alias_spec.model.interp import check_facts
from alias_spec.model.layouts import axes_of, parse_layout
from alias_spec.model.physical import footprint
from alias_spec.model.request import parse_request

CM = sw(2, 1, 1, 1, [0, 1])  # column-major: dim 0 varies fastest


def position_swizzled(order: list[int], alloc: list[int], coord: list[int]) -> int:
    """Element position in an allocation ordered by ``order`` (fastest dim first)."""
    pos, stride = 0, 1
    for d in order:
        pos += coord[d] * stride
        stride *= alloc[d]
    return pos


def position_nvmma(alloc: list[int], coord: list[int], block: int, transposed: bool) -> int:
    """Element position under an NVMMA layout without its swizzle: the contiguous dim is cut
    into blocks of ``block`` elements; a block holds every row before the next block starts."""
    r_dim, c_dim = (1, 0) if transposed else (0, 1)
    rows, width = alloc[r_dim], alloc[c_dim]
    block = min(block, width) or width
    c, r = coord[c_dim], coord[r_dim]
    return (c // block) * rows * block + r * block + c % block


def enumerate_view(shape: list[int], offsets: list[int], position: Any) -> list[int]:
    coords = [[]]
    for s, o in zip(shape, offsets, strict=True):
        coords = [c + [o + k] for c in coords for k in range(s)]
    pos = sorted(position(c) for c in coords)
    return [p - pos[0] for p in pos]


@st.composite
def views_2d(draw: st.DrawFn, block: int = 1) -> tuple[list[int], list[int], list[int]]:
    alloc = [draw(st.sampled_from([1, 2, 4, 8, 16])) for _ in range(2)]
    shape, offsets = [], []
    for a in alloc:
        size = draw(st.sampled_from([d for d in (1, 2, 4, 8, 16) if d <= a]))
        shape.append(size)
        offsets.append(size * draw(st.integers(0, a // size - 1)))
    return shape, alloc, offsets


@settings(max_examples=300, deadline=None)
@given(views_2d(), st.sampled_from([[0, 1], [1, 0]]))
def test_swizzled_order_footprint_matches_enumeration(view, order: list[int]) -> None:
    shape, alloc, offsets = view
    lay = parse_layout(sw(2, 1, 1, 1, order), "layout")
    fp = footprint(shape, alloc, offsets, axes_of(lay, alloc, 16))
    assert fp.elements() == enumerate_view(
        shape, offsets, lambda c: position_swizzled(order, alloc, c)
    )


@settings(max_examples=400, deadline=None)
@given(views_2d(), st.sampled_from([0, 32, 64, 128]), st.booleans(), st.sampled_from([8, 16]))
def test_nvmma_footprint_matches_enumeration(view, swizzle: int, transposed: bool, bits: int):
    shape, alloc, offsets = view
    lay = parse_layout(nv(swizzle, bits, transposed), "layout")
    block = swizzle * 8 // bits
    fp = footprint(shape, alloc, offsets, axes_of(lay, alloc, bits))
    want = enumerate_view(shape, offsets, lambda c: position_nvmma(alloc, c, block, transposed))
    assert fp.elements() == want


def test_column_major_row_slice_is_one_run_per_column() -> None:
    # Rows 0-31 of a column-major 128x64 i8 buffer: 64 runs of 32 bytes, 128 bytes apart.
    lay = parse_layout(CM, "layout")
    fp = footprint([32, 64], [128, 64], [0, 0], axes_of(lay, [128, 64], 8))
    assert (fp.run, fp.levels[-1]) == (32, (128, 64))
    # Columns 0-31 are one dense run of 32 whole columns.
    fp = footprint([128, 32], [128, 64], [0, 0], axes_of(lay, [128, 64], 8))
    assert (fp.run, fp.levels[-1][1]) == (128 * 32, 1)


# Triton 3.9.0 on a reinterpret of a subview source: None where it accepted, else the
# contiguous bytes its diagnostic said the source owns ("N contiguous bytes available").
MEASURED_39: list[tuple[dict[str, Any], int | None]] = [
    ({"op": RE, "source": md([64, 64], "f16", CM, alloc=[128, 64]),
      "result": md([8192], "i8", sw(1))}, 128),
    ({"op": RE, "source": md([128, 32], "f16", CM, alloc=[128, 64]),
      "result": md([8192], "i8", sw(1))}, None),
    ({"op": RE, "source": md([1, 64], "f16", CM, alloc=[128, 64]),
      "result": md([128], "i8", sw(1))}, 2),
    ({"op": RE, "source": md([1, 64], "f16", CM, alloc=[128, 64]),
      "result": md([2], "i8", sw(1))}, None),
    ({"op": RE, "source": md([16, 128], "f16", nv(128, 16), alloc=[64, 128]),
      "result": md([4096], "i8", sw(1))}, 2048),
    ({"op": RE, "source": md([16, 128], "f16", nv(128, 16), alloc=[64, 128]),
      "result": md([2048], "i8", sw(1))}, None),
    ({"op": RE, "source": md([64, 16], "f16", nv(32, 16, True), alloc=[64, 64]),
      "result": md([2048], "i8", sw(1))}, 512),
    ({"op": RE, "source": md([64, 16], "f16", nv(0, 16, True), alloc=[64, 64]),
      "result": md([2048], "i8", sw(1))}, None),
    ({"op": RE, "source": md([16, 64], "f16", nv(0, 16, True), alloc=[64, 64]),
      "result": md([2048], "i8", sw(1))}, 32),
    ({"op": RE, "source": md([16, 64], "f16", nv(0, 16, True), alloc=[64, 64]),
      "result": md([32], "i8", sw(1))}, None),
]  # fmt: skip


@pytest.mark.parametrize("index", range(len(MEASURED_39)))
def test_triton_3_9_owned_bytes(index: int) -> None:
    request, available = MEASURED_39[index]
    facts = parse_request(request).facts
    fired = check_facts(facts, "triton-3.9").rule_ids()
    if available is None:
        assert fired == []
    else:
        assert fired == ["triton.reinterpret.owned"]
        assert facts["run"] * 2 == available  # f16 sources


def test_alias_of_a_column_major_row_slice() -> None:
    # safe judges an alias of rows 0-31 of a column-major buffer physically: 64 bytes (one
    # column's run) fit, 128 bytes (what a dense row slice would hold) do not.
    def alias(shape: list[int], res_bytes: int) -> list[str]:
        req = {
            "source": {"shape": shape, "dtype": "fp16", "alloc_shape": [128, 64],
                       "view_offsets": [0, 0], "layout": CM},
            "result": {"shape": [res_bytes], "dtype": "int8"},
            "alias_offset_bytes": 0,
        }  # fmt: skip
        return check_facts(parse_request(req).facts, "safe").rule_ids()

    assert alias([32, 64], 64) == []
    assert alias([32, 64], 128) == ["alias.range.physical"]
    assert alias([128, 32], 8192) == []  # 32 whole columns are dense


def _python_39() -> str | None:
    """An interpreter with Triton 3.9 among ALIAS_SPEC_TRITON_PYTHONS (and this one)."""
    extra = os.environ.get("ALIAS_SPEC_TRITON_PYTHONS", "")
    for python in [sys.executable, *[p for p in extra.split(os.pathsep) if p]]:
        if Path(python).exists():
            try:
                if triton_version(python).startswith("3.9."):
                    return python
            except InterpreterError:
                continue
    return None


def test_measured_cases_are_triton_3_9s() -> None:
    # MEASURED_39 re-measured: Triton 3.9's verifier on each request's module, in a subprocess.
    python = _python_39()
    if python is None:
        pytest.skip("no Triton 3.9 interpreter named in ALIAS_SPEC_TRITON_PYTHONS")
    mods = [(str(i), module(req)) for i, (req, _) in enumerate(MEASURED_39)]
    got = verify_modules(mods, python)
    for i, (_, available) in enumerate(MEASURED_39):
        r = got[str(i)]
        assert r["ok"] == (available is None), (i, r["error"])
        if available is not None:
            assert f"{available} contiguous bytes available" in r["error"], r["error"]
