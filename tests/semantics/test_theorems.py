"""Theorems: each proved or refuted as declared, by both solvers, with re-checked witnesses.

One test per theorem, ``test_theorem[<id>]``, so that pytest-xdist spreads the proofs over its
workers. Each theorem is proved once per run, here (``outcome``, cached per process): its
SMT-LIB file in solver/theorems/ is checked against that proof, not decided again
(tests/semantics/test_solver_files.py). The fast tier proves all but SLOW_THEOREMS (every
case of this file stays in it: FAST_WHOLE in tests/conftest.py); the full tier proves all.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest

from alias_spec import parse_request
from alias_spec.model.interp import check_facts
from alias_spec.semantics.theorems import Outcome, all_theorems, run_theorem
from tests.semantics.test_solver_files import check_theorem_file

EXPECTED_FINDINGS = {
    "sound.flagtree",
    "compose.flagtree",
    "compose_from_allocation.flagtree",
    "converse.flagtree",
    "compose.safe",
    "converse.safe",
}


# Left to the full tier, as when they took minutes. Now the longest of them takes 15 to 25 s on
# two cores (compose_from_allocation.safe), the others a few seconds or less, like those the fast
# tier proves (enough independence theorems stay there for the witness checks); sound.flagtree
# takes 2 to 4 s (sound.safe, the same theorem for the other profile, stays).
SLOW_THEOREMS = frozenset(
    {
        "sound.flagtree",
        "compose.safe",
        "compose_from_allocation.flagtree",
        "compose_from_allocation.safe",
        "converse.safe",
        "converse_aligned.safe",
        "independent.flagtree.alias.offset.i32",
        "independent.safe.alias.offset.aligned",
    }
)
THEOREMS = {t.id: t for t in all_theorems()}


@functools.cache
def outcome(key: str) -> Outcome:
    """The theorem proved by both solvers, once per process."""
    return run_theorem(THEOREMS[key], ("z3", "cvc5"))


def _ids(request: dict[str, Any], profile: str) -> list[str]:
    return check_facts(parse_request(request).facts, profile).rule_ids()


def test_the_sets_name_theorems() -> None:
    assert EXPECTED_FINDINGS <= set(THEOREMS) and SLOW_THEOREMS <= set(THEOREMS)
    # The fast tier checks the witnesses of at least 20 independence theorems.
    assert sum(k.startswith("independent.") for k in set(THEOREMS) - SLOW_THEOREMS) >= 20


def _independence_witness(key: str, o: Outcome) -> None:
    _, profile, rule_id = key.split(".", 2)
    assert _ids(o.counterexample["request"]["request"], profile) == [rule_id], key


def _soundness_counterexample(key: str, o: Outcome) -> None:
    ex = o.counterexample["request"]["request"]
    assert _ids(ex, "flagtree") == []
    assert _ids(ex, "safe") != []


def _composition_counterexample(key: str, o: Outcome) -> None:
    profile = key.split(".")[1]
    ex = o.counterexample
    assert _ids(ex["first"]["request"], profile) == []
    assert _ids(ex["second"]["request"], profile) == []
    assert _ids(ex["direct"]["request"], profile) != []


# What a theorem's witness or counterexample must be, re-checked by the interpreter.
WITNESS_CHECKS = {
    "independent.": _independence_witness,
    "sound.flagtree": _soundness_counterexample,
    "compose.flagtree": _composition_counterexample,
    "compose.safe": _composition_counterexample,
}


@pytest.mark.parametrize(
    "key",
    [pytest.param(k, id=k, marks=[pytest.mark.slow] * (k in SLOW_THEOREMS)) for k in THEOREMS],
)
def test_theorem(key: str) -> None:
    o = outcome(key)
    want = "finding" if key in EXPECTED_FINDINGS else "proved"
    assert o.status == want, (key, o.solvers)
    assert set(o.solvers) == {"z3", "cvc5"}
    check_theorem_file(o)
    for prefix, check in WITNESS_CHECKS.items():
        if key.startswith(prefix):
            check(key, o)
