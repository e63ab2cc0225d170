"""MLIR memdesc type text and layout attribute parsing."""

from __future__ import annotations

import pytest

from alias_spec.errors import RequestError
from alias_spec.layouts import parse_layout
from alias_spec.memdesc import parse_memdesc


def test_basic_memdesc() -> None:
    side = parse_memdesc("!ttg.memdesc<4x16x32xf16, #shared, #smem, mutable>", "source")
    assert side["shape"] == [4, 16, 32] and side["dtype"] == "f16"
    assert side["space"] == "smem" and side["mutable"] is True
    assert "alloc_shape" not in side


def test_alloc_shape_dynamic_and_immutable() -> None:
    side = parse_memdesc("!ttg.memdesc<?x64xbf16, #shared, #ttg.shared_memory, 2x64x64>", "s")
    assert side["shape"] == [None, 64] and side["alloc_shape"] == [2, 64, 64]
    assert side["mutable"] is False


def test_inline_layout_with_commas() -> None:
    text = ("!ttg.memdesc<64x64xf16, #ttg.nvmma_shared<{swizzlingByteWidth = 128, "
            "transposed = false, elementBitWidth = 16}>, #smem, mutable>")  # fmt: skip
    side = parse_memdesc(text, "result")
    lay = parse_layout(side["layout"], "result.layout")
    assert lay is not None and lay.kind == "nvmma" and lay.swizzle_repeat == 1024


def test_tensor_memory_space() -> None:
    assert (
        parse_memdesc("!ttg.memdesc<128x128xf32, #tm, #ttng.tensor_memory>", "r")["space"] == "tmem"
    )


@pytest.mark.parametrize(
    "text",
    ["!ttg.memdesc<4xf16>", "!tt.ptr<f16>", "!ttg.memdesc<4xf16, #a, #smem, bogus>",
     "!ttg.memdesc<4x-1xf16, #a, #smem>", "!ttg.memdesc<4xf16, #a<{, #smem>",
     "!ttg.memdesc<f16, #a, #smem>"],
)  # fmt: skip
def test_bad_memdesc_names_field(text: str) -> None:
    with pytest.raises(RequestError) as exc:
        parse_memdesc(text, "source")
    assert exc.value.field == "source"


def test_swizzled_layout_has_no_absolute_repeat() -> None:
    lay = parse_layout(
        "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>", "l"
    )
    assert lay is not None and lay.kind == "swizzled" and lay.swizzle_repeat == 0


def test_layout_aliases_resolve() -> None:
    lay = parse_layout("#s", "l", {"#s": "#ttg.nvmma_shared<{swizzlingByteWidth = 32}>"})
    assert lay is not None and lay.swizzle_repeat == 256
