"""Every fact tuple the request parser produces meets ``facts.INVARIANTS``: z3 and the proofs
assume them, and the request-level differential does not judge facts that break them with z3,
so a parser that broke one would go unseen there. Checked over the differential's corpus,
each request in each of its spellings (as given, with every default spelled out, as MLIR text
inline and through attribute aliases)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from alias_spec.difftest.requests import corpus
from alias_spec.difftest.targets import canonical, explicit, mlir
from alias_spec.model import dsl
from alias_spec.model.errors import RequestError
from alias_spec.model.facts import INVARIANTS, Facts, expand
from alias_spec.model.request import parse_request
from tests.paths import BOUNDARY, CASES

REQUESTS = 6_000
TREES = [(text, expand(text)) for text in INVARIANTS]


def broken(facts: Facts) -> list[str]:
    """The invariants ``facts`` breaks."""
    return [text for text, tree in TREES if not dsl.evaluate(tree, facts)]


def spellings(req: Any) -> Iterator[tuple[str, Any]]:
    yield "json", req
    c = canonical(req)
    if c is None:
        return
    yield "explicit", explicit.spelled_out(c)
    for via_aliases in (False, True):
        text = mlir.mlir_request(c, via_aliases)
        if text is not None:
            yield f"mlir (aliases: {via_aliases})", text


@pytest.mark.parametrize(
    "count",
    [
        pytest.param(REQUESTS // 10, id="sample"),
        pytest.param(REQUESTS, id="all", marks=pytest.mark.slow),
    ],
)
def test_every_parsed_request_meets_the_invariants(count: int) -> None:
    parsed = 0
    bad: list[tuple[str, list[str], Any]] = []
    for _, req in corpus(count, seed=3, boundary=BOUNDARY, cases=CASES):
        for how, spelled in spellings(req):
            try:
                facts = parse_request(spelled).facts
            except RequestError:
                continue
            parsed += 1
            if broke := broken(facts):
                bad.append((how, broke, spelled))
    assert parsed >= 2 * count  # most requests parse, in more than one spelling
    assert not bad, bad[:5]


@pytest.mark.parametrize("dim", ["?", None])
def test_a_dynamic_dim_is_one_dim_however_written(dim: Any) -> None:
    req = {"op": "ttg.memdesc_reinterpret", "source": {"shape": [dim], "dtype": "i8"},
           "result": {"shape": [16], "dtype": "i8"}}  # fmt: skip
    facts = parse_request(req).facts
    assert not broken(facts)
    assert facts["src_prefix_sub"] is False and facts["src_subview"] is False


def test_the_check_can_fail() -> None:
    req = {"op": "ttg.memdesc_reinterpret", "source": {"shape": [16], "dtype": "i8"},
           "result": {"shape": [16], "dtype": "i8"}}  # fmt: skip
    facts = dict(parse_request(req).facts)
    assert not broken(facts)
    facts["src_prefix_sub"] = True  # a prefix subview that is no subview
    assert broken(facts)
