"""Hand-written cases, each file carrying its expected verdict per profile (Alive2 style).

The alias rules' cases are ``tests/cases/*.json``; the stock-Triton rules' are
``tests/cases/triton/*.json``, each holding the verdict of every release's own verifier too
(``tests/difftest/test_triton_cases.py`` ties the expectations to those verdicts). Every case is judged
the way ``alias-spec check --engine E`` judges it: the fast tier runs all of them through the
cheap engines (the generated Python checks, ``check``'s default, and the reference interpreter),
the full tier through the others.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from alias_spec import RULES, parse_request
from alias_spec.api import judge
from alias_spec.difftest import outcomes
from alias_spec.engines import registry
from alias_spec.model.facts import Facts
from alias_spec.model.verdict import Verdict
from tests.conftest import CASES, load_case
from tests.paths import CASES as CASE_DIR

TRITON_CASES = sorted((CASE_DIR / "triton").glob("*.json"))
ALL_CASES = CASES + TRITON_CASES
# A deliberate subset for the fast tier: the two engines that judge in microseconds and need
# neither a compiler nor a solver; the slow tier runs every other engine of the registry.
FAST_ENGINES = ("python", "interp")
SLOW_ENGINES = tuple(n for n in registry.NAMES if n not in FAST_ENGINES)


def case_facts(case: dict[str, Any]) -> Facts:
    """The facts a case is judged on. A case with ``facts`` states what no request can (a
    rank-0 memdesc): the facts of the request there, edited by ``set``."""
    if "facts" in case:
        edit = case["facts"]
        return {**parse_request(edit["request"]).facts, **edit["set"]}
    return parse_request(case["request"]).facts


def judged(case: dict[str, Any], profile: str, engine: str) -> Verdict:
    """``check``'s verdict without fixes (facts-only cases: the engine on their facts)."""
    if "facts" in case:
        return registry.get(engine)(case_facts(case), profile)
    return judge(parse_request(case["request"]), profile, engine, fixes=False)


def mismatches(name: str, case: dict[str, Any], engine: str) -> list[str]:
    """Each profile of the case where the engine's verdict is not the expected one: the rules
    it reports (``expect`` less ``not_judged``), the rules it cannot judge, and the status."""
    out = []
    for profile, want in case["expect"].items():
        skipped = case.get("not_judged", {}).get(profile, [])
        fired = [r for r in want if r not in skipped]
        status = "invalid" if fired else "partial" if skipped else "valid"
        v = judged(case, profile, engine)
        got = (v.rule_ids(), v.not_judged, v.status)
        if got != (fired, skipped, status):
            out.append(f"{name} under {profile} by {engine}: {got} != {(fired, skipped, status)}")
    return out


def test_every_case_verdict() -> None:
    # One test, not one per file: the fast tier keeps only the first case of a parametrized test.
    assert len(CASES) > 40 and len(TRITON_CASES) > 40
    bad = [
        m
        for path in ALL_CASES
        for engine in FAST_ENGINES
        for m in mismatches(path.stem, load_case(path), engine)
    ]
    assert not bad, "\n".join(bad)


@pytest.mark.slow
@pytest.mark.parametrize("path", ALL_CASES, ids=lambda p: p.stem)
@pytest.mark.parametrize("engine", SLOW_ENGINES)
def test_case_verdict(path: Path, engine: str) -> None:
    why = registry.unavailable(engine)
    if why:
        pytest.skip(why)
    case = load_case(path)
    if engine == "cpp" and not outcomes.in_int64(case_facts(case)):
        pytest.skip("facts outside the C++ engine's int64 domain (check refuses them there)")
    assert mismatches(path.stem, case, engine) == []


def test_mismatches_are_seen() -> None:
    # An expectation that lost a rule or gained one is reported, in both sets of cases.
    invalid = [next(p for p in paths if any(load_case(p)["expect"].values()))
               for paths in (CASES, TRITON_CASES)]  # fmt: skip
    for path in invalid:
        case = load_case(path)
        profile, want = next((p, w) for p, w in case["expect"].items() if w)
        for wrong in (want[1:], [*want, "triton.op.stock"]):
            edited = {**case, "expect": {profile: wrong}}
            assert mismatches(path.stem, edited, "python"), (path.stem, wrong)


def test_every_rule_fires_and_passes_in_some_case() -> None:
    fired: dict[str, set[str]] = {}
    for path in CASES:
        for profile, ids in load_case(path)["expect"].items():
            for rule_id in ids:
                fired.setdefault(profile, set()).add(rule_id)
    for r in RULES:
        for profile in r.profiles:
            if profile in ("flagtree", "safe"):
                assert r.id in fired.get(profile, set()), f"no case makes {r.id} fire ({profile})"
