"""The stock-Triton rules' hand-written cases (``tests/cases/triton/``): one that violates each
``triton.*`` rule (``<rule id, dots as underscores>_violated.json``), most with a neighbour
where the rule applies and holds (``_holds.json``).

Each file records what every release's own verifier (``mod.verify()`` of the request's module,
in a venv holding only that Triton) said of it under ``triton``, and its ``expect`` must follow
from that: a release accepts exactly when its profile expects no rule, and a refusal's diagnostic
(or an abort) is the one an expected rule stands for. ``tests/engines/test_cases.py`` judges the files;
here the files are tied to Triton. The full tier re-runs the modules through the installed
Triton and each interpreter in ``ALIAS_SPEC_TRITON_PYTHONS``.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from alias_spec.difftest.triton import cases as case_gen
from alias_spec.difftest.triton import random_diff
from alias_spec.difftest.triton.diff import profile_for
from alias_spec.model import dsl
from alias_spec.model.catalogue import PROFILES, RULES, compiled, rule, rules_for
from alias_spec.model.errors import RequestError
from alias_spec.model.request import parse_request
from tests.conftest import load_case
from tests.engines.test_cases import TRITON_CASES, case_facts
from tests.paths import CASES

FOLDER = CASES / "triton"
TRITON_RULES = [r for r in RULES if r.id.startswith("triton.")]
TRITON_PROFILES = sorted(p for p in PROFILES if p.startswith("triton-"))
# Triton's wording where the rule's message is not a prefix of the diagnostic (the message
# names the check; these diagnostics add numbers or come from the parser).
WORDING = {
    "triton.op.stock": r"Dialect `tle' not found for custom op 'tle\.memdesc_alias'",
    "triton.type.nvmma_width": r"block shape along the contiguous dimension \d+ is too small ",
    "triton.reinterpret.fits": r"result shared-memory footprint \(\d+ bytes\) exceeds the source",
    "triton.index.result_alloc": r"alloc shape must match shape for both result and src$",
}


def file_name(rule_id: str, kind: str) -> str:
    return rule_id.replace(".", "_") + f"_{kind}.json"


def stands_for(rule_id: str, record: dict[str, str]) -> bool:
    """Whether a release's recorded refusal or abort is the one this rule stands for."""
    message = rule(rule_id).message
    if record["verdict"] == "aborts":
        return " aborts " in message  # the rules that model an abort say so
    diagnostic = record["diagnostic"]
    pattern = WORDING.get(rule_id)
    return diagnostic.startswith(message) or bool(pattern and re.match(pattern, diagnostic))


def disagreements(case: dict[str, Any]) -> list[str]:
    """Each release whose recorded verdict does not give the case's expectation."""
    out = []
    for version, record in case["triton"].items():
        profile = profile_for(version)
        want = case["expect"].get(profile)
        if want is None:
            out.append(f"{version}: no expectation under {profile}")
        elif (record["verdict"] == "accepts") != (want == []):
            out.append(f"{version} {record['verdict']}, {profile} expects {want}")
        elif want and not any(stands_for(r, record) for r in want):
            out.append(f"{version}: {record} is none of {want}")
    return out


@pytest.fixture(scope="module")
def cases() -> dict[str, dict[str, Any]]:
    return {p.name: load_case(p) for p in TRITON_CASES}


def test_every_triton_rule_has_a_violated_case(cases: dict[str, dict[str, Any]]) -> None:
    missing = [r.id for r in TRITON_RULES if file_name(r.id, "violated") not in cases]
    assert not missing, f"add tests/cases/triton/<rule>_violated.json for {missing}"
    known = {file_name(r.id, k) for r in TRITON_RULES for k in ("violated", "holds")}
    assert set(cases) <= known, f"files for no rule: {sorted(set(cases) - known)}"


def test_each_case_is_about_its_rule(cases: dict[str, dict[str, Any]]) -> None:
    for name, case in cases.items():
        r = rule(case["rule"])
        assert name in (file_name(r.id, "violated"), file_name(r.id, "holds")), name
        assert set(case["expect"]) == set(TRITON_PROFILES), name
        own = [p for p in TRITON_PROFILES if r in rules_for(p)]
        if name.endswith("_violated.json"):
            assert all(r.id in case["expect"][p] for p in own), f"{name}: {r.id} does not fire"
        else:
            assert not any(r.id in ids for ids in case["expect"].values()), name
            # Not a vacuous pass: the rule's guard applies to this request.
            assert dsl.evaluate(compiled(r.id)[0], case_facts(case)), f"{name}: guard is false"


def test_expectations_follow_from_tritons_verdicts(cases: dict[str, dict[str, Any]]) -> None:
    for name, case in cases.items():
        assert {profile_for(v) for v in case["triton"]} == set(TRITON_PROFILES), name
        assert disagreements(case) == [], name


def test_a_wrong_expectation_is_caught(cases: dict[str, dict[str, Any]]) -> None:
    case = cases[file_name("triton.subslice.tile", "violated")]
    accepted = cases[file_name("triton.type.byte_elems", "violated")]  # 3.6 accepts it
    wrong = [
        {**case, "expect": {**case["expect"], "triton-3.9": []}},
        {**case, "expect": {**case["expect"], "triton-3.9": ["triton.subslice.swizzle"]}},
        {**accepted, "expect": {**accepted["expect"], "triton-3.6": ["triton.type.rank"]}},
    ]
    assert disagreements(case) == []
    assert all(disagreements(c) for c in wrong)


def test_sources_name_the_case_they_copy(cases: dict[str, dict[str, Any]]) -> None:
    differential = {c["id"]: c["request"] for c in case_gen.all_cases()}
    for name, case in cases.items():
        source = case["source"]
        if m := re.match(r"case ((?:boundary|near|random)-\d+) of the Triton differential", source):
            assert differential[m[1]] == case["request"], name
        elif m := re.match(r"case (\d+) of random_diff\.generate\((\d+), (\d+)\)", source):
            drawn = random_diff.generate(int(m[2]), int(m[3]))[int(m[1])]
            assert random_diff.request_of(drawn) == case["request"], name
        else:
            assert source.startswith("written for this file"), name


def test_rank_0_is_beyond_requests(cases: dict[str, dict[str, Any]]) -> None:
    # The one facts-only case: check refuses its request as malformed (exit 2), which is why
    # its rule is judged on edited facts.
    case = cases[file_name("triton.type.rank", "violated")]
    with pytest.raises(RequestError, match="needs dims"):
        parse_request(case["request"])
    assert [name for name, c in cases.items() if "facts" in c] == [file_name("triton.type.rank",
            "violated")]  # fmt: skip


# --- against the verifiers themselves ---------------------------------------------------------


def _interpreters() -> list[str]:
    extra = os.environ.get("ALIAS_SPEC_TRITON_PYTHONS", "")
    return [sys.executable, *[p for p in extra.split(os.pathsep) if p]]


def _release_id(python: str) -> str:
    return "installed" if python == sys.executable else Path(python).parent.parent.name


def _module(case: dict[str, Any]) -> str:
    """What Triton was given: the request's module, or the file's own (an op no request
    renders)."""
    return case.get("module") or case_gen.module(case["request"])


@pytest.mark.slow
@pytest.mark.parametrize("python", _interpreters(), ids=_release_id)
def test_recorded_verdicts_are_the_verifiers(python: str, cases: dict[str, dict]) -> None:
    from alias_spec.difftest.triton.runner import triton_version, verify_modules

    if python == sys.executable and importlib.util.find_spec("triton") is None:
        pytest.skip("triton is not importable here")
    if not Path(python).exists():
        pytest.skip(f"{python} does not exist")
    version = triton_version(python)
    if version not in next(iter(cases.values()))["triton"]:
        pytest.skip(f"no verdicts recorded for Triton {version}")
    results = verify_modules([(name, _module(c)) for name, c in cases.items()], python)
    for name, case in cases.items():
        want, got = case["triton"][version], results[name]
        verdict = "accepts" if got["ok"] else "aborts" if got["crash"] else "refuses"
        assert verdict == want["verdict"], (name, version, got)
        if verdict == "refuses":
            assert got["error"] == want["diagnostic"], (name, version)
