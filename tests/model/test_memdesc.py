"""MLIR memdesc type text and layout attribute parsing."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alias_spec.model.catalogue import PROFILES
from alias_spec.model.errors import RequestError
from alias_spec.model.interp import check_facts
from alias_spec.model.layouts import parse_layout
from alias_spec.model.memdesc import parse_memdesc
from alias_spec.model.request import parse_request


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


# --- view requests with arbitrary types: a verdict or a RequestError, never a crash ----------


def test_subslice_with_a_layout_of_higher_rank_than_its_shape() -> None:
    # A rank-3 layout on a 1-D memdesc: the layout rank rule rejects the type, and the subslice
    # facts are still computed (every dim counts as covered by the layout).
    sw3 = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1, 2]}>"
    req = {"op": "ttg.memdesc_subslice", "offsets": [4],
           "source": f"!ttg.memdesc<8xi8, {sw3}, #ttg.shared_memory>",
           "result": f"!ttg.memdesc<4xi8, {sw3}, #ttg.shared_memory>"}  # fmt: skip
    facts = parse_request(req).facts
    assert "triton.type.layout_rank" in check_facts(facts, "triton-3.9").rule_ids()


_DIMS = st.lists(st.integers(0, 70), min_size=0, max_size=4)


@st.composite
def _layout(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["swizzled", "nvmma", "padded", "linear"]))
    if kind in ("padded", "linear"):  # layouts the spec reads as "other" (placement unknown)
        rank = draw(st.integers(1, 4))
        order = ", ".join(map(str, draw(st.permutations(list(range(rank))))))
        if kind == "linear":
            basis = ", ".join(["0"] * (rank - 1) + ["1"])
            return f"#ttg.shared_linear<{{offset = [[{basis}]], block = []}}, alignment = 16>"
        i, p = draw(st.sampled_from([1, 32, 64])), draw(st.sampled_from([1, 4, 8]))
        shape = ", ".join(["8"] * rank)
        return f"#ttg.padded_shared<[{i}:+{p}] {{order = [{order}], shape = [{shape}]}}>"
    if kind == "swizzled":
        rank = draw(st.integers(1, 4))
        order = draw(st.permutations(list(range(rank))))
        v, p, m = (draw(st.sampled_from([1, 2, 4, 8])) for _ in range(3))
        return (
            f"#ttg.swizzled_shared<{{vec = {v}, perPhase = {p}, maxPhase = {m}, "
            f"order = [{', '.join(map(str, order))}]}}>"
        )
    w = draw(st.sampled_from([0, 32, 64, 128]))
    t = draw(st.sampled_from(["true", "false"]))
    b = draw(st.sampled_from([8, 16, 32]))
    return (
        f"#ttg.nvmma_shared<{{swizzlingByteWidth = {w}, transposed = {t}, elementBitWidth = {b}}}>"
    )


@st.composite
def _memdesc(draw: st.DrawFn) -> str:
    dims = draw(_DIMS)
    dt = draw(st.sampled_from(["i1", "i8", "f16", "f32", "f64"]))
    shape = "".join(f"{d}x" for d in dims) + dt
    tail = ", mutable" if draw(st.booleans()) else ""
    alloc = draw(st.one_of(st.none(), _DIMS.filter(bool)))
    if alloc:
        tail += ", " + "x".join(map(str, alloc))
    return f"!ttg.memdesc<{shape}, {draw(_layout())}, #ttg.shared_memory{tail}>"


@settings(max_examples=300, deadline=None)
@given(
    op=st.sampled_from(["ttg.memdesc_reinterpret", "ttg.memdesc_subslice", "ttg.memdesc_index"]),
    src=_memdesc(),
    res=_memdesc(),
    offsets=st.lists(st.integers(-8, 80), max_size=4),
    index=st.one_of(st.none(), st.integers(-3, 70)),
)
def test_any_view_request_gets_a_verdict_or_a_field_error(
    op: str, src: str, res: str, offsets: list[int], index: int | None
) -> None:
    req: dict = {"op": op, "source": src, "result": res}
    if op == "ttg.memdesc_subslice":
        req["offsets"] = offsets
    if op == "ttg.memdesc_index":
        req["index"] = index
    try:
        facts = parse_request(req).facts
    except RequestError as exc:
        assert exc.field and str(exc)
        return
    for profile in PROFILES:
        check_facts(facts, profile)
