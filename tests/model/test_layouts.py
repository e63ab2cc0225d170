"""One layout reader: every spelling of one layout (a JSON object with or without its defaults,
attribute text with or without them, an attribute alias) is one canonical ``Layout``, from
which both the physical facts and the type facts are read."""

from __future__ import annotations

from typing import Any

import pytest

from alias_spec.model.errors import RequestError
from alias_spec.model.interp import check_facts
from alias_spec.model.layouts import parse_layout
from alias_spec.model.request import parse_request

SW2 = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>"
NV = "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>"
ONE_CTA = ", CTAsPerCGA = [1, 1], CTASplitNum = [1, 1], CTAOrder = [1, 0]"

# Spellings of one layout each.
SAME: dict[str, list[Any]] = {
    "swizzled": [
        {"kind": "swizzled", "vec": 1, "per_phase": 1, "max_phase": 1, "order": [1, 0]},
        {"kind": "swizzled", "order": [1, 0]},
        SW2,
        "#ttg.swizzled_shared<{order = [1,0]}>",
        "#swizzled_shared<{ order = [ 1, 0 ], vec = 1 }>",
        SW2[:-2] + ONE_CTA + "}>",
    ],
    "nvmma": [
        {"kind": "nvmma", "swizzle_bytes": 128, "element_bitwidth": 16},
        {"kind": "nvmma", "swizzle_bytes": 128, "transposed": False, "element_bitwidth": 16,
         "rank": 2},
        NV,
        "#ttg.nvmma_shared<{elementBitWidth = 16, swizzlingByteWidth = 128}>",
        NV[:-2] + ONE_CTA + ", fp4Padded = false}>",
    ],
    "nvmma rank 3": [
        {"kind": "nvmma", "swizzle_bytes": 64, "element_bitwidth": 8, "rank": 3},
        "#ttg.nvmma_shared<{swizzlingByteWidth = 64, elementBitWidth = 8, CTAsPerCGA = [1, 1, 1]}>",
    ],
}  # fmt: skip

# Layouts that differ from SAME["swizzled"][0] in one parameter each.
DIFFERENT: list[Any] = [
    {"kind": "swizzled", "vec": 2, "order": [1, 0]},
    {"kind": "swizzled", "order": [0, 1]},
    {"kind": "swizzled"},
    "#ttg.swizzled_shared<{maxPhase = 2, order = [1, 0]}>",
    SW2[:-2] + ", CTAsPerCGA = [2, 1], CTASplitNum = [1, 1], CTAOrder = [1, 0]}>",
    {"kind": "nvmma", "swizzle_bytes": 0, "rank": 2},
    "#shared",
]


@pytest.mark.parametrize("name", sorted(SAME))
def test_spellings_of_one_layout_are_one_layout(name: str) -> None:
    got = [parse_layout(v, "layout") for v in SAME[name]]
    first = got[0]
    assert first is not None and first.kind in ("swizzled", "nvmma")
    assert all(lay == first for lay in got)
    assert {lay.key for lay in got if lay is not None} == {first.key}


@pytest.mark.parametrize("value", DIFFERENT, ids=str)
def test_different_layouts_differ(value: Any) -> None:
    base = parse_layout(SAME["swizzled"][0], "layout")
    other = parse_layout(value, "layout")
    assert other != base and other is not None and base is not None and other.key != base.key


def test_an_alias_is_the_layout_it_names() -> None:
    aliases = {"#s": SW2}
    assert parse_layout("#s", "layout", aliases) == parse_layout(SAME["swizzled"][1], "layout")


def _subslice(src_layout: Any, res_layout: Any) -> dict[str, Any]:
    side = {"dtype": "f16", "alloc_shape": [8, 8]}
    return {"op": "ttg.memdesc_subslice", "offsets": [0, 0],
            "source": {**side, "shape": [4, 8], "view_offsets": [4, 0], "layout": src_layout},
            "result": {**side, "shape": [2, 8], "layout": res_layout}}  # fmt: skip


@pytest.mark.parametrize("spelling", SAME["swizzled"], ids=str)
def test_a_subslice_keeping_its_layout_keeps_its_encoding(spelling: Any) -> None:
    """The request of the differential's report: the result's layout written another way is
    the same encoding, and the type facts read from either spelling are the same."""
    ref = parse_request(_subslice(SAME["swizzled"][0], SAME["swizzled"][0])).facts
    facts = parse_request(_subslice(SAME["swizzled"][0], spelling)).facts
    assert facts["same_enc"] is True
    assert facts == ref
    for profile in ("triton-3.8", "triton-3.9"):
        assert check_facts(facts, profile).valid, profile


def test_a_subslice_changing_its_layout_changes_its_encoding() -> None:
    facts = parse_request(_subslice(SW2, DIFFERENT[0])).facts
    assert facts["same_enc"] is False
    assert "triton.subslice.encoding" in check_facts(facts, "triton-3.9").rule_ids()


@pytest.mark.parametrize(
    "value,field",
    [
        ({"kind": "swizzled", "vecc": 2}, "layout.vecc"),
        ({"kind": "nvmma", "swizzle_bytes": "128"}, "layout.swizzle_bytes"),
        ({"kind": "nvmma", "transposed": "true"}, "layout.transposed"),
        ({"kind": "nvmma", "swizzle_bytes": 48}, "layout.swizzle_bytes"),
        ({"kind": "swizzled", "vec": 0}, "layout.vec"),
        ("#ttg.nvmma_shared<{transposed = yes}>", "layout.transposed"),
        ("#ttg.nvmma_shared<{swizzlingByteWidth = 48}>", "layout.swizzlingByteWidth"),
        ("#ttg.swizzled_shared<{order = [1, 0], CTAOrder = [x]}>", "layout.CTAOrder"),
    ],
)  # fmt: skip
def test_a_bad_parameter_names_its_field(value: Any, field: str) -> None:
    with pytest.raises(RequestError) as exc:
        parse_layout(value, "layout")
    assert exc.value.field == field
