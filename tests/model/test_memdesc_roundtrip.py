"""The one memdesc type reader (``model.memdesc.memdesc_fields``) and printer
(``format_memdesc``) against what Triton itself printed: every distinct memdesc type in the
TTGIR dumps of the plan corpora (3.6-3.9) reads and prints back to its own text, and the
fields read are the ones the text spells."""

from __future__ import annotations

import gzip
import json
import re

import pytest

from alias_spec.ir.memdesc_type import first_memdesc, memdesc_types
from alias_spec.model.errors import RequestError
from alias_spec.model.memdesc import format_memdesc, memdesc_fields
from tests.paths import PLAN_CASES

CASES = PLAN_CASES


def _printed_types() -> list[str]:
    seen: set[str] = set()
    for f in sorted(CASES.glob("*.ttgir")):
        seen.update(memdesc_types(f.read_text()))
    for f in sorted(CASES.glob("corpus/*/*.json.gz")):
        dump = json.loads(gzip.decompress(f.read_bytes()))
        seen.update(memdesc_types(dump.get("ttgir", "")))  # a dump that failed has none
    return sorted(seen)


TYPES = _printed_types()


def test_the_corpora_hold_many_kinds_of_type() -> None:
    assert len(TYPES) > 100
    assert any("mutable" in t for t in TYPES) and any("mutable" not in t for t in TYPES)
    # an alloc shape after the mutability: a view of a larger allocation
    assert any(re.search(r"mutable, \d+(x\d+)*>$", t) for t in TYPES)


@pytest.mark.parametrize("text", TYPES[::7] if len(TYPES) > 50 else TYPES)
def test_read_then_printed_is_the_text(text: str) -> None:
    f = memdesc_fields(text, "t")
    got = format_memdesc(f["shape"], f["dtype"], f["layout"], f["space"], f["mutable"],
                         f.get("alloc_shape"))  # fmt: skip
    assert got == text


def test_every_printed_type_round_trips() -> None:
    bad = []
    for text in TYPES:
        f = memdesc_fields(text, "t")
        args = (f["shape"], f["dtype"], f["layout"], f["space"], f["mutable"], f.get("alloc_shape"))
        if format_memdesc(*args) != text:
            bad.append(text)
    assert not bad, bad[:5]


def test_fields_are_what_the_text_spells() -> None:
    f = memdesc_fields("!ttg.memdesc<2x64x?xf16, #ttg.swizzled_shared<{vec = 1}>, #smem, "
                       "mutable, 3x64x?>", "t")  # fmt: skip
    assert f["shape"] == [2, 64, None] and f["dtype"] == "f16"
    assert f["layout"] == "#ttg.swizzled_shared<{vec = 1}>" and f["space"] == "#smem"
    assert f["mutable"] is True and f["alloc_shape"] == [3, 64, None]


def test_first_memdesc_skips_a_malformed_type() -> None:
    assert first_memdesc("%a = ttg.local_alloc : () -> !ttg.memdesc<4x, #s, #smem>") is None
    assert first_memdesc("no type here") is None
    with pytest.raises(RequestError):
        memdesc_fields("!ttg.memdesc<4xf16>", "t")
