"""The physical footprint and alias.range.physical against brute-force address sets."""

from __future__ import annotations

from math import prod

from hypothesis import given, settings
from hypothesis import strategies as st

from alias_spec.model.catalogue import rule
from alias_spec.model.interp import violated
from alias_spec.model.physical import footprint


def brute_elements(shape: list[int], alloc: list[int], offsets: list[int]) -> list[int]:
    """Every element position of the view, relative to its first element, by enumeration."""
    n = len(alloc)
    s = [1] * (n - len(shape)) + shape
    strides = [prod(alloc[i + 1 :]) for i in range(n)]
    positions = [0]
    for d in range(n):
        positions = [p + k * strides[d] for p in positions for k in range(s[d])]
    return sorted(positions)


@st.composite
def views(draw: st.DrawFn) -> tuple[list[int], list[int], list[int]]:
    rank = draw(st.integers(1, 3))
    alloc = [draw(st.integers(1, 6)) for _ in range(rank)]
    shape, offsets = [], []
    for a in alloc:
        size = draw(st.integers(1, a))
        shape.append(size)
        offsets.append(draw(st.integers(0, a - size)))
    return shape, alloc, offsets


@settings(max_examples=400, deadline=None)
@given(views())
def test_footprint_matches_enumeration(view: tuple[list[int], list[int], list[int]]) -> None:
    shape, alloc, offsets = view
    fp = footprint(shape, alloc, offsets)
    assert fp.elements() == brute_elements(shape, alloc, offsets)
    strides = [prod(alloc[i + 1 :]) for i in range(len(alloc))]
    assert fp.start == sum(o * s for o, s in zip(offsets, strides, strict=True))


@settings(max_examples=400, deadline=None)
@given(views(), st.integers(1, 4), st.integers(0, 200), st.integers(0, 60))
def test_physical_rule_is_byte_containment(view, eb: int, off: int, length: int) -> None:
    """alias.range.physical fires exactly when some result byte is outside the view."""
    shape, alloc, offsets = view
    fp = footprint(shape, alloc, offsets)
    covered = {e * eb + b for e in fp.elements() for b in range(eb)}
    facts = {**fp.facts(), "off_int": True, "off": off, "src_bits": 8 * eb, "res_bits": 8,
             "src_static": True, "res_static": True, "src_elems": prod(shape),
             "res_elems": length}  # fmt: skip
    contained = all(off + k in covered for k in range(length))
    assert violated(rule("alias.range.physical"), facts) == (not contained)


@settings(max_examples=300, deadline=None)
@given(views(), st.sampled_from([8, 16, 32, 1, 0]), st.integers(0, 64))
def test_parsed_facts_satisfy_invariants(view, bits: int, off: int) -> None:
    """The solver assumes facts.INVARIANTS; every request the parser accepts must meet them."""
    from alias_spec import parse_request
    from alias_spec.model import dsl
    from alias_spec.model.facts import INVARIANTS, expand

    shape, alloc, offsets = view
    req = {"source": {"shape": shape, "alloc_shape": alloc, "view_offsets": offsets,
                      "dtype": {"bits": bits}},
           "result": {"shape": [3], "dtype": "i8"}, "alias_offset_bytes": off}  # fmt: skip
    facts = parse_request(req).facts
    for text in INVARIANTS:
        assert dsl.evaluate(expand(text), facts), text
