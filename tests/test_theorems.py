"""Theorems: each proved or refuted as declared, by both solvers, with re-checked witnesses."""

from __future__ import annotations

from typing import Any

import pytest

from alias_spec import parse_request
from alias_spec.model.interp import check_facts
from alias_spec.semantics.theorems import Outcome, prove

EXPECTED_FINDINGS = {
    "sound.flagtree",
    "compose.flagtree",
    "compose_from_allocation.flagtree",
    "converse.flagtree",
    "compose.safe",
    "converse.safe",
}


@pytest.fixture(scope="module")
def outcomes() -> dict[str, Outcome]:
    return {o.theorem.id: o for o in prove(("z3", "cvc5"))}


def _ids(request: dict[str, Any], profile: str) -> list[str]:
    return check_facts(parse_request(request).facts, profile).rule_ids()


def test_no_theorem_failed(outcomes: dict[str, Outcome]) -> None:
    failed = {k: o.solvers for k, o in outcomes.items() if o.status == "failed"}
    assert not failed


def test_findings_are_the_expected_ones(outcomes: dict[str, Outcome]) -> None:
    assert {k for k, o in outcomes.items() if o.status == "finding"} == EXPECTED_FINDINGS
    for key in ("sound.safe", "compose_from_allocation.safe", "refines.safe.flagtree",
                "converse_aligned.safe", "guards_covered.safe", "satisfiable.safe"):  # fmt: skip
        assert outcomes[key].status == "proved"
        assert set(outcomes[key].solvers) == {"z3", "cvc5"}


def test_independence_witnesses_violate_one_rule(outcomes: dict[str, Outcome]) -> None:
    checked = 0
    for key, o in outcomes.items():
        if not key.startswith("independent."):
            continue
        _, profile, rule_id = key.split(".", 2)
        request = o.counterexample["request"]["request"]
        assert _ids(request, profile) == [rule_id], key
        checked += 1
    assert checked >= 20


def test_soundness_counterexample_is_real(outcomes: dict[str, Outcome]) -> None:
    ex = outcomes["sound.flagtree"].counterexample["request"]["request"]
    assert _ids(ex, "flagtree") == []
    assert _ids(ex, "safe") != []


@pytest.mark.parametrize("key", ["compose.flagtree", "compose.safe"])
def test_composition_counterexamples_are_real(outcomes: dict[str, Outcome], key: str) -> None:
    profile = key.split(".")[1]
    ex = outcomes[key].counterexample
    assert _ids(ex["first"]["request"], profile) == []
    assert _ids(ex["second"]["request"], profile) == []
    assert _ids(ex["direct"]["request"], profile) != []
